// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Connectivity.h"

#include <QTest>

using namespace cooldown;

// docs/offline.md: offline when an exchange finds no route and none reached a server
// lately; one probe every 5 s while offline; back online, a tenth of the permits rising
// to all over a minute.
class tst_Connectivity : public QObject
{
    Q_OBJECT

private slots:
    void offlineThenProbesThenRampsUp()
    {
        Connectivity c;
        QCOMPARE(c.allowed(8, 0), 8);
        QCOMPARE(c.nextChangeAt(0), qint64(-1));
        QVERIFY(c.noteUnreachable(1'000'000, 100));
        QVERIFY(c.isOffline());
        QCOMPARE(c.offlineSinceMs(), qint64(1'000'000));
        QVERIFY(!c.noteUnreachable(1'000'050, 150)); // said once
        // No exchange until the probe time, then one.
        QCOMPARE(c.allowed(8, 5149), 0);
        QCOMPARE(c.nextChangeAt(200), qint64(5150));
        QCOMPARE(c.allowed(8, 5150), 1);
        QCOMPARE(c.nextChangeAt(5150), qint64(-1));
        // The probe finds no route either: the next one is 5 s later.
        QVERIFY(!c.noteUnreachable(1'005'100, 5200));
        QCOMPARE(c.allowed(8, 5200), 0);
        QCOMPARE(c.allowed(8, 10'200), 1);
        // It reaches a server: online, after 10.1 s offline, ramping up.
        QVERIFY(c.noteReached(10'200));
        QVERIFY(!c.isOffline());
        QCOMPARE(c.offlineSinceMs(), qint64(-1));
        QCOMPARE(c.lastSpellMs(), qint64(10'100));
        QCOMPARE(c.allowed(8, 10'200), 1);   // a tenth of 8, never none
        QCOMPARE(c.allowed(40, 10'200), 4);  // a tenth
        QCOMPARE(c.allowed(40, 40'200), 22); // half-way: 55 %
        QCOMPARE(c.allowed(40, 70'199), 39);
        QCOMPARE(c.allowed(40, 70'200), 40);
        QCOMPARE(c.nextChangeAt(10'200), qint64(11'200));
        QCOMPARE(c.nextChangeAt(69'900), qint64(70'200));
        QCOMPARE(c.nextChangeAt(70'200), qint64(-1));
        QVERIFY(!c.noteReached(70'300)); // online already: nothing to say
    }

    // A route missing while another server answers (a VPN down): not offline.
    void oneMissingRouteIsNotOffline()
    {
        Connectivity c;
        c.noteReached(1000);
        QVERIFY(!c.noteUnreachable(0, 5999));
        QVERIFY(!c.isOffline());
        QCOMPARE(c.allowed(8, 6000), 8);
        // Nothing got through for 5 s: offline.
        QVERIFY(c.noteUnreachable(0, 6000));
        QVERIFY(c.isOffline());
    }
};

QTEST_APPLESS_MAIN(tst_Connectivity)
#include "tst_connectivity.moc"
