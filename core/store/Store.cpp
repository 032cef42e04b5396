// SPDX-License-Identifier: Apache-2.0
// The store: the workspace's rows (endpoints, policies, partitions, ticks) and operations, created
// and looked up.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

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

bool Store::ensureEndpointRow(const QString &endpointId, qint64 nowMs)
{
    SqlStatement *query = m_db->cached(QStringLiteral(
        "INSERT INTO endpoints (id, name, created_at, updated_at) VALUES (:id, '', :now, :now2)"
        " ON CONFLICT (id) DO NOTHING"));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":id"), text(endpointId));
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":now2"), nowMs);
    return m_db->exec(*query);
}

bool Store::upsertEndpoint(const QString &endpointId, const QString &name, qint64 nowMs)
{
    SqlStatement *query = m_db->cached(QStringLiteral(
        "INSERT INTO endpoints (id, name, created_at, updated_at) VALUES (:id, :name, :now, :now2)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name"));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":id"), text(endpointId));
    query->bindValue(QStringLiteral(":name"), text(name));
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":now2"), nowMs);
    return m_db->exec(*query);
}

bool Store::setEndpointPaused(const QString &endpointId, bool paused, qint64 nowMs,
                              AuditRecord *audit)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive())
        return m_db->fail(QStringLiteral("pause endpoint"), transaction.error());
    QSqlQuery query = m_db->prepare(
        QStringLiteral("INSERT INTO endpoints (id, name, created_at, updated_at, paused)"
                       " VALUES (:id, '', :now, :now2, :paused)"
                       " ON CONFLICT (id) DO UPDATE SET paused = excluded.paused, "
                       "updated_at = excluded.updated_at"));
    query.bindValue(QStringLiteral(":id"), text(endpointId));
    query.bindValue(QStringLiteral(":now"), nowMs);
    query.bindValue(QStringLiteral(":now2"), nowMs);
    query.bindValue(QStringLiteral(":paused"), paused ? 1 : 0);
    if (!m_db->exec(query))
        return false;
    if (!paused) {
        // Claims took the paused operations for absent; every partition looks again.
        QSqlQuery again = m_db->prepare(QStringLiteral(
            "UPDATE rate_partitions SET look_at = 0, next_at = ready_at WHERE look_at > 0"));
        if (!m_db->exec(again))
            return false;
    }
    const AuditRecord before = audit ? *audit : AuditRecord();
    if (audit && !writeAudit(audit, 1))
        return false;
    if (!transaction.commit()) {
        if (audit)
            *audit = before;
        return m_db->fail(QStringLiteral("pause endpoint"), transaction.error());
    }
    return true;
}

std::optional<bool> Store::isEndpointPaused(const QString &endpointId)
{
    QSqlQuery query = m_db->prepare(QStringLiteral("SELECT paused FROM endpoints WHERE id = :id"));
    query.bindValue(QStringLiteral(":id"), text(endpointId));
    if (!m_db->exec(query))
        return std::nullopt;
    return query.next() && query.value(0).toInt() != 0;
}

