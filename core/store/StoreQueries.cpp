// SPDX-License-Identifier: Apache-2.0
// The store: reading operations and attempts, the attempt cursor included.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/ratelimit/MeasuredPace.h"
#include "core/store/Schema.h"
#include "core/store/SqlTransaction.h"
#include "core/store/WalCheckpointer.h"

#include <QAtomicInteger>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QThread>
#include <QUrl>
#include <QVariant>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <limits>
#include <thread>
#include <utility>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace cooldown {

using namespace storesql;

AttemptCursor::AttemptCursor(std::unique_ptr<QSqlQuery> query) : m_query(std::move(query)) {}

AttemptCursor::AttemptCursor(sqlite3_stmt *statement) : m_statement(statement) {}

AttemptCursor::~AttemptCursor()
{
    sqlite3_finalize(m_statement);
}

bool AttemptCursor::next()
{
    if (m_statement) {
        const int rc = sqlite3_step(m_statement);
        if (rc == SQLITE_ROW)
            return true;
        if (rc != SQLITE_DONE)
            m_error = QString::fromUtf8(sqlite3_errmsg(sqlite3_db_handle(m_statement)));
        return false;
    }
    if (!m_query->next()) {
        if (m_query->lastError().isValid())
            m_error = errorText(m_query->lastError());
        return false;
    }
    return true;
}

bool AttemptCursor::next(AttemptRecord *record)
{
    if (!next())
        return false;
    read(record);
    return true;
}

void AttemptCursor::read(AttemptRecord *record) const
{
    if (m_statement)
        readAttempt(SqliteCells{m_statement}, record);
    else
        readAttempt(QueryCells{*m_query}, record);
}

qint64 AttemptCursor::integer(AttemptColumn column) const
{
    return m_statement ? SqliteCells{m_statement}.integer(column)
                       : QueryCells{*m_query}.integer(column);
}

QByteArrayView AttemptCursor::text(AttemptColumn column) const
{
    if (m_statement)
        return SqliteCells{m_statement}.text(column);
    QByteArray &cell = m_text[int(column)];
    cell = QueryCells{*m_query}.string(column).toUtf8();
    return cell;
}

OperationState AttemptCursor::operationState() const
{
    const QByteArrayView state = text(AttemptColumn::OperationState);
    return operationStateFromString(QString::fromUtf8(state)).value_or(OperationState::Failed);
}

namespace {

// The query Store::operations and Store::operationIds run, with its values bound. With
// a state, SQLite walks operations_by_state (state, id) from the key on: a page costs
// its own rows, however long the history.
QString operationsSql(const QString &columns, const OperationFilter &filter)
{
    QStringList where;
    if (!filter.newestFirst)
        where.append(QStringLiteral("id > :after"));
    if (filter.upToId >= 0)
        where.append(QStringLiteral("id <= :upto"));
    if (filter.state)
        where.append(QStringLiteral("state = :state"));
    if (!filter.endpointId.isEmpty())
        where.append(QStringLiteral("endpoint_id = :endpoint"));
    QString sql = QStringLiteral("SELECT %1 FROM operations").arg(columns);
    if (!where.isEmpty())
        sql += QStringLiteral(" WHERE ") + where.join(QStringLiteral(" AND "));
    sql +=
        filter.newestFirst ? QStringLiteral(" ORDER BY id DESC") : QStringLiteral(" ORDER BY id");
    if (filter.limit >= 0)
        sql += QStringLiteral(" LIMIT %1").arg(filter.limit);
    return sql;
}

void bindOperationFilter(QSqlQuery &query, const OperationFilter &filter)
{
    if (!filter.newestFirst)
        query.bindValue(QStringLiteral(":after"), filter.afterId);
    if (filter.upToId >= 0)
        query.bindValue(QStringLiteral(":upto"), filter.upToId);
    if (filter.state)
        query.bindValue(QStringLiteral(":state"), stateText(*filter.state));
    if (!filter.endpointId.isEmpty())
        query.bindValue(QStringLiteral(":endpoint"), filter.endpointId);
}

} // namespace

