// SPDX-License-Identifier: Apache-2.0
#pragma once

// Holds a SQLite file's write lock from a connection of its own, as another process
// (a `cooldown run` worker on the same file) would: `BEGIN IMMEDIATE` at construction,
// until release() or the end of the scope.

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>

namespace cooldown::test {

class SqliteWriteLock
{
public:
    explicit SqliteWriteLock(const QString &path)
        : m_connection(QStringLiteral("write lock %1").arg(quintptr(this)))
    {
        QSqlDatabase holder = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
        holder.setDatabaseName(path);
        if (!holder.open()) {
            m_error = holder.lastError().text();
            return;
        }
        QSqlQuery begin(holder);
        m_held = begin.exec(QStringLiteral("BEGIN IMMEDIATE"));
        if (!m_held)
            m_error = begin.lastError().text();
    }
    ~SqliteWriteLock()
    {
        release();
        QSqlDatabase::removeDatabase(m_connection);
    }
    SqliteWriteLock(const SqliteWriteLock &) = delete;
    SqliteWriteLock &operator=(const SqliteWriteLock &) = delete;

    bool isHeld() const { return m_held; }
    // Why the lock could not be taken.
    QString error() const { return m_error; }
    // Ends the transaction, which wrote nothing. False if it could not be ended.
    bool release()
    {
        if (!m_held)
            return true;
        m_held = false;
        return QSqlDatabase::database(m_connection, false).commit();
    }

private:
    QString m_connection;
    QString m_error;
    bool m_held = false;
};

} // namespace cooldown::test
