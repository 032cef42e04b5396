// SPDX-License-Identifier: Apache-2.0
// `cooldown run --listen`: a real worker serves /metrics while it works against the
// demo API in this process, and what it reports is what the database holds; a real
// Prometheus server (Debian's, on loopback; skipped with the reason without it)
// scrapes it and answers a query with the same count.

#include "app/demo/DemoServer.h"
#include "core/store/Store.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

using namespace cooldown;

namespace {

struct Fetched
{
    int status = 0;
    QByteArray contentType;
    QByteArray body;
};

// A GET with the event loop turning (the demo API lives in this thread too).
Fetched fetch(const QUrl &url)
{
    QNetworkAccessManager manager;
    QNetworkReply *reply = manager.get(QNetworkRequest(url));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    Fetched f;
    f.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    f.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    f.body = reply->readAll();
    reply->deleteLater();
    return f;
}

// The sum of every sample of one metric family.
qint64 total(const QByteArray &page, const QByteArray &name)
{
    qint64 sum = 0;
    for (const QByteArray &line : page.split('\n')) {
        if (line.startsWith(name + '{') || line.startsWith(name + ' '))
            sum += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
    }
    return sum;
}

// `cooldown run --listen 127.0.0.1:0` on a workspace of GET endpoints at the demo
// API (id and path with query), in dir; returns the metrics URL it printed, or an
// empty URL with a test failure. extra: more arguments (e.g. --until-idle).
QUrl startWorker(QProcess &run, const QTemporaryDir &dir, const QUrl &demo,
                 const QList<std::pair<QString, QString>> &endpoints, const QStringList &extra)
{
    QStringList list;
    for (const auto &[id, path] : endpoints)
        list.append(QStringLiteral(R"({"id": "%1", "url": "%2%3", "timeout_seconds": 60})")
                        .arg(id, demo.toString(), path));
    const QString config = dir.filePath(QStringLiteral("workspace.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(QStringLiteral(R"({"version": 1, "endpoints": [%1]})")
                    .arg(list.join(QLatin1Char(',')))
                    .toUtf8()) < 0) {
        QTest::qFail("cannot write the workspace", __FILE__, __LINE__);
        return {};
    }
    f.close();
    run.start(QStringLiteral(COOLDOWN_BINARY),
              QStringList{QStringLiteral("run"), QStringLiteral("--config"), config,
                          QStringLiteral("--db"), dir.filePath(QStringLiteral("metrics.db")),
                          QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0")} +
                  extra);
    if (!run.waitForStarted()) {
        QTest::qFail("cooldown run did not start", __FILE__, __LINE__);
        return {};
    }
    QByteArray out;
    const QRegularExpression at(QStringLiteral("metrics at (http://127\\.0\\.0\\.1:\\d+/metrics)"));
    QRegularExpressionMatch match;
    QElapsedTimer waited;
    waited.start();
    while (!(match = at.match(QString::fromUtf8(out))).hasMatch() && waited.elapsed() < 15000) {
        QTest::qWait(50); // the demo API answers meanwhile
        out += run.readAllStandardOutput();
    }
    if (!match.hasMatch()) {
        QTest::qFail(qPrintable(QStringLiteral("no metrics address in: ") + QString::fromUtf8(out)),
                     __FILE__, __LINE__);
        return {};
    }
    return QUrl(match.captured(1));
}

} // namespace

class tst_MetricsEndpoint : public QObject
{
    Q_OBJECT

private slots:
    void scrapeMatchesTheStore();
    void prometheusScrapesTheWorker();
};

void tst_MetricsEndpoint::scrapeMatchesTheStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));
    // Three quick ones, and one the demo API answers only after 5 s: the worker is
    // still running it when the page is read.
    QProcess run;
    const QUrl metrics =
        startWorker(run, dir, demo.baseUrl(),
                    {{QStringLiteral("a"), QStringLiteral("/ok?key=a")},
                     {QStringLiteral("b"), QStringLiteral("/ok?key=b")},
                     {QStringLiteral("c"), QStringLiteral("/ok?key=c")},
                     {QStringLiteral("slow"), QStringLiteral("/slow?delay_ms=5000&key=s")}},
                    {QStringLiteral("--until-idle")});
    if (QTest::currentTestFailed())
        return;
    const QString db = dir.filePath(QStringLiteral("metrics.db"));

    // Wait until the three quick ones are in the database.
    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(store->countAttempts({}), qint64(3), 10000);

    const Fetched page = fetch(metrics);
    QCOMPARE(page.status, 200);
    QVERIFY2(page.contentType.startsWith("text/plain; version=0.0.4"),
             page.contentType.constData());
    QCOMPARE(total(page.body, "cooldown_attempts_total"), store->countAttempts({}));
    QVERIFY2(page.body.contains("cooldown_attempts_total{endpoint=\"a\",status_class=\"2xx\","
                                "decision=\"success\"} 1\n"),
             page.body.constData());
    QVERIFY2(page.body.contains("cooldown_operations{state=\"running\"} 1\n"),
             page.body.constData());
    QVERIFY2(page.body.contains("cooldown_operations{state=\"scheduled\"} 0\n"),
             page.body.constData());
    QVERIFY2(page.body.contains("cooldown_in_flight 1\n"), page.body.constData());
    QCOMPARE(total(page.body, "cooldown_store_write_seconds_count") >= 1, true);

    QUrl elsewhere = metrics;
    elsewhere.setPath(QStringLiteral("/"));
    QCOMPARE(fetch(elsewhere).status, 404);

    // The slow one ends; the worker goes idle and stops on its own.
    QTRY_VERIFY_WITH_TIMEOUT(run.state() == QProcess::NotRunning, 30000);
    QCOMPARE(run.exitCode(), 0);
    QCOMPARE(store->countAttempts({}), qint64(4));
}

