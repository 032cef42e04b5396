// SPDX-License-Identifier: Apache-2.0
// The store: claims, attempts recorded with their fences, leases.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/store/ClaimPlanner.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/ratelimit/MeasuredPace.h"
#include "core/store/SqlTransaction.h"
#include "core/store/WalCheckpointer.h"

#include <QAtomicInteger>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QThread>
#include <QUrl>
#include <QVariant>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <limits>
#include <thread>
#include <utility>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace cooldown {

using namespace storesql;

std::optional<qint64> Store::paceNowUs(qint64 nowMs)
{
    if (!m_paceByDatabaseClock)
        return nowMs * 1000;
    SqlStatement *query = m_db->cached(
        QStringLiteral("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"));
    if (!query || !m_db->exec(*query))
        return std::nullopt;
    if (!query->next()) {
        m_db->fail(QStringLiteral("clock"), QStringLiteral("the server returned no time"));
        return std::nullopt;
    }
    const qint64 us = query->value(0).toLongLong();
    query->finish();
    return us;
}

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

QList<OperationRecord> Store::claimDue(const QString &workerId, qint64 nowMs, qint64 leaseMs,
                                       int limit, const FleetConcurrency &concurrency,
                                       qint64 aheadMs)
{
    return claim(workerId, nowMs, leaseMs, limit, m_ownClaims, concurrency, aheadMs).operations;
}

ClaimResult Store::claim(const QString &workerId, qint64 nowMs, qint64 leaseMs, int limit,
                         WorkerClaimState &state, const FleetConcurrency &concurrency,
                         qint64 aheadMs)
{
    ClaimResult result;
    if (limit <= 0)
        return result;
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("claim"), transaction.error());
        return result;
    }
    // Fleet-wide permits are counted by one claim at a time on PostgreSQL (SQLite's
    // write lock does it there), so that two cannot both take the last one. A claim
    // that finds another counting takes nothing rather than wait: first, so that it
    // costs one statement. That statement also reads the clock buckets and leases run
    // on (below): one round trip less while the turn is held.
    std::optional<qint64> paceNow;
    if (m_db->isPostgres() && (concurrency.maxInFlight > 0 || concurrency.perHost > 0)) {
        bool mine = false;
        if (!takeClaimTurn(&mine, &paceNow))
            return {};
        if (!mine) {
            result.contended = true;
            m_db->clearError(); // not a failure
            return result;      // rolled back: nothing was changed
        }
    }
    // Buckets and leases run on one clock: the database's on PostgreSQL, so that a
    // worker whose clock runs ahead neither refills a bucket early nor takes a live
    // lease for an expired one. Lease times go back to the caller on its own clock.
    if (!paceNow)
        paceNow = paceNowUs(nowMs);
    if (!paceNow)
        return {};
    ClaimClock clock;
    clock.nowMs = nowMs;
    clock.aheadNowMs = nowMs + std::max<qint64>(0, aheadMs);
    clock.paceNowUs = *paceNow;
    clock.leaseNowMs = *paceNow / 1000;
    m_clockOffsetMs = clock.leaseNowMs - nowMs;

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
        m_db->fail(QStringLiteral("claim"), transaction.error());
        return {};
    }
    state = next;
    shiftAndOrderForCaller(claimed, m_clockOffsetMs, plan.picked);
    result.operations = claimed;
    result.onStandby = plan.onStandby;
    result.capped = plan.capped;
    return result;
}

bool Store::takeClaimTurn(bool *mine, std::optional<qint64> *paceNow)
{
    SqlStatement *turn = m_db->cached(
        QStringLiteral("SELECT pg_try_advisory_xact_lock(4242002),"
                       " CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"));
    if (!turn || !m_db->exec(*turn))
        return false;
    *mine = turn->next() && turn->value(0).toBool();
    if (*mine && m_paceByDatabaseClock)
        *paceNow = turn->value(1).toLongLong();
    turn->finish();
    return true;
}

bool Store::sweepCancelledLeases(qint64 leaseNowMs)
{
    // Operations an operator cancelled while their lease ran end once it expires. On
    // SQLite an UPDATE that finds nothing still costs more than the SELECT that looks
    // first (it opens the table and each of its indexes for writing); on PostgreSQL
    // the SELECT would be another round trip.
    // On PostgreSQL it runs at most once a second: such an operation ends at most a
    // second later, and the claims between, which hold the fleet's turn, save a write.
    bool due = true;
    if (m_db->isPostgres()) {
        due = m_cancelledSweptAtMs < 0 || leaseNowMs < m_cancelledSweptAtMs ||
              leaseNowMs - m_cancelledSweptAtMs >= kCancelledSweepMs;
        if (due)
            m_cancelledSweptAtMs = leaseNowMs;
    } else {
        SqlStatement *expired = m_db->cached(QStringLiteral(
            "SELECT 1 FROM operations INDEXED BY operations_leased WHERE state = 'running'"
            " AND lease_expires_at <= :now AND cancel_requested = 1 LIMIT 1"));
        if (!expired)
            return false;
        expired->bindValue(QStringLiteral(":now"), leaseNowMs);
        if (!m_db->exec(*expired))
            return false;
        due = expired->next();
        expired->finish();
    }
    if (!due)
        return true;
    SqlStatement *cancelled = m_db->cached(QStringLiteral(
        "UPDATE operations SET state = 'cancelled', final_reason ="
        " 'cancelled_by_operator', lease_owner = '', lease_expires_at = -1,"
        " next_attempt_at = -1, version = version + 1"
        " WHERE state = 'running' AND cancel_requested = 1 AND lease_expires_at <= :now"));
    if (!cancelled)
        return false;
    cancelled->bindValue(QStringLiteral(":now"), leaseNowMs);
    return m_db->exec(*cancelled);
}

