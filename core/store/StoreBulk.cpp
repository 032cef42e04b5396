// SPDX-License-Identifier: Apache-2.0
// The store: operator actions on every operation a selection matches, and the audit
// table that records each operator action (docs/bulk-actions.md).

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/store/SqlTransaction.h"

#include <QSqlQuery>
#include <QVariant>

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>

namespace cooldown {

using namespace storesql;

namespace {

// "?, ?, ?" for n values.
QString marks(qsizetype n)
{
    QStringList list;
    for (qsizetype i = 0; i < n; ++i)
        list.append(QStringLiteral("?"));
    return list.join(QStringLiteral(", "));
}

void bindAll(QSqlQuery &query, const QVariantList &values)
{
    for (const QVariant &value : values)
        query.addBindValue(value);
}

// The states an action can change, as retryNow and cancel allow them.
QString actionableStates(OperatorAction action)
{
    return action == OperatorAction::Cancel
               ? QStringLiteral("('scheduled', 'waiting', 'parked', 'running')")
               : QStringLiteral("('scheduled', 'waiting', 'parked', 'failed')");
}

bool isBulkAction(OperatorAction action)
{
    return action == OperatorAction::Retry || action == OperatorAction::Force ||
           action == OperatorAction::Cancel;
}

// Binds values by position, in order, and runs the query on the store's connection,
// which notes a failure (and a fault) in lastError() as for every statement.
bool run(Database &db, QSqlQuery &query, const QVariantList &values)
{
    bindAll(query, values);
    return db.exec(query);
}

// The selection as an SQL condition with the values it binds (selectionCondition).
struct SelectionSql
{
    QString where;
    QVariantList values;
};

// One chunk: the ids above after, up to and with last.
struct ChunkRange
{
    qint64 after = 0;
    qint64 last = 0;
};

struct ChunkChanges
{
    qint64 changed = 0;
    qint64 pending = 0; // of the changed: cancels that wait for a running attempt
};

// The operations that exist now bound the action: one created while it runs is not
// part of what the operator counted and confirmed.
std::optional<qint64> highestOperationId(Database &db)
{
    QSqlQuery top = db.prepare(QStringLiteral("SELECT COALESCE(MAX(id), 0) FROM operations"));
    if (!run(db, top, {}) || !top.next())
        return std::nullopt;
    const qint64 maxId = top.value(0).toLongLong();
    top.finish();
    return maxId;
}

std::optional<qint64> countMatchingUpTo(Database &db, const SelectionSql &match, qint64 maxId)
{
    QSqlQuery count = db.prepare(
        QStringLiteral("SELECT COUNT(*) FROM operations WHERE id <= ? AND ") + match.where);
    if (!run(db, count, QVariantList{maxId} + match.values) || !count.next())
        return std::nullopt;
    return count.value(0).toLongLong();
}

// The next chunk's id range: ids alone, read through the primary key.
std::optional<QList<qint64>> nextChunkIds(Database &db, const SelectionSql &match, qint64 after,
                                          qint64 maxId, int chunk)
{
    QSqlQuery ids = db.prepare(QStringLiteral("SELECT id FROM operations WHERE id > ? AND id <= ?"
                                              " AND %1 ORDER BY id LIMIT %2")
                                   .arg(match.where)
                                   .arg(chunk));
    if (!run(db, ids, QVariantList{after, maxId} + match.values))
        return std::nullopt;
    QList<qint64> chunkIds;
    while (ids.next())
        chunkIds.append(ids.value(0).toLongLong());
    ids.finish();
    return chunkIds;
}

// As cancel(): a running attempt cannot be recalled; it is asked to end as cancelled
// and its worker's fence stays valid. One whose lease ran out ends at once.
std::optional<ChunkChanges> cancelChunk(Database &db, const SelectionSql &match,
                                        const ChunkRange &range, qint64 leaseNowMs)
{
    QSqlQuery request = db.prepare(
        QStringLiteral("UPDATE operations SET cancel_requested = 1 WHERE id > ? AND id <= ?"
                       " AND state = 'running' AND lease_expires_at > ? AND ") +
        match.where);
    if (!run(db, request, QVariantList{range.after, range.last, leaseNowMs} + match.values))
        return std::nullopt;
    ChunkChanges changes;
    changes.pending = request.numRowsAffected();
    QSqlQuery end = db.prepare(
        QStringLiteral("UPDATE operations SET state = 'cancelled',"
                       " final_reason = 'cancelled_by_operator', next_attempt_at = -1,"
                       " lease_owner = '', lease_expires_at = -1, version = version + 1"
                       " WHERE id > ? AND id <= ? AND (state IN ('scheduled', 'waiting',"
                       " 'parked') OR (state = 'running' AND lease_expires_at <= ?)) AND ") +
        match.where);
    if (!run(db, end, QVariantList{range.after, range.last, leaseNowMs} + match.values))
        return std::nullopt;
    changes.changed = changes.pending + end.numRowsAffected();
    return changes;
}

// Retry and force make the operation due now; force also lets it bypass its
// partition's bucket.
std::optional<ChunkChanges> retryChunk(Database &db, const SelectionSql &match,
                                       const ChunkRange &range, OperatorAction action, qint64 nowMs)
{
    const bool force = action == OperatorAction::Force;
    QSqlQuery retry =
        db.prepare(QStringLiteral("UPDATE operations SET state = 'waiting', next_attempt_at = ?,"
                                  " force_next = ?, final_reason = '', version = version + 1"
                                  " WHERE id > ? AND id <= ? AND state IN %1 AND ")
                       .arg(actionableStates(action)) +
                   match.where);
    if (!run(db, retry, QVariantList{nowMs, force ? 1 : 0, range.after, range.last} + match.values))
        return std::nullopt;
    ChunkChanges changes;
    changes.changed = retry.numRowsAffected();
    return changes;
}

// A committed chunk told to the caller; false when its progress callback asks to stop.
bool reportChunk(BulkOutcome &outcome, const BulkOptions &options, const QList<qint64> &chunkIds,
                 const ChunkChanges &changes)
{
    if (options.chunkApplied)
        options.chunkApplied(chunkIds);
    outcome.progress.done += chunkIds.size();
    outcome.progress.changed += changes.changed;
    outcome.progress.pending += changes.pending;
    return !options.progress || options.progress(outcome.progress);
}

} // namespace

QString Store::selectionCondition(const OperationSelection &selection, QVariantList *values) const
{
    QStringList terms;
    const auto textList = [&](const char *column, const QStringList &list) {
        if (list.isEmpty())
            return;
        terms.append(
            QStringLiteral("operations.%1 IN (%2)").arg(QLatin1String(column), marks(list.size())));
        for (const QString &value : list)
            values->append(text(value));
    };
    textList("endpoint_id", selection.endpointIds);
    QStringList states;
    for (const OperationState state : selection.states)
        states.append(stateText(state));
    textList("state", states);
    textList("partition_key", selection.partitionKeys);
    if (!selection.statuses.isEmpty()) {
        QStringList any;
        for (const StatusMatch &status : selection.statuses) {
            if (status.isError()) {
                any.append(
                    QStringLiteral("(operations.attempt > 0 AND operations.last_status = 0)"));
            } else {
                any.append(QStringLiteral("operations.last_status BETWEEN ? AND ?"));
                values->append(status.min);
                values->append(status.max);
            }
        }
        terms.append(QLatin1Char('(') + any.join(QStringLiteral(" OR ")) + QLatin1Char(')'));
    }
    if (!selection.reasons.isEmpty()) {
        // A parked or failed operation's reason is its final reason; a waiting one's is
        // what its last attempt said (found through attempts_by_operation).
        terms.append(QStringLiteral("(operations.final_reason IN (%1) OR (SELECT a.reason FROM "
                                    "attempts a WHERE a.operation_id = operations.id ORDER BY "
                                    "a.attempt DESC, a.id DESC LIMIT 1) IN (%1))")
                         .arg(marks(selection.reasons.size())));
        for (const QString &reason : selection.reasons)
            values->append(text(reason));
        for (const QString &reason : selection.reasons)
            values->append(text(reason));
    }
    if (selection.sinceMs >= 0) {
        terms.append(QStringLiteral("operations.created_at >= ?"));
        values->append(selection.sinceMs);
    }
    if (selection.untilMs >= 0) {
        terms.append(QStringLiteral("operations.created_at < ?"));
        values->append(selection.untilMs);
    }
    return terms.isEmpty() ? QStringLiteral("1 = 1") : terms.join(QStringLiteral(" AND "));
}

qint64 Store::countMatching(const OperationSelection &selection)
{
    QVariantList values;
    const QString where = selectionCondition(selection, &values);
    QSqlQuery query =
        m_db->prepare(QStringLiteral("SELECT COUNT(*) FROM operations WHERE ") + where);
    bindAll(query, values);
    if (!m_db->exec(query))
        return -1;
    return query.next() ? query.value(0).toLongLong() : 0;
}

std::optional<QList<SelectionGroup>> Store::matchingGroups(const OperationSelection &selection,
                                                           OperatorAction action, qint64 nowMs)
{
    QVariantList values{nowMs};
    const QString where = selectionCondition(selection, &values);
    QSqlQuery query = m_db->prepare(
        QStringLiteral("SELECT endpoint_id, policy_id, partition_key, COUNT(*), SUM(cost),"
                       " SUM(CASE WHEN state IN ('scheduled', 'waiting') AND next_attempt_at <= ?"
                       " THEN 1 ELSE 0 END) FROM operations WHERE %1 AND state IN %2"
                       " GROUP BY endpoint_id, policy_id, partition_key"
                       " ORDER BY endpoint_id, policy_id, partition_key")
            .arg(where, actionableStates(action)));
    bindAll(query, values);
    if (!m_db->exec(query))
        return std::nullopt;
    QList<SelectionGroup> groups;
    while (query.next()) {
        SelectionGroup g;
        g.endpointId = query.value(0).toString();
        g.policyId = query.value(1).toString();
        g.partitionKey = query.value(2).toString();
        g.operations = query.value(3).toLongLong();
        g.cost = query.value(4).toLongLong();
        g.dueNow = query.value(5).toLongLong();
        groups.append(g);
    }
    return groups;
}

BulkOutcome Store::applyToMatching(const OperationSelection &selection, OperatorAction action,
                                   qint64 nowMs, AuditRecord *audit, const BulkOptions &options)
{
    BulkOutcome outcome;
    const auto failed = [&outcome] {
        outcome.result = BulkOutcome::Result::Failed;
        return outcome;
    };
    if (!isBulkAction(action)) {
        m_db->fail(QStringLiteral("bulk action"),
                   QStringLiteral("%1 does not apply to operations").arg(toString(action)));
        return failed();
    }
    const std::optional<qint64> maxId = highestOperationId(*m_db);
    if (!maxId)
        return failed();
    SelectionSql match;
    match.where = selectionCondition(selection, &match.values);
    const std::optional<qint64> matched = countMatchingUpTo(*m_db, match, *maxId);
    if (!matched)
        return failed();
    outcome.progress.matched = *matched;
    if (audit) {
        audit->asked = outcome.progress.matched;
        if (audit->atMs < 0)
            audit->atMs = nowMs;
        if (outcome.progress.matched == 0)
            return recordOperatorAction(audit) ? outcome : failed();
    }

    const int chunk = std::max(1, options.chunkSize);
    qint64 cursor = 0;
    for (;;) {
        const std::optional<QList<qint64>> chunkIds =
            nextChunkIds(*m_db, match, cursor, *maxId, chunk);
        if (!chunkIds)
            return failed();
        if (chunkIds->isEmpty())
            break;
        const ChunkRange range{cursor, chunkIds->constLast()};

        SqlTransaction transaction = m_db->begin();
        if (!transaction.isActive()) {
            m_db->fail(QStringLiteral("bulk action"), transaction.error());
            return failed();
        }
        // The selection is checked again in each chunk's statements: an operation that
        // stopped matching since the count is left as it is.
        std::optional<ChunkChanges> changes;
        if (action == OperatorAction::Cancel) {
            const std::optional<qint64> leaseNowUs = m_clock.nowUs(nowMs);
            if (!leaseNowUs)
                return failed();
            changes = cancelChunk(*m_db, match, range, *leaseNowUs / 1000);
        } else {
            changes = retryChunk(*m_db, match, range, action, nowMs);
        }
        if (!changes)
            return failed();
        const AuditRecord before = audit ? *audit : AuditRecord();
        if (audit && !writeAudit(audit, changes->changed))
            return failed();
        if (!transaction.commit()) {
            if (audit)
                *audit = before;
            m_db->fail(QStringLiteral("bulk action"), transaction.error());
            return failed();
        }
        cursor = range.last;
        if (!reportChunk(outcome, options, *chunkIds, *changes)) {
            outcome.result = BulkOutcome::Result::Stopped;
            return outcome;
        }
        if (chunkIds->size() < chunk)
            break;
    }
    // Every chunk changed nothing and matched nothing any longer: the action is still
    // recorded.
    if (audit && audit->id == 0 && !recordOperatorAction(audit))
        return failed();
    return outcome;
}

bool Store::writeAudit(AuditRecord *audit, qint64 changed)
{
    if (audit->id > 0) {
        QSqlQuery add = m_db->prepare(
            QStringLiteral("UPDATE operator_audit SET changed = changed + ? WHERE id = ?"));
        add.addBindValue(changed);
        add.addBindValue(audit->id);
        if (!m_db->exec(add))
            return false;
        audit->changed += changed;
        return true;
    }
    QSqlQuery insert = m_db->prepare(
        QStringLiteral("INSERT INTO operator_audit (at, actor, worker_id, action, target, asked,"
                       " changed) VALUES (?, ?, ?, ?, ?, ?, ?)") +
        m_db->dialect().returningId());
    insert.addBindValue(audit->atMs);
    insert.addBindValue(text(audit->actor));
    insert.addBindValue(text(audit->workerId));
    insert.addBindValue(toString(audit->action));
    insert.addBindValue(text(audit->target));
    insert.addBindValue(audit->asked);
    insert.addBindValue(audit->changed + changed);
    if (!m_db->exec(insert))
        return false;
    const QVariant id = m_db->dialect().insertedId(insert);
    if (!id.isValid())
        return m_db->fail(QStringLiteral("audit"), QStringLiteral("the new row's id is unknown"));
    audit->id = id.toLongLong();
    audit->changed += changed;
    return true;
}

bool Store::recordOperatorAction(AuditRecord *audit)
{
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive())
        return m_db->fail(QStringLiteral("audit"), transaction.error());
    const AuditRecord before = *audit;
    if (!writeAudit(audit, 0))
        return false;
    if (!transaction.commit()) {
        *audit = before;
        return m_db->fail(QStringLiteral("audit"), transaction.error());
    }
    return true;
}

