// SPDX-License-Identifier: Apache-2.0
// The store's part for claims and leases (Claims.h).

#include "core/store/Claims.h"

#include "core/store/Database.h"
#include "core/store/LeaseClock.h"
#include "core/store/SqlStatement.h"
#include "core/store/SqlTransaction.h"
#include "core/store/StoreSql.h"

#include <QHash>
#include <QVariant>

#include <algorithm>

namespace cooldown {

using namespace storesql;

namespace {

// look_at and next_at of a partition with nothing pending.
constexpr qint64 kNever = qint64(1) << 62;
// How long a worker that went without permits counts as wanting some: a few of its
// claims, which come every 100 ms while it waits.
constexpr qint64 kWantingMs = 1000;
// How often a claim on PostgreSQL ends operations cancelled while their lease ran.
constexpr qint64 kCancelledSweepMs = 1000;
// A caller's clock this far from the database's is moved onto it part by part.
constexpr qint64 kSkewedClockMs = 1000;

// The fleet's permits a claim counts against. No operation is claimed on standby where
// no permit is limited: all are free.
FleetPermits fleetPermitsFor(const FleetConcurrency &concurrency)
{
    FleetPermits permits;
    permits.limits = concurrency;
    if (!permits.limited())
        permits.limits.standbyPerHost = 0;
    return permits;
}

// What a claim hands back: lease times on the caller's clock, and the operations in
// the order picked (rescues, forced, then round by round), which the caller sends in.
void shiftAndOrderForCaller(QList<OperationRecord> &claimed, qint64 clockOffsetMs,
                            const QList<qint64> &picked)
{
    for (OperationRecord &op : claimed)
        op.leaseExpiresAtMs -= clockOffsetMs;
    QHash<qint64, qsizetype> order;
    for (qsizetype i = 0; i < picked.size(); ++i)
        order.insert(picked.at(i), i);
    std::sort(claimed.begin(), claimed.end(),
              [&order](const OperationRecord &a, const OperationRecord &b) {
                  return order.value(a.id) < order.value(b.id);
              });
}

} // namespace

QList<OperationRecord> Claims::claimDue(const QString &workerId, qint64 nowMs, qint64 leaseMs,
                                        int limit, const FleetConcurrency &concurrency,
                                        qint64 aheadMs)
{
    const StoreResult<ClaimResult> result =
        claim(workerId, nowMs, leaseMs, limit, m_ownClaims, concurrency, aheadMs);
    return result ? result->operations : QList<OperationRecord>();
}

StoreResult<ClaimResult> Claims::claim(const QString &workerId, qint64 nowMs, qint64 leaseMs,
                                       int limit, WorkerClaimState &state,
                                       const FleetConcurrency &concurrency, qint64 aheadMs)
{
    m_db.clearError();
    if (std::optional<ClaimResult> result =
            take(workerId, nowMs, leaseMs, limit, state, concurrency, aheadMs))
        return std::move(*result);
    return StoreResult<ClaimResult>::failure(m_db.lastError());
}

std::optional<ClaimResult> Claims::take(const QString &workerId, qint64 nowMs, qint64 leaseMs,
                                        int limit, WorkerClaimState &state,
                                        const FleetConcurrency &concurrency, qint64 aheadMs)
{
    ClaimResult result;
    if (limit <= 0)
        return result;
    SqlTransaction transaction = m_db.begin();
    if (!transaction.isActive()) {
        m_db.fail(QStringLiteral("claim"), transaction.error());
        return result;
    }
    // Fleet-wide permits are counted by one claim at a time on PostgreSQL (SQLite's
    // write lock does it there), so that two cannot both take the last one. A claim
    // that finds another counting takes nothing rather than wait: first, so that it
    // costs one statement. That statement also reads the clock buckets and leases run
    // on (below): one round trip less while the turn is held.
    std::optional<qint64> paceNow;
    if (m_db.isPostgres() && (concurrency.maxInFlight > 0 || concurrency.perHost > 0)) {
        bool mine = false;
        if (!takeClaimTurn(&mine, &paceNow))
            return {};
        if (!mine) {
            result.contended = true;
            m_db.clearError(); // not a failure
            return result;     // rolled back: nothing was changed
        }
    }
    // Buckets and leases run on one clock: the database's on PostgreSQL, so that a
    // worker whose clock runs ahead neither refills a bucket early nor takes a live
    // lease for an expired one. Lease times go back to the caller on its own clock.
    if (!paceNow)
        paceNow = m_clock.nowUs(nowMs);
    if (!paceNow)
        return {};
    ClaimClock clock;
    clock.nowMs = nowMs;
    clock.aheadNowMs = nowMs + std::max<qint64>(0, aheadMs);
    clock.paceNowUs = *paceNow;
    clock.leaseNowMs = *paceNow / 1000;
    m_clock.noteOffset(nowMs, clock.leaseNowMs);

    if (!sweepCancelledLeases(clock.leaseNowMs))
        return {};

    // Fleet-wide permits: the running operations whose leases are live.
    FleetPermits permits = fleetPermitsFor(concurrency);
    if (permits.limited() && !countPermits(workerId, clock.leaseNowMs, &permits))
        return {};

    // Rescues first: their operations have waited longest, and they send nothing, so
    // they need no permit. Then forced operations, which bypass their bucket, not the
    // permits.
    ClaimPlan plan;
    QList<ForcedCharge> forced;
    if (!readRescues(clock.leaseNowMs, limit, &plan) ||
        !takeForced(nowMs, limit, permits, &plan, &forced))
        return {};

    // The lanes: partitions whose next_at has come, in that order (the least recently
    // served first), and the operations without a partition as one lane more. Each
    // lane offers the due operations its bucket has units for; a round takes one from
    // each, until the claim or the fleet's permits are full (ClaimPlanner).
    std::vector<ClaimLane> lanes;
    const int room = limit - int(plan.picked.size());
    // The lanes are read for the whole room, not only what the fleet's permits leave
    // of it, so that the claim knows whether work was left behind for want of permits.
    if (room > 0 && permits.permitted(room) == 0 && !permits.anyStandbyFree()) {
        const std::optional<bool> due = anyDue(nowMs);
        if (!due)
            return {};
        plan.capped = *due;
    } else if (room > 0) {
        if (!readLanes(clock, room, &lanes))
            return {};
        takeRounds(lanes, permits, room, nowMs, clock.paceNowUs, plan);
    }
    QList<OperationRecord> claimed;
    WorkerClaimState next = state;
    if ((permits.limited() &&
         !noteWanting(workerId, clock.leaseNowMs, plan.capped, state, &next)) ||
        !writeClaims(plan, workerId, clock.leaseNowMs + leaseMs, &claimed) ||
        !writeLanes(lanes, clock) || !chargeForced(forced, clock.paceNowUs))
        return {};
    if (!transaction.commit()) {
        m_db.fail(QStringLiteral("claim"), transaction.error());
        return {};
    }
    state = next;
    shiftAndOrderForCaller(claimed, m_clock.offsetMs(), plan.picked);
    result.operations = claimed;
    result.onStandby = plan.onStandby;
    result.capped = plan.capped;
    return result;
}

bool Claims::takeClaimTurn(bool *mine, std::optional<qint64> *paceNow)
{
    SqlStatement *turn = m_db.cached(
        QStringLiteral("SELECT pg_try_advisory_xact_lock(4242002),"
                       " CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"));
    if (!turn || !m_db.exec(*turn))
        return false;
    *mine = turn->next() && turn->value(0).toBool();
    if (*mine && m_clock.byDatabase())
        *paceNow = turn->value(1).toLongLong();
    turn->finish();
    return true;
}

bool Claims::sweepCancelledLeases(qint64 leaseNowMs)
{
    // Operations an operator cancelled while their lease ran end once it expires. On
    // SQLite an UPDATE that finds nothing still costs more than the SELECT that looks
    // first (it opens the table and each of its indexes for writing); on PostgreSQL
    // the SELECT would be another round trip.
    // On PostgreSQL it runs at most once a second: such an operation ends at most a
    // second later, and the claims between, which hold the fleet's turn, save a write.
    bool due = true;
    if (m_db.isPostgres()) {
        due = m_cancelledSweptAtMs < 0 || leaseNowMs < m_cancelledSweptAtMs ||
              leaseNowMs - m_cancelledSweptAtMs >= kCancelledSweepMs;
        if (due)
            m_cancelledSweptAtMs = leaseNowMs;
    } else {
        SqlStatement *expired = m_db.cached(QStringLiteral(
            "SELECT 1 FROM operations INDEXED BY operations_leased WHERE state = 'running'"
            " AND lease_expires_at <= :now AND cancel_requested = 1 LIMIT 1"));
        if (!expired)
            return false;
        expired->bindValue(QStringLiteral(":now"), leaseNowMs);
        if (!m_db.exec(*expired))
            return false;
        due = expired->next();
        expired->finish();
    }
    if (!due)
        return true;
    SqlStatement *cancelled = m_db.cached(QStringLiteral(
        "UPDATE operations SET state = 'cancelled', final_reason ="
        " 'cancelled_by_operator', lease_owner = '', lease_expires_at = -1,"
        " next_attempt_at = -1, version = version + 1"
        " WHERE state = 'running' AND cancel_requested = 1 AND lease_expires_at <= :now"));
    if (!cancelled)
        return false;
    cancelled->bindValue(QStringLiteral(":now"), leaseNowMs);
    return m_db.exec(*cancelled);
}

bool Claims::countPermits(const QString &workerId, qint64 leaseNowMs, FleetPermits *permits)
{
    // Operations on standby hold leases, not permits.
    SqlStatement *running = m_db.cached(
        QStringLiteral("SELECT host, lease_owner, holds_permit, COUNT(*) FROM operations"
                       " WHERE state = 'running' AND lease_expires_at > :now"
                       " GROUP BY host, lease_owner, holds_permit"));
    if (!running)
        return false;
    running->bindValue(QStringLiteral(":now"), leaseNowMs);
    if (!m_db.exec(*running))
        return false;
    QSet<QString> contenders{workerId};
    while (running->next()) {
        const qint64 count = running->value(3).toLongLong();
        const QString owner = running->value(1).toString();
        const QString host = running->value(0).toString();
        contenders.insert(owner);
        if (running->value(2).toLongLong() == 0) {
            if (owner == workerId)
                permits->standbyByHost[host] += count;
            continue;
        }
        permits->runningByHost[host] += count;
        permits->running += count;
        if (owner == workerId) {
            permits->mine += count;
            permits->mineByHost[host] += count;
        }
    }
    running->finish();
    // Workers that hold permits or lately went without share the fleet's permits
    // evenly; one alone may take them all.
    SqlStatement *wanting =
        m_db.cached(QStringLiteral("SELECT worker_id FROM workers WHERE wants_until > :now"));
    if (!wanting)
        return false;
    wanting->bindValue(QStringLiteral(":now"), leaseNowMs);
    if (!m_db.exec(*wanting))
        return false;
    while (wanting->next())
        contenders.insert(wanting->value(0).toString());
    wanting->finish();
    permits->contenders = int(contenders.size());
    return true;
}

bool Claims::collectCandidates(SqlStatement *query, QList<ClaimCandidate> *out)
{
    if (!query || !m_db.exec(*query))
        return false;
    while (query->next())
        out->append({query->value(0).toLongLong(), query->value(1).toLongLong(),
                     query->value(2).toString(), query->value(3).toLongLong()});
    const bool ok = !query->lastError().isValid();
    query->finish();
    return ok || m_db.fail(QStringLiteral("claim"), errorText(query->lastError()));
}

bool Claims::readRescues(qint64 leaseNowMs, int limit, ClaimPlan *plan)
{
    SqlStatement *rescue =
        m_db.cached(QStringLiteral("SELECT id, cost, host, next_attempt_at FROM operations"
                                   " WHERE state = 'running' AND lease_expires_at <= :now"
                                   " AND cancel_requested = 0"
                                   " ORDER BY lease_expires_at LIMIT :limit") +
                    m_db.dialect().forUpdate(true));
    if (!rescue)
        return false;
    rescue->bindValue(QStringLiteral(":now"), leaseNowMs);
    rescue->bindValue(QStringLiteral(":limit"), limit);
    QList<ClaimCandidate> rescued;
    if (!collectCandidates(rescue, &rescued))
        return false;
    for (const ClaimCandidate &row : std::as_const(rescued))
        plan->picked.append(row.id);
    return true;
}

bool Claims::takeForced(qint64 nowMs, int limit, FleetPermits &permits, ClaimPlan *plan,
                        QList<ForcedCharge> *forced)
{
    if (plan->picked.size() >= limit)
        return true;
    SqlStatement *query = m_db.cached(
        QStringLiteral("SELECT id, policy_id, partition_key, cost, host FROM operations%1"
                       " WHERE %2 AND force_next = 1 AND next_attempt_at <= :now%3"
                       " ORDER BY next_attempt_at LIMIT :limit%4")
            .arg(m_db.dialect().indexedBy("operations_forced"), QLatin1String(kPending),
                 QLatin1String(kNotPaused), m_db.dialect().forUpdate(true)));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":limit"), limit - int(plan->picked.size()));
    if (!m_db.exec(*query))
        return false;
    while (query->next()) {
        const QString host = query->value(4).toString();
        if (!permits.permitFree(host)) {
            plan->capped = true;
            continue;
        }
        permits.take(host);
        plan->picked.append(query->value(0).toLongLong());
        forced->append(
            {query->value(1).toString(), query->value(2).toString(), query->value(3).toLongLong()});
    }
    query->finish();
    return true;
}

