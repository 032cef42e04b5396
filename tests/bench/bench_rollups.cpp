// SPDX-License-Identifier: Apache-2.0
// Rollups and retention, each beside its reference in the same run (recording with the
// rollups is bench_store's: Store::finishAttempts writes them in its transaction):
//   overview   the Overview's figures at 24 h, 7 d and a 90-day window from the rollups
//              (Store::forEachRollup summed per bucket into Metrics, then the snapshot),
//              and a live update (the buckets that can still change), against the
//              sqlite3 C API aggregating the raw attempts of the same range by bucket;
//              over a history spread over 90 days, then over one busy day
//   prune      RetentionPruner removing every attempt older than 30 days: the longest
//              time one batch held the write lock, against the lock budget
//   migration  a database of the version before rollups opened by this build (the
//              migration builds them in steps), against one INSERT ... SELECT of the
//              recount on a copy
//
//   bench_rollups [--smoke] [--only overview|prune|migration] [--rows N] [--keep]

#include "bench/BenchSupport.h"
#include "core/engine/Metrics.h"
#include "core/store/RetentionPruner.h"
#include "core/store/Schema.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QTemporaryDir>

#include <algorithm>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

const QString kWorker = QStringLiteral("bench-worker");
const qint64 kMinute = 60'000;
const qint64 kDay = 24 * 60 * kMinute;
const char *const kEndpoints[] = {"measurements", "uploads", "reports", "health"};

AttemptRecord makeAttempt(qint64 i, qint64 at)
{
    AttemptRecord a;
    a.endpointId = QString::fromLatin1(kEndpoints[i % 4]);
    // A third are retries of an earlier attempt: their queue time is looked up.
    a.attempt = i % 3 == 0 ? 2 : 1;
    a.startedAtMs = at;
    a.finishedAtMs = at + 40 + i % 200;
    a.method = QStringLiteral("GET");
    a.url = QStringLiteral("https://api.example.com/v1/measurements?page=%1").arg(i % 97);
    const bool throttled = i % 7 == 3;
    a.status = i % 11 == 5 ? 0 : throttled ? 429 : i % 13 == 0 ? 503 : 200;
    a.decision = a.status == 200 ? Decision::Success : Decision::Retry;
    a.reason = a.status == 200 ? QStringLiteral("ok") : QStringLiteral("throttled");
    a.waitMs = a.status == 200 ? -1 : 1000 + i % 60000;
    a.waitSource = throttled ? WaitSource::RetryAfter : WaitSource::Backoff;
    a.idempotencyKey =
        QStringLiteral("2f6c1c1e-5d7a-4b11-9c1e-%1").arg(i, 12, 10, QLatin1Char('0'));
    a.durationMs = 40 + i % 200;
    a.workerId = kWorker;
    a.policyId = i % 4 == 0 ? QString() : QStringLiteral("project-read-v1");
    a.requestHeaders = QStringLiteral("Idempotency-Key: \"%1\"\n").arg(a.idempotencyKey);
    a.responseHeaders = QStringLiteral("Server: nginx\nContent-Type: application/json\n");
    return a;
}

