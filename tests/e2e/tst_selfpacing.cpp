// SPDX-License-Identifier: Apache-2.0
// `cooldown run` against a rate limiter nobody on this project wrote: an express server
// with express-rate-limit (tests/e2e/ratelimit-server, installed by scripts/setup from
// npm), 5 requests per 10 s on a fixed window, in each of its header modes. What
// arrives is counted at the server. With no policy configured the engine learns the
// quota from the first answers; with a policy, the server's window paces it. Either
// way: (almost) no 429 after the first window, and the work done within 1.1 times the
// time the server's quota needs.

#include "core/store/Store.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cooldown;

namespace {

constexpr int kLimit = 5;
constexpr int kWindowSeconds = 10;
constexpr int kJobs = 15;
constexpr int kRunTimeoutMs = 120000;

struct ServerStats
{
    int requests = 0;
    int refused = 0;
    QStringList done;
    qint64 firstMs = 0;
    qint64 lastMs = 0;
};

} // namespace

class tst_SelfPacing : public QObject
{
    Q_OBJECT

private:
    QString m_node;
    QString m_script;
    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_server;
    int m_port = 0;

    bool startServer(const QString &headers, int limit = kLimit, int windowSeconds = kWindowSeconds)
    {
        m_server = std::make_unique<QProcess>();
        m_server->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_server->start(m_node, {m_script, QStringLiteral("--limit"), QString::number(limit),
                                 QStringLiteral("--window-seconds"), QString::number(windowSeconds),
                                 QStringLiteral("--headers"), headers});
        if (!m_server->waitForStarted(10000))
            return false;
        while (m_server->waitForReadyRead(10000)) {
            const QByteArray line = m_server->readLine().trimmed();
            if (line.startsWith("listening ")) {
                m_port = line.mid(10).toInt();
                return m_port > 0;
            }
        }
        return false;
    }

