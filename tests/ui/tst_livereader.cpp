// SPDX-License-Identifier: Apache-2.0
#include "UiTestSupport.h"
#include "core/query/ChangePoller.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "ui/LiveReader.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <numeric>

using namespace cooldown;

namespace {

constexpr qint64 kMinute = 60000;
constexpr qint64 kDay = 24 * 60 * kMinute;
constexpr qint64 kNow = 1795953600000; // 2026-11-29T12:00:00Z
// Older than the week the live figures keep.
constexpr qint64 kWindowFrom = kNow - 10 * kDay;
constexpr qint64 kWindowTo = kWindowFrom + 2 * 60 * kMinute;

qint64 sum(const QList<qint64> &values)
{
    return std::accumulate(values.cbegin(), values.cend(), qint64(0));
}

} // namespace

class tst_LiveReader : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void fixedWindowReadsThatWindow();
    void rangeFollowsTheClockAgain();
    void snapshotCarriesPartitions();
    void figuresEqualTheAttempts_data();
    void figuresEqualTheAttempts();
    void idleTickReadsNothingNew();
    void shortRangeCountsEvery15Seconds();
    void inFlightPeaksComeFromTheStore();

private:
    LiveSnapshot lastSnapshot(const QSignalSpy &spy) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Store> m_store;
    QString m_url;
};

void tst_LiveReader::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_url = m_dir->filePath("live.db");
    QString error;
    m_store = Store::open(m_url, &error);
    QVERIFY2(m_store, qPrintable(error));
    const auto record = [this](qint64 at, int status, Decision decision) {
        return test::recordAttempt(*m_store, QStringLiteral("search"), at, status, decision) > 0;
    };
    QVERIFY(record(kWindowFrom - 5 * kMinute, 429, Decision::Retry));    // before
    QVERIFY(record(kWindowFrom + 1 * kMinute, 429, Decision::Retry));    // inside
    QVERIFY(record(kWindowFrom + 30 * kMinute, 429, Decision::Retry));   // inside
    QVERIFY(record(kWindowFrom + 90 * kMinute, 200, Decision::Success)); // inside
    QVERIFY(record(kWindowTo + 1 * kMinute, 429, Decision::Retry));      // after
    QVERIFY(record(kNow - 5 * kMinute, 200, Decision::Success));         // now
}

LiveSnapshot tst_LiveReader::lastSnapshot(const QSignalSpy &spy) const
{
    return spy.isEmpty() ? LiveSnapshot() : spy.last().first().value<LiveSnapshot>();
}

void tst_LiveReader::fixedWindowReadsThatWindow()
{
    ManualClock clock(kNow);
    LiveReader reader(m_url, clock, {}, {QStringLiteral("search")});
    QSignalSpy snapshots(&reader, &LiveReader::snapshotReady);
    reader.setWindow(kWindowFrom, kWindowTo, kMinute);
    QCOMPARE(snapshots.size(), 1);
    MetricsSnapshot m = lastSnapshot(snapshots).metrics;
    QCOMPARE(m.fromMs, kWindowFrom);
    QCOMPARE(m.toMs, kWindowTo);
    QCOMPARE(m.bucketMs, kMinute);
    QCOMPARE(m.bucketCount, 120);
    QCOMPARE(m.attempts, 3);
    QCOMPARE(m.successes, 1);
    QCOMPARE(sum(m.tooManyRequests), 2);
    QCOMPARE(m.tooManyRequests.at(1), 1);
    QCOMPARE(m.tooManyRequests.at(30), 1);

    // The window is read once: it does not follow the clock or new rows.
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kWindowFrom + 60 * kMinute, 429,
                                Decision::Retry) > 0);
    clock.advance(10 * kMinute);
    reader.poll();
    m = lastSnapshot(snapshots).metrics;
    QCOMPARE(m.fromMs, kWindowFrom);
    QCOMPARE(m.toMs, kWindowTo);
    QCOMPARE(m.attempts, 3);

    // Another window reads again; coarser buckets start on a bucket boundary.
    reader.setWindow(kWindowFrom + 7 * kMinute, kWindowTo, 10 * kMinute);
    m = lastSnapshot(snapshots).metrics;
    QCOMPARE(m.fromMs, kWindowFrom);
    QCOMPARE(m.bucketMs, 10 * kMinute);
    QCOMPARE(m.bucketCount, 12);
    QCOMPARE(m.attempts, 4);
    QCOMPARE(sum(m.tooManyRequests), 3);
}

