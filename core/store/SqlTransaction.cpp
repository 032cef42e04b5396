// SPDX-License-Identifier: Apache-2.0
#include "core/store/SqlTransaction.h"

#include "core/Logging.h"
#include "core/store/DatabaseFault.h"

#include <QHash>
#include <QSqlError>
#include <QSqlQuery>

#include <sqlite3.h>

namespace cooldown {

namespace {

// The connections of this thread inside an SqlBatch, and how many savepoints are
// open in each.
thread_local QHash<QString, int> t_batches;

} // namespace

SqlTransaction::SqlTransaction(QSqlDatabase database, Kind kind, sqlite3 *native)
    : m_database(std::move(database)), m_native(native)
{
    const auto batch = t_batches.find(m_database.connectionName());
    if (batch != t_batches.end()) {
        m_savepoint = QStringLiteral("cooldown_%1").arg(++*batch);
        m_active = execute(QStringLiteral("SAVEPOINT ") + m_savepoint);
        if (!m_active)
            --*batch;
        return;
    }
    const bool sqlite = m_native || m_database.driverName() == QLatin1String("QSQLITE");
    QString begin = QStringLiteral("BEGIN");
    if (sqlite)
        begin = kind == Kind::Write ? QStringLiteral("BEGIN IMMEDIATE")
                                    : QStringLiteral("BEGIN DEFERRED");
    m_active = execute(begin);
}

SqlTransaction::~SqlTransaction()
{
    if (m_active)
        rollback();
}

bool SqlTransaction::commit()
{
    if (!m_active) {
        if (m_error.isEmpty())
            m_error = QStringLiteral("commit without an open transaction");
        return false;
    }
    if (!m_savepoint.isEmpty()) {
        // Kept in the batch, which commits it.
        if (!execute(QStringLiteral("RELEASE ") + m_savepoint)) {
            rollback();
            return false;
        }
        m_active = false;
        --t_batches[m_database.connectionName()];
        return true;
    }
    if (!execute(QStringLiteral("COMMIT"))) {
        rollback();
        return false;
    }
    m_active = false;
    return true;
}

void SqlTransaction::rollback()
{
    if (!m_active)
        return;
    m_active = false;
    // error() keeps saying why the transaction failed; a failed rollback is logged.
    const QString why = m_error;
    if (!m_savepoint.isEmpty()) {
        // Undoes this transaction's writes and nothing else of the batch.
        if ((!execute(QStringLiteral("ROLLBACK TO ") + m_savepoint) ||
             !execute(QStringLiteral("RELEASE ") + m_savepoint)) &&
            !alreadyRolledBack(m_error))
            qCWarning(lcStore) << "rollback to a savepoint failed:" << m_error;
        --t_batches[m_database.connectionName()];
    } else if (m_native && sqlite3_get_autocommit(m_native)) {
        // SQLite rolled the transaction back itself (a full disk, an I/O error, an
        // interrupt): there is nothing left to undo.
    } else if (!m_native && !m_database.isOpen()) {
        // The connection was closed when it was found lost: the server rolled the
        // transaction back with it, and there is no connection to say ROLLBACK on.
    } else if (!execute(QStringLiteral("ROLLBACK")) && !alreadyRolledBack(m_error)) {
        qCWarning(lcStore) << "rollback failed:" << m_error;
    }
    m_error = why;
}

bool SqlTransaction::alreadyRolledBack(const QString &rollbackError)
{
    // SQLite without its own handle says so; a connection that is gone took its
    // transaction with it (the server rolls it back).
    return rollbackError.contains(QLatin1String("no transaction is active")) ||
           faultOfText(rollbackError) == DatabaseFault::ConnectionLost;
}

SqlBatch::SqlBatch(QSqlDatabase database, sqlite3 *native)
    : m_transaction(database, SqlTransaction::Kind::Write, native)
{
    if (m_transaction.isActive())
        t_batches.insert(database.connectionName(), 0);
}

SqlBatch::~SqlBatch()
{
    if (m_transaction.isActive())
        t_batches.remove(m_transaction.m_database.connectionName());
}

bool SqlBatch::commit()
{
    if (m_transaction.isActive())
        t_batches.remove(m_transaction.m_database.connectionName());
    return m_transaction.commit();
}

bool SqlTransaction::execute(const QString &statement)
{
    if (m_native) {
        if (sqlite3_exec(m_native, statement.toUtf8().constData(), nullptr, nullptr, nullptr) ==
            SQLITE_OK)
            return true;
        m_error = QString::fromUtf8(sqlite3_errmsg(m_native));
        return false;
    }
    QSqlQuery query(m_database);
    if (query.exec(statement))
        return true;
    m_error = query.lastError().databaseText().isEmpty() ? query.lastError().text()
                                                         : query.lastError().databaseText();
    return false;
}

} // namespace cooldown
