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

std::optional<std::pair<qint64, qint64>> MaintenanceWindow::weeklyOccurrenceAt(qint64 atMs) const
{
    if (days.isEmpty() || durationMs <= 0 || !start.isValid())
        return std::nullopt;
    // Occurrences that started up to the duration (and a day of offsets) ago.
    const QDate today = localDate(zone, atMs);
    const qint64 back = std::min<qint64>(durationMs / kDayMs + 2, 400);
    std::optional<std::pair<qint64, qint64>> found;
    for (qint64 i = -back; i <= 1; ++i) {
        const QDate day = today.addDays(i);
        if (!days.contains(day.dayOfWeek()))
            continue;
        const qint64 from = localToUtcMs(day, start, zone);
        const qint64 to = from + durationMs;
        if (from <= atMs && atMs < to && (!found || to > found->second))
            found = std::make_pair(from, to);
    }
    return found;
}

std::optional<qint64> MaintenanceWindow::until(qint64 nowMs) const
{
    if (kind == Kind::OneOff) {
        if (fromMs <= nowMs && nowMs < toMs)
            return toMs;
        return std::nullopt;
    }
    std::optional<std::pair<qint64, qint64>> occurrence = weeklyOccurrenceAt(nowMs);
    if (!occurrence)
        return std::nullopt;
    qint64 end = occurrence->second;
    // Windows that touch or overlap are one stretch.
    while (end - nowMs < kHorizonMs) {
        occurrence = weeklyOccurrenceAt(end);
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
    if (days.isEmpty() || durationMs <= 0 || !start.isValid())
        return std::nullopt;
    const QDate today = localDate(zone, nowMs);
    std::optional<qint64> next;
    for (int i = -1; i <= 8; ++i) {
        const QDate day = today.addDays(i);
        if (!days.contains(day.dayOfWeek()))
            continue;
        const qint64 from = localToUtcMs(day, start, zone);
        if (from > nowMs && (!next || from < *next))
            next = from;
    }
    return next;
}

} // namespace cooldown
