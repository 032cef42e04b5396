// SPDX-License-Identifier: Apache-2.0
// The store's fleet contract, on SQLite and PostgreSQL alike: several Store connections
// on one database stand for several workers. Their claims share each partition's
// bucket and hold, take partitions in turn, and win each periodic tick once. Time is
// the nowMs every call passes (paceByDatabaseClock off), except where the database's
// own clock is the point.

#include "StoreTestSupport.h"

#include "core/store/Store.h"

#include "support/AttemptFixture.h"
#include "support/MaxInWindow.h"
#include <QDateTime>
#include <QSet>

#include <QTest>

#include <map>

#include <algorithm>
#include <functional>
#include <memory>

using namespace cooldown;
using cooldown::test::maxInWindow;

namespace {

const qint64 kNow = 1'795'000'000'000; // a fixed instant: no test here reads the clock
const qint64 kLease = 600'000;         // longer than any test here: no claim is rescued

// The claimed operations' attempts end in success, recorded by the worker that claimed
// them.
void finishAll(Store &store, const QList<OperationRecord> &claimed, const QString &worker)
{
    for (const OperationRecord &op : claimed) {
        OperationRecord done = op;
        done.state = OperationState::Succeeded;
        const AttemptRecord attempt = test::nextAttempt(op, kNow);
        QCOMPARE(test::finishAttempt(store, attempt, done, worker), Store::FinishResult::Committed);
    }
}

QStringList partitionKeys(const QList<OperationRecord> &ops)
{
    QStringList keys;
    for (const OperationRecord &op : ops)
        keys.append(op.policyId.isEmpty() ? QStringLiteral("-") : op.partitionKey);
    return keys;
}

// Idempotency keys for the operations a test's ticks make: tick-1, tick-2, ...
std::function<QString()> tickKeys()
{
    return [count = 0]() mutable {
        return QStringLiteral("tick-%1").arg(++count);
    };
}

} // namespace

class tst_FleetStore : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void init();
    void cleanup();

    void workersShareOneBucket();
    void backlogDelaysNoOtherPartition();
    void claimsTakePartitionsInTurn();
    void holdStopsEveryWorker();
    void liftFreesAHoldThisWorkerNeverSaw();
    void forcedBypassesTheBucketAndIsCounted();
    void byteCosts();
    void periodicTickOncePerFleet();
    void ticksAndClaimsAhead();
    void ticksMakeTheRowsTheirClaimsNeed();
    void dueWorkBeforeWorkAhead();
    void concurrencyHoldsForTheFleet();
    void perHostPermitsHoldForTheFleet();
    void perHostIsSharedAndCappedPerWorker();
    void standbyTakesOverPermitsInTheRecord();
    void contendedClaimTakesNothingAndDoesNotWait();
    void newerPolicyVersionIsKept();
    void databaseClockPacesSkewedWorkers();
    void measuredPaceIsShared();

private:
    std::unique_ptr<Store> open(bool databaseClock = false);
    // A claim as a scheduler makes it: the worker's state kept here from one claim to
    // the next, and what the claim came to kept for the test to look at.
    ClaimResult claimAs(Store &store, const QString &workerId, qint64 nowMs, qint64 leaseMs,
                        int limit, const FleetConcurrency &concurrency = {}, qint64 aheadMs = 0)
    {
        const StoreResult<ClaimResult> result = store.claims().claim(
            workerId, nowMs, leaseMs, limit, m_claimStates[&store], concurrency, aheadMs);
        m_lastClaims[&store] = result ? *result : ClaimResult();
        if (!result)
            qWarning().noquote() << "claim failed:" << result.error();
        return m_lastClaims[&store];
    }
    const ClaimResult &lastClaim(Store &store) { return m_lastClaims[&store]; }
    std::map<const Store *, WorkerClaimState> m_claimStates;
    std::map<const Store *, ClaimResult> m_lastClaims;
    void paced(Store &store, const QString &partition, qint64 limit, qint64 windowSeconds,
               qint64 burst, const QString &policy = QStringLiteral("p"));
    bool isSqlite() const { return m_backend == QLatin1String("sqlite"); }

    QString m_backend;
    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void tst_FleetStore::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("postgresql") << "postgresql";
}

