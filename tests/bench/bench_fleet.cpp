// SPDX-License-Identifier: Apache-2.0
// The fleet's benchmarks: limits shared through the database, on SQLite and on the
// PostgreSQL server named by COOLDOWN_TEST_PG_URL (scripts/bench starts one with
// scripts/pg; without it the PostgreSQL rows are skipped and say so):
//   claim    10,000 partitions and 100,000 due operations: Claims::claimDue of 8, with
//            the fleet-wide concurrency check, p99 over many claims; each claim's
//            operations are then recorded as done. Beside it, a plain indexed SELECT
//            of 8 due rows on the same database at the same moment.
//   workers  one and then four `cooldown run` workers on one PostgreSQL database
//            against a server answering 200, all operations in one shared partition:
//            aggregate throughput of four against one, and what the sessions waited
//            for (pg_stat_activity, sampled every 10 ms)
//
//   bench_fleet [--smoke] [--url URL] [--only claim|workers]
//               [--partitions N] [--due N] [--claims N] [--count N]

#include "bench/BareLoop.h"
#include "bench/BenchHttpServer.h"
#include "bench/BenchSupport.h"
#include "core/store/Store.h"
#include "store/StoreTestSupport.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTimer>

#include <map>
#include <set>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

const QString kWorker = QStringLiteral("bench-worker");

bool isPostgres(const QString &location)
{
    return location.startsWith(QLatin1String("postgresql://")) ||
           location.startsWith(QLatin1String("postgres://"));
}

// A QtSql connection of the benchmark's own to the store's database.
QSqlDatabase openSql(const QString &location, const QString &name)
{
    QSqlDatabase db = test::addRawConnection(location, name);
    if (!db.open())
        die(QStringLiteral("cannot open %1: %2").arg(name, db.lastError().text()));
    return db;
}

void execSql(const QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        die(QStringLiteral("%1: %2").arg(sql, query.lastError().text()));
}

// `partitions` rows of policy "bench" (10 a second, burst 2 each) and `due`
// operations spread over them, all due, written by one statement each.
void seedPartitioned(const QString &location, qint64 partitions, qint64 due, qint64 nowMs)
{
    const QString connection = QStringLiteral("bench-seed");
    {
        QSqlDatabase db = openSql(location, connection);
        // SQLite has no generate_series without an extension; a recursive CTE does it.
        const auto series = [&](qint64 n) {
            return isPostgres(location)
                       ? QStringLiteral("SELECT g FROM generate_series(0, %1) g").arg(n - 1)
                       : QStringLiteral("WITH RECURSIVE s(g) AS (SELECT 0 UNION ALL SELECT g + 1"
                                        " FROM s WHERE g < %1) SELECT g FROM s")
                             .arg(n - 1);
        };
        execSql(db, QStringLiteral("INSERT INTO rate_partitions (policy_id, partition_key,"
                                   " policy_version, interval_us, capacity)"
                                   " SELECT 'bench', 'k' || g, 1, 100000, 2 FROM (%1) AS p")
                        .arg(series(partitions)));
        execSql(db, QStringLiteral("INSERT INTO operations (endpoint_id, state, created_at,"
                                   " next_attempt_at, idempotency_key, policy_id, partition_key)"
                                   " SELECT 'bench', 'scheduled', %1, %1 + g, 'key-' || g, 'bench',"
                                   " 'k' || (g % %2) FROM (%3) AS o")
                        .arg(nowMs - due - 1000)
                        .arg(partitions)
                        .arg(series(due)));
        // PostgreSQL's autovacuum analyzes a table this size within a minute of the
        // insert; the benchmark does not wait for it.
        if (isPostgres(location))
            execSql(db, QStringLiteral("ANALYZE"));
    }
    QSqlDatabase::removeDatabase(connection);
}

