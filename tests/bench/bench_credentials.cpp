// SPDX-License-Identifier: Apache-2.0
// Token renewals across a fleet: four `cooldown run` workers on one SQLite database, a
// steady flow of GETs paced by a policy through an endpoint with an OAuth 2.0
// client-credentials credential, for 20 token lifetimes. The token endpoint and the
// API are the end-to-end tests' (tests/e2e/oauth-server: oauth2-mock-server from npm,
// and a resource server verifying its JWTs with jose), each token living --lifetime
// seconds. Counted at the server (/stats): token requests per lifetime and per renewal
// period (80 % of a lifetime: docs/credentials.md) per worker, and the 401s the API
// answered. Each worker reads its own client id from the environment, so that the
// server counts each worker's token requests apart.
//   bench_credentials [--smoke] [--workers N] [--lifetime S] [--lifetimes N] [--rate R]

#include "bench/BenchSupport.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <csignal>

using namespace cooldown::bench;

namespace {

// The engine renews a token once this share of its lifetime has passed
// (CredentialBroker::kRenewAtShare): the period a worker asks for a token at best.
constexpr double kRenewAtShare = 0.8;

const QString kServerDir = QStringLiteral(COOLDOWN_SOURCE_DIR "/tests/e2e/oauth-server");

// Why the token server cannot run here, or empty.
QString missingTools()
{
    if (QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
        return QStringLiteral("node is not installed (scripts/setup installs it)");
    if (!QFile::exists(kServerDir +
                       QStringLiteral("/node_modules/oauth2-mock-server/package.json")))
        return QStringLiteral("oauth2-mock-server is not installed in tests/e2e/oauth-server"
                              " (scripts/setup installs it with npm ci)");
    return {};
}

struct Server
{
    Child child;
    int tokenPort = 0;
    int resourcePort = 0;
};

// server.js prints one JSON line with its two ports once both listen.
Server startServer(const QString &dir, int lifetimeSeconds)
{
    const QString out = dir + QStringLiteral("/server.out");
    Server s;
    s.child = startChild({QStringLiteral("node"), kServerDir + QStringLiteral("/server.js"),
                          QStringLiteral("--lifetime"), QString::number(lifetimeSeconds)},
                         out);
    for (int i = 0; i < 300 && s.resourcePort == 0; ++i) {
        QThread::msleep(50); // polling a child's output file for its ports; not a measurement
        QFile file(out);
        if (!file.open(QIODevice::ReadOnly))
            continue;
        const QJsonObject ready = QJsonDocument::fromJson(file.readLine()).object();
        s.tokenPort = ready.value(QLatin1String("token_port")).toInt();
        s.resourcePort = ready.value(QLatin1String("resource_port")).toInt();
    }
    if (s.tokenPort == 0 || s.resourcePort == 0)
        die(QStringLiteral("the OAuth server did not start"));
    return s;
}

QJsonObject stats(int resourcePort)
{
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/stats").arg(resourcePort)));
    request.setTransferTimeout(10000);
    QNetworkReply *reply = manager.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const QJsonObject out = QJsonDocument::fromJson(reply->readAll()).object();
    reply->deleteLater();
    if (out.isEmpty())
        die(QStringLiteral("the OAuth server's /stats did not answer"));
    return out;
}

void writeFile(const QString &path, const QByteArray &text)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(text) != text.size())
        die(QStringLiteral("cannot write %1").arg(path));
}

// A workspace with one OAuth credential, its client id and secret from the environment,
// and a GET endpoint of the API using it, paced by a policy of `rate` a second for the
// whole fleet.
QByteArray workspace(const Server &server, int rate)
{
    const QJsonObject credential{
        {"id", "api"},
        {"type", "oauth2_client_credentials"},
        {"token_url", QStringLiteral("http://127.0.0.1:%1/token").arg(server.tokenPort)},
        {"client_id", "${env:BENCH_CLIENT_ID}"},
        {"client_secret", "${env:BENCH_CLIENT_SECRET}"}};
    const QJsonObject endpoint{
        {"id", "read"},
        {"method", "GET"},
        {"url", QStringLiteral("http://127.0.0.1:%1/api/items/${job:n}").arg(server.resourcePort)},
        {"timeout_seconds", 10},
        {"policy", "api"},
        {"credentials", "api"}};
    const QJsonObject root{
        {"version", 1},
        {"concurrency", QJsonObject{{"max_in_flight", 8}}},
        {"policies",
         QJsonArray{QJsonObject{
             {"policy_id", "api"}, {"limit", rate}, {"window_seconds", 1}, {"burst", 1}}}},
        {"retry_profiles", QJsonObject{{"default", QJsonObject{{"max_attempts", 4},
                                                               {"base_seconds", 0.5},
                                                               {"cap_seconds", 2},
                                                               {"deadline_seconds", 600}}}}},
        {"credentials", QJsonArray{credential}},
        {"endpoints", QJsonArray{endpoint}}};
    return QJsonDocument(root).toJson();
}

