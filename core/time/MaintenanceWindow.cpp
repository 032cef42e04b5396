// SPDX-License-Identifier: Apache-2.0
#include "core/time/MaintenanceWindow.h"

#include <QDate>
#include <QDateTime>

#include <algorithm>

namespace cooldown {

namespace {

constexpr qint64 kDayMs = 24 * 60 * 60 * 1000;
// A window that never ends (every day, for a day or more) is said to last this long.
constexpr qint64 kHorizonMs = 366 * kDayMs;
// The most occurrences until() follows a stretch of touching ones over.
constexpr int kStretchSteps = 2000;

qint64 offsetAtMs(const QTimeZone &zone, qint64 utcMs)
{
    return qint64(zone.offsetFromUtc(QDateTime::fromMSecsSinceEpoch(utcMs, Qt::UTC))) * 1000;
}

QDate localDate(const QTimeZone &zone, qint64 utcMs)
{
    return QDateTime::fromMSecsSinceEpoch(utcMs, zone).date();
}

} // namespace

qint64 MaintenanceWindow::localToUtcMs(const QDate &date, const QTime &time, const QTimeZone &zone)
{
    // The wall-clock reading as if it were UTC; the zone's offset a day either side of
    // it are the offsets that can apply (no zone changes its clocks twice in two days).
    const qint64 wall = QDateTime(date, time, Qt::UTC).toMSecsSinceEpoch();
    const qint64 before = offsetAtMs(zone, wall - kDayMs);
    const qint64 after = offsetAtMs(zone, wall + kDayMs);
    std::optional<qint64> first;
    for (const qint64 offset : {before, after}) {
        const qint64 utc = wall - offset;
        if (offsetAtMs(zone, utc) == offset && (!first || utc < *first))
            first = utc;
    }
    // Neither holds: the clocks skipped this reading. With the offset before the jump
    // it stands for an instant as much later as they jumped.
    return first ? *first : wall - before;
}

QList<QTime> MaintenanceWindow::startsOn(const QDate &date) const
{
    if (kind == Kind::Weekly)
        return days.contains(date.dayOfWeek()) ? QList<QTime>{start} : QList<QTime>{};
    if (kind == Kind::Cron && cron.matchesDate(date))
        return cron.timesOfDay();
    return {};
}

bool MaintenanceWindow::recurs() const
{
    if (durationMs <= 0)
        return false;
    if (kind == Kind::Weekly)
        return !days.isEmpty() && start.isValid();
    return kind == Kind::Cron && !cron.timesOfDay().isEmpty();
}

QList<qint64> MaintenanceWindow::startsOnUtc(const QDate &date) const
{
    const QList<QTime> times = startsOn(date);
    QList<qint64> out;
    out.reserve(times.size());
    // Most days no clock changes within a day either side of them, and every start
    // of the day is its reading less the one offset (as localToUtcMs would find).
    const qint64 midnight = QDateTime(date, QTime(0, 0), Qt::UTC).toMSecsSinceEpoch();
    const qint64 offset = offsetAtMs(zone, midnight - kDayMs);
    const bool steady = times.size() > 1 && offsetAtMs(zone, midnight + 2 * kDayMs) == offset;
    for (const QTime &time : times) {
        out.append(steady ? midnight + time.msecsSinceStartOfDay() - offset
                          : localToUtcMs(date, time, zone));
    }
    return out;
}

std::optional<std::pair<qint64, qint64>> MaintenanceWindow::occurrenceAt(qint64 atMs) const
{
    if (!recurs())
        return std::nullopt;
    // Every occurrence lasts as long, so the one that ends last is the one that started
    // last: the latest start at or before atMs, among the days the duration (and a day
    // of offsets) reaches back over. Starts of a later date are later, but for a day
    // the clocks change on; so the search goes back a day at a time and stops a day
    // after the first date that has one.
    const QDate today = localDate(zone, atMs);
    const qint64 back = std::min<qint64>(durationMs / kDayMs + 2, 400);
    std::optional<qint64> latest;
    std::optional<qint64> foundOn;
    for (qint64 i = 1; i >= -back && (!foundOn || i >= *foundOn - 1); --i) {
        for (const qint64 from : startsOnUtc(today.addDays(i))) {
            if (from <= atMs && (!latest || from > *latest)) {
                latest = from;
                foundOn = foundOn.value_or(i);
            }
        }
    }
    if (!latest || atMs >= *latest + durationMs)
        return std::nullopt;
    return std::make_pair(*latest, *latest + durationMs);
}

std::optional<qint64> MaintenanceWindow::until(qint64 nowMs) const
{
    if (kind == Kind::OneOff) {
        if (fromMs <= nowMs && nowMs < toMs)
            return toMs;
        return std::nullopt;
    }
    std::optional<std::pair<qint64, qint64>> occurrence = occurrenceAt(nowMs);
    if (!occurrence)
        return std::nullopt;
    qint64 end = occurrence->second;
    // Windows that touch or overlap are one stretch. A schedule that starts every few
    // minutes may make one that lasts for months: it is followed for so many starts,
    // and whoever holds for it looks again at its end.
    for (int step = 0; end - nowMs < kHorizonMs && step < kStretchSteps; ++step) {
        occurrence = occurrenceAt(end);
        if (!occurrence || occurrence->second <= end)
            break;
        end = occurrence->second;
    }
    return std::min(end, nowMs + kHorizonMs);
}

std::optional<qint64> MaintenanceWindow::nextStart(qint64 nowMs) const
{
    if (kind == Kind::OneOff) {
        if (fromMs > nowMs && toMs > fromMs)
            return fromMs;
        return std::nullopt;
    }
    if (!recurs())
        return std::nullopt;
    // A week and a day for a weekly window; a schedule may name a date years apart
    // (the 29th of February comes at most eight years apart).
    const int lastDay = kind == Kind::Weekly ? 8 : 8 * 366 + 1;
    const QDate today = localDate(zone, nowMs);
    std::optional<qint64> next;
    for (int i = -1; i <= lastDay; ++i) {
        for (const qint64 from : startsOnUtc(today.addDays(i))) {
            if (from > nowMs && (!next || from < *next))
                next = from;
        }
        // A later date starts later: no offset moves a start by a day.
        if (next && i >= 1)
            break;
    }
    return next;
}

} // namespace cooldown