void benchClaim(const QString &backend, const QString &location, qint64 partitions, qint64 due,
                int claims)
{
    const qint64 seededAt = QDateTime::currentMSecsSinceEpoch();
    std::unique_ptr<Store> store = openBenchStore(location, seededAt);
    seedPartitioned(location, partitions, due, seededAt);
    note(QStringLiteral("%1: %2 partitions, %3 due operations seeded in %4 s")
             .arg(backend)
             .arg(partitions)
             .arg(due)
             .arg(number(double(QDateTime::currentMSecsSinceEpoch() - seededAt) / 1000.0, 1)));

    const QString connection = QStringLiteral("bench-reference");
    std::vector<double> claimMs;
    std::vector<double> referenceMs;
    qint64 claimed = 0;
    {
        QSqlDatabase db = openSql(location, connection);
        QSqlQuery reference(db);
        // On SQLite told which index to walk, as the store's own queries are: without
        // statistics its planner would rather sort every due row.
        if (!reference.prepare(
                QStringLiteral("SELECT id, policy_id, partition_key FROM operations%1 WHERE state"
                               " IN ('scheduled', 'waiting') AND next_attempt_at <= :now"
                               " ORDER BY next_attempt_at LIMIT 8")
                    .arg(isPostgres(location) ? QString()
                                              : QStringLiteral(" INDEXED BY operations_due"))))
            die(reference.lastError().text());
        const int warmUp = std::min(20, claims / 10);
        const FleetConcurrency concurrency{64, 0};
        for (int i = 0; i < warmUp + claims; ++i) {
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            QElapsedTimer timer;
            timer.start();
            const QList<OperationRecord> batch =
                store->claims().claimDue(kWorker, now, 60000, 8, concurrency);
            const double ms = double(timer.nsecsElapsed()) / 1e6;
            if (batch.size() != 8)
                die(QStringLiteral("claim %1 took %2 operations, expected 8: %3")
                        .arg(i)
                        .arg(batch.size())
                        .arg(store->lastError()));
            // Round-robin: with thousands of partitions able to send, eight operations
            // come from eight partitions.
            std::set<QString> keys;
            for (const OperationRecord &op : batch)
                keys.insert(op.partitionKey);
            if (keys.size() != size_t(batch.size()))
                die(QStringLiteral("claim %1 took two operations of one partition").arg(i));

            timer.restart();
            reference.bindValue(QStringLiteral(":now"), now);
            if (!reference.exec())
                die(reference.lastError().text());
            int rows = 0;
            while (reference.next())
                ++rows;
            reference.finish();
            const double referenceOne = double(timer.nsecsElapsed()) / 1e6;
            if (rows != 8)
                die(QStringLiteral("the reference found %1 due rows").arg(rows));

            QList<Store::FinishRequest> finished;
            for (const OperationRecord &op : batch) {
                AttemptRecord a;
                a.operationId = op.id;
                a.endpointId = op.endpointId;
                a.attempt = 1;
                a.startedAtMs = now;
                a.finishedAtMs = now + 1;
                a.method = QStringLiteral("GET");
                a.url = QStringLiteral("http://127.0.0.1/bench");
                a.status = 200;
                a.decision = Decision::Success;
                a.reason = QStringLiteral("ok");
                a.waitSource = WaitSource::None;
                a.workerId = kWorker;
                a.policyId = op.policyId;
                finished.append({a, succeeded(op, a), op.version});
            }
            for (const Store::FinishOutcome &outcome : store->finishAttempts(finished, kWorker)) {
                if (outcome.result != Store::FinishResult::Committed)
                    die(QStringLiteral("finishAttempts failed: %1").arg(outcome.error));
            }
            if (i >= warmUp) {
                claimMs.push_back(ms);
                referenceMs.push_back(referenceOne);
                claimed += batch.size();
            }
        }
    }
    QSqlDatabase::removeDatabase(connection);
    std::sort(claimMs.begin(), claimMs.end());
    std::sort(referenceMs.begin(), referenceMs.end());
    const double p99 = quantile(claimMs, 0.99);
    const double referenceP99 = quantile(referenceMs, 0.99);
    note(QStringLiteral("%1: %2 claims of 8 (%3 operations): p50 %4 ms, p99 %5 ms, max %6 ms;"
                        " the plain SELECT: p50 %7 ms, p99 %8 ms")
             .arg(backend)
             .arg(claims)
             .arg(claimed)
             .arg(number(quantile(claimMs, 0.5), 2), number(p99, 2), number(claimMs.back(), 2),
                  number(quantile(referenceMs, 0.5), 2), number(referenceP99, 2)));
    report(QStringLiteral("claim p99, %1 partitions, %2 due (%3)")
               .arg(partitions)
               .arg(due)
               .arg(backend),
           QStringLiteral("plain indexed SELECT of 8: p99 %1 ms").arg(number(referenceP99, 2)),
           QStringLiteral("%1 ms").arg(number(p99, 2)), ratioText(p99 / referenceP99),
           QStringLiteral("<= 10 ms"), p99 <= 10.0);
}

