// SPDX-License-Identifier: Apache-2.0
#include "core/http/RateLimitHeaders.h"

#include <QJsonArray>
#include <QTest>

using namespace cooldown;

class tst_RateLimitHeaders : public QObject
{
    Q_OBJECT

private slots:
    void rateLimit_data();
    void rateLimit();
    void policy_data();
    void policy();
    void absent();
    void repeatedFieldsCombine();
    void json();
};

void tst_RateLimitHeaders::rateLimit_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<int>("items");          // items kept
    QTest::addColumn<bool>("fieldError");    // the whole field was refused
    QTest::addColumn<int>("skipped");        // members left out
    QTest::addColumn<qint64>("waitSeconds"); // -1: no wait

    QTest::newRow("exhausted") << QByteArray("\"default\";r=0;t=30") << 1 << false << 0
                               << qint64(30);
    QTest::newRow("remaining") << QByteArray("\"default\";r=5;t=30") << 1 << false << 0
                               << qint64(-1);
    QTest::newRow("no reset") << QByteArray("\"default\";r=0") << 1 << false << 0 << qint64(-1);
    QTest::newRow("longest exhausted wins")
        << QByteArray("\"burst\";r=0;t=5, \"daily\";r=0;t=3600, \"hour\";r=9;t=60") << 3 << false
        << 0 << qint64(3600);
    QTest::newRow("token name") << QByteArray("default;r=0;t=12") << 1 << false << 0 << qint64(12);
    QTest::newRow("partition key")
        << QByteArray("\"p\";r=0;t=7;pk=:cHJvamVjdC0xODQ=:") << 1 << false << 0 << qint64(7);
    QTest::newRow("unknown parameter ignored")
        << QByteArray("\"p\";r=0;t=7;x-comment=\"hi\"") << 1 << false << 0 << qint64(7);
    QTest::newRow("missing r") << QByteArray("\"p\";t=7") << 0 << false << 1 << qint64(-1);
    QTest::newRow("negative r") << QByteArray("\"p\";r=-1;t=7") << 0 << false << 1 << qint64(-1);
    QTest::newRow("decimal t") << QByteArray("\"p\";r=0;t=7.5") << 0 << false << 1 << qint64(-1);
    QTest::newRow("string r") << QByteArray("\"p\";r=\"0\";t=7") << 0 << false << 1 << qint64(-1);
    QTest::newRow("pk not bytes") << QByteArray("\"p\";r=0;t=7;pk=\"x\"") << 0 << false << 1
                                  << qint64(-1);
    QTest::newRow("integer name") << QByteArray("1;r=0;t=7") << 0 << false << 1 << qint64(-1);
    QTest::newRow("inner list") << QByteArray("(\"p\");r=0;t=7") << 0 << false << 1 << qint64(-1);
    QTest::newRow("one bad member, one good")
        << QByteArray("\"a\";t=9, \"b\";r=0;t=4") << 1 << false << 1 << qint64(4);
    // Syntax errors refuse the whole field (RFC 9651 §4.2): no wait from it at all.
    QTest::newRow("old draft syntax")
        << QByteArray("limit=100, remaining=0, reset=30") << 0 << true << 0 << qint64(-1);
    QTest::newRow("trailing comma") << QByteArray("\"p\";r=0;t=7,") << 0 << true << 0 << qint64(-1);
    QTest::newRow("unterminated name") << QByteArray("\"p;r=0;t=7") << 0 << true << 0 << qint64(-1);
    QTest::newRow("uppercase parameter")
        << QByteArray("\"p\";R=0;T=7") << 0 << true << 0 << qint64(-1);
    QTest::newRow("16-digit t") << QByteArray("\"p\";r=0;t=1000000000000000") << 0 << true << 0
                                << qint64(-1);
    QTest::newRow("empty") << QByteArray("") << 0 << false << 0 << qint64(-1);
}

void tst_RateLimitHeaders::rateLimit()
{
    QFETCH(QByteArray, raw);
    QFETCH(int, items);
    QFETCH(bool, fieldError);
    QFETCH(int, skipped);
    QFETCH(qint64, waitSeconds);

    const RateLimitHeaders parsed = RateLimitHeaders::parse(HttpHeaders{{"RateLimit", raw}});
    QVERIFY(parsed.isPresent());
    QCOMPARE(parsed.limitRaw.value(), raw);
    QCOMPARE(parsed.limits.size(), items);
    QCOMPARE(!parsed.limitError.isEmpty(), fieldError);
    if (fieldError)
        QVERIFY2(parsed.limitError.startsWith(QLatin1String("RateLimit: at byte ")),
                 qPrintable(parsed.limitError));
    QCOMPARE(parsed.skipped.size(), skipped);
    QCOMPARE(parsed.exhaustedWaitSeconds().value_or(-1), waitSeconds);
}

