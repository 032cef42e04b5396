// SPDX-License-Identifier: Apache-2.0
// What a claim decides, without a database (core/store/ClaimPlanner): the fleet's even
// shares of permits, per-host caps, places on standby, the partitions' pace and the
// rounds that take one due operation from each partition in turn (docs/fleet.md).

#include "core/store/ClaimPlanner.h"

#include <QTest>

#include <vector>

using namespace cooldown;

namespace {

constexpr qint64 kNowMs = 1'800'000'000'000;
constexpr qint64 kNowUs = kNowMs * 1000;

ClaimLane lane(const QString &policy, const QList<ClaimCandidate> &candidates)
{
    ClaimLane l;
    l.policyId = policy;
    l.partitionKey = QStringLiteral("p");
    l.candidates = candidates;
    l.wanted = candidates.size();
    return l;
}

ClaimCandidate due(qint64 id, const QString &host = QStringLiteral("a.example"),
                   qint64 dueAtMs = kNowMs, qint64 cost = 1)
{
    return {id, cost, host, dueAtMs};
}

FleetPermits permitsOf(int maxInFlight, int perHost, int contenders = 1)
{
    FleetPermits p;
    p.limits.maxInFlight = maxInFlight;
    p.limits.perHost = perHost;
    p.contenders = contenders;
    return p;
}

} // namespace

class tst_ClaimPlanner : public QObject
{
    Q_OBJECT

private slots:
    void unlimitedPermitsAreAlwaysFree();
    void oneWorkerMayTakeEveryPermit();
    void contendersShareEvenlyRoundedUp();
    void aHostIsFullFleetWideOrAtTheWorkersShare();
    void standbyIsOnePerHeldPermitWithinTheShare();
    void roundsTakeOneFromEachLaneInTurn();
    void roomBoundsTheRoundsAndWorkLeftIsCappedOnlyForWantOfPermits();
    void aPacedLaneGivesOnlyItsUnits();
    void aCostAboveCapacityGoesOnceTheBucketIsFull();
    void workDueNowGoesBeforeWorkAhead();
    void aHostWithoutPermitIsPassedOverAndCapsTheClaim();
    void standbyTakesBeyondThePermits();
    void aStatedWindowPacesTheLane();
    void readyAndNextOfALane();
};

void tst_ClaimPlanner::unlimitedPermitsAreAlwaysFree()
{
    FleetPermits p = permitsOf(0, 0);
    QVERIFY(!p.limited());
    p.running = 1000;
    QCOMPARE(p.free(), std::numeric_limits<qint64>::max());
    QCOMPARE(p.permitted(7), 7);
    QVERIFY(!p.hostFull(QStringLiteral("a.example")));
    QVERIFY(p.permitFree(QStringLiteral("a.example")));
}

void tst_ClaimPlanner::oneWorkerMayTakeEveryPermit()
{
    FleetPermits p = permitsOf(8, 0);
    QCOMPARE(p.free(), 8);
    for (int i = 0; i < 8; ++i)
        p.take(QStringLiteral("a.example"));
    QCOMPARE(p.free(), 0);
    QCOMPARE(p.permitted(4), 0);
    QVERIFY(!p.permitFree(QStringLiteral("b.example")));
}

void tst_ClaimPlanner::contendersShareEvenlyRoundedUp()
{
    // 8 permits, 3 workers: a share is 3 (8/3 rounded up).
    FleetPermits p = permitsOf(8, 0, 3);
    QCOMPARE(p.free(), 3);
    p.take(QStringLiteral("a.example"));
    QCOMPARE(p.free(), 2);
    // The others hold 6: only what the fleet has left.
    p.running += 6;
    QCOMPARE(p.free(), 1);
    p.running += 1;
    QCOMPARE(p.free(), 0);
    // A worker above its share (it took permits while alone) gets none, not a negative.
    FleetPermits above = permitsOf(8, 0, 2);
    above.mine = 6;
    above.running = 6;
    QCOMPARE(above.free(), 0);
}

void tst_ClaimPlanner::aHostIsFullFleetWideOrAtTheWorkersShare()
{
    const QString host = QStringLiteral("a.example");
    FleetPermits p = permitsOf(0, 6, 2);
    QVERIFY(!p.hostFull(host));
    p.take(host);
    p.take(host);
    QVERIFY(!p.hostFull(host));
    p.take(host); // 3 of 6 with two contenders: the share
    QVERIFY(p.hostFull(host));
    QVERIFY(!p.hostFull(QStringLiteral("b.example")));

    // The fleet's per-host limit holds whoever holds the permits.
    FleetPermits fleet = permitsOf(0, 6, 1);
    fleet.runningByHost[host] = 6;
    QVERIFY(fleet.hostFull(host));

    // A worker's own cap (what it can send soon) below its share.
    FleetPermits capped = permitsOf(0, 6, 1);
    capped.limits.perHostForWorker = 2;
    capped.take(host);
    QVERIFY(!capped.hostFull(host));
    capped.take(host);
    QVERIFY(capped.hostFull(host));
}

