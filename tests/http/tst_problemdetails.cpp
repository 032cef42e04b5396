// SPDX-License-Identifier: Apache-2.0
#include "core/http/ProblemDetails.h"
#include "support/ReadableEnums.h"

#include <QJsonArray>
#include <QTest>

using namespace cooldown;

Q_DECLARE_METATYPE(ProblemDetails::Kind)

class tst_ProblemDetails : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void members();
    void extensionsKept();
    void violatedPolicies();
};

void tst_ProblemDetails::parse_data()
{
    using K = ProblemDetails::Kind;
    QTest::addColumn<QByteArray>("contentType"); // null: absent
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("present");
    QTest::addColumn<bool>("error");
    QTest::addColumn<QString>("type");
    QTest::addColumn<ProblemDetails::Kind>("kind");

    const QByteArray pj("application/problem+json");
    const QString blank = QStringLiteral("about:blank");
    const QString iana = QStringLiteral("https://iana.org/assignments/http-problem-types#");

    QTest::newRow("quota-exceeded")
        << pj
        << QByteArray(
               R"({"type":"https://iana.org/assignments/http-problem-types#quota-exceeded","status":429})")
        << true << false << iana + QLatin1String("quota-exceeded") << K::QuotaExceeded;
    QTest::newRow("temporary-reduced-capacity")
        << pj
        << QByteArray(
               R"({"type":"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity"})")
        << true << false << iana + QLatin1String("temporary-reduced-capacity")
        << K::TemporaryReducedCapacity;
    QTest::newRow("abnormal-usage-detected")
        << pj
        << QByteArray(
               R"({"type":"https://iana.org/assignments/http-problem-types#abnormal-usage-detected"})")
        << true << false << iana + QLatin1String("abnormal-usage-detected")
        << K::AbnormalUsageDetected;
    QTest::newRow("own URI, same name")
        << pj << QByteArray(R"({"type":"https://api.example.com/problems/quota-exceeded"})") << true
        << false << "https://api.example.com/problems/quota-exceeded" << K::QuotaExceeded;
    QTest::newRow("other type") << pj
                                << QByteArray(R"({"type":"https://example.com/out-of-credit"})")
                                << true << false << "https://example.com/out-of-credit" << K::Other;
    QTest::newRow("absent type") << pj << QByteArray(R"({"title":"Too Many Requests"})") << true
                                 << false << blank << K::Other;
    QTest::newRow("type not a string")
        << pj << QByteArray(R"({"type":42})") << true << false << blank << K::Other;
    QTest::newRow("type null") << pj << QByteArray(R"({"type":null})") << true << false << blank
                               << K::Other;
    QTest::newRow("empty object") << pj << QByteArray("{}") << true << false << blank << K::Other;
    QTest::newRow("parameters on media type")
        << QByteArray("Application/Problem+JSON; charset=utf-8")
        << QByteArray(R"({"type":"urn:x"})") << true << false << "urn:x" << K::Other;
    QTest::newRow("not JSON") << pj << QByteArray("<html>Too many</html>") << false << true << blank
                              << K::None;
    QTest::newRow("JSON array") << pj << QByteArray("[1,2]") << false << true << blank << K::None;
    QTest::newRow("empty body") << pj << QByteArray("") << false << true << blank << K::None;
    QTest::newRow("plain JSON is not a problem")
        << QByteArray("application/json")
        << QByteArray(
               R"({"type":"https://iana.org/assignments/http-problem-types#quota-exceeded"})")
        << false << false << blank << K::None;
    QTest::newRow("no content type")
        << QByteArray() << QByteArray(R"({"type":"x"})") << false << false << blank << K::None;
    QTest::newRow("problem+xml") << QByteArray("application/problem+xml")
                                 << QByteArray("<problem/>") << false << false << blank << K::None;
}

void tst_ProblemDetails::parse()
{
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(bool, present);
    QFETCH(bool, error);
    QFETCH(QString, type);
    QFETCH(ProblemDetails::Kind, kind);

    const std::optional<QByteArray> ct =
        contentType.isNull() ? std::nullopt : std::optional<QByteArray>(contentType);
    const ProblemDetails problem = ProblemDetails::parse(ct, body);
    QCOMPARE(problem.present, present);
    QCOMPARE(!problem.error.isEmpty(), error);
    QCOMPARE(problem.type, type);
    QCOMPARE(problem.kind(), kind);
}

void tst_ProblemDetails::members()
{
    const HttpHeaders headers{{"Content-Type", "application/problem+json"}};
    const ProblemDetails good = ProblemDetails::parse(
        headers, R"({"type":"urn:t","title":"Slow down","status":429,"detail":"50 per minute",
                     "instance":"/requests/8c1f"})");
    QCOMPARE(good.title, QStringLiteral("Slow down"));
    QCOMPARE(good.status.value_or(0), 429);
    QCOMPARE(good.detail, QStringLiteral("50 per minute"));
    QCOMPARE(good.instance, QStringLiteral("/requests/8c1f"));
    QVERIFY(good.ignoredMembers.isEmpty());
    QVERIFY(good.extensions.isEmpty());

    // §3.1: a member of the wrong type is ignored, and the rest is still read.
    const ProblemDetails wrong = ProblemDetails::parse(
        headers, R"({"type":["urn:t"],"title":7,"status":"429","detail":{"a":1},"instance":true})");
    QVERIFY(wrong.present);
    QCOMPARE(wrong.type, QStringLiteral("about:blank"));
    QVERIFY(wrong.title.isEmpty());
    QVERIFY(!wrong.status);
    QVERIFY(wrong.detail.isEmpty());
    QVERIFY(wrong.instance.isEmpty());
    QCOMPARE(wrong.ignoredMembers.size(), 5);
    QVERIFY(wrong.extensions.isEmpty());

    const ProblemDetails badStatus =
        ProblemDetails::parse(headers, R"({"status":429.5,"title":"x"})");
    QVERIFY(!badStatus.status);
    QCOMPARE(badStatus.title, QStringLiteral("x"));
    QVERIFY(!ProblemDetails::parse(headers, R"({"status":42})").status);
}

void tst_ProblemDetails::extensionsKept()
{
    const ProblemDetails problem = ProblemDetails::parse(
        HttpHeaders{{"content-type", "application/problem+json"}},
        R"({"type":"urn:t","balance":30,"accounts":["/a/1","/a/2"],"nested":{"k":null}})");
    QCOMPARE(problem.extensions.size(), 3);
    QCOMPARE(problem.extensions.value(QStringLiteral("balance")).toInt(), 30);
    QCOMPARE(problem.extensions.value(QStringLiteral("accounts")).toArray().size(), 2);
    QVERIFY(problem.extensions.value(QStringLiteral("nested")).isObject());
    const QJsonObject json = problem.toJson();
    QCOMPARE(json.value(QStringLiteral("extensions")).toObject(), problem.extensions);
    QCOMPARE(json.value(QStringLiteral("type")).toString(), QStringLiteral("urn:t"));
    QVERIFY(json.value(QStringLiteral("title")).isNull());
}

void tst_ProblemDetails::violatedPolicies()
{
    const HttpHeaders headers{{"Content-Type", "application/problem+json"}};
    const ProblemDetails problem = ProblemDetails::parse(
        headers, R"({"type":"https://iana.org/assignments/http-problem-types#quota-exceeded",
                     "violated-policies":["hourly", 3, "daily"]})");
    QCOMPARE(problem.violatedPolicies(),
             (QStringList{QStringLiteral("hourly"), QStringLiteral("daily")}));
    QVERIFY(ProblemDetails::parse(headers, R"({"violated-policies":"hourly"})")
                .violatedPolicies()
                .isEmpty());
}

QTEST_GUILESS_MAIN(tst_ProblemDetails)
#include "tst_problemdetails.moc"
