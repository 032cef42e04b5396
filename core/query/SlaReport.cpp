// SPDX-License-Identifier: Apache-2.0
#include "core/query/SlaReport.h"

#include "core/query/QueryStore.h"
#include "core/store/LatencyBuckets.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHash>
#include <QSet>

#include <algorithm>
#include <functional>
#include <map>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::report)
};

constexpr qint64 kMinuteMs = 60000;
constexpr qint64 kHourMs = 60 * kMinuteMs;
constexpr qint64 kDayMs = 24 * kHourMs;

qint64 floorTo(qint64 ms, qint64 step)
{
    return ms - ((ms % step) + step) % step;
}

// The sums of one minute, hour or day of one endpoint.
struct Cell
{
    qint64 lengthMs = kDayMs;
    qint64 succeeded = 0;
    qint64 failed = 0;
    qint64 throttledSucceeded = 0;
    qint64 degraded = 0;
    qint64 attempts = 0;
    qint64 answered429 = 0;
    QMap<QString, qint64> reasons;

    void add(const ReportSum &sum)
    {
        attempts += sum.count;
        if (sum.statusClass == QLatin1String("429"))
            answered429 += sum.count;
        if (sum.decision == QLatin1String("success")) {
            succeeded += sum.count;
            if (sum.reason == QLatin1String("degraded"))
                degraded += sum.count;
        } else if (sum.decision == QLatin1String("fail")) {
            failed += sum.count;
            reasons[sum.reason] += sum.count;
        } else if (sum.decision == QLatin1String("park")) {
            failed += sum.count;
            reasons[QStringLiteral("parked")] += sum.count;
        }
    }
};

// Per endpoint, its cells by start.
using Cells = std::map<qint64, Cell>;

// The rule's numerator and denominator for a cell.
std::pair<qint64, qint64> ruleCounts(const Cell &c, ThrottledRule rule)
{
    switch (rule) {
    case ThrottledRule::AsSuccess:
        return {c.succeeded, c.succeeded + c.failed};
    case ThrottledRule::AsFailure:
        return {c.succeeded - c.throttledSucceeded, c.succeeded + c.failed};
    case ThrottledRule::Exclude:
        break;
    }
    return {c.succeeded - c.throttledSucceeded, c.succeeded - c.throttledSucceeded + c.failed};
}

// How many minute starts of [startMs, startMs + lengthMs) lie in the intervals.
qint64 minutesCovered(const QList<SlaInterval> &intervals, qint64 startMs, qint64 lengthMs)
{
    qint64 covered = 0;
    for (const SlaInterval &i : intervals) {
        const qint64 from = std::max(i.startMs, startMs);
        const qint64 to = std::min(i.endMs, startMs + lengthMs);
        if (to <= from)
            continue;
        // Minute starts m with from <= m < to.
        const qint64 first = floorTo(from + kMinuteMs - 1, kMinuteMs);
        if (first < to)
            covered += (to - 1 - first) / kMinuteMs + 1;
    }
    return covered;
}

QList<SlaInterval> mergeIntervals(QList<SlaInterval> list)
{
    std::sort(list.begin(), list.end(),
              [](const SlaInterval &a, const SlaInterval &b) { return a.startMs < b.startMs; });
    QList<SlaInterval> out;
    for (const SlaInterval &i : std::as_const(list)) {
        if (!out.isEmpty() && i.startMs <= out.last().endMs)
            out.last().endMs = std::max(out.last().endMs, i.endMs);
        else
            out.append(i);
    }
    return out;
}

// Where the range lies in days, hours and minutes: [fromMs, toMs) is read as minutes up
// to the first whole hour, hours up to the first whole day (UTC), days, and back.
struct RangeParts
{
    QList<SlaInterval> minutes;
    QList<SlaInterval> hours;
    std::optional<SlaInterval> days;

    RangeParts(qint64 fromMs, qint64 toMs)
    {
        const qint64 h1 = floorTo(fromMs + kHourMs - 1, kHourMs);
        const qint64 h2 = floorTo(toMs, kHourMs);
        if (h1 >= h2) {
            minutes.append({fromMs, toMs});
            return;
        }
        minutes = {{fromMs, h1}, {h2, toMs}};
        const qint64 d1 = floorTo(h1 + kDayMs - 1, kDayMs);
        const qint64 d2 = floorTo(h2, kDayMs);
        if (d1 >= d2) {
            hours.append({h1, h2});
            return;
        }
        hours = {{h1, d1}, {d2, h2}};
        days = SlaInterval{d1, d2};
    }
};