std::optional<bool> Store::pauseAfterFailures(const QString &endpointId, int failures, qint64 nowMs,
                                              const QString &workerId)
{
    if (failures < 1)
        return false;
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("automatic pause"), transaction.error());
        return std::nullopt;
    }
    QSqlQuery endpoint =
        m_db->prepare(QStringLiteral("SELECT paused, updated_at FROM endpoints WHERE id = :id"));
    endpoint.bindValue(QStringLiteral(":id"), text(endpointId));
    if (!m_db->exec(endpoint))
        return std::nullopt;
    if (!endpoint.next() || endpoint.value(0).toInt() != 0)
        return false;
    const qint64 since = endpoint.value(1).toLongLong();
    endpoint.finish();

    // attempts_by_endpoint walks the endpoint's attempts from the latest back, and
    // stops at the first `failures` final ones: retries and parks do not end an
    // operation, an attempt whose worker had lost its lease changed nothing.
    QSqlQuery ends = m_db->prepare(QStringLiteral(
        "SELECT decision FROM attempts WHERE endpoint_id = :id AND started_at >= :since"
        " AND decision IN ('success', 'fail') AND lease_conflict = 0"
        " ORDER BY started_at DESC, id DESC LIMIT :failures"));
    ends.bindValue(QStringLiteral(":id"), text(endpointId));
    ends.bindValue(QStringLiteral(":since"), since);
    ends.bindValue(QStringLiteral(":failures"), failures);
    if (!m_db->exec(ends))
        return std::nullopt;
    int inARow = 0;
    while (ends.next() && decisionFromText(ends.value(0).toString()) == Decision::Fail)
        ++inARow;
    ends.finish();
    if (inARow < failures)
        return false;

    // On PostgreSQL two workers may both count enough failures: the row lock makes the
    // second wait for the first, whose write its condition then sees. An operator's
    // resume in between moves updated_at: the failures counted were before it.
    QSqlQuery pause =
        m_db->prepare(QStringLiteral("UPDATE endpoints SET paused = 1, updated_at = :now"
                                     " WHERE id = :id AND paused = 0 AND updated_at = :since"));
    pause.bindValue(QStringLiteral(":now"), nowMs);
    pause.bindValue(QStringLiteral(":id"), text(endpointId));
    pause.bindValue(QStringLiteral(":since"), since);
    if (!m_db->exec(pause))
        return std::nullopt;
    const bool paused = pause.numRowsAffected() == 1;
    if (paused) {
        // In the audit beside the operators' pauses, so that History and
        // `export --audit` say why an endpoint stopped, and who resumed it after.
        AuditRecord audit;
        audit.atMs = nowMs;
        audit.actor = QLatin1String(kAutomaticActor);
        audit.workerId = workerId;
        audit.action = OperatorAction::Pause;
        audit.target = endpointListTarget({endpointId});
        audit.asked = 1;
        if (!writeAudit(&audit, 1))
            return std::nullopt;
    }
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("automatic pause"), transaction.error());
        return std::nullopt;
    }
    return paused;
}

bool Store::upsertPolicy(const QString &policyId, int policyVersion, const QString &definitionJson)
{
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "INSERT INTO policies (policy_id, policy_version, definition) VALUES (:id, :version, "
        ":definition)"
        " ON CONFLICT (policy_id, policy_version) DO UPDATE SET definition = excluded.definition"));
    query.bindValue(QStringLiteral(":id"), text(policyId));
    query.bindValue(QStringLiteral(":version"), policyVersion);
    query.bindValue(QStringLiteral(":definition"), text(definitionJson));
    return m_db->exec(query);
}