std::optional<bool> Claims::anyDue(qint64 nowMs)
{
    SqlStatement *query = m_db.cached(
        QStringLiteral("SELECT id FROM operations%1 WHERE %2 AND next_attempt_at <= :now%3 LIMIT 1")
            .arg(m_db.dialect().indexedBy("operations_due"), QLatin1String(kPending),
                 QLatin1String(kNotPaused)));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":now"), nowMs);
    if (!m_db.exec(*query))
        return std::nullopt;
    const bool due = query->next();
    query->finish();
    return due;
}

bool Claims::readLanes(const ClaimClock &clock, int room, std::vector<ClaimLane> *lanes)
{
    SqlStatement *partitions =
        m_db.cached(QStringLiteral("SELECT policy_id, partition_key, interval_us, capacity, tat_us,"
                                   " held_until, look_at, pacing, server_quota, server_window_ms,"
                                   " server_remaining, server_reset_at, server_known_until,"
                                   " server_opened_at FROM rate_partitions WHERE next_at <= :now"
                                   " ORDER BY next_at LIMIT :limit") +
                    m_db.dialect().forUpdate(true));
    SqlStatement *dueInPartition = m_db.cached(
        QStringLiteral("SELECT id, cost, host, next_attempt_at FROM operations%1"
                       " WHERE policy_id = :policy AND partition_key = :partition"
                       " AND %2 AND next_attempt_at <= :now"
                       " AND force_next = 0%3 ORDER BY next_attempt_at LIMIT :limit%4")
            .arg(m_db.dialect().indexedBy("operations_due_by_partition"), QLatin1String(kPending),
                 QLatin1String(kNotPaused), m_db.dialect().forUpdate(true)));
    SqlStatement *unpartitioned = m_db.cached(
        QStringLiteral("SELECT id, cost, host, next_attempt_at FROM operations%1 WHERE %2"
                       " AND policy_id = '' AND next_attempt_at <= :now"
                       " AND force_next = 0%3 ORDER BY next_attempt_at LIMIT :limit%4")
            .arg(m_db.dialect().indexedBy("operations_due_unpartitioned"), QLatin1String(kPending),
                 QLatin1String(kNotPaused), m_db.dialect().forUpdate(true)));
    if (!partitions || !dueInPartition || !unpartitioned)
        return false;
    partitions->bindValue(QStringLiteral(":now"), std::max(clock.aheadNowMs, clock.leaseNowMs));
    // Partitions found empty are put right as they are read, so a few more than the
    // room are read; the rest wait for the next claim.
    partitions->bindValue(QStringLiteral(":limit"), 4 * room + 16);
    if (!m_db.exec(*partitions))
        return false;
    while (partitions->next()) {
        ClaimLane lane;
        lane.policyId = partitions->value(0).toString();
        lane.partitionKey = partitions->value(1).toString();
        lane.pace.intervalUs = partitions->value(2).toLongLong();
        lane.pace.capacity = partitions->value(3).toLongLong();
        lane.tatUs = partitions->value(4).toLongLong();
        lane.heldUntilMs = partitions->value(5).toLongLong();
        lane.lookAtMs = partitions->value(6).toLongLong();
        lane.smooth = partitions->value(7).toString() == u"smooth";
        lane.server.quota = partitions->value(8).toLongLong();
        lane.server.windowMs = partitions->value(9).toLongLong();
        lane.server.remaining = partitions->value(10).toLongLong();
        lane.server.resetAtMs = partitions->value(11).toLongLong();
        lane.server.knownUntilMs = partitions->value(12).toLongLong();
        lane.server.openedAtMs = partitions->value(13).toLongLong();
        lanes->push_back(std::move(lane));
    }
    partitions->finish();
    const qint64 nowMs = clock.nowMs;
    int offering = 0; // lanes that offer something
    for (ClaimLane &lane : *lanes) {
        if (offering >= room) {
            lane.wanted = -1;
            continue;
        }
        lane.held = lane.heldUntilMs > nowMs;
        lane.wanted = lane.held ? 0 : lane.units(nowMs, clock.paceNowUs, room);
        if (lane.wanted <= 0)
            continue;
        // A paced lane gives only what is due now; its units are taken when sent.
        const bool paced = lane.gcraPaced(nowMs) || lane.windowPaced(nowMs);
        dueInPartition->bindValue(QStringLiteral(":policy"), text(lane.policyId));
        dueInPartition->bindValue(QStringLiteral(":partition"), text(lane.partitionKey));
        dueInPartition->bindValue(QStringLiteral(":now"), paced ? nowMs : clock.aheadNowMs);
        dueInPartition->bindValue(QStringLiteral(":limit"), lane.wanted);
        if (!collectCandidates(dueInPartition, &lane.candidates))
            return false;
        if (!lane.candidates.isEmpty())
            ++offering;
    }
    ClaimLane free;
    free.partitioned = false;
    free.wanted = room;
    unpartitioned->bindValue(QStringLiteral(":now"), clock.aheadNowMs);
    unpartitioned->bindValue(QStringLiteral(":limit"), room);
    if (!collectCandidates(unpartitioned, &free.candidates))
        return false;
    lanes->push_back(std::move(free));
    return true;
}

