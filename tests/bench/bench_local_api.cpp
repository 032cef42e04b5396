// SPDX-License-Identifier: Apache-2.0
// The local API's intake rate: jobs accepted per second by `cooldown run --listen`
// (POST /v1/jobs, one job each, every one durable in SQLite before its answer) over
// keep-alive connections, beside the demo API's own rate answering GET /ok to the same
// client on the same machine. Both servers are child processes on loopback; the
// client keeps 6 requests in flight (QNAM's connections per host), so both are
// measured over the same 6 kept-alive connections.
//
//   bench_local_api [--smoke] [--requests N] [--cooldown PATH]

#include "bench/BenchSupport.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

const QByteArray kToken = "bench-token-0123456789abcdef";
constexpr int kInFlight = 6;

// Starts `cooldown ARGS` and waits for the line that names its address.
QUrl startServer(QProcess &process, const QString &cooldown, const QStringList &args,
                 const QString &pattern)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("COOLDOWN_API_TOKEN"), QString::fromUtf8(kToken));
    process.setProcessEnvironment(env);
    process.start(cooldown, args);
    if (!process.waitForStarted())
        die(QStringLiteral("cannot start %1").arg(cooldown));
    const QRegularExpression at(pattern);
    QByteArray out;
    QElapsedTimer waited;
    waited.start();
    while (waited.elapsed() < 30000 && process.state() == QProcess::Running) {
        process.waitForReadyRead(100);
        out += process.readAllStandardOutput();
        const QRegularExpressionMatch m = at.match(QString::fromUtf8(out));
        if (m.hasMatch())
            return QUrl(m.captured(1));
    }
    die(QStringLiteral("no address from %1: %2%3")
            .arg(args.join(QLatin1Char(' ')), QString::fromUtf8(out),
                 QString::fromUtf8(process.readAllStandardError())));
}

// Sends `count` requests made by `make`, kInFlight at a time; requests per second.
double drive(qint64 count,
             const std::function<QNetworkReply *(QNetworkAccessManager &, qint64)> &make,
             int expectedStatus)
{
    QNetworkAccessManager manager;
    QEventLoop loop;
    qint64 sent = 0;
    qint64 done = 0;
    qint64 wrong = 0;
    std::function<void()> next = [&] {
        const qint64 i = sent++;
        QNetworkReply *reply = make(manager, i);
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
            if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() !=
                expectedStatus)
                ++wrong;
            reply->readAll();
            reply->deleteLater();
            if (++done == count)
                loop.quit();
            else if (sent < count)
                next();
        });
    };
    // A warm-up request opens a connection before the clock starts.
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < kInFlight && sent < count; ++i)
        next();
    loop.exec();
    const double s = seconds(timer);
    if (wrong > 0)
        die(QStringLiteral("%1 of %2 answers were not %3")
                .arg(wrong)
                .arg(count)
                .arg(expectedStatus));
    return double(count) / s;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const qint64 requests = option(args, QStringLiteral("--requests"),
                                   g_smoke ? QStringLiteral("200") : QStringLiteral("20000"))
                                .toLongLong();
    const QString cooldown =
        option(args, QStringLiteral("--cooldown"), QStringLiteral(COOLDOWN_BINARY));
    QTemporaryDir dir;
    if (!dir.isValid() || requests <= 0)
        die(QStringLiteral("no temporary folder, or a bad --requests"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));

    const QString workspace = dir.filePath(QStringLiteral("workspace.json"));
    {
        QFile w(workspace);
        if (!w.open(QIODevice::WriteOnly))
            die(QStringLiteral("cannot write the workspace"));
        // Jobs for a host that is never reached: not_before keeps them queued, so the
        // worker's time goes to intake alone.
        w.write("{\"version\": 1, \"api\": {\"token\": \"${env:COOLDOWN_API_TOKEN}\", "
                "\"max_queued\": 10000000},\n"
                " \"endpoints\": [{\"id\": \"upload\", \"method\": \"POST\",\n"
                "  \"url\": \"http://127.0.0.1:9/uploads/${job:item}\",\n"
                "  \"headers\": {\"Content-Type\": \"application/json\"},\n"
                "  \"body\": \"{\\\"item\\\": \\\"${job:item}\\\"}\",\n"
                "  \"idempotency\": {\"header\": \"Idempotency-Key\"}}]}\n");
    }

    QProcess demo;
    const QUrl demoUrl =
        startServer(demo, cooldown,
                    {QStringLiteral("demo-server"), QStringLiteral("--port"), QStringLiteral("0")},
                    QStringLiteral("listening on (http://127\\.0\\.0\\.1:\\d+)"));
    QProcess worker;
    const QUrl apiUrl =
        startServer(worker, cooldown,
                    {QStringLiteral("run"), QStringLiteral("--config"), workspace,
                     QStringLiteral("--db"), dir.filePath(QStringLiteral("api.db")),
                     QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")},
                    QStringLiteral("jobs API at (http://127\\.0\\.0\\.1:\\d+)/v1/jobs"));

    const QUrl ok = demoUrl.resolved(QUrl(QStringLiteral("/ok")));
    const double demoRate = drive(
        requests,
        [&](QNetworkAccessManager &m, qint64 i) {
            QUrl url = ok;
            url.setQuery(QStringLiteral("key=k%1").arg(i % 64));
            return m.get(QNetworkRequest(url));
        },
        200);
    const QUrl jobs = apiUrl.resolved(QUrl(QStringLiteral("/v1/jobs")));
    const QByteArray notBefore = "2099-01-01T00:00:00Z";
    const double apiRate = drive(
        requests,
        [&](QNetworkAccessManager &m, qint64 i) {
            QNetworkRequest request(jobs);
            request.setRawHeader("Authorization", "Bearer " + kToken);
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
            return m.post(request, "{\"endpoint\":\"upload\",\"vars\":{\"item\":\"I-" +
                                       QByteArray::number(i) + "\"},\"not_before\":\"" + notBefore +
                                       "\"}");
        },
        201);

    worker.terminate();
    worker.waitForFinished(30000);
    demo.terminate();
    demo.waitForFinished(30000);
    {
        CApiDatabase db(dir.filePath(QStringLiteral("api.db")));
        Statement count(db.handle(), "SELECT COUNT(*) FROM operations");
        count.step();
        if (count.int64(0) != requests)
            die(QStringLiteral("%1 operations in the database, %2 sent")
                    .arg(count.int64(0))
                    .arg(requests));
    }
    const double ratio = apiRate / demoRate;
    report(QStringLiteral("local API: %1 POST /v1/jobs, 6 kept-alive connections").arg(requests),
           QStringLiteral("demo API GET /ok: %1").arg(perSecond(demoRate)),
           QStringLiteral("%1 jobs accepted").arg(perSecond(apiRate)), ratioText(ratio),
           QStringLiteral(">= 0.5x"), ratio >= 0.5);
    return g_failures > 0 ? 1 : 0;
}