Store::PaceResult Store::ensurePartition(const QString &policyId, const QString &partitionKey,
                                         int policyVersion, const QString &definitionJson,
                                         const Gcra &pace, QString *storedDefinition)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("partition"), transaction.error());
        return PaceResult::Failed;
    }
    const QString pacing = QJsonDocument::fromJson(definitionJson.toUtf8())
                               .object()
                               .value(QLatin1String("pacing"))
                               .toString();
    QSqlQuery insert = m_db->prepare(QStringLiteral(
        "INSERT INTO rate_partitions (policy_id, partition_key, policy_version,"
        " definition, interval_us, capacity, pacing) VALUES (:policy, :partition, :version,"
        " :definition, :interval, :capacity, :pacing) ON CONFLICT DO NOTHING"));
    insert.bindValue(QStringLiteral(":pacing"), text(pacing));
    insert.bindValue(QStringLiteral(":policy"), text(policyId));
    insert.bindValue(QStringLiteral(":partition"), text(partitionKey));
    insert.bindValue(QStringLiteral(":version"), policyVersion);
    insert.bindValue(QStringLiteral(":definition"), text(definitionJson));
    insert.bindValue(QStringLiteral(":interval"), pace.intervalUs);
    insert.bindValue(QStringLiteral(":capacity"), pace.capacity);
    if (!m_db->exec(insert))
        return PaceResult::Failed;
    PaceResult result = PaceResult::Written;
    if (insert.numRowsAffected() != 1) {
        QSqlQuery row = m_db->prepare(
            QStringLiteral("SELECT policy_version, definition FROM rate_partitions"
                           " WHERE policy_id = :policy AND partition_key = :partition") +
            m_db->dialect().forUpdate());
        row.bindValue(QStringLiteral(":policy"), text(policyId));
        row.bindValue(QStringLiteral(":partition"), text(partitionKey));
        if (!m_db->exec(row) || !row.next()) {
            m_db->fail(QStringLiteral("partition"), QStringLiteral("the row vanished"));
            return PaceResult::Failed;
        }
        const int storedVersion = row.value(0).toInt();
        const QString stored = row.value(1).toString();
        row.finish();
        if (storedDefinition)
            *storedDefinition = stored;
        // A row made before any worker knew the policy (version 0) takes any pace.
        if (storedVersion > policyVersion) {
            result = PaceResult::KeptNewer;
        } else if (storedVersion == policyVersion && !stored.isEmpty() &&
                   stored != definitionJson) {
            result = PaceResult::Conflict;
        } else if (storedVersion < policyVersion || stored.isEmpty()) {
            QSqlQuery update = m_db->prepare(QStringLiteral(
                "UPDATE rate_partitions SET policy_version = :version, definition = :definition,"
                " interval_us = :interval, capacity = :capacity, pacing = :pacing, ready_at = 0,"
                " conflict = '', next_at = look_at"
                " WHERE policy_id = :policy AND partition_key = :partition"));
            update.bindValue(QStringLiteral(":pacing"), text(pacing));
            update.bindValue(QStringLiteral(":version"), policyVersion);
            update.bindValue(QStringLiteral(":definition"), text(definitionJson));
            update.bindValue(QStringLiteral(":interval"), pace.intervalUs);
            update.bindValue(QStringLiteral(":capacity"), pace.capacity);
            update.bindValue(QStringLiteral(":policy"), text(policyId));
            update.bindValue(QStringLiteral(":partition"), text(partitionKey));
            if (!m_db->exec(update))
                return PaceResult::Failed;
        }
        if (result != PaceResult::Written) {
            // Kept on the row, so that `cooldown status` and the dashboard can say so.
            QSqlQuery note = m_db->prepare(
                QStringLiteral("UPDATE rate_partitions SET conflict = :conflict"
                               " WHERE policy_id = :policy AND partition_key = :partition"));
            note.bindValue(QStringLiteral(":conflict"),
                           QStringLiteral("a worker configures version %1 as %2")
                               .arg(policyVersion)
                               .arg(definitionJson));
            note.bindValue(QStringLiteral(":policy"), text(policyId));
            note.bindValue(QStringLiteral(":partition"), text(partitionKey));
            if (!m_db->exec(note))
                return PaceResult::Failed;
        }
    }
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("partition"), transaction.error());
        return PaceResult::Failed;
    }
    return result;
}

bool Store::ensureLearnedPartition(const QString &policyId)
{
    SqlStatement *insert = m_db->cached(
        QStringLiteral("INSERT INTO rate_partitions (policy_id, partition_key) VALUES (:policy, '')"
                       " ON CONFLICT DO NOTHING"));
    if (!insert)
        return false;
    insert->bindValue(QStringLiteral(":policy"), text(policyId));
    return m_db->exec(*insert);
}

