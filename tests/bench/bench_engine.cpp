// SPDX-License-Identifier: Apache-2.0
// The engine's benchmarks against a local HTTP server that answers 200 (nginx, from
// scripts/bench; an in-process server in smoke mode), each beside its reference:
//   throughput  Scheduler + Transport + Store recording every attempt, against a bare
//               QNetworkAccessManager loop with the same concurrency (6 per host);
//               once without a policy, once through a fleet-wide bucket in the store;
//               and, for information, against the bare loop writing each answer as one
//               SQLite row in a transaction of its own
//   lateness    10,000 operations waiting until times spread over a few seconds: how
//               long after its not_before each attempt starts, on the real clock
//   fairness    operations of a quiet partition due over 20 s while another partition
//               has 100,000 waiting for tokens: due -> sent, against the same without
//               the backlog
//   periodic    1,000 and 5,000 periodic endpoints, 100 runs a second in all: CPU time
//               per request against the one-shot path, and tick lateness; for
//               information, against one-shot work due at the same pace
//   startup     a workspace of 5,000 one-shot endpoints: Scheduler::start() on a new
//               database (endpoints, partitions and operations written), against the
//               sqlite3 C API inserting the same rows in one transaction; and the
//               write-ahead log beside the database afterwards
//   memory      resident memory while the engine runs 1,000,000 attempts in batches of 20,000
//               (stopped after --memory-seconds, 900 by default): growth per attempt after a
//               warm-up
//   credentials the throughput path with an OAuth 2.0 client-credentials token (one token
//               from an in-process token endpoint, valid throughout), against the same
//               path with a static bearer credential, runs alternating (--rounds of
//               each, 5 by default; medians); for information, against the token
//               written in the endpoint's headers, and CPU per request
//
//   checks      the throughput path against /ok.json with an endpoint's expect (status,
//               a header, three JSON pointers, a body pattern and a size bound; every
//               answer passes), against the same endpoint without one, runs alternating
//               (--rounds of each; medians)
//
//   bench_engine [--smoke] [--url URL] [--commit-delay-ms MS] [--claim-ahead-ms MS]
//                [--send-gather-ms MS]
//                [--only throughput|lateness|fairness|periodic|startup|memory|credentials|
//                        checks]
//                [--count N] [--lateness-count N] [--spread-ms MS] [--memory-seconds S]
//                [--max-seconds S] [--rounds N] [--analyze]

#include "bench/BareLoop.h"
#include "bench/BenchHttpServer.h"
#include "bench/BenchSupport.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ScriptedHttpServer.h"

#include <sqlite3.h>

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cmath>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

constexpr int kConcurrency = 6;

// The concurrency block of every benchmark's config: the same as the bare loop's.
QString concurrencyJson()
{
    return QStringLiteral(R"("concurrency": {"max_in_flight": %1, "per_host": %1})")
        .arg(kConcurrency);
}

// A config naming one endpoint "bench" at url, optionally in a partition of policy.
QByteArray singleEndpointConfig(const QUrl &url, const QString &policyJson = {})
{
    const QString policies =
        policyJson.isEmpty() ? QString() : QStringLiteral(R"("policies": [%1],)").arg(policyJson);
    const QString partition =
        policyJson.isEmpty() ? QString()
                             : QStringLiteral(R"(, "policy": "shared", "partition_key": "bench")");
    return QStringLiteral(R"({"version": 1, %1, %2 "endpoints": [{"id": "bench", "url": "%3",)"
                          R"( "timeout_seconds": 30%4}]})")
        .arg(concurrencyJson(), policies, url.toString(), partition)
        .toUtf8();
}

// How long records of attempts may wait for a group commit while nothing else is due
// (SchedulerOptions::commitDelayMs): `cooldown run`'s unless --commit-delay-ms says.
qint64 g_commitDelayMs = SchedulerOptions::kBatchedCommitMs;
// How far ahead claims and ticks look (SchedulerOptions::claimAheadMs): `cooldown
// run`'s unless --claim-ahead-ms says.
qint64 g_claimAheadMs = SchedulerOptions::kClaimAheadMs;
// How long held work waits for other held work due just after it
// (SchedulerOptions::sendGatherMs): `cooldown run`'s unless --send-gather-ms says.
qint64 g_sendGatherMs = SchedulerOptions::kSendGatherMs;

// One engine on its own database (a SQLite path), running the given config.
class Engine
{
public:
    Engine(const QString &dbPath, const QUrl &url) : Engine(dbPath, singleEndpointConfig(url)) {}

    // environment: what the config's ${env:NAME} references read.
    Engine(const QString &dbPath, const QByteArray &json,
           const QHash<QString, QString> &environment = {})
    {
        QString error;
        auto config =
            WorkspaceConfig::parse(json, QStringLiteral("bench.json"), &error, {}, environment);
        if (!config)
            die(error);
        store = openStore(dbPath);
        transport = std::make_unique<Transport>(SystemClock::instance());
        SchedulerOptions options = SchedulerOptions::batched(); // as `cooldown run`
        options.workerId = QStringLiteral("bench-worker");
        options.commitDelayMs = g_commitDelayMs; // as `cooldown run` unless told
        options.claimAheadMs = g_claimAheadMs;
        options.sendGatherMs = g_sendGatherMs;
        scheduler = std::make_unique<Scheduler>(std::move(*config), *store, *transport,
                                                SystemClock::instance(), SystemRandom::instance(),
                                                timer, options);
        QObject::connect(scheduler.get(), &Scheduler::storeFailed, [](const QString &message) {
            die(QStringLiteral("store failed: %1").arg(message));
        });
    }

    // Starts, runs for `seconds` whether or not anything is due, and stops (exchanges
    // in flight finish and are recorded).
    void runFor(double seconds)
    {
        QEventLoop loop;
        const QMetaObject::Connection onStopped = QObject::connect(
            scheduler.get(), &Scheduler::stopped, &loop, &QEventLoop::quit, Qt::QueuedConnection);
        QTimer::singleShot(int(seconds * 1000), scheduler.get(), [this] { scheduler->stop(); });
        QString error;
        if (!scheduler->start(&error))
            die(error);
        started = true;
        loop.exec();
        QObject::disconnect(onStopped);
    }

    // Starts (or wakes), and returns once nothing is scheduled, running or waiting:
    // true. After maxSeconds the engine is stopped instead (exchanges in flight finish
    // and are recorded) and this returns false; it cannot be woken again.
    bool runUntilIdle(double maxSeconds)
    {
        QEventLoop loop;
        bool idle = false;
        const QMetaObject::Connection onIdle = QObject::connect(
            scheduler.get(), &Scheduler::idle, &loop,
            [&] {
                idle = true;
                loop.quit();
            },
            Qt::QueuedConnection);
        const QMetaObject::Connection onStopped = QObject::connect(
            scheduler.get(), &Scheduler::stopped, &loop, &QEventLoop::quit, Qt::QueuedConnection);
        QTimer deadline;
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, scheduler.get(),
                         [this] { scheduler->stop(); });
        deadline.start(int(maxSeconds * 1000));
        QString error;
        if (!started) {
            if (!scheduler->start(&error))
                die(error);
            started = true;
        } else {
            scheduler->wake();
        }
        loop.exec();
        QObject::disconnect(onIdle);
        QObject::disconnect(onStopped);
        return idle;
    }

    std::unique_ptr<Store> store;
    std::unique_ptr<Transport> transport;
    QtWakeTimer timer;
    std::unique_ptr<Scheduler> scheduler;
    bool started = false;
};