// `rows` attempts spread evenly over the last `spanMs`, written through the C API into a
// database the store created, then their rollups counted the way the migration does.
QString seedHistory(const QTemporaryDir &dir, const QString &name, qint64 rows, qint64 spanMs,
                    qint64 now, const char *operationState, int schemaVersion = 0)
{
    const QString path = dir.filePath(name);
    if (schemaVersion == 0) {
        openStore(path);
    } else {
        QString error;
        if (!Store::createAtVersion(path, schemaVersion, &error))
            die(QStringLiteral("cannot make a database of schema %1: %2")
                    .arg(schemaVersion)
                    .arg(error));
    }
    CApiDatabase db(path);
    db.useStoreSettings();
    const qint64 perOperation = 4;
    const qint64 operations = (rows + perOperation - 1) / perOperation;
    db.exec("BEGIN");
    {
        Statement op(db.handle(), "INSERT INTO operations (id, endpoint_id, state, attempt,"
                                  " created_at, next_attempt_at, idempotency_key)"
                                  " VALUES (?, ?, ?, ?, ?, -1, ?)");
        for (qint64 i = 1; i <= operations; ++i) {
            op.bind(1, i);
            op.bind(2, std::string(kEndpoints[i % 4]));
            op.bind(3, std::string(operationState));
            op.bind(4, perOperation);
            op.bind(5, now - spanMs + (i - 1) * perOperation * spanMs / rows);
            op.bind(6, "key-" + std::to_string(i));
            op.step();
            op.reset();
        }
    }
    Statement insert(
        db.handle(),
        "INSERT INTO attempts (operation_id, endpoint_id, attempt, started_at, finished_at,"
        " method, url, status, error, decision, reason, wait_ms, wait_source, retry_after_raw,"
        " problem_type, problem_instance, rate_limit_remaining, idempotency_key, duration_ms,"
        " worker_id, policy_id, policy_version, forced, request_headers, response_headers,"
        " lease_conflict) VALUES (?, ?, ?, ?, ?, 'GET', ?, ?, '', ?, ?, ?, ?, '', '', '', -1,"
        " ?, ?, 'worker-a', ?, 1, 0, 'Accept: */*\n', 'Server: nginx\n', 0)");
    for (qint64 i = 0; i < rows; ++i) {
        const qint64 operation = 1 + i / perOperation;
        const AttemptRecord a = makeAttempt(i, now - spanMs + i * spanMs / rows);
        insert.bind(1, operation);
        insert.bind(2, std::string(kEndpoints[operation % 4]));
        insert.bind(3, 1 + i % perOperation);
        insert.bind(4, a.startedAtMs);
        insert.bind(5, a.finishedAtMs);
        insert.bind(6, a.url.toStdString());
        insert.bind(7, qint64(a.status));
        insert.bind(8, std::string(textOf(a.decision)));
        insert.bind(9, a.reason.toStdString());
        insert.bind(10, a.waitMs);
        insert.bind(11, std::string(textOf(a.waitSource)));
        insert.bind(12, a.idempotencyKey.toStdString());
        insert.bind(13, a.durationMs);
        insert.bind(14, a.policyId.toStdString());
        insert.step();
        insert.reset();
    }
    db.exec("COMMIT");
    if (schemaVersion != 0) {
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        return path; // a database from before the rollups: its migration builds them
    }
    const QByteArray fill =
        QStringLiteral("INSERT INTO attempt_rollups %1").arg(schema::rollupRecount()).toUtf8();
    db.exec(fill.constData());
    db.exec(schema::hourlyRollupsFill().toUtf8().constData());
    // Two workers with exchanges in flight in every minute that has attempts: the
    // in-flight chart reads a row per minute and worker.
    db.exec("INSERT INTO inflight_peaks (minute_at, worker_id, peak)"
            " SELECT DISTINCT minute_at, 'worker-a', 3 FROM attempt_rollups");
    db.exec("INSERT INTO inflight_peaks (minute_at, worker_id, peak)"
            " SELECT DISTINCT minute_at, 'worker-b', 2 FROM attempt_rollups");
    db.exec("INSERT INTO inflight_peaks_hourly (hour_at, worker_id, peak)"
            " SELECT DISTINCT hour_at, 'worker-a', 3 FROM attempt_rollups_hourly");
    db.exec("INSERT INTO inflight_peaks_hourly (hour_at, worker_id, peak)"
            " SELECT DISTINCT hour_at, 'worker-b', 2 FROM attempt_rollups_hourly");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return path;
}

// The fleet's in-flight peaks of [fromMs, toMs) per bucket, into figures, as the
// Overview reads them beside the rollups.
void addPeaks(Store &store, Metrics &figures, qint64 fromMs, qint64 toMs, qint64 bucketMs)
{
    const auto peaks = store.inFlightPeaks(fromMs, toMs, bucketMs);
    if (!peaks)
        die(store.lastError());
    for (const Store::InFlightPeak &p : *peaks)
        figures.addPeak(p.minuteAtMs, p.peak);
}