void tst_FleetStore::init()
{
    m_claimStates.clear();
    m_lastClaims.clear();
    QFETCH_GLOBAL(QString, backend);
    m_backend = backend;
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    if (isSqlite()) {
        m_url = m_dir->filePath(QStringLiteral("fleet.db"));
        return;
    }
    QString why;
    m_url = test::freshPostgresDatabase(QStringLiteral("cooldown_tst_fleetstore"), &why);
    if (m_url.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
}

void tst_FleetStore::cleanup()
{
    m_dir.reset();
}

std::unique_ptr<Store> tst_FleetStore::open(bool databaseClock)
{
    StoreOptions options;
    options.paceByDatabaseClock = databaseClock;
    QString error;
    std::unique_ptr<Store> store = Store::open(m_url, &error, options);
    if (!store)
        qWarning("open failed: %s", qPrintable(error));
    return store;
}

void tst_FleetStore::paced(Store &store, const QString &partition, qint64 limit,
                           qint64 windowSeconds, qint64 burst, const QString &policy)
{
    const QString definition = QStringLiteral("{\"limit\":%1,\"window_seconds\":%2,\"burst\":%3}")
                                   .arg(limit)
                                   .arg(windowSeconds)
                                   .arg(burst);
    QCOMPARE(store.ensurePartition(policy, partition, 1, definition,
                                   Gcra::forLimit(limit, windowSeconds * 1000, burst)),
             Store::PaceResult::Written);
}

void tst_FleetStore::workersShareOneBucket()
{
    auto a = open();
    auto b = open();
    auto c = open();
    QVERIFY(a && b && c);
    paced(*a, QStringLiteral("k1"), 10, 5, 2);
    paced(*b, QStringLiteral("k1"), 10, 5, 2); // the same policy from another worker
    for (int i = 0; i < 200; ++i)
        QVERIFY(a->createOperation(QStringLiteral("e"), QStringLiteral("key-%1").arg(i), kNow,
                                   QStringLiteral("p"), QStringLiteral("k1")));
    // Three workers claim greedily every 50 ms for 30 s; every claim is a send.
    QList<qint64> sends;
    Store *workers[] = {a.get(), b.get(), c.get()};
    for (qint64 t = kNow; t < kNow + 30'000; t += 50) {
        for (int w = 0; w < 3; ++w) {
            const QString id = QStringLiteral("w%1").arg(w);
            const QList<OperationRecord> claimed = workers[w]->claims().claimDue(id, t, kLease, 8);
            QVERIFY2(claimed.size() <= 8, qPrintable(workers[w]->lastError()));
            for (int i = 0; i < claimed.size(); ++i)
                sends.append(t);
        }
    }
    // Two at once, then one every 500 ms: 11 in the busiest 5 s (limit + burst = 12),
    // and 2 + 59 in all.
    QCOMPARE(maxInWindow(sends, 5000), 11);
    QCOMPARE(sends.size(), 2 + 59);
}

void tst_FleetStore::backlogDelaysNoOtherPartition()
{
    auto store = open();
    QVERIFY(store);
    paced(*store, QStringLiteral("slow"), 1, 60, 0);
    paced(*store, QStringLiteral("quick"), 100, 1, 100);
    for (int i = 0; i < 2000; ++i)
        QVERIFY(store->createOperation(QStringLiteral("bulk"), QStringLiteral("b%1").arg(i),
                                       kNow - 60'000 + i, QStringLiteral("p"),
                                       QStringLiteral("slow")));
    for (int i = 0; i < 5; ++i)
        QVERIFY(store->createOperation(QStringLiteral("other"), QStringLiteral("o%1").arg(i), kNow,
                                       QStringLiteral("p"), QStringLiteral("quick")));
    for (int i = 0; i < 3; ++i)
        QVERIFY(
            store->createOperation(QStringLiteral("monitor"), QStringLiteral("m%1").arg(i), kNow));
    // One round takes one of each lane, then the lanes that still offer: the slow
    // partition's single token, four of "quick" and the three without a policy.
    QList<OperationRecord> claimed = store->claims().claimDue(QStringLiteral("w"), kNow, kLease, 8);
    QStringList keys = partitionKeys(claimed);
    QCOMPARE(keys.count(QStringLiteral("slow")), 1);
    QCOMPARE(keys.count(QStringLiteral("-")), 3);
    QCOMPARE(keys.count(QStringLiteral("quick")), 4);
    // The backlog holds no claim and no lease while it waits for its token.
    claimed = store->claims().claimDue(QStringLiteral("w"), kNow + 1, kLease, 8);
    QCOMPARE(partitionKeys(claimed), QStringList{QStringLiteral("quick")});
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 2, kLease, 8).isEmpty());
    QCOMPARE(store->countsByState().value(OperationState::Running), 9);

    // The store knows when to look again: the slow partition's next token.
    const auto next = store->claims().nextDueAtMs();
    QVERIFY(next);
    QCOMPARE(*next, kNow + 60'000);
    const QList<PartitionState> partitions = store->partitions(kNow + 2).value();
    QCOMPARE(partitions.size(), 2);
    const PartitionState &slow = partitions.at(1);
    QCOMPARE(slow.partitionKey, QStringLiteral("slow"));
    QCOMPARE(slow.availableUnits, 0);
    QCOMPARE(slow.nextTokenAtMs, kNow + 60'000);
    QCOMPARE(slow.pending, 1999);
    QCOMPARE(slow.due, 1999);
    QCOMPARE(partitions.at(0).pending, 0);

    // A new operation without a policy is claimed at once, backlog or not.
    QVERIFY(store->createOperation(QStringLiteral("monitor"), QStringLiteral("m9"), kNow + 3));
    claimed = store->claims().claimDue(QStringLiteral("w"), kNow + 3, kLease, 8);
    QCOMPARE(partitionKeys(claimed), QStringList{QStringLiteral("-")});
    // And the slow partition gets its next token a minute after the first.
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 59'999, kLease, 8).isEmpty());
    claimed = store->claims().claimDue(QStringLiteral("w"), kNow + 60'000, kLease, 8);
    QCOMPARE(partitionKeys(claimed), QStringList{QStringLiteral("slow")});
}

void tst_FleetStore::claimsTakePartitionsInTurn()
{
    // Many partitions, each with plenty of tokens and work: consecutive claims of two
    // visit every partition before any is served twice.
    auto store = open();
    QVERIFY(store);
    const int partitionCount = 6;
    for (int p = 0; p < partitionCount; ++p) {
        paced(*store, QStringLiteral("k%1").arg(p), 1000, 1, 1000);
        for (int i = 0; i < 10; ++i)
            QVERIFY(store->createOperation(QStringLiteral("e"),
                                           QStringLiteral("%1-%2").arg(p).arg(i), kNow - 1000 + p,
                                           QStringLiteral("p"), QStringLiteral("k%1").arg(p)));
    }
    QStringList served;
    for (int round = 0; round < 3; ++round)
        served +=
            partitionKeys(store->claims().claimDue(QStringLiteral("w"), kNow + round, kLease, 2));
    QCOMPARE(served.size(), partitionCount);
    QCOMPARE(QSet<QString>(served.cbegin(), served.cend()).size(), partitionCount);
}

void tst_FleetStore::holdStopsEveryWorker()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    paced(*a, QStringLiteral("k1"), 100, 1, 100);
    // Worker A got a 429 with Retry-After: 30.
    QVERIFY(a->snoozePartition(QStringLiteral("p"), QStringLiteral("k1"), kNow + 30'000,
                               QStringLiteral("429 retry-after 30 s")) >= 0);
    // Work that arrives afterwards, due now, waits for the hold at worker B too.
    QVERIFY(b->createOperation(QStringLiteral("e"), QStringLiteral("x"), kNow + 1000,
                               QStringLiteral("p"), QStringLiteral("k1")));
    QVERIFY(b->createOperation(QStringLiteral("free"), QStringLiteral("y"), kNow + 1000));
    QCOMPARE(partitionKeys(b->claims().claimDue(QStringLiteral("b"), kNow + 1000, kLease, 8)),
             QStringList{QStringLiteral("-")});
    QVERIFY(b->claims().claimDue(QStringLiteral("b"), kNow + 29'999, kLease, 8).isEmpty());
    const QList<PartitionState> partitions = b->partitions(kNow + 2000).value();
    QCOMPARE(partitions.size(), 1);
    QCOMPARE(partitions.first().heldUntilMs, kNow + 30'000);
    QCOMPARE(partitions.first().holdReason, QStringLiteral("429 retry-after 30 s"));
    QCOMPARE(b->claims().claimDue(QStringLiteral("b"), kNow + 30'000, kLease, 8).size(), 1);

    // An operator's lift frees it for everyone at once.
    QVERIFY(a->snoozePartition(QStringLiteral("p"), QStringLiteral("k1"), kNow + 90'000) >= 0);
    QVERIFY(b->createOperation(QStringLiteral("e"), QStringLiteral("z"), kNow + 31'000,
                               QStringLiteral("p"), QStringLiteral("k1")));
    QVERIFY(b->claims().claimDue(QStringLiteral("b"), kNow + 31'000, kLease, 8).isEmpty());
    QVERIFY(a->liftPartitionSnooze(QStringLiteral("p"), QStringLiteral("k1"), kNow + 90'000,
                                   kNow + 32'000) >= 0);
    QCOMPARE(b->claims().claimDue(QStringLiteral("b"), kNow + 32'000, kLease, 8).size(), 1);
}

void tst_FleetStore::liftFreesAHoldThisWorkerNeverSaw()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    paced(*a, QStringLiteral("k1"), 100, 1, 100);
    QVERIFY(b->createOperation(QStringLiteral("e"), QStringLiteral("x"), kNow, QStringLiteral("p"),
                               QStringLiteral("k1")));
    // Worker A's 429 pushes B's work back; B's operator lifts it, knowing no end.
    QVERIFY(a->snoozePartition(QStringLiteral("p"), QStringLiteral("k1"), kNow + 60'000,
                               QStringLiteral("429 retry-after 60 s")) == 1);
    QVERIFY(b->claims().claimDue(QStringLiteral("b"), kNow + 1000, kLease, 8).isEmpty());
    QCOMPARE(b->liftPartitionSnooze(QStringLiteral("p"), QStringLiteral("k1"), -1, kNow + 2000), 1);
    QCOMPARE(b->partitions(kNow + 2000).value().first().heldUntilMs, 0);
    QCOMPARE(b->claims().claimDue(QStringLiteral("b"), kNow + 2000, kLease, 8).size(), 1);
}

void tst_FleetStore::forcedBypassesTheBucketAndIsCounted()
{
    auto store = open();
    QVERIFY(store);
    paced(*store, QStringLiteral("k1"), 10, 5, 0); // one at once, one every 500 ms
    const auto first = store->createOperation(QStringLiteral("e"), QStringLiteral("a"), kNow - 2,
                                              QStringLiteral("p"), QStringLiteral("k1"));
    const auto second = store->createOperation(QStringLiteral("e"), QStringLiteral("b"), kNow - 1,
                                               QStringLiteral("p"), QStringLiteral("k1"));
    const auto third = store->createOperation(QStringLiteral("e"), QStringLiteral("c"), kNow,
                                              QStringLiteral("p"), QStringLiteral("k1"));
    QVERIFY(first && second && third);
    const QList<OperationRecord> paced =
        store->claims().claimDue(QStringLiteral("w"), kNow, kLease, 8);
    QCOMPARE(paced.size(), 1);
    QCOMPARE(paced.first().id, *first);
    QCOMPARE(store->retryNow(*third, kNow + 100, true), Store::OperatorResult::Done);
    const QList<OperationRecord> forced =
        store->claims().claimDue(QStringLiteral("w"), kNow + 100, kLease, 8);
    QCOMPARE(forced.size(), 1);
    QCOMPARE(forced.first().id, *third);
    QVERIFY(forced.first().forceNext);
    // The forced send spent the next token too: the second waits one interval more.
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 999, kLease, 8).isEmpty());
    const QList<OperationRecord> next =
        store->claims().claimDue(QStringLiteral("w"), kNow + 1000, kLease, 8);
    QCOMPARE(next.size(), 1);
    QCOMPARE(next.first().id, *second);
}

void tst_FleetStore::byteCosts()
{
    auto store = open();
    QVERIFY(store);
    // 1000 bytes a second, 600 at once; bodies of 400 bytes.
    QCOMPARE(store->ensurePartition(QStringLiteral("bytes"), QStringLiteral("k"), 1,
                                    QStringLiteral("{}"), Gcra::forLimit(1000, 1000, 600)),
             Store::PaceResult::Written);
    for (int i = 0; i < 4; ++i)
        QVERIFY(store->createOperation(QStringLiteral("upload"), QStringLiteral("u%1").arg(i), kNow,
                                       QStringLiteral("bytes"), QStringLiteral("k"), 400));
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow, kLease, 8).size(), 1);
    // 200 bytes left; 400 more are there 200 ms later.
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 199, kLease, 8).isEmpty());
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow + 200, kLease, 8).size(), 1);
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 599, kLease, 8).isEmpty());
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow + 600, kLease, 8).size(), 1);
}

void tst_FleetStore::periodicTickOncePerFleet()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    QHash<QString, TickEndpoint> endpoints;
    endpoints.insert(QStringLiteral("check"), {QStringLiteral("check"), {}, {}, 1, {}});
    const auto newKey = tickKeys();
    QVERIFY(a->ensureTick(QStringLiteral("check"), 1000, kNow));
    QVERIFY(b->ensureTick(QStringLiteral("check"), 1000, kNow + 5000)); // exists: kept
    QCOMPARE(a->nextTickAtMs(), std::optional<qint64>(kNow));

    // Both workers see the tick due; one wins it.
    QList<qint64> won = a->runDueTicks(kNow, endpoints, newKey);
    QCOMPARE(won.size(), 1);
    QVERIFY(b->runDueTicks(kNow, endpoints, newKey).isEmpty());
    QCOMPARE(b->nextTickAtMs(), std::optional<qint64>(kNow + 1000));

    // While the tick's operation is unfinished the next tick passes without one.
    QVERIFY(b->runDueTicks(kNow + 1000, endpoints, newKey).isEmpty());
    QCOMPARE(a->nextTickAtMs(), std::optional<qint64>(kNow + 2000));
    QCOMPARE(a->cancel(won.first(), kNow + 1500), Store::OperatorResult::Done);

    // Ticks missed while no worker ran come back as one, on the period's grid.
    won = b->runDueTicks(kNow + 10'500, endpoints, newKey);
    QCOMPARE(won.size(), 1);
    QVERIFY(a->runDueTicks(kNow + 10'500, endpoints, newKey).isEmpty());
    QCOMPARE(a->nextTickAtMs(), std::optional<qint64>(kNow + 11'000));
    QCOMPARE(a->operations({}).size(), 2);

    // A worker that does not know the endpoint leaves its tick to one that does.
    QVERIFY(a->ensureTick(QStringLiteral("unknown"), 1000, kNow + 11'000));
    QCOMPARE(a->cancel(won.first(), kNow + 10'600), Store::OperatorResult::Done);
    won = a->runDueTicks(kNow + 11'000, endpoints, newKey);
    QCOMPARE(won.size(), 1);
    QCOMPARE(a->nextTickAtMs(), std::optional<qint64>(kNow + 11'000)); // "unknown" waits

    // A paused endpoint's tick moves on without an operation.
    QCOMPARE(a->cancel(won.first(), kNow + 11'100), Store::OperatorResult::Done);
    QVERIFY(a->setEndpointPaused(QStringLiteral("check"), true, kNow + 11'100));
    QVERIFY(a->runDueTicks(kNow + 12'000, endpoints, newKey).isEmpty());
    QCOMPARE(a->operations({}).size(), 3);
}

void tst_FleetStore::ticksAndClaimsAhead()
{
    auto store = open();
    QVERIFY(store);
    QHash<QString, TickEndpoint> endpoints;
    endpoints.insert(QStringLiteral("check"), {QStringLiteral("check"), {}, {}, 1, {}});
    const auto newKey = tickKeys();
    QVERIFY(store->ensureTick(QStringLiteral("check"), 1000, kNow + 30));

    // A tick beyond the horizon waits; one within it is made now, due at its tick.
    QVERIFY(store->runDueTicks(kNow, endpoints, newKey, 29).isEmpty());
    QVERIFY(store->lastError().isEmpty());
    const QList<qint64> made = store->runDueTicks(kNow, endpoints, newKey, 30);
    QCOMPARE(made.size(), 1);
    const auto tick = store->operation(made.first());
    QVERIFY(tick);
    QCOMPARE(tick->nextAttemptAtMs, kNow + 30);
    QCOMPARE(tick->state, OperationState::Scheduled);
    QCOMPARE(store->nextTickAtMs(), std::optional<qint64>(kNow + 1030));

    // The same horizon for claims: an operation with nothing to pace it is taken up to
    // aheadMs before it is due, and not earlier.
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow, kLease, 8, {}, 29).isEmpty());
    QList<OperationRecord> claimed =
        store->claims().claimDue(QStringLiteral("w"), kNow, kLease, 8, {}, 30);
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(claimed.first().id, made.first());
    QCOMPARE(claimed.first().nextAttemptAtMs, kNow + 30); // the caller waits for it
    finishAll(*store, claimed, QStringLiteral("w"));

    // So is one in a partition nothing paces yet (a host's learned partition)...
    const QString learned = QStringLiteral("learned:a.test");
    QVERIFY(store->ensureLearnedPartition(learned));
    QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("learned"), kNow + 40,
                                   learned, {}, 1, QStringLiteral("a.test")));
    // ...but not one in a paced partition, although its bucket is full: the unit is
    // taken when it is due, as it is sent.
    paced(*store, QStringLiteral("k"), 10, 1, 2);
    QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("paced"), kNow + 40,
                                   QStringLiteral("p"), QStringLiteral("k")));
    claimed = store->claims().claimDue(QStringLiteral("w"), kNow, kLease, 8, {}, 50);
    QCOMPARE(partitionKeys(claimed), QStringList{QString()});
    QCOMPARE(claimed.first().policyId, learned);
    finishAll(*store, claimed, QStringLiteral("w"));
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 39, kLease, 8, {}, 50).isEmpty());
    claimed = store->claims().claimDue(QStringLiteral("w"), kNow + 40, kLease, 8, {}, 50);
    QCOMPARE(partitionKeys(claimed), QStringList{QStringLiteral("k")});
}

void tst_FleetStore::ticksMakeTheRowsTheirClaimsNeed()
{
    auto store = open();
    QVERIFY(store);
    // A periodic endpoint in its host's learned partition. Its endpoint row is there,
    // its partition's is not: the tick makes it, or no claim would find the operation.
    const QString learned = QStringLiteral("learned:b.test");
    QHash<QString, TickEndpoint> endpoints;
    endpoints.insert(QStringLiteral("probe"),
                     {QStringLiteral("probe"), learned, {}, 1, QStringLiteral("b.test")});
    const auto newKey = tickKeys();
    QVERIFY(store->upsertEndpoint(QStringLiteral("probe"), QStringLiteral("probe"), kNow));
    QVERIFY(store->ensureTick(QStringLiteral("probe"), 1000, kNow));
    QList<qint64> made = store->runDueTicks(kNow, endpoints, newKey);
    QCOMPARE(made.size(), 1);
    QList<OperationRecord> claimed = store->claims().claimDue(QStringLiteral("w"), kNow, kLease, 8);
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(claimed.first().id, made.first());
    QCOMPARE(claimed.first().policyId, learned);
    finishAll(*store, claimed, QStringLiteral("w"));

    // The next tick finds both rows there and inserts its operation alone; it is
    // claimed the same way.
    made = store->runDueTicks(kNow + 1000, endpoints, newKey);
    QCOMPARE(made.size(), 1);
    claimed = store->claims().claimDue(QStringLiteral("w"), kNow + 1000, kLease, 8);
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(claimed.first().id, made.first());
    finishAll(*store, claimed, QStringLiteral("w"));

    // An endpoint with no row at all (a database another version made) gets one too.
    endpoints.insert(QStringLiteral("fresh"),
                     {QStringLiteral("fresh"), learned, {}, 1, QStringLiteral("b.test")});
    QVERIFY(store->ensureTick(QStringLiteral("fresh"), 1000, kNow + 2000));
    made = store->runDueTicks(kNow + 2000, endpoints, newKey);
    QCOMPARE(made.size(), 2);
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow + 2000, kLease, 8).size(), 2);
}

void tst_FleetStore::dueWorkBeforeWorkAhead()
{
    auto store = open();
    QVERIFY(store);
    // A partition nothing paces, whose work is due soon, comes first in the claim's
    // round (partitions before the operations without one)...
    const QString learned = QStringLiteral("learned:a.test");
    QVERIFY(store->ensureLearnedPartition(learned));
    QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("soon"), kNow + 30, learned,
                                   {}, 1, QStringLiteral("a.test")));
    // ...but work due now has the room first, whichever lane it is in.
    QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("now"), kNow));
    QList<OperationRecord> claimed =
        claimAs(*store, QStringLiteral("w"), kNow, kLease, 1, {}, 50).operations;
    QCOMPARE(partitionKeys(claimed), QStringList{QStringLiteral("-")}); // no partition
    QCOMPARE(claimed.first().nextAttemptAtMs, kNow);
    finishAll(*store, claimed, QStringLiteral("w"));
    // The same when the fleet's permits are what is short.
    QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("now2"), kNow));
    claimed = claimAs(*store, QStringLiteral("w"), kNow, kLease, 8, {1, 0}, 50).operations;
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(claimed.first().policyId, QString());
    QVERIFY(lastClaim(*store).capped);
    finishAll(*store, claimed, QStringLiteral("w"));
    // Room left over takes the work ahead.
    claimed = claimAs(*store, QStringLiteral("w"), kNow, kLease, 8, {}, 50).operations;
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(claimed.first().policyId, learned);
    QCOMPARE(claimed.first().nextAttemptAtMs, kNow + 30);
}

void tst_FleetStore::concurrencyHoldsForTheFleet()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    for (int i = 0; i < 20; ++i)
        QVERIFY(a->createOperation(
            QStringLiteral("e"), QStringLiteral("k%1").arg(i), kNow - 100 + i, {}, {}, 1,
            i % 2 ? QStringLiteral("one.test") : QStringLiteral("two.test")));
    const FleetConcurrency limits{4, 3};
    // Worker A alone may take every permit, but no more than three for one host.
    QList<OperationRecord> first =
        claimAs(*a, QStringLiteral("a"), kNow, 60'000, 16, limits).operations;
    QCOMPARE(first.size(), 4);
    QVERIFY(lastClaim(*a).capped);
    // Worker B finds none left, and says it wants some.
    QVERIFY(claimAs(*b, QStringLiteral("b"), kNow, 60'000, 16, limits).operations.isEmpty());
    QVERIFY(lastClaim(*b).capped);
    // A's attempts end; with B waiting, A takes no more than half the permits.
    finishAll(*a, first, QStringLiteral("a"));
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(claimAs(*a, QStringLiteral("a"), kNow + 10, 60'000, 16, limits).operations.size(), 2);
    QCOMPARE(claimAs(*b, QStringLiteral("b"), kNow + 20, 60'000, 16, limits).operations.size(), 2);
    QVERIFY(claimAs(*a, QStringLiteral("a"), kNow + 30, 60'000, 16, limits).operations.isEmpty());
    // A worker that dies keeps its permits only until its leases expire.
    const QList<OperationRecord> later =
        claimAs(*b, QStringLiteral("b"), kNow + 60'010, 60'000, 16, limits).operations;
    qsizetype sent = 0;
    for (const OperationRecord &op : later)
        sent += op.rescued ? 0 : 1;
    QCOMPARE(later.size() - sent, 2); // A's two, rescued
    // B had two; alone now (A's wants expired with its leases), it may fill the four.
    QCOMPARE(sent, 2);
    // A rescue sends nothing: it holds a lease, not a permit, and has none to hand on.
    const QList<WorkerLeases> leases = b->workers();
    QCOMPARE(leases.size(), qsizetype(1));
    QCOMPARE(leases.first().running, qint64(6)); // its four permits and the two rescues
    QCOMPARE(leases.first().onStandby, qint64(2));
}

void tst_FleetStore::perHostPermitsHoldForTheFleet()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    for (int i = 0; i < 6; ++i)
        QVERIFY(a->createOperation(QStringLiteral("busy"), QStringLiteral("b%1").arg(i), kNow - 10,
                                   {}, {}, 1, QStringLiteral("busy.test")));
    QVERIFY(a->createOperation(QStringLiteral("other"), QStringLiteral("o"), kNow, {}, {}, 1,
                               QStringLiteral("other.test")));
    const FleetConcurrency limits{10, 2};
    QCOMPARE(claimAs(*a, QStringLiteral("a"), kNow, 60'000, 1, limits).operations.size(), 1);
    // B may take one more for busy.test, and the other host's operation beside it.
    const QList<OperationRecord> claimed =
        claimAs(*b, QStringLiteral("b"), kNow, 60'000, 16, limits).operations;
    QStringList endpoints;
    for (const OperationRecord &op : claimed)
        endpoints.append(op.endpointId);
    endpoints.sort();
    QCOMPARE(endpoints, (QStringList{QStringLiteral("busy"), QStringLiteral("other")}));
    QVERIFY(lastClaim(*b).capped);
    QVERIFY(claimAs(*a, QStringLiteral("a"), kNow + 1, 60'000, 16, limits).operations.isEmpty());
}

// per_host above what one process sends to a host (a fleet's): a worker takes no more
// of it than its own cap, and, while others hold or want permits, no more than an even
// share, so that permits do not queue in one worker while another could send.
void tst_FleetStore::perHostIsSharedAndCappedPerWorker()
{
    auto a = open();
    auto b = open();
    auto c = open();
    QVERIFY(a && b && c);
    for (int i = 0; i < 40; ++i)
        QVERIFY(a->createOperation(QStringLiteral("bulk"), QStringLiteral("k%1").arg(i),
                                   kNow - 100 + i, {}, {}, 1, QStringLiteral("api.test")));
    const FleetConcurrency limits{48, 24, 12};
    QCOMPARE(claimAs(*a, QStringLiteral("a"), kNow, kLease, 40, limits).operations.size(), 12);
    // B beside A: half of per_host each, and B's own cap is 12 too.
    QCOMPARE(claimAs(*b, QStringLiteral("b"), kNow, kLease, 40, limits).operations.size(), 12);
    // The host's 24 are taken: C gets none and says it wants some.
    QVERIFY(claimAs(*c, QStringLiteral("c"), kNow, kLease, 40, limits).operations.isEmpty());
    QVERIFY(lastClaim(*c).capped);
    // A's attempts end; with B and C contending, A's share is 8 of the 24.
    QList<OperationRecord> runningOfA;
    for (const OperationRecord &op : a->operations({})) {
        if (op.state == OperationState::Running && op.leaseOwner == QLatin1String("a"))
            runningOfA.append(op);
    }
    finishAll(*a, runningOfA, QStringLiteral("a"));
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(claimAs(*a, QStringLiteral("a"), kNow + 10, kLease, 40, limits).operations.size(), 8);
    QCOMPARE(claimAs(*c, QStringLiteral("c"), kNow + 20, kLease, 40, limits).operations.size(), 4);
}

// Beyond its permits a worker may take operations on standby, no more per host than
// it holds permits of that host; they hold leases, not permits. An attempt's record
// hands its permit to one of them, so the fleet's count stays the same.
void tst_FleetStore::standbyTakesOverPermitsInTheRecord()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    for (int i = 0; i < 12; ++i)
        QVERIFY(a->createOperation(QStringLiteral("bulk"), QStringLiteral("k%1").arg(i),
                                   kNow - 100 + i, {}, {}, 1, QStringLiteral("api.test")));
    for (int i = 0; i < 2; ++i)
        QVERIFY(a->createOperation(QStringLiteral("other"), QStringLiteral("o%1").arg(i),
                                   kNow - 50 + i, {}, {}, 1, QStringLiteral("other.test")));
    const FleetConcurrency limits{3, 2, 0, 6};
    // Two permits for api.test, one for other.test; two on standby for api.test (as
    // many as A holds of it), one for other.test.
    const QList<OperationRecord> first =
        claimAs(*a, QStringLiteral("a"), kNow, kLease, 16, limits).operations;
    QCOMPARE(first.size(), 6);
    const QSet<qint64> standby = lastClaim(*a).onStandby;
    QCOMPARE(standby.size(), 3);
    QVERIFY(lastClaim(*a).capped); // more is due than permits and standby allow
    QList<OperationRecord> permitted;
    QList<OperationRecord> waiting;
    for (const OperationRecord &op : first)
        (standby.contains(op.id) ? waiting : permitted).append(op);
    const QList<WorkerLeases> leases = a->workers();
    QCOMPARE(leases.size(), qsizetype(1));
    QCOMPARE(leases.first().running, qint64(6));
    QCOMPARE(leases.first().onStandby, qint64(3));
    // B holds no permit to hand over: nothing on standby for it either.
    QVERIFY(claimAs(*b, QStringLiteral("b"), kNow, kLease, 16, limits).operations.isEmpty());
    QVERIFY(lastClaim(*b).onStandby.isEmpty());
    QVERIFY(lastClaim(*b).capped);

    // One of A's attempts to api.test ends, handing its permit to one on standby: the
    // fleet's permits are all still taken.
    const OperationRecord &ended =
        *std::find_if(permitted.cbegin(), permitted.cend(), [](const OperationRecord &op) {
            return op.endpointId == QLatin1String("bulk");
        });
    const OperationRecord &heir =
        *std::find_if(waiting.cbegin(), waiting.cend(), [](const OperationRecord &op) {
            return op.endpointId == QLatin1String("bulk");
        });
    OperationRecord done = ended;
    done.state = OperationState::Succeeded;
    Store::FinishRequest handOver{test::nextAttempt(ended, kNow + 5), done, ended.version};
    handOver.permitTo = heir.id;
    handOver.permitToVersion = heir.version;
    const QList<Store::FinishOutcome> outcomes =
        a->finishAttempts({handOver}, QStringLiteral("a"), {});
    QCOMPARE(outcomes.size(), qsizetype(1));
    QCOMPARE(outcomes.first().result, Store::FinishResult::Committed);
    QCOMPARE(a->workers().first().onStandby, qint64(2));
    QVERIFY(claimAs(*b, QStringLiteral("b"), kNow + 10, kLease, 16, limits).operations.isEmpty());
    // With B wanting permits, A holds more than its even share (3 of 3): it takes
    // nothing more on standby, or the permits it hands over would never reach B.
    QVERIFY(claimAs(*a, QStringLiteral("a"), kNow + 15, kLease, 16, limits).operations.isEmpty());

    // The heir's attempt ends without handing its permit on: it is free for the fleet.
    // B, waiting, takes it and one on standby for it; A, whose share is now half and
    // whose standby matches its permits, takes nothing.
    finishAll(*a, {heir}, QStringLiteral("a"));
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(claimAs(*b, QStringLiteral("b"), kNow + 20, kLease, 16, limits).operations.size(), 2);
    QCOMPARE(lastClaim(*b).onStandby.size(), 1);
    QVERIFY(claimAs(*a, QStringLiteral("a"), kNow + 30, kLease, 16, limits).operations.isEmpty());
    QVERIFY(lastClaim(*a).capped);
}

// PostgreSQL: while another worker's claim counts the fleet's permits (the advisory
// lock), a claim takes nothing and says so at once instead of waiting for it.
void tst_FleetStore::contendedClaimTakesNothingAndDoesNotWait()
{
    if (isSqlite())
        QSKIP("SQLite claims queue on its write lock within the busy timeout");
    auto a = open();
    QVERIFY(a);
    QVERIFY(a->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow - 10));
    const QUrl url(m_url);
    const QString connection = QStringLiteral("tst-fleetstore-lock");
    {
        QSqlDatabase other = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), connection);
        other.setHostName(url.host());
        other.setPort(url.port(5432));
        other.setUserName(url.userName());
        other.setPassword(url.password());
        other.setDatabaseName(url.path().mid(1));
        QVERIFY2(other.open(), qPrintable(other.lastError().text()));
        QVERIFY(other.transaction());
        QSqlQuery lock(other);
        QVERIFY2(lock.exec(QStringLiteral("SELECT pg_advisory_xact_lock(4242002)")),
                 qPrintable(lock.lastError().text()));
        const FleetConcurrency limits{4, 4};
        QVERIFY(claimAs(*a, QStringLiteral("a"), kNow, kLease, 4, limits).operations.isEmpty());
        QVERIFY(lastClaim(*a).contended);
        QVERIFY(a->lastError().isEmpty());
        QVERIFY(other.commit());
        QCOMPARE(claimAs(*a, QStringLiteral("a"), kNow + 1, kLease, 4, limits).operations.size(),
                 1);
        QVERIFY(!lastClaim(*a).contended);
    }
    QSqlDatabase::removeDatabase(connection);
}

void tst_FleetStore::newerPolicyVersionIsKept()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    QCOMPARE(a->ensurePartition(QStringLiteral("p"), QStringLiteral("k"), 2, QStringLiteral("{v2}"),
                                Gcra::forLimit(10, 5000, 2)),
             Store::PaceResult::Written);
    // A worker still on version 1 does not overwrite the fleet's bucket.
    QString stored;
    QCOMPARE(b->ensurePartition(QStringLiteral("p"), QStringLiteral("k"), 1, QStringLiteral("{v1}"),
                                Gcra::forLimit(100, 5000, 50), &stored),
             Store::PaceResult::KeptNewer);
    QCOMPARE(stored, QStringLiteral("{v2}"));
    // The same version with another definition is a conflict, reported, not merged.
    QCOMPARE(b->ensurePartition(QStringLiteral("p"), QStringLiteral("k"), 2,
                                QStringLiteral("{other}"), Gcra::forLimit(100, 5000, 50), &stored),
             Store::PaceResult::Conflict);
    QCOMPARE(b->partitions(kNow).value().first().pace, Gcra::forLimit(10, 5000, 2));
    // A newer version takes over, tokens and all.
    QCOMPARE(b->ensurePartition(QStringLiteral("p"), QStringLiteral("k"), 3, QStringLiteral("{v3}"),
                                Gcra::forLimit(20, 5000, 4)),
             Store::PaceResult::Written);
    QCOMPARE(a->partitions(kNow).value().first().policyVersion, 3);
    QCOMPARE(a->partitions(kNow).value().first().pace, Gcra::forLimit(20, 5000, 4));
}

void tst_FleetStore::databaseClockPacesSkewedWorkers()
{
    if (isSqlite())
        QSKIP("SQLite workers share one machine's clock; the database clock is PostgreSQL's");
    auto ahead = open(true);
    auto behind = open(true);
    QVERIFY(ahead && behind);
    paced(*ahead, QStringLiteral("k1"), 10, 50, 2); // two at once, then one every 5 s
    const qint64 real = QDateTime::currentMSecsSinceEpoch();
    for (int i = 0; i < 10; ++i)
        QVERIFY(ahead->createOperation(QStringLiteral("e"), QStringLiteral("k%1").arg(i),
                                       real - 3'600'000, QStringLiteral("p"),
                                       QStringLiteral("k1")));
    // Clocks three minutes apart either way: with each worker's own clock the one
    // behind would find the bucket full again, as three minutes of refill.
    QCOMPARE(ahead->claims().claimDue(QStringLiteral("ahead"), real + 180'000, kLease, 8).size(),
             2);
    QCOMPARE(behind->claims().claimDue(QStringLiteral("behind"), real - 180'000, kLease, 8).size(),
             0);
    const PartitionState state = behind->partitions(real - 180'000).value().first();
    QCOMPARE(state.availableUnits, 0);
    // The next token is about 5 s after the database's now, whatever the workers say.
    QVERIFY2(qAbs(state.nextTokenAtMs - (real + 5000)) < 2500,
             qPrintable(QString::number(state.nextTokenAtMs - real)));
    QCOMPARE(ahead->claims().claimDue(QStringLiteral("ahead"), real + 360'000, kLease, 8).size(),
             0);
}

// A server that states nothing: the refusals one worker records set the host's pace,
// and another worker's claims keep to it, one at a time.
void tst_FleetStore::measuredPaceIsShared()
{
    auto a = open();
    auto b = open();
    QVERIFY(a && b);
    const QString host = QStringLiteral("learned:nginx.test");
    QVERIFY(a->ensureLearnedPartition(host));
    for (int i = 0; i < 20; ++i)
        QVERIFY(a->createOperation(QStringLiteral("e"), QStringLiteral("key-%1").arg(i), kNow, host,
                                   QString()));
    const QList<OperationRecord> burst = a->claims().claimDue(QStringLiteral("a"), kNow, kLease, 8);
    QCOMPARE(burst.size(), 8); // nothing learned yet: not paced
    // Six accepted, then two refused with Retry-After: 1, recorded in one group commit.
    QList<Store::FinishRequest> answers;
    for (int i = 0; i < burst.size(); ++i) {
        const bool refused = i >= 6;
        AttemptRecord attempt = test::nextAttempt(burst.at(i), kNow, kNow + 10 + i);
        attempt.status = refused ? 429 : 200;
        attempt.waitMs = refused ? 1000 : 0;
        attempt.waitSource = refused ? WaitSource::RetryAfter : WaitSource::None;
        attempt.retryAfterRaw = refused ? QStringLiteral("1") : QString();
        OperationRecord next = burst.at(i);
        next.state = refused ? OperationState::Waiting : OperationState::Succeeded;
        next.nextAttemptAtMs = refused ? attempt.finishedAtMs + 1000 : -1;
        answers.append({attempt, next, burst.at(i).version});
    }
    for (const Store::FinishOutcome &outcome : a->finishAttempts(answers, QStringLiteral("a")))
        QCOMPARE(outcome.result, Store::FinishResult::Committed);

    // Six went through in the second nginx asked to wait: one every 166.7 ms.
    const QList<PartitionState> partitions = b->partitions(kNow + 100).value();
    QCOMPARE(partitions.size(), 1);
    QCOMPARE(partitions.first().server.quota, 0);
    QCOMPARE(partitions.first().pace.intervalUs, 1'000'000 / 6);
    QCOMPARE(partitions.first().pace.capacity, 1);
    QVERIFY2(partitions.first().learnedFrom.startsWith(
                 QLatin1String("429 after 6 accepted answers in 0.0 s, Retry-After: 1")),
             qPrintable(partitions.first().learnedFrom));

    // Worker B, claiming greedily every 10 ms, sends the rest one at a time at that pace.
    QList<qint64> sends;
    for (qint64 t = kNow + 1100; t < kNow + 3100; t += 10) {
        const QList<OperationRecord> claimed =
            b->claims().claimDue(QStringLiteral("b"), t, kLease, 8);
        QVERIFY2(claimed.size() <= 1, qPrintable(QString::number(claimed.size())));
        for (int i = 0; i < claimed.size(); ++i)
            sends.append(t);
    }
    QCOMPARE(sends.size(), 12); // 14 waiting; 2 s at one every 166.7 ms, the first at once
    for (int i = 1; i < sends.size(); ++i)
        QVERIFY2(sends.at(i) - sends.at(i - 1) >= 160, qPrintable(QString::number(i)));
}

QTEST_GUILESS_MAIN(tst_FleetStore)
#include "tst_fleetstore.moc"
