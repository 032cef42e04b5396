// SPDX-License-Identifier: Apache-2.0
// The store's part for the reads of the SLA report (docs/report.md). Each is a range scan of a
// rollup table's primary key, or of the minutes of one endpoint through
// attempt_rollups_by_endpoint, summed by the database, so that a year of history costs
// as many rows as it has days, or failed minutes, never its attempts.

#include "core/store/ReportSums.h"

#include "core/store/Database.h"
#include "core/store/StoreSql.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace cooldown {

using namespace storesql;

namespace {

constexpr qint64 kMinuteMs = 60000;
constexpr qint64 kHourMs = 60 * kMinuteMs;

// The time column and the table suffix of a bucket: minute_at and "", hour_at and
// "_hourly", day_at and "_daily".
std::pair<QString, QString> tableOf(qint64 bucketMs)
{
    if (bucketMs <= kMinuteMs)
        return {QStringLiteral("minute_at"), QString()};
    if (bucketMs <= kHourMs)
        return {QStringLiteral("hour_at"), QStringLiteral("_hourly")};
    return {QStringLiteral("day_at"), QStringLiteral("_daily")};
}

// A forward-only query over [from, to) of a time column, ready to exec; the endpoints
// bound to :e0, :e1, ... (see endpointFilter()).
bool prepareRange(QSqlQuery &query, const QString &sql, qint64 fromMs, qint64 toMs,
                  const QStringList &endpoints = {})
{
    query.setForwardOnly(true);
    if (!query.prepare(sql))
        return false;
    query.bindValue(QStringLiteral(":from"), fromMs);
    query.bindValue(QStringLiteral(":to"), toMs);
    for (qsizetype i = 0; i < endpoints.size(); ++i)
        query.bindValue(QStringLiteral(":e%1").arg(i), endpoints.at(i));
    return true;
}

// " AND endpoint_id IN (:e0, ...)", or nothing for every endpoint.
QString endpointFilter(const QStringList &endpoints)
{
    if (endpoints.isEmpty())
        return QString();
    QStringList names;
    for (qsizetype i = 0; i < endpoints.size(); ++i)
        names.append(QStringLiteral(":e%1").arg(i));
    return QStringLiteral(" AND endpoint_id IN (%1)").arg(names.join(QStringLiteral(", ")));
}

} // namespace

bool ReportSums::forEach(qint64 bucketMs, qint64 fromMs, qint64 toMs, const QStringList &endpoints,
                         const std::function<bool(const ReportSum &)> &visit)
{
    const auto [time, suffix] = tableOf(bucketMs);
    // Lease conflicts are responses, not outcomes: the report leaves them out. So it
    // does the exchanges that found no network (docs/offline.md): they say nothing of
    // the endpoint, only of the machine.
    const QString sql = QStringLiteral("SELECT %1, endpoint_id, status_class, decision, reason,"
                                       " CAST(SUM(attempts) AS BIGINT) FROM attempt_rollups%2"
                                       " WHERE %1 >= :from AND %1 < :to AND decision <> 'conflict'"
                                       " AND reason <> 'offline'%3"
                                       " GROUP BY %1, endpoint_id, status_class, decision, reason")
                            .arg(time, suffix, endpointFilter(endpoints));
    QSqlQuery query(m_db.connection());
    if (!prepareRange(query, sql, fromMs, toMs, endpoints) || !m_db.exec(query)) {
        m_db.fail(QStringLiteral("report sums"), errorText(query.lastError()));
        return false;
    }
    ReportSum sum;
    while (query.next()) {
        sum.atMs = query.value(0).toLongLong();
        sum.endpointId = query.value(1).toString();
        sum.statusClass = query.value(2).toString();
        sum.decision = query.value(3).toString();
        sum.reason = query.value(4).toString();
        sum.count = query.value(5).toLongLong();
        if (!visit(sum))
            break;
    }
    if (query.lastError().isValid()) {
        m_db.fail(QStringLiteral("report sums"), errorText(query.lastError()));
        return false;
    }
    m_db.clearError();
    return true;
}

bool ReportSums::forEachThrottledSuccess(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                         const QStringList &endpoints,
                                         const std::function<bool(const ReportSum &)> &visit)
{
    const auto [time, suffix] = tableOf(bucketMs);
    const QString sql = QStringLiteral("SELECT %1, endpoint_id, operations FROM"
                                       " throttled_successes%2 WHERE %1 >= :from AND %1 < :to%3")
                            .arg(time, suffix, endpointFilter(endpoints));
    QSqlQuery query(m_db.connection());
    if (!prepareRange(query, sql, fromMs, toMs, endpoints) || !m_db.exec(query)) {
        m_db.fail(QStringLiteral("throttled successes"), errorText(query.lastError()));
        return false;
    }
    ReportSum sum;
    while (query.next()) {
        sum.atMs = query.value(0).toLongLong();
        sum.endpointId = query.value(1).toString();
        sum.count = query.value(2).toLongLong();
        if (!visit(sum))
            break;
    }
    if (query.lastError().isValid()) {
        m_db.fail(QStringLiteral("throttled successes"), errorText(query.lastError()));
        return false;
    }
    m_db.clearError();
    return true;
}

