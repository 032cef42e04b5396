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

QTEST_MAIN(tst_LiveReader)
#include "tst_livereader.moc"