class ReportBuilder
{
public:
    ReportBuilder(QueryStore &store, const SlaRequest &request)
        : m_store(store), m_request(request), m_from(floorTo(request.fromMs, kMinuteMs)),
          m_to(floorTo(request.toMs, kMinuteMs))
    {}

    std::optional<SlaReport> build(QString *error);

private:
    // Cells of bucketMs over [fromMs, toMs) of these endpoints (every wanted one when
    // empty).
    struct Span
    {
        qint64 bucketMs = 0;
        qint64 fromMs = 0;
        qint64 toMs = 0;
        QStringList endpoints;
    };

    bool wanted(const QString &endpointId) const
    {
        return m_request.only.isEmpty() || m_request.only.contains(endpointId);
    }
    bool read(const Span &span);
    bool split(qint64 bucketMs);
    bool readCells(QString *error);
    bool excluded(const QString &endpointId, qint64 startMs, qint64 lengthMs) const;
    void finish(SlaEndpointReport &out, const Cells &cells) const;
    bool findDowntime(SlaEndpointReport &out);
    bool readLatency(QHash<QString, QList<qint64>> *histograms);
    void computeMaintenance();
    QList<SlaEndpointReport> endpointsInOrder() const;
    // Keeps why a read failed, for build() to say; false.
    bool failed(const QString &error)
    {
        m_error = error;
        return false;
    }

    QueryStore &m_store;
    QString m_error;
    const SlaRequest &m_request;
    qint64 m_from;
    qint64 m_to;
    QHash<QString, Cells> m_cells;
    QHash<QString, QList<SlaInterval>> m_maintenance;
};

void ReportBuilder::computeMaintenance()
{
    for (const MaintenanceConfig &m : m_request.maintenance) {
        const QList<SlaInterval> intervals = maintenanceIntervals(m.window, m_from, m_to);
        if (intervals.isEmpty())
            continue;
        for (const QString &id : m.endpointIds)
            m_maintenance[id] += intervals;
    }
    for (auto it = m_maintenance.begin(); it != m_maintenance.end(); ++it)
        it.value() = mergeIntervals(it.value());
}

bool ReportBuilder::excluded(const QString &endpointId, qint64 startMs, qint64 lengthMs) const
{
    if (m_request.maintenanceRule == MaintenanceRule::Include)
        return false;
    const auto it = m_maintenance.constFind(endpointId);
    if (it == m_maintenance.constEnd())
        return false;
    // A minute counts as maintenance when it starts inside a window; an hour or a day
    // when every minute of it does (split() reads the others by finer cells).
    return minutesCovered(it.value(), startMs, lengthMs) == lengthMs / kMinuteMs;
}

bool ReportBuilder::read(const Span &span)
{
    if (span.toMs <= span.fromMs)
        return true;
    const QStringList &endpoints = span.endpoints.isEmpty() ? m_request.only : span.endpoints;
    const auto cell = [&](const ReportSum &sum) -> Cell & {
        Cell &c = m_cells[sum.endpointId][sum.atMs];
        c.lengthMs = span.bucketMs;
        return c;
    };
    const StoreResult<void> sums = m_store.forEachReportSum(span.bucketMs, span.fromMs, span.toMs,
                                                            endpoints, [&](const ReportSum &sum) {
                                                                if (wanted(sum.endpointId))
                                                                    cell(sum).add(sum);
                                                                return true;
                                                            });
    if (!sums)
        return failed(sums.error());
    const StoreResult<void> throttled = m_store.forEachThrottledSuccess(
        span.bucketMs, span.fromMs, span.toMs, endpoints, [&](const ReportSum &sum) {
            if (wanted(sum.endpointId))
                cell(sum).throttledSucceeded += sum.count;
            return true;
        });
    return throttled || failed(throttled.error());
}

