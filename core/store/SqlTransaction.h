#pragma once

#include <QSqlDatabase>
#include <QString>

namespace cooldown {

// A transaction that rolls back unless commit() succeeded: every early return and
// every failed statement between begin and commit leaves the database as it was.
//
// On SQLite a Write transaction is BEGIN IMMEDIATE: it takes the write lock up front,
// so busy_timeout applies to it. A deferred transaction that reads and then writes
// fails at once with SQLITE_BUSY when another connection wrote in between.
class SqlTransaction final
{
public:
    enum class Kind
    {
        Read,
        Write
    };

    explicit SqlTransaction(QSqlDatabase database, Kind kind = Kind::Write);
    ~SqlTransaction();
    Q_DISABLE_COPY_MOVE(SqlTransaction)

    // False when BEGIN failed; error() says why.
    bool isActive() const { return m_active; }
    bool commit();
    void rollback();
    QString error() const { return m_error; }

private:
    bool execute(const QString &statement);

    QSqlDatabase m_database;
    bool m_active = false;
    QString m_error;
};

} // namespace cooldown
