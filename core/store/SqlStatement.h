// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QSqlDatabase>
#include <QSqlError>
#include <QString>
#include <QVariant>

#include <memory>
#include <utility>
#include <vector>

class QSqlQuery;
struct sqlite3;
struct sqlite3_stmt;

namespace cooldown {

// A statement the store prepares once and runs on every attempt, with the part of
// QSqlQuery's interface the store uses.
//
// On SQLite it is SQLite's own statement on QtSql's connection: QtSql builds a record
// of every column's name and type each time a statement runs, and converts each bound
// value and each cell through its caches, which costs more than SQLite's work for the
// one-row statements of a claim or a recorded attempt. Elsewhere it is a QSqlQuery.
//
// As with QSqlQuery, bound values stay bound until bound again; exec() runs the
// statement and steps to its first row; next() walks the rows; finish() (or reading
// past the last row) ends it, so that it holds no read snapshot.
class SqlStatement final
{
public:
    // Prepares sql on the connection, on SQLite's own API when handle is given.
    // isValid() is false when it did not prepare; lastError() says why.
    SqlStatement(const QSqlDatabase &database, sqlite3 *handle, const QString &sql);
    ~SqlStatement();
    Q_DISABLE_COPY_MOVE(SqlStatement)

    bool isValid() const { return m_valid; }

    void bindValue(const QString &placeholder, const QVariant &value);
    bool exec();
    bool next();
    // The current row's cell: integer, real, text (QString), blob (QByteArray) or null.
    QVariant value(int column) const;
    int columnCount() const;
    int numRowsAffected() const;
    QVariant lastInsertId() const;
    void finish();
    QSqlError lastError() const;

private:
    int parameterIndex(const QString &placeholder);
    const QByteArray &keep(int index, QByteArray bytes);
    void stop();
    bool failed();

    std::unique_ptr<QSqlQuery> m_query; // when not on SQLite's own API
    sqlite3 *m_handle = nullptr;
    sqlite3_stmt *m_statement = nullptr;
    std::vector<std::pair<QString, int>> m_parameters; // placeholder, SQLite's index
    // Where the next lookup starts: a statement's values are bound in the same order
    // each time, so the next name is nearly always the one after the last.
    std::size_t m_nextParameter = 0;
    // Bound text as UTF-8, by SQLite's index: SQLite reads it where it is until it is
    // bound again or the statement ends, instead of copying it.
    std::vector<QByteArray> m_bound;
    bool m_valid = false;
    bool m_running = false;  // stepped and not reset
    bool m_rowAhead = false; // exec() stepped onto a row next() has not returned yet
    bool m_onRow = false;
    int m_changes = -1;
    QString m_error;
};

} // namespace cooldown
