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

// One minute of an endpoint in which some attempt did not succeed: its attempts that
// failed, were retried or parked (throttled: those answered 429 or 503), its successful
// attempts, lease conflicts left out; and the endpoint's next minute with a success
// (-1: none before the end of the range read).
struct FailureMinute
{
    qint64 minuteAtMs = 0;
    qint64 failed = 0;
    qint64 throttled = 0;
    qint64 succeeded = 0;
    qint64 nextSuccessAtMs = -1;
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
