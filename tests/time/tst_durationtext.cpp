// SPDX-License-Identifier: Apache-2.0
#include "core/time/DurationText.h"

#include <QTest>

using namespace cooldown;

class tst_DurationText : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void writtenBack_data();
    void writtenBack();
};

namespace {
constexpr qint64 kS = 1000;
constexpr qint64 kM = 60 * kS;
constexpr qint64 kH = 60 * kM;
constexpr qint64 kD = 24 * kH;
} // namespace

void tst_DurationText::parse_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("expected"); // -1: refused

    QTest::newRow("seconds") << "45s" << 45 * kS;
    QTest::newRow("minutes") << "90m" << 90 * kM;
    QTest::newRow("hours") << "2h" << 2 * kH;
    QTest::newRow("days") << "3d" << 3 * kD;
    QTest::newRow("hours and minutes") << "1h30m" << kH + 30 * kM;
    QTest::newRow("all units") << "1d2h3m4s" << kD + 2 * kH + 3 * kM + 4 * kS;
    QTest::newRow("leading zero") << "08h" << 8 * kH;
    QTest::newRow("empty") << "" << qint64(-1);
    QTest::newRow("bare number") << "30" << qint64(-1);
    QTest::newRow("zero") << "0m" << qint64(-1);
    QTest::newRow("unknown unit") << "2w" << qint64(-1);
    QTest::newRow("upper case") << "2H" << qint64(-1);
    QTest::newRow("smaller first") << "30m1h" << qint64(-1);
    QTest::newRow("unit twice") << "1h1h" << qint64(-1);
    QTest::newRow("space") << "1h 30m" << qint64(-1);
    QTest::newRow("negative") << "-1h" << qint64(-1);
    QTest::newRow("fraction") << "1.5h" << qint64(-1);
    QTest::newRow("unit alone") << "h" << qint64(-1);
    QTest::newRow("over ten years") << "4000d" << qint64(-1);
    QTest::newRow("overflowing digits") << "99999999999999999999s" << qint64(-1);
}

void tst_DurationText::parse()
{
    QFETCH(QString, text);
    QFETCH(qint64, expected);
    const std::optional<qint64> ms = parseDurationMs(text);
    if (expected < 0) {
        QVERIFY2(!ms, qPrintable(QString::number(ms.value_or(0))));
        return;
    }
    QVERIFY(ms);
    QCOMPARE(*ms, expected);
}

void tst_DurationText::writtenBack_data()
{
    QTest::addColumn<qint64>("ms");
    QTest::addColumn<QString>("expected");

    QTest::newRow("hours and minutes") << kH + 30 * kM << "1h30m";
    QTest::newRow("days") << 2 * kD << "2d";
    QTest::newRow("days and seconds") << kD + 5 * kS << "1d5s";
    QTest::newRow("under a second") << qint64(250) << "250ms";
}

void tst_DurationText::writtenBack()
{
    QFETCH(qint64, ms);
    QFETCH(QString, expected);
    QCOMPARE(durationText(ms), expected);
    if (ms >= kS && ms % kS == 0)
        QCOMPARE(parseDurationMs(durationText(ms)).value_or(-1), ms);
}

QTEST_APPLESS_MAIN(tst_DurationText)
#include "tst_durationtext.moc"
