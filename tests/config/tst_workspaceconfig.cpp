// SPDX-License-Identifier: Apache-2.0
#include "core/check/Expectation.h"
#include "core/config/WorkspaceConfig.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QProcess>
#include <QSslKey>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cooldown;

namespace {
const QHash<QString, QString> kEnv = {{"EXAMPLE_TOKEN", "s3cr3t-t0ken"},
                                      {"API_TOKEN", "0123456789abcdef-api"},
                                      {"PLM_CLIENT_SECRET", "plm-s3cr3t"},
                                      {"P12_PASS", "p12-pass"},
                                      {"KEY_PASS", "key-pass"},
                                      {"WRONG_PASS", "not-the-pass"},
                                      {"PROXY_USER", "proxy user"},
                                      {"PROXY_PASS", "pr0xy-p@ss"},
                                      {"BASIC_PASS", "b4sic-pass"},
                                      {"EMPTY", ""},
                                      {"NEWLINE", "line\r\nX-Injected: yes"}};
// Every value above that is a secret: none may show in a message or a template.
const QList<QByteArray> kSecrets = {"plm-s3cr3t", "p12-pass",   "key-pass",    "pr0xy-p@ss",
                                    "b4sic-pass", "X-Injected", "s3cr3t-t0ken"};

QByteArray minimal(const QByteArray &endpointExtra = {}, const QByteArray &topExtra = {})
{
    return R"({"version": 1, )" + topExtra +
           R"("endpoints": [{"id": "m", "url": "https://api.example.com/m")" + endpointExtra +
           "}]}";
}

// Two endpoints on two hosts, and the maintenance windows given.
QByteArray withMaintenance(const QByteArray &windows)
{
    return R"({"version": 1, "maintenance": [)" + windows +
           R"(], "endpoints": [{"id": "m", "url": "https://api.example.com/m"},)"
           R"( {"id": "n", "url": "https://other.example.net/n"}]})";
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
    void maintenanceWindows();
    void secretsResolvedInMemoryOnly();
    void checksLoad();
    void alertTargets();
    void demoVariables();
    void loadNamesTheFile();
    void issueExampleLoads();
    void credentialTypes();
    void credentialVariables();
    void credentialsRefused_data();
    void credentialsRefused();
    void proxyForms_data();
    void proxyForms();
    void proxyResolution();
    void tokenRequestTakesTheRoadOfItsApi();
    void bypasses_data();
    void bypasses();
    void proxyKeyHasNoPassword();
    void secretsNeverShown_data();
    void secretsNeverShown();
    void tlsFiles_data();
    void tlsFiles();
    void tlsRelativePathsFromTheWorkspaceFolder();
    void privateKeyJwt_data();
    void privateKeyJwt();
    void verifyHostnameOffWarns();

private:
    // A CA, a client certificate it signed and its key (plain and encrypted), a
    // PKCS#12 of both, another key, made by openssl for this run. Empty when openssl
    // is missing, with the reason in m_pkiProblem.
    std::unique_ptr<QTemporaryDir> m_pki;
    QString m_pkiProblem;
    void makePki();
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
    QCOMPARE(config->incidents.minIntegrations, 3);
    QCOMPARE(config->incidents.windowSeconds, 300.0);
    const auto incidents = WorkspaceConfig::parse(
        minimal(R"(, "every_seconds": 60, "catch_up": "none")",
                R"("incidents": {"min_integrations": 5, "window_seconds": 120}, )"),
        "ws.json", &error, {}, QHash<QString, QString>{});
    QVERIFY2(incidents, qPrintable(error));
    QCOMPARE(incidents->incidents.minIntegrations, 5);
    QCOMPARE(incidents->incidents.windowSeconds, 120.0);
    QVERIFY(!incidents->endpoints.first().catchUp);
    QVERIFY(config->endpoints.first().catchUp);
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
    QTest::newRow("incidents of one")
        << minimal({}, R"("incidents": {"min_integrations": 1}, )")
        << "incidents.min_integrations: expected a whole number from 2 to 10000";
    QTest::newRow("incidents unknown key")
        << minimal({}, R"("incidents": {"window": 60}, )") << "incidents.window: unknown key";
    QTest::newRow("catch_up word")
        << minimal(R"(, "every_seconds": 60, "catch_up": "all")")
        << "endpoints[0].catch_up: expected \"one\" (missed ticks run once) or \"none\"";
    QTest::newRow("catch_up run once")
        << minimal(R"(, "catch_up": "none")")
        << "endpoints[0].catch_up: only a periodic endpoint (every_seconds) has ticks";
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
    QTest::newRow("expect not an object")
        << minimal(R"(, "expect": true)") << "endpoints[0].expect: expected an object";
    QTest::newRow("expect bad pointer")
        << minimal(R"(, "expect": {"json": [{"pointer": "/a"}, {"pointer": "a"}]})")
        << "endpoints[0].expect.json[1].pointer: a JSON pointer begins with '/'";
    QTest::newRow("latency budget zero")
        << minimal(R"(, "latency_budget_ms": 0)")
        << "endpoints[0].latency_budget_ms: expected a whole number";
    QTest::newRow("kept exchanges negative")
        << minimal({}, R"("retention": {"kept_exchanges": -1}, )")
        << "retention.kept_exchanges: expected a whole number from 0";
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
    QTest::newRow("maintenance not an array")
        << minimal({}, R"("maintenance": {}, )") << "maintenance: expected an array";
    QTest::newRow("maintenance without id")
        << withMaintenance(
               R"({"time_zone": "UTC", "from": "2026-12-24T18:00", "to": "2026-12-25T08:00"})")
        << "maintenance[0].id: required";
    QTest::newRow("maintenance unknown key")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "weekly": {"days": ["sat"], "start": "22:00", "duration": "8h"}, "every": 1})")
        << "maintenance[0].every: unknown key";
    QTest::newRow("maintenance unknown zone")
        << withMaintenance(
               R"({"id": "w", "time_zone": "Europe/Atlantis", "from": "2026-12-24T18:00", "to": "2026-12-25T08:00"})")
        << "maintenance[0].time_zone: not a time zone this system knows: 'Europe/Atlantis'";
    QTest::newRow("maintenance both kinds")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "from": "2026-12-24T18:00", "to": "2026-12-25T08:00", "weekly": {"days": ["sat"], "start": "22:00", "duration": "8h"}})")
        << "maintenance[0]: one of weekly, cron, or from and to, not more";
    QTest::newRow("maintenance weekly and cron")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 22 * * sat", "duration": "8h"}, "weekly": {"days": ["sat"], "start": "22:00", "duration": "8h"}})")
        << "maintenance[0]: one of weekly, cron, or from and to, not more";
    QTest::newRow("maintenance neither kind")
        << withMaintenance(R"({"id": "w", "time_zone": "UTC"})")
        << "maintenance[0]: expected weekly, cron, or from and to";
    QTest::newRow("latency window without a budget")
        << minimal(R"(, "latency_window_seconds": 60)")
        << "endpoints[0].latency_window_seconds: only with latency_budget_ms";
    QTest::newRow("latency window too short")
        << minimal(R"(, "latency_budget_ms": 500, "latency_window_seconds": 5)")
        << "endpoints[0].latency_window_seconds:";
    QTest::newRow("maintenance cron with four fields")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 22 * sat", "duration": "8h"}})")
        << "maintenance[0].cron.schedule: expected five fields (minute hour day-of-month month "
           "day-of-week, such as '0 22 * * sat'), got 4";
    QTest::newRow("maintenance cron hour out of range")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 24 * * *", "duration": "1h"}})")
        << "maintenance[0].cron.schedule: hour: expected an hour 0-23, a range such as 1-5, a "
           "step such as */15, or a list of them, got '24'";
    QTest::newRow("maintenance cron unknown day")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 22 * * mon,fry", "duration": "1h"}})")
        << "maintenance[0].cron.schedule: day of week: expected a day 0-7 or sun-sat, a range "
           "such as 1-5, a step such as */15, or a list of them, got 'fry'";
    QTest::newRow("maintenance cron zero step")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "*/0 * * * *", "duration": "1h"}})")
        << "maintenance[0].cron.schedule: minute: expected a minute 0-59";
    QTest::newRow("maintenance cron backwards range")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 0 20-10 * *", "duration": "1h"}})")
        << "maintenance[0].cron.schedule: day of month: expected a day of the month 1-31";
    QTest::newRow("maintenance cron never")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 0 30,31 feb *", "duration": "1h"}})")
        << "maintenance[0].cron.schedule: no date matches '0 0 30,31 feb *'";
    QTest::newRow("maintenance cron without duration")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 22 * * sat"}})")
        << "maintenance[0].cron.duration: required";
    QTest::newRow("maintenance cron unknown key")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "cron": {"schedule": "0 22 * * sat", "duration": "1h", "days": []}})")
        << "maintenance[0].cron.days: unknown key";
    QTest::newRow("maintenance to before from")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "from": "2026-12-24T18:00", "to": "2026-12-24T17:00"})")
        << "maintenance[0].to: expected a time after from";
    QTest::newRow("maintenance from with an offset")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "from": "2026-12-24T18:00+01:00", "to": "2026-12-25T08:00"})")
        << "maintenance[0].from: expected a local date and time";
    QTest::newRow("maintenance no such day")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "weekly": {"days": ["sat", "caturday"], "start": "22:00", "duration": "8h"}})")
        << "maintenance[0].weekly.days[1]: expected a day (one of: mon, tue";
    QTest::newRow("maintenance no days")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "weekly": {"days": [], "start": "22:00", "duration": "8h"}})")
        << "maintenance[0].weekly.days: expected at least one day";
    QTest::newRow("maintenance start not a time")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "weekly": {"days": ["sat"], "start": "25:00", "duration": "8h"}})")
        << "maintenance[0].weekly.start: expected a local time such as 22:00, got '25:00'";
    QTest::newRow("maintenance duration in hours as a number")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "weekly": {"days": ["sat"], "start": "22:00", "duration": "8"}})")
        << "maintenance[0].weekly.duration: expected a span such as 8h";
    QTest::newRow("maintenance unknown endpoint")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "endpoints": ["m", "x"], "from": "2026-12-24T18:00", "to": "2026-12-25T08:00"})")
        << "maintenance[0].endpoints[1]: no endpoint with id 'x'";
    QTest::newRow("maintenance unknown host")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "hosts": ["api.example.org"], "from": "2026-12-24T18:00", "to": "2026-12-25T08:00"})")
        << "maintenance[0].hosts[0]: no endpoint's URL has the host 'api.example.org'";
    QTest::newRow("maintenance duplicate id")
        << withMaintenance(
               R"({"id": "w", "time_zone": "UTC", "from": "2026-12-24T18:00", "to": "2026-12-25T08:00"}, {"id": "w", "time_zone": "UTC", "from": "2026-12-31T18:00", "to": "2027-01-01T08:00"})")
        << "maintenance[1].id: duplicate id 'w'";
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