QString text(sqlite3_stmt *statement, int column)
{
    return QString::fromUtf8(
        reinterpret_cast<const char *>(sqlite3_column_text(statement, column)));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const int workers = option(args, QStringLiteral("--workers"), QStringLiteral("4")).toInt();
    const int lifetime = option(args, QStringLiteral("--lifetime"),
                                g_smoke ? QStringLiteral("1") : QStringLiteral("2"))
                             .toInt();
    const int lifetimes = option(args, QStringLiteral("--lifetimes"),
                                 g_smoke ? QStringLiteral("3") : QStringLiteral("20"))
                              .toInt();
    const int rate = option(args, QStringLiteral("--rate"), QStringLiteral("20")).toInt();
    if (workers < 1 || lifetime < 1 || lifetimes < 1 || rate < 1)
        die(QStringLiteral("bad arguments"));
    const QString missing = missingTools();
    if (!missing.isEmpty()) {
        if (!g_smoke)
            die(missing);
        note(QStringLiteral("skipped: %1").arg(missing));
        return 0;
    }
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary folder"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));
    // The servers are on loopback and must be reached directly, by the workers too.
    for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy",
                             "ALL_PROXY", "no_proxy", "NO_PROXY"})
        qunsetenv(name);
    qputenv("BENCH_CLIENT_SECRET", "bench-secret");
    // The workers' run logs go to their files; their per-token info lines on stderr
    // would only bury the figures. Warnings still show.
    qputenv("QT_LOGGING_RULES", "cooldown.*.info=false");

    const Server server = startServer(dir.path(), lifetime);
    const QString config = dir.filePath(QStringLiteral("workspace.json"));
    writeFile(config, workspace(server, rate));
    const QString db = dir.filePath(QStringLiteral("cooldown.db"));

    // Jobs for `lifetimes` lifetimes at the policy's pace: the first at once (burst 1),
    // then one every 1/rate s.
    const int jobs = rate * lifetime * lifetimes + 1;
    QByteArray lines;
    for (int n = 0; n < jobs; ++n)
        lines += QJsonDocument(QJsonObject{{"endpoint", "read"},
                                           {"vars", QJsonObject{{"n", QString::number(n)}}}})
                     .toJson(QJsonDocument::Compact) +
                 '\n';
    const QString jobsFile = dir.filePath(QStringLiteral("jobs.jsonl"));
    writeFile(jobsFile, lines);
    qputenv("BENCH_CLIENT_ID", "enqueue");
    const ChildRun enqueued = runChild({QStringLiteral(COOLDOWN_BINARY), QStringLiteral("enqueue"),
                                        QStringLiteral("--config"), config, QStringLiteral("--db"),
                                        db, QStringLiteral("--jsonl"), jobsFile},
                                       dir.filePath(QStringLiteral("enqueue.out")));
    if (enqueued.exitCode != 0)
        die(QStringLiteral("cooldown enqueue exited %1").arg(enqueued.exitCode));

    note(QStringLiteral("%1 workers on one SQLite database, %2 GETs at %3/s for the fleet,"
                        " tokens living %4 s (%5 lifetimes)")
             .arg(workers)
             .arg(jobs)
             .arg(rate)
             .arg(lifetime)
             .arg(lifetimes));
    std::vector<Child> children;
    for (int i = 0; i < workers; ++i) {
        // Read by the worker as it starts: the server counts each worker's requests apart.
        qputenv("BENCH_CLIENT_ID", QStringLiteral("worker-%1").arg(i).toUtf8());
        children.push_back(startChild(
            {QStringLiteral(COOLDOWN_BINARY), QStringLiteral("run"), QStringLiteral("--config"),
             config, QStringLiteral("--db"), db, QStringLiteral("--until-idle"),
             QStringLiteral("--worker-id"), QStringLiteral("bench-%1").arg(i)},
            dir.filePath(QStringLiteral("worker-%1.log").arg(i))));
    }
    // However slow the machine, the run ends: the workers are stopped well past the
    // time the jobs need.
    const double deadlineSeconds = 3.0 * jobs / rate + 60.0;
    std::vector<std::optional<ChildRun>> exits(children.size());
    for (size_t done = 0; done < children.size();) {
        for (size_t i = 0; i < children.size(); ++i) {
            if (!exits[i] && (exits[i] = waitChild(children[i], false)))
                ++done;
            if (!exits[i] && seconds(children[i].timer) > deadlineSeconds)
                ::kill(children[i].pid, SIGTERM);
        }
        QThread::msleep(20); // waiting for the workers; not a measurement
    }
    for (size_t i = 0; i < exits.size(); ++i) {
        if (exits[i]->exitCode != 0)
            die(QStringLiteral("worker %1 exited %2").arg(i).arg(exits[i]->exitCode));
    }

    const QJsonObject s = stats(server.resourcePort);
    ::kill(server.child.pid, SIGTERM);
    waitChild(server.child);

    // Every job done once, by the workers together, none failed.
    qint64 succeeded = 0;
    qint64 notSucceeded = 0;
    QStringList perWorker;
    {
        CApiDatabase database(db);
        Statement states(database.handle(),
                         "SELECT state, COUNT(*) FROM operations GROUP BY state");
        while (states.step() == SQLITE_ROW) {
            if (text(states.handle(), 0) == QLatin1String("succeeded"))
                succeeded += states.int64(1);
            else
                notSucceeded += states.int64(1);
        }
        Statement byWorker(database.handle(),
                           "SELECT worker_id, COUNT(*), MIN(started_at), MAX(started_at)"
                           " FROM attempts GROUP BY worker_id ORDER BY worker_id");
        while (byWorker.step() == SQLITE_ROW)
            perWorker.append(
                QStringLiteral("%1: %2 attempts over %3 s")
                    .arg(text(byWorker.handle(), 0))
                    .arg(byWorker.int64(1))
                    .arg(number(double(byWorker.int64(3) - byWorker.int64(2)) / 1000.0, 1)));
    }
    note(QStringLiteral("attempts by worker: %1").arg(perWorker.join(QStringLiteral("; "))));
    if (succeeded != jobs || notSucceeded != 0)
        die(QStringLiteral("%1 of %2 jobs succeeded, %3 did not")
                .arg(succeeded)
                .arg(jobs)
                .arg(notSucceeded));
    const int resourceOk = s.value(QLatin1String("resource_ok")).toInt();
    if (resourceOk != jobs)
        die(QStringLiteral("the API answered %1 requests with 200 for %2 jobs")
                .arg(resourceOk)
                .arg(jobs));

    // The run, from the first token request to the last request to the API.
    const double spanSeconds = (s.value(QLatin1String("resource_last_ms")).toDouble() -
                                s.value(QLatin1String("token_first_ms")).toDouble()) /
                               1000.0;
    const int tokenRequests = s.value(QLatin1String("token_requests")).toInt();
    const int refusals = s.value(QLatin1String("resource_401")).toInt() +
                         s.value(QLatin1String("resource_401_missing")).toInt();
    const QJsonObject byClient = s.value(QLatin1String("token_requests_by_client")).toObject();
    QStringList clients;
    int most = 0;
    for (auto it = byClient.begin(); it != byClient.end(); ++it) {
        clients.append(QStringLiteral("%1 %2").arg(it.key()).arg(it.value().toInt()));
        most = std::max(most, it.value().toInt());
    }
    if (byClient.size() != workers)
        die(QStringLiteral("%1 of %2 workers asked for a token: %3")
                .arg(byClient.size())
                .arg(workers)
                .arg(clients.join(QStringLiteral(", "))));
    const double lifetimesRun = spanSeconds / lifetime;
    const double periods = spanSeconds / (kRenewAtShare * lifetime);
    const double perLifetime = double(tokenRequests) / workers / lifetimesRun;
    const double perPeriod = double(tokenRequests) / workers / periods;
    note(QStringLiteral("%1 token requests in %2 s (%3 lifetimes, %4 renewal periods); by worker:"
                        " %5; the API: %6 answered 200, %7 answered 401 (%8 expired)")
             .arg(tokenRequests)
             .arg(number(spanSeconds, 1), number(lifetimesRun, 1), number(periods, 1),
                  clients.join(QStringLiteral(", ")))
             .arg(resourceOk)
             .arg(refusals)
             .arg(s.value(QLatin1String("resource_401_expired")).toInt()));
    const QString name =
        QStringLiteral("token renewals, %1 workers on one SQLite, %2 lifetimes of %3 s")
            .arg(workers)
            .arg(lifetimes)
            .arg(lifetime);
    report(
        name + QStringLiteral(": token requests per lifetime per worker"),
        QStringLiteral("%1 lifetimes in %2 s").arg(number(lifetimesRun, 1), number(spanSeconds, 1)),
        QStringLiteral("%1 (%2 requests, at most %3 by one worker)")
            .arg(number(perLifetime, 3))
            .arg(tokenRequests)
            .arg(most),
        QStringLiteral("-"), QStringLiteral("<= 1.05"), perLifetime <= 1.05);
    report(name + QStringLiteral(": token requests per renewal period per worker"),
           QStringLiteral("%1 periods of 0.8 x %2 s").arg(number(periods, 1)).arg(lifetime),
           QStringLiteral("%1 (at most %2 by one worker)")
               .arg(number(perPeriod, 3), number(double(most) / periods, 3)),
           QStringLiteral("-"), QStringLiteral("<= 1.05"), perPeriod <= 1.05);
    report(name + QStringLiteral(": 401s from the API"), QStringLiteral("none when renewing ahead"),
           QString::number(refusals), QStringLiteral("-"), QStringLiteral("0"), refusals == 0);
    // A token sent after its expiry is a bug at any size.
    if (g_smoke && refusals > 0)
        die(QStringLiteral("the API refused %1 requests").arg(refusals));
    return g_failures > 0 ? 1 : 0;
}
