// SPDX-License-Identifier: Apache-2.0
#include "core/time/IsoTime.h"

#include <QTest>

#include <time.h>

using namespace cooldown;

class tst_IsoTime : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void parse_data();
    void parse();
};

namespace {
constexpr qint64 kTen = 1796205600000; // 2026-12-02T10:00:00Z
} // namespace

void tst_IsoTime::initTestCase()
{
    // A zone nine hours from UTC, so that reading a time without an offset as local
    // time would be caught.
    qputenv("TZ", "Asia/Tokyo");
    tzset();
}

void tst_IsoTime::parse_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("expected"); // -1: refused

    QTest::newRow("utc") << "2026-12-02T10:00:00Z" << kTen;
    QTest::newRow("milliseconds") << "2026-12-02T10:00:00.250Z" << kTen + 250;
    // Without an offset it is UTC, whatever the machine's time zone.
    QTest::newRow("no offset") << "2026-12-02T10:00:00" << kTen;
    QTest::newRow("no offset, milliseconds") << "2026-12-02T10:00:00.5" << kTen + 500;
    QTest::newRow("offset") << "2026-12-02T11:00:00+01:00" << kTen;
    QTest::newRow("negative offset") << "2026-12-02T05:00:00-05:00" << kTen;
    QTest::newRow("empty") << "" << qint64(-1);
    QTest::newRow("words") << "yesterday" << qint64(-1);
    QTest::newRow("no such day") << "2026-02-30T10:00:00Z" << qint64(-1);
    QTest::newRow("http date") << "Wed, 02 Dec 2026 10:00:00 GMT" << qint64(-1);
}

void tst_IsoTime::parse()
{
    QFETCH(QString, text);
    QFETCH(qint64, expected);
    const std::optional<qint64> ms = parseIsoTimeMs(text);
    if (expected < 0) {
        QVERIFY2(!ms, qPrintable(QString::number(ms.value_or(0))));
        return;
    }
    QVERIFY(ms);
    QCOMPARE(*ms, expected);
}

QTEST_GUILESS_MAIN(tst_IsoTime)
#include "tst_isotime.moc"
