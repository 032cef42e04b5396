// SPDX-License-Identifier: Apache-2.0
// When a maintenance window stands (core/time/MaintenanceWindow, core/time/CronRule):
// crontab schedules read as crontab(5) reads them, worked examples on the
// nights the clocks change, and a property test over four zones with daylight saving
// (Europe/Berlin, America/New_York, Australia/Lord_Howe with its half hour) and one
// without (Asia/Tokyo), against a reference built on glibc's own reading of the tz
// database (mktime, localtime_r) instead of Qt's.

#include "core/time/CronRule.h"
#include "core/time/MaintenanceWindow.h"

#include <QDate>
#include <QDateTime>
#include <QRandomGenerator>
#include <QTest>

#include <ctime>
#include <optional>

using namespace cooldown;

namespace {

constexpr qint64 kMinuteMs = 60 * 1000;
constexpr qint64 kHourMs = 60 * kMinuteMs;
constexpr qint64 kDayMs = 24 * kHourMs;

qint64 utc(const char *iso)
{
    QDateTime t = QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODate);
    t.setTimeSpec(Qt::UTC);
    return t.toMSecsSinceEpoch();
}

MaintenanceWindow weekly(const QByteArray &zone, QList<int> days, QTime start, qint64 durationMs)
{
    MaintenanceWindow w;
    w.kind = MaintenanceWindow::Kind::Weekly;
    w.zone = QTimeZone(zone);
    w.days = std::move(days);
    w.start = start;
    w.durationMs = durationMs;
    return w;
}

CronRule rule(const char *text)
{
    auto parsed = CronRule::parse(QString::fromLatin1(text));
    if (const QString *error = std::get_if<QString>(&parsed))
        qFatal("bad rule in test: %s: %s", text, qPrintable(*error));
    return std::get<CronRule>(parsed);
}

MaintenanceWindow cron(const QByteArray &zone, const char *schedule, qint64 durationMs)
{
    MaintenanceWindow w;
    w.kind = MaintenanceWindow::Kind::Cron;
    w.zone = QTimeZone(zone);
    w.cron = rule(schedule);
    w.durationMs = durationMs;
    return w;
}

// The local times a recurring window starts at on a date, from its public parts.
QList<QTime> referenceStarts(const MaintenanceWindow &w, const QDate &day)
{
    if (w.kind == MaintenanceWindow::Kind::Cron)
        return w.cron.matchesDate(day) ? w.cron.timesOfDay() : QList<QTime>{};
    return w.days.contains(day.dayOfWeek()) ? QList<QTime>{w.start} : QList<QTime>{};
}

// The reference: the process's TZ set to the zone, and the C library's conversions.
class ReferenceZone
{
public:
    explicit ReferenceZone(const char *name)
        : m_saved(qgetenv("TZ")), m_had(qEnvironmentVariableIsSet("TZ"))
    {
        qputenv("TZ", QByteArray(":") + name);
        tzset();
    }
    ~ReferenceZone()
    {
        if (m_had)
            qputenv("TZ", m_saved);
        else
            qunsetenv("TZ");
        tzset();
    }
    ReferenceZone(const ReferenceZone &) = delete;
    ReferenceZone &operator=(const ReferenceZone &) = delete;

    static std::tm local(qint64 utcMs)
    {
        const std::time_t t = std::time_t(utcMs / 1000);
        std::tm out{};
        localtime_r(&t, &out);
        return out;
    }
    // A local reading's first instant; a reading the clocks skip, with the standard
    // (pre-jump) offset.
    static qint64 toUtc(int year, int month, int day, int hour, int minute)
    {
        std::optional<qint64> first;
        // A zone without summer time that year is not asked for it: glibc would search
        // years back for one.
        std::tm january{};
        january.tm_year = year - 1900;
        january.tm_mday = 1;
        january.tm_isdst = -1;
        std::tm july = january;
        july.tm_mon = 6;
        mktime(&january);
        mktime(&july);
        const bool summerTime = january.tm_isdst > 0 || july.tm_isdst > 0;
        // The reading with summer time said on or off, as mktime reads it.
        const auto reading = [&](int dst) {
            std::tm tm{};
            tm.tm_year = year - 1900;
            tm.tm_mon = month - 1;
            tm.tm_mday = day;
            tm.tm_hour = hour;
            tm.tm_min = minute;
            tm.tm_isdst = dst;
            return qint64(mktime(&tm)) * 1000;
        };
        for (const int dst : {1, 0}) {
            if (dst == 1 && !summerTime)
                continue;
            const qint64 at = reading(dst);
            const std::tm back = local(at);
            if (back.tm_year == year - 1900 && back.tm_mon == month - 1 && back.tm_mday == day &&
                back.tm_hour == hour && back.tm_min == minute && (!first || at < *first))
                first = at;
        }
        return first ? *first : reading(0);
    }

private:
    QByteArray m_saved;
    bool m_had = false;
};