std::optional<QList<PartitionState>> Store::partitions(qint64 nowMs)
{
    QList<PartitionState> out;
    const std::optional<qint64> paceNow = m_clock.nowUs(nowMs);
    if (!paceNow)
        return std::nullopt;
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "SELECT p.policy_id, p.partition_key, p.policy_version, p.interval_us, p.capacity,"
        " p.tat_us, p.held_until, p.hold_reason, p.definition, p.conflict,"
        " (SELECT COUNT(*) FROM operations o WHERE o.policy_id = p.policy_id"
        "  AND o.partition_key = p.partition_key AND o.state IN ('scheduled', 'waiting')),"
        " (SELECT COUNT(*) FROM operations o WHERE o.policy_id = p.policy_id"
        "  AND o.partition_key = p.partition_key AND o.state IN ('scheduled', 'waiting')"
        "  AND o.next_attempt_at <= :now),"
        " p.pacing, p.server_quota, p.server_window_ms, p.server_remaining, p.server_reset_at,"
        " p.server_known_until, p.learned_from, p.learned_at"
        " FROM rate_partitions p ORDER BY p.policy_id, p.partition_key"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    if (!m_db->exec(query))
        return std::nullopt;
    while (query.next()) {
        PartitionState p;
        p.policyId = query.value(0).toString();
        p.partitionKey = query.value(1).toString();
        p.policyVersion = query.value(2).toInt();
        p.pace.intervalUs = query.value(3).toLongLong();
        p.pace.capacity = query.value(4).toLongLong();
        p.tatUs = query.value(5).toLongLong();
        p.heldUntilMs = query.value(6).toLongLong();
        p.holdReason = query.value(7).toString();
        p.definition = query.value(8).toString();
        p.conflict = query.value(9).toString();
        p.pending = query.value(10).toLongLong();
        p.due = query.value(11).toLongLong();
        p.pacing = query.value(12).toString();
        p.server.quota = query.value(13).toLongLong();
        p.server.windowMs = query.value(14).toLongLong();
        p.server.remaining = query.value(15).toLongLong();
        p.server.resetAtMs = query.value(16).toLongLong();
        p.server.knownUntilMs = query.value(17).toLongLong();
        p.learnedFrom = query.value(18).toString();
        p.learnedAtMs = query.value(19).toLongLong();
        const bool windowKnown = p.server.isKnown(nowMs);
        const bool paced = !p.pace.isUnlimited() && !(windowKnown && p.pacing != u"smooth");
        p.availableUnits =
            paced ? p.pace.available(p.tatUs, *paceNow) : std::numeric_limits<qint64>::max();
        p.nextTokenAtMs = paced ? p.pace.availableAtMs(p.tatUs, 1, *paceNow / 1000) : nowMs;
        if (windowKnown) {
            p.availableUnits =
                std::min(p.availableUnits, p.server.available(p.pace.intervalUs, nowMs));
            p.nextTokenAtMs =
                std::max(p.nextTokenAtMs, p.server.availableAtMs(p.pace.intervalUs, nowMs));
        }
        if (p.availableUnits == std::numeric_limits<qint64>::max())
            p.availableUnits = -1; // no limit known
        out.append(p);
    }
    if (query.lastError().isValid()) {
        m_db->fail(QStringLiteral("partitions"), errorText(query.lastError()));
        return std::nullopt;
    }
    return out;
}

QList<WorkerLeases> Store::workers()
{
    QList<WorkerLeases> out;
    QSqlQuery query = m_db->prepare(
        QStringLiteral("SELECT lease_owner, COUNT(*), MAX(lease_expires_at),"
                       " SUM(CASE WHEN holds_permit = 0 THEN 1 ELSE 0 END) FROM operations"
                       " WHERE state = 'running' AND lease_owner <> '' GROUP BY lease_owner"
                       " ORDER BY 3 DESC"));
    if (!m_db->exec(query))
        return out;
    while (query.next())
        out.append({query.value(0).toString(), query.value(1).toLongLong(),
                    query.value(3).toLongLong(), query.value(2).toLongLong()});
    return out;
}

