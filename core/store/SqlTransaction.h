// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QSqlDatabase>
#include <QString>

struct sqlite3;

namespace cooldown {

// A transaction that rolls back unless commit() succeeded: every early return and
// every failed statement between begin and commit leaves the database as it was.
//
// On SQLite a Write transaction is BEGIN IMMEDIATE: it takes the write lock up front,
// so busy_timeout applies to it. A deferred transaction that reads and then writes
// fails at once with SQLITE_BUSY when another connection wrote in between.
//
// Inside an SqlBatch on the same connection (and thread) a transaction is a savepoint
// of the batch: its commit keeps its writes for the batch to commit, its rollback
// undoes them and nothing else.
//
// native: SQLite's own handle of this connection, where the store may use it
// (Store::sqliteHandle). BEGIN, COMMIT and ROLLBACK then go to SQLite directly, which
// saves QtSql preparing each of them as a query with its record: a transaction is
// begun and committed for every claim and every group commit.
class SqlTransaction final
{
public:
    enum class Kind
    {
        Read,
        Write
    };

    explicit SqlTransaction(QSqlDatabase database, Kind kind = Kind::Write,
                            sqlite3 *native = nullptr);
    ~SqlTransaction();
    Q_DISABLE_COPY_MOVE(SqlTransaction)

    // False when BEGIN failed; error() says why.
    bool isActive() const { return m_active; }
    bool commit();
    void rollback();
    QString error() const { return m_error; }

private:
    friend class SqlBatch;
    bool execute(const QString &statement);
    // Whether a failed ROLLBACK only says there was nothing left to roll back.
    static bool alreadyRolledBack(const QString &rollbackError);

    QSqlDatabase m_database;
    sqlite3 *m_native = nullptr;
    bool m_active = false;
    QString m_savepoint; // inside an SqlBatch: the savepoint it is
    QString m_error;
};

// One write transaction around many writes, each of which would otherwise commit on
// its own (bulk work: a workspace's endpoints and operations at start). Nothing of it
// is kept unless commit() succeeds.
class SqlBatch final
{
public:
    explicit SqlBatch(QSqlDatabase database, sqlite3 *native = nullptr);
    ~SqlBatch();
    Q_DISABLE_COPY_MOVE(SqlBatch)

    bool isActive() const { return m_transaction.isActive(); }
    bool commit();
    QString error() const { return m_transaction.error(); }

private:
    SqlTransaction m_transaction;
};

} // namespace cooldown