bool Claims::noteWanting(const QString &workerId, qint64 leaseNowMs, bool capped,
                         const WorkerClaimState &state, WorkerClaimState *next)
{
    // A worker that left work behind for want of permits says so, so that the others
    // make room for it; one that no longer wants clears it.
    // One that keeps wanting writes again only when its time would move by half: not at
    // every claim, while it holds the fleet's turn.
    const qint64 wantsUntilMs = capped ? leaseNowMs + kWantingMs : 0;
    const bool stands = capped && state.wantingPermits && wantsUntilMs >= state.wantsUntilMs &&
                        wantsUntilMs - state.wantsUntilMs < kWantingMs / 2;
    if ((!capped && !state.wantingPermits) || stands)
        return true;
    SqlStatement *want = m_db.cached(QStringLiteral(
        "INSERT INTO workers (worker_id, wants_until) VALUES (:worker, :until)"
        " ON CONFLICT (worker_id) DO UPDATE SET wants_until = excluded.wants_until"));
    if (!want)
        return false;
    want->bindValue(QStringLiteral(":worker"), text(workerId));
    want->bindValue(QStringLiteral(":until"), wantsUntilMs);
    if (!m_db.exec(*want))
        return false;
    next->wantingPermits = capped;
    next->wantsUntilMs = wantsUntilMs;
    return true;
}