// The weekly window's occurrences by the reference, as [start, end), for local days
// around atMs.
QList<std::pair<qint64, qint64>> referenceOccurrences(const MaintenanceWindow &w, qint64 atMs,
                                                      int daysBack, int daysAhead)
{
    QList<std::pair<qint64, qint64>> out;
    const std::tm now = ReferenceZone::local(atMs);
    const QDate today(now.tm_year + 1900, now.tm_mon + 1, now.tm_mday);
    for (int i = -daysBack; i <= daysAhead; ++i) {
        const QDate day = today.addDays(i);
        for (const QTime &start : referenceStarts(w, day)) {
            const qint64 from = ReferenceZone::toUtc(day.year(), day.month(), day.day(),
                                                     start.hour(), start.minute());
            out.append({from, from + w.durationMs});
        }
    }
    return out;
}

std::optional<qint64> referenceUntil(const MaintenanceWindow &w, qint64 atMs)
{
    const int back = int(w.durationMs / kDayMs) + 2;
    std::optional<qint64> end;
    for (const auto &[from, to] : referenceOccurrences(w, atMs, back, 1)) {
        if (from <= atMs && atMs < to)
            end = std::max(end.value_or(to), to);
    }
    if (!end)
        return std::nullopt;
    const qint64 horizon = atMs + 366 * kDayMs;
    for (;;) {
        std::optional<qint64> further;
        for (const auto &[from, to] : referenceOccurrences(w, *end, back, 1)) {
            if (from <= *end && *end < to && to > *end)
                further = std::max(further.value_or(to), to);
        }
        if (!further || *further >= horizon)
            return further ? horizon : *end;
        end = further;
    }
}

std::optional<qint64> referenceNextStart(const MaintenanceWindow &w, qint64 atMs)
{
    std::optional<qint64> next;
    for (const auto &[from, to] : referenceOccurrences(w, atMs, 1, 8)) {
        if (from > atMs)
            next = std::min(next.value_or(from), from);
    }
    return next;
}

QString text(std::optional<qint64> ms)
{
    return ms ? QDateTime::fromMSecsSinceEpoch(*ms, Qt::UTC).toString(Qt::ISODate)
              : QStringLiteral("none");
}

} // namespace

class tst_MaintenanceWindow : public QObject
{
    Q_OBJECT

private slots:
    void oneOffIsHalfOpen();
    void aWeekendWindowAcrossTheSpringNight();
    void aStartTheClocksSkipComesAsMuchLater();
    void aStartThatHappensTwiceIsTheFirst();
    void acrossMidnightAndOverAWeekend();
    void touchingWindowsAreOneStretch();
    void nextStart();
    void cronRules_data();
    void cronRules();
    void cronRulesRefused_data();
    void cronRulesRefused();
    void cronWindows();
    void matchesTheCLibrary_data();
    void matchesTheCLibrary();
};