qint64 Store::dueCount(qint64 nowMs)
{
    QSqlQuery query = m_db->prepare(
        QStringLiteral("SELECT COUNT(*) FROM operations WHERE state IN ('scheduled', 'waiting')"
                       " AND next_attempt_at <= :now"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    if (!m_db->exec(query) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}

bool Store::ensureTick(const QString &endpointId, qint64 everyMs, qint64 firstTickAtMs)
{
    QSqlQuery query = m_db->prepare(
        QStringLiteral("INSERT INTO periodic_ticks (endpoint_id, every_ms, next_tick_at)"
                       " VALUES (:endpoint, :every, :first)"
                       " ON CONFLICT (endpoint_id) DO UPDATE SET every_ms = excluded.every_ms"));
    query.bindValue(QStringLiteral(":endpoint"), text(endpointId));
    query.bindValue(QStringLiteral(":every"), std::max<qint64>(1, everyMs));
    query.bindValue(QStringLiteral(":first"), firstTickAtMs);
    return m_db->exec(query);
}

namespace {

Store::NewOperation newOperation(const QString &endpointId, const QString &idempotencyKey,
                                 const QString &policyId, const QString &partitionKey, qint64 cost,
                                 const QString &host, const QByteArray &body = {})
{
    Store::NewOperation o;
    o.endpointId = endpointId;
    o.idempotencyKey = idempotencyKey;
    o.policyId = policyId;
    o.partitionKey = partitionKey;
    o.cost = cost;
    o.host = host;
    o.body = body;
    return o;
}

} // namespace

QList<qint64> Store::runDueTicks(qint64 nowMs, const QHash<QString, TickEndpoint> &endpoints,
                                 const std::function<QString()> &newIdempotencyKey, qint64 aheadMs)
{
    QList<qint64> created;
    const qint64 horizon = nowMs + std::max<qint64>(0, aheadMs);
    SqlStatement *due =
        m_db->cached(QStringLiteral("SELECT endpoint_id, next_tick_at FROM periodic_ticks"
                                    " WHERE next_tick_at <= :now ORDER BY next_tick_at"));
    if (!due)
        return created;
    due->bindValue(QStringLiteral(":now"), horizon);
    if (!m_db->exec(*due))
        return created;
    QList<std::pair<QString, qint64>> candidates; // endpoint, its tick
    while (due->next())
        candidates.append({due->value(0).toString(), due->value(1).toLongLong()});
    due->finish();
    m_db->clearError();
    if (candidates.isEmpty())
        return created;

    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("tick"), transaction.error());
        return created;
    }
    // The conditional update decides which worker owns a tick: on PostgreSQL a second
    // worker waits for the first one's row lock and then finds the tick moved on. It
    // advances the tick read above and no other, so the operation is due at the tick
    // it was won for. Ticks missed while no worker ran collapse into this one.
    SqlStatement *advance =
        m_db->cached(QStringLiteral("UPDATE periodic_ticks SET next_tick_at = next_tick_at"
                                    " + ((:now - next_tick_at) / every_ms + 1) * every_ms"
                                    " WHERE endpoint_id = :endpoint AND next_tick_at = :tick"));
    // The endpoint's latest operation, whether it is paused, and whether its
    // partition's row is there: a tick then inserts its operation alone, where making
    // sure of both rows would cost two statements more.
    SqlStatement *latest = m_db->cached(QStringLiteral(
        "SELECT o.state, e.paused, EXISTS (SELECT 1 FROM rate_partitions"
        " WHERE policy_id = :policy AND partition_key = :partition)"
        " FROM endpoints e LEFT JOIN operations o ON o.id ="
        " (SELECT MAX(id) FROM operations WHERE endpoint_id = e.id) WHERE e.id = :endpoint"));
    if (!advance || !latest)
        return created;
    for (const auto &[endpointId, tickAtMs] : std::as_const(candidates)) {
        const auto endpoint = endpoints.constFind(endpointId);
        if (endpoint == endpoints.constEnd())
            continue;
        advance->bindValue(QStringLiteral(":now"), horizon);
        advance->bindValue(QStringLiteral(":endpoint"), text(endpointId));
        advance->bindValue(QStringLiteral(":tick"), tickAtMs);
        if (!m_db->exec(*advance))
            return {};
        if (advance->numRowsAffected() != 1)
            continue; // another worker took this tick
        // Missed by a period or more (the machine slept, no worker ran), and the endpoint
        // asks for none of it: the tick is moved on and nothing runs.
        if (!endpoint->catchUp && nowMs - tickAtMs >= endpoint->everyMs) {
            qCDebug(lcStore) << endpointId << "missed tick skipped (catch_up none)";
            continue;
        }
        latest->bindValue(QStringLiteral(":endpoint"), text(endpointId));
        latest->bindValue(QStringLiteral(":policy"), text(endpoint->policyId));
        latest->bindValue(QStringLiteral(":partition"), text(endpoint->partitionKey));
        if (!m_db->exec(*latest))
            return {};
        const bool known = latest->next();
        const bool paused = known && latest->value(1).toInt() != 0;
        const bool rowsThere =
            known && (endpoint->policyId.isEmpty() || latest->value(2).toInt() != 0);
        const bool unfinished = known && !latest->value(0).isNull() &&
                                !isFinal(operationStateFromString(latest->value(0).toString())
                                             .value_or(OperationState::Failed));
        latest->finish();
        if (paused)
            continue;
        if (unfinished) {
            qCDebug(lcStore) << endpointId << "tick skipped: its last operation is unfinished";
            continue;
        }
        NewOperation operation =
            newOperation(endpointId, newIdempotencyKey(), endpoint->policyId,
                         endpoint->partitionKey, endpoint->cost, endpoint->host);
        // A tick taken ahead is due at its time; ticks missed collapse into one now.
        operation.dueAtMs = tickAtMs;
        const std::optional<qint64> id = insertOperation(operation, nowMs, rowsThere);
        if (!id)
            return {};
        created.append(*id);
    }
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("tick"), transaction.error());
        return {};
    }
    return created;
}