void tst_MetricsEndpoint::prometheusScrapesTheWorker()
{
    const QString prometheus = QStandardPaths::findExecutable(QStringLiteral("prometheus"));
    if (prometheus.isEmpty())
        QSKIP(
            "prometheus is not installed (Debian's prometheus package; scripts/setup installs it)");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));
    // Two quick ones, then one that keeps the worker busy while Prometheus scrapes.
    QProcess run;
    const QUrl metrics =
        startWorker(run, dir, demo.baseUrl(),
                    {{QStringLiteral("a"), QStringLiteral("/ok?key=a")},
                     {QStringLiteral("b"), QStringLiteral("/ok?key=b")},
                     {QStringLiteral("slow"), QStringLiteral("/slow?delay_ms=30000&key=s")}},
                    {});
    if (QTest::currentTestFailed())
        return;
    const QString db = dir.filePath(QStringLiteral("metrics.db"));
    const QString target = QStringLiteral("%1:%2").arg(metrics.host()).arg(metrics.port());

    // A free loopback port for Prometheus' own web API.
    quint16 webPort = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        webPort = probe.serverPort();
    }
    const QString promConfig = dir.filePath(QStringLiteral("prometheus.yml"));
    {
        QFile f(promConfig);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral("global:\n  scrape_interval: 1s\n"
                               "scrape_configs:\n  - job_name: cooldown\n"
                               "    static_configs:\n      - targets: [\"%1\"]\n")
                    .arg(target)
                    .toUtf8());
    }
    QProcess server;
    server.setProcessChannelMode(QProcess::MergedChannels);
    server.start(prometheus,
                 {QStringLiteral("--config.file=") + promConfig,
                  QStringLiteral("--storage.tsdb.path=") + dir.filePath(QStringLiteral("tsdb")),
                  QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(webPort)});
    QVERIFY(server.waitForStarted());
    const auto stopAll = qScopeGuard([&] {
        server.terminate();
        server.waitForFinished(10000);
        // Its last exchange waits on the demo API in this thread, which does not turn
        // while we wait here: end it outright.
        run.kill();
        run.waitForFinished(10000);
    });

    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(store->countAttempts({}), qint64(2), 10000);

    // Ask Prometheus until its latest scrape has the two attempts the database holds.
    QUrl query(QStringLiteral("http://127.0.0.1:%1/api/v1/query").arg(webPort));
    QUrlQuery q;
    q.addQueryItem(QStringLiteral("query"), QStringLiteral("sum(cooldown_attempts_total)"));
    query.setQuery(q);
    const auto scraped = [&] {
        const Fetched answer = fetch(query);
        const QJsonArray result = QJsonDocument::fromJson(answer.body)
                                      .object()
                                      .value(QStringLiteral("data"))
                                      .toObject()
                                      .value(QStringLiteral("result"))
                                      .toArray();
        if (answer.status != 200 || result.isEmpty())
            return qint64(-1);
        return qint64(result.first()
                          .toObject()
                          .value(QStringLiteral("value"))
                          .toArray()
                          .at(1)
                          .toString()
                          .toDouble());
    };
    QTRY_COMPARE_WITH_TIMEOUT(scraped(), store->countAttempts({}), 30000);
}

QTEST_GUILESS_MAIN(tst_MetricsEndpoint)
#include "tst_metrics_endpoint.moc"