    std::optional<ServerStats> stats()
    {
        QNetworkAccessManager manager;
        QNetworkReply *reply = manager.get(
            QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1/stats").arg(m_port))));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!finished.wait(10000) || reply->error() != QNetworkReply::NoError)
            return std::nullopt;
        const QJsonObject o = QJsonDocument::fromJson(reply->readAll()).object();
        ServerStats s;
        s.requests = o.value(QLatin1String("requests")).toInt();
        s.refused = o.value(QLatin1String("refused")).toInt();
        for (const QJsonValue &id : o.value(QLatin1String("done")).toArray())
            s.done.append(id.toString());
        s.firstMs = qint64(o.value(QLatin1String("first_ms")).toDouble());
        s.lastMs = qint64(o.value(QLatin1String("last_ms")).toDouble());
        return s;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_node = QStandardPaths::findExecutable(QStringLiteral("node"));
        QVERIFY2(!m_node.isEmpty(), "node is missing: scripts/setup installs it");
        m_script = QStringLiteral(COOLDOWN_SOURCE_DIR "/tests/e2e/ratelimit-server/server.js");
        QVERIFY2(QFile::exists(QStringLiteral(COOLDOWN_SOURCE_DIR
                                              "/tests/e2e/ratelimit-server/node_modules/"
                                              "express-rate-limit/package.json")),
                 "express-rate-limit is missing: scripts/setup installs it with npm ci");
    }

    void cleanup()
    {
        if (m_server) {
            m_server->terminate();
            if (!m_server->waitForFinished(5000))
                m_server->kill();
            m_server->waitForFinished();
            m_server.reset();
        }
    }

    void learnsAndKeepsToTheServersQuota_data();
    void noSecondBurstWhenAsManyInFlightAsTheQuota();
    void learnsAndKeepsToTheServersQuota();
};

void tst_SelfPacing::learnsAndKeepsToTheServersQuota_data()
{
    QTest::addColumn<QString>("headers");
    QTest::addColumn<QString>("policy"); // the policy's limit per 10 s; empty: none
    QTest::addColumn<int>("workers");
    QTest::newRow("draft-8, no policy") << "draft-8"
                                        << "" << 1;
    QTest::newRow("draft-7, no policy") << "draft-7"
                                        << "" << 1;
    QTest::newRow("X-RateLimit only, no policy") << "legacy"
                                                 << "" << 1;
    QTest::newRow("draft-8, the server's policy") << "draft-8"
                                                  << "5" << 1;
    QTest::newRow("draft-8, a generous policy") << "draft-8"
                                                << "20" << 1;
    QTest::newRow("draft-8, no policy, two workers") << "draft-8"
                                                     << "" << 2;
    // No quota stated: the pace is measured from what the server refused.
    QTest::newRow("Retry-After only, no policy, two workers") << "retry-after"
                                                              << "" << 2;
}

void tst_SelfPacing::learnsAndKeepsToTheServersQuota()
{
    QFETCH(QString, headers);
    QFETCH(QString, policy);
    QFETCH(int, workers);
    QVERIFY2(startServer(headers), "the rate-limited server did not start");

    const QString tag =
        QString::fromLatin1(QTest::currentDataTag())
            .replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    QByteArray endpoints;
    for (int i = 0; i < kJobs; ++i)
        endpoints += (i ? ",\n" : "") +
                     QStringLiteral(R"({"id": "job-%1", "url": "http://127.0.0.1:%2/job/%1",)"
                                    R"( "timeout_seconds": 10, "retry": "default"%3})")
                         .arg(i)
                         .arg(m_port)
                         .arg(policy.isEmpty() ? QString() : QStringLiteral(R"(, "policy": "api")"))
                         .toUtf8();
    const QByteArray policies = policy.isEmpty()
                                    ? QByteArray()
                                    : R"("policies": [{"policy_id": "api", "limit": )" +
                                          policy.toUtf8() + R"(, "window_seconds": 10}],)";
    const QByteArray config = R"({"version": 1, "concurrency": {"max_in_flight": 4}, )" + policies +
                              R"(
        "retry_profiles": {"default": {"max_attempts": 10, "base_seconds": 0.5,
            "cap_seconds": 4, "deadline_seconds": 300, "throttle_counts_as_attempt": false}},
        "endpoints": [)" + endpoints +
                              "]}";
    const QString configPath = m_dir.filePath(tag + QStringLiteral(".json"));
    const QString dbPath = m_dir.filePath(tag + QStringLiteral(".db"));
    {
        QFile file(configPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(config);
    }

    std::vector<std::unique_ptr<QProcess>> runs;
    for (int w = 0; w < workers; ++w) {
        auto run = std::make_unique<QProcess>();
        run->start(QStringLiteral(COOLDOWN_BINARY),
                   {QStringLiteral("run"), QStringLiteral("--config"), configPath,
                    QStringLiteral("--db"), dbPath, QStringLiteral("--until-idle"),
                    QStringLiteral("--worker-id"), QStringLiteral("worker-%1").arg(w + 1)});
        QVERIFY2(run->waitForStarted(10000), qPrintable(run->errorString()));
        runs.push_back(std::move(run));
    }
    for (auto &run : runs) {
        if (!run->waitForFinished(kRunTimeoutMs)) {
            for (auto &r : runs)
                r->kill();
            QFAIL("cooldown run did not go idle within 120 s");
        }
        QVERIFY2(run->exitStatus() == QProcess::NormalExit && run->exitCode() == 0,
                 run->readAllStandardError().right(2000).constData());
    }

    const auto server = stats();
    QVERIFY(server);
    // Every job done at the server, once.
    QStringList done = server->done;
    done.removeDuplicates();
    QCOMPARE(done.size(), kJobs);
    QCOMPARE(server->done.size(), kJobs);

    QString error;
    StoreOptions readOnly;
    readOnly.createIfMissing = false;
    auto store = Store::open(dbPath, &error, readOnly);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->countsByState().value(OperationState::Succeeded), qint64(kJobs));
    const QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(qint64(attempts.size()), qint64(server->requests));
    qint64 first = std::numeric_limits<qint64>::max();
    for (const AttemptRecord &a : attempts)
        first = std::min(first, a.startedAtMs);
    int refusedLater = 0;
    for (const AttemptRecord &a : attempts)
        refusedLater += a.status == 429 && a.startedAtMs >= first + kWindowSeconds * 1000;
    const QString figures = QStringLiteral("%1 requests, %2 refused (%3 after the first window), "
                                           "first to last %4 ms")
                                .arg(server->requests)
                                .arg(server->refused)
                                .arg(refusedLater)
                                .arg(server->lastMs - server->firstMs);
    qInfo().noquote() << figures;
    const bool stated = headers != QLatin1String("retry-after") && headers != QLatin1String("none");
    if (!stated) {
        // Nothing stated: the pace is measured from refusals, which takes a refusal now
        // and then; at most one a window after the first (MeasuredPace).
        QVERIFY2(refusedLater <= (kJobs + kLimit - 1) / kLimit - 1, qPrintable(figures));
    } else if (policy.isEmpty()) {
        // Learning takes the first answers; after the first window, at most 0.1 per job.
        QVERIFY2(refusedLater <= kJobs / 10, qPrintable(figures));
    } else {
        // A policy that holds the server's quota or more: the server's window paces it.
        QVERIFY2(server->refused == 0, qPrintable(figures));
    }
    // The server's quota needs (jobs / limit - 1) whole windows from the first request
    // to the last; 1.1 times that at most. X-RateLimit-* states no window and its reset
    // in whole seconds: each of the first windows ends up to a second late, until the
    // windows this fleet opened tell the length (tst_serverwindow: 300 jobs within 1.1
    // times); over the three windows here, 1.15 times. With nothing stated the pace is
    // measured and even: the last window's requests are spread over that window rather
    // than sent at its start, so one window more at most, and its hold's Retry-After
    // rounded up to whole seconds (20-32 s measured for the 20 s here, 32.0 s once on
    // a machine building and testing at once; over 300 jobs tst_measuredpace finds
    // 1.06 times). Three seconds cover the roundings and a loaded machine's timers.
    const qint64 idealMs = qint64((kJobs + kLimit - 1) / kLimit - 1) * kWindowSeconds * 1000;
    const qint64 allowedPercent = headers == QLatin1String("legacy") ? 115 : 110;
    const qint64 allowedMs =
        stated ? idealMs * allowedPercent / 100 : idealMs + kWindowSeconds * 1000 + 3000;
    QVERIFY2(server->lastMs - server->firstMs <= allowedMs, qPrintable(figures));

    // One bucket for the fleet, learned from the server, with the lines that taught it.
    const QList<PartitionState> partitions =
        store->partitions(QDateTime::currentMSecsSinceEpoch()).value();
    QCOMPARE(partitions.size(), 1);
    const PartitionState &p = partitions.first();
    QCOMPARE(p.isLearned(), policy.isEmpty());
    if (stated) {
        QCOMPARE(p.server.quota, qint64(kLimit));
        QVERIFY2(p.learnedFrom.contains(QLatin1String("RateLimit")), qPrintable(p.learnedFrom));
    } else {
        QCOMPARE(p.server.quota, qint64(0));
        QVERIFY2(p.pace.intervalUs > 0 && p.learnedFrom.startsWith(QLatin1String("429 after")),
                 qPrintable(p.learnedFrom));
        qInfo().noquote() << "measured pace" << p.pace.intervalUs << "us from" << p.learnedFrom;
    }
}

// As many in flight as the server's quota (4 per 6 s, four at a time, no policy): the
// first four answers each state the quota, and the fourth says none is left. No fifth
// request may go out on a permit one of them frees before what they stated is counted:
// not one refusal, from the first request to the last.
void tst_SelfPacing::noSecondBurstWhenAsManyInFlightAsTheQuota()
{
    constexpr int kQuota = 4;
    constexpr int kWindow = 6;
    constexpr int kBurstJobs = 12;
    QVERIFY2(startServer(QStringLiteral("draft-7"), kQuota, kWindow),
             "the rate-limited server did not start");
    QByteArray endpoints;
    for (int i = 0; i < kBurstJobs; ++i)
        endpoints += (i ? ",\n" : "") +
                     QStringLiteral(R"({"id": "job-%1", "url": "http://127.0.0.1:%2/job/%1",)"
                                    R"( "timeout_seconds": 10})")
                         .arg(i)
                         .arg(m_port)
                         .toUtf8();
    const QByteArray config = R"({"version": 1, "concurrency": {"max_in_flight": 4}, )"
                              R"("endpoints": [)" +
                              endpoints + "]}";
    const QString configPath = m_dir.filePath(QStringLiteral("burst.json"));
    const QString dbPath = m_dir.filePath(QStringLiteral("burst.db"));
    {
        QFile file(configPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(config);
    }
    QProcess run;
    run.start(QStringLiteral(COOLDOWN_BINARY),
              {QStringLiteral("run"), QStringLiteral("--config"), configPath,
               QStringLiteral("--db"), dbPath, QStringLiteral("--until-idle")});
    QVERIFY2(run.waitForStarted(10000), qPrintable(run.errorString()));
    if (!run.waitForFinished(kRunTimeoutMs)) {
        run.kill();
        QFAIL("cooldown run did not go idle in time");
    }
    QVERIFY2(run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0,
             run.readAllStandardError().right(2000).constData());
    const auto server = stats();
    QVERIFY(server);
    const QString figures = QStringLiteral("%1 requests, %2 refused, first to last %3 ms")
                                .arg(server->requests)
                                .arg(server->refused)
                                .arg(server->lastMs - server->firstMs);
    qInfo().noquote() << figures;
    QCOMPARE(server->done.size(), kBurstJobs);
    QVERIFY2(server->refused == 0, qPrintable(figures));
}

QTEST_GUILESS_MAIN(tst_SelfPacing)
#include "tst_selfpacing.moc"
