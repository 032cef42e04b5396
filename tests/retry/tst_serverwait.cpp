// SPDX-License-Identifier: Apache-2.0
#include "core/retry/RetryDecision.h"
#include "core/retry/ServerWait.h"
#include "core/time/RandomSource.h"
#include "support/ReadableEnums.h"

#include <QDateTime>
#include <QJsonArray>
#include <QTest>

using namespace cooldown;

namespace {
const qint64 kNow = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();
const QByteArray kProblemJson("application/problem+json");
const QByteArray kIana("https://iana.org/assignments/http-problem-types#");

QByteArray epochIn(qint64 ms)
{
    return QByteArray::number((kNow + ms) / 1000);
}

RetryDecision decide(int status, const HttpHeaders &headers, const QByteArray &body = {})
{
    AttemptOutcome outcome;
    outcome.status = status;
    outcome.headers = headers;
    outcome.body = body;
    AttemptHistory history;
    history.firstAttemptAtMs = kNow;
    RetryProfile profile;
    profile.spreadSeconds = 0;
    SeededRandom random(1);
    return RetryDecision::decide(profile, outcome, history, kNow, random);
}
} // namespace

Q_DECLARE_METATYPE(WaitSource)
Q_DECLARE_METATYPE(XRateLimitResetMeaning)

class tst_ServerWait : public QObject
{
    Q_OBJECT

private slots:
    void precedence_data();
    void precedence();
    void contradictionIsRecorded();
    void quotaExceededWindow_data();
    void quotaExceededWindow();
    void xRateLimitMeaningFromOptions();
    void problemActions_data();
    void problemActions();
    void decisionJson();
    void decisionWithoutHintsIsUnchanged();
};

void tst_ServerWait::precedence_data()
{
    QTest::addColumn<QList<QByteArray>>("lines"); // "Name: value"
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<WaitSource>("source");
    QTest::addColumn<qint64>("waitMs");
    QTest::addColumn<int>("candidates");

    const QByteArray none;
    const QByteArray quota =
        R"({"type":")" + kIana + R"(quota-exceeded","violated-policies":["hour"]})";
    QTest::newRow("nothing") << QList<QByteArray>{} << none << WaitSource::None << qint64(0) << 0;
    QTest::newRow("retry-after alone") << QList<QByteArray>{"Retry-After: 10"} << none
                                       << WaitSource::RetryAfter << qint64(10000) << 1;
    QTest::newRow("ratelimit alone") << QList<QByteArray>{"RateLimit: \"default\";r=0;t=30"} << none
                                     << WaitSource::RateLimit << qint64(30000) << 1;
    QTest::newRow("retry-after beats ratelimit")
        << QList<QByteArray>{"Retry-After: 10", "RateLimit: \"default\";r=0;t=60"} << none
        << WaitSource::RetryAfter << qint64(10000) << 2;
    QTest::newRow("ratelimit with quota left gives no wait")
        << QList<QByteArray>{"RateLimit: \"default\";r=3;t=60"} << none << WaitSource::None
        << qint64(0) << 0;
    QTest::newRow("malformed retry-after falls to ratelimit")
        << QList<QByteArray>{"Retry-After: soon", "RateLimit: \"default\";r=0;t=60"} << none
        << WaitSource::RateLimit << qint64(60000) << 1;
    QTest::newRow("malformed ratelimit falls to x-ratelimit")
        << QList<QByteArray>{"RateLimit: default;r=0;t=60,", "X-RateLimit-Remaining: 0",
                             "X-RateLimit-Reset: 20"}
        << none << WaitSource::XRateLimit << qint64(20000) << 1;
    QTest::newRow("ratelimit beats x-ratelimit")
        << QList<QByteArray>{"X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 20",
                             "RateLimit: \"default\";r=0;t=60"}
        << none << WaitSource::RateLimit << qint64(60000) << 2;
    QTest::newRow("x-ratelimit needs remaining 0")
        << QList<QByteArray>{"X-RateLimit-Remaining: 1", "X-RateLimit-Reset: 20"} << none
        << WaitSource::None << qint64(0) << 0;
    QTest::newRow("x-ratelimit epoch (auto)")
        << QList<QByteArray>{"X-RateLimit-Remaining: 0", "X-RateLimit-Reset: " + epochIn(45000)}
        << none << WaitSource::XRateLimit << qint64(45000) << 1;
    QTest::newRow("x-ratelimit beats problem")
        << QList<QByteArray>{"X-RateLimit-Remaining: 0", "X-RateLimit-Reset: 20",
                             "Content-Type: " + kProblemJson,
                             "RateLimit-Policy: \"hour\";q=1000;w=3600"}
        << quota << WaitSource::XRateLimit << qint64(20000) << 2;
    QTest::newRow("problem last") << QList<QByteArray>{"Content-Type: " + kProblemJson,
                                                       "RateLimit-Policy: \"hour\";q=1000;w=3600"}
                                  << quota << WaitSource::Problem << qint64(3600000) << 1;
}