// A database with the schema and `count` operations of endpoint "bench".
QString prepareDatabase(const QTemporaryDir &dir, const QString &name)
{
    const QString path = dir.filePath(name);
    openStore(path);
    return path;
}

bool g_analyze = false;

void seedDue(const QString &path, qint64 count, const QString &policyId = {},
             const QString &partitionKey = {})
{
    CApiDatabase db(path);
    OperationSeed seed;
    seed.policyId = policyId;
    seed.partitionKey = partitionKey;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    seed.createdAtMs = now - 1000;
    seed.nextAttemptAtMs = [now](qint64) {
        return now - 1000;
    };
    seedOperations(db, count, seed);
    if (g_analyze)
        db.exec("ANALYZE");
}

// A policy so generous that it never holds anything back: every claim still takes
// its tokens from the partition's row in the store.
const QString kSharedPolicy =
    QStringLiteral(R"({"policy_id": "shared", "quota_unit": "request", "limit": 1000000,)"
                   R"( "window_seconds": 1, "burst": 1000, "policy_version": 1})");

struct EngineRun
{
    double rate = 0;
    double cpuMsPerRequest = 0;
};

// The engine, made on a database of `count` due operations, run until idle or stopped
// after maxSeconds: its rate and CPU per request. Every attempt must have succeeded.
EngineRun measureThroughput(Engine &engine, qint64 count, double maxSeconds)
{
    const double cpuBefore = processCpuSeconds();
    QElapsedTimer timer;
    timer.start();
    const bool finished = engine.runUntilIdle(maxSeconds);
    const double engineSeconds = seconds(timer);
    const double cpu = processCpuSeconds() - cpuBefore;
    const auto counts = engine.store->countsByState();
    const qint64 attempts = engine.store->countAttempts({});
    if (counts.value(OperationState::Succeeded) != attempts || (finished && attempts != count))
        die(QStringLiteral("the engine ended with %1 succeeded and %2 attempts of %3")
                .arg(counts.value(OperationState::Succeeded))
                .arg(attempts)
                .arg(count));
    if (!finished)
        note(QStringLiteral("the engine was stopped after %1 s with %2 of %3 operations done")
                 .arg(number(engineSeconds, 1))
                 .arg(attempts)
                 .arg(count));
    return {double(attempts) / engineSeconds, cpu * 1000.0 / double(std::max<qint64>(attempts, 1))};
}

// The engine through `count` due operations of one endpoint (in the shared
// partition when policyJson is given), until idle or stopped after maxSeconds.
EngineRun engineThroughput(const QTemporaryDir &dir, const QString &name, const QUrl &url,
                           qint64 count, double maxSeconds, const QString &policyJson = {})
{
    const QString path = prepareDatabase(dir, name);
    // The run-once endpoint adds the last one itself.
    if (policyJson.isEmpty())
        seedDue(path, count - 1);
    else
        seedDue(path, count - 1, QStringLiteral("shared"), QStringLiteral("bench"));
    Engine engine(path, singleEndpointConfig(url, policyJson));
    return measureThroughput(engine, count, maxSeconds);
}

// The bare loop again, but writing each answer as one row in a transaction of its own
// (SQLite with the store's settings) before it sends the request that replaces it: a
// client that keeps a durable record of every answer and does nothing else.
double recordingLoopSeconds(const QTemporaryDir &dir, const QUrl &url, qint64 count)
{
    const QString path = prepareDatabase(dir, QStringLiteral("recording-loop.db"));
    CApiDatabase db(path);
    db.useStoreSettings();
    db.exec("CREATE TABLE answers (id INTEGER PRIMARY KEY, url TEXT NOT NULL,"
            " status INTEGER NOT NULL, finished_at INTEGER NOT NULL, size INTEGER NOT NULL)");
    Statement insert(db.handle(), "INSERT INTO answers (url, status, finished_at, size)"
                                  " VALUES (?, ?, ?, ?)");
    const std::string urlText = url.toString().toStdString();
    const double s = bareLoopSeconds(
        url, count, kConcurrency, [&](QNetworkReply *reply, const QByteArray &body) {
            insert.bindStatic(1, urlText);
            insert.bind(2,
                        qint64(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt()));
            insert.bind(3, QDateTime::currentMSecsSinceEpoch());
            insert.bind(4, qint64(body.size()));
            insert.step();
            insert.reset();
        });
    Statement rows(db.handle(), "SELECT COUNT(*) FROM answers");
    if (rows.step() != SQLITE_ROW || rows.int64(0) != count)
        die(QStringLiteral("the recording loop wrote %1 rows for %2 answers")
                .arg(rows.int64(0))
                .arg(count));
    return s;
}

void benchThroughput(const QTemporaryDir &dir, const QUrl &url, qint64 count, double maxSeconds)
{
    bareLoopSeconds(url, std::min<qint64>(count, 1000),
                    kConcurrency); // warm-up: connections, caches
    const double bare = bareLoopSeconds(url, count, kConcurrency);
    const double bareRate = double(count) / bare;
    // For information: what writing down each answer durably, and nothing else, costs
    // the bare loop; measured right after it, as this machine's pace drifts.
    const double recordingRate = double(count) / recordingLoopSeconds(dir, url, count);

    const EngineRun plain =
        engineThroughput(dir, QStringLiteral("throughput.db"), url, count, maxSeconds);
    report(QStringLiteral("engine throughput, recording on (%1 due, 6 per host)").arg(count),
           QStringLiteral("bare QNAM loop: %1").arg(perSecond(bareRate)), perSecond(plain.rate),
           ratioText(plain.rate / bareRate), QStringLiteral(">= 0.80x"),
           plain.rate / bareRate >= 0.8);
    // The same through a fleet-wide bucket: each claim takes its tokens from the
    // partition's row in the same transaction.
    const EngineRun shared = engineThroughput(dir, QStringLiteral("throughput-shared.db"), url,
                                              count, maxSeconds, kSharedPolicy);
    report(QStringLiteral("engine throughput, shared bucket (%1 due in one partition)").arg(count),
           QStringLiteral("bare QNAM loop: %1").arg(perSecond(bareRate)), perSecond(shared.rate),
           ratioText(shared.rate / bareRate), QStringLiteral(">= 0.80x"),
           shared.rate / bareRate >= 0.8);
    note(QStringLiteral("CPU per request: %1 ms without a policy, %2 ms with the shared bucket")
             .arg(number(plain.cpuMsPerRequest, 3), number(shared.cpuMsPerRequest, 3)));
    report(QStringLiteral("bare loop writing each answer (one row, one transaction)"),
           QStringLiteral("bare QNAM loop: %1").arg(perSecond(bareRate)), perSecond(recordingRate),
           ratioText(recordingRate / bareRate), QStringLiteral("(info)"), true);
    report(QStringLiteral("engine throughput, recording on, against the loop writing each answer"),
           QStringLiteral("the loop writing each answer: %1").arg(perSecond(recordingRate)),
           perSecond(plain.rate), ratioText(plain.rate / recordingRate), QStringLiteral("(info)"),
           true);
}

// How the credentials benchmark's endpoint authenticates: through credential "api"
// (credentialJson), or with the token written in its own headers when there is none.
struct AuthCase
{
    QString key; // in file names
    QString name;
    QString credentialJson;
    bool oauth = false;
    std::vector<EngineRun> runs;
};

