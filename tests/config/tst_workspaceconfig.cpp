// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {
const QHash<QString, QString> kEnv = {{"EXAMPLE_TOKEN", "s3cr3t-t0ken"},
                                      {"API_TOKEN", "0123456789abcdef-api"}};

QByteArray minimal(const QByteArray &endpointExtra = {}, const QByteArray &topExtra = {})
{
    return R"({"version": 1, )" + topExtra +
           R"("endpoints": [{"id": "m", "url": "https://api.example.com/m")" + endpointExtra +
           "}]}";
}
} // namespace

class tst_WorkspaceConfig : public QObject
{
    Q_OBJECT

private slots:
    void designExampleLoads();
    void defaults();
    void apiSection();
    void refused_data();
    void refused();
    void pauseAfterFailures();
    void secretsResolvedInMemoryOnly();
    void alertTargets();
    void demoVariables();
    void loadNamesTheFile();
};

void tst_WorkspaceConfig::designExampleLoads()
{
    const QByteArray json = R"({
      "version": 1,
      "concurrency": { "max_in_flight": 8, "per_host": 6 },
      "policies": [
        { "policy_id": "project-read-v1", "partition": "project_id", "resource": "/measurements",
          "method": "GET", "quota_unit": "request", "limit": 120, "window_seconds": 60,
          "burst": 20, "policy_version": 1 }
      ],
      "retry_profiles": {
        "default": { "max_attempts": 6, "base_seconds": 1, "cap_seconds": 60,
                     "deadline_seconds": 900, "jitter": "full", "spread_seconds": 1,
                     "max_retry_after_seconds": 21600, "on_deadline": "fail",
                     "retry_non_idempotent": "with_key", "throttle_counts_as_attempt": true }
      },
      "endpoints": [
        { "id": "measurements", "name": "Read measurements", "method": "GET",
          "url": "https://api.example.com/measurements",
          "headers": { "Authorization": "Bearer ${env:EXAMPLE_TOKEN}" },
          "every_seconds": 30, "timeout_seconds": 10, "policy": "project-read-v1",
          "partition_key": "project-184", "retry": "default",
          "idempotency": { "header": "Idempotency-Key", "key_valid_seconds": 86400 } }
      ]
    })";
    QString error;
    const auto config = WorkspaceConfig::parse(json, "ws.json", &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->concurrency.maxInFlight, 8);
    QCOMPARE(config->policies.size(), 1);
    QCOMPARE(config->endpoints.size(), 1);
    const EndpointConfig &e = config->endpoints.first();
    QCOMPARE(e.id, QStringLiteral("measurements"));
    QCOMPARE(e.method, QByteArray("GET"));
    QCOMPARE(e.url, QUrl("https://api.example.com/measurements"));
    QCOMPARE(e.everySeconds, 30);
    QCOMPARE(e.timeoutSeconds, 10.0);
    QCOMPARE(e.policy, QStringLiteral("project-read-v1"));
    QCOMPARE(e.partitionKey, QStringLiteral("project-184"));
    QCOMPARE(e.idempotencyHeader, QByteArray("Idempotency-Key"));
    QCOMPARE(e.keyValidSeconds, 86400.0);
    QVERIFY(config->retryProfile("default") == RetryProfile());
}

