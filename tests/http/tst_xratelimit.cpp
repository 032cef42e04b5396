// SPDX-License-Identifier: Apache-2.0
#include "core/http/HttpDate.h"
#include "core/http/XRateLimit.h"
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
QByteArray epochSeconds(qint64 ms)
{
    return QByteArray::number(ms / 1000);
}
} // namespace

Q_DECLARE_METATYPE(XRateLimitResetMeaning)

class tst_XRateLimit : public QObject
{
    Q_OBJECT

private slots:
    void reset_data();
    void reset();
    void remainingGatesTheWait_data();
    void remainingGatesTheWait();
    void measuredAgainstDate();
    void absent();
    void meaningNames();
};

void tst_XRateLimit::reset_data()
{
    using M = XRateLimitResetMeaning;
    QTest::addColumn<XRateLimitResetMeaning>("meaning");
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<XRateLimitResetMeaning>("used");
    QTest::addColumn<qint64>("waitMs"); // -1: the reset did not parse

    QTest::newRow("delta") << M::Delta << QByteArray("30") << M::Delta << qint64(30000);
    QTest::newRow("delta fraction") << M::Delta << QByteArray("1.5") << M::Delta << qint64(1500);
    QTest::newRow("delta zero") << M::Delta << QByteArray("0") << M::Delta << qint64(0);
    QTest::newRow("delta negative") << M::Delta << QByteArray("-5") << M::Delta << qint64(-1);
    QTest::newRow("delta word") << M::Delta << QByteArray("soon") << M::Delta << qint64(-1);
    QTest::newRow("delta 4 fraction digits")
        << M::Delta << QByteArray("1.2345") << M::Delta << qint64(-1);
    QTest::newRow("epoch") << M::Epoch << epochSeconds(kNow + 60000) << M::Epoch << qint64(60000);
    QTest::newRow("epoch in the past")
        << M::Epoch << epochSeconds(kNow - 60000) << M::Epoch << qint64(0);
    // Configured as epoch, a small number is an instant in 1970: no wait, and the
    // record says which meaning made it so.
    QTest::newRow("epoch given a delta") << M::Epoch << QByteArray("30") << M::Epoch << qint64(0);
    QTest::newRow("epoch-ms") << M::EpochMs << QByteArray::number(kNow + 2500) << M::EpochMs
                              << qint64(2500);
    QTest::newRow("epoch-ms fraction")
        << M::EpochMs << QByteArray("1.5") << M::EpochMs << qint64(-1);
    QTest::newRow("http-date") << M::HttpDate << QByteArray("Sun, 29 Nov 2026 12:01:00 GMT")
                               << M::HttpDate << qint64(60000);
    QTest::newRow("http-date given digits")
        << M::HttpDate << QByteArray("30") << M::HttpDate << qint64(-1);
    QTest::newRow("auto small is delta")
        << M::Auto << QByteArray("45") << M::Delta << qint64(45000);
    QTest::newRow("auto 10^9 is still delta")
        << M::Auto << QByteArray("1000000000") << M::Delta << qint64(1'000'000'000'000LL);
    QTest::newRow("auto above 10^9 is epoch")
        << M::Auto << epochSeconds(kNow + 90000) << M::Epoch << qint64(90000);
    QTest::newRow("auto epoch with fraction")
        << M::Auto << epochSeconds(kNow + 90000) + ".5" << M::Epoch << qint64(90500);
    QTest::newRow("auto above 10^12 is epoch-ms")
        << M::Auto << QByteArray::number(kNow + 4000) << M::EpochMs << qint64(4000);
    QTest::newRow("auto date") << M::Auto << QByteArray("Sun, 29 Nov 2026 12:00:10 GMT")
                               << M::HttpDate << qint64(10000);
    QTest::newRow("auto garbage") << M::Auto << QByteArray("soon") << M::HttpDate << qint64(-1);
    QTest::newRow("auto 16 digits")
        << M::Auto << QByteArray("1000000000000000") << M::EpochMs << qint64(-1);
}