bool Claims::writeClaims(const ClaimPlan &plan, const QString &workerId, qint64 leaseExpiresAtMs,
                         QList<OperationRecord> *claimed)
{
    if (plan.picked.isEmpty())
        return true;
    QString set =
        QStringLiteral("rescued = CASE WHEN state = 'running' THEN 1 ELSE 0 END, state = 'running',"
                       " lease_owner = :owner, lease_expires_at = :expires, version = version + 1");
    if (m_db.isPostgres()) {
        // One round trip for the claim: one statement for any number of operations,
        // prepared once (their ids go in as arrays).
        const auto idArray = [](const auto &idSet) {
            QStringList ids;
            ids.reserve(idSet.size());
            for (qint64 id : idSet)
                ids.append(QString::number(id));
            return QStringLiteral("{%1}").arg(ids.join(u','));
        };
        // Rescues (running before this update) send nothing and hold no permit. So do
        // operations claimed on standby.
        set += QStringLiteral(", holds_permit = CASE WHEN state = 'running'"
                              " OR id = ANY(CAST(:standby AS BIGINT[])) THEN 0 ELSE 1 END");
        SqlStatement *update = m_db.cached(
            QStringLiteral(
                "UPDATE operations SET %1 WHERE id = ANY(CAST(:ids AS BIGINT[])) RETURNING %2")
                .arg(set, columns(kOperationColumns)));
        if (!update)
            return false;
        update->bindValue(QStringLiteral(":owner"), text(workerId));
        update->bindValue(QStringLiteral(":expires"), leaseExpiresAtMs);
        update->bindValue(QStringLiteral(":standby"), idArray(plan.onStandby));
        update->bindValue(QStringLiteral(":ids"), idArray(plan.picked));
        if (!m_db.exec(*update))
            return false;
        while (update->next())
            claimed->append(readOperation(*update));
        if (update->lastError().isValid())
            return m_db.fail(QStringLiteral("claim"), errorText(update->lastError()));
        update->finish();
        return true;
    }
    // SQLite is in this process: statements prepared once, per operation, cost less
    // than parsing a new statement for each claim (most claims take one or two) and
    // RETURNING's temporary table.
    // Rescues (running before this update) send nothing and hold no permit.
    set += QStringLiteral(", holds_permit = CASE WHEN state = 'running' THEN 0 ELSE :permit END");
    SqlStatement *update =
        m_db.cached(QStringLiteral("UPDATE operations SET %1 WHERE id = :id").arg(set));
    SqlStatement *read = m_db.cached(
        QStringLiteral("SELECT %1 FROM operations WHERE id = :id").arg(columns(kOperationColumns)));
    if (!update || !read)
        return false;
    for (qint64 id : plan.picked) {
        update->bindValue(QStringLiteral(":owner"), text(workerId));
        update->bindValue(QStringLiteral(":expires"), leaseExpiresAtMs);
        update->bindValue(QStringLiteral(":id"), id);
        update->bindValue(QStringLiteral(":permit"), plan.onStandby.contains(id) ? 0 : 1);
        if (!m_db.exec(*update))
            return false;
        read->bindValue(QStringLiteral(":id"), id);
        if (!m_db.exec(*read))
            return false;
        if (!read->next())
            return m_db.fail(QStringLiteral("claim"),
                             QStringLiteral("operation %1 vanished").arg(id));
        claimed->append(readOperation(*read));
        read->finish();
    }
    return true;
}

