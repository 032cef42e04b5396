// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/ClaimPlanner.h"
#include "core/store/Records.h"
#include "core/store/StoreResult.h"

#include <QList>
#include <QSet>
#include <QString>

#include <optional>
#include <vector>

namespace cooldown {

class Database;
class LeaseClock;
class SqlStatement;

// One worker's claims as its scheduler keeps them from one claim to the next: whether
// the store has it down as wanting fleet-wide permits, and until when (a claim writes
// that again only when it would move by half).
struct WorkerClaimState
{
    bool wantingPermits = false;
    qint64 wantsUntilMs = 0;
};

// What one claim took, and what its worker should know of it.
struct ClaimResult
{
    QList<OperationRecord> operations;
    QSet<qint64> onStandby; // of those, taken on standby (FleetConcurrency::standbyPerHost)
    bool capped = false;    // due work was left behind for want of a fleet-wide permit
    // Nothing was taken because another worker's claim was counting the fleet's permits
    // at that moment (PostgreSQL): try again in a moment. Waiting for it instead would
    // stall this worker's event loop, its finished exchanges included.
    bool contended = false;
};

// The store's part for claims and leases (docs/fleet.md): which due operations a worker
// takes, fairly across partitions and within the fleet's permits, and the leases it
// holds them by until their attempts are recorded. It reads the rows into the
// ClaimPlanner's snapshots, asks it, and writes back what it says, in one transaction
// of short phases. It owns the operations' lease columns and the partitions' pace
// columns as a claim moves them, and the workers' wanting rows; the clock it counts
// on is the store's LeaseClock.
class Claims final
{
public:
    Claims(Database &database, LeaseClock &clock) : m_db(database), m_clock(clock) {}

    // Claims up to limit operations in one transaction: running ones whose lease
    // expired (those come back with rescued = true: their last attempt's worker died),
    // then due scheduled or waiting ones, fairly: round-robin across the partitions
    // that can send now and the operations without a partition, each partition giving
    // no more than the units its fleet-wide bucket holds, which the claim takes. An
    // operation whose partition has no token or is held is not claimed: a backlog in
    // one partition delays no other. Forced operations bypass the bucket (their cost
    // is still counted). Each comes back running, leased to workerId until nowMs +
    // leaseMs, with its version bumped; that version fences finishAttempt and
    // renewLease. No claim takes the fleet past `concurrency`: ClaimResult::capped
    // then tells that permits, not work, ran out. Running operations with a pending
    // cancel whose lease expired become cancelled instead. A failure is the result's
    // error, this call's own.
    // aheadMs also takes operations due within that time from lanes that nothing paces
    // (no bucket, no stated window, no hold): the caller holds each until its time. A
    // paced lane gives only what is due, so its units are taken when they are sent.
    // `state` is the worker's own, kept by its scheduler from one claim to the next;
    // it changes only with a claim that committed. Lease times come back on the
    // caller's clock.
    StoreResult<ClaimResult> claim(const QString &workerId, qint64 nowMs, qint64 leaseMs, int limit,
                                   WorkerClaimState &state,
                                   const FleetConcurrency &concurrency = {}, qint64 aheadMs = 0);
    // The same, with a claim state this part keeps, for a caller with one worker's
    // claims only (tools and tests): the operations, or none when it failed (why in the
    // store's lastError()).
    QList<OperationRecord> claimDue(const QString &workerId, qint64 nowMs, qint64 leaseMs,
                                    int limit, const FleetConcurrency &concurrency = {},
                                    qint64 aheadMs = 0);

    // Hands back a claimed operation whose attempt was never sent (the worker is
    // stopping): it is due again at once for any worker, as it was before the claim. A
    // rescued one stays a rescue, so the next claimer still learns that a worker died.
    // False when the claim is no longer held (or on error). dueAtMs >= 0 makes it due
    // then instead (its partition has no token until then).
    bool releaseClaim(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                      qint64 dueAtMs = -1);
    // Extends a held lease to leaseExpiresAtMs on the caller's clock; false when it is
    // no longer held (or on error).
    bool renewLease(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                    qint64 leaseExpiresAtMs);

