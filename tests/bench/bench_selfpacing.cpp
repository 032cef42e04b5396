// SPDX-License-Identifier: Apache-2.0
// Self-pacing against a rate limiter nobody on this project wrote: 300 one-shot GETs,
// four in flight, against express-rate-limit (tests/e2e/ratelimit-server, npm) on a
// fixed window of 10 requests per 10 s, as `cooldown run` does it with no policy, with
// a generous policy (20 per 10 s) and with the server's own (10 per 10 s). Counted at
// the server: 429s per job, and the time from the first request to the last beside
// the ideal schedule (what the server's quota needs: a full window for every ten jobs
// after the first ten). The three run side by side, each against its own server.
//   bench_selfpacing [--smoke] [--jobs N]

#include "bench/BenchSupport.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <csignal>

using namespace cooldown::bench;

namespace {

struct Case
{
    QString name;
    QString policyLimit; // empty: no policy
    QString before;      // the figures before the engine learned limits
    bool zeroRefusals = false;
};

struct Server
{
    Child child;
    int port = 0;
};

Server startServer(const QString &dir, int limit, int windowSeconds)
{
    const QString out = dir + QStringLiteral("/server.out");
    Server s;
    s.child =
        startChild({QStringLiteral("node"),
                    QStringLiteral(COOLDOWN_SOURCE_DIR "/tests/e2e/ratelimit-server/server.js"),
                    QStringLiteral("--limit"), QString::number(limit),
                    QStringLiteral("--window-seconds"), QString::number(windowSeconds)},
                   out);
    for (int i = 0; i < 200 && s.port == 0; ++i) {
        QThread::msleep(50); // polling a child's output file for its port; not a measurement
        QFile file(out);
        if (file.open(QIODevice::ReadOnly)) {
            const QByteArray line = file.readLine().trimmed();
            if (line.startsWith("listening "))
                s.port = line.mid(10).toInt();
        }
    }
    if (s.port == 0)
        die(QStringLiteral("the rate-limited server did not start (scripts/setup installs it)"));
    return s;
}

QJsonObject stats(int port)
{
    QNetworkAccessManager manager;
    QNetworkReply *reply =
        manager.get(QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1/stats").arg(port))));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(10000, &loop, &QEventLoop::quit);
    loop.exec();
    return QJsonDocument::fromJson(reply->readAll()).object();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const int jobs = option(args, QStringLiteral("--jobs"),
                            g_smoke ? QStringLiteral("12") : QStringLiteral("300"))
                         .toInt();
    const int limit = g_smoke ? 5 : 10;
    const int windowSeconds = g_smoke ? 2 : 10;
    if (jobs < limit)
        die(QStringLiteral("--jobs: at least %1").arg(limit));
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary folder"));

    const QList<Case> cases{
        {QStringLiteral("no policy"), QString(), QStringLiteral("before: 2.5 429s per job"), false},
        {QStringLiteral("generous policy (2x)"), QString::number(2 * limit),
         QStringLiteral("before: 1.54x the ideal"), true},
        {QStringLiteral("exact policy"), QString::number(limit), QString(), true},
    };
    struct Running
    {
        Server server;
        Child run;
        QString db;
    };
    std::vector<Running> running;
    for (int c = 0; c < cases.size(); ++c) {
        const Case &k = cases.at(c);
        const QString caseDir = dir.filePath(QString::number(c));
        QDir().mkpath(caseDir);
        Running r;
        r.server = startServer(caseDir, limit, windowSeconds);
        QByteArray endpoints;
        for (int i = 0; i < jobs; ++i)
            endpoints += (i ? ",\n" : "") +
                         QStringLiteral(R"({"id": "job-%1", "url": "http://127.0.0.1:%2/job/%1",)"
                                        R"( "timeout_seconds": 10%3})")
                             .arg(i)
                             .arg(r.server.port)
                             .arg(k.policyLimit.isEmpty() ? QString()
                                                          : QStringLiteral(R"(, "policy": "api")"))
                             .toUtf8();
        const QByteArray policies = k.policyLimit.isEmpty()
                                        ? QByteArray()
                                        : R"("policies": [{"policy_id": "api", "limit": )" +
                                              k.policyLimit.toUtf8() + R"(, "window_seconds": )" +
                                              QByteArray::number(windowSeconds) + "}],";
        const QByteArray config =
            R"({"version": 1, "concurrency": {"max_in_flight": 4}, )" + policies +
            R"( "retry_profiles": {"default": {"max_attempts": 20, "deadline_seconds": 3600,
                "throttle_counts_as_attempt": false}}, "endpoints": [)" +
            endpoints + "]}";
        QFile file(caseDir + QStringLiteral("/workspace.json"));
        if (!file.open(QIODevice::WriteOnly) || file.write(config) != config.size())
            die(QStringLiteral("cannot write the workspace"));
        file.close();
        r.db = caseDir + QStringLiteral("/cooldown.db");
        r.run = startChild({QStringLiteral(COOLDOWN_BINARY), QStringLiteral("run"),
                            QStringLiteral("--config"), file.fileName(), QStringLiteral("--db"),
                            r.db, QStringLiteral("--until-idle")},
                           caseDir + QStringLiteral("/run.out"));
        running.push_back(std::move(r));
    }
    note(QStringLiteral("%1 jobs, %2 per %3 s, four in flight; the three cases side by side")
             .arg(jobs)
             .arg(limit)
             .arg(windowSeconds));
    // The work a full window at a time: the first window's jobs at once, the last
    // window opened (jobs / limit - 1) windows later.
    const double idealSeconds = double((jobs + limit - 1) / limit - 1) * windowSeconds;
    for (int c = 0; c < cases.size(); ++c) {
        Running &r = running.at(c);
        const ChildRun run = *waitChild(r.run);
        if (run.exitCode != 0)
            die(QStringLiteral("cooldown run (%1) exited %2")
                    .arg(cases.at(c).name)
                    .arg(run.exitCode));
        const QJsonObject s = stats(r.server.port);
        ::kill(r.server.child.pid, SIGTERM);
        waitChild(r.server.child);
        const int requests = s.value(QLatin1String("requests")).toInt();
        const int refused = s.value(QLatin1String("refused")).toInt();
        const int done = s.value(QLatin1String("done")).toArray().size();
        if (done != jobs)
            die(QStringLiteral("%1: %2 of %3 jobs done at the server")
                    .arg(cases.at(c).name)
                    .arg(done)
                    .arg(jobs));
        const double span = (s.value(QLatin1String("last_ms")).toDouble() -
                             s.value(QLatin1String("first_ms")).toDouble()) /
                            1000.0;
        const double perJob = double(refused) / jobs;
        const Case &k = cases.at(c);
        const QString name = QStringLiteral("self-pacing, %1 jobs vs %2/%3 s, %4")
                                 .arg(jobs)
                                 .arg(limit)
                                 .arg(windowSeconds)
                                 .arg(k.name);
        report(name + QStringLiteral(": 429s per job"),
               k.before.isEmpty() ? QStringLiteral("none allowed") : k.before,
               QStringLiteral("%1 (%2 of %3 requests)")
                   .arg(number(perJob, 2))
                   .arg(refused)
                   .arg(requests),
               QStringLiteral("—"), k.zeroRefusals ? QStringLiteral("0") : QStringLiteral("<= 0.1"),
               k.zeroRefusals ? refused == 0 : perJob <= 0.1);
        report(name + QStringLiteral(": time over the ideal"),
               QStringLiteral("ideal %1 s").arg(number(idealSeconds)),
               QStringLiteral("%1 s").arg(number(span, 1)), ratioText(span / idealSeconds),
               QStringLiteral("<= 1.1x"), span <= idealSeconds * 1.1);
    }
    return g_failures > 0 ? 1 : 0;
}