void tst_ServerWait::precedence()
{
    QFETCH(QList<QByteArray>, lines);
    QFETCH(QByteArray, body);
    QFETCH(WaitSource, source);
    QFETCH(qint64, waitMs);
    QFETCH(int, candidates);

    HttpHeaders headers;
    for (const QByteArray &line : lines)
        QVERIFY(headers.appendLine(line));
    const ServerWait wait = ServerWait::resolve(headers, body, kNow);
    QCOMPARE(wait.source, source);
    QCOMPARE(wait.waitMs, waitMs);
    QCOMPARE(wait.candidates.size(), candidates);
    if (candidates > 0) {
        QCOMPARE(wait.candidates.front().source, source);
        QCOMPARE(wait.hintsToJson()
                     .value(QStringLiteral("candidates"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QStringLiteral("won"))
                     .toBool(),
                 true);
    }
}

void tst_ServerWait::contradictionIsRecorded()
{
    // A server that says 10 s in Retry-After and 60 s in RateLimit: Retry-After wins by
    // the precedence of docs/retry-contract.md, the other hint is kept, and the attempt says so.
    const HttpHeaders headers{{"Retry-After", "10"}, {"RateLimit", "\"default\";r=0;t=60"}};
    const RetryDecision decision = decide(429, headers);
    QCOMPARE(decision.action, RetryDecision::Action::Retry);
    QCOMPARE(decision.source, WaitSource::RetryAfter);
    QCOMPARE(decision.delayMs, 10000);
    const ServerWait &wait = decision.serverWait;
    QCOMPARE(wait.candidates.size(), 2);
    QCOMPARE(wait.candidates[1].source, WaitSource::RateLimit);
    QCOMPARE(wait.candidates[1].waitMs, 60000);
    QCOMPARE(wait.notes.size(), 1);
    QCOMPARE(wait.notes.front(),
             QStringLiteral(
                 "retry-after says 10 s, ratelimit says 60 s: retry-after wins by precedence"));

    const QJsonObject json = decision.toJson();
    QCOMPARE(json.value(QStringLiteral("source")).toString(), QStringLiteral("retry-after"));
    const QJsonObject hints = json.value(QStringLiteral("hints")).toObject();
    QCOMPARE(hints.value(QStringLiteral("notes")).toArray().size(), 1);
    const QJsonArray candidates = hints.value(QStringLiteral("candidates")).toArray();
    QCOMPARE(candidates.size(), 2);
    QCOMPARE(candidates.at(1).toObject().value(QStringLiteral("source")).toString(),
             QStringLiteral("ratelimit"));
    QCOMPARE(candidates.at(1).toObject().value(QStringLiteral("won")).toBool(), false);

    // Hints that agree are no contradiction.
    const ServerWait agree = ServerWait::resolve(
        HttpHeaders{{"Retry-After", "60"}, {"RateLimit", "\"default\";r=0;t=60"}}, {}, kNow);
    QVERIFY(agree.notes.isEmpty());
}

void tst_ServerWait::quotaExceededWindow_data()
{
    QTest::addColumn<QByteArray>("policyField"); // null: absent
    QTest::addColumn<QByteArray>("violated");    // JSON for violated-policies, or empty
    QTest::addColumn<qint64>("configuredWindowMs");
    QTest::addColumn<qint64>("waitMs"); // -1: no wait

    QTest::newRow("violated policy's window")
        << QByteArray("\"minute\";q=100;w=60, \"day\";q=5000;w=86400")
        << QByteArray(R"(["minute"])") << qint64(-1) << qint64(60000);
    QTest::newRow("longest violated window")
        << QByteArray("\"minute\";q=100;w=60, \"day\";q=5000;w=86400")
        << QByteArray(R"(["minute","day"])") << qint64(-1) << qint64(86400000);
    QTest::newRow("only advertised policy")
        << QByteArray("\"minute\";q=100;w=60") << QByteArray() << qint64(-1) << qint64(60000);
    QTest::newRow("configured window")
        << QByteArray() << QByteArray(R"(["unknown"])") << qint64(90000) << qint64(90000);
    QTest::newRow("nothing to go by") << QByteArray() << QByteArray() << qint64(-1) << qint64(-1);
}

void tst_ServerWait::quotaExceededWindow()
{
    QFETCH(QByteArray, policyField);
    QFETCH(QByteArray, violated);
    QFETCH(qint64, configuredWindowMs);
    QFETCH(qint64, waitMs);

    HttpHeaders headers{{"Content-Type", kProblemJson}};
    if (!policyField.isNull())
        headers.append("RateLimit-Policy", policyField);
    QByteArray body = R"({"type":")" + kIana + R"(quota-exceeded")";
    if (!violated.isEmpty())
        body += R"(,"violated-policies":)" + violated;
    body += '}';
    ServerWaitOptions options;
    options.policyWindowMs = configuredWindowMs;
    const ServerWait wait = ServerWait::resolve(headers, body, kNow, options);
    QCOMPARE(wait.problemAction, ProblemAction::WaitForWindow);
    QCOMPARE(wait.hasWait(), waitMs >= 0);
    if (waitMs >= 0) {
        QCOMPARE(wait.source, WaitSource::Problem);
        QCOMPARE(wait.waitMs, waitMs);
    }
}

void tst_ServerWait::xRateLimitMeaningFromOptions()
{
    // The same header read under each configured meaning; the record says which.
    const HttpHeaders headers{{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", "30"}};
    ServerWaitOptions options;
    options.xRateLimitReset = XRateLimitResetMeaning::Delta;
    const ServerWait delta = ServerWait::resolve(headers, {}, kNow, options);
    QCOMPARE(delta.waitMs, 30000);
    QCOMPARE(delta.xRateLimit.used, XRateLimitResetMeaning::Delta);

    options.xRateLimitReset = XRateLimitResetMeaning::Epoch;
    const ServerWait epoch = ServerWait::resolve(headers, {}, kNow, options);
    QCOMPARE(epoch.source, WaitSource::XRateLimit);
    QCOMPARE(epoch.waitMs, 0); // 30 s after 1970: long past
    QCOMPARE(epoch.xRateLimit.used, XRateLimitResetMeaning::Epoch);

    const ServerWait byDefault = ServerWait::resolve(headers, {}, kNow);
    QCOMPARE(byDefault.xRateLimit.configured, XRateLimitResetMeaning::Auto);
    QCOMPARE(byDefault.xRateLimit.used, XRateLimitResetMeaning::Delta);
}

void tst_ServerWait::problemActions_data()
{
    QTest::addColumn<QByteArray>("type");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("action");   // what the problem triggers
    QTest::addColumn<QString>("decision"); // what the engine decides
    QTest::addColumn<QString>("reason");

    QTest::newRow("abnormal usage parks a 429")
        << kIana + "abnormal-usage-detected" << 429 << "park"
        << "park"
        << "abnormal_usage";
    QTest::newRow("abnormal usage parks a 403")
        << kIana + "abnormal-usage-detected" << 403 << "park"
        << "park"
        << "abnormal_usage";
    QTest::newRow("abnormal usage on success") << kIana + "abnormal-usage-detected" << 200 << "park"
                                               << "success"
                                               << "ok";
    QTest::newRow("reduced capacity slows")
        << kIana + "temporary-reduced-capacity" << 503 << "slow_down"
        << "retry"
        << "throttled";
    QTest::newRow("unknown type") << QByteArray("urn:example:out-of-credit") << 429 << "none"
                                  << "retry"
                                  << "throttled";
    QTest::newRow("quota exceeded with no window")
        << kIana + "quota-exceeded" << 429 << "wait_for_window"
        << "retry"
        << "throttled";
}

void tst_ServerWait::problemActions()
{
    QFETCH(QByteArray, type);
    QFETCH(int, status);
    QFETCH(QString, action);
    QFETCH(QString, decision);
    QFETCH(QString, reason);

    const QByteArray body = R"({"type":")" + type + R"(","title":"t","status":)" +
                            QByteArray::number(status) +
                            R"(,"detail":"d","instance":"/i/1","x":1})";
    const RetryDecision d = decide(status, HttpHeaders{{"Content-Type", kProblemJson}}, body);
    QCOMPARE(QLatin1String(textOf(d.serverWait.problemAction)), action);
    QCOMPARE(QLatin1String(textOf(d.action)), decision);
    QCOMPARE(d.reason, reason);

    const QJsonObject problem = d.toJson().value(QStringLiteral("problem")).toObject();
    QCOMPARE(problem.value(QStringLiteral("type")).toString(), QString::fromLatin1(type));
    QCOMPARE(problem.value(QStringLiteral("title")).toString(), QStringLiteral("t"));
    QCOMPARE(problem.value(QStringLiteral("status")).toInt(), status);
    QCOMPARE(problem.value(QStringLiteral("detail")).toString(), QStringLiteral("d"));
    QCOMPARE(problem.value(QStringLiteral("instance")).toString(), QStringLiteral("/i/1"));
    QCOMPARE(
        problem.value(QStringLiteral("extensions")).toObject().value(QStringLiteral("x")).toInt(),
        1);
    QCOMPARE(problem.value(QStringLiteral("action")).toString(), action);
}

void tst_ServerWait::decisionJson()
{
    const RetryDecision d = decide(429, HttpHeaders{{"RateLimit-Policy", "\"default\";q=100;w=60"},
                                                    {"RateLimit", "\"default\";r=0;t=30"},
                                                    {"X-RateLimit-Limit", "100"},
                                                    {"X-RateLimit-Remaining", "0"},
                                                    {"X-RateLimit-Reset", "25"}});
    QCOMPARE(d.source, WaitSource::RateLimit);
    QCOMPARE(d.delayMs, 30000);
    const QJsonObject json = d.toJson();
    for (const char *key : {"action", "delay_seconds", "not_before", "source", "reason",
                            "throttled", "counted_attempts", "deadline", "retry_after", "ratelimit",
                            "x_ratelimit", "problem", "hints"}) {
        QVERIFY2(json.contains(QLatin1String(key)), key);
    }
    QCOMPARE(json.value(QStringLiteral("source")).toString(), QStringLiteral("ratelimit"));
    const QJsonObject rl = json.value(QStringLiteral("ratelimit")).toObject();
    QCOMPARE(rl.value(QStringLiteral("limits"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("t"))
                 .toInt(),
             30);
    QCOMPARE(rl.value(QStringLiteral("policies"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("q"))
                 .toInt(),
             100);
    const QJsonObject x = json.value(QStringLiteral("x_ratelimit")).toObject();
    QCOMPARE(x.value(QStringLiteral("reset_meaning")).toString(), QStringLiteral("delta"));
    QCOMPARE(x.value(QStringLiteral("configured_meaning")).toString(), QStringLiteral("auto"));
    QCOMPARE(x.value(QStringLiteral("seconds")).toDouble(), 25.0);
    QVERIFY(json.value(QStringLiteral("problem")).isNull());
}

void tst_ServerWait::decisionWithoutHintsIsUnchanged()
{
    // No hints: the engine backs off, and the new keys say nothing was there.
    const RetryDecision d = decide(503, HttpHeaders{});
    QCOMPARE(d.source, WaitSource::Backoff);
    const QJsonObject json = d.toJson();
    QVERIFY(json.value(QStringLiteral("x_ratelimit")).isNull());
    QVERIFY(json.value(QStringLiteral("problem")).isNull());
    QVERIFY(
        json.value(QStringLiteral("ratelimit")).toObject().value(QStringLiteral("raw")).isNull());

    // A problem+json body that is not JSON is recorded, not an error of the operation.
    const RetryDecision html =
        decide(429, HttpHeaders{{"Content-Type", kProblemJson}, {"Retry-After", "3"}},
               "<html>busy</html>");
    QCOMPARE(html.action, RetryDecision::Action::Retry);
    QCOMPARE(html.source, WaitSource::RetryAfter);
    QVERIFY(!html.serverWait.problem.present);
    QVERIFY(html.toJson()
                .value(QStringLiteral("problem"))
                .toObject()
                .contains(QStringLiteral("error")));
}

QTEST_GUILESS_MAIN(tst_ServerWait)
#include "tst_serverwait.moc"
