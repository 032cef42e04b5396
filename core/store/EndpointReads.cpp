// SPDX-License-Identifier: Apache-2.0
// The store's part for the reads of the dashboard's Integrations view, one row per endpoint
// (ui/IntegrationsReader). Each is one indexed query whose cost follows the open work
// or a bounded slice of one endpoint's history, never the whole history.

#include "core/store/EndpointReads.h"

#include "core/store/Database.h"
#include "core/store/StoreSql.h"

#include <QSqlQuery>
#include <QVariant>

#include <algorithm>

namespace cooldown {

using namespace storesql;

std::optional<QHash<QString, EndpointOpenWork>> EndpointReads::openWork()
{
    // operations_by_state (state, id): the open states only, as openCountsByState.
    SqlStatement *query = m_db.cached(
        QStringLiteral("SELECT endpoint_id, state, COUNT(*), MIN(next_attempt_at) FROM operations"
                       " WHERE state IN ('scheduled', 'running', 'waiting', 'parked')"
                       " GROUP BY endpoint_id, state"));
    if (!query || !m_db.exec(*query))
        return std::nullopt;
    QHash<QString, EndpointOpenWork> out;
    while (query->next()) {
        const auto state = operationStateFromString(query->value(1).toString());
        if (!state)
            continue;
        EndpointOpenWork &work = out[query->value(0).toString()];
        const qint64 count = query->value(2).toLongLong();
        const qint64 next = query->value(3).toLongLong();
        switch (*state) {
        case OperationState::Scheduled:
            work.scheduled = count;
            break;
        case OperationState::Running:
            work.running = count;
            break;
        case OperationState::Waiting:
            work.waiting = count;
            break;
        case OperationState::Parked:
            work.parked = count;
            break;
        default:
            break;
        }
        if ((*state == OperationState::Scheduled || *state == OperationState::Waiting) && next >= 0)
            work.nextAttemptAtMs =
                work.nextAttemptAtMs < 0 ? next : std::min(work.nextAttemptAtMs, next);
    }
    query->finish();
    m_db.clearError();
    return out;
}

std::optional<QHash<QString, qint64>> EndpointReads::nextTicks()
{
    SqlStatement *query =
        m_db.cached(QStringLiteral("SELECT endpoint_id, next_tick_at FROM periodic_ticks"));
    if (!query || !m_db.exec(*query))
        return std::nullopt;
    QHash<QString, qint64> out;
    while (query->next())
        out.insert(query->value(0).toString(), query->value(1).toLongLong());
    query->finish();
    m_db.clearError();
    return out;
}

std::optional<QStringList> EndpointReads::ids()
{
    SqlStatement *query = m_db.cached(QStringLiteral("SELECT id FROM endpoints ORDER BY id"));
    if (!query || !m_db.exec(*query))
        return std::nullopt;
    QStringList out;
    while (query->next())
        out.append(query->value(0).toString());
    query->finish();
    m_db.clearError();
    return out;
}

std::optional<QSet<QString>> EndpointReads::paused()
{
    // endpoints_paused, a partial index of the paused ones.
    SqlStatement *query = m_db.cached(QStringLiteral("SELECT id FROM endpoints WHERE paused = 1"));
    if (!query || !m_db.exec(*query))
        return std::nullopt;
    QSet<QString> out;
    while (query->next())
        out.insert(query->value(0).toString());
    query->finish();
    m_db.clearError();
    return out;
}

std::optional<std::optional<OperationState>>
EndpointReads::lastEndedState(const QString &endpointId)
{
    // operations_by_endpoint (endpoint_id, id), walked from the newest.
    SqlStatement *query = m_db.cached(
        QStringLiteral("SELECT state FROM operations WHERE endpoint_id = :endpoint"
                       " AND state IN ('succeeded', 'failed') ORDER BY id DESC LIMIT 1"));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    if (!m_db.exec(*query))
        return std::nullopt;
    std::optional<OperationState> state;
    if (query->next())
        state = operationStateFromString(query->value(0).toString());
    query->finish();
    m_db.clearError();
    return state;
}

std::optional<qint64> EndpointReads::lastSuccessAtMs(const QString &endpointId,
                                                     qint64 sinceStartedMs)
{
    // attempts_by_endpoint (endpoint_id, started_at), walked from the newest.
    SqlStatement *query =
        m_db.cached(QStringLiteral("SELECT finished_at FROM attempts WHERE endpoint_id = :endpoint"
                                   " AND started_at >= :since AND decision = 'success'"
                                   " ORDER BY started_at DESC LIMIT 1"));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    query->bindValue(QStringLiteral(":since"), sinceStartedMs);
    if (!m_db.exec(*query))
        return std::nullopt;
    const qint64 at = query->next() ? query->value(0).toLongLong() : -1;
    query->finish();
    m_db.clearError();
    return at;
}

std::optional<QList<qint64>> EndpointReads::exchangeDurations(const QString &endpointId,
                                                              qint64 fromMs, qint64 toMs, int limit)
{
    // attempts_by_endpoint (endpoint_id, started_at): one range, newest first, bounded.
    SqlStatement *query = m_db.cached(
        QStringLiteral("SELECT duration_ms FROM attempts WHERE endpoint_id = :endpoint"
                       " AND started_at >= :from AND started_at < :to AND duration_ms >= 0"
                       " ORDER BY started_at DESC LIMIT :limit"));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    query->bindValue(QStringLiteral(":from"), fromMs);
    query->bindValue(QStringLiteral(":to"), toMs);
    query->bindValue(QStringLiteral(":limit"), limit);
    if (!m_db.exec(*query))
        return std::nullopt;
    QList<qint64> out;
    out.reserve(limit);
    while (query->next())
        out.append(query->value(0).toLongLong());
    query->finish();
    m_db.clearError();
    return out;
}

} // namespace cooldown
