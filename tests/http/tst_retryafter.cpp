// SPDX-License-Identifier: Apache-2.0
#include "core/http/RetryAfter.h"
#include "support/ReadableEnums.h"

#include <QDateTime>
#include <QTest>

using namespace cooldown;

namespace {
qint64 utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0)
{
    return QDateTime(QDate(y, mo, d), QTime(h, mi, s), Qt::UTC).toMSecsSinceEpoch();
}
const qint64 kNow = utc(2026, 11, 29, 12, 0, 0);
} // namespace

class tst_RetryAfter : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void absent();
    void saturates();
    void measuredAgainstDate_data();
    void measuredAgainstDate();
    void fractionalNow();
};

void tst_RetryAfter::parse_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QString>("form");
    QTest::addColumn<qint64>("waitMs");

    const qint64 bad = -1;
    QTest::newRow("zero") << QByteArray("0") << "delta" << qint64(0);
    QTest::newRow("seconds") << QByteArray("120") << "delta" << qint64(120000);
    QTest::newRow("leading zeros") << QByteArray("007") << "delta" << qint64(7000);
    QTest::newRow("ows both sides") << QByteArray(" \t120\t ") << "delta" << qint64(120000);
    QTest::newRow("plus sign") << QByteArray("+1") << "invalid" << bad;
    QTest::newRow("minus sign") << QByteArray("-1") << "invalid" << bad;
    QTest::newRow("decimal") << QByteArray("1.0") << "invalid" << bad;
    QTest::newRow("list") << QByteArray("120, 5") << "invalid" << bad;
    QTest::newRow("inner space") << QByteArray("1 20") << "invalid" << bad;
    QTest::newRow("unit") << QByteArray("120s") << "invalid" << bad;
    QTest::newRow("hex") << QByteArray("0x10") << "invalid" << bad;
    QTest::newRow("arabic-indic digits") << QByteArray("\xd9\xa1\xd9\xa2") << "invalid" << bad;
    QTest::newRow("fullwidth digits") << QByteArray("\xef\xbc\x91\xef\xbc\x92") << "invalid" << bad;
    QTest::newRow("empty") << QByteArray("") << "invalid" << bad;
    QTest::newRow("only spaces") << QByteArray("   ") << "invalid" << bad;
    QTest::newRow("newline is not ows") << QByteArray("120\n") << "invalid" << bad;
    QTest::newRow("word") << QByteArray("soon") << "invalid" << bad;

    QTest::newRow("imf in future")
        << QByteArray("Sun, 29 Nov 2026 12:02:00 GMT") << "imf-fixdate" << qint64(120000);
    QTest::newRow("rfc850 in future")
        << QByteArray("Sunday, 29-Nov-26 12:00:30 GMT") << "rfc850" << qint64(30000);
    QTest::newRow("asctime in future")
        << QByteArray("Sun Nov 29 13:00:00 2026") << "asctime" << qint64(3600000);
    QTest::newRow("date in past means zero")
        << QByteArray("Sun, 06 Nov 1994 08:49:37 GMT") << "imf-fixdate" << qint64(0);
    QTest::newRow("date equal to now")
        << QByteArray("Sun, 29 Nov 2026 12:00:00 GMT") << "imf-fixdate" << qint64(0);
    QTest::newRow("date with ows")
        << QByteArray("  Sun, 29 Nov 2026 12:00:01 GMT ") << "imf-fixdate" << qint64(1000);
    QTest::newRow("date in other zone")
        << QByteArray("Sun, 29 Nov 2026 12:02:00 CET") << "invalid" << bad;
    QTest::newRow("date lowercase")
        << QByteArray("sun, 29 nov 2026 12:02:00 gmt") << "invalid" << bad;
    QTest::newRow("date out of range")
        << QByteArray("Mon, 30 Nov 2026 25:00:00 GMT") << "invalid" << bad;
}

void tst_RetryAfter::parse()
{
    QFETCH(QByteArray, raw);
    QFETCH(QString, form);
    QFETCH(qint64, waitMs);

    const RetryAfter ra = RetryAfter::parse(raw, kNow);
    QCOMPARE(QString::fromLatin1(textOf(ra.form)), form);
    QCOMPARE(ra.raw, raw);
    if (form == QLatin1String("invalid")) {
        QVERIFY(!ra.isValid());
        QVERIFY2(!ra.error.isEmpty(), "a malformed value says why");
        QCOMPARE(ra.waitMs, qint64(0));
    } else {
        QVERIFY(ra.isValid());
        QCOMPARE(ra.waitMs, waitMs);
    }
}