void tst_LiveReader::rangeFollowsTheClockAgain()
{
    ManualClock clock(kNow);
    LiveReader reader(m_url, clock, {}, {QStringLiteral("search")});
    QSignalSpy snapshots(&reader, &LiveReader::snapshotReady);
    reader.setWindow(kWindowFrom, kWindowTo, kMinute);
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 3);
    reader.setRange(15 * kMinute, kMinute);
    const MetricsSnapshot m = lastSnapshot(snapshots).metrics;
    QCOMPARE(m.toMs, kNow + 1);
    QCOMPARE(m.attempts, 1);
    QCOMPARE(m.successes, 1);
}

void tst_LiveReader::snapshotCarriesPartitions()
{
    // Two partitions of one policy, as workers create them: "a" held by a server with
    // work queued behind the hold, "b" with its only token spent and one operation due.
    const QString policy = QStringLiteral("read-v1");
    const QString definition = QStringLiteral("{\"limit\":1,\"window_seconds\":60}");
    for (const QString &key : {QStringLiteral("a"), QStringLiteral("b")})
        QCOMPARE(m_store->ensurePartition(policy, key, 1, definition, Gcra::forLimit(1, 60000, 0)),
                 Store::PaceResult::Written);
    QVERIFY(m_store->createOperation(QStringLiteral("search"), QStringLiteral("a-1"), kNow, policy,
                                     QStringLiteral("a")));
    QVERIFY(m_store->createOperation(QStringLiteral("search"), QStringLiteral("b-1"), kNow, policy,
                                     QStringLiteral("b")));
    QVERIFY(m_store->createOperation(QStringLiteral("search"), QStringLiteral("b-2"), kNow, policy,
                                     QStringLiteral("b")));
    QVERIFY(m_store->snoozePartition(policy, QStringLiteral("a"), kNow + 30000,
                                     QStringLiteral("429 retry-after 30 s")) >= 0);
    QCOMPARE(m_store->claims().claimDue(QStringLiteral("w"), kNow, 60000, 8).size(), 1); // b-1
    // Another worker configures version 1 otherwise.
    QCOMPARE(m_store->ensurePartition(policy, QStringLiteral("b"), 1,
                                      QStringLiteral("{\"limit\":5,\"window_seconds\":60}"),
                                      Gcra::forLimit(5, 60000, 0)),
             Store::PaceResult::Conflict);

    ManualClock clock(kNow + 1000);
    LiveReader reader(m_url, clock, {}, {QStringLiteral("search")});
    QSignalSpy snapshots(&reader, &LiveReader::snapshotReady);
    reader.poll();
    QCOMPARE(snapshots.size(), 1);
    const QList<PartitionState> partitions = lastSnapshot(snapshots).partitions;
    QCOMPARE(partitions.size(), 2);
    const PartitionState &a = partitions.at(0);
    QCOMPARE(a.partitionKey, QStringLiteral("a"));
    QCOMPARE(a.heldUntilMs, kNow + 30000);
    QCOMPARE(a.holdReason, QStringLiteral("429 retry-after 30 s"));
    QCOMPARE(a.pending, 1);
    QCOMPARE(a.due, 0); // moved behind the hold
    QVERIFY(a.conflict.isEmpty());
    const PartitionState &b = partitions.at(1);
    QCOMPARE(b.partitionKey, QStringLiteral("b"));
    QCOMPARE(b.availableUnits, 0);
    QCOMPARE(b.nextTokenAtMs, kNow + 60000);
    QCOMPARE(b.pending, 1);
    QCOMPARE(b.due, 1);
    QCOMPARE(b.definition, definition);
    QVERIFY(b.conflict.contains(QStringLiteral("\"limit\":5")));

    // The next poll reads them again, at the clock's time.
    clock.advance(60000);
    reader.poll();
    QCOMPARE(lastSnapshot(snapshots).partitions.at(1).availableUnits, 1);
}