bool Store::countPermits(const QString &workerId, qint64 leaseNowMs, FleetPermits *permits)
{
    // Operations on standby hold leases, not permits.
    SqlStatement *running = m_db->cached(
        QStringLiteral("SELECT host, lease_owner, holds_permit, COUNT(*) FROM operations"
                       " WHERE state = 'running' AND lease_expires_at > :now"
                       " GROUP BY host, lease_owner, holds_permit"));
    if (!running)
        return false;
    running->bindValue(QStringLiteral(":now"), leaseNowMs);
    if (!m_db->exec(*running))
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
        m_db->cached(QStringLiteral("SELECT worker_id FROM workers WHERE wants_until > :now"));
    if (!wanting)
        return false;
    wanting->bindValue(QStringLiteral(":now"), leaseNowMs);
    if (!m_db->exec(*wanting))
        return false;
    while (wanting->next())
        contenders.insert(wanting->value(0).toString());
    wanting->finish();
    permits->contenders = int(contenders.size());
    return true;
}

bool Store::collectCandidates(SqlStatement *query, QList<ClaimCandidate> *out)
{
    if (!query || !m_db->exec(*query))
        return false;
    while (query->next())
        out->append({query->value(0).toLongLong(), query->value(1).toLongLong(),
                     query->value(2).toString(), query->value(3).toLongLong()});
    const bool ok = !query->lastError().isValid();
    query->finish();
    return ok || m_db->fail(QStringLiteral("claim"), errorText(query->lastError()));
}

bool Store::readRescues(qint64 leaseNowMs, int limit, ClaimPlan *plan)
{
    SqlStatement *rescue =
        m_db->cached(QStringLiteral("SELECT id, cost, host, next_attempt_at FROM operations"
                                    " WHERE state = 'running' AND lease_expires_at <= :now"
                                    " AND cancel_requested = 0"
                                    " ORDER BY lease_expires_at LIMIT :limit") +
                     m_db->dialect().forUpdate(true));
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

bool Store::takeForced(qint64 nowMs, int limit, FleetPermits &permits, ClaimPlan *plan,
                       QList<ForcedCharge> *forced)
{
    if (plan->picked.size() >= limit)
        return true;
    SqlStatement *query = m_db->cached(
        QStringLiteral("SELECT id, policy_id, partition_key, cost, host FROM operations%1"
                       " WHERE %2 AND force_next = 1 AND next_attempt_at <= :now%3"
                       " ORDER BY next_attempt_at LIMIT :limit%4")
            .arg(m_db->dialect().indexedBy("operations_forced"), QLatin1String(kPending),
                 QLatin1String(kNotPaused), m_db->dialect().forUpdate(true)));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":limit"), limit - int(plan->picked.size()));
    if (!m_db->exec(*query))
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

std::optional<bool> Store::anyDue(qint64 nowMs)
{
    SqlStatement *query = m_db->cached(
        QStringLiteral("SELECT id FROM operations%1 WHERE %2 AND next_attempt_at <= :now%3 LIMIT 1")
            .arg(m_db->dialect().indexedBy("operations_due"), QLatin1String(kPending),
                 QLatin1String(kNotPaused)));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":now"), nowMs);
    if (!m_db->exec(*query))
        return std::nullopt;
    const bool due = query->next();
    query->finish();
    return due;
}

