// SPDX-License-Identifier: Apache-2.0
#include "core/http/HttpDate.h"
#include "support/ReadableEnums.h"

#include <QDateTime>
#include <QTest>

using namespace cooldown;

namespace {
qint64 utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0)
{
    return QDateTime(QDate(y, mo, d), QTime(h, mi, s), Qt::UTC).toMSecsSinceEpoch();
}
} // namespace

class tst_HttpDate : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void rfc850Century_data();
    void rfc850Century();
    void formatRoundTrip();
    void formatEachForm_data();
    void formatEachForm();
    void daysFromCivilMatchesQDate();
};

void tst_HttpDate::parse_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("form");
    QTest::addColumn<qint64>("expected");

    const qint64 sample = utc(1994, 11, 6, 8, 49, 37);
    QTest::newRow("imf") << QByteArray("Sun, 06 Nov 1994 08:49:37 GMT") << "imf-fixdate" << sample;
    QTest::newRow("rfc850") << QByteArray("Sunday, 06-Nov-94 08:49:37 GMT") << "rfc850" << sample;
    QTest::newRow("asctime") << QByteArray("Sun Nov  6 08:49:37 1994") << "asctime" << sample;
    QTest::newRow("asctime two-digit day")
        << QByteArray("Thu Nov 24 08:49:37 1994") << "asctime" << utc(1994, 11, 24, 8, 49, 37);
    QTest::newRow("leap day") << QByteArray("Thu, 29 Feb 2024 00:00:00 GMT") << "imf-fixdate"
                              << utc(2024, 2, 29);
    QTest::newRow("last second of year") << QByteArray("Thu, 31 Dec 2026 23:59:59 GMT")
                                         << "imf-fixdate" << utc(2026, 12, 31, 23, 59, 59);
    QTest::newRow("leap second") << QByteArray("Sat, 31 Dec 2016 23:59:60 GMT") << "imf-fixdate"
                                 << utc(2017, 1, 1);
    QTest::newRow("epoch") << QByteArray("Thu, 01 Jan 1970 00:00:00 GMT") << "imf-fixdate"
                           << qint64(0);

    // Rejections: case, zone, ranges, shape.
    const qint64 none = -1;
    QTest::newRow("lowercase day")
        << QByteArray("sun, 06 Nov 1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("lowercase month")
        << QByteArray("Sun, 06 nov 1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("lowercase gmt")
        << QByteArray("Sun, 06 Nov 1994 08:49:37 gmt") << "invalid" << none;
    QTest::newRow("UTC zone") << QByteArray("Sun, 06 Nov 1994 08:49:37 UTC") << "invalid" << none;
    QTest::newRow("numeric zone") << QByteArray("Sun, 06 Nov 1994 08:49:37 +0000") << "invalid"
                                  << none;
    QTest::newRow("no zone") << QByteArray("Sun, 06 Nov 1994 08:49:37") << "invalid" << none;
    QTest::newRow("one-digit day")
        << QByteArray("Sun, 6 Nov 1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("two-digit year imf")
        << QByteArray("Sun, 06 Nov 94 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("hour 24") << QByteArray("Sun, 06 Nov 1994 24:00:00 GMT") << "invalid" << none;
    QTest::newRow("minute 60") << QByteArray("Sun, 06 Nov 1994 08:60:00 GMT") << "invalid" << none;
    QTest::newRow("second 61") << QByteArray("Sun, 06 Nov 1994 08:49:61 GMT") << "invalid" << none;
    QTest::newRow("day 0") << QByteArray("Sun, 00 Nov 1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("31 Nov") << QByteArray("Thu, 31 Nov 1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("29 Feb non-leap")
        << QByteArray("Thu, 29 Feb 2023 00:00:00 GMT") << "invalid" << none;
    QTest::newRow("29 Feb 1900") << QByteArray("Thu, 29 Feb 1900 00:00:00 GMT") << "invalid"
                                 << none;
    QTest::newRow("wrong day name")
        << QByteArray("Mon, 06 Nov 1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("unknown month")
        << QByteArray("Sun, 06 Foo 1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("trailing text")
        << QByteArray("Sun, 06 Nov 1994 08:49:37 GMT x") << "invalid" << none;
    QTest::newRow("double space") << QByteArray("Sun,  06 Nov 1994 08:49:37 GMT") << "invalid"
                                  << none;
    QTest::newRow("rfc850 short day")
        << QByteArray("Sun, 06-Nov-94 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("rfc850 four-digit year")
        << QByteArray("Sunday, 06-Nov-1994 08:49:37 GMT") << "invalid" << none;
    QTest::newRow("asctime zero-padded day")
        << QByteArray("Sun Nov 06 08:49:37 1994") << "asctime" << sample;
    QTest::newRow("asctime with GMT")
        << QByteArray("Sun Nov  6 08:49:37 1994 GMT") << "invalid" << none;
    QTest::newRow("empty") << QByteArray("") << "invalid" << none;
    QTest::newRow("number") << QByteArray("120") << "invalid" << none;
    QTest::newRow("iso") << QByteArray("1994-11-06T08:49:37Z") << "invalid" << none;
}

void tst_HttpDate::parse()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, form);
    QFETCH(qint64, expected);

    const HttpDate date = HttpDate::parse(text, utc(2026, 11, 29));
    QCOMPARE(QString::fromLatin1(textOf(date.form)), form);
    if (form == QLatin1String("invalid")) {
        QVERIFY(!date.isValid());
        QVERIFY2(!date.error.isEmpty(), "an invalid date says why");
    } else {
        QVERIFY2(date.error.isEmpty(), qPrintable(date.error));
        QCOMPARE(date.msSinceEpoch, expected);
    }
}

void tst_HttpDate::rfc850Century_data()
{
    QTest::addColumn<qint64>("reference");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("year");

    const qint64 ref2026 = utc(2026, 11, 29, 12);
    // 2076-11-29 is exactly 50 years ahead: not more than 50 years, so it stays.
    QTest::newRow("same year") << ref2026 << QByteArray("Sunday, 29-Nov-26 00:00:00 GMT") << 2026;
    QTest::newRow("94 is 1994") << ref2026 << QByteArray("Sunday, 06-Nov-94 08:49:37 GMT") << 1994;
    QTest::newRow("70 is 2070") << ref2026 << QByteArray("Wednesday, 01-Jan-70 00:00:00 GMT")
                                << 2070;
    QTest::newRow("50 years ahead, earlier in day stays")
        << ref2026 << QByteArray("Sunday, 29-Nov-76 00:00:00 GMT") << 2076;
    QTest::newRow("just past 50 years goes back")
        << ref2026 << QByteArray("Tuesday, 30-Nov-76 00:00:00 GMT") << 1976;
    QTest::newRow("77 is 1977") << ref2026 << QByteArray("Saturday, 01-Jan-77 00:00:00 GMT")
                                << 1977;
    // Late in a century the next century's years are within 50 years.
    const qint64 ref2090 = utc(2090, 6, 1);
    QTest::newRow("05 from 2090 is 2105")
        << ref2090 << QByteArray("Thursday, 01-Jan-05 00:00:00 GMT") << 2105;
    QTest::newRow("45 from 2090 is 2045")
        << ref2090 << QByteArray("Sunday, 01-Jan-45 00:00:00 GMT") << 2045;
}

void tst_HttpDate::rfc850Century()
{
    QFETCH(qint64, reference);
    QFETCH(QByteArray, text);
    QFETCH(int, year);

    const HttpDate date = HttpDate::parse(text, reference);
    QVERIFY2(date.isValid(), qPrintable(date.error));
    QCOMPARE(QDateTime::fromMSecsSinceEpoch(date.msSinceEpoch, Qt::UTC).date().year(), year);
}

void tst_HttpDate::formatRoundTrip()
{
    for (qint64 ms : {qint64(0), utc(1994, 11, 6, 8, 49, 37), utc(2024, 2, 29, 23, 59, 59),
                      utc(2099, 12, 31, 0, 0, 1)}) {
        const QByteArray text = HttpDate::format(ms);
        QCOMPARE(text.size(), 29);
        const HttpDate back = HttpDate::parse(text, 0);
        QVERIFY2(back.isValid(), text.constData());
        QCOMPARE(back.form, HttpDate::Form::ImfFixdate);
        QCOMPARE(back.msSinceEpoch, ms);
    }
    QCOMPARE(HttpDate::format(utc(1994, 11, 6, 8, 49, 37)),
             QByteArray("Sun, 06 Nov 1994 08:49:37 GMT"));
}

void tst_HttpDate::formatEachForm_data()
{
    QTest::addColumn<int>("form");
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<QByteArray>("text");

    const auto imf = int(HttpDate::Form::ImfFixdate);
    const auto rfc850 = int(HttpDate::Form::Rfc850);
    const auto asctime = int(HttpDate::Form::Asctime);
    const qint64 sample = utc(1994, 11, 6, 8, 49, 37);
    // RFC 9110 §5.6.7's own examples.
    QTest::newRow("imf") << imf << sample << QByteArray("Sun, 06 Nov 1994 08:49:37 GMT");
    QTest::newRow("rfc850") << rfc850 << sample << QByteArray("Sunday, 06-Nov-94 08:49:37 GMT");
    QTest::newRow("asctime") << asctime << sample << QByteArray("Sun Nov  6 08:49:37 1994");
    // A two-digit day needs no padding in asctime; a year 20xx keeps two digits in RFC 850.
    QTest::newRow("imf two-digit day")
        << imf << utc(2026, 11, 29, 12, 0, 10) << QByteArray("Sun, 29 Nov 2026 12:00:10 GMT");
    QTest::newRow("rfc850 this century")
        << rfc850 << utc(2026, 11, 29, 12, 0, 10) << QByteArray("Sunday, 29-Nov-26 12:00:10 GMT");
    QTest::newRow("rfc850 year 2005")
        << rfc850 << utc(2005, 1, 3) << QByteArray("Monday, 03-Jan-05 00:00:00 GMT");
    QTest::newRow("asctime two-digit day")
        << asctime << utc(2026, 11, 29, 12, 0, 10) << QByteArray("Sun Nov 29 12:00:10 2026");
    QTest::newRow("asctime Wednesday")
        << asctime << utc(2024, 2, 28, 23, 59, 59) << QByteArray("Wed Feb 28 23:59:59 2024");
    QTest::newRow("milliseconds dropped")
        << imf << utc(1970, 1, 1) + 999 << QByteArray("Thu, 01 Jan 1970 00:00:00 GMT");
    QTest::newRow("invalid form") << int(HttpDate::Form::Invalid) << sample << QByteArray();
}

void tst_HttpDate::formatEachForm()
{
    QFETCH(int, form);
    QFETCH(qint64, ms);
    QFETCH(QByteArray, text);

    const auto asked = HttpDate::Form(form);
    QCOMPARE(HttpDate::format(ms, asked), text);
    if (asked == HttpDate::Form::Invalid)
        return;
    // What one side writes the other reads back, in the same form, to the second.
    const HttpDate back = HttpDate::parse(text, ms);
    QVERIFY2(back.isValid(), qPrintable(back.error));
    QCOMPARE(back.form, asked);
    QCOMPARE(back.msSinceEpoch, ms - ms % 1000);
}

void tst_HttpDate::daysFromCivilMatchesQDate()
{
    const QDate epoch(1970, 1, 1);
    for (QDate d(1600, 1, 1); d.year() < 2401; d = d.addDays(37))
        QCOMPARE(daysFromCivil(d.year(), d.month(), d.day()), epoch.daysTo(d));
}

QTEST_GUILESS_MAIN(tst_HttpDate)
#include "tst_httpdate.moc"
