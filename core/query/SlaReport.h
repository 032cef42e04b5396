// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/MaintenanceConfig.h"

#include <QDate>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QTimeZone>

#include <optional>

namespace cooldown {

class QueryStore;

// The SLA report (docs/report.md): how each integration did over a range, read from the
// rollups only (minutes, hours, the latency histogram and the throttled successes), so
// that a year costs about as much as its hours.

// What an operation that succeeded only after a 429 or 503 counts as.
enum class ThrottledRule
{
    AsSuccess, // it succeeded (the default)
    AsFailure, // the partner made us wait: not available
    Exclude,   // neither
};

// Whether the time inside the workspace's maintenance windows counts.
enum class MaintenanceRule
{
    Exclude, // left out of numerator and denominator, and listed (the default)
    Include,
};

// An endpoint as the workspace names it.
struct SlaEndpoint
{
    QString id;
    QString name;
    double slaTarget = -1; // percent; -1: none
};

struct SlaRequest
{
    qint64 fromMs = 0; // [fromMs, toMs), each taken down to its minute
    qint64 toMs = 0;
    // The workspace's endpoints (names, targets); the report covers them and every
    // other endpoint with attempts in the range, or only `only` when it is not empty.
    QList<SlaEndpoint> endpoints;
    QStringList only;
    QList<MaintenanceConfig> maintenance;
    ThrottledRule throttled = ThrottledRule::AsSuccess;
    MaintenanceRule maintenanceRule = MaintenanceRule::Exclude;
};

struct SlaInterval
{
    qint64 startMs = 0;
    qint64 endMs = 0;
    qint64 durationMs() const { return endMs - startMs; }
};

// A UTC day of the report: the daily rollups are per UTC day.
struct SlaDay
{
    QDate date;
    qint64 counted = 0;
    qint64 available = 0;
};

struct SlaEndpointReport
{
    QString endpointId;
    QString name;
    double slaTarget = -1;
    qint64 succeeded = 0;          // operations that ended succeeded
    qint64 failed = 0;             // operations that ended failed or parked
    qint64 throttledSucceeded = 0; // of the succeeded, those after a 429 or 503
    qint64 degraded = 0;           // successful attempts over their latency budget
    qint64 available = 0;          // the rule's numerator
    qint64 counted = 0;            // and denominator
    qint64 attempts = 0;           // every attempt, lease conflicts left out
    qint64 answered429 = 0;
    QMap<QString, qint64> failuresByReason; // "parked" for operations parked
    QList<SlaInterval> downtime;
    QList<SlaInterval> maintenance; // left out (MaintenanceRule::Exclude) or not
    qint64 latencySamples = 0;      // answered attempts in the histogram
    std::optional<qint64> p50Ms;    // upper bound of the bucket (docs/report.md)
    std::optional<qint64> p95Ms;
    QList<SlaDay> days;

    std::optional<double> availabilityPercent() const;
    std::optional<double> share429Percent() const;
    qint64 downtimeMs() const;
    // Empty when there is no target or nothing counted.
    std::optional<bool> targetMet() const;
};

struct SlaReport
{
    qint64 fromMs = 0;
    qint64 toMs = 0;
    ThrottledRule throttled = ThrottledRule::AsSuccess;
    MaintenanceRule maintenanceRule = MaintenanceRule::Exclude;
    QList<SlaEndpointReport> endpoints;

    // The rule the availability follows, in words, for the report's head.
    QString ruleText() const;
};

// The report, or empty with *error when the store could not be read.
std::optional<SlaReport> buildSlaReport(QueryStore &store, const SlaRequest &request,
                                        QString *error);

// The times a window stands within [fromMs, toMs), clipped to it, in order.
QList<SlaInterval> maintenanceIntervals(const MaintenanceWindow &window, qint64 fromMs,
                                        qint64 toMs);

// The calendar month before the one nowMs falls in, in zone: the report's default range.
SlaInterval previousCalendarMonth(qint64 nowMs, const QTimeZone &zone);

// Option words as the command line spells them (as-success, exclude, ...).
QString throttledRuleName(ThrottledRule rule);
std::optional<ThrottledRule> throttledRuleFromName(const QString &name);
QString maintenanceRuleName(MaintenanceRule rule);
std::optional<MaintenanceRule> maintenanceRuleFromName(const QString &name);

} // namespace cooldown