void tst_MaintenanceWindow::cronRules_data()
{
    QTest::addColumn<QString>("schedule");
    QTest::addColumn<QStringList>("times"); // the first and last time of a day, and how many
    QTest::addColumn<QString>("matching");  // of 1-14 December 2026 (the 1st a Tuesday)
    QTest::newRow("every quarter of working hours")
        << "*/15 9-17 * * mon-fri" << QStringList{"09:00", "17:45", "36"} << "1-4,7-11,14";
    // Both days restricted: either matches, as cron has it.
    QTest::newRow("1st, 15th or Friday")
        << "0 4 1,15 * fri" << QStringList{"04:00", "04:00", "1"} << "1,4,11";
    QTest::newRow("first week, as cron reads it: days 1-7 or Saturdays")
        << "0 22 1-7 * sat" << QStringList{"22:00", "22:00", "1"} << "1-7,12";
    QTest::newRow("a step with a start")
        << "5/20 * * * *" << QStringList{"00:05", "23:45", "72"} << "1-14";
    QTest::newRow("a stepped range, names in any case")
        << "10-50/20 3 * DEC Sun,7" << QStringList{"03:10", "03:50", "3"} << "6,13";
    QTest::newRow("a step past the end")
        << "59/2147483647 0 * * *" << QStringList{"00:59", "00:59", "1"} << "1-14";
    QTest::newRow("Sunday as 0") << "0 0 * * 0" << QStringList{"00:00", "00:00", "1"} << "6,13";
    QTest::newRow("not in December") << "0 0 * 1-11 *" << QStringList{"00:00", "00:00", "1"} << "";
    QTest::newRow("spaces around")
        << "  30   1 *  * *  " << QStringList{"01:30", "01:30", "1"} << "1-14";
}

void tst_MaintenanceWindow::cronRules()
{
    QFETCH(QString, schedule);
    QFETCH(QStringList, times);
    QFETCH(QString, matching);
    auto parsed = CronRule::parse(schedule);
    if (const QString *error = std::get_if<QString>(&parsed))
        QFAIL(qPrintable(*error));
    const CronRule r = std::get<CronRule>(parsed);
    QCOMPARE(r.text(), schedule.simplified());
    const QList<QTime> t = r.timesOfDay();
    QCOMPARE(t.first().toString(u"HH:mm"), times.at(0));
    QCOMPARE(t.last().toString(u"HH:mm"), times.at(1));
    QCOMPARE(QString::number(t.size()), times.at(2));
    QStringList days;
    int runFrom = -1;
    for (int d = 1; d <= 15; ++d) {
        const bool match = d <= 14 && r.matchesDate(QDate(2026, 12, d));
        if (match && runFrom < 0)
            runFrom = d;
        if (!match && runFrom > 0) {
            days.append(runFrom == d - 1 ? QString::number(runFrom)
                                         : QStringLiteral("%1-%2").arg(runFrom).arg(d - 1));
            runFrom = -1;
        }
    }
    QCOMPARE(days.join(u','), matching);
}

void tst_MaintenanceWindow::cronRulesRefused_data()
{
    QTest::addColumn<QString>("schedule");
    QTest::addColumn<QString>("error");
    QTest::newRow("six fields") << "0 0 * * * 2026"
                                << "expected five fields (minute hour day-of-month month "
                                   "day-of-week, such as '0 22 * * sat'), got 6";
    QTest::newRow("minute 60") << "60 * * * *"
                               << "minute: expected a minute 0-59";
    QTest::newRow("day 0") << "0 0 0 * *"
                           << "day of month: expected a day of the month 1-31";
    QTest::newRow("month 13") << "0 0 * 13 *"
                              << "month: expected a month 1-12 or jan-dec";
    QTest::newRow("day 8") << "0 0 * * 8"
                           << "day of week: expected a day 0-7 or sun-sat";
    QTest::newRow("a name where numbers go") << "mon 0 * * *"
                                             << "minute: expected";
    QTest::newRow("empty list item") << "0 0 1,,2 * *"
                                     << "day of month: expected";
    QTest::newRow("a sign") << "+5 0 * * *"
                            << "minute: expected";
    QTest::newRow("a step of nothing") << "*/ 0 * * *"
                                       << "minute: expected";
    QTest::newRow("no such date") << "0 0 31 apr,jun,sep,nov *"
                                  << "no date matches '0 0 31 apr,jun,sep,nov *'";
}

void tst_MaintenanceWindow::cronRulesRefused()
{
    QFETCH(QString, schedule);
    QFETCH(QString, error);
    auto parsed = CronRule::parse(schedule);
    const QString *said = std::get_if<QString>(&parsed);
    QVERIFY(said);
    QVERIFY2(said->startsWith(error), qPrintable(*said));
}

