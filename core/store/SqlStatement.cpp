// SPDX-License-Identifier: Apache-2.0
#include "core/store/SqlStatement.h"

#include <QSqlQuery>
#include <QSqlRecord>

#include <sqlite3.h>

namespace cooldown {

SqlStatement::SqlStatement(const QSqlDatabase &database, sqlite3 *handle, const QString &sql)
    : m_handle(handle)
{
    if (!m_handle) {
        m_query = std::make_unique<QSqlQuery>(database);
        m_valid = m_query->prepare(sql);
        return;
    }
    const QByteArray utf8 = sql.toUtf8();
    const int rc =
        sqlite3_prepare_v2(m_handle, utf8.constData(), int(utf8.size()), &m_statement, nullptr);
    m_valid = rc == SQLITE_OK && m_statement;
    if (!m_valid)
        m_error = QString::fromUtf8(sqlite3_errmsg(m_handle));
}

SqlStatement::~SqlStatement()
{
    sqlite3_finalize(m_statement);
}

int SqlStatement::parameterIndex(const QString &placeholder)
{
    const std::size_t known = m_parameters.size();
    for (std::size_t i = 0; i < known; ++i) {
        const std::size_t at = (m_nextParameter + i) % known;
        if (m_parameters[at].first == placeholder) {
            m_nextParameter = at + 1;
            return m_parameters[at].second;
        }
    }
    const int index = sqlite3_bind_parameter_index(m_statement, placeholder.toUtf8().constData());
    m_parameters.emplace_back(placeholder, index);
    m_nextParameter = m_parameters.size();
    return index;
}

void SqlStatement::bindValue(const QString &placeholder, const QVariant &value)
{
    if (m_query) {
        m_query->bindValue(placeholder, value);
        return;
    }
    if (!m_valid)
        return;
    stop(); // a running statement takes no bindings
    const int index = parameterIndex(placeholder);
    if (index <= 0)
        return; // as QtSql: a name the statement does not have binds nothing
    // The types QtSql binds as numbers; anything else as its text.
    switch (value.typeId()) {
    case QMetaType::Bool:
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::Long:
    case QMetaType::LongLong:
    case QMetaType::Short:
    case QMetaType::UShort:
    case QMetaType::Char:
    case QMetaType::SChar:
    case QMetaType::UChar:
        sqlite3_bind_int64(m_statement, index, value.toLongLong());
        return;
    case QMetaType::ULong:
    case QMetaType::ULongLong:
        sqlite3_bind_int64(m_statement, index, qint64(value.toULongLong()));
        return;
    case QMetaType::Double:
    case QMetaType::Float:
        sqlite3_bind_double(m_statement, index, value.toDouble());
        return;
    case QMetaType::QByteArray: {
        const QByteArray bytes = value.toByteArray();
        if (bytes.isNull()) {
            sqlite3_bind_null(m_statement, index);
            return;
        }
        sqlite3_bind_blob(m_statement, index, bytes.constData(), int(bytes.size()),
                          SQLITE_TRANSIENT);
        return;
    }
    default:
        break;
    }
    // As QtSql: a null QString (or an empty QVariant) binds as NULL, not as ''.
    if (value.isNull() || (value.typeId() == QMetaType::QString && value.toString().isNull())) {
        sqlite3_bind_null(m_statement, index);
        return;
    }
    // As UTF-8, the database's encoding: SQLite would convert UTF-16 itself, slower.
    const QByteArray &text = keep(index, value.toString().toUtf8());
    sqlite3_bind_text(m_statement, index, text.constData(), int(text.size()), SQLITE_STATIC);
}

const QByteArray &SqlStatement::keep(int index, QByteArray bytes)
{
    if (m_bound.size() <= std::size_t(index))
        m_bound.resize(std::size_t(index) + 1);
    m_bound[std::size_t(index)] = std::move(bytes);
    return m_bound[std::size_t(index)];
}

bool SqlStatement::exec()
{
    if (m_query)
        return m_query->exec();
    if (!m_valid)
        return false;
    stop();
    m_error.clear();
    const int rc = sqlite3_step(m_statement);
    m_running = true;
    if (rc == SQLITE_ROW) {
        m_rowAhead = true;
        m_changes = 0;
        return true;
    }
    if (rc != SQLITE_DONE)
        return failed();
    m_changes = sqlite3_changes(m_handle);
    stop();
    return true;
}

bool SqlStatement::next()
{
    if (m_query)
        return m_query->next();
    if (m_rowAhead) {
        m_rowAhead = false;
        m_onRow = true;
        return true;
    }
    m_onRow = false;
    if (!m_running)
        return false;
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW) {
        m_onRow = true;
        return true;
    }
    if (rc != SQLITE_DONE)
        failed();
    stop();
    return false;
}

QVariant SqlStatement::value(int column) const
{
    if (m_query)
        return m_query->value(column);
    if (!m_onRow || column < 0 || column >= sqlite3_column_count(m_statement))
        return {};
    switch (sqlite3_column_type(m_statement, column)) {
    case SQLITE_INTEGER:
        return qint64(sqlite3_column_int64(m_statement, column));
    case SQLITE_FLOAT:
        return sqlite3_column_double(m_statement, column);
    case SQLITE_BLOB: {
        const auto *data = static_cast<const char *>(sqlite3_column_blob(m_statement, column));
        return QByteArray(data, sqlite3_column_bytes(m_statement, column));
    }
    case SQLITE_TEXT: {
        const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_statement, column));
        return QString::fromUtf8(data, sqlite3_column_bytes(m_statement, column));
    }
    default:
        return {};
    }
}

int SqlStatement::columnCount() const
{
    if (m_query)
        return m_query->record().count();
    return sqlite3_column_count(m_statement);
}

int SqlStatement::numRowsAffected() const
{
    return m_query ? m_query->numRowsAffected() : m_changes;
}

QVariant SqlStatement::lastInsertId() const
{
    if (m_query)
        return m_query->lastInsertId();
    return qint64(sqlite3_last_insert_rowid(m_handle));
}

void SqlStatement::finish()
{
    if (m_query)
        m_query->finish();
    else
        stop();
}

QSqlError SqlStatement::lastError() const
{
    if (m_query)
        return m_query->lastError();
    if (m_error.isEmpty())
        return {};
    return QSqlError(QString(), m_error, QSqlError::StatementError);
}

void SqlStatement::stop()
{
    if (m_running)
        sqlite3_reset(m_statement);
    m_running = false;
    m_rowAhead = false;
    m_onRow = false;
}

bool SqlStatement::failed()
{
    m_error = QString::fromUtf8(sqlite3_errmsg(m_handle));
    stop();
    return false;
}

} // namespace cooldown