void tst_WorkspaceConfig::maintenanceWindows()
{
    // Christmas, local time in Berlin; every Saturday night for the second host; and one
    // for every endpoint, named by neither.
    const QByteArray json = withMaintenance(
        R"({"id": "xmas", "time_zone": "Europe/Berlin", "endpoints": ["m"],)"
        R"( "from": "2026-12-24T18:00", "to": "2026-12-27T08:00", "reason": "Holidays"},)"
        R"( {"id": "weekly", "time_zone": "America/New_York", "hosts": ["OTHER.example.net"],)"
        R"( "weekly": {"days": ["sat", "SUN", "sat"], "start": "22:30", "duration": "1d2h"}},)"
        R"( {"id": "all", "time_zone": "UTC", "from": "2027-01-01T00:00", "to": "2027-01-01T01:00"},)"
        R"( {"id": "first-sunday", "time_zone": "Asia/Tokyo", "endpoints": ["m"],)"
        R"(  "cron": {"schedule": " 30 1  1-7 * sun ", "duration": "4h"}})");
    QString error;
    const auto config = WorkspaceConfig::parse(json, "ws.json", &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->maintenance.size(), 4);

    const MaintenanceConfig &xmas = config->maintenance.at(0);
    QCOMPARE(xmas.id, QStringLiteral("xmas"));
    QCOMPARE(xmas.endpointIds, QStringList{QStringLiteral("m")});
    QCOMPARE(xmas.holdReason(), QStringLiteral("Holidays"));
    QCOMPARE(xmas.window.kind, MaintenanceWindow::Kind::OneOff);
    // 18:00 in Berlin is 17:00 UTC in December.
    QCOMPARE(xmas.window.fromMs,
             QDateTime(QDate(2026, 12, 24), QTime(17, 0), Qt::UTC).toMSecsSinceEpoch());
    QCOMPARE(xmas.window.toMs,
             QDateTime(QDate(2026, 12, 27), QTime(7, 0), Qt::UTC).toMSecsSinceEpoch());

    const MaintenanceConfig &weekly = config->maintenance.at(1);
    QCOMPARE(weekly.endpointIds, QStringList{QStringLiteral("n")}); // hosts match in any case
    QCOMPARE(weekly.holdReason(), QStringLiteral("maintenance weekly"));
    QCOMPARE(weekly.window.kind, MaintenanceWindow::Kind::Weekly);
    QCOMPARE(weekly.window.days, (QList<int>{6, 7}));
    QCOMPARE(weekly.window.start, QTime(22, 30));
    QCOMPARE(weekly.window.durationMs, qint64(26) * 3600 * 1000);
    QCOMPARE(weekly.window.zone.id(), QByteArray("America/New_York"));

    QCOMPARE(config->maintenance.at(2).endpointIds,
             (QStringList{QStringLiteral("m"), QStringLiteral("n")}));

    // Days 1-7 or Sundays, as cron reads a rule that restricts both.
    const MaintenanceConfig &cron = config->maintenance.at(3);
    QCOMPARE(cron.window.kind, MaintenanceWindow::Kind::Cron);
    QCOMPARE(cron.window.cron.text(), QStringLiteral("30 1 1-7 * sun"));
    QCOMPARE(cron.window.durationMs, qint64(4) * 3600 * 1000);
    // Sunday 13 December 2026, 01:30 in Tokyo: 16:30 UTC the day before.
    QCOMPARE(cron.window.nextStart(
                 QDateTime(QDate(2026, 12, 8), QTime(0, 0), Qt::UTC).toMSecsSinceEpoch()),
             QDateTime(QDate(2026, 12, 12), QTime(16, 30), Qt::UTC).toMSecsSinceEpoch());
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

// docs/checks.md: an endpoint's expect and latency budget, the retention of kept
// exchanges, and the secrets nothing written may contain.
void tst_WorkspaceConfig::checksLoad()
{
    const QByteArray json =
        R"({"version": 1, "retention": {"kept_exchanges": 5, "kept_body_bytes": 100},
        "credentials": [{"id": "c", "type": "basic", "username": "ann", "password": "${env:EXAMPLE_TOKEN}"}],
        "endpoints": [{"id": "a", "url": "https://api.example.com/a", "credentials": "c", "latency_budget_ms": 2000,
            "expect": {"status": ["2xx", 304], "json": [{"pointer": "/status", "equals": "ok", "matches": "o"}]}},
        {"id": "b", "url": "https://api.example.com/b", "expect": {}}]})";
    QString error;
    const auto config = WorkspaceConfig::parse(json, "ws.json", &error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    const EndpointConfig *a = config->endpoint("a");
    QVERIFY(a->expect);
    QCOMPARE(a->expect->statusText(), QStringLiteral("200-299, 304"));
    QCOMPARE(a->expect->json.size(), 2); // one check per condition
    QCOMPARE(a->latencyBudgetMs, 2000);
    QVERIFY(!config->endpoint("b")->expect); // an empty expectation is none
    QCOMPARE(config->endpoint("b")->latencyBudgetMs, 0);
    QCOMPARE(config->retention.keptExchanges, 5);
    QCOMPARE(config->retention.keptBodyBytes, 100);
    const QStringList secrets = config->secretValues();
    QVERIFY2(secrets.contains(QStringLiteral("s3cr3t-t0ken")), qPrintable(secrets.join(',')));
    QVERIFY(secrets.contains(QStringLiteral("ann:s3cr3t-t0ken")));
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

namespace {

// The shape of issue 41, files aside: a workspace written from its description loads.
const QByteArray kIssueCredentials =
    R"("credentials": [{"id": "plm", "type": "oauth2_client_credentials",
        "token_url": "https://idp.example.com/oauth2/token", "client_id": "cooldown",
        "client_secret": "${env:PLM_CLIENT_SECRET}", "scope": "bom.write"}],
      "proxy": "http://proxy.corp.example:3128", )";

QByteArray workspace(const QByteArray &sections, const QByteArray &endpoints,
                     const QByteArray &alerts = {})
{
    return R"({"version": 1, )" + sections + R"("endpoints": [)" + endpoints + "]" +
           (alerts.isEmpty() ? QByteArray() : R"(, "alerts": [)" + alerts + "]") + "}";
}

std::optional<WorkspaceConfig> parsed(const QByteArray &json, QString *error,
                                      const QString &source = QStringLiteral("ws.json"))
{
    return WorkspaceConfig::parse(json, source, error, {}, kEnv);
}

QString proxyText(const ProxyConfig &p)
{
    switch (p.kind) {
    case ProxyConfig::Kind::Inherit:
        return "inherit";
    case ProxyConfig::Kind::None:
        return "none";
    case ProxyConfig::Kind::System:
        return "system";
    case ProxyConfig::Kind::Explicit:
        break;
    }
    const QString user = p.url.userName(QUrl::FullyDecoded);
    const QString password = p.url.password(QUrl::FullyDecoded);
    const QString host = p.url.host().contains(':') ? '[' + p.url.host() + ']' : p.url.host();
    return p.url.scheme() + "://" +
           (user.isEmpty() ? QString() : user + (password.isEmpty() ? "" : ":" + password) + "@") +
           host + ":" + QString::number(p.url.port()) +
           (p.noProxy.isEmpty() ? QString() : " no_proxy=" + p.noProxy.join(','));
}

} // namespace

