// SPDX-License-Identifier: Apache-2.0
// What an answer must say (docs/checks.md). The tables of answers and of refused
// expectations are tests/data/checks/*.json: one row per kind of assertion, passing
// and failing, with the words a failure reports.
#include "core/check/ExpectationReader.h"
#include "core/config/JsonReader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace cooldown;

namespace {

QJsonArray rows(const char *file)
{
    QFile f(QStringLiteral(COOLDOWN_CHECK_CASES "/") + QLatin1String(file));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    return QJsonDocument::fromJson(f.readAll()).array();
}

Expectation load(const QJsonValue &json, QString *error)
{
    JsonReader reader(error);
    return readExpectation(json, QStringLiteral("expect"), reader);
}

Expectation loadText(const QByteArray &json, QString *error)
{
    return load(QJsonDocument::fromJson(json).object(), error);
}

HttpHeaders answerHeaders()
{
    return HttpHeaders{{"Content-Type", "application/json; charset=utf-8"},
                       {"X-Request-Id", "r-1"},
                       {"X-Api-Key", "k-123"}};
}

} // namespace

class TestExpectation : public QObject
{
    Q_OBJECT

private slots:
    void statuses_data()
    {
        QTest::addColumn<QByteArray>("expect");
        QTest::addColumn<int>("status");
        QTest::addColumn<bool>("allowed");
        QTest::newRow("default 2xx: 204") << QByteArray("{}") << 204 << true;
        QTest::newRow("default 2xx: 404") << QByteArray("{}") << 404 << false;
        QTest::newRow("range in") << QByteArray("{\"status\": [\"200-204\"]}") << 204 << true;
        QTest::newRow("range out") << QByteArray("{\"status\": [\"200-204\"]}") << 206 << false;
        QTest::newRow("number") << QByteArray("{\"status\": [200, 404]}") << 404 << true;
        QTest::newRow("text") << QByteArray("{\"status\": [\"201\"]}") << 200 << false;
        QTest::newRow("class") << QByteArray("{\"status\": [\"3xx\"]}") << 304 << true;
        QTest::newRow("one, not a list") << QByteArray("{\"status\": 201}") << 201 << true;
    }

    void statuses()
    {
        QFETCH(QByteArray, expect);
        QFETCH(int, status);
        QFETCH(bool, allowed);
        QString error;
        const Expectation e = loadText(expect, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(e.allowsStatus(status), allowed);
    }

    void answers_data()
    {
        QTest::addColumn<QJsonValue>("expect");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("assertion"); // empty: passes
        QTest::addColumn<QString>("found");
        const QJsonArray table = rows("answers.json");
        QVERIFY(table.size() >= 30);
        for (const QJsonValue &row : table) {
            const QJsonObject r = row.toObject();
            QTest::newRow(qPrintable(r.value(QStringLiteral("name")).toString()))
                << r.value(QStringLiteral("expect"))
                << r.value(QStringLiteral("body")).toString().toUtf8()
                << r.value(QStringLiteral("assertion")).toString()
                << r.value(QStringLiteral("found")).toString();
        }
    }

    void answers()
    {
        QFETCH(QJsonValue, expect);
        QFETCH(QByteArray, body);
        QFETCH(QString, assertion);
        QFETCH(QString, found);
        QString error;
        const Expectation e = load(expect, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(!e.isEmpty());
        const auto failure = e.check(answerHeaders(), body, false);
        QCOMPARE(failure.has_value(), !assertion.isEmpty());
        if (failure) {
            QCOMPARE(failure->assertion, assertion);
            QCOMPARE(failure->found, found);
            QCOMPARE(failure->text(), assertion + QStringLiteral("; found: ") + found);
        }
    }

    // A body cut at the transport's limit cannot be judged whole.
    void truncatedBody()
    {
        QString error;
        const Expectation e = loadText("{\"json\": [{\"pointer\": \"/status\"}]}", &error);
        QVERIFY(error.isEmpty());
        const auto failure = e.check(answerHeaders(), "{\"status\": \"ok\"}", true);
        QVERIFY(failure);
        QCOMPARE(failure->found, QStringLiteral("a body larger than the 16 bytes read"));
        const Expectation bounded = loadText("{\"max_body_bytes\": 100}", &error);
        QVERIFY(bounded.check(answerHeaders(), "x", true));
        QVERIFY(!bounded.check(answerHeaders(), "x", false));
    }

    void refused_data()
    {
        QTest::addColumn<QJsonValue>("expect");
        QTest::addColumn<QString>("error");
        const QJsonArray table = rows("refused.json");
        QVERIFY(table.size() >= 15);
        for (const QJsonValue &row : table) {
            const QJsonObject r = row.toObject();
            QTest::newRow(qPrintable(r.value(QStringLiteral("name")).toString()))
                << r.value(QStringLiteral("expect")) << r.value(QStringLiteral("error")).toString();
        }
    }

    void refused()
    {
        QFETCH(QJsonValue, expect);
        QFETCH(QString, error);
        QString message;
        load(expect, &message);
        QVERIFY2(message.startsWith(error), qPrintable(message));
    }
};

QTEST_APPLESS_MAIN(TestExpectation)
#include "tst_expectation.moc"