// Lets the event loop turn for ms: an in-process server (smoke mode) answers meanwhile.
void pauseMs(int ms)
{
    QEventLoop pause;
    QTimer::singleShot(ms, &pause, &QEventLoop::quit);
    pause.exec();
}

// Waits for every child, calling every() once each 10 ms meanwhile.
std::vector<ChildRun> waitAll(const std::vector<Child> &children,
                              const std::function<void()> &every = {})
{
    std::vector<std::optional<ChildRun>> runs(children.size());
    size_t remaining = children.size();
    while (remaining > 0) {
        for (size_t i = 0; i < children.size(); ++i) {
            if (!runs[i] && (runs[i] = waitChild(children[i], false)))
                --remaining;
        }
        if (every)
            every();
        if (remaining > 0)
            pauseMs(10);
    }
    std::vector<ChildRun> out;
    for (const auto &run : runs)
        out.push_back(*run);
    return out;
}

// What the sessions of one database were doing, sampled.
struct WaitSamples
{
    qint64 samples = 0;
    qint64 activeSessions = 0;           // summed over samples
    std::map<QString, qint64> waitingOn; // "Lock/tuple", "LWLock/WALWrite", ... summed
};

struct WorkersRun
{
    double seconds = 0;
    double workerCpuSeconds = 0; // all workers' CPU time, user + system
    qint64 transactions = 0;     // committed and rolled back, in the database, while they ran
    qint64 attempts = 0;
    WaitSamples waits;
};