void tst_MaintenanceWindow::cronWindows()
{
    // The 1st and the 15th at 02:00 in New York for four hours.
    const MaintenanceWindow w = cron("America/New_York", "0 2 1,15 * *", 4 * kHourMs);
    QCOMPARE(text(w.nextStart(utc("2026-12-05T00:00:00"))), QStringLiteral("2026-12-15T07:00:00Z"));
    QCOMPARE(text(w.until(utc("2026-12-15T10:59:00"))), QStringLiteral("2026-12-15T11:00:00Z"));
    QCOMPARE(w.until(utc("2026-12-15T11:00:00")), std::nullopt);
    // The 29th of February, years apart.
    const MaintenanceWindow leap = cron("UTC", "0 0 29 feb *", kHourMs);
    QCOMPARE(text(leap.nextStart(utc("2028-03-01T00:00:00"))),
             QStringLiteral("2032-02-29T00:00:00Z"));
    // A start every ten minutes for ten minutes: one stretch, said as far as it was
    // followed (2,000 starts, about two weeks), and looked at again then.
    const MaintenanceWindow always = cron("Europe/Berlin", "*/10 * * * *", 10 * kMinuteMs);
    const qint64 now = utc("2026-12-01T10:05:00");
    const std::optional<qint64> until = always.until(now);
    QVERIFY(until);
    QVERIFY2(*until >= now + 13 * kDayMs && *until <= now + 15 * kDayMs, qPrintable(text(until)));
    QVERIFY(always.until(*until));
    // Starts the clocks skip come as much later, as for a weekly start: 02:00, 02:20
    // and 02:40 on Berlin's spring night all start at 03:00 CEST and after.
    const MaintenanceWindow night = cron("Europe/Berlin", "*/20 2 29 3 *", 5 * kMinuteMs);
    QCOMPARE(text(night.nextStart(utc("2026-03-29T00:00:00"))),
             QStringLiteral("2026-03-29T01:00:00Z"));
    QCOMPARE(text(night.until(utc("2026-03-29T01:42:00"))), QStringLiteral("2026-03-29T01:45:00Z"));
}

void tst_MaintenanceWindow::oneOffIsHalfOpen()
{
    MaintenanceWindow w;
    w.fromMs = utc("2026-12-12T13:00:00");
    w.toMs = utc("2026-12-12T21:00:00");
    QCOMPARE(w.until(w.fromMs - 1), std::nullopt);
    QCOMPARE(w.until(w.fromMs), w.toMs);
    QCOMPARE(w.until(w.toMs - 1), w.toMs);
    QCOMPARE(w.until(w.toMs), std::nullopt);
    QCOMPARE(w.nextStart(w.fromMs - 1), w.fromMs);
    QCOMPARE(w.nextStart(w.fromMs), std::nullopt);
}

void tst_MaintenanceWindow::aWeekendWindowAcrossTheSpringNight()
{
    // Saturday 22:00 in Berlin for 8 hours, the night the clocks go forward (29 March
    // 2026): 21:00 UTC (CET) to 05:00 UTC, which Berlin's clocks show as 07:00 (CEST).
    const MaintenanceWindow w = weekly("Europe/Berlin", {6}, QTime(22, 0), 8 * kHourMs);
    const qint64 from = utc("2026-03-28T21:00:00");
    QCOMPARE(w.until(from - 1), std::nullopt);
    QCOMPARE(text(w.until(from)), QStringLiteral("2026-03-29T05:00:00Z"));
    QCOMPARE(text(w.until(utc("2026-03-29T04:59:59"))), QStringLiteral("2026-03-29T05:00:00Z"));
    QCOMPARE(w.until(utc("2026-03-29T05:00:00")), std::nullopt);
    // A week later, summer time: 20:00 UTC.
    QCOMPARE(text(w.until(utc("2026-04-04T20:00:00"))), QStringLiteral("2026-04-05T04:00:00Z"));
}

void tst_MaintenanceWindow::aStartTheClocksSkipComesAsMuchLater()
{
    // 02:30 does not happen in Berlin on 29 March 2026 (02:00 becomes 03:00): the
    // window starts at 03:30 CEST, 01:30 UTC.
    const QDate day(2026, 3, 29);
    QCOMPARE(text(MaintenanceWindow::localToUtcMs(day, QTime(2, 30), QTimeZone("Europe/Berlin"))),
             QStringLiteral("2026-03-29T01:30:00Z"));
    // New York, 8 March 2026, the same.
    QCOMPARE(text(MaintenanceWindow::localToUtcMs(QDate(2026, 3, 8), QTime(2, 30),
                                                  QTimeZone("America/New_York"))),
             QStringLiteral("2026-03-08T07:30:00Z"));
    // Lord Howe moves by half an hour (4 October 2026: 02:00 becomes 02:30).
    QCOMPARE(text(MaintenanceWindow::localToUtcMs(QDate(2026, 10, 4), QTime(2, 15),
                                                  QTimeZone("Australia/Lord_Howe"))),
             QStringLiteral("2026-10-03T15:45:00Z"));
}

