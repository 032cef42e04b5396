// SPDX-License-Identifier: Apache-2.0
#include "core/store/StoreSql.h"

#include "core/Logging.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlError>

#include <atomic>

namespace cooldown::storesql {

namespace {

// One warning per column and process: a table full of such rows would flood the log.
void warnUnknown(std::atomic_bool *warned, const char *column, QStringView text,
                 const char *fallback)
{
    if (!warned->exchange(true))
        qCWarning(lcStore).noquote()
            << QStringLiteral("unknown %1 '%2' in the database, read as '%3'")
                   .arg(QLatin1String(column), text, QLatin1String(fallback));
}

} // namespace

const char kOperationColumns[] =
    "id, endpoint_id, state, attempt, throttled_attempts, created_at, first_attempt_at,"
    " next_attempt_at, last_status, last_error, idempotency_key, response_instance,"
    " lease_owner, lease_expires_at, version, final_reason, wait_source,"
    " previous_backoff_ms, policy_id, partition_key, force_next, rescued, cancel_requested,"
    " request_body, job_values";

QString columns(const QString &list, const char *prefix)
{
    if (!*prefix)
        return list;
    QStringList out;
    for (const QString &name : list.split(u','))
        out.append(QLatin1String(prefix) + name.trimmed());
    return out.join(QStringLiteral(", "));
}

QString columns(const char *list, const char *prefix)
{
    return columns(QString::fromLatin1(list), prefix);
}

QString text(const QString &value)
{
    return value.isNull() ? QStringLiteral("") : value;
}

const Placeholders &attemptInsert()
{
    static const Placeholders columns{"operation_id",
                                      "endpoint_id",
                                      "attempt",
                                      "started_at",
                                      "finished_at",
                                      "method",
                                      "url",
                                      "status",
                                      "error",
                                      "decision",
                                      "reason",
                                      "wait_ms",
                                      "wait_source",
                                      "retry_after_raw",
                                      "problem_type",
                                      "problem_instance",
                                      "rate_limit_remaining",
                                      "idempotency_key",
                                      "duration_ms",
                                      "worker_id",
                                      "policy_id",
                                      "policy_version",
                                      "forced",
                                      "request_headers",
                                      "response_headers",
                                      "lease_conflict"};
    return columns;
}

const QString &attemptColumns()
{
    static const QString list = QStringLiteral("a.id, %1, a.check_failure, o.state")
                                    .arg(columns(attemptInsert().names(), "a."));
    Q_ASSERT(list.count(u',') + 1 == kAttemptColumnCount);
    return list;
}

const Placeholders &finishUpdate()
{
    static const Placeholders values{"cancelled_state",
                                     "state",
                                     "attempt",
                                     "throttled_attempts",
                                     "first_attempt_at",
                                     "cancelled_next",
                                     "next",
                                     "last_status",
                                     "last_error",
                                     "response_instance",
                                     "cancelled_reason",
                                     "reason",
                                     "wait_source",
                                     "previous_backoff_ms",
                                     "force_next",
                                     "cancelled_owner",
                                     "owner",
                                     "cancelled_expires",
                                     "expires",
                                     "id",
                                     "version",
                                     "worker"};
    return values;
}

namespace {

template <typename Query> OperationRecord readOperationOf(const Query &query)
{
    OperationRecord r;
    r.id = query.value(0).toLongLong();
    r.endpointId = query.value(1).toString();
    r.state = operationStateFromString(query.value(2).toString()).value_or(OperationState::Failed);
    r.attempt = query.value(3).toInt();
    r.throttledAttempts = query.value(4).toInt();
    r.createdAtMs = query.value(5).toLongLong();
    r.firstAttemptAtMs = query.value(6).toLongLong();
    r.nextAttemptAtMs = query.value(7).toLongLong();
    r.lastStatus = query.value(8).toInt();
    r.lastError = query.value(9).toString();
    r.idempotencyKey = query.value(10).toString();
    r.responseInstance = query.value(11).toString();
    r.leaseOwner = query.value(12).toString();
    r.leaseExpiresAtMs = query.value(13).toLongLong();
    r.version = query.value(14).toLongLong();
    r.finalReason = query.value(15).toString();
    r.waitSource = optionalWaitSourceFromText(query.value(16).toString());
    r.previousBackoffMs = query.value(17).toLongLong();
    r.policyId = query.value(18).toString();
    r.partitionKey = query.value(19).toString();
    r.forceNext = query.value(20).toInt() != 0;
    r.rescued = query.value(21).toInt() != 0;
    r.cancelRequested = query.value(22).toInt() != 0;
    r.requestBody = query.value(23).toString().toUtf8();
    r.jobValues = jobValuesFromText(query.value(24).toString());
    return r;
}

} // namespace

OperationRecord readOperation(const QSqlQuery &query)
{
    return readOperationOf(query);
}

OperationRecord readOperation(const SqlStatement &query)
{
    return readOperationOf(query);
}

QString jobValuesText(const JobValues &values)
{
    if (values.isEmpty())
        return QStringLiteral("");
    QJsonObject object;
    for (auto it = values.begin(); it != values.end(); ++it)
        object.insert(it.key(), it.value());
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

JobValues jobValuesFromText(const QString &text)
{
    JobValues values;
    if (text.isEmpty())
        return values;
    const QJsonObject object = QJsonDocument::fromJson(text.toUtf8()).object();
    for (auto it = object.begin(); it != object.end(); ++it)
        values.insert(it.key(), it.value().toString());
    return values;
}

QString stateText(OperationState state)
{
    return toString(state);
}

QString errorText(const QSqlError &error)
{
    const QString database = error.databaseText().trimmed();
    return database.isEmpty() ? error.text().trimmed() : database;
}

QString decisionText(Decision decision)
{
    return QLatin1String(textOf(decision));
}

Decision decisionFromText(QStringView text)
{
    if (const std::optional<Decision> decision = decisionFromString(text))
        return *decision;
    static std::atomic_bool warned{false};
    warnUnknown(&warned, "decision", text, textOf(Decision::Park));
    return Decision::Park;
}

QString waitSourceText(WaitSource source)
{
    return QLatin1String(textOf(source));
}

QString waitSourceText(const std::optional<WaitSource> &source)
{
    return source ? waitSourceText(*source) : QStringLiteral("");
}

WaitSource waitSourceFromText(QStringView text)
{
    return optionalWaitSourceFromText(text).value_or(WaitSource::None);
}

std::optional<WaitSource> optionalWaitSourceFromText(QStringView text)
{
    if (text.isEmpty())
        return std::nullopt;
    if (const std::optional<WaitSource> source = waitSourceFromString(text))
        return source;
    static std::atomic_bool warned{false};
    warnUnknown(&warned, "wait_source", text, textOf(WaitSource::None));
    return WaitSource::None;
}

QString rollupDecisionText(const std::optional<Decision> &decision)
{
    return decision ? decisionText(*decision) : QStringLiteral("conflict");
}

std::optional<Decision> rollupDecisionFromText(QStringView text)
{
    if (text == u"conflict")
        return std::nullopt;
    return decisionFromText(text);
}

} // namespace cooldown::storesql