bool ReportBuilder::split(qint64 bucketMs)
{
    // Cells of bucketMs that a maintenance window covers in part are read again in the
    // next finer cells, for the endpoints they belong to, in runs of consecutive cells
    // that need the same endpoints; so that the minutes it covers are left out and no
    // other.
    if (m_request.maintenanceRule == MaintenanceRule::Include)
        return true;
    const qint64 finer = bucketMs == kDayMs ? kHourMs : kMinuteMs;
    std::map<qint64, QStringList> needed;
    for (auto it = m_cells.begin(); it != m_cells.end(); ++it) {
        const QList<SlaInterval> windows = m_maintenance.value(it.key());
        for (auto cell = it.value().begin(); cell != it.value().end();) {
            const qint64 covered = minutesCovered(windows, cell->first, bucketMs);
            if (cell->second.lengthMs == bucketMs && covered > 0 &&
                covered < bucketMs / kMinuteMs) {
                needed[cell->first].append(it.key());
                cell = it.value().erase(cell);
            } else {
                ++cell;
            }
        }
    }
    QList<Span> spans;
    for (auto &[start, endpoints] : needed) {
        endpoints.sort();
        if (!spans.isEmpty() && spans.last().toMs == start && spans.last().endpoints == endpoints)
            spans.last().toMs += bucketMs;
        else
            spans.append({finer, start, start + bucketMs, endpoints});
    }
    for (const Span &span : std::as_const(spans)) {
        if (!read(span))
            return false;
    }
    return true;
}

bool ReportBuilder::readCells(QString *error)
{
    const RangeParts parts(m_from, m_to);
    bool ok = true;
    if (parts.days)
        ok = read({kDayMs, parts.days->startMs, parts.days->endMs, {}}) && split(kDayMs);
    for (const SlaInterval &hours : parts.hours)
        ok = ok && read({kHourMs, hours.startMs, hours.endMs, {}});
    ok = ok && split(kHourMs);
    for (const SlaInterval &minutes : parts.minutes)
        ok = ok && read({kMinuteMs, minutes.startMs, minutes.endMs, {}});
    if (!ok)
        *error = m_error;
    return ok;
}

bool ReportBuilder::findDowntime(SlaEndpointReport &out)
{
    // Down minutes: an attempt that counts did not succeed, and none succeeded. Minutes
    // without such attempts take no side (they join two down minutes); a minute with a
    // success, or a maintenance window left out, ends a run. Each failed minute comes
    // with the endpoint's next success, which tells whether one lies before the next
    // down minute.
    const bool exclude = m_request.maintenanceRule == MaintenanceRule::Exclude;
    const StoreResult<QList<FailureMinute>> failures = m_store.failureMinutes(
        out.endpointId, m_from, m_to, m_request.throttled == ThrottledRule::AsFailure);
    if (!failures)
        return failed(failures.error());
    bool open = false;
    qint64 nextSuccess = -1; // after the run's last down minute
    for (const FailureMinute &f : *failures) {
        if (excluded(out.endpointId, f.minuteAtMs, kMinuteMs))
            continue;
        if (f.succeeded > 0) {
            open = false;
            continue;
        }
        if (open && nextSuccess >= 0 && nextSuccess < f.minuteAtMs)
            open = false;
        if (open && exclude) {
            const qint64 after = out.downtime.last().endMs;
            open = minutesCovered(out.maintenance, after, f.minuteAtMs - after) == 0;
        }
        if (open)
            out.downtime.last().endMs = f.minuteAtMs + kMinuteMs;
        else
            out.downtime.append({f.minuteAtMs, f.minuteAtMs + kMinuteMs});
        open = true;
        nextSuccess = f.nextSuccessAtMs;
    }
    return true;
}

void ReportBuilder::finish(SlaEndpointReport &out, const Cells &cells) const
{
    std::map<QDate, SlaDay> days;
    for (const auto &[start, cell] : cells) {
        if (excluded(out.endpointId, start, cell.lengthMs))
            continue;
        out.succeeded += cell.succeeded;
        out.failed += cell.failed;
        out.throttledSucceeded += cell.throttledSucceeded;
        out.degraded += cell.degraded;
        out.attempts += cell.attempts;
        out.answered429 += cell.answered429;
        for (auto it = cell.reasons.cbegin(); it != cell.reasons.cend(); ++it)
            out.failuresByReason[it.key()] += it.value();
        const auto [available, counted] = ruleCounts(cell, m_request.throttled);
        out.available += available;
        out.counted += counted;
        // Days are UTC days: the daily rollups are.
        const QDate date = QDateTime::fromMSecsSinceEpoch(start, QTimeZone::utc()).date();
        SlaDay &day = days[date];
        day.date = date;
        day.available += available;
        day.counted += counted;
    }
    for (const auto &[date, day] : days)
        out.days.append(day);
}