void tst_ClaimPlanner::standbyIsOnePerHeldPermitWithinTheShare()
{
    const QString host = QStringLiteral("a.example");
    FleetPermits p = permitsOf(4, 0, 1);
    p.limits.standbyPerHost = 2;
    // None without a permit of that host to hand over.
    QVERIFY(!p.standbyFree(host));
    QVERIFY(!p.anyStandbyFree());
    p.take(host);
    QVERIFY(p.standbyFree(host));
    QVERIFY(p.anyStandbyFree());
    p.standbyByHost[host] = 1; // one for each permit held
    QVERIFY(!p.standbyFree(host));
    p.take(host);
    QVERIFY(p.standbyFree(host));
    p.standbyByHost[host] = 2; // standby_per_host reached
    p.take(host);
    QVERIFY(!p.standbyFree(host));

    // Above its even share while others want permits: none, so that its permits go
    // back to the fleet.
    FleetPermits greedy = permitsOf(4, 0, 2);
    greedy.limits.standbyPerHost = 1;
    greedy.mine = 3;
    greedy.mineByHost[host] = 3;
    QVERIFY(!greedy.standbyFree(host));
    greedy.mine = 2;
    QVERIFY(greedy.standbyFree(host));
}

void tst_ClaimPlanner::roundsTakeOneFromEachLaneInTurn()
{
    std::vector<ClaimLane> lanes{lane(QStringLiteral("a"), {due(1), due(2), due(3)}),
                                 lane(QStringLiteral("b"), {due(11), due(12)}),
                                 lane(QStringLiteral("c"), {due(21)})};
    FleetPermits permits = permitsOf(0, 0);
    ClaimPlan plan;
    takeRounds(lanes, permits, 10, kNowMs, kNowUs, plan);
    QCOMPARE(plan.picked, (QList<qint64>{1, 11, 21, 2, 12, 3}));
    QVERIFY(!plan.capped);
    QVERIFY(plan.onStandby.isEmpty());
    QCOMPARE(lanes.at(0).taken, 3);
    // Asked for as many as it offered, all taken: it may have more.
    QVERIFY(!lanes.at(0).ranDry());
    // Asked for more than it offered, all taken: its next is its first pending one.
    ClaimLane dry = lane(QStringLiteral("d"), {due(31)});
    dry.wanted = 4;
    std::vector<ClaimLane> one{dry};
    ClaimPlan again;
    takeRounds(one, permits, 10, kNowMs, kNowUs, again);
    QVERIFY(one.at(0).ranDry());
    // Not when one was left for want of room.
    ClaimLane left = lane(QStringLiteral("e"), {due(41), due(42)});
    left.wanted = 4;
    std::vector<ClaimLane> full{left};
    ClaimPlan short_;
    takeRounds(full, permits, 1, kNowMs, kNowUs, short_);
    QVERIFY(!full.at(0).ranDry());
}

void tst_ClaimPlanner::roomBoundsTheRoundsAndWorkLeftIsCappedOnlyForWantOfPermits()
{
    const auto twoLanes = [] {
        return std::vector<ClaimLane>{lane(QStringLiteral("a"), {due(1), due(2)}),
                                      lane(QStringLiteral("b"), {due(11), due(12)})};
    };
    // The claim's room ends it: work left is not "capped".
    std::vector<ClaimLane> lanes = twoLanes();
    FleetPermits unlimited = permitsOf(0, 0);
    ClaimPlan plan;
    takeRounds(lanes, unlimited, 3, kNowMs, kNowUs, plan);
    QCOMPARE(plan.picked, (QList<qint64>{1, 11, 2}));
    QVERIFY(!plan.capped);

    // Permits end it: the worker left work behind for want of permits.
    lanes = twoLanes();
    FleetPermits two = permitsOf(2, 0);
    ClaimPlan permitted;
    takeRounds(lanes, two, 4, kNowMs, kNowUs, permitted);
    QCOMPARE(permitted.picked, (QList<qint64>{1, 11}));
    QVERIFY(permitted.capped);
    QCOMPARE(two.running, 2);
    QCOMPARE(two.free(), 0);

    // What a claim picked before the rounds (rescues, forced) counts against the room.
    lanes = twoLanes();
    FleetPermits free = permitsOf(0, 0);
    ClaimPlan earlier;
    earlier.picked = {99};
    takeRounds(lanes, free, 2, kNowMs, kNowUs, earlier);
    QCOMPARE(earlier.picked, (QList<qint64>{99, 1, 11}));
}