WorkersRun runWorkers(const QUrl &url, const QTemporaryDir &dir, int workers, qint64 count)
{
    QString why;
    const QString location =
        test::freshPostgresDatabase(QStringLiteral("cooldown_bench_workers_%1").arg(workers), &why);
    if (location.isEmpty())
        die(why);
    openStore(location);
    {
        QSqlDatabase db = openSql(location, QStringLiteral("bench-workers-seed"));
        // The endpoint's own run-once operation is the count-th.
        execSql(db, QStringLiteral("INSERT INTO operations (endpoint_id, state, created_at,"
                                   " next_attempt_at, idempotency_key, policy_id, partition_key)"
                                   " SELECT 'bench', 'scheduled', 0, g, 'key-' || g, 'shared',"
                                   " 'bench' FROM generate_series(1, %1) g")
                        .arg(count - 1));
        execSql(db, QStringLiteral("ANALYZE"));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("bench-workers-seed"));

    // The same config for one worker and for four: the fleet may have 24 requests in
    // flight to the server, and each worker keeps its own connections at 6 (QNAM's
    // limit), so one worker alone has 6 and four share 24 evenly.
    const QString config = dir.filePath(QStringLiteral("workers.json"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        file.write(
            QStringLiteral(R"({"version": 1, "concurrency": {"max_in_flight": 48, "per_host": 48},)"
                           R"( "policies": [{"policy_id": "shared", "quota_unit": "request",)"
                           R"( "limit": 1000000, "window_seconds": 1, "burst": 1000,)"
                           R"( "policy_version": 1}],)"
                           R"( "endpoints": [{"id": "bench", "url": "%1", "policy": "shared",)"
                           R"( "partition_key": "bench", "timeout_seconds": 30}]})")
                .arg(url.toString())
                .toUtf8()) < 0)
        die(QStringLiteral("cannot write %1").arg(config));
    file.close();

    WorkersRun run;
    {
        QSqlDatabase db = openSql(location, QStringLiteral("bench-workers-sampler"));
        QSqlQuery sample(db);
        if (!sample.prepare(QStringLiteral(
                "SELECT state, COALESCE(wait_event_type, ''), COALESCE(wait_event, '')"
                " FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid() AND backend_type = 'client backend'")))
            die(sample.lastError().text());
        // The database's transaction count (the sampler's own included; taken out
        // below). Statistics reach the view when a backend ends or once a second.
        const auto transactionsSoFar = [&db] {
            QSqlQuery q(db);
            if (!q.exec(QStringLiteral("SELECT pg_stat_clear_snapshot()")) ||
                !q.exec(QStringLiteral("SELECT xact_commit + xact_rollback FROM pg_stat_database"
                                       " WHERE datname = current_database()")) ||
                !q.next())
                die(q.lastError().text());
            return q.value(0).toLongLong();
        };
        const qint64 transactionsBefore = transactionsSoFar();
        QElapsedTimer timer;
        timer.start();
        std::vector<Child> children;
        for (int i = 0; i < workers; ++i)
            children.push_back(startChild(
                {QStringLiteral(COOLDOWN_BINARY), QStringLiteral("run"), QStringLiteral("--config"),
                 config, QStringLiteral("--db"), location, QStringLiteral("--until-idle"),
                 QStringLiteral("--worker-id"), QStringLiteral("bench-%1").arg(i)},
                dir.filePath(QStringLiteral("worker-%1.log").arg(i))));
        for (const ChildRun &exit : waitAll(children, [&] {
                 if (!sample.exec())
                     die(sample.lastError().text());
                 ++run.waits.samples;
                 while (sample.next()) {
                     if (sample.value(0).toString() != QLatin1String("active"))
                         continue;
                     ++run.waits.activeSessions;
                     const QString type = sample.value(1).toString();
                     if (!type.isEmpty() && type != QLatin1String("Client"))
                         ++run.waits
                               .waitingOn[type + QLatin1Char('/') + sample.value(2).toString()];
                 }
             })) {
            if (exit.exitCode != 0)
                die(QStringLiteral("a worker exited with %1").arg(exit.exitCode));
            run.workerCpuSeconds += exit.cpuSeconds;
        }
        run.seconds = seconds(timer);
        // Every worker has ended, so their statistics are in; the sampler's are sent
        // by this connection within a second: wait for them with a fresh snapshot.
        QElapsedTimer settle;
        settle.start();
        qint64 transactionsAfter = transactionsSoFar();
        while (transactionsAfter - transactionsBefore < run.waits.samples + 1 &&
               settle.elapsed() < 3000) {
            pauseMs(100);
            transactionsAfter = transactionsSoFar();
        }
        run.transactions = transactionsAfter - transactionsBefore - run.waits.samples;
        QSqlQuery check(db);
        if (!check.exec(
                QStringLiteral("SELECT COUNT(*), COUNT(DISTINCT operation_id) FROM attempts")) ||
            !check.next())
            die(check.lastError().text());
        run.attempts = check.value(0).toLongLong();
        if (run.attempts != count || check.value(1).toLongLong() != count)
            die(QStringLiteral(
                    "%1 workers recorded %2 attempts for %3 operations, expected %4 each")
                    .arg(workers)
                    .arg(run.attempts)
                    .arg(check.value(1).toLongLong())
                    .arg(count));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("bench-workers-sampler"));
    return run;
}

// The machine's own share for several processes: `processes` children of this program,
// each a bare QNAM loop (6 in flight) through count / processes requests, all at
// once. Returns the aggregate rate.
double bareProcessesRate(const QUrl &url, qint64 count, int processes)
{
    QElapsedTimer timer;
    timer.start();
    std::vector<Child> children;
    for (int i = 0; i < processes; ++i)
        children.push_back(
            startChild({QCoreApplication::applicationFilePath(), QStringLiteral("--bare-loop"),
                        url.toString(), QString::number(count / processes)}));
    for (const ChildRun &run : waitAll(children)) {
        if (run.exitCode != 0)
            die(QStringLiteral("a bare loop exited with %1").arg(run.exitCode));
    }
    return double(count / processes * processes) / seconds(timer);
}

void benchWorkers(const QUrl &url, qint64 count)
{
    QTemporaryDir dir;
    const WorkersRun one = runWorkers(url, dir, 1, count);
    const WorkersRun four = runWorkers(url, dir, 4, count);
    const auto describe = [](const WorkersRun &run) {
        QStringList waits;
        for (const auto &[what, n] : run.waits.waitingOn)
            waits.append(QStringLiteral("%1 %2").arg(what).arg(n));
        return QStringLiteral("%1 samples, %2 active sessions in all; waiting: %3")
            .arg(run.waits.samples)
            .arg(run.waits.activeSessions)
            .arg(waits.isEmpty() ? QStringLiteral("none") : waits.join(QStringLiteral(", ")));
    };
    const auto lockSamples = [](const WorkersRun &run) {
        qint64 n = 0;
        for (const auto &[what, count] : run.waits.waitingOn)
            n += what.startsWith(QLatin1String("Lock/")) ? count : 0;
        return n;
    };
    const auto cpuPerRequest = [](const WorkersRun &run) {
        return QStringLiteral("%1 ms of worker CPU and %2 database transactions per request")
            .arg(number(run.workerCpuSeconds * 1000.0 / double(run.attempts), 3),
                 number(double(run.transactions) / double(run.attempts), 2));
    };
    note(QStringLiteral("1 worker: %1 s, %2; %3")
             .arg(number(one.seconds, 1), cpuPerRequest(one), describe(one)));
    note(QStringLiteral("4 workers: %1 s, %2; %3")
             .arg(number(four.seconds, 1), cpuPerRequest(four), describe(four)));
    // Each sample stands for 10 ms of the session's time (a little more: the sampler's
    // own round trip).
    const double lockWaitMsPerThousand =
        double(lockSamples(four)) * 10.0 * 1000.0 / double(four.attempts);
    note(QStringLiteral("4 workers: heavy-weight lock waits (row and advisory locks) about %1 ms"
                        " per 1,000 requests")
             .arg(number(lockWaitMsPerThousand, 1)));
    const double oneRate = double(one.attempts) / one.seconds;
    const double fourRate = double(four.attempts) / four.seconds;
    // What four processes get from this machine at all, beside what one gets: the
    // server, the database and the workers share its cores.
    const double bareOne = bareProcessesRate(url, count, 1);
    const double bareFour = bareProcessesRate(url, count, 4);
    note(QStringLiteral("bare QNAM loops, 6 in flight each: 1 process %1, 4 processes %2 (%3)")
             .arg(perSecond(bareOne), perSecond(bareFour), ratioText(bareFour / bareOne)));
    report(QStringLiteral("4 workers on one PostgreSQL, shared bucket (%1 operations)").arg(count),
           QStringLiteral("1 worker: %1").arg(perSecond(oneRate)), perSecond(fourRate),
           ratioText(fourRate / oneRate), QStringLiteral(">= 1.00x"), fourRate >= oneRate);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    // A child of the workers benchmark's reference: --bare-loop URL COUNT.
    if (args.size() == 4 && args.at(1) == QLatin1String("--bare-loop")) {
        bareLoopSeconds(QUrl(args.at(2)), args.at(3).toLongLong(), 6);
        return 0;
    }
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const QString which = option(args, QStringLiteral("--only"), QString());
    const bool pg = !test::postgresServerUrl().isEmpty();
    const qint64 partitions = option(args, QStringLiteral("--partitions"),
                                     g_smoke ? QStringLiteral("1000") : QStringLiteral("10000"))
                                  .toLongLong();
    const qint64 due = option(args, QStringLiteral("--due"),
                              g_smoke ? QStringLiteral("3000") : QStringLiteral("100000"))
                           .toLongLong();
    const int claims = option(args, QStringLiteral("--claims"),
                              g_smoke ? QStringLiteral("50") : QStringLiteral("2000"))
                           .toInt();
    const qint64 count = option(args, QStringLiteral("--count"),
                                g_smoke ? QStringLiteral("200") : QStringLiteral("20000"))
                             .toLongLong();
    if (partitions < 8 || due < partitions || qint64(claims) * 8 > due || count < 2)
        die(QStringLiteral("bad arguments"));

    std::unique_ptr<BenchHttpServer> local;
    QUrl url(option(args, QStringLiteral("--url"), QString()));
    if (url.isEmpty()) {
        local = std::make_unique<BenchHttpServer>();
        url = QUrl(local->url());
        note(QStringLiteral("no --url: an in-process server at %1 (figures not representative)")
                 .arg(url.toString()));
    }
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary folder"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));
    if (!pg)
        note(QStringLiteral("no PostgreSQL (COOLDOWN_TEST_PG_URL): its rows are skipped"));

    if (which.isEmpty() || which == QLatin1String("claim")) {
        benchClaim(QStringLiteral("SQLite"), dir.filePath(QStringLiteral("claim.db")), partitions,
                   due, claims);
        if (pg) {
            QString why;
            const QString location =
                test::freshPostgresDatabase(QStringLiteral("cooldown_bench_claim"), &why);
            if (location.isEmpty())
                die(why);
            benchClaim(QStringLiteral("PostgreSQL"), location, partitions, due, claims);
        }
    }
    if ((which.isEmpty() || which == QLatin1String("workers")) && pg)
        benchWorkers(url, count);
    return g_failures > 0 ? 1 : 0;
}