void tst_WorkspaceConfig::defaults()
{
    QString error;
    const auto config = WorkspaceConfig::parse(
        minimal(R"(, "method": "post", "body": "{\"a\":1}")"), "ws.json", &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    const EndpointConfig &e = config->endpoints.first();
    QCOMPARE(e.name, QStringLiteral("m"));
    QCOMPARE(e.method, QByteArray("POST"));
    QCOMPARE(e.body, QByteArray(R"({"a":1})"));
    QCOMPARE(e.everySeconds, 0);
    QVERIFY(!e.isPeriodic());
    QCOMPARE(e.retry, QStringLiteral("default"));
    QVERIFY(e.idempotencyHeader.isEmpty());
    QCOMPARE(e.keyValidSeconds, 0.0);
    QCOMPARE(e.pauseAfterFailures, 0); // never paused automatically
    QCOMPARE(config->pauseAfterFailures, 0);
    QCOMPARE(config->concurrency.perHost, 6);
    QVERIFY(config->retryProfiles.contains("default"));
    QCOMPARE(config->retention.rawDays, 30);
    QCOMPARE(config->retention.rollupDays, 400);

    const auto kept =
        WorkspaceConfig::parse(minimal({}, R"("retention": {"raw_days": 7, "rollup_days": 0}, )"),
                               "ws.json", &error, {}, kEnv);
    QVERIFY2(kept, qPrintable(error));
    QCOMPARE(kept->retention.rawDays, 7);
    QCOMPARE(kept->retention.rollupDays, 0); // for ever
}

void tst_WorkspaceConfig::apiSection()
{
    QString error;
    const auto off = WorkspaceConfig::parse(minimal(), "ws.json", &error, {}, kEnv);
    QVERIFY2(off, qPrintable(error));
    QVERIFY(!off->api.enabled());
    const auto on = WorkspaceConfig::parse(
        minimal(
            {},
            R"("api": {"token": "${env:API_TOKEN}", "max_queued": 50, "max_body_bytes": 4096}, )"),
        "ws.json", &error, {}, kEnv);
    QVERIFY2(on, qPrintable(error));
    QVERIFY(on->api.enabled());
    QCOMPARE(on->api.token, QByteArray("0123456789abcdef-api"));
    QCOMPARE(on->api.tokenVariable, QStringLiteral("API_TOKEN"));
    QCOMPARE(on->api.maxQueued, 50);
    QCOMPARE(on->api.maxBodyBytes, qint64(4096));
    QCOMPARE(on->api.maxJobsPerRequest, 1000);
}

void tst_WorkspaceConfig::refused_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");

    QTest::newRow("not json") << QByteArray("{\"version\": 1,\n \"endpoints\": [}")
                              << "ws.json: line 2, column";
    QTest::newRow("top not object") << QByteArray("[1]") << "ws.json: $: expected an object";
    QTest::newRow("no version") << QByteArray(R"({"endpoints": []})")
                                << "ws.json: version: required";
    QTest::newRow("newer version") << QByteArray(R"({"version": 2, "endpoints": []})")
                                   << "version: this build reads version 1";
    QTest::newRow("version string")
        << QByteArray(R"({"version": "1", "endpoints": []})") << "version: expected a whole number";
    QTest::newRow("unknown top key")
        << minimal({}, R"("endpionts": [], )") << "endpionts: unknown key";
    QTest::newRow("no endpoints") << QByteArray(R"({"version": 1})") << "endpoints: required";
    QTest::newRow("empty endpoints")
        << QByteArray(R"({"version": 1, "endpoints": []})") << "endpoints: expected at least one";
    QTest::newRow("endpoint not object")
        << QByteArray(R"({"version": 1, "endpoints": [7]})") << "endpoints[0]: expected an object";
    QTest::newRow("missing id") << QByteArray(
                                       R"({"version": 1, "endpoints": [{"url": "http://a/"}]})")
                                << "endpoints[0].id: required";
    QTest::newRow("bad id")
        << QByteArray(R"({"version": 1, "endpoints": [{"id": "a b", "url": "http://a/"}]})")
        << "endpoints[0].id: expected 1-64";
    QTest::newRow("duplicate id")
        << QByteArray(
               R"({"version": 1, "endpoints": [{"id": "a", "url": "http://a/"}, {"id": "a", "url": "http://b/"}]})")
        << "endpoints[1].id: duplicate id 'a'";
    QTest::newRow("unknown endpoint key")
        << minimal(R"(, "evry_seconds": 5)") << "endpoints[0].evry_seconds: unknown key";
    QTest::newRow("relative url")
        << QByteArray(R"({"version": 1, "endpoints": [{"id": "a", "url": "/x"}]})")
        << "endpoints[0].url: expected an absolute http or https URL";
    QTest::newRow("ftp url")
        << QByteArray(R"({"version": 1, "endpoints": [{"id": "a", "url": "ftp://h/x"}]})")
        << "endpoints[0].url";
    QTest::newRow("url number") << QByteArray(
                                       R"({"version": 1, "endpoints": [{"id": "a", "url": 5}]})")
                                << "endpoints[0].url: expected a string";
    QTest::newRow("bad method") << minimal(R"(, "method": "GE T")")
                                << "endpoints[0].method: expected an HTTP method";
    // A line break at the end is no token either (a regular expression's $ let it through).
    QTest::newRow("method ending in a newline")
        << minimal(R"(, "method": "GET\n")") << "endpoints[0].method: expected an HTTP method";
    // Limits written as people write numbers, never 3.16224e+07.
    QTest::newRow("every_seconds beyond a year")
        << minimal(R"(, "every_seconds": 40000000)")
        << "endpoints[0].every_seconds: expected a whole number from 0 to 31622400";
    QTest::newRow("timeout below a millisecond")
        << minimal(R"(, "timeout_seconds": 0.0001)")
        << "endpoints[0].timeout_seconds: expected a number from 0.001 to 3600";
    QTest::newRow("negative every") << minimal(R"(, "every_seconds": -1)")
                                    << "endpoints[0].every_seconds: expected a whole number";
    QTest::newRow("huge every") << minimal(R"(, "every_seconds": 1e300)")
                                << "endpoints[0].every_seconds";
    QTest::newRow("fraction every")
        << minimal(R"(, "every_seconds": 1.5)") << "endpoints[0].every_seconds";
    QTest::newRow("zero timeout") << minimal(R"(, "timeout_seconds": 0)")
                                  << "endpoints[0].timeout_seconds";
    QTest::newRow("headers array")
        << minimal(R"(, "headers": ["a"])") << "endpoints[0].headers: expected an object";
    QTest::newRow("header number")
        << minimal(R"(, "headers": {"X-A": 1})") << "endpoints[0].headers.X-A: expected a string";
    QTest::newRow("header name") << minimal(R"(, "headers": {"Bad Name": "x"})")
                                 << "endpoints[0].headers.Bad Name: not a valid header name";
    QTest::newRow("header newline")
        << minimal(R"(, "headers": {"X-A": "a\r\nX-B: b"})") << "line breaks";
    QTest::newRow("missing env")
        << minimal(R"(, "headers": {"Authorization": "Bearer ${env:NOPE}"})")
        << "endpoints[0].headers.Authorization: environment variable NOPE is not set";
    QTest::newRow("malformed ref")
        << minimal(R"(, "headers": {"X-A": "${env:}"})") << "malformed reference";
    QTest::newRow("unknown scope") << minimal(R"(, "body": "${vault:x}")")
                                   << "endpoints[0].body: unknown reference ${vault:x}";
    QTest::newRow("unknown retry profile")
        << minimal(R"(, "retry": "fast")") << "endpoints[0].retry: no retry profile named 'fast'";
    QTest::newRow("unknown policy")
        << minimal(R"(, "policy": "p1")") << "endpoints[0].policy: no policy with policy_id 'p1'";
    QTest::newRow("idempotency string") << minimal(R"(, "idempotency": "Idempotency-Key")")
                                        << "endpoints[0].idempotency: expected an object";
    QTest::newRow("idempotency no header")
        << minimal(R"(, "idempotency": {})") << "endpoints[0].idempotency.header: required";
    QTest::newRow("key lifetime zero")
        << minimal(R"(, "idempotency": {"header": "K", "key_valid_seconds": 0})")
        << "endpoints[0].idempotency.key_valid_seconds: expected a number from 1";
    QTest::newRow("idempotency header newline")
        << minimal(R"(, "idempotency": {"header": "Idempotency-Key\n"})")
        << "endpoints[0].idempotency.header: not a valid header name";
    QTest::newRow("profile bad field")
        << minimal({}, R"("retry_profiles": {"default": {"jitter": "wild"}}, )")
        << "retry_profiles.default.jitter: expected one of full";
    QTest::newRow("profile unknown field")
        << minimal({}, R"("retry_profiles": {"default": {"retries": 3}}, )")
        << "retry_profiles.default.retries: unknown retry profile field";
    QTest::newRow("profile cap below base")
        << minimal({}, R"("retry_profiles": {"default": {"base_seconds": 10, "cap_seconds": 5}}, )")
        << "retry_profiles.default.cap_seconds: expected at least base_seconds";
    QTest::newRow("per_host above 1024")
        << minimal({}, R"("concurrency": {"per_host": 2000}, )")
        << "concurrency.per_host: expected a whole number from 1 to 1024";
    QTest::newRow("per_host zero")
        << minimal({}, R"("concurrency": {"per_host": 0}, )")
        << "concurrency.per_host: expected a whole number from 1 to 1024";
    QTest::newRow("max_in_flight zero")
        << minimal({}, R"("concurrency": {"max_in_flight": 0}, )") << "concurrency.max_in_flight";
    QTest::newRow("policies object")
        << minimal({}, R"("policies": {}, )") << "policies: expected an array";
    QTest::newRow("retention negative")
        << minimal({}, R"("retention": {"raw_days": -1}, )")
        << "retention.raw_days: expected a whole number from 0 to 36500";
    QTest::newRow("retention fraction")
        << minimal({}, R"("retention": {"rollup_days": 1.5}, )") << "retention.rollup_days";
    QTest::newRow("retention typo")
        << minimal({}, R"("retention": {"raw_day": 3}, )") << "retention.raw_day";
    QTest::newRow("retention array")
        << minimal({}, R"("retention": [], )") << "retention: expected an object";
    QTest::newRow("alerts object")
        << minimal({}, R"("alerts": {}, )") << "ws.json: alerts: expected an array";
    QTest::newRow("alert without events")
        << minimal({}, R"("alerts": [{"id": "ops", "url": "https://chat.example.com/hook"}], )")
        << "alerts[0].events: required, expected a list of: operation_failed";
    QTest::newRow("alert unknown event")
        << minimal(
               {},
               R"("alerts": [{"id": "ops", "url": "https://chat.example.com/hook", "events": ["failed"]}], )")
        << "alerts[0].events[0]: expected one of: operation_failed, endpoint_paused";
    QTest::newRow("alert unknown key")
        << minimal(
               {},
               R"("alerts": [{"id": "ops", "url": "https://c/h", "events": ["policy_drift"], "every": 5}], )")
        << "alerts[0].every: unknown key";
    QTest::newRow("alert relative url")
        << minimal({}, R"("alerts": [{"id": "ops", "url": "/hook", "events": ["policy_drift"]}], )")
        << "alerts[0].url: expected an absolute http or https URL";
    QTest::newRow("alert missing secret")
        << minimal(
               {},
               R"("alerts": [{"id": "ops", "url": "https://c/h", "headers": {"Authorization": "${env:NOPE}"}, "events": ["policy_drift"]}], )")
        << "alerts[0].headers.Authorization: environment variable NOPE is not set";
    QTest::newRow("alert duplicate id")
        << minimal(
               {},
               R"("alerts": [{"id": "o", "url": "https://c/h", "events": ["policy_drift"]}, {"id": "o", "url": "https://c/i", "events": ["policy_drift"]}], )")
        << "alerts[1].id: duplicate id 'o'";
    QTest::newRow("alert negative interval")
        << minimal(
               {},
               R"("alerts": [{"id": "o", "url": "https://c/h", "events": ["policy_drift"], "min_interval_seconds": -1}], )")
        << "alerts[0].min_interval_seconds: expected a number from 0";
    QTest::newRow("api token written in the file")
        << minimal({}, R"("api": {"token": "0123456789abcdef-api"}, )")
        << "api.token: expected ${env:NAME}";
    QTest::newRow("api token too short")
        << minimal({}, R"("api": {"token": "${env:EXAMPLE_TOKEN}"}, )")
        << "api.token: the token in EXAMPLE_TOKEN is 12 characters long";
    QTest::newRow("api token unset") << minimal({}, R"("api": {"token": "${env:NO_SUCH_TOKEN}"}, )")
                                     << "api.token: environment variable NO_SUCH_TOKEN is not set";
    QTest::newRow("api queue bound zero")
        << minimal({}, R"("api": {"token": "${env:API_TOKEN}", "max_queued": 0}, )")
        << "api.max_queued";
    QTest::newRow("api unknown key")
        << minimal({}, R"("api": {"tokn": "${env:API_TOKEN}"}, )") << "api.tokn: unknown key";
    QTest::newRow("pause_after_failures zero")
        << minimal(R"(, "pause_after_failures": 0)")
        << "endpoints[0].pause_after_failures: expected a whole number from 1 to 1000000";
    QTest::newRow("pause_after_failures fraction")
        << minimal(R"(, "pause_after_failures": 2.5)")
        << "endpoints[0].pause_after_failures: expected a whole number";
    QTest::newRow("pause_after_failures string")
        << minimal(R"(, "pause_after_failures": "5")")
        << "endpoints[0].pause_after_failures: expected a whole number";
    QTest::newRow("pause_after_failures huge")
        << minimal(R"(, "pause_after_failures": 1e7)")
        << "endpoints[0].pause_after_failures: expected a whole number";
    QTest::newRow("workspace pause_after_failures negative")
        << minimal({}, R"("pause_after_failures": -1, )")
        << "ws.json: pause_after_failures: expected a whole number from 1";
    QTest::newRow("workspace pause_after_failures null")
        << minimal({}, R"("pause_after_failures": null, )")
        << "ws.json: pause_after_failures: expected a whole number";
    // '$' alone would match before the final newline.
    QTest::newRow("id ending in a newline")
        << QByteArray(R"({"version": 1, "endpoints": [{"id": "upload\n", "url": "http://a/"}]})")
        << "endpoints[0].id: expected 1-64";
    QTest::newRow("alert id ending in a newline")
        << minimal(
               {},
               R"("alerts": [{"id": "ops\n", "url": "https://chat.example.com/hook", "events": ["endpoint_paused"]}], )")
        << "alerts[0].id: expected 1-64";
    QTest::newRow("invalid utf-8")
        << QByteArray(
               "{\"version\": 1, \"endpoints\": [{\"id\": \"a\xff\", \"url\": \"http://a/\"}]}")
        << "ws.json: line 1";
}

void tst_WorkspaceConfig::refused()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, message);

    QString error;
    const auto config = WorkspaceConfig::parse(json, "ws.json", &error, {}, kEnv);
    QVERIFY(!config);
    QVERIFY2(error.startsWith(QStringLiteral("ws.json: ")), qPrintable(error));
    QVERIFY2(error.contains(message), qPrintable(error));
}

void tst_WorkspaceConfig::pauseAfterFailures()
{
    // The workspace's value is the default of endpoints that do not set their own.
    const QByteArray json = R"({"version": 1, "pause_after_failures": 5, "endpoints": [
        {"id": "a", "url": "https://api.example.com/a"},
        {"id": "b", "url": "https://api.example.com/b", "pause_after_failures": 1}]})";
    QString error;
    const auto config = WorkspaceConfig::parse(json, "ws.json", &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->pauseAfterFailures, 5);
    QCOMPARE(config->endpoint("a")->pauseAfterFailures, 5);
    QCOMPARE(config->endpoint("b")->pauseAfterFailures, 1);

    const auto own = WorkspaceConfig::parse(minimal(R"(, "pause_after_failures": 1000000)"),
                                            "ws.json", &error, {}, kEnv);
    QVERIFY2(own, qPrintable(error));
    QCOMPARE(own->endpoints.first().pauseAfterFailures, 1000000);
    QCOMPARE(own->pauseAfterFailures, 0);
}

void tst_WorkspaceConfig::secretsResolvedInMemoryOnly()
{
    QString error;
    const auto config = WorkspaceConfig::parse(
        minimal(
            R"(, "headers": {"Authorization": "Bearer ${env:EXAMPLE_TOKEN}"}, "url": "https://h/x?k=${env:EXAMPLE_TOKEN}")")
            .replace(R"("url": "https://api.example.com/m", )", ""),
        "ws.json", &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    const EndpointConfig &e = config->endpoints.first();
    QCOMPARE(e.headers.value("Authorization"), QByteArray("Bearer s3cr3t-t0ken"));
    QCOMPARE(e.headerTemplates.value("Authorization"), QByteArray("Bearer ${env:EXAMPLE_TOKEN}"));
    QVERIFY(e.url.toString().contains("s3cr3t-t0ken"));
}

void tst_WorkspaceConfig::alertTargets()
{
    QString error;
    const auto config = WorkspaceConfig::parse(
        minimal({}, R"("alerts": [{"id": "ops-chat", "url": "https://chat.example.com/hook",
            "headers": {"Authorization": "Bearer ${env:EXAMPLE_TOKEN}"},
            "events": ["operation_failed", "partition_held", "operation_failed"],
            "held_longer_than_seconds": 120, "min_interval_seconds": 30}], )"),
        "ws.json", &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->alerts.size(), 1);
    const AlertConfig &a = config->alerts.first();
    QCOMPARE(a.id, QStringLiteral("ops-chat"));
    QVERIFY(a.events ==
            (QList<AlertEvent>{AlertEvent::OperationFailed, AlertEvent::PartitionHeld}));
    QCOMPARE(a.heldLongerThanSeconds, 120.0);
    QCOMPARE(a.minIntervalSeconds, 30.0);
    // An endpoint of its own that no configured endpoint can be: a POST of JSON, keyed.
    QCOMPARE(a.target.id, QStringLiteral("alert:ops-chat"));
    QCOMPARE(a.target.method, QByteArray("POST"));
    QCOMPARE(a.target.headers.value("Content-Type"), QByteArray("application/json"));
    QCOMPARE(a.target.headers.value("Authorization"), QByteArray("Bearer s3cr3t-t0ken"));
    QCOMPARE(a.target.idempotencyHeader, QByteArray("Idempotency-Key"));
    QCOMPARE(a.target.retry, QStringLiteral("default"));
}

void tst_WorkspaceConfig::demoVariables()
{
    const QByteArray json =
        R"({"version": 1, "endpoints": [{"id": "d", "url": "${demo:base_url}/limited"}]})";
    QString error;
    QVERIFY(!WorkspaceConfig::parse(json, "demo.json", &error, {}, kEnv));
    QVERIFY(error.contains("unknown reference ${demo:base_url}"));
    const auto config = WorkspaceConfig::parse(
        json, "demo.json", &error, WorkspaceConfig::demoVariables(QUrl("http://127.0.0.1:4242/")),
        kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->endpoints.first().url, QUrl("http://127.0.0.1:4242/limited"));
}

void tst_WorkspaceConfig::loadNamesTheFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("broken.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"version": 1, "endpoints": [{"id": "a"}]})");
    f.close();
    QString error;
    QVERIFY(!WorkspaceConfig::load(path, &error));
    QVERIFY2(error.startsWith(path + ": endpoints[0].url: required"), qPrintable(error));

    QVERIFY(!WorkspaceConfig::load(dir.filePath("missing.json"), &error));
    QVERIFY2(error.contains("missing.json: cannot read"), qPrintable(error));
}

QTEST_GUILESS_MAIN(tst_WorkspaceConfig)
#include "tst_workspaceconfig.moc"
