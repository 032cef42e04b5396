// SPDX-License-Identifier: Apache-2.0
#pragma once

// What the parts of the store share: column lists, placeholders, and how a row becomes
// a record. Private to core/store; nothing outside it includes this.

#include "core/store/Records.h"
#include "core/store/SqlStatement.h"
#include "core/store/Store.h"

#include <QByteArrayView>
#include <QSqlQuery>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <sqlite3.h>

#include <initializer_list>

class QSqlError;

namespace cooldown::storesql {

// An operation waiting for its next attempt, as a condition on the operations table.
inline constexpr char kPending[] = "state IN ('scheduled', 'waiting')";
// And its endpoint is neither paused nor held (docs/maintenance.md): appended to a
// WHERE clause.
inline constexpr char kNotPaused[] =
    " AND endpoint_id NOT IN (SELECT id FROM endpoints WHERE paused <> 0)";

// The order readOperation() expects.
extern const char kOperationColumns[];

// "a, b" as "p.a, p.b" for a prefix "p."; the list itself without one.
QString columns(const QString &list, const char *prefix = "");
QString columns(const char *list, const char *prefix = "");

// A null QString binds as SQL NULL; the schema wants empty text instead.
QString text(const QString &value);

// Names for the values of a statement run on every attempt. QtSql binds a named value
// with one lookup, but formats a ":N" name for every positional one, which costs more
// than SQLite's own work for such a row.
class Placeholders
{
public:
    Placeholders(std::initializer_list<const char *> names)
    {
        for (const char *name : names)
            m_names.append(QLatin1Char(':') + QLatin1String(name));
    }
    // ":a, :b, …" in declaration order, for a VALUES list.
    QString list() const { return m_names.join(QStringLiteral(", ")); }
    // "a, b, …": the names without their colons, for a column list.
    QString names() const { return list().remove(u':'); }
    template <typename Query, size_t N> void bind(Query &query, const QVariant (&values)[N]) const
    {
        Q_ASSERT(qsizetype(N) == m_names.size());
        for (size_t i = 0; i < N; ++i)
            query.bindValue(m_names.at(qsizetype(i)), values[i]);
    }

private:
    QStringList m_names;
};

// The columns an attempt is written with, in AttemptColumn order after the id.
const Placeholders &attemptInsert();
// The order of AttemptColumn: the id, the columns an attempt is written with, and the
// operation's state.
const QString &attemptColumns();
// The values of the statement that records an attempt's outcome on its operation.
const Placeholders &finishUpdate();

OperationRecord readOperation(const QSqlQuery &query);
OperationRecord readOperation(const SqlStatement &query);

// Decisions and wait sources as their columns hold them. A text this version does not
// know (a newer writer, a hand-edited row) is read as the fallback named below and
// logged once per column: the row still loads, and nothing counts it as a success, a
// retry or a failure.
QString decisionText(Decision decision);
// An unknown text reads as Park: an operator should look at the attempt.
Decision decisionFromText(QStringView text);
QString waitSourceText(WaitSource source);
// '' for none: an operation before its first attempt, a rollup row of no retry.
QString waitSourceText(const std::optional<WaitSource> &source);
// The empty text (an attempt of an older test fixture) and an unknown one read as None.
WaitSource waitSourceFromText(QStringView text);
// The empty text reads as empty; an unknown one as None.
std::optional<WaitSource> optionalWaitSourceFromText(QStringView text);
// A rollup row's decision: "conflict" for attempts that lost their lease.
QString rollupDecisionText(const std::optional<Decision> &decision);
std::optional<Decision> rollupDecisionFromText(QStringView text);

// A row's cells by column, whatever reads them: integer(i) and string(i).
template <typename Cells> void readAttempt(const Cells &cells, AttemptRecord *r)
{
    using C = AttemptColumn;
    r->id = cells.integer(C::Id);
    r->operationId = cells.integer(C::OperationId);
    r->endpointId = cells.string(C::EndpointId);
    r->attempt = int(cells.integer(C::Attempt));
    r->startedAtMs = cells.integer(C::StartedAt);
    r->finishedAtMs = cells.integer(C::FinishedAt);
    r->method = cells.string(C::Method);
    r->url = cells.string(C::Url);
    r->status = int(cells.integer(C::Status));
    r->error = cells.string(C::Error);
    r->decision = decisionFromText(cells.string(C::Decision));
    r->reason = cells.string(C::Reason);
    r->waitMs = cells.integer(C::WaitMs);
    r->waitSource = waitSourceFromText(cells.string(C::WaitSource));
    r->retryAfterRaw = cells.string(C::RetryAfterRaw);
    r->problemType = cells.string(C::ProblemType);
    r->problemInstance = cells.string(C::ProblemInstance);
    r->rateLimitRemaining = int(cells.integer(C::RateLimitRemaining));
    r->idempotencyKey = cells.string(C::IdempotencyKey);
    r->durationMs = cells.integer(C::DurationMs);
    r->workerId = cells.string(C::WorkerId);
    r->policyId = cells.string(C::PolicyId);
    r->policyVersion = int(cells.integer(C::PolicyVersion));
    r->forced = cells.integer(C::Forced) != 0;
    r->requestHeaders = cells.string(C::RequestHeaders);
    r->responseHeaders = cells.string(C::ResponseHeaders);
    r->leaseConflict = cells.integer(C::LeaseConflict) != 0;
    r->checkFailure = cells.string(C::CheckFailure);
}

// The cells of a QSqlQuery's current row.
struct QueryCells
{
    const QSqlQuery &query;
    qint64 integer(AttemptColumn column) const { return query.value(int(column)).toLongLong(); }
    QString string(AttemptColumn column) const { return query.value(int(column)).toString(); }
};

// The cells of a SQLite statement's current row.
struct SqliteCells
{
    sqlite3_stmt *statement;
    QByteArrayView text(AttemptColumn column) const
    {
        const int i = int(column);
        const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(statement, i));
        return data ? QByteArrayView(data, sqlite3_column_bytes(statement, i)) : QByteArrayView();
    }
    qint64 integer(AttemptColumn column) const
    {
        return sqlite3_column_int64(statement, int(column));
    }
    QString string(AttemptColumn column) const
    {
        const QByteArrayView utf8 = text(column);
        return utf8.isEmpty() ? QStringLiteral("") : QString::fromUtf8(utf8);
    }
};

QString stateText(OperationState state);

// A job's values for its endpoint's ${job:NAME} placeholders, as the operations table
// keeps them: a JSON object, or '' for none.
QString jobValuesText(const JobValues &values);
JobValues jobValuesFromText(const QString &text);

// The driver's own words; Qt's text() appends a generic "Unable to execute statement".
QString errorText(const QSqlError &error);

} // namespace cooldown::storesql
