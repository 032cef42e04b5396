// SPDX-License-Identifier: Apache-2.0
#include "ui/ChartPoints.h"

#include <QTest>

using namespace cooldown;

class tst_ChartPoints : public QObject
{
    Q_OBJECT

private slots:
    void smallInputIsKept();
    void boundedAndOrdered_data();
    void boundedAndOrdered();
    void peaksSurvive();
    void stepsCoverTheirBuckets();
    void newestStepEndsAtNow_data();
    void newestStepEndsAtNow();
    void slidingTicksStepBackFromNow_data();
    void slidingTicksStepBackFromNow();
    void clockTicksAreRoundLocalTimes();
};

void tst_ChartPoints::smallInputIsKept()
{
    const QList<QPointF> points{{0, 1}, {1, 5}, {2, 0}};
    QCOMPARE(chart::decimate(points, 10), points);
    QCOMPARE(chart::decimate({}, 10), QList<QPointF>{});
}

void tst_ChartPoints::boundedAndOrdered_data()
{
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("maxPoints");
    QTest::newRow("10k to 1k") << 10000 << 1000;
    QTest::newRow("1001 to 1000") << 1001 << 1000;
    QTest::newRow("odd budget") << 777 << 99;
    QTest::newRow("tiny budget") << 100 << 1;
}

void tst_ChartPoints::boundedAndOrdered()
{
    QFETCH(int, count);
    QFETCH(int, maxPoints);
    QList<QPointF> points;
    for (int i = 0; i < count; ++i)
        points.append(QPointF(i, (i * 7919) % 101));
    const QList<QPointF> out = chart::decimate(points, maxPoints);
    QVERIFY(out.size() <= std::max(maxPoints, 2));
    QVERIFY(out.size() >= 2);
    for (int i = 1; i < out.size(); ++i)
        QVERIFY(out.at(i - 1).x() < out.at(i).x());
    QCOMPARE(out.first().x() <= 1, true);
}

void tst_ChartPoints::peaksSurvive()
{
    QList<QPointF> points;
    for (int i = 0; i < 5000; ++i)
        points.append(QPointF(i, 1));
    points[1234].setY(99);
    points[4321].setY(-5);
    const QList<QPointF> out = chart::decimate(points, 100);
    bool high = false;
    bool low = false;
    for (const QPointF &p : out) {
        high = high || (p.y() == 99 && p.x() == 1234);
        low = low || (p.y() == -5 && p.x() == 4321);
    }
    QVERIFY(high);
    QVERIFY(low);
}

void tst_ChartPoints::stepsCoverTheirBuckets()
{
    // Three buckets of 15 s from 12:00:30 (x from 12:00:00), the middle one empty: each a
    // level segment over [start, start + 15 s), the gap drawn at zero.
    const qint64 origin = 1795953600000;
    const qint64 first = origin + 30000;
    const QList<QPointF> points = chart::steps({4, 0, 2}, first, 15000, first + 45000, origin);
    const QList<QPointF> expected{{30000, 4}, {45000, 4}, {45000, 0},
                                  {60000, 0}, {60000, 2}, {75000, 2}};
    QCOMPARE(points, expected);
    for (int b = 0; b < 3; ++b) {
        QCOMPARE(points.at(2 * b).x(), double(30000 + b * 15000));
        QCOMPARE(points.at(2 * b + 1).x() - points.at(2 * b).x(), 15000.0);
        QCOMPARE(points.at(2 * b).y(), points.at(2 * b + 1).y());
    }
    QCOMPARE(chart::steps({}, first, 15000, first + 45000, origin), QList<QPointF>{});
}

void tst_ChartPoints::newestStepEndsAtNow_data()
{
    QTest::addColumn<qint64>("bucketMs");
    QTest::addColumn<qint64>("intoNewestMs");
    QTest::newRow("15 s, 1 ms in") << qint64(15000) << qint64(1);
    QTest::newRow("15 s, 10 s in") << qint64(15000) << qint64(10000);
    QTest::newRow("15 s, full") << qint64(15000) << qint64(15000);
    QTest::newRow("15 min, 7 min in") << qint64(15 * 60000) << qint64(7 * 60000);
    QTest::newRow("2 h, 1 h in") << qint64(120 * 60000) << qint64(60 * 60000);
}

void tst_ChartPoints::newestStepEndsAtNow()
{
    QFETCH(qint64, bucketMs);
    QFETCH(qint64, intoNewestMs);
    const qint64 from = 1795953600000;
    const int count = 5;
    const qint64 now = from + (count - 1) * bucketMs + intoNewestMs;
    // One bucket more than the data reaches: it starts after now and is not drawn.
    const QList<double> values(count + 1, 1.0);
    const QList<QPointF> points = chart::steps(values, from, bucketMs, now, from);
    QCOMPARE(points.size(), 2 * count);
    QCOMPARE(points.last().x(), double(now - from));
    QCOMPARE(points.at(points.size() - 2).x(), double((count - 1) * bucketMs));
    for (const QPointF &p : points)
        QVERIFY(p.x() <= double(now - from));
}

