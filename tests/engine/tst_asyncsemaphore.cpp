// SPDX-License-Identifier: Apache-2.0
#include "core/engine/AsyncSemaphore.h"

#include <QSignalSpy>
#include <QTest>

#include <vector>

using namespace cooldown;

class tst_AsyncSemaphore : public QObject
{
    Q_OBJECT

private slots:
    void grantsImmediatelyWhenFree();
    void fifoOrder();
    void permitReleasesOnDestruction();
    void cancelWaiting();
    void reentrantRelease();
    void tryAcquireDoesNotJumpQueue();
    void shrinkAndGrow();
    void permitOutlivesSemaphore();
};

void tst_AsyncSemaphore::grantsImmediatelyWhenFree()
{
    AsyncSemaphore sem(2);
    std::vector<Permit> held;
    sem.acquire([&](Permit p) { held.push_back(std::move(p)); });
    sem.acquire([&](Permit p) { held.push_back(std::move(p)); });
    QCOMPARE(held.size(), size_t(2));
    QCOMPARE(sem.inUse(), 2);
    bool third = false;
    sem.acquire([&](Permit p) {
        third = true;
        held.push_back(std::move(p));
    });
    QVERIFY(!third);
    QCOMPARE(sem.waiting(), 1);
    held.front().release();
    QVERIFY(third);
    QCOMPARE(sem.inUse(), 2);
    QCOMPARE(sem.waiting(), 0);
}

void tst_AsyncSemaphore::fifoOrder()
{
    AsyncSemaphore sem(1);
    std::vector<Permit> held;
    QList<int> order;
    for (int i = 0; i < 5; ++i)
        sem.acquire([&, i](Permit p) {
            order << i;
            held.push_back(std::move(p));
        });
    QCOMPARE(order, QList<int>{0});
    for (int i = 1; i < 5; ++i) {
        // Release the oldest outside the vector: the release grants the next waiter at
        // once, and its callback appends to `held`, which must not be mid-erase then.
        Permit oldest = std::move(held.front());
        held.erase(held.begin());
        oldest.release();
        QCOMPARE(order.size(), i + 1);
    }
    QCOMPARE(order, (QList<int>{0, 1, 2, 3, 4}));
}

void tst_AsyncSemaphore::permitReleasesOnDestruction()
{
    AsyncSemaphore sem(1);
    QSignalSpy changed(&sem, &AsyncSemaphore::changed);
    {
        Permit p = sem.tryAcquire();
        QVERIFY(p.isHeld());
        QCOMPARE(sem.inUse(), 1);
        Permit moved = std::move(p);
        QVERIFY(!p.isHeld());
        QVERIFY(moved.isHeld());
        QCOMPARE(sem.inUse(), 1);
    }
    QCOMPARE(sem.inUse(), 0);
    QVERIFY(changed.count() >= 2);
    // Releasing twice releases once.
    Permit p = sem.tryAcquire();
    p.release();
    p.release();
    QCOMPARE(sem.inUse(), 0);
}

void tst_AsyncSemaphore::cancelWaiting()
{
    AsyncSemaphore sem(1);
    Permit first = sem.tryAcquire();
    bool granted = false;
    const auto ticket = sem.acquire([&](Permit) { granted = true; });
    QVERIFY(sem.cancel(ticket));
    QVERIFY(!sem.cancel(ticket));
    first.release();
    QVERIFY(!granted);
    QCOMPARE(sem.inUse(), 0);
}

void tst_AsyncSemaphore::reentrantRelease()
{
    // A callback that drops its permit at once hands it to the next waiter without
    // recursing, and no permit is lost.
    AsyncSemaphore sem(1);
    Permit blocker = sem.tryAcquire();
    int grants = 0;
    for (int i = 0; i < 1000; ++i)
        sem.acquire([&](Permit p) {
            ++grants;
            p.release();
        });
    blocker.release();
    QCOMPARE(grants, 1000);
    QCOMPARE(sem.inUse(), 0);
    QCOMPARE(sem.waiting(), 0);
}

void tst_AsyncSemaphore::tryAcquireDoesNotJumpQueue()
{
    AsyncSemaphore sem(1);
    Permit a = sem.tryAcquire();
    std::vector<Permit> held;
    sem.acquire([&](Permit p) { held.push_back(std::move(p)); });
    QVERIFY(!sem.tryAcquire().isHeld());
    a.release();
    QCOMPARE(held.size(), size_t(1));
}

void tst_AsyncSemaphore::shrinkAndGrow()
{
    AsyncSemaphore sem(3);
    std::vector<Permit> held;
    for (int i = 0; i < 3; ++i)
        held.push_back(sem.tryAcquire());
    sem.setPermits(1);
    QCOMPARE(sem.inUse(), 3); // held permits are never revoked
    int granted = 0;
    sem.acquire([&](Permit p) {
        ++granted;
        held.push_back(std::move(p));
    });
    held.erase(held.begin());
    held.erase(held.begin());
    QCOMPARE(granted, 0); // still 1 in use, the limit
    held.erase(held.begin());
    QCOMPARE(granted, 1);
    sem.setPermits(4);
    QVERIFY(sem.tryAcquire().isHeld());
}

void tst_AsyncSemaphore::permitOutlivesSemaphore()
{
    Permit p;
    {
        AsyncSemaphore sem(1);
        p = sem.tryAcquire();
        QVERIFY(p.isHeld());
    }
    QVERIFY(!p.isHeld()); // no dangling release
}

QTEST_GUILESS_MAIN(tst_AsyncSemaphore)
#include "tst_asyncsemaphore.moc"