void tst_RetryAfter::absent()
{
    const RetryAfter ra = RetryAfter::parse(std::nullopt, kNow);
    QCOMPARE(ra.form, RetryAfter::Form::Absent);
    QVERIFY(!ra.isPresent());
    QVERIFY(!ra.isValid());
}

void tst_RetryAfter::saturates()
{
    // One digit below the limit, the limit, and far past any integer width.
    const QByteArray justBelow = QByteArray::number(RetryAfter::kMaxSeconds - 1);
    RetryAfter ra = RetryAfter::parse(justBelow, kNow);
    QVERIFY(!ra.saturated);
    QCOMPARE(ra.waitMs, (RetryAfter::kMaxSeconds - 1) * 1000);

    ra = RetryAfter::parse(QByteArray::number(RetryAfter::kMaxSeconds + 1), kNow);
    QVERIFY(ra.saturated);
    QCOMPARE(ra.waitMs, RetryAfter::kMaxSeconds * 1000);

    ra = RetryAfter::parse(QByteArray(400, '9'), kNow);
    QCOMPARE(ra.form, RetryAfter::Form::Delta);
    QVERIFY(ra.saturated);
    QCOMPARE(ra.waitMs, RetryAfter::kMaxSeconds * 1000);
    QVERIFY(ra.waitMs > 0);

    // Digits after the overflow point are still checked.
    ra = RetryAfter::parse(QByteArray(400, '9') + 'x', kNow);
    QCOMPARE(ra.form, RetryAfter::Form::Invalid);
}

void tst_RetryAfter::measuredAgainstDate_data()
{
    QTest::addColumn<QByteArray>("date");
    QTest::addColumn<qint64>("waitMs");
    QTest::addColumn<bool>("usedDate");

    const QByteArray retryAt("Sun, 29 Nov 2026 12:05:00 GMT");
    Q_UNUSED(retryAt);
    // The server's clock runs 3 minutes behind ours: its "12:05" is 5 minutes from its now.
    QTest::newRow("server behind")
        << QByteArray("Sun, 29 Nov 2026 11:57:00 GMT") << qint64(480000) << true;
    QTest::newRow("server ahead") << QByteArray("Sun, 29 Nov 2026 12:04:00 GMT") << qint64(60000)
                                  << true;
    QTest::newRow("server in sync")
        << QByteArray("Sun, 29 Nov 2026 12:00:00 GMT") << qint64(300000) << true;
    QTest::newRow("date malformed") << QByteArray("yesterday") << qint64(300000) << false;
    QTest::newRow("date insane, two days off")
        << QByteArray("Fri, 27 Nov 2026 12:00:00 GMT") << qint64(300000) << false;
    QTest::newRow("date exactly at skew limit")
        << QByteArray("Sat, 28 Nov 2026 12:00:00 GMT") << qint64(24 * 3600000 + 300000) << true;
}

void tst_RetryAfter::measuredAgainstDate()
{
    QFETCH(QByteArray, date);
    QFETCH(qint64, waitMs);
    QFETCH(bool, usedDate);

    const RetryAfter ra =
        RetryAfter::parse(QByteArray("Sun, 29 Nov 2026 12:05:00 GMT"), kNow, date);
    QVERIFY(ra.isValid());
    QCOMPARE(ra.measuredAgainstDate, usedDate);
    QCOMPARE(ra.waitMs, waitMs);

    // Delay-seconds never depend on Date.
    const RetryAfter delta = RetryAfter::parse(QByteArray("30"), kNow, date);
    QCOMPARE(delta.waitMs, qint64(30000));
    QVERIFY(!delta.measuredAgainstDate);
}

void tst_RetryAfter::fractionalNow()
{
    // The client's clock has milliseconds; HTTP-dates do not.
    const RetryAfter ra =
        RetryAfter::parse(QByteArray("Sun, 29 Nov 2026 12:00:10 GMT"), kNow + 250);
    QCOMPARE(ra.waitMs, qint64(9750));
}

QTEST_GUILESS_MAIN(tst_RetryAfter)
#include "tst_retryafter.moc"