QList<OperationRecord> Store::operations(const OperationFilter &filter)
{
    QSqlQuery query = m_db->prepare(operationsSql(operationColumns(), filter));
    query.setForwardOnly(true);
    bindOperationFilter(query, filter);
    QList<OperationRecord> out;
    if (!m_db->exec(query))
        return out;
    while (query.next())
        out.append(readOperation(query));
    m_db->clearError();
    return out;
}

QList<qint64> Store::operationIds(const OperationFilter &filter)
{
    QSqlQuery query = m_db->prepare(operationsSql(QStringLiteral("id"), filter));
    query.setForwardOnly(true);
    bindOperationFilter(query, filter);
    QList<qint64> out;
    if (!m_db->exec(query))
        return out;
    while (query.next())
        out.append(query.value(0).toLongLong());
    // An empty answer must not read as the last failure's.
    m_db->clearError();
    return out;
}

QMap<OperationState, qint64> Store::countsByState()
{
    QMap<OperationState, qint64> counts;
    for (OperationState state : allOperationStates())
        counts.insert(state, 0);
    QSqlQuery query =
        m_db->prepare(QStringLiteral("SELECT state, COUNT(*) FROM operations GROUP BY state"));
    if (!m_db->exec(query))
        return {};
    while (query.next()) {
        if (const auto state = operationStateFromString(query.value(0).toString()))
            counts[*state] = query.value(1).toLongLong();
    }
    return counts;
}

QMap<OperationState, qint64> Store::openCountsByState()
{
    QMap<OperationState, qint64> counts;
    for (OperationState state : {OperationState::Scheduled, OperationState::Running,
                                 OperationState::Waiting, OperationState::Parked})
        counts.insert(state, 0);
    SqlStatement *query = m_db->cached(
        QStringLiteral("SELECT state, COUNT(*) FROM operations WHERE state IN ('scheduled',"
                       " 'running', 'waiting', 'parked') GROUP BY state"));
    if (!query || !m_db->exec(*query))
        return {};
    while (query->next()) {
        if (const auto state = operationStateFromString(query->value(0).toString()))
            counts[*state] = query->value(1).toLongLong();
    }
    query->finish();
    m_db->clearError();
    return counts;
}

std::optional<bool> Store::hasUnfinishedOperations()
{
    // A paused endpoint's work would keep `cooldown run --until-idle` running for ever,
    // waiting for a resume; an automatic pause makes that likely.
    SqlStatement *query = m_db->cached(QStringLiteral(
        "SELECT 1 FROM operations WHERE state = 'running' OR (state IN ('scheduled', 'waiting')"
        " AND endpoint_id NOT IN (SELECT id FROM endpoints WHERE paused = 1)) LIMIT 1"));
    if (!query || !m_db->exec(*query))
        return std::nullopt;
    const bool any = query->next();
    query->finish();
    m_db->clearError();
    return any;
}