std::optional<QList<LatencyCount>> ReportSums::latencyCounts(qint64 bucketMs, qint64 fromMs,
                                                             qint64 toMs)
{
    QList<LatencyCount> out;
    // Per hour (the table has no suffix: there is no minute histogram) or per day.
    const bool daily = bucketMs > kHourMs;
    const QString time = daily ? QStringLiteral("day_at") : QStringLiteral("hour_at");
    const QString suffix = daily ? QStringLiteral("_daily") : QString();
    QSqlQuery query(m_db.connection());
    if (!prepareRange(query,
                      QStringLiteral("SELECT endpoint_id, bucket, CAST(SUM(attempts) AS BIGINT)"
                                     " FROM attempt_latency_rollups%2"
                                     " WHERE %1 >= :from AND %1 < :to"
                                     " GROUP BY endpoint_id, bucket ORDER BY endpoint_id, bucket")
                          .arg(time, suffix),
                      fromMs, toMs) ||
        !m_db.exec(query)) {
        m_db.fail(QStringLiteral("latency histogram"), errorText(query.lastError()));
        return std::nullopt;
    }
    while (query.next())
        out.append(
            {query.value(0).toString(), query.value(1).toInt(), query.value(2).toLongLong()});
    if (query.lastError().isValid()) {
        m_db.fail(QStringLiteral("latency histogram"), errorText(query.lastError()));
        return std::nullopt;
    }
    m_db.clearError();
    return out;
}

std::optional<QList<FailureMinute>>
ReportSums::failureMinutes(const QString &endpointId, qint64 fromMs, qint64 toMs, bool throttledToo)
{
    // The failed minutes through the index by endpoint, then each such minute's rows
    // through the primary key (minute, endpoint), and the endpoint's next success
    // through the index again: a seek each, whatever the history holds.
    const QString throttled = QStringLiteral("r.status_class IN ('429', '503')");
    const QString sql =
        QStringLiteral(
            "SELECT r.minute_at,"
            " CAST(SUM(CASE WHEN r.decision IN ('fail', 'park', 'retry') AND NOT %1"
            " AND r.reason <> 'offline' THEN r.attempts ELSE 0 END) AS BIGINT),"
            " CAST(SUM(CASE WHEN r.decision IN ('fail', 'park', 'retry') AND %1"
            " THEN r.attempts ELSE 0 END) AS BIGINT),"
            " CAST(SUM(CASE WHEN r.decision = 'success' THEN r.attempts ELSE 0 END) AS BIGINT),"
            " (SELECT MIN(s.minute_at) FROM attempt_rollups s WHERE s.endpoint_id = :e2"
            " AND s.decision = 'success' AND s.minute_at > r.minute_at AND s.minute_at < :end)"
            " FROM attempt_rollups r WHERE r.endpoint_id = :e0 AND r.minute_at IN"
            " (SELECT f.minute_at FROM attempt_rollups f WHERE f.endpoint_id = :e1"
            " AND f.decision IN ('fail', 'park', 'retry') AND f.reason <> 'offline'"
            " AND f.minute_at >= :from"
            " AND f.minute_at < :to%2)"
            " GROUP BY r.minute_at ORDER BY r.minute_at")
            .arg(throttled, throttledToo
                                ? QString()
                                : QStringLiteral(" AND NOT f.status_class IN ('429', '503')"));
    QSqlQuery query(m_db.connection());
    if (!prepareRange(query, sql, fromMs, toMs, {endpointId, endpointId, endpointId})) {
        m_db.fail(QStringLiteral("failed minutes"), errorText(query.lastError()));
        return std::nullopt;
    }
    query.bindValue(QStringLiteral(":end"), toMs);
    if (!m_db.exec(query)) {
        m_db.fail(QStringLiteral("failed minutes"), errorText(query.lastError()));
        return std::nullopt;
    }
    QList<FailureMinute> out;
    while (query.next())
        out.append({query.value(0).toLongLong(), query.value(1).toLongLong(),
                    query.value(2).toLongLong(), query.value(3).toLongLong(),
                    query.value(4).isNull() ? -1 : query.value(4).toLongLong()});
    if (query.lastError().isValid()) {
        m_db.fail(QStringLiteral("failed minutes"), errorText(query.lastError()));
        return std::nullopt;
    }
    m_db.clearError();
    return out;
}

} // namespace cooldown
