// SPDX-License-Identifier: Apache-2.0
// The store: operator actions on every operation a selection matches, and the audit
// table that records each operator action (docs/bulk-actions.md).

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/store/Schema.h"
#include "core/store/SqlTransaction.h"

#include <QSqlQuery>
#include <QVariant>

#include <algorithm>
#include <limits>

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
    QSqlQuery query = prepare(QStringLiteral("SELECT COUNT(*) FROM operations WHERE ") + where);
    bindAll(query, values);
    if (!exec(query))
        return -1;
    return query.next() ? query.value(0).toLongLong() : 0;
}

std::optional<QList<SelectionGroup>> Store::matchingGroups(const OperationSelection &selection,
                                                           OperatorAction action, qint64 nowMs)
{
    QVariantList values{nowMs};
    const QString where = selectionCondition(selection, &values);
    QSqlQuery query = prepare(
        QStringLiteral("SELECT endpoint_id, policy_id, partition_key, COUNT(*), SUM(cost),"
                       " SUM(CASE WHEN state IN ('scheduled', 'waiting') AND next_attempt_at <= ?"
                       " THEN 1 ELSE 0 END) FROM operations WHERE %1 AND state IN %2"
                       " GROUP BY endpoint_id, policy_id, partition_key"
                       " ORDER BY endpoint_id, policy_id, partition_key")
            .arg(where, actionableStates(action)));
    bindAll(query, values);
    if (!exec(query))
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
        fail(QStringLiteral("bulk action"),
             QStringLiteral("%1 does not apply to operations").arg(toString(action)));
        return failed();
    }
    // The operations that exist now bound the action: one created while it runs is
    // not part of what the operator counted and confirmed.
    QSqlQuery top = prepare(QStringLiteral("SELECT COALESCE(MAX(id), 0) FROM operations"));
    if (!exec(top) || !top.next())
        return failed();
    const qint64 maxId = top.value(0).toLongLong();
    top.finish();

    QVariantList values;
    const QString where = selectionCondition(selection, &values);
    {
        QSqlQuery count =
            prepare(QStringLiteral("SELECT COUNT(*) FROM operations WHERE id <= ? AND ") + where);
        count.addBindValue(maxId);
        bindAll(count, values);
        if (!exec(count) || !count.next())
            return failed();
        outcome.progress.matched = count.value(0).toLongLong();
    }
    if (audit) {
        audit->asked = outcome.progress.matched;
        if (audit->atMs < 0)
            audit->atMs = nowMs;
        if (outcome.progress.matched == 0)
            return recordOperatorAction(audit) ? outcome : failed();
    }

    const int chunk = std::max(1, options.chunkSize);
    const bool force = action == OperatorAction::Force;
    qint64 cursor = 0;
    for (;;) {
        // The next chunk's id range: ids alone, read through the primary key.
        QSqlQuery ids = prepare(QStringLiteral("SELECT id FROM operations WHERE id > ? AND id <= ?"
                                               " AND %1 ORDER BY id LIMIT %2")
                                    .arg(where)
                                    .arg(chunk));
        ids.addBindValue(cursor);
        ids.addBindValue(maxId);
        bindAll(ids, values);
        if (!exec(ids))
            return failed();
        QList<qint64> chunkIds;
        while (ids.next())
            chunkIds.append(ids.value(0).toLongLong());
        const qint64 lookedAt = chunkIds.size();
        const qint64 last = lookedAt > 0 ? chunkIds.constLast() : cursor;
        ids.finish();
        if (lookedAt == 0)
            break;

        SqlTransaction transaction(m_database, SqlTransaction::Kind::Write, sqliteHandle());
        if (!transaction.isActive()) {
            fail(QStringLiteral("bulk action"), transaction.error());
            return failed();
        }
        // The selection is checked again in each chunk's statements: an operation that
        // stopped matching since the count is left as it is.
        qint64 changed = 0;
        qint64 pending = 0;
        if (action == OperatorAction::Cancel) {
            const std::optional<qint64> leaseNowUs = paceNowUs(nowMs);
            if (!leaseNowUs)
                return failed();
            const qint64 leaseNowMs = *leaseNowUs / 1000;
            // As cancel(): a running attempt cannot be recalled; it is asked to end as
            // cancelled and its worker's fence stays valid.
            QSqlQuery request = prepare(
                QStringLiteral("UPDATE operations SET cancel_requested = 1 WHERE id > ? AND id <= ?"
                               " AND state = 'running' AND lease_expires_at > ? AND ") +
                where);
            request.addBindValue(cursor);
            request.addBindValue(last);
            request.addBindValue(leaseNowMs);
            bindAll(request, values);
            if (!exec(request))
                return failed();
            pending = request.numRowsAffected();
            QSqlQuery end =
                prepare(QStringLiteral(
                            "UPDATE operations SET state = 'cancelled',"
                            " final_reason = 'cancelled_by_operator', next_attempt_at = -1,"
                            " lease_owner = '', lease_expires_at = -1, version = version + 1"
                            " WHERE id > ? AND id <= ? AND (state IN ('scheduled', 'waiting',"
                            " 'parked') OR (state = 'running' AND lease_expires_at <= ?)) AND ") +
                        where);
            end.addBindValue(cursor);
            end.addBindValue(last);
            end.addBindValue(leaseNowMs);
            bindAll(end, values);
            if (!exec(end))
                return failed();
            changed = pending + end.numRowsAffected();
        } else {
            QSqlQuery retry = prepare(
                QStringLiteral("UPDATE operations SET state = 'waiting', next_attempt_at = ?,"
                               " force_next = ?, final_reason = '', version = version + 1"
                               " WHERE id > ? AND id <= ? AND state IN %1 AND ")
                    .arg(actionableStates(action)) +
                where);
            retry.addBindValue(nowMs);
            retry.addBindValue(force ? 1 : 0);
            retry.addBindValue(cursor);
            retry.addBindValue(last);
            bindAll(retry, values);
            if (!exec(retry))
                return failed();
            changed = retry.numRowsAffected();
        }
        const AuditRecord before = audit ? *audit : AuditRecord();
        if (audit && !writeAudit(audit, changed))
            return failed();
        if (!transaction.commit()) {
            if (audit)
                *audit = before;
            fail(QStringLiteral("bulk action"), transaction.error());
            return failed();
        }
        cursor = last;
        if (options.chunkApplied)
            options.chunkApplied(chunkIds);
        outcome.progress.done += lookedAt;
        outcome.progress.changed += changed;
        outcome.progress.pending += pending;
        if (options.progress && !options.progress(outcome.progress)) {
            outcome.result = BulkOutcome::Result::Stopped;
            return outcome;
        }
        if (lookedAt < chunk)
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
    // A store held at an older schema (tests of migrations) has no audit table.
    if (m_schemaVersion < schema::auditVersion())
        return true;
    if (audit->id > 0) {
        QSqlQuery add =
            prepare(QStringLiteral("UPDATE operator_audit SET changed = changed + ? WHERE id = ?"));
        add.addBindValue(changed);
        add.addBindValue(audit->id);
        if (!exec(add))
            return false;
        audit->changed += changed;
        return true;
    }
    const bool postgres = m_backend == Backend::Postgres;
    QSqlQuery insert = prepare(
        QStringLiteral("INSERT INTO operator_audit (at, actor, worker_id, action, target, asked,"
                       " changed) VALUES (?, ?, ?, ?, ?, ?, ?)") +
        (postgres ? QStringLiteral(" RETURNING id") : QString()));
    insert.addBindValue(audit->atMs);
    insert.addBindValue(text(audit->actor));
    insert.addBindValue(text(audit->workerId));
    insert.addBindValue(toString(audit->action));
    insert.addBindValue(text(audit->target));
    insert.addBindValue(audit->asked);
    insert.addBindValue(audit->changed + changed);
    if (!exec(insert))
        return false;
    const QVariant id =
        postgres ? (insert.next() ? insert.value(0) : QVariant()) : insert.lastInsertId();
    if (!id.isValid())
        return fail(QStringLiteral("audit"), QStringLiteral("the new row's id is unknown"));
    audit->id = id.toLongLong();
    audit->changed += changed;
    return true;
}

