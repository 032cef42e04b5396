// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/Gcra.h"

#include "support/MaxInWindow.h"

#include <QTest>

#include <algorithm>

using namespace cooldown;
using cooldown::test::maxInWindow;

class tst_Gcra : public QObject
{
    Q_OBJECT

private slots:
    void intervalFromPolicy_data();
    void intervalFromPolicy();
    void startsFullWithBurst_data();
    void startsFullWithBurst();
    void availableAtIsTheFirstMicrosecond_data();
    void availableAtIsTheFirstMicrosecond();
    void availableAtMsRoundsUp();
    void neverMoreThanLimitPlusBurstInAWindow_data();
    void neverMoreThanLimitPlusBurstInAWindow();
    void idleTimeRefillsOnlyToCapacity();
    void costAboveCapacityWaitsForAFullBucketAndLeavesDebt();
    void forcedTakeGoesIntoDebt();
    void unlimited();
};

void tst_Gcra::intervalFromPolicy_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<qint64>("burst");
    QTest::addColumn<qint64>("intervalUs");
    QTest::addColumn<qint64>("capacity");
    QTest::newRow("10 per 5 s, burst 2") << 10LL << 5000LL << 2LL << 500000LL << 2LL;
    QTest::newRow("3 per s rounds up") << 3LL << 1000LL << 0LL << 333334LL << 1LL;
    QTest::newRow("burst 0 is one at once") << 120LL << 60000LL << 0LL << 500000LL << 1LL;
    QTest::newRow("faster than 1 per µs") << 10'000'000LL << 1000LL << 5LL << 1LL << 5LL;
}

void tst_Gcra::intervalFromPolicy()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, windowMs);
    QFETCH(qint64, burst);
    QFETCH(qint64, intervalUs);
    QFETCH(qint64, capacity);
    RateLimitPolicy p;
    p.limit = limit;
    p.windowMs = windowMs;
    p.burst = burst;
    const Gcra g = Gcra::forPolicy(p);
    QCOMPARE(g.intervalUs, intervalUs);
    QCOMPARE(g.capacity, capacity);
    p.quotaUnit = QuotaUnit::Concurrency;
    QVERIFY(Gcra::forPolicy(p).isUnlimited());
}

void tst_Gcra::startsFullWithBurst_data()
{
    QTest::addColumn<qint64>("burst");
    QTest::newRow("burst 0") << 0LL;
    QTest::newRow("burst 1") << 1LL;
    QTest::newRow("burst 2") << 2LL;
    QTest::newRow("burst 20") << 20LL;
}

void tst_Gcra::startsFullWithBurst()
{
    QFETCH(qint64, burst);
    const Gcra g = Gcra::forLimit(10, 5000, burst);
    const qint64 now = 1'000'000'000;
    qint64 tat = 0; // a new row: far in the past
    QCOMPARE(g.available(tat, now), std::max<qint64>(1, burst));
    int taken = 0;
    while (g.available(tat, now) >= 1 && taken < 1000) {
        tat = g.take(tat, 1, now);
        ++taken;
    }
    QCOMPARE(taken, int(std::max<qint64>(1, burst)));
}

void tst_Gcra::availableAtIsTheFirstMicrosecond_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<qint64>("burst");
    QTest::addColumn<qint64>("cost");
    QTest::newRow("10/5s burst 2") << 10LL << 5000LL << 2LL << 1LL;
    QTest::newRow("3/s") << 3LL << 1000LL << 0LL << 1LL;
    QTest::newRow("bytes") << 1000LL << 1000LL << 500LL << 200LL;
}

void tst_Gcra::availableAtIsTheFirstMicrosecond()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, windowMs);
    QFETCH(qint64, burst);
    QFETCH(qint64, cost);
    const Gcra g = Gcra::forLimit(limit, windowMs, burst);
    qint64 now = 5'000'000;
    qint64 tat = 0;
    // Empty the bucket, then the answer is exact on both sides of every boundary.
    while (g.available(tat, now) >= cost)
        tat = g.take(tat, cost, now);
    for (int round = 0; round < 20; ++round) {
        const qint64 at = g.availableAtUs(tat, cost, now);
        QVERIFY(at > now);
        QVERIFY2(g.available(tat, at - 1) < cost, "one microsecond early");
        QVERIFY2(g.available(tat, at) >= cost, "not there on time");
        now = at;
        tat = g.take(tat, cost, now);
    }
}