void tst_MaintenanceWindow::aStartThatHappensTwiceIsTheFirst()
{
    // 02:30 happens twice in Berlin on 25 October 2026: first at CEST (00:30 UTC).
    QCOMPARE(text(MaintenanceWindow::localToUtcMs(QDate(2026, 10, 25), QTime(2, 30),
                                                  QTimeZone("Europe/Berlin"))),
             QStringLiteral("2026-10-25T00:30:00Z"));
    // A one-hour window then ends at the second 02:30 by the clock.
    const MaintenanceWindow w = weekly("Europe/Berlin", {7}, QTime(2, 30), kHourMs);
    QCOMPARE(text(w.until(utc("2026-10-25T01:00:00"))), QStringLiteral("2026-10-25T01:30:00Z"));
}

void tst_MaintenanceWindow::acrossMidnightAndOverAWeekend()
{
    // Weeknights 23:00 in Tokyo for two hours: Friday's runs into Saturday.
    const MaintenanceWindow nights =
        weekly("Asia/Tokyo", {1, 2, 3, 4, 5}, QTime(23, 0), 2 * kHourMs);
    // Friday 11 December 2026, 23:30 JST = 14:30 UTC.
    QCOMPARE(text(nights.until(utc("2026-12-11T14:30:00"))),
             QStringLiteral("2026-12-11T16:00:00Z"));
    // Saturday 00:30 JST: still Friday's.
    QCOMPARE(text(nights.until(utc("2026-12-11T15:30:00"))),
             QStringLiteral("2026-12-11T16:00:00Z"));
    // Saturday 23:30 JST: no window on Saturdays.
    QCOMPARE(nights.until(utc("2026-12-12T14:30:00")), std::nullopt);

    // Friday 18:00 in New York for 60 hours: to Monday 06:00.
    const MaintenanceWindow weekend = weekly("America/New_York", {5}, QTime(18, 0), 60 * kHourMs);
    QCOMPARE(text(weekend.until(utc("2026-12-13T12:00:00"))),
             QStringLiteral("2026-12-14T11:00:00Z"));
}

void tst_MaintenanceWindow::touchingWindowsAreOneStretch()
{
    // Saturday and Sunday, from midnight for a day each: one window to Monday 00:00.
    const MaintenanceWindow weekend = weekly("Europe/Berlin", {6, 7}, QTime(0, 0), kDayMs);
    QCOMPARE(text(weekend.until(utc("2026-12-12T10:00:00"))),
             QStringLiteral("2026-12-13T23:00:00Z"));
    // Every day from midnight for 25 hours: always, said as a year ahead.
    const MaintenanceWindow always =
        weekly("Europe/Berlin", {1, 2, 3, 4, 5, 6, 7}, QTime(0, 0), kDayMs + kHourMs);
    const qint64 now = utc("2026-12-12T10:00:00");
    QCOMPARE(text(always.until(now)), text(now + 366 * kDayMs));
    // For 24 hours of elapsed time it leaves the hour the clocks give back open: the
    // next such night, 31 October 2027, 23:00 to midnight (22:00 to 23:00 UTC).
    const MaintenanceWindow daily =
        weekly("Europe/Berlin", {1, 2, 3, 4, 5, 6, 7}, QTime(0, 0), kDayMs);
    QCOMPARE(text(daily.until(now)), QStringLiteral("2027-10-31T22:00:00Z"));
    QCOMPARE(text(daily.nextStart(utc("2027-10-31T22:30:00"))),
             QStringLiteral("2027-10-31T23:00:00Z"));
}