bool Claims::writeLanes(const std::vector<ClaimLane> &lanes, const ClaimClock &clock)
{
    // Each partition looked at learns when a claim may find work there next: when its
    // bucket has a unit and no hold stands, and not before its first pending operation
    // is due; one just served goes behind those still waiting.
    SqlStatement *update = m_db.cached(QStringLiteral(
        "UPDATE rate_partitions SET tat_us = :tat, look_at = :look, ready_at = :ready,"
        " next_at = :next, server_remaining = :remaining, server_reset_at = :reset,"
        " server_opened_at = :opened WHERE policy_id = :policy AND partition_key = :partition"));
    SqlStatement *firstPending = m_db.cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE policy_id = :policy"
                       " AND partition_key = :partition AND %2%3 ORDER BY next_attempt_at LIMIT 1")
            .arg(m_db.dialect().indexedBy("operations_due_by_partition"), QLatin1String(kPending),
                 QLatin1String(kNotPaused)));
    if (!update || !firstPending)
        return false;
    const qint64 paceNowMs = clock.paceNowUs / 1000;
    for (const ClaimLane &lane : lanes) {
        if (!lane.partitioned || lane.wanted < 0)
            continue;
        qint64 lookAt = lane.lookAtMs;
        if (lane.ranDry()) {
            // It ran out of due work: its next is its first pending operation.
            firstPending->bindValue(QStringLiteral(":policy"), text(lane.policyId));
            firstPending->bindValue(QStringLiteral(":partition"), text(lane.partitionKey));
            if (!m_db.exec(*firstPending))
                return false;
            lookAt = firstPending->next() ? firstPending->value(0).toLongLong() : kNever;
            firstPending->finish();
        }
        const qint64 ready = lane.readyAtMs(clock.nowMs, paceNowMs);
        update->bindValue(QStringLiteral(":tat"), lane.tatUs);
        update->bindValue(QStringLiteral(":look"), lookAt);
        update->bindValue(QStringLiteral(":ready"), ready);
        update->bindValue(QStringLiteral(":next"), lane.nextAtMs(ready, lookAt, paceNowMs));
        update->bindValue(QStringLiteral(":remaining"), lane.server.remaining);
        update->bindValue(QStringLiteral(":reset"), lane.server.resetAtMs);
        update->bindValue(QStringLiteral(":opened"), lane.server.openedAtMs);
        update->bindValue(QStringLiteral(":policy"), text(lane.policyId));
        update->bindValue(QStringLiteral(":partition"), text(lane.partitionKey));
        if (!m_db.exec(*update))
            return false;
    }
    return true;
}

