// SPDX-License-Identifier: Apache-2.0
// The store: an operator's actions on operations and partitions' holds.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/ratelimit/MeasuredPace.h"
#include "core/store/SqlStatement.h"
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

Store::OperatorResult Store::retryNow(qint64 operationId, qint64 nowMs, bool force,
                                      AuditRecord *audit)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("retry"), transaction.error());
        return OperatorResult::Failed;
    }
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "UPDATE operations SET state = 'waiting', next_attempt_at = :now, force_next = :force,"
        " final_reason = '', version = version + 1"
        " WHERE id = :id AND state IN ('scheduled', 'waiting', 'parked', 'failed')"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    query.bindValue(QStringLiteral(":force"), force ? 1 : 0);
    query.bindValue(QStringLiteral(":id"), operationId);
    if (!m_db->exec(query))
        return OperatorResult::Failed;
    OperatorResult result = OperatorResult::Done;
    QString refusal;
    if (query.numRowsAffected() != 1) {
        const OperationLookup lookup = lookUpOperation(operationId);
        if (lookup.result == OperationLookup::Result::Failed)
            return OperatorResult::Failed;
        if (lookup.result == OperationLookup::Result::Missing) {
            result = OperatorResult::NotFound;
        } else {
            result = OperatorResult::Refused;
            refusal = QStringLiteral("operation %1 is %2; only scheduled, waiting, parked or "
                                     "failed operations can be retried")
                          .arg(operationId)
                          .arg(toString(lookup.record.state));
        }
    }
    // A refused or missing operation is still an action the operator took: its row
    // says that it changed nothing.
    const AuditRecord before = audit ? *audit : AuditRecord();
    if (audit && !writeAudit(audit, result == OperatorResult::Done ? 1 : 0))
        return OperatorResult::Failed;
    if (!transaction.commit()) {
        if (audit)
            *audit = before;
        m_db->fail(QStringLiteral("retry"), transaction.error());
        return OperatorResult::Failed;
    }
    if (result == OperatorResult::Refused)
        m_db->setError(refusal);
    return result;
}

Store::OperatorResult Store::cancel(qint64 operationId, qint64 nowMs, AuditRecord *audit)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("cancel"), transaction.error());
        return OperatorResult::Failed;
    }
    const AuditRecord before = audit ? *audit : AuditRecord();
    // A refused or missing operation is still an action the operator took: its row
    // says that it changed nothing.
    const auto unchanged = [&](OperatorResult result) {
        QString refusal = m_db->lastError();
        if (audit && (!writeAudit(audit, 0) || !transaction.commit())) {
            *audit = before;
            if (m_db->lastError() == refusal)
                m_db->fail(QStringLiteral("cancel"), transaction.error());
            return OperatorResult::Failed;
        }
        m_db->setError(refusal);
        return result;
    };
    const OperationLookup lookup = lookUpOperation(operationId);
    if (lookup.result == OperationLookup::Result::Failed)
        return OperatorResult::Failed;
    if (lookup.result == OperationLookup::Result::Missing)
        return unchanged(OperatorResult::NotFound);
    const OperationRecord *record = &lookup.record;
    if (isFinal(record->state)) {
        m_db->setError(QStringLiteral("operation %1 has already ended (%2)")
                           .arg(operationId)
                           .arg(toString(record->state)));
        return unchanged(OperatorResult::Refused);
    }
    const std::optional<qint64> leaseNow = m_clock.nowUs(nowMs);
    if (!leaseNow)
        return OperatorResult::Failed;
    const bool liveLease =
        record->state == OperationState::Running && record->leaseExpiresAtMs > *leaseNow / 1000;
    // A running attempt cannot be recalled: its result is recorded when it ends, and
    // the worker's fence stays valid so that it can record it.
    QSqlQuery query = m_db->prepare(
        liveLease ? QStringLiteral("UPDATE operations SET cancel_requested = 1 WHERE id = :id AND "
                                   "version = :version")
                  : QStringLiteral("UPDATE operations SET state = 'cancelled', final_reason = "
                                   "'cancelled_by_operator',"
                                   " next_attempt_at = -1, lease_owner = '', lease_expires_at = -1,"
                                   " version = version + 1 WHERE id = :id AND version = :version"));
    query.bindValue(QStringLiteral(":id"), operationId);
    query.bindValue(QStringLiteral(":version"), record->version);
    if (!m_db->exec(query))
        return OperatorResult::Failed;
    if (query.numRowsAffected() != 1) {
        m_db->fail(QStringLiteral("cancel"),
                   QStringLiteral("operation %1 changed meanwhile").arg(operationId));
        return OperatorResult::Failed;
    }
    if (audit && !writeAudit(audit, 1))
        return OperatorResult::Failed;
    if (!transaction.commit()) {
        if (audit)
            *audit = before;
        m_db->fail(QStringLiteral("cancel"), transaction.error());
        return OperatorResult::Failed;
    }
    return liveLease ? OperatorResult::Pending : OperatorResult::Done;
}

