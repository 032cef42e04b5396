// SPDX-License-Identifier: Apache-2.0
#include "core/import/ShellWords.h"

#include <QTest>

using namespace cooldown;

// Command lines split as bash and as Windows cmd would, without running anything.
class tst_ShellWords : public QObject
{
    Q_OBJECT

private slots:
    void split_data();
    void split();
    void refused_data();
    void refused();
};

void tst_ShellWords::split_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<bool>("cmd");

    QTest::newRow("plain") << "curl https://a.example/x"
                           << QStringList{"curl", "https://a.example/x"} << false;
    QTest::newRow("single quotes keep everything")
        << "curl -H 'X-A: \"b\" $HOME \\n'" << QStringList{"curl", "-H", "X-A: \"b\" $HOME \\n"}
        << false;
    QTest::newRow("double quotes and their escapes")
        << "curl -d \"{\\\"a\\\": \\\"\\\\x\\\"}\"" << QStringList{"curl", "-d", "{\"a\": \"\\x\"}"}
        << false;
    QTest::newRow("a variable becomes a reference")
        << "curl -H \"Authorization: Bearer $TOKEN\" https://a.example/${PATH_PART}/x"
        << QStringList{"curl", "-H", "Authorization: Bearer ${env:TOKEN}",
                       "https://a.example/${env:PATH_PART}/x"}
        << false;
    QTest::newRow("a lone dollar stays")
        << "curl -d 'a' -d \"$ 5\" -d $" << QStringList{"curl", "-d", "a", "-d", "$ 5", "-d", "$"}
        << false;
    QTest::newRow("backslash continuations")
        << "curl \\\n  -X POST \\\r\n  https://a.example"
        << QStringList{"curl", "-X", "POST", "https://a.example"} << false;
    QTest::newRow("ansi-c quoting from a browser")
        << "curl --data-raw $'{\"a\":\"it\\'s\\n\\u00e9\\x41\"}'"
        << QStringList{"curl", "--data-raw", QStringLiteral("{\"a\":\"it's\n\u00e9A\"}")} << false;
    QTest::newRow("words glued from parts")
        << "curl a'b'\"c\"d" << QStringList{"curl", "abcd"} << false;
    QTest::newRow("empty quotes are a word")
        << "curl -d '' x" << QStringList{"curl", "-d", "", "x"} << false;
    QTest::newRow("cmd from a browser")
        << "curl ^\"https://a.example/x?y=1^&z=2^\" ^\n  -H ^\"accept: */*^\" ^\n  --data-raw "
           "^\"^{^\\^\"a^\\^\":1^}^\""
        << QStringList{"curl",     "https://a.example/x?y=1&z=2", "-H", "accept: */*", "--data-raw",
                       "{\"a\":1}"}
        << true;
    QTest::newRow("cmd backslashes before a quote")
        << "curl -d ^\"a\\\\\\^\"b^\" ^\n x" << QStringList{"curl", "-d", "a\\\"b", "x"} << true;
}

void tst_ShellWords::split()
{
    QFETCH(QString, text);
    QFETCH(QStringList, words);
    QFETCH(bool, cmd);
    QString error;
    const std::optional<ShellWords> got = splitShellWords(text, &error);
    QVERIFY2(got, qPrintable(error));
    QCOMPARE(got->style, cmd ? ShellStyle::Cmd : ShellStyle::Bash);
    QCOMPARE(got->words, words);
}

void tst_ShellWords::refused_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");

    QTest::newRow("empty") << "  \n "
                           << "the command is empty";
    QTest::newRow("open single quote") << "curl -d 'abc"
                                       << "a ' opened at line 1, column 9 is not closed";
    QTest::newRow("open double quote on line 2") << "curl \\\n -H \"X: y"
                                                 << "a \" opened at line 2, column 5 is not closed";
    QTest::newRow("open ansi-c quote") << "curl -d $'abc"
                                       << "a $' opened at line 1, column 9";
    QTest::newRow("cmd open quote") << "curl ^\"x^\" \"abc"
                                    << "is not closed";
}

void tst_ShellWords::refused()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    QString error;
    QVERIFY(!splitShellWords(text, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

QTEST_APPLESS_MAIN(tst_ShellWords)
#include "tst_shellwords.moc"
