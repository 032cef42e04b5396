// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QString>
#include <QTime>

#include <bitset>
#include <variant>

class QDate;

namespace cooldown {

// A crontab schedule, as crontab(5) writes it: five fields, minute (0-59), hour (0-23),
// day of month (1-31), month (1-12 or jan-dec) and day of week (0-7 or sun-sat, 0 and 7
// both Sunday). Each field is "*", a number, a range "a-b", a step "*/n" or "a-b/n",
// or a list of those separated by commas. As in cron, when both the day of month and
// the day of week are restricted, a day matches if either does ("0 4 1,15 * fri": the
// 1st, the 15th and every Friday).
//
// Pure: it says which local dates and times match. The time zone, and what a time the
// clocks skip or repeat stands for, are MaintenanceWindow's.
class CronRule
{
public:
    // The rule, or what is wrong with it, naming the field ("day of week: expected a
    // day 0-7 or sun-sat, got 'fry'"). A rule that no date can match ("0 0 31 feb *")
    // is refused too.
    static std::variant<CronRule, QString> parse(const QString &text);

    bool matchesDate(const QDate &date) const;
    // The times of day it starts at on a matching date, earliest first (read once, at
    // parse: the window asks for them on every date it looks at).
    const QList<QTime> &timesOfDay() const { return m_times; }
    // As written, for messages.
    QString text() const { return m_text; }

private:
    QList<QTime> m_times;
    std::bitset<32> m_daysOfMonth; // 1-31
    std::bitset<13> m_months;      // 1-12
    std::bitset<7> m_daysOfWeek;   // 0 Sunday - 6 Saturday
    bool m_dayOfMonthRestricted = false;
    bool m_dayOfWeekRestricted = false;
    QString m_text;
};

} // namespace cooldown