std::optional<qint64> Store::nextTickAtMs()
{
    SqlStatement *query = m_db->cached(
        QStringLiteral("SELECT next_tick_at FROM periodic_ticks ORDER BY next_tick_at LIMIT 1"));
    if (!query || !m_db->exec(*query))
        return std::nullopt;
    std::optional<qint64> at;
    if (query->next())
        at = query->value(0).toLongLong();
    query->finish();
    m_db->clearError();
    return at;
}

// ---------------------------------------------------------------------------------------

QString Store::operationColumns() const
{
    return columns(kOperationColumns);
}

std::optional<qint64> Store::insertOperation(const NewOperation &operation, qint64 nowMs,
                                             bool rowsThere)
{
    if (!rowsThere && !ensureEndpointRow(operation.endpointId, nowMs))
        return std::nullopt;
    if (!rowsThere && !operation.policyId.isEmpty()) {
        // Claims find work through the partition's row: it must exist before the
        // operation does (the pending trigger then lowers its look_at).
        SqlStatement *partition =
            m_db->cached(QStringLiteral("INSERT INTO rate_partitions (policy_id, partition_key)"
                                        " VALUES (:policy, :partition) ON CONFLICT DO NOTHING"));
        if (!partition)
            return std::nullopt;
        partition->bindValue(QStringLiteral(":policy"), text(operation.policyId));
        partition->bindValue(QStringLiteral(":partition"), text(operation.partitionKey));
        if (!m_db->exec(*partition))
            return std::nullopt;
    }
    // Prepared once: periodic endpoints make one for every tick. A job's idempotency
    // key is its alone (a unique index): of two workers handing in the same key at
    // once, the second inserts nothing and finds the first's operation.
    const bool handedIn = !operation.requestHash.isEmpty();
    SqlStatement *query = m_db->cached(
        QStringLiteral("INSERT INTO operations (endpoint_id, state, created_at, next_attempt_at,"
                       " idempotency_key, policy_id, partition_key, cost, host, request_body,"
                       " job_values, request_hash) VALUES (:endpoint, 'scheduled', :now, :due,"
                       " :key, :policy, :partition, :cost, :host, :body, :values, :hash)") +
        (handedIn ? QStringLiteral(" ON CONFLICT (idempotency_key) WHERE request_hash <> ''"
                                   " DO NOTHING")
                  : QString()) +
        m_db->dialect().returningId());
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":host"), text(operation.host));
    query->bindValue(QStringLiteral(":body"), text(QString::fromUtf8(operation.body)));
    query->bindValue(QStringLiteral(":cost"), std::max<qint64>(0, operation.cost));
    query->bindValue(QStringLiteral(":endpoint"), text(operation.endpointId));
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":due"), std::max(nowMs, operation.dueAtMs));
    query->bindValue(QStringLiteral(":key"), text(operation.idempotencyKey));
    query->bindValue(QStringLiteral(":policy"), text(operation.policyId));
    query->bindValue(QStringLiteral(":partition"), text(operation.partitionKey));
    query->bindValue(QStringLiteral(":values"), jobValuesText(operation.jobValues));
    query->bindValue(QStringLiteral(":hash"), text(operation.requestHash));
    if (!m_db->exec(*query))
        return std::nullopt;
    QVariant id;
    if (m_db->dialect().isPostgres() || !handedIn || query->numRowsAffected() > 0)
        id = m_db->dialect().insertedId(*query);
    query->finish();
    if (handedIn && !id.isValid())
        return 0; // the key is taken
    if (!id.isValid()) {
        m_db->fail(QStringLiteral("create operation"), QStringLiteral("no id returned"));
        return std::nullopt;
    }
    return id.toLongLong();
}

