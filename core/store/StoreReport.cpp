// SPDX-License-Identifier: Apache-2.0
// The store: the reads of the SLA report (docs/report.md). Each is one range scan of a
// rollup table's primary key, summed by the database, so that a year of history costs
// as many rows as it has minutes or hours with traffic, never its attempts.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/store/Schema.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace cooldown {

using namespace storesql;

namespace {

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

bool Store::forEachReportSum(bool hourly, qint64 fromMs, qint64 toMs, const QStringList &endpoints,
                             const std::function<bool(const ReportSum &)> &visit)
{
    const QString time = hourly ? QStringLiteral("hour_at") : QStringLiteral("minute_at");
    const QString table =
        hourly ? QStringLiteral("attempt_rollups_hourly") : QStringLiteral("attempt_rollups");
    // Lease conflicts are responses, not outcomes: the report leaves them out.
    const QString sql =
        QStringLiteral("SELECT %1, endpoint_id, status_class, decision, reason,"
                       " CAST(SUM(attempts) AS BIGINT) FROM %2"
                       " WHERE %1 >= :from AND %1 < :to AND decision <> 'conflict'%3"
                       " GROUP BY %1, endpoint_id, status_class, decision, reason")
            .arg(time, table, endpointFilter(endpoints));
    QSqlQuery query(m_database);
    if (!prepareRange(query, sql, fromMs, toMs, endpoints) || !exec(query)) {
        fail(QStringLiteral("report sums"), errorText(query.lastError()));
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
        fail(QStringLiteral("report sums"), errorText(query.lastError()));
        return false;
    }
    m_lastError.clear();
    return true;
}

bool Store::forEachThrottledSuccess(bool hourly, qint64 fromMs, qint64 toMs,
                                    const QStringList &endpoints,
                                    const std::function<bool(const ReportSum &)> &visit)
{
    if (m_schemaVersion < schema::latencyRollupsVersion())
        return true;
    const QString time = hourly ? QStringLiteral("hour_at") : QStringLiteral("minute_at");
    const QString sql = QStringLiteral("SELECT %1, endpoint_id, operations FROM %2"
                                       " WHERE %1 >= :from AND %1 < :to%3")
                            .arg(time,
                                 hourly ? QStringLiteral("throttled_successes_hourly")
                                        : QStringLiteral("throttled_successes"),
                                 endpointFilter(endpoints));
    QSqlQuery query(m_database);
    if (!prepareRange(query, sql, fromMs, toMs, endpoints) || !exec(query)) {
        fail(QStringLiteral("throttled successes"), errorText(query.lastError()));
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
        fail(QStringLiteral("throttled successes"), errorText(query.lastError()));
        return false;
    }
    m_lastError.clear();
    return true;
}

std::optional<QList<LatencyCount>> Store::latencyCounts(qint64 fromMs, qint64 toMs)
{
    QList<LatencyCount> out;
    if (m_schemaVersion < schema::latencyRollupsVersion())
        return out;
    QSqlQuery query(m_database);
    if (!prepareRange(query,
                      QStringLiteral("SELECT endpoint_id, bucket, CAST(SUM(attempts) AS BIGINT)"
                                     " FROM attempt_latency_rollups"
                                     " WHERE hour_at >= :from AND hour_at < :to"
                                     " GROUP BY endpoint_id, bucket ORDER BY endpoint_id, bucket"),
                      fromMs, toMs) ||
        !exec(query)) {
        fail(QStringLiteral("latency histogram"), errorText(query.lastError()));
        return std::nullopt;
    }
    while (query.next())
        out.append(
            {query.value(0).toString(), query.value(1).toInt(), query.value(2).toLongLong()});
    if (query.lastError().isValid()) {
        fail(QStringLiteral("latency histogram"), errorText(query.lastError()));
        return std::nullopt;
    }
    m_lastError.clear();
    return out;
}

} // namespace cooldown