bool Claims::chargeForced(const QList<ForcedCharge> &forced, qint64 paceNowUs)
{
    // What forced operations send is still counted in their bucket.
    if (forced.isEmpty())
        return true;
    SqlStatement *charge = m_db.cached(
        QStringLiteral("UPDATE rate_partitions SET tat_us = CASE WHEN interval_us = 0 THEN tat_us"
                       " ELSE %1(tat_us, :now) + interval_us * :cost END"
                       " WHERE policy_id = :policy AND partition_key = :partition")
            .arg(m_db.dialect().greatest()));
    if (!charge)
        return false;
    for (const ForcedCharge &f : forced) {
        if (f.policyId.isEmpty())
            continue;
        charge->bindValue(QStringLiteral(":now"), paceNowUs);
        charge->bindValue(QStringLiteral(":cost"), f.cost);
        charge->bindValue(QStringLiteral(":policy"), text(f.policyId));
        charge->bindValue(QStringLiteral(":partition"), text(f.partitionKey));
        if (!m_db.exec(*charge))
            return false;
    }
    return true;
}

bool Claims::execFenced(SqlStatement &query, qint64 operationId, const QString &workerId,
                        qint64 claimedVersion)
{
    query.bindValue(QStringLiteral(":id"), operationId);
    query.bindValue(QStringLiteral(":version"), claimedVersion);
    query.bindValue(QStringLiteral(":owner"), text(workerId));
    if (!m_db.exec(query))
        return false;
    if (query.numRowsAffected() != 1) {
        m_db.setError(QStringLiteral("operation %1 is no longer leased to '%2' at version %3")
                          .arg(operationId)
                          .arg(workerId)
                          .arg(claimedVersion));
        return false;
    }
    return true;
}