std::optional<qint64> Store::createOperation(const QString &endpointId,
                                             const QString &idempotencyKey, qint64 nowMs,
                                             const QString &policyId, const QString &partitionKey,
                                             qint64 cost, const QString &host,
                                             const QByteArray &body)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("create operation"), transaction.error());
        return std::nullopt;
    }
    const std::optional<qint64> id = insertOperation(
        newOperation(endpointId, idempotencyKey, policyId, partitionKey, cost, host, body), nowMs);
    if (!id)
        return std::nullopt;
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("create operation"), transaction.error());
        return std::nullopt;
    }
    return id;
}

std::optional<qint64> Store::ensureOneShotOperation(const QString &endpointId,
                                                    const QString &idempotencyKey, qint64 nowMs,
                                                    const QString &policyId,
                                                    const QString &partitionKey, bool *created,
                                                    qint64 cost, const QString &host)
{
    if (created)
        *created = false;
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("one-shot operation"), transaction.error());
        return std::nullopt;
    }
    // The primary key decides the race between workers: on PostgreSQL the second
    // insert waits for the first transaction and then does nothing.
    SqlStatement *claim = m_db->cached(QStringLiteral(
        "INSERT INTO one_shot_runs (endpoint_id, operation_id) VALUES (:endpoint, NULL)"
        " ON CONFLICT (endpoint_id) DO NOTHING"));
    SqlStatement *link = m_db->cached(QStringLiteral(
        "UPDATE one_shot_runs SET operation_id = :id WHERE endpoint_id = :endpoint"));
    if (!claim || !link)
        return std::nullopt;
    claim->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    if (!m_db->exec(*claim))
        return std::nullopt;
    if (claim->numRowsAffected() == 1) {
        const std::optional<qint64> id = insertOperation(
            newOperation(endpointId, idempotencyKey, policyId, partitionKey, cost, host), nowMs);
        if (!id)
            return std::nullopt;
        link->bindValue(QStringLiteral(":id"), *id);
        link->bindValue(QStringLiteral(":endpoint"), text(endpointId));
        if (!m_db->exec(*link))
            return std::nullopt;
        if (!transaction.commit()) {
            m_db->fail(QStringLiteral("one-shot operation"), transaction.error());
            return std::nullopt;
        }
        if (created)
            *created = true;
        return id;
    }
    QSqlQuery existing = m_db->prepare(
        QStringLiteral("SELECT operation_id FROM one_shot_runs WHERE endpoint_id = :endpoint"));
    existing.bindValue(QStringLiteral(":endpoint"), text(endpointId));
    if (!m_db->exec(existing))
        return std::nullopt;
    if (!existing.next() || existing.value(0).isNull()) {
        m_db->fail(
            QStringLiteral("one-shot operation"),
            QStringLiteral("endpoint '%1' is marked as run but has no operation").arg(endpointId));
        return std::nullopt;
    }
    return existing.value(0).toLongLong();
}

Store::OperationLookup Store::singleOperation(const QString &where, const QVariant &value)
{
    QSqlQuery query = m_db->prepare(
        QStringLiteral("SELECT %1 FROM operations WHERE %2").arg(operationColumns(), where));
    query.bindValue(0, value);
    if (!m_db->exec(query))
        return {OperationLookup::Result::Failed, {}};
    if (!query.next())
        return {OperationLookup::Result::Missing, {}};
    return {OperationLookup::Result::Found, readOperation(query)};
}

std::optional<OperationRecord> Store::recordOf(OperationLookup lookup)
{
    switch (lookup.result) {
    case OperationLookup::Result::Found:
        return std::move(lookup.record);
    case OperationLookup::Result::Missing:
        m_db->setError(QStringLiteral("no such operation"));
        return std::nullopt;
    case OperationLookup::Result::Failed:
        break;
    }
    return std::nullopt;
}

Store::OperationLookup Store::lookUpOperation(qint64 operationId)
{
    return singleOperation(QStringLiteral("id = :id"), operationId);
}

std::optional<OperationRecord> Store::operation(qint64 operationId)
{
    return recordOf(lookUpOperation(operationId));
}

std::optional<OperationRecord> Store::latestOperation(const QString &endpointId)
{
    return recordOf(singleOperation(
        QStringLiteral("endpoint_id = :endpoint ORDER BY id DESC LIMIT 1"), text(endpointId)));
}

} // namespace cooldown
