// SPDX-License-Identifier: Apache-2.0
#include "core/http/HttpDate.h"

#include <QDateTime>

#include <array>

namespace cooldown {

namespace {

constexpr std::array<const char *, 7> kDayNames = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
constexpr std::array<const char *, 7> kLongDayNames = {
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<const char *, 12> kMonthNames = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A strict left-to-right reader: each step either consumes exactly what the grammar
// asks for or records why it could not.
class Reader
{
public:
    explicit Reader(QByteArrayView text) : m_text(text) {}

    bool atEnd() const { return m_pos == m_text.size(); }
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }

    bool literal(const char *expected, const char *what)
    {
        if (failed())
            return false;
        const QByteArrayView lit(expected);
        if (m_text.sliced(m_pos).startsWith(lit)) {
            m_pos += lit.size();
            return true;
        }
        return fail(QStringLiteral("expected %1 at offset %2").arg(QLatin1String(what)).arg(m_pos));
    }

    // Exactly n ASCII digits.
    bool digits(int n, int *value, const char *what)
    {
        if (failed())
            return false;
        int result = 0;
        for (int i = 0; i < n; ++i) {
            if (m_pos + i >= m_text.size() || m_text[m_pos + i] < '0' || m_text[m_pos + i] > '9')
                return fail(QStringLiteral("expected %1 digits of %2 at offset %3")
                                .arg(n)
                                .arg(QLatin1String(what))
                                .arg(m_pos));
            result = result * 10 + (m_text[m_pos + i] - '0');
        }
        m_pos += n;
        *value = result;
        return true;
    }

    // One of the names, matched case-sensitively; returns its index or -1.
    template <size_t N> int name(const std::array<const char *, N> &names, const char *what)
    {
        if (failed())
            return -1;
        for (size_t i = 0; i < N; ++i) {
            const QByteArrayView candidate(names[i]);
            if (m_text.sliced(m_pos).startsWith(candidate)) {
                m_pos += candidate.size();
                return int(i);
            }
        }
        fail(QStringLiteral("expected %1 at offset %2").arg(QLatin1String(what)).arg(m_pos));
        return -1;
    }

    bool peek(char c) const { return m_pos < m_text.size() && m_text[m_pos] == c; }

    bool fail(const QString &error)
    {
        if (m_error.isEmpty())
            m_error = error;
        return false;
    }

private:
    QByteArrayView m_text;
    qsizetype m_pos = 0;
    QString m_error;
};

bool isLeapYear(int year)
{
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int daysInMonth(int year, int month)
{
    static constexpr std::array<int, 12> kDays = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && isLeapYear(year) ? 29 : kDays[size_t(month - 1)];
}

// 0 = Monday, matching kDayNames.
int weekdayOf(qint64 daysSinceEpoch)
{
    // 1970-01-01 was a Thursday.
    const qint64 w = (daysSinceEpoch + 3) % 7;
    return int(w < 0 ? w + 7 : w);
}

struct Fields
{
    int weekday = -1;
    int day = 0;
    int month = 0; // 1..12
    int year = 0;
    int hour = 0;
    int minute = 0;
    int second = 0;
};

void readTimeOfDay(Reader &r, Fields &f)
{
    r.digits(2, &f.hour, "hour");
    r.literal(":", "':'");
    r.digits(2, &f.minute, "minute");
    r.literal(":", "':'");
    r.digits(2, &f.second, "second");
}

HttpDate finish(Reader &r, HttpDate::Form form, const Fields &f)
{
    HttpDate result;
    if (!r.failed() && !r.atEnd())
        r.fail(QStringLiteral("unexpected text after the date"));
    if (!r.failed()) {
        if (f.month < 1 || f.month > 12)
            r.fail(QStringLiteral("month out of range"));
        else if (f.day < 1 || f.day > daysInMonth(f.year, f.month))
            r.fail(QStringLiteral("day %1 does not exist in that month").arg(f.day));
        else if (f.hour > 23)
            r.fail(QStringLiteral("hour %1 out of range 00-23").arg(f.hour));
        else if (f.minute > 59)
            r.fail(QStringLiteral("minute %1 out of range 00-59").arg(f.minute));
        else if (f.second > 60) // 60 is a leap second, which the grammar allows
            r.fail(QStringLiteral("second %1 out of range 00-60").arg(f.second));
    }
    qint64 days = 0;
    if (!r.failed()) {
        days = daysFromCivil(f.year, f.month, f.day);
        if (weekdayOf(days) != f.weekday)
            r.fail(QStringLiteral("day name does not match the date"));
    }
    if (r.failed()) {
        result.error = r.error();
        return result;
    }
    result.form = form;
    result.msSinceEpoch = ((days * 24 + f.hour) * 60 + f.minute) * 60000 + qint64(f.second) * 1000;
    return result;
}

HttpDate parseImfFixdate(QByteArrayView text)
{
    // Sun, 06 Nov 1994 08:49:37 GMT
    Reader r(text);
    Fields f;
    f.weekday = r.name(kDayNames, "day name");
    r.literal(", ", "', '");
    r.digits(2, &f.day, "day");
    r.literal(" ", "space");
    f.month = r.name(kMonthNames, "month name") + 1;
    r.literal(" ", "space");
    r.digits(4, &f.year, "year");
    r.literal(" ", "space");
    readTimeOfDay(r, f);
    r.literal(" GMT", "' GMT'");
    return finish(r, HttpDate::Form::ImfFixdate, f);
}

HttpDate parseRfc850(QByteArrayView text, qint64 referenceMs)
{
    // Sunday, 06-Nov-94 08:49:37 GMT
    Reader r(text);
    Fields f;
    f.weekday = r.name(kLongDayNames, "day name");
    r.literal(", ", "', '");
    r.digits(2, &f.day, "day");
    r.literal("-", "'-'");
    f.month = r.name(kMonthNames, "month name") + 1;
    r.literal("-", "'-'");
    int twoDigitYear = 0;
    r.digits(2, &twoDigitYear, "year");
    r.literal(" ", "space");
    readTimeOfDay(r, f);
    r.literal(" GMT", "' GMT'");
    if (!r.failed() && f.month >= 1 && f.month <= 12) {
        // RFC 9110 §5.6.7: a date that appears to be more than 50 years in the future
        // is the most recent past year with the same last two digits. So: the latest
        // year with those digits that is not more than 50 years ahead of the reference.
        const QDateTime reference = QDateTime::fromMSecsSinceEpoch(referenceMs, Qt::UTC);
        const qint64 horizonMs = reference.addYears(50).toMSecsSinceEpoch();
        const int referenceYear = reference.date().year();
        f.year = referenceYear - referenceYear % 100 + twoDigitYear + 100;
        // Day 1 of the month keeps the comparison valid before the day is range-checked.
        auto instantOf = [&f](int year) {
            return ((daysFromCivil(year, f.month, 1) + f.day - 1) * 24 + f.hour) * 3600000LL +
                   f.minute * 60000LL + f.second * 1000LL;
        };
        while (instantOf(f.year) > horizonMs)
            f.year -= 100;
    }
    return finish(r, HttpDate::Form::Rfc850, f);
}

HttpDate parseAsctime(QByteArrayView text)
{
    // Sun Nov  6 08:49:37 1994
    Reader r(text);
    Fields f;
    f.weekday = r.name(kDayNames, "day name");
    r.literal(" ", "space");
    f.month = r.name(kMonthNames, "month name") + 1;
    r.literal(" ", "space");
    if (r.peek(' ')) {
        r.literal(" ", "space");
        r.digits(1, &f.day, "day");
    } else {
        r.digits(2, &f.day, "day");
    }
    r.literal(" ", "space");
    readTimeOfDay(r, f);
    r.literal(" ", "space");
    r.digits(4, &f.year, "year");
    return finish(r, HttpDate::Form::Asctime, f);
}

} // namespace

qint64 daysFromCivil(int year, int month, int day)
{
    // Howard Hinnant's algorithm: exact for the whole proleptic Gregorian calendar.
    const qint64 y = qint64(year) - (month <= 2 ? 1 : 0);
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const qint64 yoe = y - era * 400;
    const qint64 mp = (month + 9) % 12;
    const qint64 doy = (153 * mp + 2) / 5 + day - 1;
    const qint64 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

HttpDate HttpDate::parse(QByteArrayView text, qint64 referenceMs)
{
    if (text.isEmpty()) {
        HttpDate result;
        result.error = QStringLiteral("empty date");
        return result;
    }
    // The three forms are told apart by what follows the day name: ", " then a digit
    // pair and a space (IMF), a long day name and "-" (RFC 850), or a space (asctime).
    const qsizetype comma = text.indexOf(',');
    if (comma == 3)
        return parseImfFixdate(text);
    if (comma > 3)
        return parseRfc850(text, referenceMs);
    if (comma < 0 && text.size() > 3 && text[3] == ' ')
        return parseAsctime(text);
    HttpDate result;
    result.error = QStringLiteral("not an HTTP-date (IMF-fixdate, RFC 850 or asctime)");
    return result;
}

QByteArray HttpDate::format(qint64 msSinceEpoch, Form form)
{
    const QDateTime dt = QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC);
    const QDate d = dt.date();
    const size_t weekday = size_t(d.dayOfWeek() - 1);
    const QByteArray day = QByteArray::number(d.day());
    const QByteArray month = kMonthNames[size_t(d.month() - 1)];
    const QByteArray year = QByteArray::number(d.year()).rightJustified(4, '0');
    const QByteArray time = dt.time().toString(u"HH:mm:ss").toLatin1();
    switch (form) {
    case Form::ImfFixdate: // Sun, 06 Nov 1994 08:49:37 GMT
        return kDayNames[weekday] + QByteArrayLiteral(", ") + day.rightJustified(2, '0') + ' ' +
               month + ' ' + year + ' ' + time + " GMT";
    case Form::Rfc850: // Sunday, 06-Nov-94 08:49:37 GMT
        return kLongDayNames[weekday] + QByteArrayLiteral(", ") + day.rightJustified(2, '0') + '-' +
               month + '-' + year.right(2) + ' ' + time + " GMT";
    case Form::Asctime: // Sun Nov  6 08:49:37 1994
        return kDayNames[weekday] + QByteArrayLiteral(" ") + month + ' ' +
               day.rightJustified(2, ' ') + ' ' + time + ' ' + year;
    case Form::Invalid:
        break;
    }
    return {};
}

const char *textOf(HttpDate::Form form)
{
    switch (form) {
    case HttpDate::Form::ImfFixdate:
        return "imf-fixdate";
    case HttpDate::Form::Rfc850:
        return "rfc850";
    case HttpDate::Form::Asctime:
        return "asctime";
    case HttpDate::Form::Invalid:
        break;
    }
    return "invalid";
}

} // namespace cooldown
