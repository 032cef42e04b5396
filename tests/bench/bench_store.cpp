// SPDX-License-Identifier: Apache-2.0
// The store's benchmarks, each beside its reference in the same run:
//   recording  Store::finishAttempts, the engine's group commit (each attempt fenced by
//              its claim), against the sqlite3 C API doing the same work in batched
//              transactions (and, for information, inserting the attempt rows alone);
//              and Store::finishAttempt, one transaction per attempt, against the C API
//              doing that same per-attempt transaction
//   claim      Store::open then the first claimDue, on 1,000,000 operations of which
//              100,000 are waiting, against a plain indexed SELECT of the same rows
//
//   bench_store [--smoke] [--only recording|claim] [--keep]

#include "bench/BenchSupport.h"
#include "core/store/Store.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QTemporaryDir>

#include <algorithm>
#include <initializer_list>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

const QString kWorker = QStringLiteral("bench-worker");

// An attempt as the engine records one against a plain API, and the same values as
// UTF-8 for the C API, bound in Store's column order.
struct Row
{
    AttemptRecord record;
    std::vector<std::string> text; // the text columns, in column order
};

Row makeRow(qint64 index, qint64 nowMs)
{
    AttemptRecord a;
    a.endpointId = QStringLiteral("bench");
    a.attempt = 1;
    a.startedAtMs = nowMs + index;
    a.finishedAtMs = a.startedAtMs + 3;
    a.method = QStringLiteral("GET");
    a.url = QStringLiteral("http://127.0.0.1:8080/measurements?page=%1").arg(index % 97);
    a.status = 200;
    a.decision = Decision::Success;
    a.reason = QStringLiteral("ok");
    a.waitSource = WaitSource::None;
    a.rateLimitRemaining = int(index % 120);
    a.idempotencyKey =
        QStringLiteral("2f6c1c1e-5d7a-4b11-9c1e-%1").arg(index, 12, 10, QLatin1Char('0'));
    a.durationMs = 3;
    a.workerId = kWorker;
    a.requestHeaders = QStringLiteral("Idempotency-Key: \"%1\"\n").arg(a.idempotencyKey);
    a.responseHeaders = QStringLiteral("Server: nginx\nDate: Sun, 29 Nov 2026 12:00:00 GMT\n"
                                       "Content-Type: text/plain\nContent-Length: 3\n");
    Row row;
    row.record = a;
    // The decision and wait source as the store writes them.
    const QString decision = QLatin1String(textOf(a.decision));
    const QString waitSource = QLatin1String(textOf(a.waitSource));
    for (const QString *s : std::initializer_list<const QString *>{
             &a.endpointId, &a.method, &a.url, &a.error, &decision, &a.reason, &waitSource,
             &a.retryAfterRaw, &a.problemType, &a.problemInstance, &a.idempotencyKey, &a.workerId,
             &a.policyId, &a.requestHeaders, &a.responseHeaders})
        row.text.push_back(s->toStdString());
    return row;
}

const char kInsertAttempt[] =
    "INSERT INTO attempts (operation_id, endpoint_id, attempt, started_at, finished_at, method,"
    " url, status, error, decision, reason, wait_ms, wait_source, retry_after_raw,"
    " problem_type, problem_instance, rate_limit_remaining, idempotency_key, duration_ms,"
    " worker_id, policy_id, policy_version, forced, request_headers, response_headers,"
    " lease_conflict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
    " ?, ?, ?, ?, ?)";

void bindAttempt(Statement &s, const Row &row, qint64 operationId)
{
    const AttemptRecord &a = row.record;
    const std::vector<std::string> &t = row.text;
    s.bind(1, operationId);
    s.bindStatic(2, t[0]);
    s.bind(3, qint64(a.attempt));
    s.bind(4, a.startedAtMs);
    s.bind(5, a.finishedAtMs);
    s.bindStatic(6, t[1]);
    s.bindStatic(7, t[2]);
    s.bind(8, qint64(a.status));
    s.bindStatic(9, t[3]);
    s.bindStatic(10, t[4]);
    s.bindStatic(11, t[5]);
    s.bind(12, a.waitMs);
    s.bindStatic(13, t[6]);
    s.bindStatic(14, t[7]);
    s.bindStatic(15, t[8]);
    s.bindStatic(16, t[9]);
    s.bind(17, qint64(a.rateLimitRemaining));
    s.bindStatic(18, t[10]);
    s.bind(19, a.durationMs);
    s.bindStatic(20, t[11]);
    s.bindStatic(21, t[12]);
    s.bind(22, qint64(a.policyVersion));
    s.bind(23, qint64(a.forced ? 1 : 0));
    s.bindStatic(24, t[13]);
    s.bindStatic(25, t[14]);
    s.bind(26, qint64(0));
}

