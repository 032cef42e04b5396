// SPDX-License-Identifier: Apache-2.0
#include "core/retry/Backoff.h"
#include "core/time/RandomSource.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <limits>

using namespace cooldown;

class tst_Backoff : public QObject
{
    Q_OBJECT

private slots:
    void ceiling_data();
    void ceiling();
    void jitterBounds_data();
    void jitterBounds();
    void fullJitterSpreadsAcrossRange();
    void decorrelatedGrowsFromPrevious();
    void seededIsReproducible();
    void uniformIntIsUnbiasedAtEdges();
};

void tst_Backoff::ceiling_data()
{
    QTest::addColumn<double>("base");
    QTest::addColumn<double>("cap");
    QTest::addColumn<int>("n");
    QTest::addColumn<qint64>("expected");

    QTest::newRow("first retry") << 1.0 << 60.0 << 0 << qint64(1000);
    QTest::newRow("doubles") << 1.0 << 60.0 << 1 << qint64(2000);
    QTest::newRow("n=5") << 1.0 << 60.0 << 5 << qint64(32000);
    QTest::newRow("just under cap") << 1.0 << 64.0 << 6 << qint64(64000);
    QTest::newRow("capped") << 1.0 << 60.0 << 6 << qint64(60000);
    QTest::newRow("huge n does not overflow") << 1.0 << 60.0 << 100000 << qint64(60000);
    QTest::newRow("fractional base") << 0.25 << 60.0 << 2 << qint64(1000);
    QTest::newRow("base above cap") << 90.0 << 60.0 << 0 << qint64(60000);
}

void tst_Backoff::ceiling()
{
    QFETCH(double, base);
    QFETCH(double, cap);
    QFETCH(int, n);
    QFETCH(qint64, expected);
    QCOMPARE(Backoff::ceilingMs(base, cap, n), expected);
}

void tst_Backoff::jitterBounds_data()
{
    QTest::addColumn<int>("jitter");
    QTest::addColumn<int>("n");
    QTest::addColumn<qint64>("low");
    QTest::addColumn<qint64>("high");

    QTest::newRow("none n=0") << int(Jitter::None) << 0 << qint64(1000) << qint64(1000);
    QTest::newRow("none n=3") << int(Jitter::None) << 3 << qint64(8000) << qint64(8000);
    QTest::newRow("full n=0") << int(Jitter::Full) << 0 << qint64(0) << qint64(1000);
    QTest::newRow("full n=3") << int(Jitter::Full) << 3 << qint64(0) << qint64(8000);
    QTest::newRow("full capped") << int(Jitter::Full) << 20 << qint64(0) << qint64(60000);
    QTest::newRow("equal n=0") << int(Jitter::Equal) << 0 << qint64(500) << qint64(1000);
    QTest::newRow("equal n=3") << int(Jitter::Equal) << 3 << qint64(4000) << qint64(8000);
    QTest::newRow("decorrelated first")
        << int(Jitter::Decorrelated) << 0 << qint64(1000) << qint64(3000);
}

void tst_Backoff::jitterBounds()
{
    QFETCH(int, jitter);
    QFETCH(int, n);
    QFETCH(qint64, low);
    QFETCH(qint64, high);

    RetryProfile profile;
    profile.jitter = Jitter(jitter);
    qint64 seenMin = std::numeric_limits<qint64>::max();
    qint64 seenMax = -1;
    for (quint64 seed = 0; seed < 2000; ++seed) {
        SeededRandom random(seed);
        const qint64 d = Backoff::delayMs(profile, n, 0, random);
        QVERIFY2(d >= low && d <= high,
                 qPrintable(QStringLiteral("seed %1 gave %2").arg(seed).arg(d)));
        seenMin = std::min(seenMin, d);
        seenMax = std::max(seenMax, d);
    }
    // Over 2000 seeds a jittered delay covers nearly its whole range.
    const qint64 slack = (high - low) / 50;
    QVERIFY(seenMin <= low + slack);
    QVERIFY(seenMax >= high - slack);
}

void tst_Backoff::fullJitterSpreadsAcrossRange()
{
    // Full jitter is uniform: each tenth of [0, d] gets about a tenth of the draws.
    RetryProfile profile;
    const int n = 4; // d = 16 s
    std::array<int, 10> buckets{};
    const int draws = 20000;
    SeededRandom random(42);
    for (int i = 0; i < draws; ++i) {
        const qint64 d = Backoff::delayMs(profile, n, 0, random);
        buckets[size_t(std::min<qint64>(9, d * 10 / 16001))]++;
    }
    for (int count : buckets)
        QVERIFY2(count > draws / 10 * 0.9 && count < draws / 10 * 1.1,
                 qPrintable(QString::number(count)));
}

void tst_Backoff::decorrelatedGrowsFromPrevious()
{
    RetryProfile profile;
    profile.jitter = Jitter::Decorrelated;
    for (quint64 seed = 0; seed < 500; ++seed) {
        SeededRandom random(seed);
        const qint64 d = Backoff::delayMs(profile, 3, 10000, random);
        QVERIFY(d >= 1000 && d <= 30000);
        const qint64 capped = Backoff::delayMs(profile, 3, 50000, random);
        QVERIFY(capped >= 1000 && capped <= 60000);
    }
}

void tst_Backoff::seededIsReproducible()
{
    RetryProfile profile;
    SeededRandom a(7);
    SeededRandom b(7);
    SeededRandom c(8);
    QList<qint64> first, second, other;
    for (int n = 0; n < 10; ++n) {
        first << Backoff::delayMs(profile, n, 0, a);
        second << Backoff::delayMs(profile, n, 0, b);
        other << Backoff::delayMs(profile, n, 0, c);
    }
    QCOMPARE(first, second);
    QVERIFY(first != other);
}

void tst_Backoff::uniformIntIsUnbiasedAtEdges()
{
    SeededRandom random(1);
    bool sawLow = false, sawHigh = false;
    for (int i = 0; i < 1000; ++i) {
        const qint64 v = random.uniformInt(-2, 2);
        QVERIFY(v >= -2 && v <= 2);
        sawLow |= v == -2;
        sawHigh |= v == 2;
    }
    QVERIFY(sawLow && sawHigh);
    QCOMPARE(random.uniformInt(5, 5), qint64(5));
    const double u = random.uniform01();
    QVERIFY(u >= 0.0 && u < 1.0);
}

QTEST_GUILESS_MAIN(tst_Backoff)
#include "tst_backoff.moc"