void tst_MaintenanceWindow::nextStart()
{
    const MaintenanceWindow w = weekly("Europe/Berlin", {6}, QTime(22, 0), 8 * kHourMs);
    // From a Wednesday: the coming Saturday.
    QCOMPARE(text(w.nextStart(utc("2026-12-09T12:00:00"))), QStringLiteral("2026-12-12T21:00:00Z"));
    // From inside it: the next week's.
    QCOMPARE(text(w.nextStart(utc("2026-12-12T22:00:00"))), QStringLiteral("2026-12-19T21:00:00Z"));
    // Nothing without days or a duration.
    MaintenanceWindow none = w;
    none.days.clear();
    QCOMPARE(none.nextStart(utc("2026-12-09T12:00:00")), std::nullopt);
    QCOMPARE(none.until(utc("2026-12-12T22:00:00")), std::nullopt);
}

void tst_MaintenanceWindow::matchesTheCLibrary_data()
{
    QTest::addColumn<QByteArray>("zone");
    for (const char *zone :
         {"Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Lord_Howe"})
        QTest::newRow(zone) << QByteArray(zone);
}

void tst_MaintenanceWindow::matchesTheCLibrary()
{
    QFETCH(QByteArray, zone);
    const ReferenceZone reference(zone.constData());
    const QList<MaintenanceWindow> windows{
        weekly(zone, {6}, QTime(22, 0), 8 * kHourMs),    // across midnight
        weekly(zone, {7}, QTime(2, 30), kHourMs),        // skipped or doubled
        weekly(zone, {7}, QTime(1, 45), 90 * kMinuteMs), // over the change
        weekly(zone, {1, 2, 3, 4, 5}, QTime(23, 0), 2 * kHourMs),
        weekly(zone, {5}, QTime(18, 0), 60 * kHourMs), // a weekend
        weekly(zone, {6, 7}, QTime(0, 0), kDayMs),     // touching
        // Crontab schedules: several starts a day over the change, either day rule,
        // and overlapping starts that make a stretch of days.
        cron(zone, "*/20 1-3 * * *", 10 * kMinuteMs),
        cron(zone, "30 2 * * sun", kHourMs),
        cron(zone, "0 22 1-7 * sat", 8 * kHourMs),
        cron(zone, "0 0,12 * * mon-fri", 13 * kHourMs),
    };
    // The instants: spread over two years, and every 10 minutes on the days around
    // each change of the zone's offset.
    QList<qint64> instants;
    QRandomGenerator random(20261205);
    const qint64 first = utc("2026-01-01T00:00:00");
    const qint64 last = utc("2028-01-01T00:00:00");
    for (int i = 0; i < 1500; ++i)
        instants.append(first + qint64(random.generate64() % quint64(last - first)) / kMinuteMs *
                                    kMinuteMs);
    long previousOffset = ReferenceZone::local(first).tm_gmtoff;
    int changes = 0;
    for (qint64 t = first; t < last; t += kHourMs) {
        const long offset = ReferenceZone::local(t).tm_gmtoff;
        if (offset == previousOffset)
            continue;
        previousOffset = offset;
        ++changes;
        for (qint64 s = t - 2 * kDayMs; s < t + 2 * kDayMs; s += 10 * kMinuteMs)
            instants.append(s);
    }
    QCOMPARE(changes, zone == "Asia/Tokyo" ? 0 : 4);
    int active = 0;
    for (const MaintenanceWindow &w : windows) {
        for (const qint64 t : std::as_const(instants)) {
            const std::optional<qint64> until = w.until(t);
            active += until ? 1 : 0;
            const QString where =
                QStringLiteral("%1 %2 %3 at %4")
                    .arg(QString::fromLatin1(zone), w.kind == MaintenanceWindow::Kind::Cron
                                                        ? w.cron.text()
                                                        : w.start.toString(u"HH:mm"))
                    .arg(w.durationMs / kMinuteMs)
                    .arg(text(t));
            QVERIFY2(until == referenceUntil(w, t),
                     qPrintable(where + QStringLiteral(": until %1, reference %2")
                                            .arg(text(until), text(referenceUntil(w, t)))));
            QVERIFY2(
                w.nextStart(t) == referenceNextStart(w, t),
                qPrintable(where + QStringLiteral(": next %1, reference %2")
                                       .arg(text(w.nextStart(t)), text(referenceNextStart(w, t)))));
        }
    }
    // The instants fall inside windows and outside them.
    QVERIFY(active > 1000);
    QVERIFY(active < windows.size() * instants.size() - 1000);
}

QTEST_APPLESS_MAIN(tst_MaintenanceWindow)
#include "tst_maintenancewindow.moc"