// A fresh database with Cooldown's schema and `count` operations due now.
QString createDatabase(const QTemporaryDir &dir, const QString &name, qint64 count, qint64 nowMs,
                       const QString &state = QStringLiteral("scheduled"))
{
    const QString path = dir.filePath(name);
    openBenchStore(path, nowMs); // and closed: the rows below go in through the C API
    CApiDatabase db(path);
    OperationSeed seed;
    seed.state = state;
    seed.createdAtMs = nowMs - 1000;
    seed.nextAttemptAtMs = [nowMs](qint64) {
        return nowMs - 1000;
    };
    seedOperations(db, count, seed);
    return path;
}

void benchRecording(const QTemporaryDir &dir, qint64 count)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    std::vector<Row> rows;
    rows.reserve(size_t(count));
    for (qint64 i = 0; i < count; ++i)
        rows.push_back(makeRow(i, now));

    // Cooldown: Store::finishAttempts, the engine's group commit (each attempt fenced
    // by its claim: attempt row + operation state), 1,000 per transaction like the
    // reference; then finishAttempt, one transaction per attempt.
    const auto recordThroughStore = [&](const QString &name, qint64 group) {
        const QString path = createDatabase(dir, name, count, now);
        std::unique_ptr<Store> store = openStore(path);
        const QList<OperationRecord> claimed =
            store->claims().claimDue(kWorker, now, 3600000, int(count));
        if (claimed.size() != count)
            die(QStringLiteral("claimed %1 of %2: %3")
                    .arg(claimed.size())
                    .arg(count)
                    .arg(store->lastError()));
        QList<QList<Store::FinishRequest>> groups;
        for (qint64 i = 0; i < count; ++i) {
            AttemptRecord a = rows[size_t(i)].record;
            a.operationId = claimed[i].id;
            if (i % group == 0)
                groups.append(QList<Store::FinishRequest>());
            groups.last().append({a, succeeded(claimed[i], a), claimed[i].version});
        }
        QElapsedTimer timer;
        timer.start();
        for (const QList<Store::FinishRequest> &requests : std::as_const(groups)) {
            const QList<Store::FinishOutcome> outcomes = store->finishAttempts(requests, kWorker);
            for (const Store::FinishOutcome &outcome : outcomes) {
                if (outcome.result != Store::FinishResult::Committed)
                    die(QStringLiteral("finishAttempts failed: %1").arg(outcome.error));
            }
        }
        const double elapsed = seconds(timer);
        if (store->countAttempts({}) != count)
            die(QStringLiteral("the store holds %1 attempts, expected %2")
                    .arg(store->countAttempts({}))
                    .arg(count));
        return elapsed;
    };
    const double storeSeconds = recordThroughStore(QStringLiteral("record-store.db"), 1000);
    const double perAttemptStoreSeconds =
        recordThroughStore(QStringLiteral("record-store-1.db"), 1);

    // Reference: the same rows through the C API, 1,000 per transaction.
    double batchedSeconds = 0;
    {
        const QString path = createDatabase(dir, QStringLiteral("record-batched.db"), count, now);
        CApiDatabase db(path);
        db.useStoreSettings();
        Statement insert(db.handle(), kInsertAttempt);
        const qint64 firstOperation = 1;
        QElapsedTimer timer;
        timer.start();
        db.exec("BEGIN");
        for (qint64 i = 0; i < count; ++i) {
            bindAttempt(insert, rows[size_t(i)], firstOperation + i);
            insert.step();
            insert.reset();
            if ((i + 1) % 1000 == 0) {
                db.exec("COMMIT");
                db.exec("BEGIN");
            }
        }
        db.exec("COMMIT");
        batchedSeconds = seconds(timer);
    }

    // Like for like: the C API doing the store's own work for each attempt on SQLite
    // (the fenced update of the operation, with its pending-cancel cases; its cancel
    // flag read back by key; then the attempt row), in transactions of `group` attempts.
    const auto sameWorkThroughC = [&](const QString &name, qint64 group) {
        const QString path = createDatabase(dir, name, count, now, QStringLiteral("running"));
        CApiDatabase db(path);
        db.useStoreSettings();
        db.exec("UPDATE operations SET lease_owner = 'bench-worker', version = 1,"
                " lease_expires_at = 9000000000000");
        Statement update(
            db.handle(),
            "UPDATE operations SET"
            " state = CASE WHEN cancel_requested = 1 THEN ? ELSE ? END,"
            " attempt = ?, throttled_attempts = ?, first_attempt_at = ?,"
            " next_attempt_at = CASE WHEN cancel_requested = 1 THEN CAST(? AS BIGINT) ELSE CAST(? "
            "AS BIGINT) END,"
            " last_status = ?, last_error = ?, response_instance = ?,"
            " final_reason = CASE WHEN cancel_requested = 1 THEN ? ELSE ? END,"
            " wait_source = ?, previous_backoff_ms = ?, force_next = ?, rescued = 0,"
            " lease_owner = CASE WHEN cancel_requested = 1 THEN ? ELSE ? END,"
            " lease_expires_at = CASE WHEN cancel_requested = 1 THEN CAST(? AS BIGINT) ELSE CAST(? "
            "AS BIGINT) END,"
            " version = version + 1"
            " WHERE id = ? AND version = ? AND lease_owner = ?");
        Statement flag(db.handle(), "SELECT cancel_requested FROM operations WHERE id = ?");
        Statement insert(db.handle(), kInsertAttempt);
        const std::string succeededText = "succeeded";
        const std::string empty;
        const std::string worker = kWorker.toStdString();
        const std::string none = "none";
        QElapsedTimer timer;
        timer.start();
        for (qint64 i = 0; i < count; ++i) {
            const qint64 id = 1 + i;
            const AttemptRecord &a = rows[size_t(i)].record;
            if (i % group == 0)
                db.exec("BEGIN IMMEDIATE");
            int column = 1;
            for (const std::string *state : {&succeededText, &succeededText})
                update.bind(column++, *state);
            update.bind(column++, qint64(1));
            update.bind(column++, qint64(0));
            update.bind(column++, a.startedAtMs);
            update.bind(column++, qint64(-1));
            update.bind(column++, qint64(-1));
            update.bind(column++, qint64(200));
            update.bind(column++, empty);
            update.bind(column++, empty);
            update.bind(column++, empty);
            update.bind(column++, empty);
            update.bind(column++, none);
            update.bind(column++, qint64(0));
            update.bind(column++, qint64(0));
            update.bind(column++, empty);
            update.bind(column++, empty);
            update.bind(column++, qint64(-1));
            update.bind(column++, qint64(-1));
            update.bind(column++, id);
            update.bind(column++, qint64(1));
            update.bind(column++, worker);
            if (update.step() != SQLITE_DONE || sqlite3_changes(db.handle()) != 1)
                die(QStringLiteral("fence mismatch at operation %1").arg(id));
            update.reset();
            flag.bind(1, id);
            if (flag.step() != SQLITE_ROW || flag.int64(0) != 0)
                die(QStringLiteral("operation %1: no cancel expected").arg(id));
            flag.reset();
            bindAttempt(insert, rows[size_t(i)], id);
            insert.step();
            insert.reset();
            if ((i + 1) % group == 0 || i + 1 == count)
                db.exec("COMMIT");
        }
        return seconds(timer);
    };
    const double sameWorkBatchedSeconds =
        sameWorkThroughC(QStringLiteral("record-c-same-batched.db"), 1000);
    const double perAttemptCSeconds =
        sameWorkThroughC(QStringLiteral("record-c-per-attempt.db"), 1);

    const double storeRate = double(count) / storeSeconds;
    const double perAttemptStoreRate = double(count) / perAttemptStoreSeconds;
    const double batchedRate = double(count) / batchedSeconds;
    const double sameWorkBatchedRate = double(count) / sameWorkBatchedSeconds;
    const double perAttemptCRate = double(count) / perAttemptCSeconds;
    // The target row: the C API doing what recording an attempt is (the operation's
    // fenced new state and the attempt row, durable together). Against the attempt
    // rows alone, for information: even the C API doing the store's work reaches only
    // about half of that (tests/bench/README.md).
    report(
        QStringLiteral("record attempts: Store::finishAttempts, 1000/txn (%1 rows), like for like")
            .arg(count),
        QStringLiteral("sqlite3 C API, same update + insert, 1000/txn: %1")
            .arg(perSecond(sameWorkBatchedRate)),
        perSecond(storeRate), ratioText(storeRate / sameWorkBatchedRate),
        QStringLiteral(">= 0.50x"), storeRate / sameWorkBatchedRate >= 0.5);
    report(QStringLiteral("record attempts: same, against attempt rows alone"),
           QStringLiteral("sqlite3 C API, attempt rows only, 1000/txn: %1 (C same work: %2)")
               .arg(perSecond(batchedRate), ratioText(sameWorkBatchedRate / batchedRate)),
           perSecond(storeRate), ratioText(storeRate / batchedRate), QStringLiteral("(info)"),
           true);
    report(QStringLiteral("record attempts: Store::finishAttempt, 1 txn/attempt"),
           QStringLiteral("sqlite3 C API, same update + insert, 1/txn: %1")
               .arg(perSecond(perAttemptCRate)),
           perSecond(perAttemptStoreRate), ratioText(perAttemptStoreRate / perAttemptCRate),
           QStringLiteral("(info)"), true);
}

