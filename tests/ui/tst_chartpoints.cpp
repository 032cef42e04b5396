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

QTEST_GUILESS_MAIN(tst_ChartPoints)
#include "tst_chartpoints.moc"
