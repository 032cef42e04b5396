// SPDX-License-Identifier: Apache-2.0
#include "core/check/JsonPointer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace cooldown;

class TestJsonPointer : public QObject
{
    Q_OBJECT

private:
    // The document of RFC 6901, section 5.
    static QJsonValue rfcDocument()
    {
        QJsonObject document{{"foo", QJsonArray{"bar", "baz"}},
                             {"", 0},
                             {"a/b", 1},
                             {"c%d", 2},
                             {"e^f", 3},
                             {"g|h", 4},
                             {"i\\j", 5},
                             {"k\"l", 6},
                             {" ", 7},
                             {"m~n", 8}};
        return document;
    }

private slots:
    void rfcExamples_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("expected"); // compact JSON of what it names
        QTest::newRow("foo") << "/foo"
                             << "[\"bar\",\"baz\"]";
        QTest::newRow("foo/0") << "/foo/0"
                               << "[\"bar\"]";
        QTest::newRow("empty token") << "/"
                                     << "[0]";
        QTest::newRow("slash escaped") << "/a~1b"
                                       << "[1]";
        QTest::newRow("percent") << "/c%d"
                                 << "[2]";
        QTest::newRow("caret") << "/e^f"
                               << "[3]";
        QTest::newRow("bar") << "/g|h"
                             << "[4]";
        QTest::newRow("backslash") << "/i\\j"
                                   << "[5]";
        QTest::newRow("quote") << "/k\"l"
                               << "[6]";
        QTest::newRow("space") << "/ "
                               << "[7]";
        QTest::newRow("tilde escaped") << "/m~0n"
                                       << "[8]";
    }

    void rfcExamples()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, expected);
        QString error;
        const auto parsed = JsonPointer::parse(pointer, &error);
        QVERIFY2(parsed, qPrintable(error));
        const auto found = parsed->find(rfcDocument());
        QVERIFY(found);
        const QJsonArray wrapped = found->isArray() ? found->toArray() : QJsonArray{*found};
        QCOMPARE(QString::fromUtf8(QJsonDocument(wrapped).toJson(QJsonDocument::Compact)),
                 expected);
    }

    void wholeDocument()
    {
        QString error;
        const auto parsed = JsonPointer::parse(QString(), &error);
        QVERIFY(parsed);
        QCOMPARE(parsed->find(rfcDocument()), std::optional<QJsonValue>(rfcDocument()));
    }

    void notThere_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::newRow("missing member") << "/nope";
        QTest::newRow("index past end") << "/foo/2";
        QTest::newRow("leading zero") << "/foo/01";
        QTest::newRow("dash") << "/foo/-";
        QTest::newRow("not a number") << "/foo/x";
        QTest::newRow("into a number") << "/a~1b/0";
        QTest::newRow("unescaped slash means two tokens") << "/a/b";
    }

    void notThere()
    {
        QFETCH(QString, pointer);
        QString error;
        const auto parsed = JsonPointer::parse(pointer, &error);
        QVERIFY2(parsed, qPrintable(error));
        QVERIFY(!parsed->find(rfcDocument()));
    }

    void refused_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("error");
        QTest::newRow("no slash") << "status"
                                  << "begins with '/'";
        QTest::newRow("bad escape") << "/a~2"
                                    << "followed by 0 or 1";
        QTest::newRow("tilde at end") << "/a~"
                                      << "followed by 0 or 1";
    }

    void refused()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, error);
        QString message;
        QVERIFY(!JsonPointer::parse(pointer, &message));
        QVERIFY2(message.contains(error), qPrintable(message));
    }
};

QTEST_APPLESS_MAIN(TestJsonPointer)
#include "tst_jsonpointer.moc"