bool Claims::releaseClaim(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                          qint64 dueAtMs)
{
    // A rescue keeps state running with an expired lease: the next claim rescues it again.
    SqlStatement *query = m_db.cached(QStringLiteral(
        "UPDATE operations SET"
        " state = CASE WHEN cancel_requested = 1 THEN 'cancelled' WHEN rescued = 1 THEN 'running'"
        " WHEN attempt = 0 THEN 'scheduled' ELSE 'waiting' END,"
        " final_reason = CASE WHEN cancel_requested = 1 THEN 'cancelled_by_operator' ELSE "
        "final_reason END,"
        " lease_owner = '', lease_expires_at = CASE WHEN rescued = 1 AND cancel_requested = 0"
        " THEN 0 ELSE -1 END, version = version + 1,"
        " next_attempt_at = CASE WHEN :due >= 0 AND rescued = 0 THEN :due2 ELSE next_attempt_at END"
        " WHERE id = :id AND version = :version AND lease_owner = :owner AND state = 'running'"));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":due"), dueAtMs);
    query->bindValue(QStringLiteral(":due2"), dueAtMs);
    return execFenced(*query, operationId, workerId, claimedVersion);
}

bool Claims::renewLease(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                        qint64 leaseExpiresAtMs)
{
    SqlStatement *query = m_db.cached(QStringLiteral(
        "UPDATE operations SET lease_expires_at = :expires"
        " WHERE id = :id AND version = :version AND lease_owner = :owner AND state = 'running'"));
    if (!query)
        return false;
    // On the clock leases run on, as the last claim measured it against the caller's.
    query->bindValue(QStringLiteral(":expires"), leaseExpiresAtMs + m_clock.offsetMs());
    return execFenced(*query, operationId, workerId, claimedVersion);
}