void tst_RateLimitHeaders::policy_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<int>("items");
    QTest::addColumn<bool>("fieldError");
    QTest::addColumn<QString>("firstName");
    QTest::addColumn<qint64>("firstQuota");
    QTest::addColumn<qint64>("firstWindow"); // -1: absent
    QTest::addColumn<QString>("firstUnit");

    QTest::newRow("one") << QByteArray("\"default\";q=100;w=60") << 1 << false << "default"
                         << qint64(100) << qint64(60) << "request";
    QTest::newRow("two") << QByteArray("\"burst\";q=100;w=60, \"daily\";q=1000;w=86400") << 2
                         << false << "burst" << qint64(100) << qint64(60) << "request";
    QTest::newRow("unit") << QByteArray("\"bytes\";q=65536;qu=\"content-bytes\";w=10") << 1 << false
                          << "bytes" << qint64(65536) << qint64(10) << "content-bytes";
    QTest::newRow("no window") << QByteArray("\"conc\";q=4;qu=\"concurrent-requests\"") << 1
                               << false << "conc" << qint64(4) << qint64(-1)
                               << "concurrent-requests";
    QTest::newRow("with pk") << QByteArray("\"p\";q=50;w=60;pk=:YWJj:") << 1 << false << "p"
                             << qint64(50) << qint64(60) << "request";
    QTest::newRow("missing q skipped") << QByteArray("\"a\";w=60, \"b\";q=5;w=1") << 1 << false
                                       << "b" << qint64(5) << qint64(1) << "request";
    QTest::newRow("decimal q skipped")
        << QByteArray("\"a\";q=1.5;w=60") << 0 << false << "" << qint64(0) << qint64(-1) << "";
    QTest::newRow("malformed") << QByteArray("\"a\";q=100;;w=60") << 0 << true << "" << qint64(0)
                               << qint64(-1) << "";
    QTest::newRow("non-ASCII") << QByteArray("\"caf\xc3\xa9\";q=1") << 0 << true << "" << qint64(0)
                               << qint64(-1) << "";
}

void tst_RateLimitHeaders::policy()
{
    QFETCH(QByteArray, raw);
    QFETCH(int, items);
    QFETCH(bool, fieldError);
    QFETCH(QString, firstName);
    QFETCH(qint64, firstQuota);
    QFETCH(qint64, firstWindow);
    QFETCH(QString, firstUnit);

    const RateLimitHeaders parsed = RateLimitHeaders::parse(HttpHeaders{{"RateLimit-Policy", raw}});
    QCOMPARE(parsed.policies.size(), items);
    QCOMPARE(!parsed.policyError.isEmpty(), fieldError);
    QVERIFY(!parsed.limitRaw);
    if (items == 0)
        return;
    const RateLimitPolicyItem &first = parsed.policies.front();
    QCOMPARE(first.name, firstName);
    QCOMPARE(first.quota, firstQuota);
    QCOMPARE(first.windowSeconds.value_or(-1), firstWindow);
    QCOMPARE(first.quotaUnit, firstUnit);
    QCOMPARE(parsed.policyNamed(firstName), &first);
}

void tst_RateLimitHeaders::absent()
{
    const RateLimitHeaders parsed = RateLimitHeaders::parse(HttpHeaders{{"Retry-After", "5"}});
    QVERIFY(!parsed.isPresent());
    QVERIFY(parsed.policies.isEmpty());
    QVERIFY(parsed.limits.isEmpty());
    QVERIFY(!parsed.exhaustedWaitSeconds());
}

void tst_RateLimitHeaders::repeatedFieldsCombine()
{
    // Two field lines are one List (RFC 9651 §4.2); names compare case-insensitively.
    HttpHeaders headers{{"ratelimit", "\"a\";r=0;t=5"}, {"RATELIMIT", "\"b\";r=0;t=9"}};
    const RateLimitHeaders parsed = RateLimitHeaders::parse(headers);
    QCOMPARE(parsed.limits.size(), 2);
    QCOMPARE(parsed.limits[1].name, QStringLiteral("b"));
    QCOMPARE(parsed.exhaustedWaitSeconds().value_or(-1), 9);
}

void tst_RateLimitHeaders::json()
{
    const RateLimitHeaders parsed = RateLimitHeaders::parse(HttpHeaders{
        {"RateLimit-Policy", "\"default\";q=100;w=60;pk=:YWJj:"},
        {"RateLimit", "\"default\";r=0;t=30"},
    });
    const QJsonObject json = parsed.toJson();
    const QJsonObject limit = json.value(QStringLiteral("limits")).toArray().at(0).toObject();
    QCOMPARE(limit.value(QStringLiteral("name")).toString(), QStringLiteral("default"));
    QCOMPARE(limit.value(QStringLiteral("r")).toInt(), 0);
    QCOMPARE(limit.value(QStringLiteral("t")).toInt(), 30);
    const QJsonObject policy = json.value(QStringLiteral("policies")).toArray().at(0).toObject();
    QCOMPARE(policy.value(QStringLiteral("q")).toInt(), 100);
    QCOMPARE(policy.value(QStringLiteral("pk")).toString(), QStringLiteral("YWJj"));
    QVERIFY(json.value(QStringLiteral("error")).isNull());
}

QTEST_GUILESS_MAIN(tst_RateLimitHeaders)
#include "tst_ratelimitheaders.moc"