void tst_Gcra::availableAtMsRoundsUp()
{
    const Gcra g = Gcra::forLimit(3, 1000, 0); // 333,334 µs
    qint64 tat = g.take(0, 1, 0);              // taken at 0: the next at 333,334 µs
    QCOMPARE(g.availableAtUs(tat, 1, 0), 333334);
    QCOMPARE(g.availableAtMs(tat, 1, 0), 334);
    QVERIFY(g.available(tat, 333 * 1000) == 0);
    QVERIFY(g.available(tat, 334 * 1000) == 1);
    // Already there: now itself.
    QCOMPARE(g.availableAtMs(tat, 1, 500), 500);
}

void tst_Gcra::neverMoreThanLimitPlusBurstInAWindow_data()
{
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("windowMs");
    QTest::addColumn<qint64>("burst");
    QTest::newRow("10/5s burst 2") << 10LL << 5000LL << 2LL;
    QTest::newRow("120/min burst 20") << 120LL << 60000LL << 20LL;
    QTest::newRow("7/3s burst 0") << 7LL << 3000LL << 0LL;
}

void tst_Gcra::neverMoreThanLimitPlusBurstInAWindow()
{
    QFETCH(qint64, limit);
    QFETCH(qint64, windowMs);
    QFETCH(qint64, burst);
    const Gcra g = Gcra::forLimit(limit, windowMs, burst);
    // A greedy sender that takes every unit the moment it is there, for ten windows.
    QList<qint64> sends;
    qint64 tat = 0;
    qint64 now = 1'000'000;
    const qint64 end = now + 10 * windowMs * 1000;
    while (now < end) {
        if (g.available(tat, now) >= 1) {
            tat = g.take(tat, 1, now);
            sends.append(now);
        } else {
            now = g.availableAtUs(tat, 1, now);
        }
    }
    const qint64 windowUs = windowMs * 1000;
    // The bucket's capacity at once, then one unit per interval: limit + capacity - 1
    // in the busiest window, within the promised limit + burst.
    QCOMPARE(maxInWindow(sends, windowUs), int(limit + std::max<qint64>(1, burst) - 1));
    QVERIFY(maxInWindow(sends, windowUs) <= limit + std::max<qint64>(1, burst));
    // And the steady rate is the limit: the last nine windows hold 9 × limit (± 1).
    const auto steady = std::count_if(sends.cbegin(), sends.cend(),
                                      [&](qint64 t) { return t >= end - 9 * windowUs; });
    QVERIFY2(qAbs(steady - 9 * limit) <= 1, qPrintable(QString::number(steady)));
}

void tst_Gcra::idleTimeRefillsOnlyToCapacity()
{
    const Gcra g = Gcra::forLimit(10, 5000, 2);
    qint64 tat = g.take(g.take(0, 1, 0), 1, 0);
    QCOMPARE(g.available(tat, 0), 0);
    QCOMPARE(g.available(tat, 500'000 - 1), 0);
    QCOMPARE(g.available(tat, 500'000), 1);
    QCOMPARE(g.available(tat, 1'000'000), 2);
    QCOMPARE(g.available(tat, 3'600'000'000LL), 2);
}

void tst_Gcra::costAboveCapacityWaitsForAFullBucketAndLeavesDebt()
{
    const Gcra g = Gcra::forLimit(1000, 1000, 100); // bytes: 1,000 µs each
    qint64 tat = g.take(0, 1, 0);                   // one unit spent at 0
    QCOMPARE(g.availableAtUs(tat, 500, 0), 1000);   // full again at 1 ms
    tat = g.take(tat, 500, 1000);                   // the whole body, into debt
    QCOMPARE(tat, 1000 + 500 * 1000);
    QCOMPARE(g.available(tat, 1000), 0);
    // The debt is paid back before the next unit: 400 intervals past the full bucket.
    QCOMPARE(g.availableAtUs(tat, 1, 1000), tat - 99 * 1000);
}

void tst_Gcra::forcedTakeGoesIntoDebt()
{
    const Gcra g = Gcra::forLimit(10, 5000, 0);
    qint64 tat = g.take(0, 1, 0);
    QCOMPARE(g.available(tat, 0), 0);
    tat = g.take(tat, 1, 0); // forced: the next unit comes one interval later
    QCOMPARE(g.availableAtUs(tat, 1, 0), 1'000'000);
}

void tst_Gcra::unlimited()
{
    RateLimitPolicy none;
    const Gcra g = Gcra::forPolicy(none);
    QVERIFY(g.isUnlimited());
    QCOMPARE(g.take(42, 1000, 7), 42);
    QCOMPARE(g.availableAtUs(42, 1000, 7), 7);
    QVERIFY(g.available(42, 7) >= 1);
}

QTEST_GUILESS_MAIN(tst_Gcra)
#include "tst_gcra.moc"
