// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/RateLimitPolicy.h"
#include "support/ReadableEnums.h"

#include <QJsonDocument>
#include <QTest>

using namespace cooldown;

namespace {
QJsonObject object(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}
} // namespace

class tst_RateLimitPolicy : public QObject
{
    Q_OBJECT

private slots:
    void validate_data();
    void validate();
    void designExample();
    void list();
    void roundTrip();
};

void tst_RateLimitPolicy::validate_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error"); // empty: accepted

    const char *base = R"("policy_id":"p","limit":120,"window_seconds":60)";
    auto with = [&](const char *extra) {
        return QByteArray("{") + base + (extra[0] ? "," : "") + extra + "}";
    };

    QTest::newRow("minimal") << with("") << QString();
    QTest::newRow("byte unit") << with(R"("quota_unit":"byte","burst":65536)") << QString();
    QTest::newRow("concurrency without window")
        << QByteArray(R"({"policy_id":"c","quota_unit":"concurrency","limit":4})") << QString();
    QTest::newRow("fractional window")
        << QByteArray(R"({"policy_id":"p","limit":1,"window_seconds":0.5})") << QString();
    QTest::newRow("every reset meaning") << with(R"("x_ratelimit_reset":"epoch-ms")") << QString();

    QTest::newRow("missing policy_id") << QByteArray(R"({"limit":1,"window_seconds":1})")
                                       << "policies[0].policy_id: required, expected a string";
    QTest::newRow("blank policy_id")
        << QByteArray(R"({"policy_id":" ","limit":1,"window_seconds":1})")
        << "policies[0].policy_id: expected a non-empty string";
    QTest::newRow("policy_id number")
        << QByteArray(R"({"policy_id":7,"limit":1,"window_seconds":1})")
        << "policies[0].policy_id: expected a string";
    QTest::newRow("unknown quota unit")
        << with(R"("quota_unit":"requests")")
        << "policies[0].quota_unit: expected request, byte or concurrency, got 'requests'";
    QTest::newRow("zero window") << QByteArray(R"({"policy_id":"p","limit":1,"window_seconds":0})")
                                 << "policies[0].window_seconds: expected a number above 0";
    QTest::newRow("negative window")
        << QByteArray(R"({"policy_id":"p","limit":1,"window_seconds":-60})")
        << "policies[0].window_seconds: expected a number above 0";
    QTest::newRow("window below a millisecond")
        << QByteArray(R"({"policy_id":"p","limit":1,"window_seconds":0.0001})")
        << "policies[0].window_seconds: expected a number above 0";
    QTest::newRow("window as text")
        << QByteArray(R"({"policy_id":"p","limit":1,"window_seconds":"60"})")
        << "policies[0].window_seconds: expected a number above 0";
    QTest::newRow("missing window")
        << QByteArray(R"({"policy_id":"p","limit":1})")
        << "policies[0].window_seconds: required, expected a number above 0";
    QTest::newRow("window over a year")
        << QByteArray(R"({"policy_id":"p","limit":1,"window_seconds":40000000})")
        << "policies[0].window_seconds: expected at most 31622400 seconds (one year)";
    QTest::newRow("negative limit")
        << QByteArray(R"({"policy_id":"p","limit":-1,"window_seconds":60})")
        << "policies[0].limit: expected a whole number above 0 (at most 1000000000000)";
    QTest::newRow("zero limit")
        << QByteArray(R"({"policy_id":"p","limit":0,"window_seconds":60})")
        << "policies[0].limit: expected a whole number above 0 (at most 1000000000000)";
    QTest::newRow("fractional limit")
        << QByteArray(R"({"policy_id":"p","limit":1.5,"window_seconds":60})")
        << "policies[0].limit: expected a whole number above 0 (at most 1000000000000)";
    QTest::newRow("missing limit")
        << QByteArray(R"({"policy_id":"p","window_seconds":60})")
        << "policies[0].limit: required, expected a whole number above 0";
    QTest::newRow("negative burst")
        << with(R"("burst":-20)")
        << "policies[0].burst: expected a whole number, 0 or more (at most 1000000000000)";
    QTest::newRow("burst as text")
        << with(R"("burst":"20")")
        << "policies[0].burst: expected a whole number, 0 or more (at most 1000000000000)";
    QTest::newRow("zero policy_version")
        << with(R"("policy_version":0)")
        << "policies[0].policy_version: expected a whole number above 0";
    QTest::newRow("method with space")
        << with(R"("method":"GET POST")") << "policies[0].method: expected an HTTP method";
    QTest::newRow("unknown key")
        << with(R"("windw_seconds":60)")
        << "policies[0].windw_seconds: unknown key (expected one of: policy_id, partition, "
           "resource, "
           "method, quota_unit, limit, window_seconds, burst, policy_version, x_ratelimit_reset, "
           "pacing)";
    QTest::newRow("unknown reset meaning") << with(R"("x_ratelimit_reset":"seconds")")
                                           << "policies[0].x_ratelimit_reset: expected auto, "
                                              "delta, epoch, epoch-ms or http-date, got 'seconds'";
    QTest::newRow("too large to count exactly")
        << QByteArray(
               R"({"policy_id":"p","quota_unit":"byte","limit":1000000000000,"window_seconds":86400})")
        << "policies[0].limit: limit or burst too large for a window of 86400 s; use a shorter "
           "window";
}