bool Store::readLanes(const ClaimClock &clock, int room, std::vector<ClaimLane> *lanes)
{
    SqlStatement *partitions = m_db->cached(
        QStringLiteral("SELECT policy_id, partition_key, interval_us, capacity, tat_us,"
                       " held_until, look_at, pacing, server_quota, server_window_ms,"
                       " server_remaining, server_reset_at, server_known_until,"
                       " server_opened_at FROM rate_partitions WHERE next_at <= :now"
                       " ORDER BY next_at LIMIT :limit") +
        m_db->dialect().forUpdate(true));
    SqlStatement *dueInPartition = m_db->cached(
        QStringLiteral("SELECT id, cost, host, next_attempt_at FROM operations%1"
                       " WHERE policy_id = :policy AND partition_key = :partition"
                       " AND %2 AND next_attempt_at <= :now"
                       " AND force_next = 0%3 ORDER BY next_attempt_at LIMIT :limit%4")
            .arg(m_db->dialect().indexedBy("operations_due_by_partition"), QLatin1String(kPending),
                 QLatin1String(kNotPaused), m_db->dialect().forUpdate(true)));
    SqlStatement *unpartitioned = m_db->cached(
        QStringLiteral("SELECT id, cost, host, next_attempt_at FROM operations%1 WHERE %2"
                       " AND policy_id = '' AND next_attempt_at <= :now"
                       " AND force_next = 0%3 ORDER BY next_attempt_at LIMIT :limit%4")
            .arg(m_db->dialect().indexedBy("operations_due_unpartitioned"), QLatin1String(kPending),
                 QLatin1String(kNotPaused), m_db->dialect().forUpdate(true)));
    if (!partitions || !dueInPartition || !unpartitioned)
        return false;
    partitions->bindValue(QStringLiteral(":now"), std::max(clock.aheadNowMs, clock.leaseNowMs));
    // Partitions found empty are put right as they are read, so a few more than the
    // room are read; the rest wait for the next claim.
    partitions->bindValue(QStringLiteral(":limit"), 4 * room + 16);
    if (!m_db->exec(*partitions))
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

bool Store::noteWanting(const QString &workerId, qint64 leaseNowMs, bool capped,
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
    SqlStatement *want = m_db->cached(QStringLiteral(
        "INSERT INTO workers (worker_id, wants_until) VALUES (:worker, :until)"
        " ON CONFLICT (worker_id) DO UPDATE SET wants_until = excluded.wants_until"));
    if (!want)
        return false;
    want->bindValue(QStringLiteral(":worker"), text(workerId));
    want->bindValue(QStringLiteral(":until"), wantsUntilMs);
    if (!m_db->exec(*want))
        return false;
    next->wantingPermits = capped;
    next->wantsUntilMs = wantsUntilMs;
    return true;
}

bool Store::writeClaims(const ClaimPlan &plan, const QString &workerId, qint64 leaseExpiresAtMs,
                        QList<OperationRecord> *claimed)
{
    if (plan.picked.isEmpty())
        return true;
    QString set =
        QStringLiteral("rescued = CASE WHEN state = 'running' THEN 1 ELSE 0 END, state = 'running',"
                       " lease_owner = :owner, lease_expires_at = :expires, version = version + 1");
    if (m_db->isPostgres()) {
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
        SqlStatement *update = m_db->cached(
            QStringLiteral(
                "UPDATE operations SET %1 WHERE id = ANY(CAST(:ids AS BIGINT[])) RETURNING %2")
                .arg(set, operationColumns()));
        if (!update)
            return false;
        update->bindValue(QStringLiteral(":owner"), text(workerId));
        update->bindValue(QStringLiteral(":expires"), leaseExpiresAtMs);
        update->bindValue(QStringLiteral(":standby"), idArray(plan.onStandby));
        update->bindValue(QStringLiteral(":ids"), idArray(plan.picked));
        if (!m_db->exec(*update))
            return false;
        while (update->next())
            claimed->append(readOperation(*update));
        if (update->lastError().isValid())
            return m_db->fail(QStringLiteral("claim"), errorText(update->lastError()));
        update->finish();
        return true;
    }
    // SQLite is in this process: statements prepared once, per operation, cost less
    // than parsing a new statement for each claim (most claims take one or two) and
    // RETURNING's temporary table.
    // Rescues (running before this update) send nothing and hold no permit.
    set += QStringLiteral(", holds_permit = CASE WHEN state = 'running' THEN 0 ELSE :permit END");
    SqlStatement *update =
        m_db->cached(QStringLiteral("UPDATE operations SET %1 WHERE id = :id").arg(set));
    SqlStatement *read = m_db->cached(
        QStringLiteral("SELECT %1 FROM operations WHERE id = :id").arg(operationColumns()));
    if (!update || !read)
        return false;
    for (qint64 id : plan.picked) {
        update->bindValue(QStringLiteral(":owner"), text(workerId));
        update->bindValue(QStringLiteral(":expires"), leaseExpiresAtMs);
        update->bindValue(QStringLiteral(":id"), id);
        update->bindValue(QStringLiteral(":permit"), plan.onStandby.contains(id) ? 0 : 1);
        if (!m_db->exec(*update))
            return false;
        read->bindValue(QStringLiteral(":id"), id);
        if (!m_db->exec(*read))
            return false;
        if (!read->next())
            return m_db->fail(QStringLiteral("claim"),
                              QStringLiteral("operation %1 vanished").arg(id));
        claimed->append(readOperation(*read));
        read->finish();
    }
    return true;
}

bool Store::writeLanes(const std::vector<ClaimLane> &lanes, const ClaimClock &clock)
{
    // Each partition looked at learns when a claim may find work there next: when its
    // bucket has a unit and no hold stands, and not before its first pending operation
    // is due; one just served goes behind those still waiting.
    SqlStatement *update = m_db->cached(QStringLiteral(
        "UPDATE rate_partitions SET tat_us = :tat, look_at = :look, ready_at = :ready,"
        " next_at = :next, server_remaining = :remaining, server_reset_at = :reset,"
        " server_opened_at = :opened WHERE policy_id = :policy AND partition_key = :partition"));
    SqlStatement *firstPending = m_db->cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE policy_id = :policy"
                       " AND partition_key = :partition AND %2%3 ORDER BY next_attempt_at LIMIT 1")
            .arg(m_db->dialect().indexedBy("operations_due_by_partition"), QLatin1String(kPending),
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
            if (!m_db->exec(*firstPending))
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
        if (!m_db->exec(*update))
            return false;
    }
    return true;
}

