// SPDX-License-Identifier: Apache-2.0
// Incidents: failures that share a cause, for the whole fleet (docs/incidents.md), and
// the fleet's turns of each alert target.
#include "core/store/Incidents.h"

#include "core/store/Database.h"
#include "core/store/StoreSql.h"

#include <QSet>
#include <QSqlQuery>

#include <algorithm>
#include <tuple>

namespace cooldown {

using storesql::text;

namespace {

QStringList sortedUnique(QStringList list)
{
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    return list;
}

// Rows of id, cause, opened_at, closed_at, opened_by, closed_by, endpoint_id, alerted_at,
// by incident: one record each, its endpoints sorted.
QList<IncidentRecord> readIncidentRows(QSqlQuery &query)
{
    QList<IncidentRecord> out;
    while (query.next()) {
        const qint64 id = query.value(0).toLongLong();
        if (out.isEmpty() || out.last().id != id) {
            IncidentRecord r;
            r.id = id;
            r.cause = query.value(1).toString();
            r.openedAtMs = query.value(2).toLongLong();
            r.closedAtMs = query.value(3).isNull() ? -1 : query.value(3).toLongLong();
            r.openedBy = query.value(4).toString();
            r.closedBy = query.value(5).toString();
            r.alertedAtMs = query.value(7).isNull() ? -1 : query.value(7).toLongLong();
            out.append(r);
        }
        if (!query.value(6).isNull())
            out.last().endpointIds.append(query.value(6).toString());
    }
    for (IncidentRecord &r : out)
        r.endpointIds = sortedUnique(r.endpointIds);
    return out;
}

} // namespace

std::optional<QSet<QString>> Incidents::closeCleared(const QStringList &clearedCauses, qint64 nowMs,
                                                     const QString &workerId)
{
    QSet<QString> cleared;
    QStringList clearing = clearedCauses;
    clearing.sort();
    for (const QString &cause : std::as_const(clearing)) {
        QSqlQuery close =
            m_db.prepare(QStringLiteral("UPDATE incidents SET closed_at = :now, closed_by = :worker"
                                        " WHERE cause = :cause AND closed_at IS NULL"));
        close.bindValue(QStringLiteral(":now"), nowMs);
        close.bindValue(QStringLiteral(":worker"), text(workerId));
        close.bindValue(QStringLiteral(":cause"), text(cause));
        if (!m_db.exec(close))
            return std::nullopt;
        if (close.numRowsAffected() == 1)
            cleared.insert(cause);
        QSqlQuery forget =
            m_db.prepare(QStringLiteral("DELETE FROM incident_signals WHERE cause = :cause"));
        forget.bindValue(QStringLiteral(":cause"), text(cause));
        if (!m_db.exec(forget))
            return std::nullopt;
    }

    return cleared;
}

std::optional<QSet<QString>> Incidents::noteFailures(const QList<IncidentSignal> &failures,
                                                     const IncidentRule &rule, qint64 nowMs,
                                                     const QString &workerId)
{
    // In one order for every worker: on PostgreSQL, two transactions that lock the same
    // rows in different orders would deadlock.
    QList<IncidentSignal> sorted = failures;
    std::sort(sorted.begin(), sorted.end(), [](const IncidentSignal &a, const IncidentSignal &b) {
        return std::tie(a.cause, a.endpointId) < std::tie(b.cause, b.endpointId);
    });
    QStringList failedCauses;
    for (const IncidentSignal &f : std::as_const(sorted)) {
        QSqlQuery note = m_db.prepare(QStringLiteral(
            "INSERT INTO incident_signals (cause, endpoint_id, failed_at) VALUES (:cause, :e, :at)"
            " ON CONFLICT (cause, endpoint_id) DO UPDATE SET failed_at = excluded.failed_at"
            " WHERE excluded.failed_at > incident_signals.failed_at"));
        note.bindValue(QStringLiteral(":cause"), text(f.cause));
        note.bindValue(QStringLiteral(":e"), text(f.endpointId));
        note.bindValue(QStringLiteral(":at"), f.atMs);
        if (!m_db.exec(note))
            return std::nullopt;
        if (failedCauses.isEmpty() || failedCauses.last() != f.cause)
            failedCauses.append(f.cause);
    }
    // Failures older than the window open nothing any more.
    QSqlQuery expire =
        m_db.prepare(QStringLiteral("DELETE FROM incident_signals WHERE failed_at < :since"));
    expire.bindValue(QStringLiteral(":since"), nowMs - rule.windowMs);
    if (!m_db.exec(expire))
        return std::nullopt;

    QSet<QString> opened;
    for (const QString &cause : std::as_const(failedCauses)) {
        QSqlQuery count = m_db.prepare(QStringLiteral(
            "SELECT COUNT(*) FROM incident_signals WHERE cause = :cause AND failed_at >= :since"));
        count.bindValue(QStringLiteral(":cause"), text(cause));
        count.bindValue(QStringLiteral(":since"), nowMs - rule.windowMs);
        if (!m_db.exec(count) || !count.next())
            return std::nullopt;
        const qint64 endpoints = count.value(0).toLongLong();
        count.finish();
        if (endpoints >= rule.minIntegrations) {
            // The unique index on the open incident of a cause decides between workers
            // that count enough failures at once: one inserts, the others find it.
            QSqlQuery open = m_db.prepare(
                QStringLiteral("INSERT INTO incidents (cause, opened_at, opened_by)"
                               " VALUES (:cause, :now, :worker) ON CONFLICT DO NOTHING"));
            open.bindValue(QStringLiteral(":cause"), text(cause));
            open.bindValue(QStringLiteral(":now"), nowMs);
            open.bindValue(QStringLiteral(":worker"), text(workerId));
            if (!m_db.exec(open))
                return std::nullopt;
            if (open.numRowsAffected() == 1)
                opened.insert(cause);
        }
        // Every endpoint that failed for the cause within the window is blocked by its
        // open incident, whoever opened it.
        QSqlQuery join = m_db.prepare(
            QStringLiteral("INSERT INTO incident_endpoints (incident_id, endpoint_id)"
                           " SELECT i.id, s.endpoint_id FROM incidents i JOIN incident_signals s"
                           " ON s.cause = i.cause WHERE i.cause = :cause AND i.closed_at IS NULL"
                           " AND s.failed_at >= :since ON CONFLICT DO NOTHING"));
        join.bindValue(QStringLiteral(":cause"), text(cause));
        join.bindValue(QStringLiteral(":since"), nowMs - rule.windowMs);
        if (!m_db.exec(join))
            return std::nullopt;
    }

    return opened;
}

std::optional<QList<IncidentRecord>> Incidents::closedBy(const QString &workerId, qint64 nowMs)
{
    QSqlQuery closed = m_db.prepare(QStringLiteral(
        "SELECT i.id, i.cause, i.opened_at, i.closed_at, i.opened_by, i.closed_by,"
        " e.endpoint_id, i.alerted_at FROM incidents i LEFT JOIN incident_endpoints e"
        " ON e.incident_id = i.id WHERE i.closed_at = :now AND i.closed_by = :worker"
        " ORDER BY i.id, e.endpoint_id"));
    closed.bindValue(QStringLiteral(":now"), nowMs);
    closed.bindValue(QStringLiteral(":worker"), text(workerId));
    if (!m_db.exec(closed))
        return std::nullopt;
    return readIncidentRows(closed);
}

std::optional<IncidentChanges> Incidents::note(const QList<IncidentSignal> &failures,
                                               const QStringList &clearedCauses,
                                               const IncidentRule &rule, qint64 nowMs,
                                               const QString &workerId)
{
    IncidentChanges changes;
    SqlTransaction transaction = m_db.begin();
    if (!transaction.isActive()) {
        m_db.fail(QStringLiteral("incidents"), transaction.error());
        return std::nullopt;
    }
    // A cause that cleared in this batch and failed again after is open to a new
    // incident: clearing goes first, as the exchanges ended in that order or near it.
    const std::optional<QSet<QString>> cleared = closeCleared(clearedCauses, nowMs, workerId);
    if (!cleared)
        return std::nullopt;
    const std::optional<QSet<QString>> opened = noteFailures(failures, rule, nowMs, workerId);
    if (!opened)
        return std::nullopt;
    const auto open = list(true);
    if (!open)
        return std::nullopt;
    changes.open = *open;
    const auto signalled = signalCauses(nowMs - rule.windowMs);
    if (!signalled)
        return std::nullopt;
    changes.signalled = *signalled;
    for (const IncidentRecord &incident : std::as_const(changes.open)) {
        if (opened->contains(incident.cause))
            changes.opened.append(incident);
    }
    if (!cleared->isEmpty()) {
        const auto closed = closedBy(workerId, nowMs);
        if (!closed)
            return std::nullopt;
        for (const IncidentRecord &incident : *closed) {
            if (cleared->contains(incident.cause))
                changes.closed.append(incident);
        }
    }
    if (!transaction.commit()) {
        m_db.fail(QStringLiteral("incidents"), transaction.error());
        return std::nullopt;
    }
    return changes;
}

std::optional<QList<IncidentRecord>> Incidents::list(bool openOnly, qint64 sinceMs, int limit)
{
    QSqlQuery query = m_db.prepare(
        QStringLiteral("SELECT i.id, i.cause, i.opened_at, i.closed_at, i.opened_by, i.closed_by,"
                       " e.endpoint_id, i.alerted_at FROM (SELECT * FROM incidents"
                       " WHERE closed_at IS NULL") +
        (openOnly ? QString() : QStringLiteral(" OR opened_at >= :since")) +
        QStringLiteral(" ORDER BY id DESC LIMIT :limit) i LEFT JOIN incident_endpoints e"
                       " ON e.incident_id = i.id ORDER BY i.id DESC, e.endpoint_id"));
    if (!openOnly)
        query.bindValue(QStringLiteral(":since"), sinceMs);
    query.bindValue(QStringLiteral(":limit"), limit);
    query.setForwardOnly(true);
    if (!m_db.exec(query))
        return std::nullopt;
    return readIncidentRows(query);
}

std::optional<QStringList> Incidents::signalCauses(qint64 sinceMs)
{
    QStringList out;
    QSqlQuery query = m_db.prepare(QStringLiteral(
        "SELECT DISTINCT cause FROM incident_signals WHERE failed_at >= :since ORDER BY cause"));
    query.bindValue(QStringLiteral(":since"), sinceMs);
    query.setForwardOnly(true);
    if (!m_db.exec(query))
        return std::nullopt;
    while (query.next())
        out.append(query.value(0).toString());
    return out;
}

std::optional<bool> Incidents::markAlerted(qint64 incidentId, qint64 nowMs)
{
    QSqlQuery mark =
        m_db.prepare(QStringLiteral("UPDATE incidents SET alerted_at = :now WHERE id = :id"
                                    " AND alerted_at IS NULL AND closed_at IS NULL"));
    mark.bindValue(QStringLiteral(":now"), nowMs);
    mark.bindValue(QStringLiteral(":id"), incidentId);
    if (!m_db.exec(mark))
        return std::nullopt;
    return mark.numRowsAffected() == 1;
}

std::optional<bool> Incidents::takeAlertTurn(const QString &alertId, const QString &kind,
                                             qint64 nowMs, qint64 minIntervalMs)
{
    // One statement: the row is made, or moved on when its interval has passed; a row
    // that stays as it was means another worker's message of the kind went too lately.
    QSqlQuery turn = m_db.prepare(QStringLiteral(
        "INSERT INTO alert_turns (alert_id, kind, sent_at) VALUES (:alert, :kind, :now)"
        " ON CONFLICT (alert_id, kind) DO UPDATE SET sent_at = excluded.sent_at"
        " WHERE alert_turns.sent_at <= :due"));
    turn.bindValue(QStringLiteral(":alert"), text(alertId));
    turn.bindValue(QStringLiteral(":kind"), text(kind));
    turn.bindValue(QStringLiteral(":now"), nowMs);
    turn.bindValue(QStringLiteral(":due"), nowMs - minIntervalMs);
    if (!m_db.exec(turn))
        return std::nullopt;
    return turn.numRowsAffected() == 1;
}

} // namespace cooldown
