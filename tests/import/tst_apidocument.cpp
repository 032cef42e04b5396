// SPDX-License-Identifier: Apache-2.0
#include "core/import/ApiDocument.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace cooldown;

// A document to import as JSON, whether written in JSON or YAML: YAML's scalars typed as
// its core schema says, aliases expanded within bounds, and where a document is broken.
class tst_ApiDocument : public QObject
{
    Q_OBJECT

private:
    static QString compact(const QByteArray &text)
    {
        QString error;
        const std::optional<QJsonValue> v = readApiDocument(text, QStringLiteral("doc"), &error);
        if (!v)
            return QStringLiteral("error: ") + error;
        return QString::fromUtf8(v->isArray()
                                     ? QJsonDocument(v->toArray()).toJson(QJsonDocument::Compact)
                                     : QJsonDocument(v->toObject()).toJson(QJsonDocument::Compact));
    }

private slots:
    void yaml_data();
    void yaml();
};

void tst_ApiDocument::yaml_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("json");
    QTest::newRow("plain scalars typed")
        << QByteArray("a: 1\nb: 2.5\nc: true\nd: null\ne: ~\nf: text\ng: 3.0.3\nh: -4\n")
        << "{\"a\":1,\"b\":2.5,\"c\":true,\"d\":null,\"e\":null,\"f\":\"text\",\"g\":\"3.0.3\","
           "\"h\":-4}";
    QTest::newRow("quoted scalars stay text") << QByteArray("a: \"1\"\nb: 'true'\nc: \"\"\n")
                                              << "{\"a\":\"1\",\"b\":\"true\",\"c\":\"\"}";
    QTest::newRow("a response code key is text")
        << QByteArray("responses:\n  200: {description: ok}\n")
        << "{\"responses\":{\"200\":{\"description\":\"ok\"}}}";
    QTest::newRow("sequences and flow")
        << QByteArray("- [a, 1]\n- {k: v}\n") << "[[\"a\",1],{\"k\":\"v\"}]";
    QTest::newRow("aliases expanded")
        << QByteArray("base: &b {x: 1}\nuse: *b\n") << "{\"base\":{\"x\":1},\"use\":{\"x\":1}}";
    QTest::newRow("block text") << QByteArray("d: |\n  two\n  lines\n")
                                << "{\"d\":\"two\\nlines\\n\"}";
    QTest::newRow("an integer past 2^53 stays text")
        << QByteArray("n: 123456789012345678901\n") << "{\"n\":\"123456789012345678901\"}";
    QTest::newRow("JSON read as JSON")
        << QByteArray("  {\"a\": [1, \"x\"]}") << "{\"a\":[1,\"x\"]}";
    QTest::newRow("a tab where YAML wants spaces, with its line")
        << QByteArray("a:\n  b: 1\n\tc: 2\n")
        << "error: doc: line 3: illegal tab when looking for indentation";
    QTest::newRow("not a document of keys")
        << QByteArray("just text\n")
        << "error: doc: expected a YAML or JSON document of keys and values";
    // 316 bytes: at most 4 * 316 + 100000 values.
    QTest::newRow("a billion laughs")
        << QByteArray(
               "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, "
               "*a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, "
               "*c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, "
               "*d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, "
               "*f, *f, *f, *f, *f]\n")
        << "error: doc: line 1: more than 101264 values once its aliases are expanded";
}

void tst_ApiDocument::yaml()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, json);
    QCOMPARE(compact(text), json);
}

QTEST_GUILESS_MAIN(tst_ApiDocument)
#include "tst_apidocument.moc"