void tst_WorkspaceConfig::issueExampleLoads()
{
    QString error;
    const auto config = parsed(workspace(kIssueCredentials,
                                         R"({"id": "bom", "url": "https://plm.example.com/api/boms",
                      "credentials": "plm", "proxy": "system"},
                     {"id": "parts", "url": "https://plm.example.com/api/parts",
                      "credentials": "plm"})"),
                               &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->credentials.size(), 1);
    const CredentialConfig &c = config->credentials.first();
    QVERIFY(config->credential("plm") == &c);
    QVERIFY(!config->credential("nope"));
    QVERIFY(c.isOAuth());
    QCOMPARE(c.tokenUrl, QUrl("https://idp.example.com/oauth2/token"));
    QCOMPARE(c.clientId, QStringLiteral("cooldown"));
    QCOMPARE(c.clientSecret, QByteArray("plm-s3cr3t"));
    QCOMPARE(c.clientAuth, CredentialConfig::ClientAuth::SecretBasic);
    QCOMPARE(c.scope, QStringLiteral("bom.write"));
    QCOMPARE(c.audience, QString());
    QVERIFY(c.extraParameters.isEmpty());
    QCOMPARE(c.defaultLifetimeSeconds, 3600.0);
    QCOMPARE(c.tokenTimeoutSeconds, 30.0);
    QCOMPARE(c.variables, QStringList{"PLM_CLIENT_SECRET"});
    // The first endpoint that uses it goes through the environment's proxy; so does
    // its token request.
    QCOMPARE(proxyText(c.proxy), QStringLiteral("system"));
    QCOMPARE(proxyText(config->proxy), QStringLiteral("http://proxy.corp.example:3128"));
    QCOMPARE(config->endpoint("bom")->credentials, QStringLiteral("plm"));
    QCOMPARE(proxyText(config->endpoint("bom")->proxy), QStringLiteral("system"));
    QCOMPARE(proxyText(config->endpoint("parts")->proxy),
             QStringLiteral("http://proxy.corp.example:3128"));
    QVERIFY(config->warnings.isEmpty());
    // A credential is not a header of the endpoint: what is shown and saved stays as written.
    QVERIFY(config->endpoint("bom")->headers.fields().isEmpty());
    QVERIFY(config->endpoint("bom")->headerTemplates.fields().isEmpty());
}

void tst_WorkspaceConfig::credentialTypes()
{
    QString error;
    const auto config =
        parsed(workspace(
                   R"("credentials": [
            {"id": "post", "type": "oauth2_client_credentials", "token_url": "http://127.0.0.1:9/token",
             "client_id": "${env:PROXY_USER}", "client_secret": "${env:PLM_CLIENT_SECRET}",
             "client_auth": "client_secret_post", "audience": "https://api.example.com",
             "extra_parameters": {"resource": "bom", "tenant": "t-1"},
             "default_lifetime_seconds": 60, "timeout_seconds": 2.5},
            {"id": "explicit-basic", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
             "client_id": "c", "client_secret": "${env:PLM_CLIENT_SECRET}",
             "client_auth": "client_secret_basic"},
            {"id": "bearer", "type": "bearer", "token": "${env:EXAMPLE_TOKEN}"},
            {"id": "basic", "type": "basic", "username": "ops", "password": "${env:BASIC_PASS}"},
            {"id": "basic-env-user", "type": "basic", "username": "${env:PROXY_USER}",
             "password": "${env:BASIC_PASS}"},
            {"id": "key", "type": "header", "name": "X-Api-Key", "value": "key=${env:EXAMPLE_TOKEN};v=2"}], )",
                   R"({"id": "m", "url": "https://api.example.com/m", "credentials": "bearer"})"),
               &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->credentials.size(), 6);

    const CredentialConfig *post = config->credential("post");
    QCOMPARE(post->clientAuth, CredentialConfig::ClientAuth::SecretPost);
    QCOMPARE(post->clientId, QStringLiteral("proxy user"));
    QCOMPARE(post->tokenUrl, QUrl("http://127.0.0.1:9/token"));
    QCOMPARE(post->audience, QStringLiteral("https://api.example.com"));
    QVERIFY(post->extraParameters ==
            (QList<QPair<QString, QString>>{{"resource", "bom"}, {"tenant", "t-1"}}));
    QCOMPARE(post->defaultLifetimeSeconds, 60.0);
    QCOMPARE(post->tokenTimeoutSeconds, 2.5);
    QVERIFY(post->headerName.isEmpty());
    // Used by no endpoint: the workspace's way, which is none here.
    QCOMPARE(proxyText(post->proxy), QStringLiteral("none"));
    QCOMPARE(config->credential("explicit-basic")->clientAuth,
             CredentialConfig::ClientAuth::SecretBasic);

    const CredentialConfig *bearer = config->credential("bearer");
    QCOMPARE(bearer->type, CredentialConfig::Type::Bearer);
    QVERIFY(!bearer->isOAuth());
    QCOMPARE(bearer->headerName, QByteArray("Authorization"));
    QCOMPARE(bearer->headerValue, QByteArray("Bearer s3cr3t-t0ken"));

    const CredentialConfig *basic = config->credential("basic");
    QCOMPARE(basic->headerName, QByteArray("Authorization"));
    QCOMPARE(basic->headerValue, "Basic " + QByteArray("ops:b4sic-pass").toBase64());
    QCOMPARE(config->credential("basic-env-user")->headerValue,
             "Basic " + QByteArray("proxy user:b4sic-pass").toBase64());

    const CredentialConfig *key = config->credential("key");
    QCOMPARE(key->headerName, QByteArray("X-Api-Key"));
    QCOMPARE(key->headerValue, QByteArray("key=s3cr3t-t0ken;v=2"));

    for (const auto type :
         {CredentialConfig::Type::OAuth2ClientCredentials, CredentialConfig::Type::Bearer,
          CredentialConfig::Type::Basic, CredentialConfig::Type::Header})
        QVERIFY(QByteArray(textOf(type)).size() > 0);
    QCOMPARE(QByteArray(textOf(CredentialConfig::Type::OAuth2ClientCredentials)),
             QByteArray("oauth2_client_credentials"));
    QCOMPARE(QByteArray(textOf(CredentialConfig::Type::Header)), QByteArray("header"));
}

// check-config lists them: every variable a credential reads, each once, in order.
void tst_WorkspaceConfig::credentialVariables()
{
    QString error;
    const auto config = parsed(workspace(
                                   R"("credentials": [
            {"id": "o", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
             "client_id": "${env:PROXY_USER}", "client_secret": "${env:PLM_CLIENT_SECRET}",
             "scope": "${env:PROXY_USER}", "extra_parameters": {"k": "${env:EXAMPLE_TOKEN}"},
             "proxy": "http://${env:PROXY_USER}:${env:PROXY_PASS}@proxy:3128"},
            {"id": "b", "type": "basic", "username": "u", "password": "${env:BASIC_PASS}"},
            {"id": "h", "type": "header", "name": "X-K", "value": "${env:EXAMPLE_TOKEN}"}], )",
                                   R"({"id": "m", "url": "https://api.example.com/m"})"),
                               &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->credential("o")->variables,
             (QStringList{"PROXY_USER", "PLM_CLIENT_SECRET", "EXAMPLE_TOKEN", "PROXY_PASS"}));
    QCOMPARE(config->credential("b")->variables, QStringList{"BASIC_PASS"});
    QCOMPARE(config->credential("h")->variables, QStringList{"EXAMPLE_TOKEN"});
}