void tst_XRateLimit::reset()
{
    QFETCH(XRateLimitResetMeaning, meaning);
    QFETCH(QByteArray, raw);
    QFETCH(XRateLimitResetMeaning, used);
    QFETCH(qint64, waitMs);

    const HttpHeaders headers{
        {"X-RateLimit-Limit", "100"}, {"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", raw}};
    const XRateLimit x = XRateLimit::parse(headers, meaning, kNow);
    QVERIFY(x.isPresent());
    QCOMPARE(x.configured, meaning);
    QCOMPARE(x.used, used);
    QCOMPARE(x.limit.value_or(-1), 100);
    QCOMPARE(x.remaining.value_or(-1), 0);
    QCOMPARE(x.rawReset.value(), raw);
    if (waitMs < 0) {
        QVERIFY(!x.resetAtMs);
        QVERIFY(!x.givesWait());
        QVERIFY(x.error.startsWith(QLatin1String("X-RateLimit-Reset: ")));
    } else {
        QVERIFY2(x.error.isEmpty(), qPrintable(x.error));
        QCOMPARE(x.waitMs, waitMs);
        QCOMPARE(x.resetAtMs.value(), kNow + waitMs);
        QVERIFY(x.givesWait());
    }
    QCOMPARE(x.toJson().value(QStringLiteral("reset_meaning")).toString(),
             QLatin1String(textOf(used)));
}

void tst_XRateLimit::remainingGatesTheWait_data()
{
    QTest::addColumn<QByteArray>("remaining"); // null: absent
    QTest::addColumn<bool>("givesWait");
    QTest::addColumn<bool>("error");
    QTest::newRow("zero") << QByteArray("0") << true << false;
    QTest::newRow("some left") << QByteArray("5") << false << false;
    QTest::newRow("absent") << QByteArray() << false << false;
    QTest::newRow("negative") << QByteArray("-1") << false << true;
    QTest::newRow("list") << QByteArray("0, 0") << false << true;
}

void tst_XRateLimit::remainingGatesTheWait()
{
    QFETCH(QByteArray, remaining);
    QFETCH(bool, givesWait);
    QFETCH(bool, error);
    HttpHeaders headers{{"X-RateLimit-Reset", "20"}};
    if (!remaining.isNull())
        headers.append("X-RateLimit-Remaining", remaining);
    const XRateLimit x = XRateLimit::parse(headers, XRateLimitResetMeaning::Auto, kNow);
    QCOMPARE(x.givesWait(), givesWait);
    QCOMPARE(!x.error.isEmpty(), error);
    QCOMPARE(x.waitMs, 20000);
}

void tst_XRateLimit::measuredAgainstDate()
{
    // The server's clock is 10 s behind ours: its epoch reset is 60 s from its now.
    const qint64 serverNow = kNow - 10000;
    const HttpHeaders headers{{"Date", HttpDate::format(serverNow)},
                              {"X-RateLimit-Remaining", "0"},
                              {"X-RateLimit-Reset", epochSeconds(serverNow + 60000)}};
    const XRateLimit x = XRateLimit::parse(headers, XRateLimitResetMeaning::Epoch, kNow);
    QCOMPARE(x.waitMs, 60000);
    QVERIFY(x.measuredAgainstDate);

    // A delta does not depend on any clock.
    const HttpHeaders delta{{"Date", HttpDate::format(serverNow)}, {"X-RateLimit-Reset", "60"}};
    const XRateLimit d = XRateLimit::parse(delta, XRateLimitResetMeaning::Delta, kNow);
    QCOMPARE(d.waitMs, 60000);
    QVERIFY(!d.measuredAgainstDate);

    // A Date two days off is not trusted: the client's clock is used.
    const HttpHeaders insane{{"Date", HttpDate::format(kNow - 2 * 86400000LL)},
                             {"X-RateLimit-Reset", epochSeconds(kNow + 30000)}};
    const XRateLimit i = XRateLimit::parse(insane, XRateLimitResetMeaning::Epoch, kNow);
    QCOMPARE(i.waitMs, 30000);
    QVERIFY(!i.measuredAgainstDate);
}

void tst_XRateLimit::absent()
{
    const XRateLimit x =
        XRateLimit::parse(HttpHeaders{{"Retry-After", "1"}}, XRateLimitResetMeaning::Auto, kNow);
    QVERIFY(!x.isPresent());
    QVERIFY(!x.givesWait());
    QVERIFY(x.error.isEmpty());
}

void tst_XRateLimit::meaningNames()
{
    for (const char *name : {"auto", "delta", "epoch", "epoch-ms", "http-date"}) {
        const auto meaning = xRateLimitResetMeaningFromString(QString::fromLatin1(name));
        QVERIFY(meaning);
        QCOMPARE(textOf(*meaning), name);
    }
    QVERIFY(!xRateLimitResetMeaningFromString(u"Epoch"));
    QVERIFY(!xRateLimitResetMeaningFromString(u"seconds"));
}

QTEST_GUILESS_MAIN(tst_XRateLimit)
#include "tst_xratelimit.moc"