std::optional<qint64> Claims::nextDueAtMs(qint64 nowMs)
{
    // Partitions and leases run on the database's clock on PostgreSQL: their times move
    // by however far the caller's clock is from it.
    qint64 paceOffsetMs = 0;
    if (nowMs >= 0 && m_clock.byDatabase()) {
        const std::optional<qint64> paceNow = m_clock.nowUs(nowMs);
        if (!paceNow)
            return std::nullopt;
        paceOffsetMs = nowMs - *paceNow / 1000;
    }
    // The partial indexes are in claim order; without statistics SQLite would rather
    // sort every pending operation, so it is told which to walk.
    SqlStatement *unpartitioned = m_db.cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE %2 AND policy_id = ''%3"
                       " ORDER BY next_attempt_at LIMIT 1")
            .arg(m_db.dialect().indexedBy("operations_due_unpartitioned"), QLatin1String(kPending),
                 QLatin1String(kNotPaused)));
    SqlStatement *forced = m_db.cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE %2 AND force_next = 1%3"
                       " ORDER BY next_attempt_at LIMIT 1")
            .arg(m_db.dialect().indexedBy("operations_forced"), QLatin1String(kPending),
                 QLatin1String(kNotPaused)));
    // A partition's next_at: when its bucket has a unit, no hold stands and its first
    // pending operation is due (paced by the database's clock on PostgreSQL).
    // next_at mixes the database's clock (ready_at) with the operations' (look_at). When
    // the caller's clock is far from the database's, each part is moved on its own:
    // that reads every partition, which only a fleet with skewed clocks pays for.
    const bool skewed = qAbs(paceOffsetMs) > kSkewedClockMs;
    SqlStatement *partitions =
        skewed ? m_db.cached(QStringLiteral("SELECT MIN(%1(ready_at + :offset, look_at)) FROM"
                                            " rate_partitions WHERE next_at < :never")
                                 .arg(m_db.dialect().greatest()))
               : m_db.cached(
                     QStringLiteral("SELECT next_at FROM rate_partitions WHERE next_at < :never"
                                    " ORDER BY next_at LIMIT 1"));
    SqlStatement *leases =
        m_db.cached(QStringLiteral("SELECT lease_expires_at FROM operations WHERE state = 'running'"
                                   " ORDER BY lease_expires_at LIMIT 1"));
    if (partitions) {
        partitions->bindValue(QStringLiteral(":never"), kNever);
        if (skewed)
            partitions->bindValue(QStringLiteral(":offset"), paceOffsetMs);
    }
    std::optional<qint64> earliest;
    for (SqlStatement *query : {unpartitioned, forced, partitions, leases}) {
        if (!query || !m_db.exec(*query))
            return std::nullopt;
        if (query->next() && !query->value(0).isNull()) {
            const qint64 at =
                query->value(0).toLongLong() +
                (query == leases || (query == partitions && !skewed) ? paceOffsetMs : 0);
            earliest = earliest ? std::min(*earliest, at) : at;
        }
        query->finish();
    }
    m_db.clearError();
    return earliest;
}

} // namespace cooldown
