// SPDX-License-Identifier: Apache-2.0
// Where each worker's credentials stand (docs/credentials.md), and which workers find no
// network (docs/offline.md).
#include "core/store/WorkerStates.h"

#include "core/store/Database.h"
#include "core/store/StoreSql.h"

#include <QSqlQuery>

namespace cooldown {

using storesql::text;

bool WorkerStates::saveCredential(const CredentialStateRow &row)
{
    QSqlQuery query = m_db.prepare(QStringLiteral(
        "INSERT INTO credential_states (worker_id, credential_id, phase, valid_until,"
        " failing_since, next_try_at, last_error, token_requests, updated_at)"
        " VALUES (:worker, :credential, :phase, :valid, :failing, :next, :error, :requests, :at)"
        " ON CONFLICT (worker_id, credential_id) DO UPDATE SET phase = excluded.phase,"
        " valid_until = excluded.valid_until, failing_since = excluded.failing_since,"
        " next_try_at = excluded.next_try_at, last_error = excluded.last_error,"
        " token_requests = excluded.token_requests, updated_at = excluded.updated_at"));
    query.bindValue(QStringLiteral(":worker"), text(row.workerId));
    query.bindValue(QStringLiteral(":credential"), text(row.credentialId));
    query.bindValue(QStringLiteral(":phase"), text(row.phase));
    query.bindValue(QStringLiteral(":valid"), row.validUntilMs);
    query.bindValue(QStringLiteral(":failing"), row.failingSinceMs);
    query.bindValue(QStringLiteral(":next"), row.nextTryAtMs);
    query.bindValue(QStringLiteral(":error"), text(row.lastError));
    query.bindValue(QStringLiteral(":requests"), row.tokenRequests);
    query.bindValue(QStringLiteral(":at"), row.updatedAtMs);
    return m_db.exec(query);
}

std::optional<QList<CredentialStateRow>> WorkerStates::credentials()
{
    QList<CredentialStateRow> out;
    QSqlQuery query = m_db.prepare(
        QStringLiteral("SELECT worker_id, credential_id, phase, valid_until, failing_since,"
                       " next_try_at, last_error, token_requests, updated_at"
                       " FROM credential_states ORDER BY credential_id, worker_id"));
    query.setForwardOnly(true);
    if (!m_db.exec(query))
        return std::nullopt;
    while (query.next()) {
        CredentialStateRow row;
        row.workerId = query.value(0).toString();
        row.credentialId = query.value(1).toString();
        row.phase = query.value(2).toString();
        row.validUntilMs = query.value(3).toLongLong();
        row.failingSinceMs = query.value(4).toLongLong();
        row.nextTryAtMs = query.value(5).toLongLong();
        row.lastError = query.value(6).toString();
        row.tokenRequests = query.value(7).toLongLong();
        row.updatedAtMs = query.value(8).toLongLong();
        out.append(row);
    }
    return out;
}

bool WorkerStates::forgetCredentials(const QString &workerId)
{
    QSqlQuery query =
        m_db.prepare(QStringLiteral("DELETE FROM credential_states WHERE worker_id = :worker"));
    query.bindValue(QStringLiteral(":worker"), text(workerId));
    return m_db.exec(query);
}

bool WorkerStates::saveOffline(const QString &workerId, qint64 offlineSinceMs, qint64 nowMs)
{
    QSqlQuery query = m_db.prepare(
        offlineSinceMs < 0
            ? QStringLiteral("DELETE FROM worker_states WHERE worker_id = :worker")
            : QStringLiteral("INSERT INTO worker_states (worker_id, offline_since, updated_at)"
                             " VALUES (:worker, :since, :at) ON CONFLICT (worker_id) DO UPDATE"
                             " SET offline_since = excluded.offline_since,"
                             " updated_at = excluded.updated_at"));
    query.bindValue(QStringLiteral(":worker"), text(workerId));
    if (offlineSinceMs >= 0) {
        query.bindValue(QStringLiteral(":since"), offlineSinceMs);
        query.bindValue(QStringLiteral(":at"), nowMs);
    }
    return m_db.exec(query);
}

std::optional<QList<WorkerOfflineRow>> WorkerStates::offline()
{
    QList<WorkerOfflineRow> out;
    QSqlQuery query = m_db.prepare(QStringLiteral(
        "SELECT worker_id, offline_since, updated_at FROM worker_states ORDER BY worker_id"));
    query.setForwardOnly(true);
    if (!m_db.exec(query))
        return std::nullopt;
    while (query.next())
        out.append(
            {query.value(0).toString(), query.value(1).toLongLong(), query.value(2).toLongLong()});
    return out;
}

} // namespace cooldown
