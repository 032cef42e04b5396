// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/PartitionSnooze.h"
#include "core/retry/ServerWait.h"

#include <QSignalSpy>
#include <QTest>

using namespace cooldown;

namespace {
const QString kPolicy = QStringLiteral("project-read-v1");
const QString kA = QStringLiteral("project-184");
const QString kB = QStringLiteral("project-185");

ServerWait waitFrom(const QByteArray &name, const QByteArray &value, qint64 nowMs)
{
    return ServerWait::resolve(HttpHeaders{{name, value}}, QByteArray(), nowMs);
}
} // namespace

class tst_PartitionSnooze : public QObject
{
    Q_OBJECT

private slots:
    void holdsOnlyItsPartition();
    void extendsButNeverShortens();
    void operatorLifts();
    void expiresWithSignals();
    void holdForResponse_data();
    void holdForResponse();
    void listShowsWhatIsHeld();
};

void tst_PartitionSnooze::holdsOnlyItsPartition()
{
    PartitionSnooze snooze;
    QSignalSpy held(&snooze, &PartitionSnooze::held);
    QVERIFY(snooze.hold(kPolicy, kA, 30000, QStringLiteral("429"), 0));
    QCOMPARE(held.count(), 1);
    QCOMPARE(snooze.heldUntilMs(kPolicy, kA, 0), 30000);
    QCOMPARE(snooze.heldUntilMs(kPolicy, kA, 29999), 30000);
    QCOMPARE(snooze.heldUntilMs(kPolicy, kA, 30000), 30000); // over: "now" is the answer
    QVERIFY(!snooze.activeHold(kPolicy, kA, 30000));
    QCOMPARE(snooze.heldUntilMs(kPolicy, kB, 10), 10);
    QCOMPARE(snooze.heldUntilMs(QStringLiteral("other-policy"), kA, 10), 10);
    QVERIFY(!snooze.hold(kPolicy, kA, 5, QStringLiteral("in the past"), 10));
}

void tst_PartitionSnooze::extendsButNeverShortens()
{
    PartitionSnooze snooze;
    QSignalSpy held(&snooze, &PartitionSnooze::held);
    QVERIFY(snooze.hold(kPolicy, kA, 60000, QStringLiteral("first"), 0));
    QVERIFY(!snooze.hold(kPolicy, kA, 20000, QStringLiteral("shorter"), 1000));
    QCOMPARE(snooze.heldUntilMs(kPolicy, kA, 1000), 60000);
    QVERIFY(snooze.hold(kPolicy, kA, 90000, QStringLiteral("longer"), 2000));
    const auto hold = snooze.activeHold(kPolicy, kA, 2000);
    QVERIFY(hold);
    QCOMPARE(hold->untilMs, 90000);
    QCOMPARE(hold->sinceMs, 0); // the partition has been held since the first
    QCOMPARE(hold->why, QStringLiteral("longer"));
    QCOMPARE(held.count(), 2);
    QCOMPARE(held.at(1).at(0).value<SnoozeHold>().untilMs, 90000);
}

void tst_PartitionSnooze::operatorLifts()
{
    PartitionSnooze snooze;
    QSignalSpy lifted(&snooze, &PartitionSnooze::lifted);
    snooze.hold(kPolicy, kA, 60000, QStringLiteral("429"), 0);
    snooze.hold(kPolicy, kB, 60000, QStringLiteral("429"), 0);
    QVERIFY(snooze.lift(kPolicy, kA));
    QCOMPARE(lifted.count(), 1);
    QCOMPARE(lifted.at(0).at(0).value<SnoozeHold>().partitionKey, kA);
    QCOMPARE(snooze.heldUntilMs(kPolicy, kA, 100), 100);
    QCOMPARE(snooze.heldUntilMs(kPolicy, kB, 100), 60000);
    QVERIFY(!snooze.lift(kPolicy, kA));
    QCOMPARE(lifted.count(), 1);
}

void tst_PartitionSnooze::expiresWithSignals()
{
    PartitionSnooze snooze;
    QSignalSpy expired(&snooze, &PartitionSnooze::expired);
    snooze.hold(kPolicy, kA, 10000, QStringLiteral("a"), 0);
    snooze.hold(kPolicy, kB, 20000, QStringLiteral("b"), 0);
    snooze.expire(9999);
    QCOMPARE(expired.count(), 0);
    snooze.expire(10000);
    QCOMPARE(expired.count(), 1);
    QCOMPARE(expired.at(0).at(0).value<SnoozeHold>().partitionKey, kA);
    snooze.expire(10000); // once only
    QCOMPARE(expired.count(), 1);
    QCOMPARE(snooze.activeHolds(10000).size(), 1);
}

void tst_PartitionSnooze::holdForResponse_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<qint64>("until"); // -1: no hold

    QTest::newRow("429 retry-after")
        << 429 << QByteArray("Retry-After") << QByteArray("30") << qint64(30000);
    QTest::newRow("503 retry-after")
        << 503 << QByteArray("Retry-After") << QByteArray("5") << qint64(5000);
    QTest::newRow("429 ratelimit")
        << 429 << QByteArray("RateLimit") << QByteArray("\"d\";r=0;t=45") << qint64(45000);
    QTest::newRow("429 without a wait")
        << 429 << QByteArray("X-Other") << QByteArray("1") << qint64(-1);
    QTest::newRow("429 malformed retry-after")
        << 429 << QByteArray("Retry-After") << QByteArray("soon") << qint64(-1);
    QTest::newRow("500 retry-after")
        << 500 << QByteArray("Retry-After") << QByteArray("30") << qint64(-1);
    QTest::newRow("200 ratelimit r=0")
        << 200 << QByteArray("RateLimit") << QByteArray("\"d\";r=0;t=45") << qint64(-1);
}

void tst_PartitionSnooze::holdForResponse()
{
    QFETCH(int, status);
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);
    QFETCH(qint64, until);

    PartitionSnooze snooze;
    const ServerWait wait = waitFrom(name, value, 0);
    QCOMPARE(snooze.holdForResponse(kPolicy, kA, status, wait, 0), until >= 0);
    const auto hold = snooze.activeHold(kPolicy, kA, 0);
    QCOMPARE(hold.has_value(), until >= 0);
    if (hold) {
        QCOMPARE(hold->untilMs, until);
        QVERIFY2(hold->why.startsWith(QString::number(status)), qPrintable(hold->why));
        QVERIFY(hold->why.contains(QLatin1String(textOf(wait.source))));
    }
}

void tst_PartitionSnooze::listShowsWhatIsHeld()
{
    PartitionSnooze snooze;
    snooze.hold(kPolicy, kB, 50000, QStringLiteral("later"), 0);
    snooze.hold(kPolicy, kA, 20000, QStringLiteral("sooner"), 0);
    snooze.hold(QStringLiteral("write-v2"), kA, 5000, QStringLiteral("soonest"), 0);
    const QList<SnoozeHold> holds = snooze.activeHolds(1000);
    QCOMPARE(holds.size(), 3);
    QCOMPARE(holds[0].why, QStringLiteral("soonest"));
    QCOMPARE(holds[1].partitionKey, kA);
    QCOMPARE(holds[2].partitionKey, kB);
    QCOMPARE(snooze.activeHolds(20000).size(), 1);
}

QTEST_GUILESS_MAIN(tst_PartitionSnooze)
#include "tst_partitionsnooze.moc"