bool Store::chargeForced(const QList<ForcedCharge> &forced, qint64 paceNowUs)
{
    // What forced operations send is still counted in their bucket.
    if (forced.isEmpty())
        return true;
    SqlStatement *charge = m_db->cached(
        QStringLiteral("UPDATE rate_partitions SET tat_us = CASE WHEN interval_us = 0 THEN tat_us"
                       " ELSE %1(tat_us, :now) + interval_us * :cost END"
                       " WHERE policy_id = :policy AND partition_key = :partition")
            .arg(m_db->dialect().greatest()));
    if (!charge)
        return false;
    for (const ForcedCharge &f : forced) {
        if (f.policyId.isEmpty())
            continue;
        charge->bindValue(QStringLiteral(":now"), paceNowUs);
        charge->bindValue(QStringLiteral(":cost"), f.cost);
        charge->bindValue(QStringLiteral(":policy"), text(f.policyId));
        charge->bindValue(QStringLiteral(":partition"), text(f.partitionKey));
        if (!m_db->exec(*charge))
            return false;
    }
    return true;
}

bool Store::insertAttempt(const AttemptRecord &a, bool leaseConflict, qint64 *id)
{
    static const QString sql = QStringLiteral("INSERT INTO attempts (%1) VALUES (%2)")
                                   .arg(attemptInsert().names(), attemptInsert().list());
    SqlStatement *statement = m_db->cached(sql + m_db->dialect().returningId());
    if (!statement)
        return false;
    SqlStatement &query = *statement;
    // Redaction happens here, whatever the caller did.
    const QVariant values[] = {
        a.operationId,
        text(a.endpointId),
        a.attempt,
        a.startedAtMs,
        a.finishedAtMs,
        text(a.method),
        text(redaction::redactUrl(a.url)),
        a.status,
        text(redaction::redactText(a.error)),
        decisionText(a.decision),
        text(redaction::redactText(a.reason)),
        a.waitMs,
        waitSourceText(a.waitSource),
        text(a.retryAfterRaw),
        text(redaction::redactText(a.problemType)),
        text(redaction::redactText(a.problemInstance)),
        a.rateLimitRemaining,
        text(a.idempotencyKey),
        a.durationMs,
        text(a.workerId),
        text(a.policyId),
        a.policyVersion,
        a.forced ? 1 : 0,
        text(redaction::redactHeaderLines(a.requestHeaders)),
        text(redaction::redactHeaderLines(a.responseHeaders)),
        leaseConflict ? 1 : 0,
    };
    attemptInsert().bind(query, values);
    if (!m_db->exec(query))
        return false;
    const QVariant inserted = m_db->dialect().insertedId(query);
    if (m_db->dialect().isPostgres())
        query.finish();
    if (!inserted.isValid())
        return m_db->fail(QStringLiteral("record attempt"), QStringLiteral("no id returned"));
    const qint64 attemptId = inserted.toLongLong();
    if (id)
        *id = attemptId;
    if (!a.checkFailure.isEmpty()) {
        // Written apart: few attempts fail a check, and every attempt's insert stays one
        // statement prepared once.
        SqlStatement *check = m_db->cached(
            QStringLiteral("UPDATE attempts SET check_failure = :check WHERE id = :id"));
        if (!check)
            return false;
        check->bindValue(QStringLiteral(":check"), text(redaction::redactText(a.checkFailure)));
        check->bindValue(QStringLiteral(":id"), attemptId);
        if (!m_db->exec(*check))
            return false;
    }
    return !a.kept || keepExchange(attemptId, a.endpointId, *a.kept);
}

bool Store::keepExchange(qint64 attemptId, const QString &endpointId, const KeptExchange &kept)
{
    // The engine redacted the bodies by their kind (redaction::redactBody); their URLs
    // are redacted again here, whatever the caller did.
    SqlStatement *insert = m_db->cached(QStringLiteral(
        "INSERT INTO kept_exchanges (attempt_id, endpoint_id, request_body, response_body,"
        " request_bytes, response_bytes, response_truncated) VALUES (:attempt, :endpoint,"
        " :request, :response, :request_bytes, :response_bytes, :truncated)"));
    if (!insert)
        return false;
    insert->bindValue(QStringLiteral(":attempt"), attemptId);
    insert->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    insert->bindValue(QStringLiteral(":request"), text(redaction::redactUrls(kept.requestBody)));
    insert->bindValue(QStringLiteral(":response"), text(redaction::redactUrls(kept.responseBody)));
    insert->bindValue(QStringLiteral(":request_bytes"), kept.requestBytes);
    insert->bindValue(QStringLiteral(":response_bytes"), kept.responseBytes);
    insert->bindValue(QStringLiteral(":truncated"), kept.responseTruncated ? 1 : 0);
    if (!m_db->exec(*insert))
        return false;
    // Only the endpoint's last keepLast: the oldest beyond them go.
    SqlStatement *trim = m_db->cached(QStringLiteral(
        "DELETE FROM kept_exchanges WHERE endpoint_id = :endpoint AND attempt_id <= (SELECT"
        " attempt_id FROM kept_exchanges WHERE endpoint_id = :endpoint2"
        " ORDER BY attempt_id DESC LIMIT 1 OFFSET :keep)"));
    if (!trim)
        return false;
    trim->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    trim->bindValue(QStringLiteral(":endpoint2"), text(endpointId));
    trim->bindValue(QStringLiteral(":keep"), std::max(0, kept.keepLast));
    return m_db->exec(*trim);
}

