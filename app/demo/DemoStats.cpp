// SPDX-License-Identifier: Apache-2.0
#include "app/demo/DemoStats.h"

namespace cooldown {

namespace {

QJsonObject countsToJson(const QMap<QString, qint64> &counts)
{
    QJsonObject object;
    for (auto it = counts.constBegin(); it != counts.constEnd(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

} // namespace

QJsonObject DemoStats::toJson() const
{
    QJsonObject statuses;
    for (auto it = responsesByStatus.constBegin(); it != responsesByStatus.constEnd(); ++it)
        statuses.insert(QString::number(it.key()), it.value());
    return QJsonObject{
        {QStringLiteral("total_requests"), totalRequests},
        {QStringLiteral("total_executed"), totalExecuted},
        {QStringLiteral("requests_by_path"), countsToJson(requestsByPath)},
        {QStringLiteral("requests_by_key"), countsToJson(requestsByKey)},
        {QStringLiteral("requests_by_idempotency_key"), countsToJson(requestsByIdempotencyKey)},
        {QStringLiteral("executed_by_key"), countsToJson(executedByKey)},
        {QStringLiteral("executed_by_idempotency_key"), countsToJson(executedByIdempotencyKey)},
        {QStringLiteral("responses_by_status"), statuses},
        {QStringLiteral("replayed"), replayed},
        {QStringLiteral("dropped"), dropped},
        {QStringLiteral("hung_connections"), hungConnections},
        {QStringLiteral("in_flight"), inFlight},
    };
}

} // namespace cooldown