void tst_WorkspaceConfig::credentialsRefused_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("message");

    const QByteArray endpoint = R"({"id": "m", "url": "https://api.example.com/m"})";
    const auto credential = [&](const QByteArray &fields) {
        return workspace(R"("credentials": [{"id": "c", )" + fields + "}], ", endpoint);
    };
    const auto oauth = [&](const QByteArray &more) {
        return credential(
            R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_id": "me", "client_secret": "${env:PLM_CLIENT_SECRET}")" +
            more);
    };
    const auto tls = [&](const QByteArray &fields) {
        return workspace(R"("tls": [{"id": "t", )" + fields + "}], ", endpoint);
    };
    const auto proxy = [&](const QByteArray &value) {
        return workspace(R"("proxy": )" + value + ", ", endpoint);
    };

    // The sections
    QTest::newRow("credentials object") << workspace(R"("credentials": {}, )", endpoint)
                                        << "ws.json: credentials: expected an array";
    QTest::newRow("credential number")
        << workspace(R"("credentials": [1], )", endpoint) << "credentials[0]: expected an object";
    QTest::newRow("top key typo") << workspace(R"("credential": [], )", endpoint)
                                  << "ws.json: credential: unknown key";
    QTest::newRow("tls object") << workspace(R"("tls": {}, )", endpoint)
                                << "ws.json: tls: expected an array";

    // credentials
    QTest::newRow("no type") << credential(R"("token": "${env:EXAMPLE_TOKEN}")")
                             << "credentials[0].type: required, expected a string";
    QTest::newRow("unknown type")
        << credential(R"("type": "oauth2")")
        << "credentials[0].type: expected one of: oauth2_client_credentials, bearer, basic, header";
    QTest::newRow("no id")
        << workspace(R"("credentials": [{"type": "bearer", "token": "${env:EXAMPLE_TOKEN}"}], )",
                     endpoint)
        << "credentials[0].id: required";
    QTest::newRow("bad id")
        << workspace(
               R"("credentials": [{"id": "a b", "type": "bearer", "token": "${env:EXAMPLE_TOKEN}"}], )",
               endpoint)
        << "credentials[0].id: expected 1-64";
    QTest::newRow("duplicate id")
        << workspace(
               R"("credentials": [{"id": "a", "type": "bearer", "token": "${env:EXAMPLE_TOKEN}"},
                                        {"id": "a", "type": "bearer", "token": "${env:EXAMPLE_TOKEN}"}], )",
               endpoint)
        << "credentials[1].id: duplicate id 'a'";
    QTest::newRow("key of another type")
        << credential(R"("type": "bearer", "token": "${env:EXAMPLE_TOKEN}", "scope": "x")")
        << "credentials[0].scope: unknown key (expected one of: id, type, token)";
    QTest::newRow("oauth key typo")
        << oauth(R"(, "scopes": "x")") << "credentials[0].scopes: unknown key";
    QTest::newRow("oauth no token_url")
        << credential(
               R"("type": "oauth2_client_credentials", "client_id": "me", "client_secret": "${env:PLM_CLIENT_SECRET}")")
        << "credentials[0].token_url: required";
    QTest::newRow("oauth relative token_url")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "/token", "client_id": "me", "client_secret": "${env:PLM_CLIENT_SECRET}")")
        << "credentials[0].token_url: expected an absolute http or https URL";
    QTest::newRow("oauth ftp token_url")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "ftp://idp/t", "client_id": "me", "client_secret": "${env:PLM_CLIENT_SECRET}")")
        << "credentials[0].token_url: expected an absolute http or https URL";
    QTest::newRow("oauth no client_id")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_secret": "${env:PLM_CLIENT_SECRET}")")
        << "credentials[0].client_id: required";
    QTest::newRow("oauth empty client_id")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_id": "", "client_secret": "${env:PLM_CLIENT_SECRET}")")
        << "credentials[0].client_id: expected a client id";
    QTest::newRow("oauth no client_secret")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_id": "me")")
        << "credentials[0].client_secret: required";
    QTest::newRow("oauth secret in the file")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_id": "me", "client_secret": "hunter2")")
        << "credentials[0].client_secret: expected ${env:NAME}: a secret is read from the "
           "environment, never written in the file";
    QTest::newRow("oauth secret beside text")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_id": "me", "client_secret": "x${env:PLM_CLIENT_SECRET}")")
        << "credentials[0].client_secret: expected ${env:NAME}";
    QTest::newRow("oauth secret unset")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_id": "me", "client_secret": "${env:NOPE}")")
        << "credentials[0].client_secret: environment variable NOPE is not set";
    QTest::newRow("oauth secret empty")
        << credential(
               R"("type": "oauth2_client_credentials", "token_url": "https://idp/t", "client_id": "me", "client_secret": "${env:EMPTY}")")
        << "credentials[0].client_secret: environment variable EMPTY is empty";
    QTest::newRow("private_key_jwt with a secret")
        << oauth(R"(, "client_auth": "private_key_jwt")")
        << "credentials[0].client_secret: private_key_jwt signs with private_key; no "
           "client_secret is sent";
    QTest::newRow("private_key without private_key_jwt")
        << oauth(R"(, "private_key": "me.key")")
        << "credentials[0].private_key: only with private_key_jwt";
    QTest::newRow("client_auth unknown")
        << oauth(R"(, "client_auth": "mtls")")
        << "credentials[0].client_auth: expected one of: client_secret_basic, client_secret_post, "
           "private_key_jwt";
    QTest::newRow("scope number") << oauth(R"(, "scope": 1)")
                                  << "credentials[0].scope: expected a string";
    QTest::newRow("scope with a job placeholder")
        << oauth(R"(, "scope": "${job:tenant}")")
        << "credentials[0].scope: a ${job:NAME} placeholder cannot stand here";
    QTest::newRow("audience unset env") << oauth(R"(, "audience": "${env:NOPE}")")
                                        << "credentials[0].audience: environment variable NOPE";
    QTest::newRow("extra_parameters array")
        << oauth(R"(, "extra_parameters": ["a"])")
        << "credentials[0].extra_parameters: expected an object";
    QTest::newRow("extra parameter number")
        << oauth(R"(, "extra_parameters": {"a": 1})")
        << "credentials[0].extra_parameters.a: expected a string";
    QTest::newRow("extra parameter replaces grant_type")
        << oauth(R"(, "extra_parameters": {"grant_type": "password"})")
        << "credentials[0].extra_parameters.grant_type: this form field is the token request's";
    QTest::newRow("extra parameter replaces scope")
        << oauth(R"(, "extra_parameters": {"scope": "x"})")
        << "credentials[0].extra_parameters.scope";
    QTest::newRow("default lifetime zero")
        << oauth(R"(, "default_lifetime_seconds": 0)")
        << "credentials[0].default_lifetime_seconds: expected a number from 1 to 31622400";
    QTest::newRow("token timeout zero")
        << oauth(R"(, "timeout_seconds": 0)")
        << "credentials[0].timeout_seconds: expected a number from 0.001 to 3600";
    QTest::newRow("oauth unknown tls")
        << oauth(R"(, "tls": "corp")") << "credentials[0].tls: no tls entry with id 'corp'";
    QTest::newRow("oauth bad proxy")
        << oauth(R"(, "proxy": "direct")") << "credentials[0].proxy: expected \"system\"";
    QTest::newRow("bearer literal") << credential(R"("type": "bearer", "token": "abc")")
                                    << "credentials[0].token: expected ${env:NAME}";
    QTest::newRow("bearer missing")
        << credential(R"("type": "bearer")") << "credentials[0].token: required";
    QTest::newRow("bearer line break")
        << credential(R"("type": "bearer", "token": "${env:NEWLINE}")")
        << "credentials[0].token: environment variable NEWLINE holds a control character";
    QTest::newRow("basic literal password")
        << credential(R"("type": "basic", "username": "u", "password": "pw")")
        << "credentials[0].password: expected ${env:NAME}";
    QTest::newRow("basic no username")
        << credential(R"("type": "basic", "password": "${env:BASIC_PASS}")")
        << "credentials[0].username: required";
    QTest::newRow("basic username with colon")
        << credential(R"("type": "basic", "username": "a:b", "password": "${env:BASIC_PASS}")")
        << "credentials[0].username: expected a user name without ':'";
    QTest::newRow("basic username mixed")
        << credential(
               R"("type": "basic", "username": "x-${env:PROXY_USER}", "password": "${env:BASIC_PASS}")")
        << "credentials[0].username: expected a user name as it is, or ${env:NAME}";
    QTest::newRow("header bad name")
        << credential(R"("type": "header", "name": "X Key", "value": "${env:EXAMPLE_TOKEN}")")
        << "credentials[0].name: not a valid header name";
    QTest::newRow("header literal value")
        << credential(R"("type": "header", "name": "X-Key", "value": "abc")")
        << "credentials[0].value: expected a ${env:NAME} reference in the value";
    QTest::newRow("header line break")
        << credential(R"("type": "header", "name": "X-Key", "value": "k=${env:NEWLINE}")")
        << "credentials[0].value: header values cannot contain line breaks (from NEWLINE)";
    QTest::newRow("header unset")
        << credential(R"("type": "header", "name": "X-Key", "value": "${env:NOPE}")")
        << "credentials[0].value: environment variable NOPE is not set";

    // References
    const QByteArray bearer =
        R"("credentials": [{"id": "c", "type": "bearer", "token": "${env:EXAMPLE_TOKEN}"}], )";
    QTest::newRow("endpoint unknown credentials")
        << workspace(bearer, R"({"id": "m", "url": "https://a/", "credentials": "nope"})")
        << "endpoints[0].credentials: no credentials with id 'nope'";
    QTest::newRow("endpoint credentials number")
        << workspace(bearer, R"({"id": "m", "url": "https://a/", "credentials": 1})")
        << "endpoints[0].credentials: expected a string";
    QTest::newRow("endpoint unknown tls")
        << workspace({}, R"({"id": "m", "url": "https://a/", "tls": "corp"})")
        << "endpoints[0].tls: no tls entry with id 'corp'";
    QTest::newRow("endpoint header beside its credential")
        << workspace(bearer, R"({"id": "m", "url": "https://a/", "credentials": "c",
                                 "headers": {"authorization": "Bearer ${env:EXAMPLE_TOKEN}"}})")
        << "endpoints[0].credentials: the headers already set Authorization, which the "
           "credentials 'c' send";
    QTest::newRow("second endpoint unknown credentials")
        << workspace(bearer, R"({"id": "m", "url": "https://a/", "credentials": "c"},
                                {"id": "n", "url": "https://a/", "credentials": "C"})")
        << "endpoints[1].credentials: no credentials with id 'C'";
    QTest::newRow("alert unknown credentials")
        << workspace(
               bearer, endpoint,
               R"({"id": "o", "url": "https://c/h", "events": ["policy_drift"], "credentials": "x"})")
        << "alerts[0].credentials: no credentials with id 'x'";
    QTest::newRow("alert unknown tls")
        << workspace(bearer, endpoint,
                     R"({"id": "o", "url": "https://c/h", "events": ["policy_drift"], "tls": "x"})")
        << "alerts[0].tls: no tls entry with id 'x'";
    QTest::newRow("alert bad proxy")
        << workspace(
               bearer, endpoint,
               R"({"id": "o", "url": "https://c/h", "events": ["policy_drift"], "proxy": 3128})")
        << "alerts[0].proxy: expected \"system\"";

    // Proxies
    QTest::newRow("proxy number") << proxy("3128")
                                  << "ws.json: proxy: expected \"system\", \"none\"";
    QTest::newRow("proxy word") << proxy(R"("direct")") << "ws.json: proxy: expected \"system\"";
    QTest::newRow("proxy ftp") << proxy(R"("ftp://proxy:21")") << "ws.json: proxy: expected";
    QTest::newRow("proxy https") << proxy(R"("https://proxy:8443")")
                                 << "ws.json: proxy: an https:// proxy (TLS to the proxy itself) "
                                    "is not supported";
    QTest::newRow("proxy without port")
        << proxy(R"("http://proxy.corp.example")")
        << "ws.json: proxy: a proxy URL needs a port (http://proxy.example:3128)";
    QTest::newRow("proxy with path")
        << proxy(R"("http://proxy:3128/pac")")
        << "ws.json: proxy: a proxy URL is a scheme, a host and a port";
    QTest::newRow("proxy literal password")
        << proxy(R"("http://me:hunter2@proxy:3128")")
        << "ws.json: proxy: the password of a proxy URL must be ${env:NAME}";
    QTest::newRow("proxy password beside text")
        << proxy(R"("http://me:x${env:PROXY_PASS}@proxy:3128")")
        << "ws.json: proxy: the password of a proxy URL must be ${env:NAME}";
    QTest::newRow("proxy password unset") << proxy(R"("http://me:${env:NOPE}@proxy:3128")")
                                          << "ws.json: proxy: environment variable NOPE is not set";
    QTest::newRow("proxy user unset") << proxy(R"("socks5://${env:NOPE}@proxy:1080")")
                                      << "ws.json: proxy: environment variable NOPE is not set";
    QTest::newRow("proxy empty user") << proxy(R"("http://:${env:PROXY_PASS}@proxy:3128")")
                                      << "ws.json: proxy: a proxy URL with '@' needs a user";
    QTest::newRow("proxy host from env") << proxy(R"("http://${env:PROXY_USER}:3128")")
                                         << "ws.json: proxy: the host and port of a proxy URL";
    QTest::newRow("proxy object without url")
        << proxy(R"({"no_proxy": ["a"]})") << "ws.json: proxy.url: required";
    QTest::newRow("proxy object typo")
        << proxy(R"({"url": "http://p:1", "noproxy": []})")
        << "ws.json: proxy.noproxy: unknown key (expected one of: url, no_proxy)";
    QTest::newRow("proxy object system")
        << proxy(R"({"url": "system"})") << "ws.json: proxy.url: expected \"system\"";
    QTest::newRow("no_proxy string") << proxy(R"({"url": "http://p:1", "no_proxy": "a,b"})")
                                     << "ws.json: proxy.no_proxy: expected an array";
    QTest::newRow("no_proxy url")
        << proxy(R"({"url": "http://p:1", "no_proxy": ["a.example", "http://b.example"]})")
        << "ws.json: proxy.no_proxy[1]: expected a host name, \".domain\", an IP address or \"*\"";
    QTest::newRow("no_proxy number") << proxy(R"({"url": "http://p:1", "no_proxy": [1]})")
                                     << "ws.json: proxy.no_proxy[0]: expected a host name";
    QTest::newRow("no_proxy empty") << proxy(R"({"url": "http://p:1", "no_proxy": [""]})")
                                    << "ws.json: proxy.no_proxy[0]: expected a host name";
    QTest::newRow("endpoint bad proxy")
        << workspace({}, R"({"id": "m", "url": "https://a/", "proxy": "http://p"})")
        << "endpoints[0].proxy: a proxy URL needs a port";

    // tls entries, before any file is read
    QTest::newRow("tls typo") << tls(R"("cafile": "ca.pem")") << "tls[0].cafile: unknown key";
    QTest::newRow("tls no id") << workspace(R"("tls": [{"verify_hostname": true}], )", endpoint)
                               << "tls[0].id: required";
    QTest::newRow("tls duplicate id")
        << workspace(R"("tls": [{"id": "t"}, {"id": "t"}], )", endpoint)
        << "tls[1].id: duplicate id 't'";
    QTest::newRow("certificate without key")
        << tls(R"("client_certificate": "me.pem")")
        << "tls[0].client_key: required with client_certificate";
    QTest::newRow("key without certificate")
        << tls(R"("client_key": "me.key")")
        << "tls[0].client_certificate: required with client_key";
    QTest::newRow("pkcs12 and pem")
        << tls(R"("client_pkcs12": "me.p12", "client_certificate": "me.pem", "client_key": "me.key")")
        << "tls[0].client_pkcs12: give either client_pkcs12 or client_certificate and client_key";
    QTest::newRow("key passphrase without key") << tls(R"("key_passphrase": "${env:KEY_PASS}")")
                                                << "tls[0].key_passphrase: only with client_key";
    QTest::newRow("pkcs12 passphrase without pkcs12")
        << tls(R"("pkcs12_passphrase": "${env:P12_PASS}")")
        << "tls[0].pkcs12_passphrase: only with client_pkcs12";
    QTest::newRow("pkcs12 passphrase in the file")
        << tls(R"("client_pkcs12": "me.p12", "pkcs12_passphrase": "secret")")
        << "tls[0].pkcs12_passphrase: expected ${env:NAME}";
    QTest::newRow("key passphrase unset")
        << tls(R"("client_certificate": "me.pem", "client_key": "me.key", "key_passphrase": "${env:NOPE}")")
        << "tls[0].key_passphrase: environment variable NOPE is not set";
    QTest::newRow("verify_hostname string")
        << tls(R"("verify_hostname": "no")") << "tls[0].verify_hostname: expected true or false";
    QTest::newRow("ca_file empty")
        << tls(R"("ca_file": "")") << "tls[0].ca_file: expected a file name";
    QTest::newRow("ca_file number")
        << tls(R"("ca_file": 1)") << "tls[0].ca_file: expected a string";
    QTest::newRow("ca_file job placeholder")
        << tls(R"("ca_file": "${job:ca}")") << "tls[0].ca_file: a ${job:NAME} placeholder";
    QTest::newRow("ca_file missing")
        << tls(R"("ca_file": "/nonexistent/cooldown-test/ca.pem")")
        << "tls[0].ca_file: /nonexistent/cooldown-test/ca.pem does not exist";
    QTest::newRow("ca_file a folder")
        << tls(R"("ca_file": "/")") << "tls[0].ca_file: / is not a file";
    QTest::newRow("ca_file of /proc")
        << tls(R"("ca_file": "/proc/self/status")") << "tls[0].ca_file: /proc/self/status is empty";
    QTest::newRow("ca_file a device")
        << tls(R"("ca_file": "/dev/zero")") << "tls[0].ca_file: /dev/zero is not a file";
}

void tst_WorkspaceConfig::credentialsRefused()
{
    refused();
}

void tst_WorkspaceConfig::proxyForms_data()
{
    QTest::addColumn<QByteArray>("proxy");
    QTest::addColumn<QString>("expected");

    QTest::newRow("system") << QByteArray(R"("system")") << "system";
    QTest::newRow("none") << QByteArray(R"("none")") << "none";
    QTest::newRow("http") << QByteArray(R"("http://proxy.corp.example:3128")")
                          << "http://proxy.corp.example:3128";
    QTest::newRow("http with a final slash")
        << QByteArray(R"("http://proxy.corp.example:3128/")") << "http://proxy.corp.example:3128";
    QTest::newRow("socks5") << QByteArray(R"("socks5://127.0.0.1:1080")")
                            << "socks5://127.0.0.1:1080";
    QTest::newRow("ipv6") << QByteArray(R"("http://[::1]:3128")") << "http://[::1]:3128";
    QTest::newRow("upper-case scheme")
        << QByteArray(R"("HTTP://proxy:3128")") << "http://proxy:3128";
    QTest::newRow("user written") << QByteArray(R"("http://ops@proxy:3128")")
                                  << "http://ops@proxy:3128";
    QTest::newRow("user and password from env")
        << QByteArray(R"("http://${env:PROXY_USER}:${env:PROXY_PASS}@proxy:3128")")
        << "http://proxy user:pr0xy-p@ss@proxy:3128";
    QTest::newRow("object")
        << QByteArray(
               R"({"url": "http://proxy:3128", "no_proxy": ["Internal.Example", ".corp.example", "10.1.2.3", "::1", "*"]})")
        << "http://proxy:3128 no_proxy=internal.example,.corp.example,10.1.2.3,::1,*";
    QTest::newRow("object without no_proxy")
        << QByteArray(R"({"url": "socks5://proxy:1080"})") << "socks5://proxy:1080";
}

void tst_WorkspaceConfig::proxyForms()
{
    QFETCH(QByteArray, proxy);
    QFETCH(QString, expected);
    QString error;
    const auto config =
        parsed(workspace(R"("proxy": )" + proxy + ", ",
                         R"({"id": "m", "url": "https://a/"}, {"id": "n", "url": "https://a/",
                             "proxy": )" +
                             proxy + "}"),
               &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(proxyText(config->proxy), expected);
    QCOMPARE(proxyText(config->endpoint("m")->proxy), expected);
    QCOMPARE(proxyText(config->endpoint("n")->proxy), expected);
}

void tst_WorkspaceConfig::proxyResolution()
{
    QString error;
    // No proxy anywhere: direct, as before proxies could be configured.
    const auto direct =
        parsed(workspace({}, R"({"id": "m", "url": "https://a/"})",
                         R"({"id": "o", "url": "https://c/h", "events": ["policy_drift"]})"),
               &error);
    QVERIFY2(direct, qPrintable(error));
    QCOMPARE(direct->proxy.kind, ProxyConfig::Kind::None);
    QCOMPARE(direct->endpoint("m")->proxy.kind, ProxyConfig::Kind::None);
    QCOMPARE(direct->alerts.first().target.proxy.kind, ProxyConfig::Kind::None);

    const auto config =
        parsed(workspace(R"("proxy": "socks5://proxy:1080", )",
                         R"({"id": "inherits", "url": "https://a/"},
                     {"id": "direct", "url": "https://a/", "proxy": "none"},
                     {"id": "system", "url": "https://a/", "proxy": "system"},
                     {"id": "own", "url": "https://a/", "proxy": {"url": "http://other:3128", "no_proxy": ["a"]}})",
                         R"({"id": "o", "url": "https://c/h", "events": ["policy_drift"]},
                     {"id": "p", "url": "https://c/h", "events": ["policy_drift"], "proxy": "none"})"),
               &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(proxyText(config->endpoint("inherits")->proxy), QStringLiteral("socks5://proxy:1080"));
    QCOMPARE(proxyText(config->endpoint("direct")->proxy), QStringLiteral("none"));
    QCOMPARE(proxyText(config->endpoint("system")->proxy), QStringLiteral("system"));
    QCOMPARE(proxyText(config->endpoint("own")->proxy),
             QStringLiteral("http://other:3128 no_proxy=a"));
    QCOMPARE(proxyText(config->alerts.at(0).target.proxy), QStringLiteral("socks5://proxy:1080"));
    QCOMPARE(proxyText(config->alerts.at(1).target.proxy), QStringLiteral("none"));
    for (const EndpointConfig &e : config->endpoints)
        QVERIFY(e.proxy.kind != ProxyConfig::Kind::Inherit);
}

void tst_WorkspaceConfig::tokenRequestTakesTheRoadOfItsApi()
{
    const QByteArray sections =
        R"("tls": [{"id": "a", "verify_hostname": true}, {"id": "b"}],
           "proxy": "http://proxy:3128",
           "credentials": [
             {"id": "first-user", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
              "client_id": "c", "client_secret": "${env:PLM_CLIENT_SECRET}"},
             {"id": "own", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
              "client_id": "c", "client_secret": "${env:PLM_CLIENT_SECRET}", "tls": "b", "proxy": "none"},
             {"id": "unused", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
              "client_id": "c", "client_secret": "${env:PLM_CLIENT_SECRET}"},
             {"id": "alert-only", "type": "bearer", "token": "${env:EXAMPLE_TOKEN}"}], )";
    QString error;
    const auto config =
        parsed(workspace(sections,
                         R"({"id": "plain", "url": "https://a/"},
                     {"id": "x", "url": "https://a/", "credentials": "first-user", "tls": "a", "proxy": "system"},
                     {"id": "y", "url": "https://a/", "credentials": "first-user", "tls": "b"},
                     {"id": "z", "url": "https://a/", "credentials": "own", "tls": "a"})",
                         R"({"id": "o", "url": "https://c/h", "events": ["policy_drift"],
                      "credentials": "alert-only", "tls": "b", "proxy": "socks5://s:1080"})"),
               &error);
    QVERIFY2(config, qPrintable(error));
    const CredentialConfig *first = config->credential("first-user");
    QCOMPARE(first->tls, QStringLiteral("a"));
    QCOMPARE(proxyText(first->proxy), QStringLiteral("system"));
    const CredentialConfig *own = config->credential("own");
    QCOMPARE(own->tls, QStringLiteral("b"));
    QCOMPARE(proxyText(own->proxy), QStringLiteral("none"));
    const CredentialConfig *unused = config->credential("unused");
    QCOMPARE(unused->tls, QString());
    QCOMPARE(proxyText(unused->proxy), QStringLiteral("http://proxy:3128"));
    const CredentialConfig *alertOnly = config->credential("alert-only");
    QCOMPARE(alertOnly->tls, QStringLiteral("b"));
    QCOMPARE(proxyText(alertOnly->proxy), QStringLiteral("socks5://s:1080"));
    QCOMPARE(config->endpoint("y")->tls, QStringLiteral("b"));
    QVERIFY(config->tlsConfig("a"));
    QVERIFY(!config->tlsConfig("c"));
    for (const CredentialConfig &c : config->credentials)
        QVERIFY(c.proxy.kind != ProxyConfig::Kind::Inherit);
}

void tst_WorkspaceConfig::bypasses_data()
{
    QTest::addColumn<QStringList>("noProxy");
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("bypassed");

    const QStringList corp = {"example.com", ".corp.example", "10.0.0.1", "::1"};
    QTest::newRow("the domain itself") << corp << "example.com" << true;
    QTest::newRow("a subdomain") << corp << "api.example.com" << true;
    QTest::newRow("case and final dot") << corp << "API.Example.COM." << true;
    QTest::newRow("not a suffix of a label") << corp << "badexample.com" << false;
    QTest::newRow("dot form: a subdomain") << corp << "plm.corp.example" << true;
    QTest::newRow("dot form: not the domain itself") << corp << "corp.example" << false;
    QTest::newRow("an address") << corp << "10.0.0.1" << true;
    QTest::newRow("another address") << corp << "10.0.0.10" << false;
    QTest::newRow("an address is not a name") << corp << "1.10.0.0.1" << false;
    QTest::newRow("ipv6 in brackets") << corp << "[0:0::1]" << true;
    QTest::newRow("other host") << corp << "idp.example.org" << false;
    QTest::newRow("empty host") << corp << "" << false;
    QTest::newRow("star") << QStringList{"*"} << "anything.example" << true;
    QTest::newRow("nothing listed") << QStringList{} << "example.com" << false;
}

void tst_WorkspaceConfig::bypasses()
{
    QFETCH(QStringList, noProxy);
    QFETCH(QString, host);
    QFETCH(bool, bypassed);
    ProxyConfig proxy;
    proxy.kind = ProxyConfig::Kind::Explicit;
    proxy.url = QUrl("http://proxy:3128");
    proxy.noProxy = noProxy;
    QCOMPARE(proxy.bypasses(host), bypassed);
}

void tst_WorkspaceConfig::proxyKeyHasNoPassword()
{
    QString error;
    const auto config = parsed(
        workspace(
            R"("proxy": {"url": "http://${env:PROXY_USER}:${env:PROXY_PASS}@proxy:3128",
                               "no_proxy": ["a.example"]}, )",
            R"({"id": "m", "url": "https://a/"}, {"id": "n", "url": "https://a/", "proxy": "system"},
                     {"id": "d", "url": "https://a/", "proxy": "none"})"),
        &error);
    QVERIFY2(config, qPrintable(error));
    const ProxyConfig &p = config->proxy;
    QCOMPARE(p.url.userName(), QStringLiteral("proxy user"));
    QCOMPARE(p.url.password(), QStringLiteral("pr0xy-p@ss"));
    const QString key = p.key();
    QVERIFY2(!key.contains("pr0xy"), qPrintable(key));
    QVERIFY2(key.contains("proxy:3128") && key.contains("a.example"), qPrintable(key));
    // The user tells two pools apart, but is not in the key: it may be a secret too.
    QVERIFY2(!key.contains("proxy%20user") && !key.contains("proxy user"), qPrintable(key));
    ProxyConfig otherUser = p;
    otherUser.url.setUserName(QStringLiteral("someone else"));
    QVERIFY(otherUser.key() != key);
    ProxyConfig otherPassword = p;
    otherPassword.url.setPassword(QStringLiteral("another password"));
    QVERIFY(otherPassword.key() != key);
    // Two ways that differ are two keys.
    QCOMPARE(config->endpoint("n")->proxy.key(), QStringLiteral("system"));
    QCOMPARE(config->endpoint("d")->proxy.key(), QStringLiteral("none"));
    ProxyConfig other = p;
    other.noProxy.clear();
    QVERIFY(other.key() != key);
    QVERIFY(!(other == p));
}

// A message or a warning is shown and logged; a template is saved. None holds a secret.
void tst_WorkspaceConfig::secretsNeverShown_data()
{
    QTest::addColumn<QByteArray>("json");
    const QByteArray endpoint = R"({"id": "m", "url": "https://a/"})";
    QTest::newRow("accepted, with a warning") << workspace(
        R"("tls": [{"id": "t", "verify_hostname": false}],
                  "proxy": "http://${env:PROXY_USER}:${env:PROXY_PASS}@proxy:3128",
                  "credentials": [{"id": "c", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
                    "client_id": "c", "client_secret": "${env:PLM_CLIENT_SECRET}", "tls": "t"},
                    {"id": "b", "type": "basic", "username": "u", "password": "${env:BASIC_PASS}"}], )",
        R"({"id": "m", "url": "https://a/", "credentials": "c", "tls": "t"},
                  {"id": "n", "url": "https://a/", "credentials": "b",
                   "headers": {"X-Trace": "${env:EXAMPLE_TOKEN}"}})");
    QTest::newRow("refused after a secret was read") << workspace(
        R"("credentials": [{"id": "c", "type": "bearer", "token": "${env:EXAMPLE_TOKEN}"},
                                        {"id": "d", "type": "basic", "username": "u", "password": "${env:BASIC_PASS}"}], )",
        R"({"id": "m", "url": "https://a/", "credentials": "d",
                         "headers": {"Authorization": "${env:PLM_CLIENT_SECRET}"}})");
    QTest::newRow("a header with a line break") << workspace(
        R"("credentials": [{"id": "c", "type": "header", "name": "X-K", "value": "${env:NEWLINE}"}], )",
        endpoint);
    QTest::newRow("a bearer token with a line break") << workspace(
        R"("credentials": [{"id": "c", "type": "bearer", "token": "${env:NEWLINE}"}], )", endpoint);
    QTest::newRow("a proxy password written in the file")
        << workspace(R"("proxy": "http://me:b4sic-pass@proxy:3128", )", endpoint);
    QTest::newRow("a proxy password beside a bad port")
        << workspace(R"("proxy": "http://me:${env:PROXY_PASS}@proxy:x", )", endpoint);
    QTest::newRow("a client secret written in the file") << workspace(
        R"("credentials": [{"id": "c", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
                         "client_id": "c", "client_secret": "plm-s3cr3t"}], )",
        endpoint);
}

void tst_WorkspaceConfig::secretsNeverShown()
{
    QFETCH(QByteArray, json);
    QString error;
    const auto config = parsed(json, &error);
    QStringList shown = {error};
    if (config) {
        shown += config->warnings;
        QVERIFY(!config->warnings.isEmpty());
        for (const EndpointConfig &e : config->endpoints) {
            for (const auto &field : e.headerTemplates.fields())
                shown.append(QString::fromUtf8(field.first + ": " + field.second));
            shown.append(e.proxy.key());
        }
        for (const CredentialConfig &c : config->credentials)
            shown += c.variables;
    } else {
        QVERIFY(!error.isEmpty());
    }
    for (const QString &text : std::as_const(shown)) {
        for (const QByteArray &secret : kSecrets)
            QVERIFY2(!text.contains(QString::fromUtf8(secret)), qPrintable(text));
    }
}

void tst_WorkspaceConfig::makePki()
{
    if (m_pki || !m_pkiProblem.isEmpty())
        return;
    const QString openssl = QStandardPaths::findExecutable("openssl");
    if (openssl.isEmpty()) {
        m_pkiProblem = "openssl is not installed: the tls files cannot be made";
        return;
    }
    auto dir = std::make_unique<QTemporaryDir>();
    if (!dir->isValid()) {
        m_pkiProblem = "no temporary folder: " + dir->errorString();
        return;
    }
    const QList<QStringList> steps = {
        // An EC CA (quick to make), and an RSA client: both key kinds are compared.
        {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Cooldown Test CA"},
        {"req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr",
         "-subj", "/CN=cooldown-client"},
        {"x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
         "-CAcreateserial", "-out", "client.pem", "-days", "2"},
        {"pkey", "-in", "client.key", "-aes256", "-passout", "pass:key-pass", "-out",
         "client-encrypted.key"},
        {"pkcs12", "-export", "-in", "client.pem", "-inkey", "client.key", "-certfile", "ca.pem",
         "-out", "client.p12", "-passout", "pass:p12-pass"},
        {"genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "other.key"},
    };
    for (const QStringList &arguments : steps) {
        QProcess p;
        p.setWorkingDirectory(dir->path());
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(openssl, arguments);
        if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit ||
            p.exitCode() != 0) {
            m_pkiProblem = "openssl " + arguments.join(' ') +
                           " failed: " + QString::fromLocal8Bit(p.readAll());
            return;
        }
    }
    QFile garbage(dir->filePath("garbage.pem"));
    if (!garbage.open(QIODevice::WriteOnly) ||
        garbage.write(
            "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n") <= 0) {
        m_pkiProblem = "cannot write " + garbage.fileName();
        return;
    }
    m_pki = std::move(dir);
}

void tst_WorkspaceConfig::tlsFiles_data()
{
    QTest::addColumn<QByteArray>("entry");
    QTest::addColumn<QString>("problem"); // empty: accepted
    QTest::addColumn<int>("authorities"); // -1: the system's
    QTest::addColumn<bool>("clientCertificate");

    QTest::newRow("ca only") << QByteArray(R"("ca_file": "ca.pem")") << QString() << 1 << false;
    QTest::newRow("ca bundle of two")
        << QByteArray(R"("ca_file": "bundle.pem")") << QString() << 2 << false;
    QTest::newRow("pem pair")
        << QByteArray(R"("client_certificate": "client.pem", "client_key": "client.key")")
        << QString() << -1 << true;
    QTest::newRow("pem pair and ca")
        << QByteArray(
               R"("ca_file": "ca.pem", "client_certificate": "client.pem", "client_key": "client.key")")
        << QString() << 1 << true;
    QTest::newRow("ec pair") << QByteArray(
                                    R"("client_certificate": "ca.pem", "client_key": "ca.key")")
                             << QString() << -1 << true;
    QTest::newRow("encrypted key")
        << QByteArray(
               R"("client_certificate": "client.pem", "client_key": "client-encrypted.key", "key_passphrase": "${env:KEY_PASS}")")
        << QString() << -1 << true;
    QTest::newRow("pkcs12")
        << QByteArray(
               R"("ca_file": "ca.pem", "client_pkcs12": "client.p12", "pkcs12_passphrase": "${env:P12_PASS}")")
        << QString() << 1 << true;

    QTest::newRow("ca missing") << QByteArray(R"("ca_file": "missing.pem")")
                                << "tls[0].ca_file: @DIR@/missing.pem does not exist" << 0 << false;
    // A path may take a value from the environment, which may be a secret: its
    // messages name the file as written.
    QTest::newRow("ca named from the environment")
        << QByteArray(R"("ca_file": "${env:KEY_PASS}")")
        << "tls[0].ca_file: ${env:KEY_PASS} does not exist" << 0 << false;
    QTest::newRow("pkcs12 named from the environment")
        << QByteArray(R"("client_pkcs12": "certs/${env:P12_PASS}.p12")")
        << "tls[0].client_pkcs12: certs/${env:P12_PASS}.p12 does not exist" << 0 << false;
    QTest::newRow("ca not pem") << QByteArray(R"("ca_file": "client.key")")
                                << "tls[0].ca_file: @DIR@/client.key holds no certificate" << 0
                                << false;
    QTest::newRow("ca garbage") << QByteArray(R"("ca_file": "garbage.pem")")
                                << "tls[0].ca_file: @DIR@/garbage.pem holds no certificate" << 0
                                << false;
    QTest::newRow("certificate missing")
        << QByteArray(R"("client_certificate": "nope.pem", "client_key": "client.key")")
        << "tls[0].client_certificate: @DIR@/nope.pem does not exist" << 0 << false;
    QTest::newRow("key missing")
        << QByteArray(R"("client_certificate": "client.pem", "client_key": "nope.key")")
        << "tls[0].client_key: @DIR@/nope.key does not exist" << 0 << false;
    QTest::newRow("key is a certificate")
        << QByteArray(R"("client_certificate": "client.pem", "client_key": "ca.pem")")
        << "tls[0].client_key: @DIR@/ca.pem holds no private key" << 0 << false;
    QTest::newRow("key of another certificate")
        << QByteArray(R"("client_certificate": "client.pem", "client_key": "other.key")")
        << "tls[0].client_key: the key in @DIR@/other.key is not the key of the certificate in "
           "@DIR@/client.pem"
        << 0 << false;
    QTest::newRow("key of another kind")
        << QByteArray(R"("client_certificate": "client.pem", "client_key": "ca.key")")
        << "tls[0].client_key: the key in @DIR@/ca.key is not the key of the certificate" << 0
        << false;
    QTest::newRow("encrypted key without passphrase")
        << QByteArray(R"("client_certificate": "client.pem", "client_key": "client-encrypted.key")")
        << "tls[0].client_key: @DIR@/client-encrypted.key is encrypted and no key_passphrase is "
           "given"
        << 0 << false;
    QTest::newRow("encrypted key, wrong passphrase")
        << QByteArray(
               R"("client_certificate": "client.pem", "client_key": "client-encrypted.key", "key_passphrase": "${env:WRONG_PASS}")")
        << "tls[0].client_key: cannot decrypt @DIR@/client-encrypted.key: wrong passphrase" << 0
        << false;
    QTest::newRow("pkcs12, wrong passphrase")
        << QByteArray(R"("client_pkcs12": "client.p12", "pkcs12_passphrase": "${env:WRONG_PASS}")")
        << "tls[0].client_pkcs12: cannot open @DIR@/client.p12: wrong passphrase" << 0 << false;
    QTest::newRow("pkcs12, no passphrase")
        << QByteArray(R"("client_pkcs12": "client.p12")")
        << "tls[0].client_pkcs12: cannot open @DIR@/client.p12: wrong passphrase" << 0 << false;
    QTest::newRow("pkcs12 is pem")
        << QByteArray(R"("client_pkcs12": "client.pem")")
        << "tls[0].client_pkcs12: cannot open @DIR@/client.pem" << 0 << false;
}

void tst_WorkspaceConfig::tlsFiles()
{
    QFETCH(QByteArray, entry);
    QFETCH(QString, problem);
    QFETCH(int, authorities);
    QFETCH(bool, clientCertificate);
    makePki();
    if (!m_pki)
        QSKIP(qPrintable(m_pkiProblem));
    const QDir dir(m_pki->path());
    if (!QFile::exists(dir.filePath("bundle.pem"))) {
        QFile bundle(dir.filePath("bundle.pem"));
        QVERIFY(bundle.open(QIODevice::WriteOnly));
        for (const char *name : {"ca.pem", "client.pem"}) {
            QFile part(dir.filePath(QString::fromLatin1(name)));
            QVERIFY(part.open(QIODevice::ReadOnly));
            bundle.write(part.readAll());
        }
    }

    QString error;
    // Relative paths are taken from the folder of the workspace file.
    const QString source = dir.filePath("ws.json");
    const auto config = parsed(workspace(R"("tls": [{"id": "corp", )" + entry + "}], ",
                                         R"({"id": "m", "url": "https://a/", "tls": "corp"})"),
                               &error, source);
    if (!problem.isEmpty()) {
        QVERIFY(!config);
        const QString expected = source + ": " + problem.replace("@DIR@", dir.path());
        QVERIFY2(error.startsWith(expected), qPrintable(error));
        for (const QByteArray &secret : kSecrets)
            QVERIFY2(!error.contains(QString::fromUtf8(secret)), qPrintable(error));
        return;
    }
    QVERIFY2(config, qPrintable(error));
    const TlsConfig *t = config->tlsConfig("corp");
    QVERIFY(t);
    const QSslConfiguration &ssl = t->ssl;
    QSslConfiguration system = QSslConfiguration::defaultConfiguration();
    if (authorities < 0) {
        QCOMPARE(ssl.caCertificates(), system.caCertificates());
        QVERIFY(t->caFile.isEmpty());
    } else {
        // In place of the system's, for this entry only.
        QCOMPARE(ssl.caCertificates().size(), qsizetype(authorities));
        QCOMPARE(t->caFile, dir.filePath(entry.contains("bundle") ? "bundle.pem" : "ca.pem"));
        const auto ca = QSslCertificate::fromPath(dir.filePath("ca.pem"));
        QCOMPARE(ssl.caCertificates().first(), ca.first());
        QVERIFY(QSslConfiguration::defaultConfiguration().caCertificates() ==
                system.caCertificates());
    }
    QCOMPARE(!ssl.localCertificate().isNull(), clientCertificate);
    QCOMPARE(!ssl.privateKey().isNull(), clientCertificate);
    if (clientCertificate) {
        const QString leaf = entry.contains("ca.key") ? "ca.pem" : "client.pem";
        QCOMPARE(ssl.localCertificate(), QSslCertificate::fromPath(dir.filePath(leaf)).first());
        QVERIFY(ssl.localCertificateChain().size() >= 1);
    }
    if (entry.contains("passphrase")) {
        QVERIFY(!t->passphraseVariable.isEmpty());
        QVERIFY(entry.contains("${env:" + t->passphraseVariable.toUtf8() + "}"));
    }
    QVERIFY(t->verifyHostname);
    QVERIFY(config->warnings.isEmpty());
}

void tst_WorkspaceConfig::privateKeyJwt_data()
{
    QTest::addColumn<QByteArray>("fields");
    QTest::addColumn<QString>("outcome"); // the algorithm, or the start of the error

    QTest::newRow("RSA key") << QByteArray(R"("private_key": "client.key", "key_id": "k-1")")
                             << "RS256";
    QTest::newRow("EC P-256 key") << QByteArray(R"("private_key": "ca.key")") << "ES256";
    QTest::newRow("encrypted key")
        << QByteArray(
               R"("private_key": "client-encrypted.key", "key_passphrase": "${env:KEY_PASS}")")
        << "RS256";
    QTest::newRow("no key") << QByteArray()
                            << "credentials[0].private_key: required with "
                               "private_key_jwt";
    QTest::newRow("wrong passphrase")
        << QByteArray(
               R"("private_key": "client-encrypted.key", "key_passphrase": "${env:WRONG_PASS}")")
        << "credentials[0].private_key: cannot decrypt @DIR@/client-encrypted.key";
    QTest::newRow("a certificate, not a key")
        << QByteArray(R"("private_key": "ca.pem")")
        << "credentials[0].private_key: @DIR@/ca.pem holds no private key";
    QTest::newRow("named from the environment")
        << QByteArray(R"("private_key": "${env:KEY_PASS}.key")")
        << "credentials[0].private_key: ${env:KEY_PASS}.key does not exist";
    QTest::newRow("missing file") << QByteArray(R"("private_key": "nope.key")")
                                  << "credentials[0].private_key: @DIR@/nope.key does not exist";
}

void tst_WorkspaceConfig::privateKeyJwt()
{
    QFETCH(QByteArray, fields);
    QFETCH(QString, outcome);
    makePki();
    if (!m_pki)
        QSKIP(qPrintable(m_pkiProblem));
    const QDir dir(m_pki->path());
    const QString source = dir.filePath("ws.json");
    QString error;
    const auto config =
        parsed(workspace(R"("credentials": [{"id": "plm", "type": "oauth2_client_credentials", )"
                         R"("token_url": "https://idp/t", "client_id": "me", )"
                         R"("client_auth": "private_key_jwt")" +
                             (fields.isEmpty() ? QByteArray() : ", " + fields) + "}], ",
                         R"({"id": "m", "url": "https://a/", "credentials": "plm"})"),
               &error, source);
    if (!outcome.startsWith(QLatin1String("credentials"))) {
        QVERIFY2(config, qPrintable(error));
        const CredentialConfig *c = config->credential("plm");
        QVERIFY(c);
        QCOMPARE(int(c->clientAuth), int(CredentialConfig::ClientAuth::PrivateKeyJwt));
        QCOMPARE(c->assertionAlgorithm, outcome);
        QVERIFY(c->assertionKeyPem.contains("PRIVATE KEY"));
        QVERIFY(!c->assertionKeyPem.contains("ENCRYPTED"));
        QVERIFY(c->clientSecret.isEmpty());
        QCOMPARE(c->assertionKeyId, fields.contains("key_id") ? QStringLiteral("k-1") : QString());
        return;
    }
    QVERIFY(!config);
    const QString expected = source + ": " + outcome.replace("@DIR@", dir.path());
    QVERIFY2(error.startsWith(expected), qPrintable(error));
    for (const QByteArray &secret : kSecrets)
        QVERIFY2(!error.contains(QString::fromUtf8(secret)), qPrintable(error));
}

void tst_WorkspaceConfig::tlsRelativePathsFromTheWorkspaceFolder()
{
    makePki();
    if (!m_pki)
        QSKIP(qPrintable(m_pkiProblem));
    const QDir pki(m_pki->path());
    QTemporaryDir elsewhere;
    QVERIFY(elsewhere.isValid());
    const QDir sub(elsewhere.filePath("workspaces"));
    QVERIFY(QDir().mkpath(sub.path()));
    QVERIFY(QFile::copy(pki.filePath("ca.pem"), elsewhere.filePath("ca.pem")));
    QFile file(sub.filePath("ws.json"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(workspace(R"("tls": [{"id": "corp", "ca_file": "../ca.pem"}], )",
                         R"({"id": "m", "url": "https://a/", "tls": "corp"})"));
    file.close();
    QString error;
    const auto config = WorkspaceConfig::load(file.fileName(), &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->tlsConfig("corp")->caFile, elsewhere.filePath("ca.pem"));
    QCOMPARE(config->tlsConfig("corp")->ssl.caCertificates().size(), 1);

    QVERIFY(QFile::remove(elsewhere.filePath("ca.pem")));
    QVERIFY(!WorkspaceConfig::load(file.fileName(), &error));
    QVERIFY2(error.startsWith(file.fileName() + ": tls[0].ca_file: " +
                              elsewhere.filePath("ca.pem") + " does not exist"),
             qPrintable(error));
}

void tst_WorkspaceConfig::verifyHostnameOffWarns()
{
    QString error;
    const auto config = parsed(
        workspace(
            R"("tls": [{"id": "lab", "verify_hostname": false}, {"id": "spare", "verify_hostname": false},
                             {"id": "ok", "verify_hostname": true}],
                    "credentials": [{"id": "c", "type": "oauth2_client_credentials", "token_url": "https://idp/t",
                      "client_id": "c", "client_secret": "${env:PLM_CLIENT_SECRET}"}], )",
            R"({"id": "m", "url": "https://a/", "tls": "lab", "credentials": "c"},
                     {"id": "n", "url": "https://a/", "tls": "ok"})",
            R"({"id": "o", "url": "https://c/h", "events": ["policy_drift"], "tls": "lab"})"),
        &error);
    QVERIFY2(config, qPrintable(error));
    QVERIFY(!config->tlsConfig("lab")->verifyHostname);
    QCOMPARE(config->warnings,
             (QStringList{"tls 'lab' does not verify host names (verify_hostname: false), for: m, "
                          "alert:o, the token requests of credentials c",
                          "tls 'spare' does not verify host names (verify_hostname: false); no "
                          "endpoint uses it"}));
}

QTEST_GUILESS_MAIN(tst_WorkspaceConfig)
#include "tst_workspaceconfig.moc"
