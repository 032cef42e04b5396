#include "UiTestSupport.h"
#include "core/time/Clock.h"
#include "ui/LiveReader.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

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

QTEST_MAIN(tst_LiveReader)
#include "tst_livereader.moc"