namespace {

QString attemptWhere(const AttemptFilter &filter)
{
    QStringList where{QStringLiteral("a.id > :after")};
    if (filter.beforeId > 0)
        where.append(QStringLiteral("a.id < :before"));
    if (filter.fromMs >= 0)
        where.append(QStringLiteral("a.started_at >= :from"));
    if (filter.toMs >= 0)
        where.append(QStringLiteral("a.started_at < :to"));
    if (!filter.endpointId.isEmpty())
        where.append(QStringLiteral("a.endpoint_id = :endpoint"));
    if (filter.operationId > 0)
        where.append(QStringLiteral("a.operation_id = :operation"));
    if (filter.operationState)
        where.append(QStringLiteral("o.state = :state"));
    if (filter.statusMin >= 0)
        where.append(QStringLiteral("a.status >= :status_min"));
    if (filter.statusMax >= 0)
        where.append(QStringLiteral("a.status <= :status_max"));
    if (filter.statusExcluded >= 0)
        where.append(QStringLiteral("a.status <> :status_excluded"));
    if (filter.decision)
        where.append(QStringLiteral("a.decision = :decision"));
    if (filter.prunableBeforeMs >= 0)
        where.append(schema::prunableAttempt(QStringLiteral(":prunable_before")));
    return where.join(QStringLiteral(" AND "));
}

// Whether the filter's WHERE clause names the operations (o).
bool filterJoinsOperations(const AttemptFilter &filter)
{
    return filter.operationState || filter.prunableBeforeMs >= 0;
}

// Calls bind(name, value) for each value the filter's WHERE clause names.
template <typename Bind> void forEachFilterValue(const AttemptFilter &filter, Bind bind)
{
    bind(":after", QVariant(filter.afterId));
    if (filter.beforeId > 0)
        bind(":before", QVariant(filter.beforeId));
    if (filter.fromMs >= 0)
        bind(":from", QVariant(filter.fromMs));
    if (filter.toMs >= 0)
        bind(":to", QVariant(filter.toMs));
    if (!filter.endpointId.isEmpty())
        bind(":endpoint", QVariant(filter.endpointId));
    if (filter.operationId > 0)
        bind(":operation", QVariant(filter.operationId));
    if (filter.operationState)
        bind(":state", QVariant(toString(*filter.operationState)));
    if (filter.statusMin >= 0)
        bind(":status_min", QVariant(filter.statusMin));
    if (filter.statusMax >= 0)
        bind(":status_max", QVariant(filter.statusMax));
    if (filter.statusExcluded >= 0)
        bind(":status_excluded", QVariant(filter.statusExcluded));
    if (filter.decision)
        bind(":decision", QVariant(decisionText(*filter.decision)));
    if (filter.prunableBeforeMs >= 0)
        bind(":prunable_before", QVariant(filter.prunableBeforeMs));
}

void bindAttemptFilter(QSqlQuery &query, const AttemptFilter &filter)
{
    forEachFilterValue(filter, [&query](const char *name, const QVariant &value) {
        query.bindValue(QLatin1String(name), value);
    });
}

// False with SQLite's message when a value cannot be bound.
bool bindAttemptFilter(sqlite3_stmt *statement, const AttemptFilter &filter, QString *error)
{
    bool ok = true;
    forEachFilterValue(filter, [&](const char *name, const QVariant &value) {
        const int index = sqlite3_bind_parameter_index(statement, name);
        if (!ok || index == 0)
            return;
        int rc = SQLITE_OK;
        if (value.typeId() == QMetaType::QString) {
            const QByteArray utf8 = value.toString().toUtf8();
            rc = sqlite3_bind_text(statement, index, utf8.constData(), int(utf8.size()),
                                   SQLITE_TRANSIENT);
        } else {
            rc = sqlite3_bind_int64(statement, index, value.toLongLong());
        }
        if (rc != SQLITE_OK) {
            ok = false;
            *error = QString::fromUtf8(sqlite3_errstr(rc));
        }
    });
    return ok;
}

// The operations table joins in only when needed: the full rows carry its state, the
// ids alone only when the filter names it.
QString attemptSelect(const AttemptFilter &filter, const QString &columns = attemptColumns(),
                      bool joinOperations = true)
{
    QString sql =
        QStringLiteral("SELECT %1 FROM attempts AS a%2 WHERE %3 ORDER BY a.id%4")
            .arg(columns,
                 joinOperations ? QStringLiteral(" JOIN operations AS o ON o.id = a.operation_id")
                                : QString(),
                 attemptWhere(filter), filter.newestFirst ? QStringLiteral(" DESC") : QString());
    if (filter.limit >= 0)
        sql += QStringLiteral(" LIMIT %1").arg(filter.limit);
    return sql;
}

} // namespace

QList<AttemptRecord> Store::attempts(const AttemptFilter &filter)
{
    QList<AttemptRecord> out;
    const std::unique_ptr<AttemptCursor> cursor = streamAttempts(filter);
    if (!cursor)
        return out;
    AttemptRecord record;
    while (cursor->next(&record))
        out.append(record);
    if (!cursor->error().isEmpty()) {
        m_db->fail(QStringLiteral("attempts"), cursor->error());
        return {};
    }
    return out;
}

