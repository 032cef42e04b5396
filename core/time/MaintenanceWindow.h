// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/time/CronRule.h"

#include <QList>
#include <QString>
#include <QTime>
#include <QTimeZone>

#include <optional>

class QDate;

namespace cooldown {

// When a partner's maintenance window stands, in the time zone the partner announced it
// in: one-off (from, to), weekly (days, a local start time and a duration) or by a
// crontab schedule (the local dates and times it starts at, and a duration). Pure
// arithmetic on instants (UTC milliseconds), so that a test can check it against
// another implementation of the time-zone rules (tests/time/tst_maintenancewindow.cpp).
//
// The rules:
// - A weekly window starts at its local start time on each of its days (a cron window
//   at each local date and time its schedule matches), and lasts its
//   duration of elapsed time: "Saturday 22:00 for 8 h" ends at 06:00 on Sunday, or at
//   05:00 or 07:00 by the clock on a night the clocks change.
// - A start time the clocks skip (02:30 on the night they go forward) is read with the
//   offset before the change, so the window starts as much later as the clocks
//   jumped (03:30); a start time that happens twice (the night they go back) is its
//   first occurrence.
// - Windows that touch or overlap are one: until() is the end of the whole stretch.
//   Days may repeat the start across midnight, and a duration may exceed a day. So
//   "every day from 00:00 for 24 h" leaves open the hour the clocks give back; 25 h
//   covers it.
struct MaintenanceWindow
{
    enum class Kind
    {
        OneOff,
        Weekly,
        Cron,
    };

    Kind kind = Kind::OneOff;
    QTimeZone zone;
    // One-off: [fromMs, toMs).
    qint64 fromMs = 0;
    qint64 toMs = 0;
    // Weekly: days as Qt numbers them (1 Monday … 7 Sunday), a local start time, and a
    // duration of elapsed time.
    QList<int> days;
    QTime start;
    // Cron: the schedule; its duration is durationMs.
    CronRule cron;
    qint64 durationMs = 0;

    // Whether the window stands at nowMs, and if so until when (the end of the whole
    // stretch of touching windows, at most a year ahead for one that never ends).
    std::optional<qint64> until(qint64 nowMs) const;
    // The first start after nowMs (none for a one-off window that has begun).
    std::optional<qint64> nextStart(qint64 nowMs) const;

    // The instant a local date and time in zone stands for, by the rules above.
    static qint64 localToUtcMs(const QDate &date, const QTime &time, const QTimeZone &zone);

private:
    // The local times a recurring window starts at on a date (none on other dates).
    QList<QTime> startsOn(const QDate &date) const;
    // The same as instants, by localToUtcMs's rules.
    QList<qint64> startsOnUtc(const QDate &date) const;
    bool recurs() const;
    // The recurring occurrence that contains atMs, as [start, end); the latest ending.
    std::optional<std::pair<qint64, qint64>> occurrenceAt(qint64 atMs) const;
};

} // namespace cooldown
