// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QVariant>

namespace cooldown {

// What SQLite and PostgreSQL spell differently, chosen once when the store opens, so
// that a statement names what it needs and not which backend it runs on. Private to
// core/store; no database is needed to ask it (tests/store/tst_database.cpp).
class SqlDialect
{
public:
    enum class Kind
    {
        Sqlite,
        Postgres,
    };

    explicit SqlDialect(Kind kind = Kind::Sqlite) : m_kind(kind) {}

    Kind kind() const { return m_kind; }
    bool isPostgres() const { return m_kind == Kind::Postgres; }

    // GREATEST/MAX and LEAST/MIN of several values.
    QString greatest() const;
    QString least() const;
    // " INDEXED BY index" on SQLite: the partial indexes are in claim order, and without
    // statistics SQLite would rather sort every pending operation. Nothing on PostgreSQL,
    // whose planner has statistics.
    QString indexedBy(const char *index) const;
    // " FOR UPDATE [SKIP LOCKED]" on PostgreSQL; nothing on SQLite, whose write
    // transaction holds the whole database.
    QString forUpdate(bool skipLocked = false) const;
    // What an INSERT ends with so that insertedId() can read the new row's id:
    // " RETURNING id" on PostgreSQL. Nothing on SQLite, which gathers a RETURNING
    // clause's rows in a temporary table that costs more than the insert; there the
    // connection knows the id.
    QString returningId() const;
    // The id of the row the INSERT (ending with returningId()) just made, invalid when
    // it made none. Query is QSqlQuery or SqlStatement. On SQLite an INSERT that made
    // no row (ON CONFLICT DO NOTHING) leaves the connection's last id as it was: the
    // caller asks only when a row was made.
    template <typename Query> QVariant insertedId(Query &query) const
    {
        if (!isPostgres())
            return query.lastInsertId();
        return query.next() ? query.value(0) : QVariant();
    }

private:
    Kind m_kind;
};

} // namespace cooldown