void tst_LiveReader::figuresEqualTheAttempts_data()
{
    QTest::addColumn<qint64>("rangeMs");
    QTest::addColumn<qint64>("bucketMs");
    QTest::addColumn<bool>("fixed");
    QTest::newRow("15 min") << 15 * kMinute << kMinute << false;
    QTest::newRow("24 h") << kDay << 5 * kMinute << false;
    QTest::newRow("7 d") << 7 * kDay << 60 * kMinute << false;
    QTest::newRow("custom 12 days ago") << 3 * kDay << 15 * kMinute << true;
}

void tst_LiveReader::figuresEqualTheAttempts()
{
    QFETCH(qint64, rangeMs);
    QFETCH(qint64, bucketMs);
    QFETCH(bool, fixed);
    // A seeded history over the last two weeks: every status, decision, wait source and
    // failure reason, on two endpoints, one of them with a policy and partitions.
    SeededRandom random(18);
    const QStringList reasons{QString(), QStringLiteral("not_retryable"),
                              QStringLiteral("deadline_unreachable")};
    const QList<WaitSource> sources{WaitSource::None, WaitSource::RetryAfter, WaitSource::RateLimit,
                                    WaitSource::Backoff};
    for (int k = 0; k < 3; ++k)
        QCOMPARE(m_store->ensurePartition(QStringLiteral("p"), QStringLiteral("k%1").arg(k), 1,
                                          QStringLiteral("{}"),
                                          Gcra::forLimit(1000000, 1000, 1000000)),
                 Store::PaceResult::Written);
    // In time order, as a worker records them (the partitions' buckets follow the clock).
    QList<qint64> times;
    for (int i = 0; i < 600; ++i)
        times.append(kNow - random.uniformInt(0, 14 * kDay));
    std::sort(times.begin(), times.end());
    for (int i = 0; i < 600; ++i) {
        const bool partitioned = random.uniformInt(0, 1) == 1;
        const QString endpoint = partitioned ? QStringLiteral("orders") : QStringLiteral("search");
        const qint64 at = times.at(i);
        const QString key =
            partitioned ? QStringLiteral("k%1").arg(random.uniformInt(0, 2)) : QString();
        const auto id = m_store->createOperation(
            endpoint, QString::number(i), at, partitioned ? QStringLiteral("p") : QString(), key);
        QVERIFY(id);
        const QList<OperationRecord> claimed =
            m_store->claims().claimDue(QStringLiteral("w"), at, kMinute, 1);
        QCOMPARE(claimed.size(), 1);
        QCOMPARE(claimed.first().id, *id);
        AttemptRecord a = test::nextAttempt(claimed.first(), at, at + random.uniformInt(0, 90'000));
        a.durationMs = a.finishedAtMs - at;
        a.status = int(QList<int>{200, 429, 503, 500, 404, 0}.at(random.uniformInt(0, 5)));
        a.decision =
            QList<Decision>{Decision::Success, Decision::Retry, Decision::Fail, Decision::Park}.at(
                random.uniformInt(0, 3));
        a.policyId = partitioned ? QStringLiteral("p") : QString();
        OperationRecord op = claimed.first();
        op.attempt = 1;
        op.state = OperationState::Succeeded;
        if (a.decision == Decision::Retry) {
            a.waitMs = random.uniformInt(0, 60'000);
            a.waitSource = sources.at(random.uniformInt(0, 3));
            op.state = OperationState::Waiting;
            op.nextAttemptAtMs = kNow + kDay; // not claimed again here
        } else if (a.decision == Decision::Fail) {
            a.reason = reasons.at(random.uniformInt(0, 2));
            op.state = OperationState::Failed;
        }
        QCOMPARE(test::finishAttempt(*m_store, a, op, QStringLiteral("w")),
                 Store::FinishResult::Committed);
    }

    ManualClock clock(kNow);
    const QHash<QString, QString> partitionOf{
        {QStringLiteral("orders"), QStringLiteral("p / shop")}};
    LiveReader reader(m_url, clock, partitionOf,
                      {QStringLiteral("search"), QStringLiteral("orders")});
    QSignalSpy snapshots(&reader, &LiveReader::snapshotReady);
    const qint64 windowFrom = kNow - 12 * kDay + 7 * kMinute;
    if (fixed)
        reader.setWindow(windowFrom, windowFrom + rangeMs, bucketMs);
    else
        reader.setRange(rangeMs, bucketMs);
    const MetricsSnapshot shown = lastSnapshot(snapshots).metrics;

    // The same figures from every raw attempt, one at a time, as the live metrics count.
    Metrics raw(clock, 30 * kDay);
    for (auto it = partitionOf.cbegin(); it != partitionOf.cend(); ++it)
        raw.setPartitionOf(it.key(), it.value());
    for (const AttemptRecord &a : m_store->attempts({}))
        raw.record(a);
    const MetricsSnapshot expected = fixed
                                         ? raw.snapshot(windowFrom, windowFrom + rangeMs, bucketMs)
                                         : raw.snapshot(kNow - rangeMs, kNow + 1, bucketMs);
    QCOMPARE(shown.fromMs, expected.fromMs);
    QCOMPARE(shown.bucketCount, expected.bucketCount);
    QVERIFY(expected.attempts > 0);
    QCOMPARE(shown.attempts, expected.attempts);
    QCOMPARE(shown.successes, expected.successes);
    QCOMPARE(shown.tooManyRequests, expected.tooManyRequests);
    QCOMPARE(shown.unavailable, expected.unavailable);
    QCOMPARE(shown.tooManyRequestsByPartition, expected.tooManyRequestsByPartition);
    QCOMPARE(shown.unavailableByPartition, expected.unavailableByPartition);
    QCOMPARE(shown.tooManyRequestsByEndpoint, expected.tooManyRequestsByEndpoint);
    QCOMPARE(shown.unavailableByEndpoint, expected.unavailableByEndpoint);
    QCOMPARE(shown.waitMsBySource, expected.waitMsBySource);
    QCOMPARE(shown.waitMsTotal, expected.waitMsTotal);
    QCOMPARE(shown.finalFailuresByReason, expected.finalFailuresByReason);
}

void tst_LiveReader::idleTickReadsNothingNew()
{
    ManualClock clock(kNow + 5000);
    LiveReader reader(m_url, clock, {}, {QStringLiteral("search")});
    QSignalSpy snapshots(&reader, &LiveReader::snapshotReady);
    // The window's one poller, polled by hand: each poll is one tick.
    ChangePoller changes(m_url);
    connect(&changes, &ChangePoller::polled, &reader, &LiveReader::tick);
    reader.setRange(15 * kMinute, kMinute);
    QCOMPARE(snapshots.size(), 1);
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 1);
    // The first token the reader hears is news to it (its own reads took none): it reads
    // once more.
    changes.poll();
    QCOMPARE(snapshots.size(), 2);

    // Nothing changed, same minute: nothing is sent.
    clock.advance(1000);
    changes.poll();
    changes.poll();
    QCOMPARE(snapshots.size(), 2);

    // Another connection records an attempt: the next tick sends it.
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kNow + 6000, 429,
                                Decision::Retry) > 0);
    const quint64 changesBefore = lastSnapshot(snapshots).storeChanges;
    changes.poll();
    QCOMPARE(snapshots.size(), 3);
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 2);
    QCOMPARE(sum(lastSnapshot(snapshots).metrics.tooManyRequests), 1);
    // The Jobs view reads its rows again when this count grows.
    QCOMPARE(lastSnapshot(snapshots).storeChanges, changesBefore + 1);
    changes.poll();
    QCOMPARE(snapshots.size(), 3);

    // A new minute moves the range: sent again, without a change in the store.
    clock.advance(kMinute);
    changes.poll();
    QCOMPARE(snapshots.size(), 4);
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 2);
    QCOMPARE(lastSnapshot(snapshots).storeChanges, changesBefore + 1);
    // Fifteen minutes on, the attempts have left the range.
    clock.advance(15 * kMinute);
    changes.poll();
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 0);
}