// spanDays: the history's length, the attempts spread evenly over it (90: a quiet
// quarter; 1: the busy day).
void benchOverview(const QTemporaryDir &dir, qint64 rows, int spanDays)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QElapsedTimer seeding;
    seeding.start();
    const QString path = seedHistory(dir, QStringLiteral("overview-%1.db").arg(spanDays), rows,
                                     spanDays * kDay, now, "succeeded");
    note(QStringLiteral("seeded %1 attempts over %2 day(s) and their rollups in %3 s")
             .arg(rows)
             .arg(spanDays)
             .arg(number(seconds(seeding), 1)));
    std::unique_ptr<Store> store = openStore(path);
    CApiDatabase reference(path);

    struct Range
    {
        const char *label;
        qint64 rangeMs;
        qint64 bucketMs;
    };
    // The Overview's 24 h and 7 d choices, and the buckets its custom window picks for
    // 90 days (at most 300 of them).
    const Range ranges[] = {{"24 h", kDay, 15 * kMinute},
                            {"7 d", 7 * kDay, 120 * kMinute},
                            {"90 d", 90 * kDay, 720 * kMinute}};
    const SystemClock &clock = SystemClock::instance();
    for (const Range &range : ranges) {
        const qint64 from = (now - range.rangeMs) / range.bucketMs * range.bucketMs;
        double best = 1e9;
        qint64 attempts = 0;
        for (int run = 0; run < 3; ++run) {
            QElapsedTimer timer;
            timer.start();
            Metrics figures(clock, 100 * 365 * kDay);
            if (!store->forEachRollup(from, now + kDay, range.bucketMs,
                                      [&figures](const RollupRecord &row) {
                                          figures.add(row);
                                          return true;
                                      }))
                die(store->lastError());
            addPeaks(*store, figures, from, now + kDay, range.bucketMs);
            const MetricsSnapshot snapshot =
                figures.snapshot(now - range.rangeMs, now + 1, range.bucketMs);
            best = std::min(best, seconds(timer));
            attempts = snapshot.attempts;
            if (*std::max_element(snapshot.peakInFlight.cbegin(), snapshot.peakInFlight.cend()) !=
                5)
                die(QStringLiteral("%1: the in-flight peaks are not the two workers' sum")
                        .arg(QLatin1String(range.label)));
        }
        // Reference: the raw attempts of the same range summed per bucket, status and
        // decision by SQLite itself, through the index on started_at.
        double referenceBest = 1e9;
        qint64 referenceAttempts = 0;
        for (int run = 0; run < 3; ++run) {
            QElapsedTimer timer;
            timer.start();
            Statement aggregate(reference.handle(),
                                "SELECT started_at - started_at % ?, status, decision, COUNT(*),"
                                " SUM(CASE WHEN wait_ms > 0 THEN wait_ms ELSE 0 END)"
                                " FROM attempts WHERE started_at >= ? GROUP BY 1, 2, 3");
            aggregate.bind(1, range.bucketMs);
            aggregate.bind(2, from);
            qint64 total = 0;
            while (aggregate.step() == SQLITE_ROW)
                total += aggregate.int64(3);
            referenceBest = std::min(referenceBest, seconds(timer));
            referenceAttempts = total;
        }
        if (std::abs(referenceAttempts - attempts) > rows / 1000 + 10)
            die(QStringLiteral("%1: the rollups count %2 attempts, the raw table %3")
                    .arg(QLatin1String(range.label))
                    .arg(attempts)
                    .arg(referenceAttempts));
        report(QStringLiteral("Overview figures from rollups and in-flight peaks, %1 (%2 of %3 "
                              "attempts over %4 d "
                              "in range, best of 3)")
                   .arg(QLatin1String(range.label))
                   .arg(attempts)
                   .arg(rows)
                   .arg(spanDays),
               QStringLiteral("sqlite3 C API aggregating the raw attempts: %1 ms")
                   .arg(number(referenceBest * 1000, 1)),
               QStringLiteral("%1 ms").arg(number(best * 1000, 1)), ratioText(referenceBest / best),
               QStringLiteral("< 200 ms"), best < 0.2);
    }

    // A live update: the buckets that can still change (the last two minutes' bucket
    // on), read again into figures that hold the rest.
    {
        const qint64 bucket = 15 * kMinute;
        Metrics figures(clock, 100 * 365 * kDay);
        store->forEachRollup((now - kDay) / bucket * bucket, now + kDay, bucket,
                             [&figures](const RollupRecord &row) {
                                 figures.add(row);
                                 return true;
                             });
        double worst = 0;
        for (int run = 0; run < 20; ++run) {
            QElapsedTimer timer;
            timer.start();
            const qint64 settled = (now - 2 * kMinute) / bucket * bucket;
            figures.forgetFrom(settled);
            store->forEachRollup(settled, now + kDay, bucket, [&figures](const RollupRecord &row) {
                figures.add(row);
                return true;
            });
            addPeaks(*store, figures, settled, now + kDay, bucket);
            figures.snapshot(now - kDay, now + 1, bucket);
            worst = std::max(worst, seconds(timer));
        }
        report(QStringLiteral("Overview live update at 24 h, %1 attempts over %2 d (worst of 20)")
                   .arg(rows)
                   .arg(spanDays),
               QStringLiteral("(none: the target)"),
               QStringLiteral("%1 ms").arg(number(worst * 1000, 2)), QStringLiteral("-"),
               QStringLiteral("< 20 ms"), worst < 0.02);
    }
}

