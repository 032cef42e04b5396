// SPDX-License-Identifier: Apache-2.0
#include "core/time/CronRule.h"

#include <QCoreApplication>
#include <QDate>
#include <QRegularExpression>

#include <optional>
#include <vector>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::cron)
};

struct Field
{
    int low;
    int high;
    QStringList names; // names[i] stands for low + i
};

QString fieldName(int index)
{
    switch (index) {
    case 0:
        return Text::tr("minute");
    case 1:
        return Text::tr("hour");
    case 2:
        return Text::tr("day of month");
    case 3:
        return Text::tr("month");
    default:
        return Text::tr("day of week");
    }
}

QString expected(int index)
{
    switch (index) {
    case 0:
        return Text::tr("a minute 0-59");
    case 1:
        return Text::tr("an hour 0-23");
    case 2:
        return Text::tr("a day of the month 1-31");
    case 3:
        return Text::tr("a month 1-12 or jan-dec");
    default:
        return Text::tr("a day 0-7 or sun-sat");
    }
}

const QList<Field> &fields()
{
    static const QList<Field> all{
        {0, 59, {}},
        {0, 23, {}},
        {1, 31, {}},
        {1,
         12,
         {QStringLiteral("jan"), QStringLiteral("feb"), QStringLiteral("mar"),
          QStringLiteral("apr"), QStringLiteral("may"), QStringLiteral("jun"),
          QStringLiteral("jul"), QStringLiteral("aug"), QStringLiteral("sep"),
          QStringLiteral("oct"), QStringLiteral("nov"), QStringLiteral("dec")}},
        {0,
         7,
         {QStringLiteral("sun"), QStringLiteral("mon"), QStringLiteral("tue"),
          QStringLiteral("wed"), QStringLiteral("thu"), QStringLiteral("fri"),
          QStringLiteral("sat")}},
    };
    return all;
}

// One value of a field: a number or (where the field has them) a name.
std::optional<int> readValue(const QString &text, const Field &field)
{
    bool ok = false;
    const int n = text.toInt(&ok);
    if (ok && !text.startsWith(u'+') && !text.startsWith(u'-'))
        return n >= field.low && n <= field.high ? std::optional<int>(n) : std::nullopt;
    const qsizetype named = field.names.indexOf(text.toLower());
    if (named < 0)
        return std::nullopt;
    return field.low + int(named);
}

// The values a field allows, as a bit per value from 0 to field.high; or an error.
std::variant<std::vector<bool>, QString> readField(const QString &text, int index)
{
    const Field &field = fields().at(index);
    std::vector<bool> allowed(size_t(field.high) + 1, false);
    const auto wrong = [&](const QString &part) {
        return Text::tr("%1: expected %2, a range such as 1-5, a step such as */15, or a "
                        "list of them, got '%3'")
            .arg(fieldName(index), expected(index), part);
    };
    for (const QString &part : text.split(u',')) {
        QString range = part;
        int step = 1;
        const qsizetype slash = part.indexOf(u'/');
        if (slash >= 0) {
            bool ok = false;
            step = part.mid(slash + 1).toInt(&ok);
            if (!ok || step < 1 || part.mid(slash + 1).startsWith(u'+'))
                return wrong(part);
            range = part.left(slash);
        }
        int from = field.low;
        int to = field.high;
        if (range != QStringLiteral("*")) {
            const QStringList ends = range.split(u'-');
            if (ends.size() > 2 || ends.first().isEmpty())
                return wrong(part);
            const std::optional<int> a = readValue(ends.first(), field);
            const std::optional<int> b = ends.size() == 2 ? readValue(ends.last(), field) : a;
            if (!a || !b || *b < *a)
                return wrong(part);
            from = *a;
            // "5/15" is from 5 to the end, as cron reads it.
            to = ends.size() == 1 && slash >= 0 ? field.high : *b;
        }
        // A step past the field's end takes the first value alone (and cannot overflow).
        for (int v = from; v <= to; v = step > to - v ? to + 1 : v + step)
            allowed[size_t(v)] = true;
    }
    return allowed;
}

} // namespace

std::variant<CronRule, QString> CronRule::parse(const QString &text)
{
    static const QRegularExpression space(QStringLiteral("\\s+"));
    const QStringList parts = text.trimmed().split(space, Qt::SkipEmptyParts);
    if (parts.size() != 5)
        return Text::tr("expected five fields (minute hour day-of-month month day-of-week, "
                        "such as '0 22 * * sat'), got %1")
            .arg(parts.size());
    CronRule rule;
    rule.m_text = parts.join(u' ');
    std::vector<bool> allowed[5]; // by field, a flag per value
    for (int i = 0; i < 5; ++i) {
        auto field = readField(parts.at(i), i);
        if (const QString *error = std::get_if<QString>(&field))
            return *error;
        allowed[i] = std::get<std::vector<bool>>(std::move(field));
    }
    for (int h = 0; h < 24; ++h) {
        for (int m = 0; m < 60; ++m) {
            if (allowed[1][size_t(h)] && allowed[0][size_t(m)])
                rule.m_times.append(QTime(h, m));
        }
    }
    for (size_t v = 0; v < allowed[2].size(); ++v)
        rule.m_daysOfMonth.set(v, allowed[2][v]);
    for (size_t v = 0; v < allowed[3].size(); ++v)
        rule.m_months.set(v, allowed[3][v]);
    for (size_t v = 0; v < allowed[4].size(); ++v) {
        if (allowed[4][v])
            rule.m_daysOfWeek.set(v % 7); // 7 is Sunday too
    }
    // As cron: a field that begins with '*' leaves the days to the other one.
    rule.m_dayOfMonthRestricted = !parts.at(2).startsWith(u'*');
    rule.m_dayOfWeekRestricted = !parts.at(4).startsWith(u'*');
    // A rule whose days never come ("31 feb", "30 feb"): every month and day of a leap
    // year is every combination there is.
    bool someDay = false;
    for (QDate d(2028, 1, 1); !someDay && d.year() == 2028; d = d.addDays(1))
        someDay = rule.matchesDate(d);
    if (!someDay)
        return Text::tr("no date matches '%1'").arg(rule.m_text);
    return rule;
}

bool CronRule::matchesDate(const QDate &date) const
{
    if (!m_months.test(size_t(date.month())))
        return false;
    const bool dayOfMonth = m_daysOfMonth.test(size_t(date.day()));
    const bool dayOfWeek = m_daysOfWeek.test(size_t(date.dayOfWeek() % 7));
    if (m_dayOfMonthRestricted && m_dayOfWeekRestricted)
        return dayOfMonth || dayOfWeek;
    return dayOfMonth && dayOfWeek;
}

} // namespace cooldown