void benchClaim(const QTemporaryDir &dir, qint64 total, qint64 waiting)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString path = dir.filePath(QStringLiteral("claim.db"));
    openStore(path);
    {
        // Finished operations first, as in a long-lived database, then the waiting
        // ones, due over the last hour.
        CApiDatabase db(path);
        db.useStoreSettings();
        OperationSeed done;
        done.state = QStringLiteral("succeeded");
        done.attempt = 1;
        done.createdAtMs = now - 86400000;
        done.nextAttemptAtMs = [](qint64) {
            return qint64(-1);
        };
        seedOperations(db, total - waiting, done);
        OperationSeed due;
        due.state = QStringLiteral("waiting");
        due.attempt = 1;
        due.createdAtMs = now - 3600000;
        due.nextAttemptAtMs = [now, waiting](qint64 i) {
            return now - 3600000 + i * 3600000 / waiting;
        };
        seedOperations(db, waiting, due);
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }

    // Each run opens the database anew and claims as the engine does (8 permits).
    const int runs = 5;
    std::vector<double> storeMs;
    for (int run = 0; run < runs; ++run) {
        QElapsedTimer timer;
        timer.start();
        std::unique_ptr<Store> store = openStore(path);
        const QList<OperationRecord> claimed =
            store->claims().claimDue(kWorker, QDateTime::currentMSecsSinceEpoch(), 120000, 8);
        storeMs.push_back(seconds(timer) * 1000);
        if (claimed.size() != 8)
            die(QStringLiteral("claimed %1 operations, expected 8: %2")
                    .arg(claimed.size())
                    .arg(store->lastError()));
    }
    std::vector<double> selectMs;
    for (int run = 0; run < runs; ++run) {
        QElapsedTimer timer;
        timer.start();
        CApiDatabase db(path);
        Statement select(db.handle(),
                         "SELECT id, endpoint_id, state, attempt, next_attempt_at, idempotency_key,"
                         " version FROM operations INDEXED BY operations_due"
                         " WHERE state IN ('scheduled', 'waiting')"
                         " AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT 8");
        select.bind(1, QDateTime::currentMSecsSinceEpoch());
        int rows = 0;
        while (select.step() == SQLITE_ROW)
            ++rows;
        selectMs.push_back(seconds(timer) * 1000);
        if (rows != 8)
            die(QStringLiteral("the reference SELECT found %1 rows").arg(rows));
    }
    {
        // How SQLite runs the claim's due-operation search as the store writes it (no
        // index named): the plan explains a slow claim.
        CApiDatabase db(path);
        Statement plan(db.handle(),
                       "EXPLAIN QUERY PLAN SELECT id FROM operations"
                       " WHERE state IN ('scheduled', 'waiting') AND next_attempt_at <= 0"
                       " ORDER BY next_attempt_at LIMIT 8");
        QStringList steps;
        while (plan.step() == SQLITE_ROW)
            steps.append(QString::fromUtf8(
                reinterpret_cast<const char *>(sqlite3_column_text(plan.handle(), 3))));
        note(QStringLiteral("plan of the unhinted due query: %1")
                 .arg(steps.join(QStringLiteral("; "))));
    }
    const double worstStore = *std::max_element(storeMs.begin(), storeMs.end());
    const double worstSelect = *std::max_element(selectMs.begin(), selectMs.end());
    QStringList all;
    for (double ms : storeMs)
        all.append(number(ms, 1));
    note(QStringLiteral("open + first claim, %1 runs (ms): %2")
             .arg(runs)
             .arg(all.join(QStringLiteral(", "))));
    report(QStringLiteral("first claim after Store::open (%1 waiting of %2, worst of %3)")
               .arg(waiting)
               .arg(total)
               .arg(runs),
           QStringLiteral("C API open + indexed SELECT: %1 ms").arg(number(worstSelect, 1)),
           QStringLiteral("%1 ms").arg(number(worstStore, 1)), ratioText(worstSelect / worstStore),
           QStringLiteral("<= 150 ms"), worstStore <= 150);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const int only = int(args.indexOf(QStringLiteral("--only")));
    const QString which = only >= 0 && only + 1 < args.size() ? args.at(only + 1) : QString();
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary folder"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));
    if (args.contains(QStringLiteral("--keep"))) {
        dir.setAutoRemove(false);
        note(QStringLiteral("files kept in %1").arg(dir.path()));
    }
    if (which.isEmpty() || which == QLatin1String("recording"))
        benchRecording(dir, g_smoke ? 200 : 20000);
    if (which.isEmpty() || which == QLatin1String("claim"))
        benchClaim(dir, g_smoke ? 10000 : 1000000, g_smoke ? 1000 : 100000);
    return g_failures > 0 ? 1 : 0;
}