bool Store::recordOperatorAction(AuditRecord *audit)
{
    SqlTransaction transaction(m_database, SqlTransaction::Kind::Write, sqliteHandle());
    if (!transaction.isActive())
        return fail(QStringLiteral("audit"), transaction.error());
    const AuditRecord before = *audit;
    if (!writeAudit(audit, 0))
        return false;
    if (!transaction.commit()) {
        *audit = before;
        return fail(QStringLiteral("audit"), transaction.error());
    }
    return true;
}

std::optional<QList<AuditRecord>> Store::operatorActions(qint64 fromMs, qint64 toMs, int limit,
                                                         bool newestFirst)
{
    if (m_schemaVersion < schema::auditVersion())
        return QList<AuditRecord>();
    QString sql = QStringLiteral("SELECT id, at, actor, worker_id, action, target, asked, changed"
                                 " FROM operator_audit WHERE at >= ? AND at < ? ORDER BY id");
    if (newestFirst)
        sql += QStringLiteral(" DESC");
    if (limit >= 0)
        sql += QStringLiteral(" LIMIT %1").arg(limit);
    QSqlQuery query = prepare(sql);
    query.addBindValue(std::max<qint64>(0, fromMs));
    query.addBindValue(toMs >= 0 ? toMs : std::numeric_limits<qint64>::max());
    if (!exec(query))
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
            fail(QStringLiteral("audit"),
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