std::optional<KeptExchange> Store::keptExchange(qint64 attemptId)
{
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "SELECT request_body, response_body, request_bytes, response_bytes, response_truncated"
        " FROM kept_exchanges WHERE attempt_id = :attempt"));
    query.bindValue(QStringLiteral(":attempt"), attemptId);
    if (!m_db->exec(query) || !query.next())
        return std::nullopt;
    KeptExchange kept;
    kept.requestBody = query.value(0).toString();
    kept.responseBody = query.value(1).toString();
    kept.requestBytes = query.value(2).toLongLong();
    kept.responseBytes = query.value(3).toLongLong();
    kept.responseTruncated = query.value(4).toInt() != 0;
    return kept;
}

Store::FinishResult Store::finishAttempt(const AttemptRecord &attempt,
                                         const OperationRecord &newState, qint64 claimedVersion,
                                         const QString &workerId)
{
    const FinishOutcome outcome =
        finishAttempts({{attempt, newState, claimedVersion}}, workerId).value(0);
    if (outcome.result != FinishResult::Committed)
        m_db->setError(outcome.error);
    return outcome.result;
}

bool Store::observeQuota(const FinishRequest &request)
{
    const QString lock = m_db->dialect().forUpdate();
    SqlStatement *row = m_db->cached(
        QStringLiteral("SELECT server_quota, server_window_ms, server_remaining, server_reset_at,"
                       " server_known_until, server_opened_at FROM rate_partitions"
                       " WHERE policy_id = :policy AND partition_key = :partition") +
        lock);
    SqlStatement *running = m_db->cached(QStringLiteral(
        "SELECT COUNT(*) FROM operations WHERE state = 'running' AND policy_id = :policy"
        " AND partition_key = :partition"));
    SqlStatement *update = m_db->cached(QStringLiteral(
        "UPDATE rate_partitions SET server_quota = :quota, server_window_ms = :window,"
        " server_remaining = :remaining, server_reset_at = :reset,"
        " server_known_until = :until, server_opened_at = :opened, learned_from = :from,"
        " learned_at = :at,"
        // A learned partition paced by the server's refusals is paced by what it states.
        " interval_us = CASE WHEN policy_id LIKE 'learned:%' THEN 0 ELSE interval_us END,"
        " next_at = CASE WHEN :open = 1 AND look_at < next_at THEN look_at ELSE next_at END"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    if (!row || !running || !update)
        return false;
    const QString policy = request.quotaPolicyId;
    const QString partition = request.quotaPartitionKey;
    row->bindValue(QStringLiteral(":policy"), text(policy));
    row->bindValue(QStringLiteral(":partition"), text(partition));
    if (!m_db->exec(*row))
        return false;
    if (!row->next()) {
        row->finish();
        return true; // no such partition (any more): nothing to pace
    }
    ServerWindow window;
    window.quota = row->value(0).toLongLong();
    window.windowMs = row->value(1).toLongLong();
    window.remaining = row->value(2).toLongLong();
    window.resetAtMs = row->value(3).toLongLong();
    window.knownUntilMs = row->value(4).toLongLong();
    window.openedAtMs = row->value(5).toLongLong();
    row->finish();
    running->bindValue(QStringLiteral(":policy"), text(policy));
    running->bindValue(QStringLiteral(":partition"), text(partition));
    if (!m_db->exec(*running) || !running->next())
        return m_db->fail(QStringLiteral("quota"), errorText(running->lastError()));
    const qint64 othersInFlight = running->value(0).toLongLong();
    running->finish();
    const qint64 now = request.quotaObservedAtMs;
    window.observe(*request.quota, othersInFlight, now);
    if (window.quota <= 0)
        return true;
    update->bindValue(QStringLiteral(":quota"), window.quota);
    update->bindValue(QStringLiteral(":window"), window.windowMs);
    update->bindValue(QStringLiteral(":remaining"), window.remaining);
    update->bindValue(QStringLiteral(":reset"), window.resetAtMs);
    update->bindValue(QStringLiteral(":until"), window.knownUntilMs);
    update->bindValue(QStringLiteral(":opened"), window.openedAtMs);
    update->bindValue(QStringLiteral(":from"), text(request.quota->fields));
    update->bindValue(QStringLiteral(":at"), now);
    update->bindValue(QStringLiteral(":open"), window.available(0, now) > 0 ? 1 : 0);
    update->bindValue(QStringLiteral(":policy"), text(policy));
    update->bindValue(QStringLiteral(":partition"), text(partition));
    return m_db->exec(*update);
}

bool Store::observeAnswers(const QList<FinishRequest> &requests)
{
    // The answers of each learned partition, in order. A statement of a quota paces
    // the partition by itself (observeQuota).
    QList<QPair<QString, QString>> partitions;
    QHash<QPair<QString, QString>, QList<const FinishRequest *>> answers;
    for (const FinishRequest &request : requests) {
        const OperationRecord &op = request.newState;
        if (!isLearnedPolicyId(op.policyId) || request.attempt.status <= 0 ||
            (request.quota && request.quota->quota > 0))
            continue;
        const QPair<QString, QString> key{op.policyId, op.partitionKey};
        if (!answers.contains(key))
            partitions.append(key);
        answers[key].append(&request);
    }
    if (partitions.isEmpty())
        return true;
    const QString lock = m_db->dialect().forUpdate();
    SqlStatement *row = m_db->cached(
        QStringLiteral("SELECT interval_us, measured_since, measured_accepted, measured_raised_at,"
                       " server_quota, server_known_until FROM rate_partitions"
                       " WHERE policy_id = :policy AND partition_key = :partition") +
        lock);
    SqlStatement *update = m_db->cached(QStringLiteral(
        "UPDATE rate_partitions SET interval_us = :interval, capacity = 1,"
        " measured_since = :since, measured_accepted = :accepted, measured_raised_at = :raised,"
        " learned_from = CASE WHEN :lesson = '' THEN learned_from ELSE :lesson2 END,"
        " learned_at = CASE WHEN :lesson3 = '' THEN learned_at ELSE :at END"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    if (!row || !update)
        return false;
    for (const auto &key : std::as_const(partitions)) {
        row->bindValue(QStringLiteral(":policy"), text(key.first));
        row->bindValue(QStringLiteral(":partition"), text(key.second));
        if (!m_db->exec(*row))
            return false;
        if (!row->next()) {
            row->finish();
            continue; // no such partition (any more)
        }
        MeasuredPace pace;
        pace.intervalUs = row->value(0).toLongLong();
        pace.sinceMs = row->value(1).toLongLong();
        pace.accepted = row->value(2).toLongLong();
        pace.raisedAtMs = row->value(3).toLongLong();
        const bool stated = row->value(4).toLongLong() > 0;
        const qint64 statedUntil = row->value(5).toLongLong();
        row->finish();
        QString lesson;
        qint64 lessonAt = 0;
        for (const FinishRequest *request : answers.value(key)) {
            const AttemptRecord &a = request->attempt;
            if (stated && statedUntil > a.finishedAtMs)
                continue; // paced by what the server states
            const bool refused = a.status == 429;
            const qint64 holdMs = a.waitSource == WaitSource::RetryAfter ? a.waitMs : 0;
            const MeasuredPace before = pace;
            pace.answered(refused, holdMs, a.startedAtMs, a.finishedAtMs);
            if (refused && pace.intervalUs != before.intervalUs) {
                lesson = QStringLiteral("429 after %1 accepted answers in %2 s%3")
                             .arg(before.accepted)
                             .arg(double(a.finishedAtMs - before.sinceMs) / 1000.0, 0, 'f', 1)
                             .arg(a.retryAfterRaw.isEmpty()
                                      ? QString()
                                      : QStringLiteral(", Retry-After: ") + a.retryAfterRaw);
                lessonAt = a.finishedAtMs;
            }
        }
        update->bindValue(QStringLiteral(":interval"), pace.intervalUs);
        update->bindValue(QStringLiteral(":since"), pace.sinceMs);
        update->bindValue(QStringLiteral(":accepted"), pace.accepted);
        update->bindValue(QStringLiteral(":raised"), pace.raisedAtMs);
        update->bindValue(QStringLiteral(":lesson"), text(lesson));
        update->bindValue(QStringLiteral(":lesson2"), text(lesson));
        update->bindValue(QStringLiteral(":lesson3"), text(lesson));
        update->bindValue(QStringLiteral(":at"), lessonAt);
        update->bindValue(QStringLiteral(":policy"), text(key.first));
        update->bindValue(QStringLiteral(":partition"), text(key.second));
        if (!m_db->exec(*update))
            return false;
    }
    return true;
}

namespace {

// One statement applies the new state where the fence holds; a pending cancel turns
// any state but succeeded and failed into cancelled on the way. PostgreSQL returns
// the flag with the update.
const QString &finishStatement(bool postgres)
{
    static const QString sql = QStringLiteral(
        "UPDATE operations SET"
        " state = CASE WHEN cancel_requested = 1 THEN :cancelled_state ELSE :state END,"
        " attempt = :attempt, throttled_attempts = :throttled_attempts,"
        " first_attempt_at = :first_attempt_at,"
        " next_attempt_at = CASE WHEN cancel_requested = 1 THEN CAST(:cancelled_next AS BIGINT)"
        " ELSE CAST(:next AS BIGINT) END,"
        " last_status = :last_status, last_error = :last_error,"
        " response_instance = :response_instance,"
        " final_reason = CASE WHEN cancel_requested = 1 THEN :cancelled_reason ELSE :reason END,"
        " wait_source = :wait_source, previous_backoff_ms = :previous_backoff_ms,"
        " force_next = :force_next, rescued = 0,"
        " lease_owner = CASE WHEN cancel_requested = 1 THEN :cancelled_owner ELSE :owner END,"
        " lease_expires_at = CASE WHEN cancel_requested = 1 THEN CAST(:cancelled_expires AS BIGINT)"
        " ELSE CAST(:expires AS BIGINT) END, version = version + 1"
        " WHERE id = :id AND version = :version AND lease_owner = :worker");
    static const QString returning = sql + QStringLiteral(" RETURNING cancel_requested");
    return postgres ? returning : sql;
}

// The operation as finishStatement will store it, without and with a pending cancel:
// which of the two it became is known only once the statement ran.
struct FinishedRecords
{
    OperationRecord stored;
    OperationRecord cancelled;
};

FinishedRecords finishedRecords(const Store::FinishRequest &request, const QString &workerId)
{
    const OperationRecord &next = request.newState;
    FinishedRecords records;
    OperationRecord &stored = records.stored;
    stored = next;
    stored.id = request.attempt.operationId;
    stored.version = request.claimedVersion + 1;
    stored.lastError = redaction::redactText(next.lastError);
    stored.responseInstance = redaction::redactText(next.responseInstance);
    stored.rescued = false;
    const bool keepsLease = next.state == OperationState::Running;
    stored.leaseOwner = keepsLease ? workerId : QString();
    stored.leaseExpiresAtMs = keepsLease ? next.leaseExpiresAtMs : -1;
    OperationRecord &cancelled = records.cancelled;
    cancelled = stored;
    cancelled.cancelRequested = true;
    if (next.state != OperationState::Succeeded && next.state != OperationState::Failed) {
        cancelled.state = OperationState::Cancelled;
        cancelled.finalReason = QStringLiteral("cancelled_by_operator");
        cancelled.nextAttemptAtMs = -1;
        cancelled.leaseOwner.clear();
        cancelled.leaseExpiresAtMs = -1;
    }
    return records;
}

// finishStatement's values: each column's pair for a pending cancel and without, then
// the fence.
void bindFinish(SqlStatement &update, const Store::FinishRequest &request,
                const FinishedRecords &records, const QString &workerId)
{
    const OperationRecord &next = request.newState;
    const OperationRecord &stored = records.stored;
    const OperationRecord &cancelled = records.cancelled;
    const QVariant values[] = {
        stateText(cancelled.state),
        stateText(stored.state),
        next.attempt,
        next.throttledAttempts,
        next.firstAttemptAtMs,
        cancelled.nextAttemptAtMs,
        stored.nextAttemptAtMs,
        next.lastStatus,
        text(stored.lastError),
        text(stored.responseInstance),
        text(cancelled.finalReason),
        text(stored.finalReason),
        waitSourceText(next.waitSource),
        next.previousBackoffMs,
        next.forceNext ? 1 : 0,
        text(cancelled.leaseOwner),
        text(stored.leaseOwner),
        cancelled.leaseExpiresAtMs,
        stored.leaseExpiresAtMs,
        request.attempt.operationId,
        request.claimedVersion,
        text(workerId),
    };
    finishUpdate().bind(update, values);
}

// What a worker that lost its lease is told: whose the operation is now, at which
// version.
QString leaseConflictText(const Store::FinishRequest &request, const QString &workerId,
                          const OperationRecord &current)
{
    return QStringLiteral("operation %1: worker '%2' held version %3, the store has "
                          "version %4 leased to '%5'")
        .arg(request.attempt.operationId)
        .arg(workerId)
        .arg(request.claimedVersion)
        .arg(current.version)
        .arg(current.leaseOwner);
}

} // namespace

bool Store::finishOne(const FinishRequest &request, const QString &workerId, FinishOutcome *outcome)
{
    const bool postgres = m_db->isPostgres();
    SqlStatement *update = m_db->cached(finishStatement(postgres));
    if (!update)
        return false;
    const AttemptRecord &attempt = request.attempt;
    const FinishedRecords records = finishedRecords(request, workerId);
    bindFinish(*update, request, records, workerId);
    if (!m_db->exec(*update))
        return false;
    // Whether a cancel was pending: PostgreSQL returned it with the update; SQLite
    // would build a temporary table for that (see insertAttempt), so there the flag
    // is read back by key.
    bool applied = false;
    bool cancelRequested = false;
    if (postgres) {
        applied = update->next();
        cancelRequested = applied && update->value(0).toInt() != 0;
        update->finish();
    } else if (update->numRowsAffected() == 1) {
        SqlStatement *flag =
            m_db->cached(QStringLiteral("SELECT cancel_requested FROM operations WHERE id = :id"));
        if (!flag)
            return false;
        flag->bindValue(QStringLiteral(":id"), attempt.operationId);
        if (!m_db->exec(*flag) || !flag->next())
            return m_db->fail(QStringLiteral("finish"), QStringLiteral("the operation vanished"));
        applied = true;
        cancelRequested = flag->value(0).toInt() != 0;
        flag->finish();
    }

    if (applied) {
        outcome->result = FinishResult::Committed;
        outcome->operation = cancelRequested ? records.cancelled : records.stored;
        return insertAttempt(attempt, false, nullptr);
    }

    // The fence did not hold. The request did leave: keep what it got, but let it
    // change nothing.
    const OperationLookup lookup = lookUpOperation(attempt.operationId);
    if (lookup.result != OperationLookup::Result::Found) {
        outcome->result = FinishResult::Failed;
        outcome->error = QStringLiteral("operation %1 does not exist").arg(attempt.operationId);
        return lookup.result == OperationLookup::Result::Missing;
    }
    outcome->result = FinishResult::LeaseConflict;
    outcome->operation = lookup.record;
    outcome->error = leaseConflictText(request, workerId, lookup.record);
    return insertAttempt(attempt, true, nullptr);
}

bool Store::execFenced(SqlStatement &query, qint64 operationId, const QString &workerId,
                       qint64 claimedVersion)
{
    query.bindValue(QStringLiteral(":id"), operationId);
    query.bindValue(QStringLiteral(":version"), claimedVersion);
    query.bindValue(QStringLiteral(":owner"), text(workerId));
    if (!m_db->exec(query))
        return false;
    if (query.numRowsAffected() != 1) {
        m_db->setError(QStringLiteral("operation %1 is no longer leased to '%2' at version %3")
                           .arg(operationId)
                           .arg(workerId)
                           .arg(claimedVersion));
        return false;
    }
    return true;
}

bool Store::releaseClaim(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                         qint64 dueAtMs)
{
    // A rescue keeps state running with an expired lease: the next claim rescues it again.
    SqlStatement *query = m_db->cached(QStringLiteral(
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

bool Store::renewLease(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                       qint64 leaseExpiresAtMs)
{
    SqlStatement *query = m_db->cached(QStringLiteral(
        "UPDATE operations SET lease_expires_at = :expires"
        " WHERE id = :id AND version = :version AND lease_owner = :owner AND state = 'running'"));
    if (!query)
        return false;
    // On the clock leases run on, as the last claim measured it against the caller's.
    query->bindValue(QStringLiteral(":expires"), leaseExpiresAtMs + m_clockOffsetMs);
    return execFenced(*query, operationId, workerId, claimedVersion);
}

std::optional<qint64> Store::nextDueAtMs(qint64 nowMs)
{
    // Partitions and leases run on the database's clock on PostgreSQL: their times move
    // by however far the caller's clock is from it.
    qint64 paceOffsetMs = 0;
    if (nowMs >= 0 && m_paceByDatabaseClock) {
        const std::optional<qint64> paceNow = paceNowUs(nowMs);
        if (!paceNow)
            return std::nullopt;
        paceOffsetMs = nowMs - *paceNow / 1000;
    }
    // The partial indexes are in claim order; without statistics SQLite would rather
    // sort every pending operation, so it is told which to walk.
    SqlStatement *unpartitioned = m_db->cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE %2 AND policy_id = ''%3"
                       " ORDER BY next_attempt_at LIMIT 1")
            .arg(m_db->dialect().indexedBy("operations_due_unpartitioned"), QLatin1String(kPending),
                 QLatin1String(kNotPaused)));
    SqlStatement *forced = m_db->cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE %2 AND force_next = 1%3"
                       " ORDER BY next_attempt_at LIMIT 1")
            .arg(m_db->dialect().indexedBy("operations_forced"), QLatin1String(kPending),
                 QLatin1String(kNotPaused)));
    // A partition's next_at: when its bucket has a unit, no hold stands and its first
    // pending operation is due (paced by the database's clock on PostgreSQL).
    // next_at mixes the database's clock (ready_at) with the operations' (look_at). When
    // the caller's clock is far from the database's, each part is moved on its own:
    // that reads every partition, which only a fleet with skewed clocks pays for.
    const bool skewed = qAbs(paceOffsetMs) > kSkewedClockMs;
    SqlStatement *partitions =
        skewed ? m_db->cached(QStringLiteral("SELECT MIN(%1(ready_at + :offset, look_at)) FROM"
                                             " rate_partitions WHERE next_at < :never")
                                  .arg(m_db->dialect().greatest()))
               : m_db->cached(
                     QStringLiteral("SELECT next_at FROM rate_partitions WHERE next_at < :never"
                                    " ORDER BY next_at LIMIT 1"));
    SqlStatement *leases = m_db->cached(
        QStringLiteral("SELECT lease_expires_at FROM operations WHERE state = 'running'"
                       " ORDER BY lease_expires_at LIMIT 1"));
    if (partitions) {
        partitions->bindValue(QStringLiteral(":never"), kNever);
        if (skewed)
            partitions->bindValue(QStringLiteral(":offset"), paceOffsetMs);
    }
    std::optional<qint64> earliest;
    for (SqlStatement *query : {unpartitioned, forced, partitions, leases}) {
        if (!query || !m_db->exec(*query))
            return std::nullopt;
        if (query->next() && !query->value(0).isNull()) {
            const qint64 at =
                query->value(0).toLongLong() +
                (query == leases || (query == partitions && !skewed) ? paceOffsetMs : 0);
            earliest = earliest ? std::min(*earliest, at) : at;
        }
        query->finish();
    }
    m_db->clearError();
    return earliest;
}

} // namespace cooldown
