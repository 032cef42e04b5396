// SPDX-License-Identifier: Apache-2.0
// The store's per-minute rollups, on SQLite and PostgreSQL alike: written with the
// attempts by every worker, they equal a recount of the raw attempts over random
// histories; the migration builds them for a database of the previous version; the
// bucketed query sums them. Time is the nowMs each call passes, randomness a seed.

#include "StoreTestSupport.h"
#include "support/ReadableEnums.h"

#include "core/store/Schema.h"
#include "core/store/Store.h"
#include "core/time/RandomSource.h"
#include "support/AttemptFixture.h"

#include <QLoggingCategory>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <tuple>

using namespace cooldown;

namespace {

const qint64 kStart = 1'795'000'000'000; // a fixed instant: no test here reads the clock
const qint64 kLease = 600'000;

auto keyOf(const RollupRecord &r)
{
    return std::make_tuple(r.minuteAtMs, r.endpointId, r.policyId, r.partitionKey, r.statusClass,
                           r.decision, r.waitSource, r.reason);
}

QList<RollupRecord> sorted(QList<RollupRecord> rows)
{
    std::sort(rows.begin(), rows.end(),
              [](const RollupRecord &a, const RollupRecord &b) { return keyOf(a) < keyOf(b); });
    return rows;
}

QString describe(const RollupRecord &r)
{
    return QStringLiteral("%1 %2 %3/%4 %5 %6 %7 %8: n=%9 wait=%10 queue=%11 duration=%12")
        .arg(r.minuteAtMs)
        .arg(r.endpointId, r.policyId, r.partitionKey, r.statusClass,
             r.decision ? QLatin1String(textOf(*r.decision)) : QStringLiteral("conflict"),
             r.waitSource ? QLatin1String(textOf(*r.waitSource)) : QString(), r.reason)
        .arg(r.attempts)
        .arg(r.waitMs)
        .arg(r.queueMs)
        .arg(r.durationMs);
}

// Empty when equal, else the first difference.
QString difference(const QList<RollupRecord> &expected, const QList<RollupRecord> &actual)
{
    const QList<RollupRecord> a = sorted(expected);
    const QList<RollupRecord> b = sorted(actual);
    for (qsizetype i = 0; i < std::max(a.size(), b.size()); ++i) {
        if (i >= a.size())
            return QStringLiteral("unexpected row %1").arg(describe(b.at(i)));
        if (i >= b.size())
            return QStringLiteral("missing row %1").arg(describe(a.at(i)));
        if (!(a.at(i) == b.at(i)))
            return QStringLiteral("expected %1\n      got %2")
                .arg(describe(a.at(i)), describe(b.at(i)));
    }
    return {};
}

// Minute rows summed per bucket, as the store's bucketed reads must return them.
QList<RollupRecord> sumPerBucket(const QList<RollupRecord> &minutes, qint64 bucket)
{
    QMap<decltype(keyOf(RollupRecord())), RollupRecord> summed;
    for (RollupRecord r : minutes) {
        r.minuteAtMs -= r.minuteAtMs % bucket;
        auto it = summed.find(keyOf(r));
        if (it == summed.end()) {
            summed.insert(keyOf(r), r);
            continue;
        }
        it->attempts += r.attempts;
        it->waitMs += r.waitMs;
        it->queueMs += r.queueMs;
        it->durationMs += r.durationMs;
    }
    return summed.values();
}

template <typename T> T pick(RandomSource &random, std::initializer_list<T> values)
{
    return *(values.begin() + random.uniformInt(0, qint64(values.size()) - 1));
}

// One worker's share of a random history: new operations, claims, and their attempts
// recorded in group commits with every kind of outcome, some of them by a worker that
// lost its lease. Time moves on by up to 40 s a round, so rows spread over minutes and
// leases expire (their operations are rescued by whichever worker claims next).
// Returns an empty string, or what went wrong.
QString runHistory(Store &store, const QString &worker, quint64 seed, int rounds, qint64 start)
{
    SeededRandom random(seed);
    qint64 now = start;
    for (int round = 0; round < rounds; ++round) {
        const int created = int(random.uniformInt(0, 3));
        for (int i = 0; i < created; ++i) {
            const QString policy = pick<const char *>(random, {"", "p1", "p2"});
            const QString partition =
                policy.isEmpty() ? QString() : pick<const char *>(random, {"", "a", "b"});
            const QString endpoint = pick<const char *>(random, {"e1", "e2", "e3"});
            if (!store.createOperation(endpoint,
                                       QStringLiteral("%1-%2-%3").arg(worker).arg(round).arg(i),
                                       now, policy, partition))
                return store.lastError();
        }
        QList<OperationRecord> claimed =
            store.claims().claimDue(worker, now, kLease, int(random.uniformInt(1, 6)));
        // PostgreSQL returns a claim's rows in no set order: the draws below go to the
        // operations in the order of their ids, not in the order the rows came back.
        std::sort(claimed.begin(), claimed.end(),
                  [](const OperationRecord &a, const OperationRecord &b) { return a.id < b.id; });
        QList<Store::FinishRequest> requests;
        for (const OperationRecord &op : claimed) {
            // In the random source's order: the start, then whether it ended.
            const qint64 startedAtMs = now - random.uniformInt(0, 5000);
            const qint64 finishedAtMs = random.uniformInt(0, 9) == 0 ? -1 : now;
            AttemptRecord a = test::nextAttempt(op, startedAtMs, finishedAtMs);
            a.method = QStringLiteral("GET");
            a.url = QStringLiteral("https://h.example/x");
            a.status = pick(random, {200, 201, 302, 404, 429, 429, 500, 503, 0});
            a.decision = pick(random, {Decision::Success, Decision::Retry, Decision::Retry,
                                       Decision::Park, Decision::Fail});
            a.durationMs = random.uniformInt(-1, 3000);
            a.workerId = worker;
            a.policyId = op.policyId;
            OperationRecord next = op;
            next.attempt = a.attempt;
            next.leaseOwner.clear();
            next.leaseExpiresAtMs = -1;
            if (a.decision == Decision::Retry) {
                a.waitMs = random.uniformInt(0, 90'000);
                a.waitSource = pick(random, {WaitSource::None, WaitSource::RetryAfter,
                                             WaitSource::RateLimit, WaitSource::Backoff});
                next.state = OperationState::Waiting;
                next.nextAttemptAtMs = now + random.uniformInt(0, 60'000);
            } else if (a.decision == Decision::Fail) {
                a.reason = pick<const char *>(
                    random, {"", "not_retryable", "deadline_unreachable", "retry_after_too_long"});
                next.state = OperationState::Failed;
                next.finalReason = a.reason;
            } else if (a.decision == Decision::Park) {
                a.reason = QStringLiteral("ambiguous");
                next.state = OperationState::Parked;
            } else {
                next.state = OperationState::Succeeded;
            }
            // Now and then a worker whose claim is stale: a lease conflict.
            const qint64 version = random.uniformInt(0, 11) == 0 ? op.version + 7 : op.version;
            requests.append(Store::FinishRequest(a, next, version));
        }
        const QList<Store::FinishOutcome> outcomes = store.finishAttempts(requests, worker);
        for (const Store::FinishOutcome &outcome : outcomes) {
            if (outcome.result == Store::FinishResult::Failed)
                return outcome.error;
        }
        now += random.uniformInt(0, 40'000);
    }
    return {};
}

} // namespace

class tst_Rollups : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void initTestCase_data();
    void init();
    void cleanup();

    void emptyDatabaseHasNone();
    void oneAttemptMakesOneRow();
    void rollupsEqualRecount_data();
    void rollupsEqualRecount();
    void workersWritingAtOnce();
    void bucketsSumMinutes();
    void attemptSumsAddUpToTheMinutes();
    void finalFailuresSince();
    void migrationBuildsRollups();
    void changeTokenFollowsOtherConnections();
    void inFlightPeaksAddUpWorkers();
    void inFlightPeaksFromTheirVersionOn();

private:
    // A one-attempt operation of worker's, committed with these in-flight peaks.
    bool commitWithPeaks(Store &store, const QString &worker, qint64 atMs,
                         const QList<Store::InFlightPeak> &peaks);
    // The test's database, or the one at url.
    std::unique_ptr<Store> open(const QString &url = {});
    // Makes the test's database one of this older version holding the rows of the
    // database at recordedAt (written by this version) that its tables have.
    bool seedOlderVersion(int version, const QString &recordedAt, QString *error);
    bool isSqlite() const { return m_backend == QLatin1String("sqlite"); }

    QString m_backend;
    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void tst_Rollups::initTestCase()
{
    // The histories lose leases on purpose; each conflict is logged as a warning.
    QLoggingCategory::setFilterRules(QStringLiteral("cooldown.core.store.warning=false"));
}

void tst_Rollups::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("postgresql") << "postgresql";
}

void tst_Rollups::init()
{
    QFETCH_GLOBAL(QString, backend);
    m_backend = backend;
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    if (isSqlite()) {
        m_url = m_dir->filePath(QStringLiteral("rollups.db"));
        return;
    }
    QString why;
    m_url = test::freshPostgresDatabase(QStringLiteral("cooldown_tst_rollups"), &why);
    if (m_url.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
}

void tst_Rollups::cleanup()
{
    m_dir.reset();
}

bool tst_Rollups::seedOlderVersion(int version, const QString &recordedAt, QString *error)
{
    return Store::createAtVersion(m_url, version, error) &&
           test::copyRows(recordedAt, m_url,
                          {QStringLiteral("endpoints"), QStringLiteral("rate_partitions"),
                           QStringLiteral("operations"), QStringLiteral("attempts")},
                          error);
}

std::unique_ptr<Store> tst_Rollups::open(const QString &url)
{
    StoreOptions options;
    options.paceByDatabaseClock = false;
    QString error;
    std::unique_ptr<Store> store = Store::open(url.isEmpty() ? m_url : url, &error, options);
    if (!store)
        qWarning("open failed: %s", qPrintable(error));
    return store;
}

bool tst_Rollups::commitWithPeaks(Store &store, const QString &worker, qint64 atMs,
                                  const QList<Store::InFlightPeak> &peaks)
{
    static int made = 0;
    const auto claimed =
        test::claimNew(store, QStringLiteral("e"), QStringLiteral("k%1").arg(++made), atMs, worker);
    if (!claimed)
        return false;
    AttemptRecord a = test::nextAttempt(*claimed, atMs, atMs + 10);
    a.status = 200;
    a.decision = Decision::Success;
    a.workerId = worker;
    const OperationRecord next = test::leftIn(*claimed, a, OperationState::Succeeded);
    const QList<Store::FinishOutcome> outcomes =
        store.finishAttempts({Store::FinishRequest(a, next, claimed->version)}, worker, peaks);
    return outcomes.size() == 1 && outcomes.first().result == Store::FinishResult::Committed;
}

void tst_Rollups::emptyDatabaseHasNone()
{
    auto store = open();
    QVERIFY(store);
    QVERIFY(store->rollups(0, kStart * 2).isEmpty());
    QVERIFY2(store->lastError().isEmpty(), qPrintable(store->lastError()));
    QCOMPARE(store->finalFailuresSince(0), qint64(0));
}

void tst_Rollups::oneAttemptMakesOneRow()
{
    auto store = open();
    QVERIFY(store);
    QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("k"), kStart,
                                   QStringLiteral("p"), QStringLiteral("a")));
    const QList<OperationRecord> claimed =
        store->claims().claimDue(QStringLiteral("w"), kStart, kLease, 1);
    QCOMPARE(claimed.size(), 1);
    // It starts in kStart's second minute and ends in its third: the end counts.
    AttemptRecord a = test::nextAttempt(claimed.first(), kStart + 61'000, kStart + 125'500);
    a.status = 429;
    a.decision = Decision::Retry;
    a.waitMs = 30'000;
    a.waitSource = WaitSource::RetryAfter;
    a.durationMs = 250;
    a.policyId = QStringLiteral("p");
    const OperationRecord next =
        test::leftIn(claimed.first(), a, OperationState::Waiting, a.finishedAtMs + a.waitMs);
    QCOMPARE(test::finishAttempt(*store, a, next, QStringLiteral("w")),
             Store::FinishResult::Committed);

    const QList<RollupRecord> rows = store->rollups(0, kStart * 2);
    QCOMPARE(rows.size(), 1);
    const RollupRecord &r = rows.first();
    QCOMPARE(r.minuteAtMs, (kStart + 125'500) / 60'000 * 60'000);
    QCOMPARE(r.endpointId, QStringLiteral("e"));
    QCOMPARE(r.policyId, QStringLiteral("p"));
    QCOMPARE(r.partitionKey, QStringLiteral("a"));
    QCOMPARE(r.statusClass, QStringLiteral("429"));
    QCOMPARE(r.decision, Decision::Retry);
    QCOMPARE(r.waitSource, WaitSource::RetryAfter);
    QCOMPARE(r.reason, QString());
    QCOMPARE(r.attempts, qint64(1));
    QCOMPARE(r.waitMs, qint64(30'000));
    QCOMPARE(r.queueMs, qint64(0));
    QCOMPARE(r.durationMs, qint64(250));

    // The retry starts 10 s after it was due: that is queue time, in its own row.
    const QList<OperationRecord> again =
        store->claims().claimDue(QStringLiteral("w"), next.nextAttemptAtMs + 10'000, kLease, 1);
    QCOMPARE(again.size(), 1);
    AttemptRecord b = a;
    b.attempt = 2;
    b.startedAtMs = next.nextAttemptAtMs + 10'000;
    b.finishedAtMs = b.startedAtMs + 100;
    b.status = 500;
    b.decision = Decision::Fail;
    b.reason = QStringLiteral("token=hunter2 not_retryable");
    b.waitMs = -1;
    b.waitSource = WaitSource::None;
    OperationRecord done = again.first();
    done.state = OperationState::Failed;
    done.attempt = 2;
    QCOMPARE(store->finishAttempt(b, done, again.first().version, QStringLiteral("w")),
             Store::FinishResult::Committed);
    const QList<RollupRecord> later = store->rollups(b.finishedAtMs - 60'000, kStart * 2);
    QCOMPARE(later.size(), 1);
    QCOMPARE(later.first().statusClass, QStringLiteral("5xx"));
    QCOMPARE(later.first().decision, Decision::Fail);
    QCOMPARE(later.first().queueMs, qint64(10'000));
    // The reason is counted as the attempt's is stored: redacted.
    QCOMPARE(later.first().reason, store->attempts({}).constLast().reason);
    QCOMPARE(store->finalFailuresSince(kStart), qint64(1));
    const QString diff = difference(store->recountRollups(), store->rollups(0, kStart * 2));
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void tst_Rollups::rollupsEqualRecount_data()
{
    QTest::addColumn<quint64>("seed");
    for (quint64 seed : {1ull, 2ull, 3ull, 42ull, 2026ull})
        QTest::addRow("seed %llu", seed) << seed;
}

void tst_Rollups::rollupsEqualRecount()
{
    QFETCH(quint64, seed);
    // Three workers take turns on one database.
    std::unique_ptr<Store> workers[] = {open(), open(), open()};
    for (const auto &w : workers)
        QVERIFY(w);
    SeededRandom order(seed);
    for (int step = 0; step < 30; ++step) {
        const int w = int(order.uniformInt(0, 2));
        const QString why = runHistory(*workers[w], QStringLiteral("w%1").arg(w),
                                       seed * 1000 + quint64(step), 5, kStart + step * 20'000);
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }
    Store &store = *workers[0];
    const QList<RollupRecord> written = store.rollups(0, kStart * 2);
    const QList<RollupRecord> recounted = store.recountRollups();
    QVERIFY2(store.lastError().isEmpty(), qPrintable(store.lastError()));
    QVERIFY(written.size() > 20); // the history is not trivial
    qint64 attempts = 0;
    for (const RollupRecord &r : written)
        attempts += r.attempts;
    QCOMPARE(attempts, store.countAttempts({}));
    const QString diff = difference(recounted, written);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    // The hourly rows are the minutes' sums.
    const qint64 hour = 3'600'000;
    const QString hourly =
        difference(sumPerBucket(recounted, hour), store.rollups(0, kStart * 2, hour));
    QVERIFY2(hourly.isEmpty(), qPrintable(hourly));
}

void tst_Rollups::workersWritingAtOnce()
{
    // Three workers on threads of their own, writing at the same moments.
    std::atomic<int> failures{0};
    QStringList problems[3];
    std::thread threads[3];
    {
        auto setup = open(); // the schema, before the workers race for it
        QVERIFY(setup);
    }
    for (int w = 0; w < 3; ++w) {
        threads[w] = std::thread([&, w] {
            std::unique_ptr<Store> store = open();
            if (!store) {
                ++failures;
                problems[w].append(QStringLiteral("open failed"));
                return;
            }
            const QString why =
                runHistory(*store, QStringLiteral("t%1").arg(w), 700 + w, 60, kStart);
            if (!why.isEmpty()) {
                ++failures;
                problems[w].append(why);
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    QVERIFY2(failures == 0, qPrintable((problems[0] + problems[1] + problems[2]).join(u'\n')));
    auto store = open();
    QVERIFY(store);
    const QList<RollupRecord> written = store->rollups(0, kStart * 2);
    QVERIFY(!written.isEmpty());
    const QString diff = difference(store->recountRollups(), written);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void tst_Rollups::bucketsSumMinutes()
{
    auto store = open();
    QVERIFY(store);
    QVERIFY(runHistory(*store, QStringLiteral("w"), 5, 120, kStart).isEmpty());
    const qint64 hour = 3'600'000;
    const qint64 from = kStart / hour * hour;
    const qint64 to = kStart + 2 * hour;
    const QList<RollupRecord> minutes = store->rollups(from, to);
    const QList<RollupRecord> hours = store->rollups(from, to, hour);
    QVERIFY(!minutes.isEmpty());
    // The hourly rows are the minutes' sums, key by key.
    QMap<decltype(keyOf(RollupRecord())), RollupRecord> summed;
    for (RollupRecord r : minutes) {
        r.minuteAtMs -= r.minuteAtMs % hour;
        RollupRecord &s = summed[keyOf(r)];
        const qint64 n = s.attempts;
        const qint64 wait = s.waitMs;
        const qint64 queue = s.queueMs;
        const qint64 duration = s.durationMs;
        s = r;
        s.attempts += n;
        s.waitMs += wait;
        s.queueMs += queue;
        s.durationMs += duration;
    }
    const QString diff = difference(summed.values(), hours);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
    // Bucket order, and nothing outside the range.
    for (qsizetype i = 1; i < hours.size(); ++i)
        QVERIFY(hours.at(i - 1).minuteAtMs <= hours.at(i).minuteAtMs);
    // Minutes that start in the range, not those that merely overlap it.
    const qint64 narrowFrom = kStart + 610'000; // not on a minute
    const QList<RollupRecord> narrow = store->rollups(narrowFrom, narrowFrom + 60'000);
    QVERIFY(!narrow.isEmpty());
    for (const RollupRecord &r : narrow)
        QCOMPARE(r.minuteAtMs, (narrowFrom + 60'000) / 60'000 * 60'000);
}

void tst_Rollups::attemptSumsAddUpToTheMinutes()
{
    // Buckets of 15 s counted from the raw attempts, for the Overview's short range: four
    // of them make the minute the rollups wrote, queue times and lease conflicts included.
    auto store = open();
    QVERIFY(store);
    QVERIFY(runHistory(*store, QStringLiteral("w"), 9, 120, kStart).isEmpty());
    const qint64 bucket = 15'000;
    const auto read = [&store, bucket](qint64 from, qint64 to) {
        QList<RollupRecord> rows;
        const bool done =
            store->forEachAttemptSum(from, to, bucket, [&rows](const RollupRecord &r) {
                rows.append(r);
                return true;
            });
        return done ? rows : QList<RollupRecord>{};
    };
    const QList<RollupRecord> fine = read(0, kStart * 2);
    QVERIFY2(store->lastError().isEmpty(), qPrintable(store->lastError()));
    QVERIFY(fine.size() > 20);
    for (qsizetype i = 0; i < fine.size(); ++i) {
        QCOMPARE(fine.at(i).minuteAtMs % bucket, 0);
        if (i > 0)
            QVERIFY(fine.at(i - 1).minuteAtMs <= fine.at(i).minuteAtMs);
    }
    // Finer than the minutes: some buckets start inside one. (Whether two of them also
    // fall into one minute with the same key depends on the history drawn.)
    QVERIFY(std::any_of(fine.cbegin(), fine.cend(),
                        [](const RollupRecord &r) { return r.minuteAtMs % 60'000 != 0; }));
    QString diff =
        difference(sorted(store->rollups(0, kStart * 2)), sorted(sumPerBucket(fine, 60'000)));
    QVERIFY2(diff.isEmpty(), qPrintable(diff));

    // A range that starts inside a minute: the attempts that ended in it, as recounted.
    const qint64 from = kStart + 615'000;
    const qint64 to = from + 5 * 60'000;
    const QList<RollupRecord> range = read(from, to);
    QVERIFY(!range.isEmpty());
    for (const RollupRecord &r : range)
        QVERIFY(r.minuteAtMs >= from && r.minuteAtMs < to);
    diff = difference(sorted(store->recountRollups(from, to)), sorted(sumPerBucket(range, 60'000)));
    QVERIFY2(diff.isEmpty(), qPrintable(diff));
}

void tst_Rollups::finalFailuresSince()
{
    auto store = open();
    QVERIFY(store);
    QVERIFY(runHistory(*store, QStringLiteral("w"), 9, 80, kStart).isEmpty());
    const qint64 since = kStart + 900'000;
    qint64 expected = 0;
    for (const AttemptRecord &a : store->attempts({})) {
        const qint64 end = a.finishedAtMs >= 0 ? a.finishedAtMs : a.startedAtMs;
        if (!a.leaseConflict && a.decision == Decision::Fail && end >= since / 60'000 * 60'000)
            ++expected;
    }
    QVERIFY(expected > 0);
    QCOMPARE(store->finalFailuresSince(since), expected);
}

void tst_Rollups::migrationBuildsRollups()
{
    // A history recorded by this version, whose rollups were written with its attempts;
    // its rows, as far as the version before rollups had them, make that version's
    // database.
    QTemporaryDir other;
    const QString recordedAt = other.filePath(QStringLiteral("recorded.db"));
    QString error;
    auto live = open(recordedAt);
    QVERIFY(live);
    QVERIFY(runHistory(*live, QStringLiteral("w"), 77, 100, kStart).isEmpty());
    QVERIFY(live->countAttempts({}) > 50);
    QVERIFY2(seedOlderVersion(schema::rollupsVersion() - 1, recordedAt, &error), qPrintable(error));

    auto store = open();
    QVERIFY(store);
    QCOMPARE(store->schemaVersion().value_or(-1), Store::latestSchemaVersion());
    const QList<RollupRecord> migrated = store->rollups(0, kStart * 2);
    QVERIFY(!migrated.isEmpty());
    qint64 attempts = 0;
    for (const RollupRecord &r : migrated)
        attempts += r.attempts;
    QCOMPARE(attempts, store->countAttempts({}));

    // The migrated rows are the recount, and the hourly ones their sums.
    const QString recount = difference(store->recountRollups(), migrated);
    QVERIFY2(recount.isEmpty(), qPrintable(recount));
    const qint64 hour = 3'600'000;
    const QString hourly =
        difference(sumPerBucket(migrated, hour), store->rollups(0, kStart * 2, hour));
    QVERIFY2(hourly.isEmpty(), qPrintable(hourly));

    // The migration built the rows the recording wrote, attempt for attempt.
    QCOMPARE(attempts, live->countAttempts({}));
    const QString diff = difference(live->rollups(0, kStart * 2), migrated);
    QVERIFY2(diff.isEmpty(), qPrintable(diff));

    // Attempts recorded after the migration add to the migrated rows.
    QVERIFY(runHistory(*store, QStringLiteral("w2"), 78, 40, kStart + 3'600'000).isEmpty());
    const QString after = difference(store->recountRollups(), store->rollups(0, kStart * 2));
    QVERIFY2(after.isEmpty(), qPrintable(after));
}

void tst_Rollups::changeTokenFollowsOtherConnections()
{
    auto reader = open();
    auto writer = open();
    QVERIFY(reader && writer);
    const std::optional<QByteArray> first = reader->changeToken();
    QVERIFY2(first, qPrintable(reader->lastError()));
    QCOMPARE(reader->changeToken(), first); // nothing happened
    QVERIFY(runHistory(*writer, QStringLiteral("w"), 3, 3, kStart).isEmpty());
    const std::optional<QByteArray> second = reader->changeToken();
    QVERIFY(second);
    QVERIFY(*second != *first);
    QCOMPARE(reader->changeToken(), second);
    // An operator action changes it too.
    const QList<OperationRecord> ops = writer->operations({});
    QVERIFY(!ops.isEmpty());
    QVERIFY(writer->setEndpointPaused(ops.first().endpointId, true, kStart));
    QVERIFY(reader->changeToken() != second);
}

namespace {

QString peaksText(const std::optional<QList<Store::InFlightPeak>> &peaks, qint64 origin)
{
    if (!peaks)
        return QStringLiteral("(failed)");
    QStringList parts;
    for (const Store::InFlightPeak &p : *peaks)
        parts.append(QStringLiteral("%1:%2").arg((p.minuteAtMs - origin) / 60'000).arg(p.peak));
    return parts.join(u' ');
}

} // namespace

void tst_Rollups::inFlightPeaksAddUpWorkers()
{
    auto store = open();
    QVERIFY(store);
    const qint64 bucket = 3 * 60'000;
    const qint64 m0 = kStart - kStart % bucket; // a bucket of three minutes starts here
    const auto at = [m0](int minute, int peak) {
        return Store::InFlightPeak{m0 + minute * 60'000, peak};
    };
    const QString w1 = QStringLiteral("w1");
    const QString w2 = QStringLiteral("w2");
    QVERIFY(commitWithPeaks(*store, w1, m0, {at(0, 3), at(1, 2)}));
    QVERIFY(commitWithPeaks(*store, w2, m0, {at(0, 4), at(2, 1)}));
    // A later commit keeps the higher peak of a minute, whichever came first; a time
    // inside a minute counts for that minute; nothing in flight writes nothing.
    QVERIFY(commitWithPeaks(*store, w1, m0, {at(0, 2), {m0 + 60'000 + 59'999, 6}, at(4, 0)}));

    // Per minute, the workers' peaks add up.
    QCOMPARE(peaksText(store->inFlightPeaks(m0, m0 + 10 * 60'000), m0),
             QStringLiteral("0:7 1:6 2:1"));
    // A range takes the minutes that start in it.
    QCOMPARE(peaksText(store->inFlightPeaks(m0 + 1, m0 + 2 * 60'000), m0), QStringLiteral("1:6"));
    // A bucket of three minutes shows its highest minute, not a sum over time.
    QCOMPARE(peaksText(store->inFlightPeaks(m0, m0 + 10 * 60'000, bucket), m0),
             QStringLiteral("0:7"));
    QCOMPARE(peaksText(store->inFlightPeaks(m0 + bucket, m0 + 10 * 60'000, bucket), m0), QString());

    // Retention: the rollups' period takes the peaks of the same minutes.
    const PruneBatch pruned = store->pruneRollups(m0 + 60'000, 3'600'000);
    QVERIFY2(pruned.rows >= 0, qPrintable(store->lastError()));
    QCOMPARE(peaksText(store->inFlightPeaks(m0, m0 + 10 * 60'000), m0), QStringLiteral("1:6 2:1"));
}

void tst_Rollups::inFlightPeaksFromTheirVersionOn()
{
    const qint64 m0 = kStart - kStart % 60'000;
    // The version before kept no peaks: its attempts are there, their peaks not.
    QTemporaryDir other;
    const QString recordedAt = other.filePath(QStringLiteral("recorded.db"));
    QString error;
    {
        auto recorded = open(recordedAt);
        QVERIFY(recorded);
        QVERIFY(commitWithPeaks(*recorded, QStringLiteral("w"), m0, {{m0, 5}}));
        QCOMPARE(peaksText(recorded->inFlightPeaks(0, kStart * 2), m0), QStringLiteral("0:5"));
    }
    QVERIFY2(seedOlderVersion(schema::inFlightPeaksVersion() - 1, recordedAt, &error),
             qPrintable(error));
    // Migrated, it has none of the time before and keeps them from then on.
    auto store = open();
    QVERIFY(store);
    QCOMPARE(store->schemaVersion().value_or(-1), Store::latestSchemaVersion());
    QCOMPARE(peaksText(store->inFlightPeaks(0, kStart * 2), m0), QString());
    QCOMPARE(store->countAttempts({}), qint64(1));
    QVERIFY(commitWithPeaks(*store, QStringLiteral("w"), m0 + 60'000, {{m0 + 60'000, 4}}));
    QCOMPARE(peaksText(store->inFlightPeaks(0, kStart * 2), m0), QStringLiteral("1:4"));
}

QTEST_GUILESS_MAIN(tst_Rollups)
#include "tst_rollups.moc"