QTEST_GUILESS_MAIN(tst_ChartPoints)
void tst_ChartPoints::slidingTicksStepBackFromNow_data()
{
    QTest::addColumn<qint64>("rangeMs");
    QTest::addColumn<qint64>("bucketMs");
    QTest::addColumn<QStringList>("labels");
    QTest::addColumn<qint64>("stepMs");
    const qint64 minute = 60000;
    const auto minus = [](const char *rest) {
        return QString(QChar(0x2212)) + QLatin1String(rest);
    };
    QTest::newRow("15 min") << 15 * minute << minute
                            << QStringList{minus("15 min"), minus("10 min"), minus("5 min"),
                                           QStringLiteral("now")}
                            << 5 * minute;
    QTest::newRow("15 min in 15 s")
        << 15 * minute << qint64(15000)
        << QStringList{minus("15 min"), minus("10 min"), minus("5 min"), QStringLiteral("now")}
        << 5 * minute;
    QTest::newRow("1 h") << 60 * minute << minute
                         << QStringList{minus("60 min"),      minus("50 min"), minus("40 min"),
                                        minus("30 min"),      minus("20 min"), minus("10 min"),
                                        QStringLiteral("now")}
                         << 10 * minute;
    QTest::newRow("24 h") << 24 * 60 * minute << 10 * minute
                          << QStringList{minus("24 h"),        minus("20 h"), minus("16 h"),
                                         minus("12 h"),        minus("8 h"),  minus("4 h"),
                                         QStringLiteral("now")}
                          << 4 * 60 * minute;
    QTest::newRow("7 d") << 7 * 24 * 60 * minute << 60 * minute
                         << QStringList{minus("7 d"), minus("6 d"),         minus("5 d"),
                                        minus("4 d"), minus("3 d"),         minus("2 d"),
                                        minus("1 d"), QStringLiteral("now")}
                         << 24 * 60 * minute;
}

void tst_ChartPoints::slidingTicksStepBackFromNow()
{
    QFETCH(qint64, rangeMs);
    QFETCH(qint64, bucketMs);
    QFETCH(QStringList, labels);
    QFETCH(qint64, stepMs);
    // The window of the last rangeMs is one bucket longer: "now" ends its newest bucket.
    const qint64 span = rangeMs + bucketMs;
    const QList<chart::TimeTick> ticks = chart::slidingTicks(rangeMs, span);
    QStringList got;
    for (const chart::TimeTick &t : ticks)
        got.append(t.label);
    QCOMPARE(got, labels);
    QVERIFY(ticks.size() <= chart::kMaxTimeIntervals + 1);
    QCOMPARE(ticks.first().offsetMs, bucketMs);
    QCOMPARE(ticks.last().offsetMs, span);
    for (int i = 1; i < ticks.size(); ++i)
        QCOMPARE(ticks.at(i).offsetMs - ticks.at(i - 1).offsetMs, stepMs);
    QVERIFY(chart::slidingTicks(0, span).isEmpty());
}

void tst_ChartPoints::clockTicksAreRoundLocalTimes()
{
    const qint64 minute = 60000;
    // 09:50 to 12:10 local time: half hours, the first after the start.
    const QDateTime from(QDate(2026, 11, 12), QTime(9, 50));
    QList<chart::TimeTick> ticks = chart::clockTicks(from.toMSecsSinceEpoch(), 140 * minute);
    QStringList got;
    for (const chart::TimeTick &t : ticks)
        got.append(t.label);
    QCOMPARE(got,
             (QStringList{QStringLiteral("10:00"), QStringLiteral("10:30"), QStringLiteral("11:00"),
                          QStringLiteral("11:30"), QStringLiteral("12:00")}));
    QCOMPARE(ticks.first().offsetMs, 10 * minute);
    for (const chart::TimeTick &t : ticks)
        QCOMPARE(
            QDateTime::fromMSecsSinceEpoch(from.toMSecsSinceEpoch() + t.offsetMs).time().minute() %
                30,
            0);

    // Three days: labelled with the day, on round hours.
    ticks = chart::clockTicks(from.toMSecsSinceEpoch(), 3 * 24 * 60 * minute);
    QVERIFY(ticks.size() >= 3 && ticks.size() <= chart::kMaxTimeIntervals + 1);
    const QLocale locale;
    for (const chart::TimeTick &t : ticks) {
        const QDateTime at = QDateTime::fromMSecsSinceEpoch(from.toMSecsSinceEpoch() + t.offsetMs);
        QCOMPARE(at.time().minute(), 0);
        QCOMPARE(t.label, locale.toString(at, QStringLiteral("ddd HH:mm")));
    }
    QVERIFY(chart::clockTicks(from.toMSecsSinceEpoch(), 0).isEmpty());
}

#include "tst_chartpoints.moc"