// A database of the version before the rollups, with `rows` attempts over 90 days,
// opened by this build: the migration builds the rollups in steps with progress.
// Reference: one INSERT … SELECT of the recount over the same attempts (what the
// migration did before it built in steps), through the C API, on a copy.
void benchMigration(const QTemporaryDir &dir, qint64 rows)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const int before = schema::rollupsVersion() - 1;
    const QString path =
        seedHistory(dir, QStringLiteral("migrate.db"), rows, 90 * kDay, now, "succeeded", before);
    const QString copy = dir.filePath(QStringLiteral("migrate-reference.db"));
    QFile::remove(copy);
    if (!QFile::copy(path, copy))
        die(QStringLiteral("cannot copy %1").arg(path));
    double reference = 0;
    {
        CApiDatabase db(copy);
        db.useStoreSettings();
        QElapsedTimer timer;
        timer.start();
        db.exec("BEGIN");
        db.exec(QByteArray(schema::migrationStep(schema::rollupsVersion(), false).first().toUtf8())
                    .constData());
        const QByteArray fill =
            QStringLiteral("INSERT INTO attempt_rollups %1").arg(schema::rollupRecount()).toUtf8();
        db.exec(fill.constData());
        db.exec("COMMIT");
        reference = seconds(timer);
    }
    QElapsedTimer timer;
    timer.start();
    std::unique_ptr<Store> store = openStore(path);
    const double migrated = seconds(timer);
    qint64 counted = 0;
    for (const RollupRecord &r : store->rollups(0, now + kDay, 24 * 60 * kMinute))
        counted += r.attempts;
    if (counted != rows)
        die(QStringLiteral("the migrated rollups count %1 of %2 attempts").arg(counted).arg(rows));
    report(QStringLiteral("migrate %1 attempts to rollups (schema %2 to %3, in steps)")
               .arg(rows)
               .arg(before)
               .arg(Store::latestSchemaVersion()),
           QStringLiteral("one INSERT ... SELECT of the recount: %1 s").arg(number(reference, 1)),
           QStringLiteral("%1 s").arg(number(migrated, 1)), ratioText(reference / migrated),
           QStringLiteral("-"), true);
}

void benchPrune(const QTemporaryDir &dir, qint64 rows)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    // Every attempt between 90 and 30 days old, of ended operations: all of them go.
    const QString path = seedHistory(dir, QStringLiteral("prune.db"), rows, 60 * kDay,
                                     now - 30 * kDay - kMinute, "succeeded");
    const qint64 sizeBefore = QFileInfo(path).size();
    QElapsedTimer timer;
    timer.start();
    PruneSummary summary;
    {
        RetentionPruner pruner(path, SystemClock::instance(),
                               RetentionPeriods{30 * kDay, 400 * kDay});
        summary = pruner.pruneNow();
    }
    const double elapsed = seconds(timer);
    if (!summary.error.isEmpty())
        die(summary.error);
    if (summary.attempts != rows)
        die(QStringLiteral("pruned %1 of %2 attempts").arg(summary.attempts).arg(rows));
    const qint64 sizeAfter = QFileInfo(path).size();
    note(QStringLiteral("pruned %1 attempts in %2 batches, %3 s; file %4 -> %5")
             .arg(summary.attempts)
             .arg(summary.batches)
             .arg(number(elapsed, 1))
             .arg(megabytes(sizeBefore), megabytes(sizeAfter)));
    report(QStringLiteral("prune %1 attempts older than 30 days: longest write lock").arg(rows),
           QStringLiteral("the budget: %1 ms").arg(RetentionPruner::kMaxLockMs),
           QStringLiteral("%1 ms").arg(number(double(summary.longestLockUs) / 1000, 1)),
           ratioText(double(summary.longestLockUs) / 1000 / RetentionPruner::kMaxLockMs),
           QStringLiteral("<= 50 ms"), summary.longestLockUs <= RetentionPruner::kMaxLockMs * 1000);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const QString which = option(args, QStringLiteral("--only"), QString());
    const qint64 rows = option(args, QStringLiteral("--rows"),
                               g_smoke ? QStringLiteral("20000") : QStringLiteral("1000000"))
                            .toLongLong();
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary folder"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));
    if (args.contains(QStringLiteral("--keep"))) {
        dir.setAutoRemove(false);
        note(QStringLiteral("files kept in %1").arg(dir.path()));
    }
    if (which.isEmpty() || which == QLatin1String("overview")) {
        benchOverview(dir, rows, 90);
        benchOverview(dir, rows, 1);
    }
    if (which.isEmpty() || which == QLatin1String("prune"))
        benchPrune(dir, rows);
    if (which.isEmpty() || which == QLatin1String("migration"))
        benchMigration(dir, rows);
    return g_failures > 0 ? 1 : 0;
}