void tst_ClaimPlanner::aPacedLaneGivesOnlyItsUnits()
{
    // 1 per second, a burst of 2, a full bucket: two go now, the third waits.
    ClaimLane paced = lane(QStringLiteral("a"), {due(1), due(2), due(3)});
    paced.pace = Gcra::forLimit(1, 1000, 2);
    paced.tatUs = 0;
    QCOMPARE(paced.units(kNowMs, kNowUs, 10), 2);
    QCOMPARE(paced.units(kNowMs, kNowUs, 1), 1);
    std::vector<ClaimLane> lanes{paced, lane(QStringLiteral("b"), {due(11), due(12), due(13)})};
    FleetPermits permits = permitsOf(0, 0);
    ClaimPlan plan;
    takeRounds(lanes, permits, 10, kNowMs, kNowUs, plan);
    QCOMPARE(plan.picked, (QList<qint64>{1, 11, 2, 12, 13}));
    // The pace was charged: its TAT is two intervals ahead of now.
    QCOMPARE(lanes.at(0).tatUs, kNowUs + 2 * 1'000'000);
    QCOMPARE(lanes.at(0).units(kNowMs, kNowUs, 10), 0);
    // An empty bucket offers nothing: a lane held by its pace keeps its work.
    QVERIFY(!lanes.at(0).affords(due(3), kNowMs, kNowUs));
    QVERIFY(lanes.at(0).affords(due(3), kNowMs + 1000, kNowUs + 1'000'000));

    // The same pace in a lane without a partition paces nothing.
    ClaimLane unpartitioned = paced;
    unpartitioned.partitioned = false;
    QVERIFY(!unpartitioned.gcraPaced(kNowMs));
    QCOMPARE(unpartitioned.units(kNowMs, kNowUs, 10), 10);
}

void tst_ClaimPlanner::aCostAboveCapacityGoesOnceTheBucketIsFull()
{
    // A byte quota: 1,000 units a second, a capacity of 100; a body of 500 goes when
    // the bucket is full and leaves its debt.
    ClaimLane bytes =
        lane(QStringLiteral("bytes"), {due(1, QStringLiteral("a.example"), kNowMs, 500),
                                       due(2, QStringLiteral("a.example"), kNowMs, 10)});
    bytes.pace = Gcra::forLimit(1000, 1000, 100);
    std::vector<ClaimLane> lanes{bytes};
    FleetPermits permits = permitsOf(0, 0);
    ClaimPlan plan;
    takeRounds(lanes, permits, 10, kNowMs, kNowUs, plan);
    QCOMPARE(plan.picked, (QList<qint64>{1}));
    QCOMPARE(lanes.at(0).tatUs, kNowUs + 500 * 1000);
}

void tst_ClaimPlanner::workDueNowGoesBeforeWorkAhead()
{
    // Lane a's first operation is due in a second (taken ahead, for the engine to hold
    // until its time); lane b's are due now and go first.
    std::vector<ClaimLane> lanes{
        lane(QStringLiteral("a"), {due(1, QStringLiteral("a.example"), kNowMs + 1000)}),
        lane(QStringLiteral("b"), {due(11), due(12)})};
    FleetPermits permits = permitsOf(0, 0);
    ClaimPlan plan;
    takeRounds(lanes, permits, 10, kNowMs, kNowUs, plan);
    QCOMPARE(plan.picked, (QList<qint64>{11, 12, 1}));

    // With room for two, what is ahead gets none.
    lanes = {lane(QStringLiteral("a"), {due(1, QStringLiteral("a.example"), kNowMs + 1000)}),
             lane(QStringLiteral("b"), {due(11), due(12)})};
    ClaimPlan two;
    FleetPermits unlimited = permitsOf(0, 0);
    takeRounds(lanes, unlimited, 2, kNowMs, kNowUs, two);
    QCOMPARE(two.picked, (QList<qint64>{11, 12}));
}

