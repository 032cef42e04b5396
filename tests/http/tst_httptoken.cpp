// SPDX-License-Identifier: Apache-2.0
#include "core/http/HttpToken.h"

#include <QTest>

using namespace cooldown;

class tst_HttpToken : public QObject
{
    Q_OBJECT

private slots:
    void tchar();
    void token_data();
    void token();
};

void tst_HttpToken::tchar()
{
    const QByteArray allowed = "!#$%&'*+-.^_`|~0123456789"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    for (int c = 0; c < 0x180; ++c) {
        const bool expected = c < 0x80 && allowed.contains(char(c));
        QVERIFY2(isTchar(char16_t(c)) == expected,
                 qPrintable(QStringLiteral("U+%1").arg(c, 4, 16, QLatin1Char('0'))));
    }
}

void tst_HttpToken::token_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");

    QTest::newRow("method") << "GET" << true;
    QTest::newRow("lower-case method") << "patch" << true;
    QTest::newRow("field name") << "Idempotency-Key" << true;
    QTest::newRow("every tchar") << "!#$%&'*+-.^_`|~09AZaz" << true;
    QTest::newRow("one character") << "x" << true;

    QTest::newRow("empty") << "" << false;
    QTest::newRow("space inside") << "GE T" << false;
    QTest::newRow("leading space") << " GET" << false;
    QTest::newRow("trailing newline") << "GET\n" << false;
    QTest::newRow("tab") << "X-A\tB" << false;
    QTest::newRow("colon") << "Host:" << false;
    QTest::newRow("slash") << "a/b" << false;
    QTest::newRow("quote") << "\"a\"" << false;
    QTest::newRow("parentheses") << "(a)" << false;
    QTest::newRow("comma") << "a,b" << false;
    QTest::newRow("semicolon") << "a;b" << false;
    QTest::newRow("equals") << "a=b" << false;
    QTest::newRow("brackets and braces") << "[a]{b}" << false;
    QTest::newRow("at sign") << "a@b" << false;
    QTest::newRow("question mark") << "a?" << false;
    QTest::newRow("backslash") << "a\\b" << false;
    QTest::newRow("angle brackets") << "<a>" << false;
    QTest::newRow("DEL") << "a\x7f" << false;
    QTest::newRow("NUL") << QString(QChar(0)) << false;
    QTest::newRow("non-ASCII letter") << QString::fromUtf8("caf\xc3\xa9") << false;
    QTest::newRow("full-width letter") << QStringLiteral("\uff27ET") << false;
}

void tst_HttpToken::token()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);

    QCOMPARE(isToken(QStringView(text)), valid);
    // The bytes as they come off the wire, UTF-8 for what is not ASCII.
    QCOMPARE(isToken(QByteArrayView(text.toUtf8())), valid);
}

QTEST_GUILESS_MAIN(tst_HttpToken)
#include "tst_httptoken.moc"
