// SPDX-License-Identifier: Apache-2.0
#include "core/NumberText.h"

#include <QTest>

#include <limits>

using namespace cooldown;

class tst_NumberText : public QObject
{
    Q_OBJECT

private slots:
    void parseInteger_data();
    void parseInteger();
};

void tst_NumberText::parseInteger_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("min");
    QTest::addColumn<qint64>("max");
    QTest::addColumn<qint64>("expected"); // -1: refused (every range below is non-negative)

    QTest::newRow("inside") << "42" << qint64(0) << qint64(100) << qint64(42);
    QTest::newRow("at min") << "1" << qint64(1) << qint64(5) << qint64(1);
    QTest::newRow("at max") << "65535" << qint64(0) << qint64(65535) << qint64(65535);
    QTest::newRow("largest qint64")
        << "9223372036854775807" << qint64(0) << std::numeric_limits<qint64>::max()
        << std::numeric_limits<qint64>::max();

    QTest::newRow("below min") << "0" << qint64(1) << qint64(5) << qint64(-1);
    QTest::newRow("above max") << "65536" << qint64(0) << qint64(65535) << qint64(-1);
    QTest::newRow("negative") << "-1" << qint64(0) << qint64(5) << qint64(-1);
    QTest::newRow("beyond qint64")
        << "9223372036854775808" << qint64(0) << std::numeric_limits<qint64>::max() << qint64(-1);
    QTest::newRow("fraction") << "1.5" << qint64(0) << qint64(5) << qint64(-1);
    QTest::newRow("exponent") << "1e3" << qint64(0) << qint64(5000) << qint64(-1);
    QTest::newRow("word") << "many" << qint64(0) << qint64(5) << qint64(-1);
    QTest::newRow("trailing word") << "5x" << qint64(0) << qint64(5) << qint64(-1);
    QTest::newRow("empty") << "" << qint64(0) << qint64(5) << qint64(-1);
}

void tst_NumberText::parseInteger()
{
    QFETCH(QString, text);
    QFETCH(qint64, min);
    QFETCH(qint64, max);
    QFETCH(qint64, expected);

    QCOMPARE(cooldown::parseInteger(text, min, max).value_or(-1), expected);
}

QTEST_GUILESS_MAIN(tst_NumberText)
#include "tst_numbertext.moc"
