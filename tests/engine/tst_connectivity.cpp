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

    // A laptop off its Wi-Fi asks a resolver that reaches nobody: the names of every
    // host fail. One name failing is that host's problem.
    void namesFailingForSeveralHostsAreOffline()
    {
        using Change = Connectivity::Change;
        Connectivity c;
        QCOMPARE(c.noteNameFailure(QStringLiteral("a.example"), 1'000'000, 1000), Change::None);
        QCOMPARE(c.noteNameFailure(QStringLiteral("A.example"), 1'000'100, 1100), Change::None);
        QVERIFY(!c.isOffline());
        // Another host's name, within 30 s: offline since then, probing every 5 s.
        QCOMPARE(c.noteNameFailure(QStringLiteral("b.example"), 1'020'000, 21'000),
                 Change::WentOffline);
        QVERIFY(c.isOffline());
        QCOMPARE(c.offlineSinceMs(), qint64(1'020'000));
        QCOMPARE(c.allowed(8, 25'999), 0);
        QCOMPARE(c.allowed(8, 26'000), 1);
        // Probes to both hosts fail: still offline.
        QCOMPARE(c.noteNameFailure(QStringLiteral("a.example"), 0, 26'000), Change::None);
        QCOMPARE(c.noteNameFailure(QStringLiteral("b.example"), 0, 31'000), Change::None);
        QVERIFY(c.isOffline());
        // Only a.example's name has failed for 30 s: the probes find that name
        // missing, not the network.
        QCOMPARE(c.noteNameFailure(QStringLiteral("a.example"), 0, 61'000), Change::CameOnline);
        QVERIFY(!c.isOffline());
        QCOMPARE(c.lastSpellMs(), qint64(40'000));

        // Two names failing 30 s apart, or while a server answers, are not offline.
        Connectivity apart;
        apart.noteNameFailure(QStringLiteral("a.example"), 0, 0);
        QCOMPARE(apart.noteNameFailure(QStringLiteral("b.example"), 0, 30'000), Change::None);
        Connectivity answering;
        answering.noteReached(1000);
        answering.noteNameFailure(QStringLiteral("a.example"), 0, 2000);
        QCOMPARE(answering.noteNameFailure(QStringLiteral("b.example"), 0, 3000), Change::None);
        QVERIFY(!answering.isOffline());
        // A server reached ends it, as for a missing route.
        QCOMPARE(answering.noteNameFailure(QStringLiteral("c.example"), 0, 31'500),
                 Change::WentOffline);
        QVERIFY(answering.noteReached(32'000));
        QVERIFY(!answering.isOffline());
    }

    // What the system says (NetworkManager): believed at once, both ways.
    void theSystemsWord()
    {
        using Change = Connectivity::Change;
        Connectivity c;
        QCOMPARE(c.noteSystemReachable(true, 0, 0), Change::None);
        QCOMPARE(c.noteSystemReachable(false, 2'000'000, 1000), Change::WentOffline);
        QVERIFY(c.isOffline());
        QCOMPARE(c.offlineSinceMs(), qint64(2'000'000));
        QCOMPARE(c.allowed(8, 1000), 0); // no exchange spent to learn it
        QCOMPARE(c.allowed(8, 6000), 1); // the probes still look
        QCOMPARE(c.noteSystemReachable(false, 0, 2000), Change::None);
        QCOMPARE(c.noteSystemReachable(true, 0, 11'000), Change::CameOnline);
        QVERIFY(!c.isOffline());
        QCOMPARE(c.lastSpellMs(), qint64(10'000));
        QCOMPARE(c.allowed(40, 11'000), 4); // ramping up
        // Offline by the exchanges, online by the system's word.
        Connectivity d;
        QVERIFY(d.noteUnreachable(0, 100));
        QCOMPARE(d.noteSystemReachable(true, 0, 200), Change::CameOnline);
        QVERIFY(!d.isOffline());
        // A probe that reaches a server outweighs the system saying disconnected.
        Connectivity e;
        e.noteSystemReachable(false, 0, 0);
        QVERIFY(e.noteReached(5000));
        QVERIFY(!e.isOffline());
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