    // The earliest time a claim could return something: the first next_attempt_at of
    // a scheduled or waiting operation of an unpaused endpoint, or the first lease
    // expiry of a running one. Empty when nothing is pending (or on error).
    // nowMs, when given, is the caller's clock: a partition's time, kept by the
    // database's clock on PostgreSQL, is moved onto it.
    std::optional<qint64> nextDueAtMs(qint64 nowMs = -1);

private:
    // The steps of a claim; what it decides is ClaimPlanner's.
    // The clocks of one claim: the caller's (nowMs, and aheadNowMs for work taken
    // ahead), the pacing clock (µs) and the lease clock (ms), both the database's on
    // PostgreSQL.
    struct ClaimClock
    {
        qint64 nowMs = 0;
        qint64 aheadNowMs = 0;
        qint64 paceNowUs = 0;
        qint64 leaseNowMs = 0;
    };
    // A forced operation's cost, added to its bucket's TAT.
    struct ForcedCharge
    {
        QString policyId;
        QString partitionKey;
        qint64 cost = 1;
    };
    // claim(), nullopt on failure.
    std::optional<ClaimResult> take(const QString &workerId, qint64 nowMs, qint64 leaseMs,
                                    int limit, WorkerClaimState &state,
                                    const FleetConcurrency &concurrency, qint64 aheadMs);
    // PostgreSQL: the fleet's turn to count permits, without waiting for it; *paceNow:
    // the database's clock when it paces.
    bool takeClaimTurn(bool *mine, std::optional<qint64> *paceNow);
    // Ends operations an operator cancelled while their lease ran, once it expired.
    bool sweepCancelledLeases(qint64 leaseNowMs);
    // The permits held fleet-wide and by workerId, and the workers contending for them.
    bool countPermits(const QString &workerId, qint64 leaseNowMs, FleetPermits *permits);
    // Runs a SELECT of id, cost, host and due time, and appends its rows.
    bool collectCandidates(SqlStatement *query, QList<ClaimCandidate> *out);
    bool readRescues(qint64 leaseNowMs, int limit, ClaimPlan *plan);
    bool takeForced(qint64 nowMs, int limit, FleetPermits &permits, ClaimPlan *plan,
                    QList<ForcedCharge> *forced);
    // Whether any operation is due at nowMs; nullopt on failure.
    std::optional<bool> anyDue(qint64 nowMs);
    // The partitions whose next_at has come, each with the due operations its pace
    // gives (room at most), and the operations without a partition as one lane more.
    bool readLanes(const ClaimClock &clock, int room, std::vector<ClaimLane> *lanes);
    // Writes whether this worker wants permits (workers.wants_until), when it changed.
    // *next: the worker's state once the claim commits.
    bool noteWanting(const QString &workerId, qint64 leaseNowMs, bool capped,
                     const WorkerClaimState &state, WorkerClaimState *next);
    bool writeClaims(const ClaimPlan &plan, const QString &workerId, qint64 leaseExpiresAtMs,
                     QList<OperationRecord> *claimed);
    // Each lane's new TAT, window and when a claim looks at it next.
    bool writeLanes(const std::vector<ClaimLane> &lanes, const ClaimClock &clock);
    bool chargeForced(const QList<ForcedCharge> &forced, qint64 paceNowUs);
    // Binds :id, :version and :owner and runs a statement fenced by the claim; false
    // unless exactly that one row changed.
    bool execFenced(SqlStatement &query, qint64 operationId, const QString &workerId,
                    qint64 claimedVersion);

    Database &m_db;
    LeaseClock &m_clock;
    WorkerClaimState m_ownClaims;     // claimDue's
    qint64 m_cancelledSweptAtMs = -1; // on the lease clock; -1: not yet
};

} // namespace cooldown
