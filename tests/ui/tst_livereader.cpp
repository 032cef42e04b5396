#include "UiTestSupport.h"
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
    const auto record = [this](qint64 at, int status, const char *decision) {
        return test::recordAttempt(*m_store, QStringLiteral("search"), at, status,
                                   QString::fromLatin1(decision)) > 0;
    };
    QVERIFY(record(kWindowFrom - 5 * kMinute, 429, "retry"));    // before
    QVERIFY(record(kWindowFrom + 1 * kMinute, 429, "retry"));    // inside
    QVERIFY(record(kWindowFrom + 30 * kMinute, 429, "retry"));   // inside
    QVERIFY(record(kWindowFrom + 90 * kMinute, 200, "success")); // inside
    QVERIFY(record(kWindowTo + 1 * kMinute, 429, "retry"));      // after
    QVERIFY(record(kNow - 5 * kMinute, 200, "success"));         // now
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
    QVERIFY(!lastSnapshot(snapshots).loadingHistory);

    // The window is read once: it does not follow the clock or new rows.
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kWindowFrom + 60 * kMinute, 429,
                                QStringLiteral("retry")) > 0);
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
    QCOMPARE(m_store->claimDue(QStringLiteral("w"), kNow, 60000, 8).size(), 1); // b-1
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
    const QStringList sources{QString(), QStringLiteral("retry-after"), QStringLiteral("ratelimit"),
                              QStringLiteral("backoff")};
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
            m_store->claimDue(QStringLiteral("w"), at, kMinute, 1);
        QCOMPARE(claimed.size(), 1);
        QCOMPARE(claimed.first().id, *id);
        AttemptRecord a = test::nextAttempt(claimed.first(), at, at + random.uniformInt(0, 90'000));
        a.durationMs = a.finishedAtMs - at;
        a.status = int(QList<int>{200, 429, 503, 500, 404, 0}.at(random.uniformInt(0, 5)));
        a.decision = QStringList{QStringLiteral("success"), QStringLiteral("retry"),
                                 QStringLiteral("fail"), QStringLiteral("park")}
                         .at(random.uniformInt(0, 3));
        a.policyId = partitioned ? QStringLiteral("p") : QString();
        OperationRecord op = claimed.first();
        op.attempt = 1;
        op.state = OperationState::Succeeded;
        if (a.decision == QLatin1String("retry")) {
            a.waitMs = random.uniformInt(0, 60'000);
            a.waitSource = sources.at(random.uniformInt(0, 3));
            op.state = OperationState::Waiting;
            op.nextAttemptAtMs = kNow + kDay; // not claimed again here
        } else if (a.decision == QLatin1String("fail")) {
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
    reader.setRange(15 * kMinute, kMinute);
    QCOMPARE(snapshots.size(), 1);
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 1);

    // Nothing changed, same minute: nothing is sent.
    clock.advance(1000);
    reader.tick();
    reader.tick();
    QCOMPARE(snapshots.size(), 1);

    // Another connection records an attempt: the next tick sends it.
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kNow + 6000, 429,
                                QStringLiteral("retry")) > 0);
    reader.tick();
    QCOMPARE(snapshots.size(), 2);
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 2);
    QCOMPARE(sum(lastSnapshot(snapshots).metrics.tooManyRequests), 1);
    reader.tick();
    QCOMPARE(snapshots.size(), 2);

    // A new minute moves the range: sent again, without a change in the store.
    clock.advance(kMinute);
    reader.tick();
    QCOMPARE(snapshots.size(), 3);
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 2);
    // Fifteen minutes on, the attempts have left the range.
    clock.advance(15 * kMinute);
    reader.tick();
    QCOMPARE(lastSnapshot(snapshots).metrics.attempts, 0);
}

QTEST_MAIN(tst_LiveReader)
#include "tst_livereader.moc"
