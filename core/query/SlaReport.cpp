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

qint64 floorTo(qint64 ms, qint64 step)
{
    return ms - ((ms % step) + step) % step;
}

// The sums of one minute or hour of one endpoint.
struct Cell
{
    qint64 lengthMs = kHourMs;
    qint64 succeeded = 0;
    qint64 failed = 0;
    qint64 throttledSucceeded = 0;
    qint64 degraded = 0;
    qint64 attempts = 0;
    qint64 answered429 = 0;
    qint64 judged = 0; // attempts that say whether the endpoint was up (downtime)
    QMap<QString, qint64> reasons;

    void add(const ReportSum &sum, ThrottledRule rule)
    {
        attempts += sum.count;
        const bool throttled =
            sum.statusClass == QLatin1String("429") || sum.statusClass == QLatin1String("503");
        if (sum.statusClass == QLatin1String("429"))
            answered429 += sum.count;
        if (!throttled || rule == ThrottledRule::AsFailure)
            judged += sum.count;
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
    // Some attempt that counts said the endpoint was not up.
    bool hasTrouble() const { return judged > succeeded; }
    bool isDown() const { return judged > 0 && succeeded == 0; }
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

class ReportBuilder
{
public:
    ReportBuilder(QueryStore &store, const SlaRequest &request)
        : m_store(store), m_request(request), m_from(floorTo(request.fromMs, kMinuteMs)),
          m_to(floorTo(request.toMs, kMinuteMs))
    {}

    std::optional<SlaReport> build(QString *error);

private:
    bool wanted(const QString &endpointId) const
    {
        return m_request.only.isEmpty() || m_request.only.contains(endpointId);
    }
    // Minutes of [fromMs, toMs) of these endpoints (every one when empty).
    struct MinuteSpan
    {
        qint64 fromMs = 0;
        qint64 toMs = 0;
        QStringList endpoints;
    };
    bool readHours(qint64 from, qint64 to);
    bool readMinutes();
    bool readMinuteSpan(const MinuteSpan &span, const std::function<bool(const ReportSum &)> &keep);
    QSet<qint64> hoursNeedingMinutes(const QString &endpointId, const Cells &cells) const;
    bool excluded(const QString &endpointId, qint64 startMs, qint64 lengthMs) const;
    void finish(SlaEndpointReport &out, const Cells &cells) const;
    void findDowntime(SlaEndpointReport &out, const Cells &cells) const;
    bool readLatency(QHash<QString, QList<qint64>> *histograms);
    void computeMaintenance();
    QList<SlaEndpointReport> endpointsInOrder() const;

    QueryStore &m_store;
    const SlaRequest &m_request;
    qint64 m_from;
    qint64 m_to;
    QHash<QString, Cells> m_cells;
    QHash<QString, QList<SlaInterval>> m_maintenance;
    // Per endpoint, the hours read as minutes.
    QHash<QString, QSet<qint64>> m_minuteHours;
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
    // A minute counts as maintenance when it starts inside a window; a whole hour when
    // every minute of it does (hoursNeedingMinutes() splits the others).
    return minutesCovered(it.value(), startMs, lengthMs) == lengthMs / kMinuteMs;
}

bool ReportBuilder::readHours(qint64 from, qint64 to)
{
    if (to <= from)
        return true;
    const ThrottledRule rule = m_request.throttled;
    const bool read =
        m_store.forEachReportSum(true, from, to, m_request.only, [&](const ReportSum &sum) {
            if (wanted(sum.endpointId))
                m_cells[sum.endpointId][sum.atMs].add(sum, rule);
            return true;
        });
    return read && m_store.forEachThrottledSuccess(
                       true, from, to, m_request.only, [&](const ReportSum &sum) {
                           if (wanted(sum.endpointId))
                               m_cells[sum.endpointId][sum.atMs].throttledSucceeded += sum.count;
                           return true;
                       });
}

QSet<qint64> ReportBuilder::hoursNeedingMinutes(const QString &endpointId, const Cells &cells) const
{
    // Hours with trouble, for downtime at minute resolution; hours a maintenance window
    // covers in part, so that the minutes it covers are left out and no other.
    QSet<qint64> hours;
    const QList<SlaInterval> windows = m_request.maintenanceRule == MaintenanceRule::Exclude
                                           ? m_maintenance.value(endpointId)
                                           : QList<SlaInterval>();
    for (const auto &[start, cell] : cells) {
        const qint64 covered = minutesCovered(windows, start, kHourMs);
        if (cell.hasTrouble() || (covered > 0 && covered < 60))
            hours.insert(start);
    }
    return hours;
}

bool ReportBuilder::readMinutes()
{
    // The edges of a range that does not start or end on an hour, for every endpoint;
    // then the hours that need minutes, for the endpoints that need them, in runs of
    // consecutive hours that need the same endpoints.
    const qint64 firstHour = floorTo(m_from + kHourMs - 1, kHourMs);
    const qint64 lastHour = std::max(firstHour, floorTo(m_to, kHourMs));
    std::map<qint64, QStringList> needed;
    for (auto it = m_cells.begin(); it != m_cells.end(); ++it) {
        const QSet<qint64> hours = hoursNeedingMinutes(it.key(), it.value());
        for (const qint64 hour : hours) {
            it.value().erase(hour);
            needed[hour].append(it.key());
        }
        m_minuteHours[it.key()] = hours;
    }
    QList<MinuteSpan> spans;
    if (m_from < std::min(firstHour, m_to))
        spans.append({m_from, std::min(firstHour, m_to), m_request.only});
    for (auto &[hour, endpoints] : needed) {
        endpoints.sort();
        if (!spans.isEmpty() && spans.last().toMs == hour && spans.last().endpoints == endpoints)
            spans.last().toMs += kHourMs;
        else
            spans.append({hour, hour + kHourMs, endpoints});
    }
    if (lastHour < m_to)
        spans.append({lastHour, m_to, m_request.only});
    const auto keep = [&](const ReportSum &sum) {
        if (!wanted(sum.endpointId))
            return false;
        const qint64 hour = floorTo(sum.atMs, kHourMs);
        return hour < firstHour || hour >= lastHour ||
               m_minuteHours.value(sum.endpointId).contains(hour);
    };
    for (const MinuteSpan &span : std::as_const(spans)) {
        if (!readMinuteSpan(span, keep))
            return false;
    }
    return true;
}

bool ReportBuilder::readMinuteSpan(const MinuteSpan &span,
                                   const std::function<bool(const ReportSum &)> &keep)
{
    const ThrottledRule rule = m_request.throttled;
    const auto cell = [&](const ReportSum &sum) -> Cell & {
        Cell &c = m_cells[sum.endpointId][sum.atMs];
        c.lengthMs = kMinuteMs;
        return c;
    };
    return m_store.forEachReportSum(false, span.fromMs, span.toMs, span.endpoints,
                                    [&](const ReportSum &sum) {
                                        if (keep(sum))
                                            cell(sum).add(sum, rule);
                                        return true;
                                    }) &&
           m_store.forEachThrottledSuccess(false, span.fromMs, span.toMs, span.endpoints,
                                           [&](const ReportSum &sum) {
                                               if (keep(sum))
                                                   cell(sum).throttledSucceeded += sum.count;
                                               return true;
                                           });
}

void ReportBuilder::findDowntime(SlaEndpointReport &out, const Cells &cells) const
{
    // Runs of cells in which attempts that count were made and none succeeded; cells
    // without such attempts take no side (they join two down cells), an up cell or a
    // maintenance window left out ends a run.
    std::optional<SlaInterval> run;
    const auto close = [&] {
        if (run)
            out.downtime.append(*run);
        run.reset();
    };
    for (const auto &[start, cell] : cells) {
        if (excluded(out.endpointId, start, cell.lengthMs) || cell.judged == 0)
            continue;
        if (run && m_request.maintenanceRule == MaintenanceRule::Exclude &&
            minutesCovered(out.maintenance, run->endMs, start - run->endMs) > 0)
            close();
        if (!cell.isDown()) {
            close();
            continue;
        }
        if (run)
            run->endMs = start + cell.lengthMs;
        else
            run = SlaInterval{start, start + cell.lengthMs};
    }
    close();
}

void ReportBuilder::finish(SlaEndpointReport &out, const Cells &cells) const
{
    out.maintenance = m_maintenance.value(out.endpointId);
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
        const QDate date = QDateTime::fromMSecsSinceEpoch(start, m_request.zone).date();
        SlaDay &day = days[date];
        day.date = date;
        day.available += available;
        day.counted += counted;
    }
    for (const auto &[date, day] : days)
        out.days.append(day);
    findDowntime(out, cells);
}

bool ReportBuilder::readLatency(QHash<QString, QList<qint64>> *histograms)
{
    // The hours that start in the range, the first taken down to its hour.
    const std::optional<QList<LatencyCount>> counts =
        m_store.latencyCounts(floorTo(m_from, kHourMs), m_to);
    if (!counts)
        return false;
    for (const LatencyCount &c : *counts) {
        if (!wanted(c.endpointId) || c.bucket < 0 || c.bucket >= latency::bucketCount())
            continue;
        QList<qint64> &histogram = (*histograms)[c.endpointId];
        histogram.resize(latency::bucketCount());
        histogram[c.bucket] += c.attempts;
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
    if (!readHours(floorTo(m_from + kHourMs - 1, kHourMs), floorTo(m_to, kHourMs)) ||
        !readMinutes() || !readLatency(&histograms)) {
        *error = m_store.lastError();
        return std::nullopt;
    }
    SlaReport report;
    report.fromMs = m_from;
    report.toMs = m_to;
    report.throttled = m_request.throttled;
    report.maintenanceRule = m_request.maintenanceRule;
    report.endpoints = endpointsInOrder();
    for (SlaEndpointReport &e : report.endpoints) {
        finish(e, m_cells.value(e.endpointId));
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
    text += QLatin1Char(' ') + Text::tr("Time the machine was offline is not tracked yet: "
                                        "it shows as time without attempts.");
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
