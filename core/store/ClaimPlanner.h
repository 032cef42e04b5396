// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/ratelimit/Gcra.h"
#include "core/ratelimit/ServerWindow.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <vector>

namespace cooldown {

// What a claim decides, apart from how it reads and writes: the fleet's fair share of
// permits, the partitions' pace, and the rounds that take one due operation from each
// partition in turn. Claims::claim reads the rows into these, asks, and writes back
// what they say; nothing here touches a database, so every rule is tested on its own
// (tests/store/tst_claimplanner.cpp). docs/fleet.md tells the rules in words.

// Concurrency that holds for every worker of a database together: a running
// operation whose lease is live holds one permit (and one of its host's) until its
// attempt is recorded, or until its lease expires when its worker died. 0: no limit.
struct FleetConcurrency
{
    int maxInFlight = 0;
    int perHost = 0;
    // The most of one host's permits the claiming worker takes (what it can send
    // soon); 0: no cap of its own. While other workers want permits, each takes no
    // more than an even share of per_host either.
    int perHostForWorker = 0;
    // How many operations per host the claiming worker may hold on standby beyond its
    // permits, no more than it holds permits of that host: each is sent when one of
    // the worker's own attempts to that host ends, and takes over its permit
    // (Store::FinishRequest::permitTo). 0: none.
    int standbyPerHost = 0;
};

// An operation a claim may take.
struct ClaimCandidate
{
    qint64 id = 0;
    qint64 cost = 1;
    QString host;
    qint64 dueAtMs = 0;
};

// A partition a claim looked at (or the operations without one), and what it found.
struct ClaimLane
{
    QString policyId;
    QString partitionKey;
    Gcra pace;
    qint64 tatUs = 0;
    qint64 heldUntilMs = 0;
    qint64 lookAtMs = 0;
    ServerWindow server;
    bool smooth = false;
    bool partitioned = true;
    bool held = false;
    qint64 wanted = 0;                // candidates asked for; -1: not looked at in this claim
    QList<ClaimCandidate> candidates; // in due order
    qsizetype taken = 0;

    // Whether the stated window paces the lane at nowMs, and whether its own pace does.
    bool windowPaced(qint64 nowMs) const { return partitioned && server.isKnown(nowMs); }
    bool gcraPaced(qint64 nowMs) const
    {
        return partitioned && !pace.isUnlimited() && (smooth || !windowPaced(nowMs));
    }
    // Units the lane can give at nowMs (paceNowUs on the pacing clock), within room.
    qint64 units(qint64 nowMs, qint64 paceNowUs, qint64 room) const;
    // Whether it can give the candidate's cost now.
    bool affords(const ClaimCandidate &candidate, qint64 nowMs, qint64 paceNowUs) const;
    // Takes the candidate's cost from its pace and its window.
    void charge(const ClaimCandidate &candidate, qint64 nowMs, qint64 paceNowUs);
    // Whether it offered fewer than it was asked for and all were taken: its next
    // work is its first pending operation, not yet due.
    bool ranDry() const
    {
        return wanted > 0 && candidates.size() < wanted && taken == candidates.size();
    }
    // When its pace, window and hold give a unit again (paceNowMs on the pacing clock).
    qint64 readyAtMs(qint64 nowMs, qint64 paceNowMs) const;
    // When a claim should look at it next: when it is ready and its first pending
    // operation (lookAtMs) is due; one just served goes behind those still waiting.
    qint64 nextAtMs(qint64 readyAtMs, qint64 lookAtMs, qint64 paceNowMs) const;
};

// The fleet's permits as a claim sees them: live leases of running operations.
struct FleetPermits
{
    FleetConcurrency limits;
    qint64 running = 0;
    QHash<QString, qint64> runningByHost;

    qint64 mine = 0; // held by the claiming worker
    QHash<QString, qint64> mineByHost;
    QHash<QString, qint64> standbyByHost; // the claiming worker's operations on standby
    int contenders = 1; // workers holding permits or wanting some, the claimer included

    bool limited() const { return limits.maxInFlight > 0 || limits.perHost > 0; }
    // The permits the claiming worker may still take.
    qint64 free() const;
    // Of room places, those the claiming worker has permits for.
    int permitted(int room) const;
    bool hostFull(const QString &host) const;
    // Whether the claiming worker may take one more permit for host.
    bool permitFree(const QString &host) const { return free() > 0 && !hostFull(host); }
    void take(const QString &host);
    // Whether an operation to host may wait on standby for one of the claiming
    // worker's permits of that host: one at most for each.
    bool standbyFree(const QString &host) const;
    bool anyStandbyFree() const;

private:
    // An even share of n among the contenders, rounded up.
    qint64 shareOf(qint64 n) const { return (n + contenders - 1) / contenders; }
};

// What a claim takes, in order, and whether it left work behind for want of permits.
struct ClaimPlan
{
    QList<qint64> picked;
    QSet<qint64> onStandby; // of picked: waiting for one of the worker's own permits
    bool capped = false;
};

// The rounds over the lanes: each round takes the next candidate of each lane whose
// pace gives it a unit and whose host has a permit (or a place on standby), until
// room more are picked. Work due at nowMs is taken first in every lane; work ahead
// only gets the room it leaves. A candidate whose host has neither is passed over and
// keeps its lane's unit; a lane whose pace runs out offers no more.
void takeRounds(std::vector<ClaimLane> &lanes, FleetPermits &permits, int room, qint64 nowMs,
                qint64 paceNowUs, ClaimPlan &plan);

} // namespace cooldown