int Store::snoozePartition(const QString &policyId, const QString &partitionKey, qint64 untilMs,
                           const QString &why)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("hold partition"), transaction.error());
        return -1;
    }
    // Every worker's claim reads the hold from the partition's row; a hold is only
    // ever extended.
    QSqlQuery hold = m_db->prepare(
        QStringLiteral("UPDATE rate_partitions SET held_until = :until, hold_reason = :why,"
                       " ready_at = %1(ready_at, :until2), next_at = %1(next_at, :until3)"
                       " WHERE policy_id = :policy AND partition_key = :partition"
                       " AND held_until < :until4")
            .arg(m_db->dialect().greatest()));
    hold.bindValue(QStringLiteral(":until"), untilMs);
    hold.bindValue(QStringLiteral(":why"), text(why));
    hold.bindValue(QStringLiteral(":until2"), untilMs);
    hold.bindValue(QStringLiteral(":until3"), untilMs);
    hold.bindValue(QStringLiteral(":policy"), text(policyId));
    hold.bindValue(QStringLiteral(":partition"), text(partitionKey));
    hold.bindValue(QStringLiteral(":until4"), untilMs);
    if (!m_db->exec(hold))
        return -1;
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "UPDATE operations SET next_attempt_at = :until, version = version + 1"
        " WHERE state IN ('scheduled', 'waiting') AND policy_id = :policy"
        " AND partition_key = :partition AND next_attempt_at < :until2 AND force_next = 0"));
    query.bindValue(QStringLiteral(":until"), untilMs);
    query.bindValue(QStringLiteral(":policy"), text(policyId));
    query.bindValue(QStringLiteral(":partition"), text(partitionKey));
    query.bindValue(QStringLiteral(":until2"), untilMs);
    if (!m_db->exec(query))
        return -1;
    const int moved = query.numRowsAffected();
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("hold partition"), transaction.error());
        return -1;
    }
    return moved;
}

int Store::liftPartitionSnooze(const QString &policyId, const QString &partitionKey, qint64 untilMs,
                               qint64 nowMs, AuditRecord *audit)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("lift hold"), transaction.error());
        return -1;
    }
    // Operations the snooze moved sit exactly at its end, as this worker knew it or as
    // the row has it (another worker may have placed or extended it); those whose own
    // retry time is later (the throttled one among them) keep it.
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "UPDATE operations SET next_attempt_at = :now, version = version + 1"
        " WHERE state IN ('scheduled', 'waiting') AND policy_id = :policy"
        " AND partition_key = :partition AND (next_attempt_at = :until OR next_attempt_at ="
        " (SELECT held_until FROM rate_partitions WHERE policy_id = :policy2"
        " AND partition_key = :partition2 AND held_until > 0))"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    query.bindValue(QStringLiteral(":policy"), text(policyId));
    query.bindValue(QStringLiteral(":partition"), text(partitionKey));
    query.bindValue(QStringLiteral(":until"), untilMs);
    query.bindValue(QStringLiteral(":policy2"), text(policyId));
    query.bindValue(QStringLiteral(":partition2"), text(partitionKey));
    if (!m_db->exec(query))
        return -1;
    const int moved = query.numRowsAffected();
    QSqlQuery hold = m_db->prepare(QStringLiteral(
        "UPDATE rate_partitions SET held_until = 0, hold_reason = '', ready_at = 0, next_at = 0"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    hold.bindValue(QStringLiteral(":policy"), text(policyId));
    hold.bindValue(QStringLiteral(":partition"), text(partitionKey));
    if (!m_db->exec(hold))
        return -1;
    // One partition of the action: the row counts the partitions it was asked for.
    const AuditRecord before = audit ? *audit : AuditRecord();
    if (audit && !writeAudit(audit, 1))
        return -1;
    if (!transaction.commit()) {
        if (audit)
            *audit = before;
        m_db->fail(QStringLiteral("lift hold"), transaction.error());
        return -1;
    }
    return moved;
}

std::optional<QStringList> Store::holdEndpoints(const QStringList &endpointIds, qint64 untilMs,
                                                const QString &reason, qint64 nowMs,
                                                AuditRecord *audit)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("hold endpoints"), transaction.error());
        return std::nullopt;
    }
    // A row for an endpoint no worker has run yet, held at once; an existing one only
    // when it runs, or is held until earlier: an operator's pause outlasts any hold.
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "INSERT INTO endpoints (id, name, created_at, updated_at, paused, held_until, held_reason)"
        " VALUES (:id, '', :now, :now2, 2, :until, :reason)"
        " ON CONFLICT (id) DO UPDATE SET paused = 2, held_until = excluded.held_until,"
        " held_reason = excluded.held_reason WHERE endpoints.paused = 0"
        " OR (endpoints.paused = 2 AND endpoints.held_until < excluded.held_until)"));
    QStringList held;
    for (const QString &endpointId : endpointIds) {
        query.bindValue(QStringLiteral(":id"), text(endpointId));
        query.bindValue(QStringLiteral(":now"), nowMs);
        query.bindValue(QStringLiteral(":now2"), nowMs);
        query.bindValue(QStringLiteral(":until"), untilMs);
        query.bindValue(QStringLiteral(":reason"), text(reason));
        if (!m_db->exec(query))
            return std::nullopt;
        if (query.numRowsAffected() > 0)
            held.append(endpointId);
    }
    const AuditRecord before = audit ? *audit : AuditRecord();
    if (audit && !writeAudit(audit, held.size()))
        return std::nullopt;
    if (!transaction.commit()) {
        if (audit)
            *audit = before;
        m_db->fail(QStringLiteral("hold endpoints"), transaction.error());
        return std::nullopt;
    }
    m_db->clearError();
    return held;
}