bool ReportBuilder::readLatency(QHash<QString, QList<qint64>> *histograms)
{
    // The hours that start in the range (the first taken down to its hour): whole days
    // from the daily histogram, the hours around them from the hourly one.
    const RangeParts parts(floorTo(m_from, kHourMs), m_to);
    QList<std::pair<qint64, SlaInterval>> reads;
    if (parts.days)
        reads.append({kDayMs, *parts.days});
    for (const SlaInterval &hours : parts.hours)
        reads.append({kHourMs, hours});
    // The range taken down to its hour has no minutes before its first hour.
    for (const SlaInterval &minutes : parts.minutes)
        reads.append({kHourMs, {floorTo(minutes.startMs, kHourMs), minutes.endMs}});
    for (const auto &[bucketMs, interval] : reads) {
        if (interval.endMs <= interval.startMs)
            continue;
        const StoreResult<QList<LatencyCount>> counts =
            m_store.latencyCounts(bucketMs, interval.startMs, interval.endMs);
        if (!counts)
            return failed(counts.error());
        for (const LatencyCount &c : *counts) {
            if (!wanted(c.endpointId) || c.bucket < 0 || c.bucket >= latency::bucketCount())
                continue;
            QList<qint64> &histogram = (*histograms)[c.endpointId];
            histogram.resize(latency::bucketCount());
            histogram[c.bucket] += c.attempts;
        }
    }
    return true;
}

QList<SlaEndpointReport> ReportBuilder::endpointsInOrder() const
{
    QList<SlaEndpointReport> out;
    QSet<QString> listed;
    const auto add = [&](const QString &id) {
        if (listed.contains(id) || !wanted(id))
            return;
        listed.insert(id);
        SlaEndpointReport e;
        e.endpointId = id;
        for (const SlaEndpoint &known : m_request.endpoints) {
            if (known.id == id) {
                e.name = known.name;
                e.slaTarget = known.slaTarget;
            }
        }
        out.append(e);
    };
    for (const QString &id : m_request.only)
        add(id);
    for (const SlaEndpoint &known : m_request.endpoints)
        add(known.id);
    QStringList seen = m_cells.keys();
    seen.sort();
    for (const QString &id : std::as_const(seen))
        add(id);
    return out;
}

std::optional<SlaReport> ReportBuilder::build(QString *error)
{
    computeMaintenance();
    QHash<QString, QList<qint64>> histograms;
    if (!readCells(error))
        return std::nullopt;
    if (!readLatency(&histograms)) {
        *error = m_error;
        return std::nullopt;
    }
    SlaReport report;
    report.fromMs = m_from;
    report.toMs = m_to;
    report.throttled = m_request.throttled;
    report.maintenanceRule = m_request.maintenanceRule;
    report.endpoints = endpointsInOrder();
    for (SlaEndpointReport &e : report.endpoints) {
        e.maintenance = m_maintenance.value(e.endpointId);
        finish(e, m_cells.value(e.endpointId));
        if (!findDowntime(e)) {
            *error = m_error;
            return std::nullopt;
        }
        const QList<qint64> histogram = histograms.value(e.endpointId);
        for (const qint64 n : histogram)
            e.latencySamples += n;
        const auto bound = [](std::optional<int> bucket) -> std::optional<qint64> {
            if (!bucket)
                return std::nullopt;
            // The open bucket past an hour shows as its lower bound and a millisecond.
            return latency::upperBoundMs(*bucket).value_or(
                *latency::upperBoundMs(latency::bucketCount() - 2) + 1);
        };
        e.p50Ms = bound(latency::percentileBucket(histogram, 50));
        e.p95Ms = bound(latency::percentileBucket(histogram, 95));
    }
    return report;
}

} // namespace

std::optional<double> SlaEndpointReport::availabilityPercent() const
{
    if (counted <= 0)
        return std::nullopt;
    return 100.0 * double(available) / double(counted);
}

std::optional<double> SlaEndpointReport::share429Percent() const
{
    if (attempts <= 0)
        return std::nullopt;
    return 100.0 * double(answered429) / double(attempts);
}