std::optional<QList<AuditRecord>> Store::operatorActions(qint64 fromMs, qint64 toMs, int limit,
                                                         bool newestFirst)
{
    QString sql = QStringLiteral("SELECT id, at, actor, worker_id, action, target, asked, changed"
                                 " FROM operator_audit WHERE at >= ? AND at < ? ORDER BY id");
    if (newestFirst)
        sql += QStringLiteral(" DESC");
    if (limit >= 0)
        sql += QStringLiteral(" LIMIT %1").arg(limit);
    QSqlQuery query = m_db->prepare(sql);
    query.addBindValue(std::max<qint64>(0, fromMs));
    query.addBindValue(toMs >= 0 ? toMs : std::numeric_limits<qint64>::max());
    if (!m_db->exec(query))
        return std::nullopt;
    QList<AuditRecord> rows;
    while (query.next()) {
        AuditRecord r;
        r.id = query.value(0).toLongLong();
        r.atMs = query.value(1).toLongLong();
        r.actor = query.value(2).toString();
        r.workerId = query.value(3).toString();
        const QString action = query.value(4).toString();
        const auto known = operatorActionFromString(action);
        if (!known) {
            m_db->fail(QStringLiteral("audit"),
                       QStringLiteral("row %1 has an unknown action '%2'").arg(r.id).arg(action));
            return std::nullopt;
        }
        r.action = *known;
        r.target = query.value(5).toString();
        r.asked = query.value(6).toLongLong();
        r.changed = query.value(7).toLongLong();
        rows.append(r);
    }
    return rows;
}

} // namespace cooldown