std::optional<QStringList> Store::liftEndedHolds(qint64 nowMs, const QStringList &endpointIds,
                                                 AuditRecord *audit)
{
    // Read first, outside a write transaction: workers look every poll, and a hold
    // rarely ends.
    std::optional<QList<EndpointHold>> holds = endpointHolds();
    if (!holds)
        return std::nullopt;
    QStringList ended;
    for (const EndpointHold &hold : std::as_const(*holds)) {
        if (hold.untilMs <= nowMs || endpointIds.contains(hold.endpointId))
            ended.append(hold.endpointId);
    }
    if (ended.isEmpty() && !audit)
        return ended;
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("lift holds"), transaction.error());
        return std::nullopt;
    }
    // The condition again: another worker may have lifted it, or held it longer, since.
    QSqlQuery lift = m_db->prepare(
        QStringLiteral("UPDATE endpoints SET paused = 0, held_until = 0, held_reason = ''"
                       " WHERE id = :id AND paused = 2 AND (held_until <= :now OR :operator = 1)"));
    QStringList lifted;
    for (const QString &endpointId : std::as_const(ended)) {
        lift.bindValue(QStringLiteral(":id"), text(endpointId));
        lift.bindValue(QStringLiteral(":now"), nowMs);
        lift.bindValue(QStringLiteral(":operator"), endpointIds.contains(endpointId) ? 1 : 0);
        if (!m_db->exec(lift))
            return std::nullopt;
        if (lift.numRowsAffected() > 0)
            lifted.append(endpointId);
    }
    if (!lifted.isEmpty()) {
        // Claims took the held operations for absent; every partition looks again.
        QSqlQuery again = m_db->prepare(QStringLiteral(
            "UPDATE rate_partitions SET look_at = 0, next_at = ready_at WHERE look_at > 0"));
        if (!m_db->exec(again))
            return std::nullopt;
    }
    const AuditRecord before = audit ? *audit : AuditRecord();
    if (audit && !writeAudit(audit, lifted.size()))
        return std::nullopt;
    if (!transaction.commit()) {
        if (audit)
            *audit = before;
        m_db->fail(QStringLiteral("lift holds"), transaction.error());
        return std::nullopt;
    }
    m_db->clearError();
    return lifted;
}

std::optional<QList<EndpointHold>> Store::endpointHolds()
{
    // endpoints_paused, a partial index of the paused and held ones.
    SqlStatement *query =
        m_db->cached(QStringLiteral("SELECT id, held_until, held_reason FROM endpoints "
                                    "WHERE paused = 2 ORDER BY held_until, id"));
    if (!query || !m_db->exec(*query))
        return std::nullopt;
    QList<EndpointHold> out;
    while (query->next())
        out.append(
            {query->value(0).toString(), query->value(1).toLongLong(), query->value(2).toString()});
    query->finish();
    m_db->clearError();
    return out;
}

} // namespace cooldown