qint64 SlaEndpointReport::downtimeMs() const
{
    qint64 total = 0;
    for (const SlaInterval &i : downtime)
        total += i.durationMs();
    return total;
}

std::optional<bool> SlaEndpointReport::targetMet() const
{
    const std::optional<double> availability = availabilityPercent();
    if (slaTarget < 0 || !availability)
        return std::nullopt;
    return *availability >= slaTarget;
}

QString SlaReport::ruleText() const
{
    QString text = Text::tr("Availability is the share of operations (for periodic endpoints, of "
                            "checks) that ended succeeded, of those that ended succeeded, failed "
                            "or parked.");
    switch (throttled) {
    case ThrottledRule::AsSuccess:
        text += QLatin1Char(' ') + Text::tr("An operation that succeeded after a 429 or 503 "
                                            "counts as succeeded.");
        break;
    case ThrottledRule::AsFailure:
        text += QLatin1Char(' ') + Text::tr("An operation that succeeded only after a 429 or "
                                            "503 counts as not available.");
        break;
    case ThrottledRule::Exclude:
        text += QLatin1Char(' ') + Text::tr("Operations that succeeded after a 429 or 503 are "
                                            "left out.");
        break;
    }
    text += QLatin1Char(' ') +
            (maintenanceRule == MaintenanceRule::Exclude
                 ? Text::tr("Time inside the workspace's maintenance windows is left out.")
                 : Text::tr("Time inside the workspace's maintenance windows counts."));
    text += QLatin1Char(' ') + Text::tr("Exchanges that found no network (the machine offline) "
                                        "are left out: they say nothing of the endpoint.");
    return text;
}

std::optional<SlaReport> buildSlaReport(QueryStore &store, const SlaRequest &request,
                                        QString *error)
{
    return ReportBuilder(store, request).build(error);
}

QList<SlaInterval> maintenanceIntervals(const MaintenanceWindow &window, qint64 fromMs, qint64 toMs)
{
    QList<SlaInterval> out;
    qint64 at = fromMs;
    // A window's stretches follow each other; the bound only guards a broken rule.
    for (int guard = 0; at < toMs && guard < 100000; ++guard) {
        if (const std::optional<qint64> until = window.until(at)) {
            const qint64 end = std::min(*until, toMs);
            if (end <= at)
                break;
            out.append({at, end});
            at = end;
            continue;
        }
        const std::optional<qint64> next = window.nextStart(at);
        if (!next || *next >= toMs || *next <= at)
            break;
        at = *next;
    }
    return mergeIntervals(out);
}

SlaInterval previousCalendarMonth(qint64 nowMs, const QTimeZone &zone)
{
    const QDate today = QDateTime::fromMSecsSinceEpoch(nowMs, zone).date();
    const QDate thisMonth(today.year(), today.month(), 1);
    const QDate lastMonth = thisMonth.addMonths(-1);
    return {QDateTime(lastMonth, QTime(0, 0), zone).toMSecsSinceEpoch(),
            QDateTime(thisMonth, QTime(0, 0), zone).toMSecsSinceEpoch()};
}

QString throttledRuleName(ThrottledRule rule)
{
    switch (rule) {
    case ThrottledRule::AsSuccess:
        return QStringLiteral("as-success");
    case ThrottledRule::AsFailure:
        return QStringLiteral("as-failure");
    case ThrottledRule::Exclude:
        break;
    }
    return QStringLiteral("exclude");
}

std::optional<ThrottledRule> throttledRuleFromName(const QString &name)
{
    for (const ThrottledRule rule :
         {ThrottledRule::AsSuccess, ThrottledRule::AsFailure, ThrottledRule::Exclude}) {
        if (throttledRuleName(rule) == name)
            return rule;
    }
    return std::nullopt;
}

QString maintenanceRuleName(MaintenanceRule rule)
{
    return rule == MaintenanceRule::Exclude ? QStringLiteral("exclude") : QStringLiteral("include");
}

std::optional<MaintenanceRule> maintenanceRuleFromName(const QString &name)
{
    if (name == QLatin1String("exclude"))
        return MaintenanceRule::Exclude;
    if (name == QLatin1String("include"))
        return MaintenanceRule::Include;
    return std::nullopt;
}

} // namespace cooldown
