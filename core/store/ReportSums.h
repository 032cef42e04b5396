// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/ReportRecords.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace cooldown {

class Database;

// The store's part for the reads of the SLA report (docs/report.md): the rollups summed
// per day, hour or minute, the latency histogram and the minutes an endpoint failed.
// Reads only; every call runs on the store's connection, false or nullopt on failure
// with why in the store's lastError().
class ReportSums final
{
public:
    explicit ReportSums(Database &database) : m_db(database) {}

    // bucketMs picks the table: 60000 the minutes, 3600000 the hours, 86400000 the days
    // (UTC). The rollups whose time is in [fromMs, toMs), of the endpoints listed (every
    // endpoint when none is), summed per time, endpoint, status class, decision and
    // reason.
    bool forEach(qint64 bucketMs, qint64 fromMs, qint64 toMs, const QStringList &endpoints,
                 const std::function<bool(const ReportSum &)> &visit);
    // The operations that succeeded after a 429 or 503, per time and endpoint.
    bool forEachThrottledSuccess(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                 const QStringList &endpoints,
                                 const std::function<bool(const ReportSum &)> &visit);
    // The latency histogram of the hours (bucketMs 3600000) or days (86400000) that start
    // in [fromMs, toMs), summed per endpoint and bucket.
    std::optional<QList<LatencyCount>> latencyCounts(qint64 bucketMs, qint64 fromMs, qint64 toMs);
    // The endpoint's minutes in [fromMs, toMs) with an attempt that failed, was retried
    // or parked, not counting those answered 429 or 503 unless throttledToo; in order.
    // Read through attempt_rollups_by_endpoint: the cost follows the endpoint's failures.
    std::optional<QList<FailureMinute>> failureMinutes(const QString &endpointId, qint64 fromMs,
                                                       qint64 toMs, bool throttledToo);

private:
    Database &m_db;
};

} // namespace cooldown