void tst_RateLimitPolicy::validate()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);

    QString why;
    const auto policy =
        RateLimitPolicy::fromJson(object(json.constData()), QStringLiteral("policies[0]"), &why);
    QCOMPARE(why, error);
    QCOMPARE(policy.has_value(), error.isEmpty());
}

void tst_RateLimitPolicy::designExample()
{
    QString why;
    const auto policy = RateLimitPolicy::fromJson(
        object(
            R"({ "policy_id": "project-read-v1", "partition": "project_id", "resource": "/measurements",
                    "method": "get", "quota_unit": "request", "limit": 120, "window_seconds": 60,
                    "burst": 20, "policy_version": 1 })"),
        QStringLiteral("policies[0]"), &why);
    QVERIFY2(policy, qPrintable(why));
    QCOMPARE(policy->policyId, QStringLiteral("project-read-v1"));
    QCOMPARE(policy->partition, QStringLiteral("project_id"));
    QCOMPARE(policy->resource, QStringLiteral("/measurements"));
    QCOMPARE(policy->method, QByteArray("GET"));
    QCOMPARE(policy->quotaUnit, QuotaUnit::Request);
    QCOMPARE(policy->limit, 120);
    QCOMPARE(policy->windowMs, 60000);
    QCOMPARE(policy->burst, 20);
    QCOMPARE(policy->policyVersion, 1);
    QCOMPARE(policy->xRateLimitReset, XRateLimitResetMeaning::Auto);
}

void tst_RateLimitPolicy::list()
{
    QString why;
    const auto array =
        QJsonDocument::fromJson(
            R"([{"policy_id":"a","limit":1,"window_seconds":1},{"policy_id":"b","limit":2,"window_seconds":1}])")
            .array();
    const auto policies = RateLimitPolicy::listFromJson(array, QStringLiteral("policies"), &why);
    QVERIFY2(policies, qPrintable(why));
    QCOMPARE(policies->size(), 2);
    QCOMPARE(policies->at(1).policyId, QStringLiteral("b"));

    const auto duplicate =
        QJsonDocument::fromJson(
            R"([{"policy_id":"a","limit":1,"window_seconds":1},{"policy_id":"a","limit":2,"window_seconds":1}])")
            .array();
    QVERIFY(!RateLimitPolicy::listFromJson(duplicate, QStringLiteral("policies"), &why));
    QCOMPARE(why, QStringLiteral("policies[1].policy_id: 'a' is used by an earlier policy"));

    const auto notObject =
        QJsonDocument::fromJson(R"([{"policy_id":"a","limit":1,"window_seconds":1}, 3])").array();
    QVERIFY(!RateLimitPolicy::listFromJson(notObject, QStringLiteral("policies"), &why));
    QCOMPARE(why, QStringLiteral("policies[1]: expected an object"));

    const auto badInner =
        QJsonDocument::fromJson(R"([{"policy_id":"a","limit":1,"window_seconds":0}])").array();
    QVERIFY(!RateLimitPolicy::listFromJson(badInner, QStringLiteral("policies"), &why));
    QCOMPARE(why, QStringLiteral("policies[0].window_seconds: expected a number above 0"));
}

void tst_RateLimitPolicy::roundTrip()
{
    QString why;
    const auto policy = RateLimitPolicy::fromJson(
        object(R"({"policy_id":"w","partition":"tenant","method":"POST","quota_unit":"byte",
                   "limit":1048576,"window_seconds":2.5,"burst":4096,"policy_version":3,
                   "x_ratelimit_reset":"http-date"})"),
        QStringLiteral("policies[0]"), &why);
    QVERIFY2(policy, qPrintable(why));
    const auto again =
        RateLimitPolicy::fromJson(policy->toJson(), QStringLiteral("policies[0]"), &why);
    QVERIFY2(again, qPrintable(why));
    QCOMPARE(*again, *policy);
    QCOMPARE(again->windowMs, 2500);
}

QTEST_GUILESS_MAIN(tst_RateLimitPolicy)
#include "tst_ratelimitpolicy.moc"