QList<qint64> Store::attemptIds(const AttemptFilter &filter)
{
    QList<qint64> out;
    QSqlQuery query(m_db->connection());
    query.setForwardOnly(true);
    if (!query.prepare(
            attemptSelect(filter, QStringLiteral("a.id"), filterJoinsOperations(filter)))) {
        m_db->fail(QStringLiteral("attempt ids"), errorText(query.lastError()));
        return out;
    }
    bindAttemptFilter(query, filter);
    if (!m_db->exec(query))
        return out;
    if (filter.limit > 0)
        out.reserve(filter.limit);
    while (query.next())
        out.append(query.value(0).toLongLong());
    m_db->clearError();
    return out;
}

qint64 Store::countAttempts(const AttemptFilter &filter)
{
    QString sql = QStringLiteral("SELECT COUNT(*) FROM attempts AS a%1 WHERE %2")
                      .arg(filterJoinsOperations(filter)
                               ? QStringLiteral(" JOIN operations AS o ON o.id = a.operation_id")
                               : QString(),
                           attemptWhere(filter));
    QSqlQuery query = m_db->prepare(sql);
    bindAttemptFilter(query, filter);
    if (!m_db->exec(query) || !query.next())
        return -1;
    const qint64 count = query.value(0).toLongLong();
    return filter.limit >= 0 ? std::min<qint64>(count, filter.limit) : count;
}

qint64 Store::newestAttemptId()
{
    SqlStatement *query = m_db->cached(QStringLiteral("SELECT COALESCE(MAX(id), 0) FROM attempts"));
    if (!query || !m_db->exec(*query) || !query->next())
        return -1;
    const qint64 newest = query->value(0).toLongLong();
    query->finish();
    m_db->clearError();
    return newest;
}

int Store::backgroundCheckpoints() const
{
    return m_db->completedCheckpoints();
}

qint64 Store::leaseConflictCount()
{
    QSqlQuery query =
        m_db->prepare(QStringLiteral("SELECT COUNT(*) FROM attempts WHERE lease_conflict = 1"));
    if (!m_db->exec(query) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}

std::unique_ptr<AttemptCursor> Store::streamAttempts(const AttemptFilter &filter, bool withHeaders)
{
    QString columns = attemptColumns();
    if (!withHeaders)
        columns.replace(QLatin1String("a.request_headers, a.response_headers"),
                        QLatin1String("'', ''"));
    const QString sql = attemptSelect(filter, columns);
    if (sqlite3 *connection = m_db->sqliteHandle()) {
        // SQLite's own statement: a cell is read as the UTF-8 it is stored as.
        sqlite3_stmt *statement = nullptr;
        const QByteArray utf8 = sql.toUtf8();
        if (sqlite3_prepare_v2(connection, utf8.constData(), int(utf8.size()), &statement,
                               nullptr) != SQLITE_OK) {
            m_db->fail(QStringLiteral("attempts"), QString::fromUtf8(sqlite3_errmsg(connection)));
            sqlite3_finalize(statement);
            return nullptr;
        }
        std::unique_ptr<AttemptCursor> cursor(new AttemptCursor(statement));
        QString error;
        if (!bindAttemptFilter(statement, filter, &error)) {
            m_db->fail(QStringLiteral("attempts"), error);
            return nullptr;
        }
        return cursor;
    }
    auto query = std::make_unique<QSqlQuery>(m_db->connection());
    // A default query keeps every row it has read; this one keeps one.
    query->setForwardOnly(true);
    if (!query->prepare(sql)) {
        m_db->fail(QStringLiteral("attempts"), errorText(query->lastError()));
        return nullptr;
    }
    bindAttemptFilter(*query, filter);
    if (!m_db->exec(*query))
        return nullptr;
    return std::unique_ptr<AttemptCursor>(new AttemptCursor(std::move(query)));
}

} // namespace cooldown
