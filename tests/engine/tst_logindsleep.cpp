// SPDX-License-Identifier: Apache-2.0
// LogindSleep (docs/offline.md) against a stand-in for logind on a private bus: the delay
// lock it holds while awake, lets go when the engine is ready and takes again at the
// wake; what it says when the bus has no logind, or there is no bus.

#include "core/engine/LogindSleep.h"
#include "support/FakeLogind.h"

#include <QSignalSpy>
#include <QTest>

using namespace cooldown;

class tst_LogindSleep : public QObject
{
    Q_OBJECT

private slots:
    void lockHeldAwakeLetGoWhenReady();
    void aSleepThatNeverCameKeepsTheLock();
    void noLogindOnTheBus();
    void noBus();
};

void tst_LogindSleep::lockHeldAwakeLetGoWhenReady()
{
    PrivateBus bus;
    QVERIFY2(!bus.address().isEmpty(), qPrintable(bus.error()));
    FakeLogind logind;
    QVERIFY(logind.serve(bus.connect(QStringLiteral("logind"))));

    LogindSleep watcher(bus.connect(QStringLiteral("engine")));
    QVERIFY(watcher.isListening());
    QTRY_VERIFY(watcher.holdsDelayLock());
    QCOMPARE(logind.locksHeld(), 1);
    QCOMPARE(logind.modes(), QStringList{QStringLiteral("sleep:delay")});

    QSignalSpy going(&watcher, &LogindSleep::goingToSleep);
    QSignalSpy woke(&watcher, &LogindSleep::wokeUp);
    logind.sendPrepareForSleep(true);
    QTRY_COMPARE(going.size(), 1);
    // The system waits for the engine: the lock stays until it says it is ready.
    QCOMPARE(logind.locksHeld(), 1);
    watcher.readyForSleep();
    QVERIFY(!watcher.holdsDelayLock());
    QTRY_COMPARE(logind.locksHeld(), 0);

    logind.sendPrepareForSleep(false);
    QTRY_COMPARE(woke.size(), 1);
    QCOMPARE(going.size(), 1);
    // Awake again, and ready for the next sleep.
    QTRY_VERIFY(watcher.holdsDelayLock());
    QCOMPARE(logind.locksGiven(), 2);
    QCOMPARE(logind.locksHeld(), 1);

    // A word said twice is one: no second goingToSleep, no second lock.
    logind.sendPrepareForSleep(false);
    logind.sendPrepareForSleep(true);
    logind.sendPrepareForSleep(true);
    QTRY_COMPARE(going.size(), 2);
    QTest::qWait(50);
    QCOMPARE(going.size(), 2);
    QCOMPARE(woke.size(), 1);
    QCOMPARE(logind.locksGiven(), 2);
}

void tst_LogindSleep::aSleepThatNeverCameKeepsTheLock()
{
    PrivateBus bus;
    QVERIFY2(!bus.address().isEmpty(), qPrintable(bus.error()));
    FakeLogind logind;
    QVERIFY(logind.serve(bus.connect(QStringLiteral("logind"))));
    LogindSleep watcher(bus.connect(QStringLiteral("engine")));
    QTRY_VERIFY(watcher.holdsDelayLock());

    // The engine was never ready (it was busy, or gone): logind slept at its timeout,
    // or the sleep was refused. Awake, the one lock still held serves.
    QSignalSpy woke(&watcher, &LogindSleep::wokeUp);
    logind.sendPrepareForSleep(true);
    logind.sendPrepareForSleep(false);
    QTRY_COMPARE(woke.size(), 1);
    QVERIFY(watcher.holdsDelayLock());
    QTest::qWait(50);
    QCOMPARE(logind.locksGiven(), 1);
    QCOMPARE(logind.locksHeld(), 1);
    // Being ready while awake lets nothing go.
    watcher.readyForSleep();
    QVERIFY(watcher.holdsDelayLock());
}

void tst_LogindSleep::noLogindOnTheBus()
{
    PrivateBus bus;
    QVERIFY2(!bus.address().isEmpty(), qPrintable(bus.error()));
    LogindSleep watcher(bus.connect(QStringLiteral("engine")));
    QSignalSpy lock(&watcher, &LogindSleep::delayLockChanged);
    QTRY_COMPARE(lock.size(), 1);
    QCOMPARE(lock.first().first().toBool(), false);
    QVERIFY(!watcher.holdsDelayLock());
}

void tst_LogindSleep::noBus()
{
    LogindSleep watcher(QDBusConnection(QStringLiteral("no such connection")));
    QVERIFY(!watcher.isListening());
    QVERIFY(!watcher.holdsDelayLock());
    watcher.readyForSleep(); // nothing to let go, and no harm
}

QTEST_GUILESS_MAIN(tst_LogindSleep)
#include "tst_logindsleep.moc"