void tst_LiveReader::shortRangeCountsEvery15Seconds()
{
    // A seeded history of the last 20 minutes, ending 40 s into a minute: every status,
    // decision and wait source, on two endpoints, one with partitions, and retries that
    // started after they were due (queue time).
    const qint64 bucket = 15000;
    const qint64 now = kNow + 40000;
    SeededRandom random(29);
    const QList<WaitSource> sources{WaitSource::None, WaitSource::RetryAfter, WaitSource::RateLimit,
                                    WaitSource::Backoff};
    for (int k = 0; k < 3; ++k)
        QCOMPARE(m_store->ensurePartition(QStringLiteral("p"), QStringLiteral("k%1").arg(k), 1,
                                          QStringLiteral("{}"),
                                          Gcra::forLimit(1000000, 1000, 1000000)),
                 Store::PaceResult::Written);
    QList<qint64> times;
    for (int i = 0; i < 400; ++i)
        times.append(now - random.uniformInt(1000, 20 * kMinute));
    std::sort(times.begin(), times.end());
    for (int i = 0; i < times.size(); ++i) {
        const bool partitioned = random.uniformInt(0, 1) == 1;
        const QString endpoint = partitioned ? QStringLiteral("orders") : QStringLiteral("search");
        const qint64 at = times.at(i);
        const QString key =
            partitioned ? QStringLiteral("k%1").arg(random.uniformInt(0, 2)) : QString();
        const auto id =
            m_store->createOperation(endpoint, QStringLiteral("s%1").arg(i), at,
                                     partitioned ? QStringLiteral("p") : QString(), key);
        QVERIFY(id);
        QList<OperationRecord> claimed =
            m_store->claims().claimDue(QStringLiteral("w"), at, kMinute, 1);
        QCOMPARE(claimed.size(), 1);
        AttemptRecord a;
        a.operationId = *id;
        a.endpointId = endpoint;
        a.policyId = partitioned ? QStringLiteral("p") : QString();
        a.attempt = 1;
        a.startedAtMs = at;
        a.finishedAtMs = std::min(now, at + random.uniformInt(0, 20'000));
        a.durationMs = a.finishedAtMs - at;
        a.status = int(QList<int>{200, 429, 429, 503, 500, 0}.at(random.uniformInt(0, 5)));
        a.decision =
            QList<Decision>{Decision::Success, Decision::Retry, Decision::Fail, Decision::Park}.at(
                random.uniformInt(0, 3));
        OperationRecord op = claimed.first();
        op.attempt = 1;
        op.state = OperationState::Succeeded;
        // An unpartitioned retry is sent again, after it was due: queue time, counted in
        // the bucket its second attempt ends in.
        bool sendAgain = false;
        qint64 again = -1;
        if (a.decision == Decision::Retry) {
            a.waitMs = random.uniformInt(0, 30'000);
            a.waitSource = sources.at(random.uniformInt(0, 3));
            again = a.finishedAtMs + a.waitMs + random.uniformInt(0, 10'000);
            sendAgain = !partitioned && again + 500 <= now;
            op.state = OperationState::Waiting;
            op.nextAttemptAtMs = sendAgain ? a.finishedAtMs + a.waitMs : kNow + kDay;
        } else if (a.decision == Decision::Fail) {
            a.reason = QStringLiteral("not_retryable");
            op.state = OperationState::Failed;
        }
        QCOMPARE(m_store->finishAttempt(a, op, op.version, QStringLiteral("w")),
                 Store::FinishResult::Committed);
        if (!sendAgain)
            continue;
        claimed = m_store->claims().claimDue(QStringLiteral("w"), again, kMinute, 1);
        QCOMPARE(claimed.size(), 1);
        QCOMPARE(claimed.first().id, *id);
        AttemptRecord second = a;
        second.attempt = 2;
        second.startedAtMs = again;
        second.finishedAtMs = again + 500;
        second.durationMs = 500;
        second.status = 200;
        second.decision = Decision::Success;
        second.waitMs = -1;
        second.waitSource = WaitSource::None;
        op = claimed.first();
        op.attempt = 2;
        op.state = OperationState::Succeeded;
        op.nextAttemptAtMs = -1;
        QCOMPARE(m_store->finishAttempt(second, op, op.version, QStringLiteral("w")),
                 Store::FinishResult::Committed);
    }

    ManualClock clock(now);
    const QHash<QString, QString> partitionOf{
        {QStringLiteral("orders"), QStringLiteral("p / shop")}};
    LiveReader reader(m_url, clock, partitionOf,
                      {QStringLiteral("search"), QStringLiteral("orders")});
    QSignalSpy snapshots(&reader, &LiveReader::snapshotReady);
    // The window's one poller, polled by hand: each poll is one tick.
    ChangePoller changes(m_url);
    connect(&changes, &ChangePoller::polled, &reader, &LiveReader::tick);
    reader.setRange(15 * kMinute, bucket);
    const MetricsSnapshot shown = lastSnapshot(snapshots).metrics;
    QCOMPARE(shown.bucketMs, bucket);
    QCOMPARE(shown.fromMs, (now - 15 * kMinute) / bucket * bucket);
    QCOMPARE(shown.toMs, now + 1);
    QCOMPARE(shown.bucketCount, 61);

    // The same figures recounted from each attempt, in the bucket it ended in; the
    // queue time from its operation's previous attempt, as the rollups count it.
    MetricsSnapshot expected;
    expected.bucketCount = shown.bucketCount;
    expected.tooManyRequests = QList<qint64>(expected.bucketCount, 0);
    expected.unavailable = QList<qint64>(expected.bucketCount, 0);
    const auto addAt = [&expected](QMap<QString, QList<qint64>> &series, const QString &key, int b,
                                   qint64 n) {
        QList<qint64> &list = series[key];
        if (list.isEmpty())
            list.resize(expected.bucketCount, 0);
        list[b] += n;
    };
    QHash<qint64, qint64> dueOf;
    for (const AttemptRecord &a : m_store->attempts({})) {
        const qint64 due = dueOf.value(a.operationId, -1);
        dueOf.insert(a.operationId, a.decision == Decision::Retry && a.waitMs >= 0
                                        ? a.finishedAtMs + a.waitMs
                                        : -1);
        if (a.finishedAtMs < shown.fromMs || a.finishedAtMs > now)
            continue;
        const int b = int((a.finishedAtMs - shown.fromMs) / bucket);
        const QString partition =
            partitionOf.value(a.endpointId, a.policyId.isEmpty() ? a.endpointId : a.policyId);
        ++expected.attempts;
        if (a.status == 429) {
            ++expected.tooManyRequests[b];
            addAt(expected.tooManyRequestsByPartition, partition, b, 1);
            addAt(expected.tooManyRequestsByEndpoint, a.endpointId, b, 1);
        } else if (a.status == 503) {
            ++expected.unavailable[b];
            addAt(expected.unavailableByPartition, partition, b, 1);
            addAt(expected.unavailableByEndpoint, a.endpointId, b, 1);
        }
        if (a.decision == Decision::Retry && a.waitMs > 0)
            addAt(expected.waitMsBySource, QLatin1String(textOf(a.waitSource)), b, a.waitMs);
        if (due >= 0 && a.startedAtMs > due)
            addAt(expected.waitMsBySource, QStringLiteral("queue"), b, a.startedAtMs - due);
        if (a.decision == Decision::Success)
            ++expected.successes;
        else if (a.decision == Decision::Fail)
            ++expected.finalFailuresByReason[a.reason];
    }
    QVERIFY(expected.attempts > 100);
    QVERIFY(expected.waitMsBySource.contains(QStringLiteral("queue")));
    QCOMPARE(shown.attempts, expected.attempts);
    QCOMPARE(shown.successes, expected.successes);
    QCOMPARE(shown.tooManyRequests, expected.tooManyRequests);
    QCOMPARE(shown.unavailable, expected.unavailable);
    QCOMPARE(shown.tooManyRequestsByPartition, expected.tooManyRequestsByPartition);
    QCOMPARE(shown.unavailableByPartition, expected.unavailableByPartition);
    QCOMPARE(shown.tooManyRequestsByEndpoint, expected.tooManyRequestsByEndpoint);
    QCOMPARE(shown.unavailableByEndpoint, expected.unavailableByEndpoint);
    QCOMPARE(shown.waitMsBySource, expected.waitMsBySource);
    QCOMPARE(shown.finalFailuresByReason, expected.finalFailuresByReason);

    // Four buckets make a minute of the rollups, which the store wrote with the attempts.
    const qint64 firstMinute = (shown.fromMs + kMinute - 1) / kMinute * kMinute;
    Metrics rollups(clock, 30 * kDay);
    for (auto it = partitionOf.cbegin(); it != partitionOf.cend(); ++it)
        rollups.setPartitionOf(it.key(), it.value());
    for (const RollupRecord &row : m_store->rollups(firstMinute, now + 1))
        rollups.add(row);
    const MetricsSnapshot perMinute = rollups.snapshot(firstMinute, now + 1);
    const int skipped = int((firstMinute - shown.fromMs) / bucket);
    for (int minute = 0; minute < perMinute.bucketCount; ++minute) {
        qint64 tooMany = 0;
        qint64 queue = 0;
        for (int b = skipped + 4 * minute; b < skipped + 4 * minute + 4 && b < shown.bucketCount;
             ++b) {
            tooMany += shown.tooManyRequests.at(b);
            queue += shown.waitMsBySource.value(QStringLiteral("queue")).value(b);
        }
        QCOMPARE(tooMany, perMinute.tooManyRequests.at(minute));
        QCOMPARE(queue, perMinute.waitMsBySource.value(QStringLiteral("queue")).value(minute));
    }

    // Another attempt, 3 s later: the next tick has it in the newest bucket.
    clock.advance(3000);
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), now + 2000, 429,
                                Decision::Retry) > 0);
    changes.poll();
    MetricsSnapshot later = lastSnapshot(snapshots).metrics;
    QCOMPARE(later.fromMs, shown.fromMs);
    QCOMPARE(later.tooManyRequests.last(), shown.tooManyRequests.last() + 1);
    // Idle, the window moves on with every new bucket, by one bucket.
    const qsizetype sent = snapshots.size();
    clock.advance(1000);
    changes.poll();
    QCOMPARE(snapshots.size(), sent);
    clock.advance(bucket);
    changes.poll();
    QCOMPARE(snapshots.size(), sent + 1);
    later = lastSnapshot(snapshots).metrics;
    QCOMPARE(later.fromMs, shown.fromMs + bucket);
    QCOMPARE(later.bucketCount, 61);
    QCOMPARE(later.tooManyRequests.at(later.bucketCount - 2), shown.tooManyRequests.last() + 1);
}

void tst_LiveReader::inFlightPeaksComeFromTheStore()
{
    // Two workers stored their peaks of a minute ten minutes ago; this reader sampled
    // nothing (a window opened after a restart).
    const qint64 minute = kNow - 10 * kMinute;
    int made = 0;
    for (const auto &[worker, peak] : {std::pair{"w1", 5}, std::pair{"w2", 3}}) {
        const QString id = QLatin1String(worker);
        const auto claimed = test::claimNew(*m_store, QStringLiteral("search"),
                                            QStringLiteral("peak-%1").arg(++made), minute, id);
        QVERIFY(claimed);
        AttemptRecord a = test::nextAttempt(*claimed, minute + 1000, minute + 1040);
        a.status = 200;
        a.decision = Decision::Success;
        a.workerId = id;
        const OperationRecord next = test::leftIn(*claimed, a, OperationState::Succeeded);
        const auto outcomes = m_store->finishAttempts(
            {Store::FinishRequest(a, next, claimed->version)}, id, {{minute + 1000, peak}});
        QCOMPARE(outcomes.value(0).result, Store::FinishResult::Committed);
    }
    ManualClock clock(kNow + 30000);
    LiveReader reader(m_url, clock, {}, {QStringLiteral("search")});
    QSignalSpy snapshots(&reader, &LiveReader::snapshotReady);

    // The last hour in minutes: that minute shows the fleet's peak, the workers' sum.
    reader.setRange(60 * kMinute, kMinute);
    MetricsSnapshot m = lastSnapshot(snapshots).metrics;
    const auto at = [&m](qint64 ms) {
        return m.peakInFlight.value(int((ms - m.fromMs) / m.bucketMs), -1);
    };
    QCOMPARE(at(minute), 8);
    QCOMPARE(*std::max_element(m.peakInFlight.cbegin(), m.peakInFlight.cend()), 8);

    // The last 15 minutes in steps of 15 s: each step of that minute shows its peak.
    reader.setRange(15 * kMinute, 15000);
    m = lastSnapshot(snapshots).metrics;
    QCOMPARE(m.bucketMs, qint64(15000));
    for (int i = 0; i < 4; ++i)
        QCOMPARE(at(minute + i * 15000), 8);
    QCOMPARE(at(minute - 15000), 0);
    QCOMPARE(at(minute + kMinute), 0);

    // What the window samples live counts too, where it is higher.
    reader.noteInFlight(11, 20);
    reader.poll();
    m = lastSnapshot(snapshots).metrics;
    QCOMPARE(at(clock.nowMs()), 11);
    QCOMPARE(at(minute), 8);
    QCOMPARE(m.maxInFlight, 20);
}

QTEST_MAIN(tst_LiveReader)
#include "tst_livereader.moc"