void tst_ClaimPlanner::aHostWithoutPermitIsPassedOverAndCapsTheClaim()
{
    const QString busy = QStringLiteral("busy.example");
    const QString idle = QStringLiteral("idle.example");
    FleetPermits permits = permitsOf(8, 2);
    permits.runningByHost[busy] = 2; // other workers hold the host's permits
    permits.running = 2;
    // The lane's paced unit is not spent on what is passed over.
    ClaimLane paced = lane(QStringLiteral("a"), {due(1, busy), due(2, idle)});
    paced.pace = Gcra::forLimit(1, 1000, 1);
    std::vector<ClaimLane> lanes{paced};
    ClaimPlan plan;
    takeRounds(lanes, permits, 4, kNowMs, kNowUs, plan);
    QCOMPARE(plan.picked, (QList<qint64>{2}));
    QVERIFY(plan.capped);
    QCOMPARE(permits.mineByHost.value(idle), 1);
    QCOMPARE(lanes.at(0).candidates.size(), 1); // the busy host's operation is left
}

void tst_ClaimPlanner::standbyTakesBeyondThePermits()
{
    const QString host = QStringLiteral("a.example");
    FleetPermits permits = permitsOf(2, 0);
    permits.limits.standbyPerHost = 1;
    std::vector<ClaimLane> lanes{lane(QStringLiteral("a"), {due(1), due(2), due(3), due(4)})};
    ClaimPlan plan;
    takeRounds(lanes, permits, 4, kNowMs, kNowUs, plan);
    // Two with permits, one on standby (one a host at most), the fourth left.
    QCOMPARE(plan.picked, (QList<qint64>{1, 2, 3}));
    QCOMPARE(plan.onStandby, (QSet<qint64>{3}));
    QCOMPARE(permits.mine, 2);
    QCOMPARE(permits.standbyByHost.value(host), 1);
    QVERIFY(plan.capped);
}

void tst_ClaimPlanner::aStatedWindowPacesTheLane()
{
    // The server stated 2 a window with 1 left: one goes; a smooth lane also keeps
    // its own pace inside the window.
    ClaimLane stated = lane(QStringLiteral("a"), {due(1), due(2)});
    stated.pace = Gcra::forLimit(100, 1000, 100);
    stated.server.quota = 2;
    stated.server.windowMs = 1000;
    stated.server.remaining = 1;
    stated.server.resetAtMs = kNowMs + 500;
    stated.server.knownUntilMs = kNowMs + 60000;
    QVERIFY(stated.windowPaced(kNowMs));
    QVERIFY(!stated.gcraPaced(kNowMs)); // the window paces it, not the bucket
    stated.smooth = true;
    QVERIFY(stated.gcraPaced(kNowMs));
    stated.smooth = false;
    QCOMPARE(stated.units(kNowMs, kNowUs, 10), 1);
    std::vector<ClaimLane> lanes{stated};
    FleetPermits permits = permitsOf(0, 0);
    ClaimPlan plan;
    takeRounds(lanes, permits, 10, kNowMs, kNowUs, plan);
    QCOMPARE(plan.picked, (QList<qint64>{1}));
    QCOMPARE(lanes.at(0).server.remaining, 0);
    // Ready again when the window ends.
    QCOMPARE(lanes.at(0).readyAtMs(kNowMs, kNowMs), kNowMs + 500);
    // A statement that expired paces nothing.
    QVERIFY(!stated.windowPaced(kNowMs + 60000));
}

void tst_ClaimPlanner::readyAndNextOfALane()
{
    ClaimLane l = lane(QStringLiteral("a"), {});
    // Unpaced, not held: ready now; next when its first pending operation is due.
    QCOMPARE(l.readyAtMs(kNowMs, kNowMs), kNowMs);
    QCOMPARE(l.nextAtMs(kNowMs, kNowMs + 5000, kNowMs), kNowMs + 5000);
    // A hold stands until its end.
    l.held = true;
    l.heldUntilMs = kNowMs + 2000;
    QCOMPARE(l.readyAtMs(kNowMs, kNowMs), kNowMs + 2000);
    // Its pace: the TAT one interval ahead with a capacity of one gives a unit then.
    l.held = false;
    l.pace = Gcra::forLimit(1, 1000, 1);
    l.tatUs = kNowUs + 1'000'000;
    QCOMPARE(l.readyAtMs(kNowMs, kNowMs), kNowMs + 1000);
    // One just served goes behind the lanes still waiting: never before now.
    l.taken = 1;
    QCOMPARE(l.nextAtMs(kNowMs - 10, kNowMs - 10, kNowMs), kNowMs);
    l.taken = 0;
    QCOMPARE(l.nextAtMs(kNowMs - 10, kNowMs - 10, kNowMs), kNowMs - 10);
}

QTEST_APPLESS_MAIN(tst_ClaimPlanner)
#include "tst_claimplanner.moc"
