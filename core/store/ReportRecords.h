// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QtGlobal>

namespace cooldown {

// A sum of the rollups as the SLA report reads them (docs/report.md): the attempts of
// one endpoint in one minute or hour with one status class, decision and reason.
// For the throttled successes only atMs, endpointId and count are set (operations).
struct ReportSum
{
    qint64 atMs = 0;
    QString endpointId;
    QString statusClass;
    QString decision;
    QString reason;
    qint64 count = 0;
};

// How many answered attempts of an endpoint fell in one latency bucket
// (core/store/LatencyBuckets.h).
struct LatencyCount
{
    QString endpointId;
    int bucket = 0;
    qint64 attempts = 0;
};

} // namespace cooldown
