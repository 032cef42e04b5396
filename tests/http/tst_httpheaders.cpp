// SPDX-License-Identifier: Apache-2.0
#include "core/http/HttpHeaders.h"

#include <QTest>

using namespace cooldown;

class tst_HttpHeaders : public QObject
{
    Q_OBJECT

private slots:
    void appendLine_data();
    void appendLine();
};

void tst_HttpHeaders::appendLine_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<bool>("accepted");
    QTest::addColumn<QByteArray>("name");
    QTest::addColumn<QByteArray>("value");

    QTest::newRow("field") << QByteArray("Retry-After: 120") << true << QByteArray("Retry-After")
                           << QByteArray("120");
    QTest::newRow("no space after the colon")
        << QByteArray("Retry-After:120") << true << QByteArray("Retry-After") << QByteArray("120");
    QTest::newRow("value trimmed, inside kept")
        << QByteArray("X-A: \t a  b \t") << true << QByteArray("X-A") << QByteArray("a  b");
    QTest::newRow("empty value") << QByteArray("X-A:") << true << QByteArray("X-A") << QByteArray();
    QTest::newRow("every tchar") << QByteArray("!#$%&'*+-.^_`|~09azAZ: v") << true
                                 << QByteArray("!#$%&'*+-.^_`|~09azAZ") << QByteArray("v");
    QTest::newRow("colon in the value") << QByteArray("Location: http://h:8080/") << true
                                        << QByteArray("Location") << QByteArray("http://h:8080/");

    // RFC 9110 §5.1: a field name is a token; RFC 9112 §5.1: no whitespace before the colon.
    QTest::newRow("no colon") << QByteArray("Retry-After 120") << false << QByteArray()
                              << QByteArray();
    QTest::newRow("no name") << QByteArray(": 120") << false << QByteArray() << QByteArray();
    QTest::newRow("space inside") << QByteArray("Retry After: 1") << false << QByteArray()
                                  << QByteArray();
    QTest::newRow("space before the colon")
        << QByteArray("Retry-After : 1") << false << QByteArray() << QByteArray();
    QTest::newRow("continuation line")
        << QByteArray(" Retry-After: 1") << false << QByteArray() << QByteArray();
    QTest::newRow("tab before") << QByteArray("\tX: 1") << false << QByteArray() << QByteArray();
    QTest::newRow("quote") << QByteArray("X\"A: 1") << false << QByteArray() << QByteArray();
    QTest::newRow("separator") << QByteArray("X(A): 1") << false << QByteArray() << QByteArray();
    QTest::newRow("slash") << QByteArray("X/A: 1") << false << QByteArray() << QByteArray();
    QTest::newRow("control") << QByteArray("X\x01"
                                           "A: 1")
                             << false << QByteArray() << QByteArray();
    QTest::newRow("non-ascii") << QByteArray("X-\xc3\xa9: 1") << false << QByteArray()
                               << QByteArray();
    QTest::newRow("cr") << QByteArray("X-A\r: 1") << false << QByteArray() << QByteArray();
}

void tst_HttpHeaders::appendLine()
{
    QFETCH(QByteArray, line);
    QFETCH(bool, accepted);
    QFETCH(QByteArray, name);
    QFETCH(QByteArray, value);

    HttpHeaders headers;
    QCOMPARE(headers.appendLine(line), accepted);
    if (!accepted) {
        QVERIFY(headers.isEmpty()); // nothing half-added
        return;
    }
    QCOMPARE(headers.fields().size(), 1);
    QCOMPARE(headers.fields().first().first, name);
    QCOMPARE(headers.fields().first().second, value);
}

QTEST_GUILESS_MAIN(tst_HttpHeaders)
#include "tst_httpheaders.moc"