// Endpoint "bench" at url, run once, authenticated as `auth` says.
QByteArray authConfig(const QUrl &url, const AuthCase &auth)
{
    const QString credentials =
        auth.credentialJson.isEmpty()
            ? QString()
            : QStringLiteral(R"("credentials": [%1],)").arg(auth.credentialJson);
    const QString endpointAuth =
        auth.credentialJson.isEmpty()
            ? QStringLiteral(R"("headers": {"Authorization": "Bearer ${env:BENCH_TOKEN}"})")
            : QStringLiteral(R"("credentials": "api")");
    return QStringLiteral(R"({"version": 1, %1, %2 "endpoints": [{"id": "bench", "url": "%3",)"
                          R"( "timeout_seconds": 30, %4}]})")
        .arg(concurrencyJson(), credentials, url.toString(), endpointAuth)
        .toUtf8();
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double medianRate(const std::vector<EngineRun> &runs)
{
    std::vector<double> rates;
    for (const EngineRun &r : runs)
        rates.push_back(r.rate);
    return median(rates);
}

double medianCpu(const std::vector<EngineRun> &runs)
{
    std::vector<double> cpu;
    for (const EngineRun &r : runs)
        cpu.push_back(r.cpuMsPerRequest);
    return median(cpu);
}

// The throughput path with an OAuth 2.0 client-credentials token, against the same path
// with a static bearer credential: `rounds` runs of each, alternating (static, OAuth,
// then, for information, the token in the endpoint's headers), compared by medians.
// The token endpoint is in process and answers with a token that outlives the run, so
// each OAuth run asks for exactly one; what is measured is what holding, checking and
// adding the token costs each request.
void benchCredentials(const QTemporaryDir &dir, const QUrl &url, qint64 count, double maxSeconds,
                      int rounds)
{
    ScriptedHttpServer tokenServer;
    ScriptedResponse token;
    token.headers = {{"Content-Type", "application/json"}, {"Cache-Control", "no-store"}};
    token.body = R"({"access_token":"bench-token","token_type":"Bearer","expires_in":86400})";
    tokenServer.script("/token", {token});
    const QHash<QString, QString> environment{
        {QStringLiteral("BENCH_TOKEN"), QStringLiteral("bench-token")},
        {QStringLiteral("BENCH_CLIENT_SECRET"), QStringLiteral("bench-secret")}};

    AuthCase bearer{
        QStringLiteral("bearer"),
        QStringLiteral("static bearer credential"),
        QStringLiteral(R"({"id": "api", "type": "bearer", "token": "${env:BENCH_TOKEN}"})"),
        false,
        {}};
    AuthCase oauth{QStringLiteral("oauth"),
                   QStringLiteral("OAuth credential"),
                   QStringLiteral(R"({"id": "api", "type": "oauth2_client_credentials",)"
                                  R"( "token_url": "%1", "client_id": "bench",)"
                                  R"( "client_secret": "${env:BENCH_CLIENT_SECRET}"})")
                       .arg(tokenServer.url(QStringLiteral("/token"))),
                   true,
                   {}};
    AuthCase header{QStringLiteral("header"),
                    QStringLiteral("token in the endpoint's headers"),
                    QString(),
                    false,
                    {}};

    bareLoopSeconds(url, std::min<qint64>(count, 1000),
                    kConcurrency); // warm-up: connections, caches
    for (int round = 0; round < rounds; ++round) {
        for (AuthCase *auth : {&bearer, &oauth, &header}) {
            const QString path = prepareDatabase(
                dir, QStringLiteral("credentials-%1-%2.db").arg(auth->key).arg(round));
            seedDue(path, count - 1);
            {
                Engine engine(path, authConfig(url, *auth), environment);
                const qsizetype asked = tokenServer.received.size();
                auth->runs.push_back(measureThroughput(engine, count, maxSeconds));
                // One token for the whole run, or the run measured something else.
                const qsizetype tokenRequests = tokenServer.received.size() - asked;
                if (tokenRequests != (auth->oauth ? 1 : 0))
                    die(QStringLiteral("%1: %2 token requests in one run")
                            .arg(auth->name)
                            .arg(tokenRequests));
                if (auth->oauth) {
                    const QList<CredentialState> states = engine.scheduler->credentialStates();
                    if (states.size() != 1 || states.first().phase != CredentialState::Phase::Valid)
                        die(QStringLiteral("the OAuth credential did not hold a valid token"));
                }
            }
            for (const QString &suffix :
                 {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
                QFile::remove(path + suffix);
        }
        note(QStringLiteral("round %1: static bearer %2, OAuth %3, token in headers %4")
                 .arg(round + 1)
                 .arg(perSecond(bearer.runs.back().rate), perSecond(oauth.runs.back().rate),
                      perSecond(header.runs.back().rate)));
    }
    const double bearerRate = medianRate(bearer.runs);
    const double oauthRate = medianRate(oauth.runs);
    const double headerRate = medianRate(header.runs);
    // Each OAuth run against the static run just before it: on a machine whose pace
    // drifts, neighbours are the fairest pairs.
    std::vector<double> paired;
    for (size_t i = 0; i < oauth.runs.size(); ++i)
        paired.push_back(oauth.runs[i].rate / bearer.runs[i].rate);
    note(QStringLiteral("CPU per request (medians): static bearer %1 ms, OAuth %2 ms,"
                        " token in headers %3 ms; OAuth against the static run before it:"
                        " median %4")
             .arg(number(medianCpu(bearer.runs), 3), number(medianCpu(oauth.runs), 3),
                  number(medianCpu(header.runs), 3), ratioText(median(paired))));
    const double ratio = oauthRate / bearerRate;
    report(QStringLiteral("engine throughput, OAuth credential valid throughout (%1 due, median"
                          " of %2)")
               .arg(count)
               .arg(rounds),
           QStringLiteral("static bearer credential: %1").arg(perSecond(bearerRate)),
           perSecond(oauthRate), ratioText(ratio), QStringLiteral(">= 0.95x"), ratio >= 0.95);
    // What the token costs the engine's own work, which other load on the machine moves
    // less than it moves wall time.
    const double cpuRatio = medianCpu(oauth.runs) / medianCpu(bearer.runs);
    report(QStringLiteral("engine CPU per request, OAuth credential (median of %1)").arg(rounds),
           QStringLiteral("static bearer credential: %1 ms").arg(number(medianCpu(bearer.runs), 3)),
           QStringLiteral("%1 ms").arg(number(medianCpu(oauth.runs), 3)), ratioText(cpuRatio),
           QStringLiteral("(info)"), true);
    report(QStringLiteral("engine throughput, OAuth credential, against the token in headers"),
           QStringLiteral("Authorization in the endpoint's headers: %1").arg(perSecond(headerRate)),
           perSecond(oauthRate), ratioText(oauthRate / headerRate), QStringLiteral("(info)"), true);
}

// Endpoint "bench" at /ok.json beside url, run once, with an expect that its answer
// passes when `checked` (docs/checks.md).
QByteArray checksConfig(const QUrl &url, bool checked)
{
    QUrl json = url;
    json.setPath(QStringLiteral("/ok.json"));
    const QString expect = QStringLiteral(
        R"(, "expect": {"status": ["200-299"], "headers": {"Content-Type": {"matches": "json"}},)"
        R"( "json": [{"pointer": "/status", "equals": "ok"}, {"pointer": "/items", "min_items": 1},)"
        R"( {"pointer": "/items/0", "min": 1}], "body_regex": "items", "max_body_bytes": 65536})");
    return QStringLiteral(R"({"version": 1, %1, "endpoints": [{"id": "bench", "url": "%2",)"
                          R"( "timeout_seconds": 30%3}]})")
        .arg(concurrencyJson(), json.toString(), checked ? expect : QString())
        .toUtf8();
}

// The throughput path with response checks, against the same path without them:
// `rounds` runs of each, alternating, compared by medians. Every answer passes the
// checks, so both runs record the same successes; what is measured is what judging
// each answer costs.
void benchChecks(const QTemporaryDir &dir, const QUrl &url, qint64 count, double maxSeconds,
                 int rounds)
{
    std::vector<EngineRun> plain;
    std::vector<EngineRun> checked;
    bareLoopSeconds(url, std::min<qint64>(count, 1000), kConcurrency); // warm-up
    for (int round = 0; round < rounds; ++round) {
        for (const bool withChecks : {false, true}) {
            const QString path =
                prepareDatabase(dir, QStringLiteral("checks-%1-%2.db").arg(withChecks).arg(round));
            seedDue(path, count - 1);
            {
                Engine engine(path, checksConfig(url, withChecks));
                // Every attempt must succeed: one that failed its checks stops the run.
                (withChecks ? checked : plain)
                    .push_back(measureThroughput(engine, count, maxSeconds));
            }
            for (const QString &suffix :
                 {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
                QFile::remove(path + suffix);
        }
        note(QStringLiteral("round %1: without checks %2, with checks %3")
                 .arg(round + 1)
                 .arg(perSecond(plain.back().rate), perSecond(checked.back().rate)));
    }
    // Each run with checks against the run without them just before it: on a machine
    // whose pace drifts, neighbours are the fairest pairs.
    std::vector<double> paired;
    for (size_t i = 0; i < checked.size(); ++i)
        paired.push_back(checked[i].rate / plain[i].rate);
    note(QStringLiteral("with checks against the run without them before it: median %1")
             .arg(ratioText(median(paired))));
    const double ratio = medianRate(checked) / medianRate(plain);
    report(QStringLiteral("engine throughput with response checks (%1 due, median of %2)")
               .arg(count)
               .arg(rounds),
           QStringLiteral("without checks: %1").arg(perSecond(medianRate(plain))),
           perSecond(medianRate(checked)), ratioText(ratio), QStringLiteral(">= 0.95x"),
           ratio >= 0.95);
    const double cpuRatio = medianCpu(checked) / medianCpu(plain);
    report(QStringLiteral("engine CPU per request with response checks (median of %1)").arg(rounds),
           QStringLiteral("without checks: %1 ms").arg(number(medianCpu(plain), 3)),
           QStringLiteral("%1 ms").arg(number(medianCpu(checked), 3)), ratioText(cpuRatio),
           QStringLiteral("(info)"), true);
}

// How long after its not_before each of `count` operations (ids from firstId on)
// started; one that never started counts as late until endMs. Sorted.
struct Lateness
{
    std::vector<qint64> sortedMs;
    qint64 early = 0;
    qint64 unstarted = 0;
};

Lateness latenessOf(const QString &path, qint64 firstId, qint64 count,
                    const std::function<qint64(qint64)> &notBefore, qint64 endMs)
{
    Lateness out;
    std::vector<bool> startedOp(size_t(count), false);
    CApiDatabase db(path);
    Statement select(db.handle(), "SELECT operation_id, started_at FROM attempts"
                                  " WHERE operation_id BETWEEN ? AND ?");
    select.bind(1, firstId);
    select.bind(2, firstId + count - 1);
    while (select.step() == SQLITE_ROW) {
        const qint64 index = select.int64(0) - firstId;
        if (startedOp[size_t(index)])
            die(QStringLiteral("operation %1 started twice").arg(select.int64(0)));
        startedOp[size_t(index)] = true;
        const qint64 late = select.int64(1) - notBefore(index);
        out.early += late < 0 ? 1 : 0;
        out.sortedMs.push_back(late);
    }
    for (qint64 i = 0; i < count; ++i) {
        if (!startedOp[size_t(i)]) {
            out.sortedMs.push_back(endMs - notBefore(i));
            ++out.unstarted;
        }
    }
    std::sort(out.sortedMs.begin(), out.sortedMs.end());
    return out;
}

QString describe(const Lateness &l)
{
    return QStringLiteral("p50 %1 ms, p90 %2 ms, p99 %3 ms, max %4 ms, min %5 ms, early %6")
        .arg(quantile(l.sortedMs, 0.5))
        .arg(quantile(l.sortedMs, 0.9))
        .arg(quantile(l.sortedMs, 0.99))
        .arg(l.sortedMs.back())
        .arg(l.sortedMs.front())
        .arg(l.early);
}

void benchLateness(const QTemporaryDir &dir, const QUrl &url, qint64 count, qint64 spreadMs,
                   double graceSeconds, bool target)
{
    const QString path = prepareDatabase(dir, QStringLiteral("lateness-%1.db").arg(count));
    // Operations that a server told to come back later: waiting, due at times spread
    // evenly over spreadMs, the first a little after the engine has started.
    const qint64 leadMs = 1500;
    const qint64 base = QDateTime::currentMSecsSinceEpoch() + leadMs;
    auto notBefore = [base, count, spreadMs](qint64 i) {
        return base + i * spreadMs / count;
    };
    qint64 firstId = 0;
    {
        CApiDatabase db(path);
        OperationSeed seed;
        seed.state = QStringLiteral("waiting");
        seed.attempt = 1;
        seed.createdAtMs = base - leadMs;
        seed.nextAttemptAtMs = notBefore;
        firstId = seedOperations(db, count, seed);
    }
    Engine engine(path, url);
    const bool finished = engine.runUntilIdle(double(leadMs + spreadMs) / 1000.0 + graceSeconds);
    const qint64 endMs = QDateTime::currentMSecsSinceEpoch();
    const Lateness lateness = latenessOf(path, firstId, count, notBefore, endMs);
    const qint64 unstarted = lateness.unstarted;
    const qint64 early = lateness.early;
    if (finished != (unstarted == 0))
        die(QStringLiteral("%1 operations never started, yet the engine went idle").arg(unstarted));
    const auto percentile = [&](double p) {
        return quantile(lateness.sortedMs, p);
    };
    note(QStringLiteral("lateness over %1 operations due within %2 ms (%3/s): %4")
             .arg(count)
             .arg(spreadMs)
             .arg(number(double(count) * 1000.0 / double(spreadMs)))
             .arg(describe(lateness)));
    if (unstarted > 0)
        note(QStringLiteral("%1 operations had not started when the engine was stopped %2 s after"
                            " the last not_before; they count as late until then")
                 .arg(unstarted)
                 .arg(number(graceSeconds, 0)));
    const QString p99 = (unstarted > 0 ? QStringLiteral(">= ") : QString()) +
                        QStringLiteral("%1 ms").arg(percentile(0.99));
    report(QStringLiteral("lateness: start after not_before, p99 (%1 ops over %2 s)")
               .arg(count)
               .arg(number(double(spreadMs) / 1000.0, 1)),
           QStringLiteral("not_before (0 ms late)"), p99, QStringLiteral("-"),
           target ? QStringLiteral("< 50 ms") : QStringLiteral("(info)"),
           !target || percentile(0.99) < 50);
    report(QStringLiteral("lateness: attempts started before not_before (%1 ops)").arg(count),
           QStringLiteral("0"), QString::number(early), QStringLiteral("-"), QStringLiteral("0"),
           early == 0);
    // Load can only make attempts late; an early one is a bug at any size.
    if (g_smoke && early > 0)
        die(QStringLiteral("%1 attempts started before their not_before").arg(early));
}

// An operation in a quiet partition while another partition holds a backlog of
// `backlog` waiting for tokens (10 a second): how long after it is due it is sent.
// Reference: the same quiet operations on a database without the backlog.
void benchFairness(const QTemporaryDir &dir, const QUrl &url, qint64 backlog, qint64 quiet,
                   qint64 spreadMs, double graceSeconds)
{
    const QByteArray json =
        QStringLiteral(
            R"({"version": 1, %1, "policies": [)"
            R"({"policy_id": "bulk", "quota_unit": "request", "limit": 10, "window_seconds": 1,)"
            R"( "burst": 1, "policy_version": 1},)"
            R"({"policy_id": "quiet", "quota_unit": "request", "limit": 1000, "window_seconds": 1,)"
            R"( "burst": 10, "policy_version": 1}],)"
            R"( "endpoints": [{"id": "bulk", "url": "%2", "policy": "bulk", "partition_key": "b"},)"
            R"( {"id": "quiet", "url": "%2", "policy": "quiet", "partition_key": "q"}]})")
            .arg(concurrencyJson(), url.toString())
            .toUtf8();
    const auto run = [&](const QString &name, qint64 backlogSize) {
        const QString path = prepareDatabase(dir, name);
        const qint64 leadMs = 1500;
        const qint64 base = QDateTime::currentMSecsSinceEpoch() + leadMs;
        const auto notBefore = [base, quiet, spreadMs](qint64 i) {
            return base + i * spreadMs / quiet;
        };
        qint64 firstId = 0;
        {
            CApiDatabase db(path);
            if (backlogSize > 0) {
                OperationSeed bulk;
                bulk.endpointId = QStringLiteral("bulk");
                bulk.policyId = QStringLiteral("bulk");
                bulk.partitionKey = QStringLiteral("b");
                bulk.createdAtMs = base - leadMs;
                bulk.nextAttemptAtMs = [base, leadMs](qint64) {
                    return base - leadMs;
                };
                seedOperations(db, backlogSize, bulk);
            }
            OperationSeed seed;
            seed.endpointId = QStringLiteral("quiet");
            seed.policyId = QStringLiteral("quiet");
            seed.partitionKey = QStringLiteral("q");
            seed.state = QStringLiteral("waiting");
            seed.attempt = 1;
            seed.createdAtMs = base - leadMs;
            seed.nextAttemptAtMs = notBefore;
            firstId = seedOperations(db, quiet, seed);
        }
        Engine engine(path, json);
        // With a backlog the engine never goes idle: it is stopped after the last
        // quiet operation's time and a grace.
        engine.runUntilIdle(double(leadMs + spreadMs) / 1000.0 + graceSeconds);
        const Lateness lateness =
            latenessOf(path, firstId, quiet, notBefore, QDateTime::currentMSecsSinceEpoch());
        const qint64 bulkSent = engine.store->countAttempts({}) - quiet + lateness.unstarted;
        note(QStringLiteral("quiet partition, %1 operations over %2 s beside %3 waiting in another"
                            " (%4 of them sent meanwhile): %5")
                 .arg(quiet)
                 .arg(number(double(spreadMs) / 1000.0, 1))
                 .arg(backlogSize)
                 .arg(bulkSent)
                 .arg(describe(lateness)));
        if (g_smoke && lateness.early > 0)
            die(QStringLiteral("%1 quiet operations started early").arg(lateness.early));
        return lateness;
    };
    const Lateness alone = run(QStringLiteral("fairness-alone.db"), 0);
    const Lateness beside = run(QStringLiteral("fairness-backlog.db"), backlog);
    const qint64 p99 = quantile(beside.sortedMs, 0.99);
    report(QStringLiteral("fairness: quiet partition due -> sent p99, %1 waiting in another")
               .arg(backlog),
           QStringLiteral("no backlog: p99 %1 ms").arg(quantile(alone.sortedMs, 0.99)),
           QStringLiteral("%1%2 ms")
               .arg(beside.unstarted > 0 ? QStringLiteral(">= ") : QString())
               .arg(p99),
           QStringLiteral("-"), QStringLiteral("<= 50 ms"), p99 <= 50 && beside.early == 0);
}

// A run of warmSeconds + measureSeconds, measured over the last measureSeconds: CPU
// time per request (this process: engine, store and network), context switches of
// the process's threads per request, and the requests made.
struct MeasuredRun
{
    double cpuMsPerRequest = 0;
    double switchesPerRequest = 0;
    qint64 requests = 0;
    qint64 startMs = 0; // the measured window, on the real clock
    qint64 endMs = 0;
};

MeasuredRun runMeasured(Engine &engine, double warmSeconds, double measureSeconds)
{
    MeasuredRun out;
    double cpuAtStart = 0;
    long switchesAtStart = 0;
    qint64 attemptsAtStart = 0;
    QTimer::singleShot(int(warmSeconds * 1000), [&] {
        cpuAtStart = processCpuSeconds();
        switchesAtStart = processContextSwitches();
        attemptsAtStart = engine.store->countAttempts({});
        out.startMs = QDateTime::currentMSecsSinceEpoch();
    });
    engine.runFor(warmSeconds + measureSeconds);
    const double cpu = processCpuSeconds() - cpuAtStart;
    const long switches = processContextSwitches() - switchesAtStart;
    out.endMs = QDateTime::currentMSecsSinceEpoch();
    out.requests = engine.store->countAttempts({}) - attemptsAtStart;
    out.cpuMsPerRequest = cpu * 1000.0 / double(std::max<qint64>(out.requests, 1));
    out.switchesPerRequest = double(switches) / double(std::max<qint64>(out.requests, 1));
    return out;
}

// Periodic monitoring: `endpoints` periodic endpoints whose ticks are spread evenly
// over their period, `rate` ticks a second in all, run for `measureSeconds` after a
// warm-up; and how long after its tick each run started.
struct PeriodicRun : MeasuredRun
{
    std::vector<qint64> latenessMs; // sorted
};

PeriodicRun periodicRun(const QTemporaryDir &dir, const QUrl &url, int endpoints, int rate,
                        double warmSeconds, double measureSeconds)
{
    const qint64 everyMs = qint64(endpoints) * 1000 / rate;
    QStringList list;
    for (int i = 0; i < endpoints; ++i) {
        QUrl u = url;
        u.setQuery(QStringLiteral("monitor=%1").arg(i));
        list.append(QStringLiteral(R"({"id": "m%1", "url": "%2", "every_seconds": %3})")
                        .arg(i)
                        .arg(u.toString())
                        .arg(everyMs / 1000));
    }
    const QByteArray json = QStringLiteral(R"({"version": 1, %1, "endpoints": [%2]})")
                                .arg(concurrencyJson(), list.join(QLatin1Char(',')))
                                .toUtf8();
    const QString path = prepareDatabase(dir, QStringLiteral("periodic-%1.db").arg(endpoints));
    // A fleet that has run for a while: the endpoints' ticks are spread over the period
    // (a database new to them would tick all of them at once, at the start).
    const qint64 base = QDateTime::currentMSecsSinceEpoch() + 1000;
    {
        CApiDatabase db(path);
        db.exec("BEGIN IMMEDIATE");
        Statement insert(db.handle(), "INSERT INTO periodic_ticks (endpoint_id, every_ms,"
                                      " next_tick_at) VALUES (?, ?, ?)");
        for (int i = 0; i < endpoints; ++i) {
            insert.bind(1, QStringLiteral("m%1").arg(i).toStdString());
            insert.bind(2, everyMs);
            insert.bind(3, base + qint64(i) * everyMs / endpoints);
            insert.step();
            insert.reset();
        }
        db.exec("COMMIT");
    }
    Engine engine(path, json);
    PeriodicRun out;
    static_cast<MeasuredRun &>(out) = runMeasured(engine, warmSeconds, measureSeconds);
    // Each run's start against its tick: the ticks lie on each endpoint's grid, of
    // which periodic_ticks holds the next point.
    CApiDatabase db(path);
    Statement select(db.handle(),
                     "SELECT a.started_at, t.next_tick_at FROM attempts a"
                     " JOIN operations o ON o.id = a.operation_id"
                     " JOIN periodic_ticks t ON t.endpoint_id = o.endpoint_id"
                     " WHERE a.attempt = 1 AND a.started_at >= ? AND a.started_at < ?");
    select.bind(1, out.startMs);
    select.bind(2, out.endMs);
    while (select.step() == SQLITE_ROW) {
        const qint64 offset = (select.int64(0) - select.int64(1)) % everyMs;
        out.latenessMs.push_back(offset < 0 ? offset + everyMs : offset);
    }
    std::sort(out.latenessMs.begin(), out.latenessMs.end());
    note(QStringLiteral("%1 periodic endpoints every %2 s: %3 requests in %4 s, %5 ms CPU and"
                        " %9 context switches each; tick lateness p50 %6 ms, p99 %7 ms, max %8 ms")
             .arg(endpoints)
             .arg(everyMs / 1000)
             .arg(out.requests)
             .arg(number(measureSeconds, 0), number(out.cpuMsPerRequest, 3))
             .arg(quantile(out.latenessMs, 0.5))
             .arg(quantile(out.latenessMs, 0.99))
             .arg(out.latenessMs.empty() ? 0 : out.latenessMs.back())
             .arg(number(out.switchesPerRequest, 1)));
    return out;
}

// One-shot work at the periodic runs' pace: operations of one endpoint due one after
// another, `rate` a second, in its host's learned partition as the ticks' operations
// are. Beside it, a periodic run shows what its ticks add to sending paced work.
MeasuredRun pacedOneShotRun(const QTemporaryDir &dir, const QUrl &url, int rate, double warmSeconds,
                            double measureSeconds)
{
    const QString path = prepareDatabase(dir, QStringLiteral("paced-one-shot.db"));
    const qint64 base = QDateTime::currentMSecsSinceEpoch() + 1000;
    {
        CApiDatabase db(path);
        OperationSeed seed;
        seed.policyId = learnedPolicyId(url.host());
        seed.host = url.host();
        seed.createdAtMs = base - 1000;
        seed.nextAttemptAtMs = [base, rate](qint64 i) {
            return base + i * 1000 / rate;
        };
        // Work due until a second after the run ends.
        seedOperations(db, qint64((warmSeconds + measureSeconds + 1) * rate), seed);
    }
    Engine engine(path, singleEndpointConfig(url));
    const MeasuredRun out = runMeasured(engine, warmSeconds, measureSeconds);
    note(QStringLiteral("one-shot work due %1 a second: %2 requests in %3 s, %4 ms CPU and %5"
                        " context switches each")
             .arg(rate)
             .arg(out.requests)
             .arg(number(measureSeconds, 0), number(out.cpuMsPerRequest, 3),
                  number(out.switchesPerRequest, 1)));
    return out;
}

void benchPeriodic(const QTemporaryDir &dir, const QUrl &url, int rate, double warmSeconds,
                   double measureSeconds, qint64 oneShotCount, double maxSeconds)
{
    // The one-shot path's CPU per request in this run: the reference. It moves by a
    // fifth from one run to the next (how many answers each wake happens to find),
    // more than the periodic runs do, so it is the median of three.
    std::vector<double> oneShotMs;
    for (int i = 0; i < 3; ++i)
        oneShotMs.push_back(engineThroughput(dir, QStringLiteral("periodic-reference-%1.db").arg(i),
                                             url, oneShotCount, maxSeconds)
                                .cpuMsPerRequest);
    std::sort(oneShotMs.begin(), oneShotMs.end());
    const double oneShotMsPerRequest = quantile(oneShotMs, 0.5);
    note(QStringLiteral("one-shot path, three runs: %1, %2, %3 ms CPU per request")
             .arg(number(oneShotMs[0], 3), number(oneShotMs[1], 3), number(oneShotMs[2], 3)));
    const int small = g_smoke ? 20 : 1000;
    const int large = g_smoke ? 100 : 5000;
    const PeriodicRun a = periodicRun(dir, url, small, rate, warmSeconds, measureSeconds);
    const PeriodicRun b = periodicRun(dir, url, large, rate, warmSeconds, measureSeconds);
    const QString reference =
        QStringLiteral("one-shot path: %1 ms (median of 3)").arg(number(oneShotMsPerRequest, 3));
    for (const auto &[n, run] : {std::pair<int, const PeriodicRun &>(small, a), {large, b}}) {
        const double ratio = run.cpuMsPerRequest / oneShotMsPerRequest;
        report(
            QStringLiteral("periodic: CPU per request, %1 endpoints, %2 runs/s").arg(n).arg(rate),
            reference, QStringLiteral("%1 ms").arg(number(run.cpuMsPerRequest, 3)),
            ratioText(ratio), QStringLiteral("<= 1.50x"), ratio <= 1.5);
        const qint64 p99 = quantile(run.latenessMs, 0.99);
        report(QStringLiteral("periodic: tick lateness p99, %1 endpoints").arg(n),
               QStringLiteral("the tick (0 ms late)"), QStringLiteral("%1 ms").arg(p99),
               QStringLiteral("-"), QStringLiteral("<= 50 ms"), p99 <= 50 && run.requests > 0);
    }
    // For information: the same pace of one-shot work, against which the periodic runs
    // show the cost of their ticks alone (the target's reference runs at full speed).
    const MeasuredRun paced = pacedOneShotRun(dir, url, rate, warmSeconds, measureSeconds);
    for (const auto &[n, run] : {std::pair<int, const PeriodicRun &>(small, a), {large, b}}) {
        report(QStringLiteral("periodic: CPU per request, %1 endpoints, against one-shot work at"
                              " the same pace")
                   .arg(n),
               QStringLiteral("one-shot work, %1/s: %2 ms")
                   .arg(rate)
                   .arg(number(paced.cpuMsPerRequest, 3)),
               QStringLiteral("%1 ms").arg(number(run.cpuMsPerRequest, 3)),
               ratioText(run.cpuMsPerRequest / paced.cpuMsPerRequest), QStringLiteral("(info)"),
               paced.requests > 0);
    }
    // What pacing costs Qt alone: the bare loop, with no engine and no store, at full
    // speed and then at the periodic runs' pace. At this pace each request wakes both
    // of Qt's threads on its own, and that alone can cost more than 1.5 times the
    // engine's whole one-shot path; so the periodic runs are also held to 1.5 times
    // the bare loop at their own pace, a reference with no engine in it at all.
    std::vector<double> bareMs;
    for (int i = 0; i < 3; ++i) {
        const double cpuBefore = processCpuSeconds();
        bareLoopSeconds(url, oneShotCount, kConcurrency);
        bareMs.push_back((processCpuSeconds() - cpuBefore) * 1000.0 / double(oneShotCount));
    }
    std::sort(bareMs.begin(), bareMs.end());
    const double bareFullMs = quantile(bareMs, 0.5);
    const auto pacedCount = qint64(measureSeconds * rate);
    pacedBareLoop(url, qint64(warmSeconds * rate), rate);
    const double pacedCpuBefore = processCpuSeconds();
    pacedBareLoop(url, pacedCount, rate);
    const double barePacedMs = (processCpuSeconds() - pacedCpuBefore) * 1000.0 / double(pacedCount);
    const QString bareAtPace =
        QStringLiteral("bare QNAM loop, %1/s: %2 ms").arg(rate).arg(number(barePacedMs, 3));
    report(QStringLiteral("periodic: bare QNAM loop at %1/s against the engine's one-shot path")
               .arg(rate),
           reference, QStringLiteral("%1 ms").arg(number(barePacedMs, 3)),
           ratioText(barePacedMs / oneShotMsPerRequest), QStringLiteral("(info)"), true);
    report(
        QStringLiteral("periodic: bare QNAM loop at %1/s against itself at full speed").arg(rate),
        QStringLiteral("bare QNAM loop, full speed: %1 ms (median of 3)")
            .arg(number(bareFullMs, 3)),
        QStringLiteral("%1 ms").arg(number(barePacedMs, 3)), ratioText(barePacedMs / bareFullMs),
        QStringLiteral("(info)"), true);
    report(QStringLiteral("engine's one-shot path against the bare QNAM loop, both at full speed"),
           QStringLiteral("bare QNAM loop, full speed: %1 ms").arg(number(bareFullMs, 3)),
           QStringLiteral("%1 ms").arg(number(oneShotMsPerRequest, 3)),
           ratioText(oneShotMsPerRequest / bareFullMs), QStringLiteral("(info)"), true);
    for (const auto &[n, run] : {std::pair<int, const PeriodicRun &>(small, a), {large, b}}) {
        const double ratio = run.cpuMsPerRequest / barePacedMs;
        report(QStringLiteral("periodic: CPU per request, %1 endpoints, against the bare QNAM loop"
                              " at the same pace")
                   .arg(n),
               bareAtPace, QStringLiteral("%1 ms").arg(number(run.cpuMsPerRequest, 3)),
               ratioText(ratio), QStringLiteral("<= 1.50x"), ratio <= 1.5);
    }
    const double growth = b.cpuMsPerRequest / a.cpuMsPerRequest;
    report(
        QStringLiteral("periodic: CPU per request, %1 against %2 endpoints").arg(large).arg(small),
        QStringLiteral("%1 endpoints: %2 ms").arg(small).arg(number(a.cpuMsPerRequest, 3)),
        QStringLiteral("%1 ms").arg(number(b.cpuMsPerRequest, 3)), ratioText(growth),
        QStringLiteral("<= 1.20x"), growth <= 1.2);
}

void benchMemory(const QTemporaryDir &dir, const QUrl &url, qint64 batch, qint64 maxAttempts,
                 double budgetSeconds)
{
    const QString path = prepareDatabase(dir, QStringLiteral("memory.db"));
    seedDue(path, batch - 1);
    Engine engine(path, url);
    CApiDatabase seeder(path);

    struct Sample
    {
        qint64 attempts;
        qint64 rss;
    };
    std::vector<Sample> samples;
    qint64 attempts = 0;
    QElapsedTimer timer;
    timer.start();
    while (true) {
        if (!engine.runUntilIdle(budgetSeconds + 60))
            die(QStringLiteral("a batch of %1 did not finish in %2 s")
                    .arg(batch)
                    .arg(budgetSeconds + 60));
        attempts += batch;
        samples.push_back({attempts, procStatusBytes("VmRSS")});
        if (attempts + batch > maxAttempts || seconds(timer) > budgetSeconds)
            break;
        OperationSeed seed;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        seed.createdAtMs = now;
        seed.nextAttemptAtMs = [now](qint64) {
            return now;
        };
        seedOperations(seeder, batch, seed);
    }
    const double elapsed = seconds(timer);
    if (engine.store->countAttempts({}) != attempts)
        die(QStringLiteral("%1 attempts recorded, expected %2")
                .arg(engine.store->countAttempts({}))
                .arg(attempts));
    // The first batches warm up connections, caches and allocator pools. After them,
    // the least-squares slope of RSS over attempts: RSS moves in 4 KB pages, so the
    // difference of two samples alone would mistake a page or two for growth.
    const size_t warm = std::min<size_t>(2, samples.size() - 1);
    const Sample &from = samples[warm];
    const Sample &to = samples.back();
    double meanX = 0, meanY = 0;
    const double n = double(samples.size() - warm);
    for (size_t i = warm; i < samples.size(); ++i) {
        meanX += double(samples[i].attempts) / n;
        meanY += double(samples[i].rss) / n;
    }
    double sxy = 0, sxx = 0;
    qint64 low = from.rss, high = from.rss;
    for (size_t i = warm; i < samples.size(); ++i) {
        sxy += (double(samples[i].attempts) - meanX) * (double(samples[i].rss) - meanY);
        sxx += (double(samples[i].attempts) - meanX) * (double(samples[i].attempts) - meanX);
        low = std::min(low, samples[i].rss);
        high = std::max(high, samples[i].rss);
    }
    const double perAttempt = sxx > 0 ? sxy / sxx : 0;
    QStringList trace;
    for (const Sample &s : samples)
        trace.append(QStringLiteral("%1: %2").arg(s.attempts).arg(megabytes(s.rss)));
    note(QStringLiteral("RSS after each batch of %1: %2")
             .arg(batch)
             .arg(trace.join(QStringLiteral(", "))));
    note(QStringLiteral("%1 attempts in %2 s (%3); peak RSS %4")
             .arg(attempts)
             .arg(number(elapsed, 0), perSecond(double(attempts) / elapsed),
                  megabytes(procStatusBytes("VmHWM"))));
    report(QStringLiteral("memory over %1 attempts: RSS slope after %2")
               .arg(attempts)
               .arg(from.attempts),
           QStringLiteral("RSS at %1: %2").arg(from.attempts).arg(megabytes(from.rss)),
           QStringLiteral("%1 B/attempt (RSS %2..%3 to %4)")
               .arg(number(perAttempt, 2), megabytes(low), megabytes(high))
               .arg(to.attempts),
           QStringLiteral("-"), QStringLiteral("<= 1 B/attempt over %1").arg(maxAttempts),
           perAttempt <= 1.0 && (g_smoke || attempts >= maxAttempts));
}

} // namespace

// The rows Scheduler::start() writes for n one-shot endpoints without a policy, as the
// sqlite3 C API inserts them in one transaction with prepared statements.
double referenceStartupSeconds(const QString &path, int n, const QString &host)
{
    openStore(path); // the schema, as the engine has it
    sqlite3 *db = nullptr;
    if (sqlite3_open(QFile::encodeName(path).constData(), &db) != SQLITE_OK)
        die(QStringLiteral("sqlite3_open failed"));
    auto run = [db](const char *sql) {
        if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK)
            die(QString::fromUtf8(sqlite3_errmsg(db)));
    };
    run("PRAGMA journal_mode=WAL");
    run("PRAGMA synchronous=NORMAL");
    const char *statements[] = {
        "INSERT INTO endpoints (id, name, created_at, updated_at) VALUES (?1, '', ?2, ?2)",
        "INSERT INTO rate_partitions (policy_id, partition_key) VALUES (?3, '')"
        " ON CONFLICT DO NOTHING",
        "INSERT INTO one_shot_runs (endpoint_id, operation_id) VALUES (?1, NULL)",
        "INSERT INTO operations (endpoint_id, state, created_at, next_attempt_at,"
        " idempotency_key, policy_id, host) VALUES (?1, 'scheduled', ?2, ?2, ?1, ?3, ?4)",
        "UPDATE one_shot_runs SET operation_id = last_insert_rowid() WHERE endpoint_id = ?1",
    };
    std::vector<sqlite3_stmt *> prepared;
    for (const char *sql : statements) {
        sqlite3_stmt *statement = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK)
            die(QString::fromUtf8(sqlite3_errmsg(db)));
        prepared.push_back(statement);
    }
    const QByteArray policy = "learned:" + host.toUtf8();
    const QByteArray hostUtf8 = host.toUtf8();
    QElapsedTimer timer;
    timer.start();
    run("BEGIN IMMEDIATE");
    for (int i = 0; i < n; ++i) {
        const QByteArray id = "start-" + QByteArray::number(i);
        for (sqlite3_stmt *statement : prepared) {
            sqlite3_bind_text(statement, 1, id.constData(), int(id.size()), SQLITE_TRANSIENT);
            sqlite3_bind_int64(statement, 2, QDateTime::currentMSecsSinceEpoch());
            sqlite3_bind_text(statement, 3, policy.constData(), int(policy.size()),
                              SQLITE_TRANSIENT);
            sqlite3_bind_text(statement, 4, hostUtf8.constData(), int(hostUtf8.size()),
                              SQLITE_TRANSIENT);
            if (sqlite3_step(statement) != SQLITE_DONE)
                die(QString::fromUtf8(sqlite3_errmsg(db)));
            sqlite3_reset(statement);
        }
    }
    run("COMMIT");
    const double elapsed = seconds(timer);
    for (sqlite3_stmt *statement : prepared)
        sqlite3_finalize(statement);
    sqlite3_close(db);
    return elapsed;
}

void benchStartup(const QTemporaryDir &dir, const QUrl &url, int n)
{
    QString endpoints;
    for (int i = 0; i < n; ++i)
        endpoints += QStringLiteral(R"(%1{"id": "start-%2", "url": "%3/start/%2"})")
                         .arg(i ? QStringLiteral(",") : QString())
                         .arg(i)
                         .arg(url.toString());
    const QByteArray json = QStringLiteral(R"({"version": 1, %1, "endpoints": [%2]})")
                                .arg(concurrencyJson(), endpoints)
                                .toUtf8();
    const QString path = dir.filePath(QStringLiteral("startup.db"));
    Engine engine(path, json);
    QElapsedTimer timer;
    timer.start();
    QString error;
    if (!engine.scheduler->start(&error))
        die(error);
    const double ours = seconds(timer);
    engine.scheduler->stop();
    // The checkpoint asked for after the bulk work runs on a thread of its own.
    QElapsedTimer checkpoint;
    checkpoint.start();
    while (engine.store->backgroundCheckpoints() == 0 && checkpoint.elapsed() < 10000)
        QThread::msleep(10); // polling another thread's progress; not a measurement
    const qint64 database = QFileInfo(path).size();
    const qint64 wal = QFileInfo(path + QStringLiteral("-wal")).size();
    const double reference = referenceStartupSeconds(
        dir.filePath(QStringLiteral("startup-reference.db")), n, url.host());
    const double rate = reference / ours; // ours as a share of the C API's rate
    report(QStringLiteral("startup: %1 one-shot endpoints written, rate").arg(n),
           QStringLiteral("sqlite3 C API: %1 s").arg(number(reference, 3)),
           QStringLiteral("%1 s").arg(number(ours, 3)), ratioText(rate), QStringLiteral(">= 0.50x"),
           rate >= 0.5);
    const double walRatio = double(wal) / double(std::max<qint64>(database, 1));
    report(QStringLiteral("startup: write-ahead log after %1 endpoints").arg(n),
           QStringLiteral("database: %1").arg(megabytes(database)), megabytes(wal),
           ratioText(walRatio), QStringLiteral("<= 4.00x"), walRatio <= 4.0);
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // The engine's own per-attempt logging is not what is measured.
    QLoggingCategory::setFilterRules(QStringLiteral("cooldown.*.info=false"));
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    g_analyze = args.contains(QStringLiteral("--analyze"));
    const QString which = option(args, QStringLiteral("--only"), QString());
    g_commitDelayMs = option(args, QStringLiteral("--commit-delay-ms"),
                             QString::number(SchedulerOptions::kBatchedCommitMs))
                          .toLongLong();
    g_claimAheadMs = option(args, QStringLiteral("--claim-ahead-ms"),
                            QString::number(SchedulerOptions::kClaimAheadMs))
                         .toLongLong();
    g_sendGatherMs = option(args, QStringLiteral("--send-gather-ms"),
                            QString::number(SchedulerOptions::kSendGatherMs))
                         .toLongLong();
    const qint64 count = option(args, QStringLiteral("--count"),
                                g_smoke ? QStringLiteral("300") : QStringLiteral("20000"))
                             .toLongLong();
    const qint64 latenessCount = option(args, QStringLiteral("--lateness-count"),
                                        g_smoke ? QStringLiteral("200") : QStringLiteral("10000"))
                                     .toLongLong();
    const qint64 spreadMs = option(args, QStringLiteral("--spread-ms"),
                                   g_smoke ? QStringLiteral("500") : QStringLiteral("20000"))
                                .toLongLong();
    const double memorySeconds = option(args, QStringLiteral("--memory-seconds"),
                                        g_smoke ? QStringLiteral("1") : QStringLiteral("900"))
                                     .toDouble();
    // However slow the engine, each benchmark ends: the engine is stopped after this.
    const double capSeconds = option(args, QStringLiteral("--max-seconds"),
                                     g_smoke ? QStringLiteral("20") : QStringLiteral("60"))
                                  .toDouble();
    const int rounds = option(args, QStringLiteral("--rounds"), QStringLiteral("5")).toInt();

    std::unique_ptr<BenchHttpServer> local;
    QUrl url(option(args, QStringLiteral("--url"), QString()));
    if (url.isEmpty()) {
        local = std::make_unique<BenchHttpServer>();
        url = QUrl(local->url());
        note(QStringLiteral("no --url: an in-process server at %1 (figures not representative)")
                 .arg(url.toString()));
    }
    if (!url.isValid() || count < 2 || latenessCount < 1 || spreadMs < 1 || rounds < 1)
        die(QStringLiteral("bad arguments"));
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary folder"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));
    if (which.isEmpty() || which == QLatin1String("throughput"))
        benchThroughput(dir, url, count, capSeconds);
    if (which.isEmpty() || which == QLatin1String("credentials"))
        benchCredentials(dir, url, count, capSeconds, rounds);
    if (which.isEmpty() || which == QLatin1String("checks"))
        benchChecks(dir, url, count, capSeconds, rounds);
    if (which.isEmpty() || which == QLatin1String("lateness")) {
        benchLateness(dir, url, latenessCount, spreadMs, capSeconds, true);
        // The same at a tenth of the rate: the timer's own precision, without queueing.
        if (!g_smoke)
            benchLateness(dir, url, latenessCount / 10, spreadMs, capSeconds, false);
    }
    if (which.isEmpty() || which == QLatin1String("fairness"))
        benchFairness(dir, url, g_smoke ? 2000 : 100000, g_smoke ? 50 : 400, g_smoke ? 1000 : 20000,
                      g_smoke ? 5 : 10);
    if (which.isEmpty() || which == QLatin1String("periodic"))
        benchPeriodic(dir, url, g_smoke ? 20 : 100, g_smoke ? 1.0 : 5.0, g_smoke ? 3.0 : 30.0,
                      g_smoke ? 300 : 5000, capSeconds);
    if (which.isEmpty() || which == QLatin1String("startup"))
        benchStartup(dir, url, g_smoke ? 300 : 5000);
    if (which.isEmpty() || which == QLatin1String("memory"))
        benchMemory(dir, url, g_smoke ? 100 : 20000, 1000000, memorySeconds);
    return g_failures > 0 ? 1 : 0;
}
