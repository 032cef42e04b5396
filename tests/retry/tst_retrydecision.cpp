// SPDX-License-Identifier: Apache-2.0
#include "core/check/ExpectationReader.h"
#include "core/config/JsonReader.h"
#include "core/http/HttpDate.h"
#include "core/retry/RetryDecision.h"
#include "core/time/RandomSource.h"
#include "support/ReadableEnums.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace cooldown;

namespace {
const qint64 kNow = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();
const qint64 kNoDelay = -1;

struct Case
{
    QByteArray method = "GET";
    int status = 0;
    TransportError error = TransportError::None;
    bool key = false;
    QList<QByteArray> headers;
    QStringList set;
    int attempt = 1;
    int throttledBefore = 0;
    double elapsed = 0;
    double keyValidSeconds = 0;
    bool causeInIncident = false;
    bool machineOffline = false;
};

RetryDecision run(const Case &c, quint64 seed = 1)
{
    RetryProfile profile;
    for (const QString &s : c.set) {
        QString error;
        if (!profile.setFieldFromText(s, &error))
            qFatal("bad profile override in test: %s", qPrintable(error));
    }
    AttemptOutcome outcome;
    outcome.method = c.method;
    outcome.status = c.status;
    outcome.error = c.error;
    outcome.idempotencyKeySent = c.key;
    outcome.keyValidMs = qint64(c.keyValidSeconds * 1000);
    outcome.causeInIncident = c.causeInIncident;
    outcome.machineOffline = c.machineOffline;
    for (const QByteArray &h : c.headers)
        outcome.headers.appendLine(h);
    AttemptHistory history;
    history.attempt = c.attempt;
    history.throttledBefore = c.throttledBefore;
    history.firstAttemptAtMs = kNow - qint64(c.elapsed * 1000);
    SeededRandom random(seed);
    return RetryDecision::decide(profile, outcome, history, kNow, random);
}
} // namespace

Q_DECLARE_METATYPE(Case)

class tst_RetryDecision : public QObject
{
    Q_OBJECT

private slots:
    void table_data();
    void table();
    void neverBeforeServerTime();
    void spreadNeverPassesDeadline();
    void throttlesCountedApart();
    void malformedRetryAfterFallsBackToBackoff();
    void jsonShape();
    void aKeyTheServerForgotIsNeverSentAgainByItself();
    void checks_data();
    void checks();
    void offlineIsNoAttempt();
    void blockedByIncident_data();
    void blockedByIncident();
};

void tst_RetryDecision::table_data()
{
    QTest::addColumn<Case>("input");
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("source");
    QTest::addColumn<qint64>("minDelay");
    QTest::addColumn<qint64>("maxDelay");

    const QStringList idempotent = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS"};
    const QList<QByteArray> ra120 = {"Retry-After: 120"};

    // 2xx: success for every method and key state.
    for (const char *m : {"GET", "PUT", "POST", "PATCH"}) {
        for (int s : {200, 201, 204, 299}) {
            Case c;
            c.method = m;
            c.status = s;
            QTest::addRow("%s %d", m, s) << c << "success"
                                         << "ok"
                                         << "none" << kNoDelay << kNoDelay;
        }
    }

    // 429 / 503: wait = the server's hint (+ at most 1 s spread) for idempotent and keyed.
    for (const QString &m : idempotent) {
        for (int s : {429, 503}) {
            Case c;
            c.method = m.toLatin1();
            c.status = s;
            c.headers = ra120;
            QTest::addRow("%s %d hint", qPrintable(m), s)
                << c << "retry"
                << "throttled"
                << "retry-after" << qint64(120000) << qint64(121000);
        }
    }
    for (const char *m : {"POST", "PATCH"}) {
        for (int s : {429, 503}) {
            Case keyed;
            keyed.method = m;
            keyed.status = s;
            keyed.key = true;
            keyed.headers = ra120;
            QTest::addRow("%s %d keyed", m, s) << keyed << "retry"
                                               << "throttled"
                                               << "retry-after" << qint64(120000) << qint64(121000);
            Case bare = keyed;
            bare.key = false;
            QTest::addRow("%s %d no key parks", m, s) << bare << "park"
                                                      << "not_idempotent"
                                                      << "none" << kNoDelay << kNoDelay;
            Case always = bare;
            always.set = {"retry_non_idempotent=always"};
            QTest::addRow("%s %d no key, always", m, s)
                << always << "retry"
                << "throttled"
                << "retry-after" << qint64(120000) << qint64(121000);
            Case never = keyed;
            never.set = {"retry_non_idempotent=never"};
            QTest::addRow("%s %d keyed, never", m, s) << never << "park"
                                                      << "not_idempotent"
                                                      << "none" << kNoDelay << kNoDelay;
        }
    }
    {
        Case c;
        c.status = 429;
        QTest::newRow("429 without hint backs off") << c << "retry"
                                                    << "throttled"
                                                    << "backoff" << qint64(0) << qint64(1000);
    }

    // 408, 500, 502, 504: backoff, or the server's hint.
    for (int s : {408, 500, 502, 504}) {
        const QString reason =
            s == 408 ? QStringLiteral("request_timeout") : QStringLiteral("server_error");
        Case c;
        c.status = s;
        c.attempt = 3; // ceiling 4 s
        QTest::addRow("GET %d backoff", s)
            << c << "retry" << reason << "backoff" << qint64(0) << qint64(4000);
        Case hinted = c;
        hinted.headers = {"Retry-After: 7"};
        QTest::addRow("GET %d hint", s)
            << hinted << "retry" << reason << "retry-after" << qint64(7000) << qint64(8000);
        Case keyed = c;
        keyed.method = "POST";
        keyed.key = true;
        QTest::addRow("POST %d keyed", s)
            << keyed << "retry" << reason << "backoff" << qint64(0) << qint64(4000);
        Case bare = keyed;
        bare.key = false;
        QTest::addRow("POST %d no key", s) << bare << "park"
                                           << "not_idempotent"
                                           << "none" << kNoDelay << kNoDelay;
    }

    // 409 / 422 with a key.
    {
        Case c;
        c.method = "POST";
        c.status = 409;
        c.key = true;
        c.headers = ra120; // the key is in use: back off, the hint is not a throttle
        QTest::newRow("POST 409 keyed") << c << "retry"
                                        << "key_in_use"
                                        << "backoff" << qint64(0) << qint64(1000);
        c.status = 422;
        QTest::newRow("POST 422 keyed") << c << "fail"
                                        << "key_reused"
                                        << "none" << kNoDelay << kNoDelay;
        Case get;
        get.status = 409;
        QTest::newRow("GET 409") << get << "fail"
                                 << "not_retryable"
                                 << "none" << kNoDelay << kNoDelay;
        Case bare;
        bare.method = "POST";
        bare.status = 409;
        QTest::newRow("POST 409 no key") << bare << "fail"
                                         << "not_retryable"
                                         << "none" << kNoDelay << kNoDelay;
    }

    // Other 4xx and unknown statuses fail.
    for (int s : {400, 401, 403, 404, 410, 413, 451, 499}) {
        Case c;
        c.status = s;
        QTest::addRow("GET %d", s) << c << "fail"
                                   << "not_retryable"
                                   << "none" << kNoDelay << kNoDelay;
    }
    {
        Case c;
        c.status = 501;
        QTest::newRow("GET 501") << c << "fail"
                                 << "not_retryable"
                                 << "none" << kNoDelay << kNoDelay;
        c.status = 302;
        QTest::newRow("GET 302") << c << "fail"
                                 << "unexpected_redirect"
                                 << "none" << kNoDelay << kNoDelay;
    }

    // Transport failures.
    struct Net
    {
        TransportError error;
        const char *reason;
        bool sent;
    };
    for (const Net &n : {Net{TransportError::ConnectionRefused, "connection_refused", false},
                         Net{TransportError::HostNotFound, "dns_failure", false},
                         Net{TransportError::Timeout, "timeout", true},
                         Net{TransportError::ConnectionClosed, "connection_closed", true},
                         Net{TransportError::WorkerDied, "worker_died", true}}) {
        for (const char *m : {"GET", "POST"}) {
            for (bool key : {false, true}) {
                Case c;
                c.method = m;
                c.error = n.error;
                c.key = key;
                const bool parks = n.sent && QByteArray(m) == "POST" && !key;
                QTest::addRow("%s %s key=%d", m, textOf(n.error), key)
                    << c << (parks ? "park" : "retry") << (parks ? "ambiguous_send" : n.reason)
                    << (parks ? "none" : "backoff") << (parks ? kNoDelay : qint64(0))
                    << (parks ? kNoDelay : qint64(1000));
            }
        }
    }
    for (const auto &[error, reason] :
         {std::pair{TransportError::Tls, "tls_error"}, std::pair{TransportError::BadUrl, "bad_url"},
          std::pair{TransportError::UnsupportedScheme, "unsupported_scheme"}}) {
        for (const char *m : {"GET", "POST"}) {
            Case c;
            c.method = m;
            c.error = error;
            c.key = true;
            QTest::addRow("%s %s", m, reason)
                << c << "fail" << reason << "none" << kNoDelay << kNoDelay;
        }
    }

    // Limits: attempts, waits too long, deadlines.
    {
        Case c;
        c.status = 500;
        c.attempt = 6;
        QTest::newRow("sixth attempt is the last") << c << "fail"
                                                   << "max_attempts"
                                                   << "none" << kNoDelay << kNoDelay;
        c.attempt = 5;
        QTest::newRow("fifth attempt retries") << c << "retry"
                                               << "server_error"
                                               << "backoff" << qint64(0) << qint64(16000);

        Case tooLong;
        tooLong.status = 429;
        tooLong.headers = {"Retry-After: 21601"};
        tooLong.set = {"deadline_seconds=0"};
        QTest::newRow("retry-after above max fails") << tooLong << "fail"
                                                     << "retry_after_too_long"
                                                     << "none" << kNoDelay << kNoDelay;
        tooLong.headers = {"Retry-After: 21600"};
        QTest::newRow("retry-after at max waits")
            << tooLong << "retry"
            << "throttled"
            << "retry-after" << qint64(21600000) << qint64(21601000);
        tooLong.headers = {"Retry-After: 21601"};
        tooLong.set << QStringLiteral("on_deadline=park");
        QTest::newRow("retry-after above max parks") << tooLong << "park"
                                                     << "retry_after_too_long"
                                                     << "none" << kNoDelay << kNoDelay;

        Case deadline;
        deadline.status = 429;
        deadline.elapsed = 800; // deadline at +100 s
        deadline.headers = {"Retry-After: 101"};
        QTest::newRow("server time past deadline") << deadline << "fail"
                                                   << "deadline_unreachable"
                                                   << "none" << kNoDelay << kNoDelay;
        deadline.headers = {"Retry-After: 100"};
        QTest::newRow("server time at deadline")
            << deadline << "retry"
            << "throttled"
            << "retry-after" << qint64(100000) << qint64(100000);
        deadline.headers = {"Retry-After: 101"};
        deadline.set = {"on_deadline=park"};
        QTest::newRow("server time past deadline parks") << deadline << "park"
                                                         << "deadline_unreachable"
                                                         << "none" << kNoDelay << kNoDelay;

        Case backoffPast;
        backoffPast.status = 503;
        backoffPast.attempt = 4;
        backoffPast.elapsed = 899.999;
        backoffPast.set = {"jitter=none"};
        QTest::newRow("backoff past deadline") << backoffPast << "fail"
                                               << "deadline_unreachable"
                                               << "none" << kNoDelay << kNoDelay;
    }
}

void tst_RetryDecision::table()
{
    QFETCH(Case, input);
    QFETCH(QString, action);
    QFETCH(QString, reason);
    QFETCH(QString, source);
    QFETCH(qint64, minDelay);
    QFETCH(qint64, maxDelay);

    for (quint64 seed : {1ULL, 2ULL, 99ULL}) {
        const RetryDecision d = run(input, seed);
        QCOMPARE(QString::fromLatin1(textOf(d.action)), action);
        QCOMPARE(d.reason, reason);
        QCOMPARE(QString::fromLatin1(textOf(d.source)), source);
        if (minDelay == kNoDelay) {
            QCOMPARE(d.delayMs, kNoDelay);
            QCOMPARE(d.notBeforeMs, kNoDelay);
        } else {
            QVERIFY2(d.delayMs >= minDelay && d.delayMs <= maxDelay,
                     qPrintable(QStringLiteral("delay %1 not in [%2, %3]")
                                    .arg(d.delayMs)
                                    .arg(minDelay)
                                    .arg(maxDelay)));
            QCOMPARE(d.notBeforeMs, kNow + d.delayMs);
        }
    }
}

void tst_RetryDecision::neverBeforeServerTime()
{
    // Whatever the seed and spread, a retry is never scheduled before the server's time,
    // in both Retry-After forms.
    Case c;
    c.status = 429;
    c.set = {"spread_seconds=5"};
    const QByteArray date = "Retry-After: " + HttpDate::format(kNow + 42000);
    for (const QByteArray &h : {QByteArray("Retry-After: 42"), date}) {
        c.headers = {h};
        for (quint64 seed = 0; seed < 300; ++seed) {
            const RetryDecision d = run(c, seed);
            QCOMPARE(d.action, RetryDecision::Action::Retry);
            QVERIFY(d.notBeforeMs >= kNow + 42000);
            QVERIFY(d.notBeforeMs <= kNow + 47000);
        }
    }
}

void tst_RetryDecision::spreadNeverPassesDeadline()
{
    Case c;
    c.status = 503;
    c.elapsed = 890; // 10 s left
    c.headers = {"Retry-After: 9"};
    c.set = {"spread_seconds=30"};
    for (quint64 seed = 0; seed < 200; ++seed) {
        const RetryDecision d = run(c, seed);
        QCOMPARE(d.action, RetryDecision::Action::Retry);
        QVERIFY(d.notBeforeMs >= kNow + 9000);
        QVERIFY(d.notBeforeMs <= d.deadlineMs);
    }
}

void tst_RetryDecision::throttlesCountedApart()
{
    Case c;
    c.status = 429;
    c.headers = {"Retry-After: 1"};
    c.attempt = 6;
    c.throttledBefore = 5;
    QCOMPARE(run(c).reason, QStringLiteral("max_attempts"));

    c.set = {"throttle_counts_as_attempt=false"};
    RetryDecision d = run(c);
    QCOMPARE(d.action, RetryDecision::Action::Retry);
    QCOMPARE(d.countedAttempts, 0);

    // Failures still count: 5 failures + this one is the sixth counted attempt.
    c.status = 500;
    c.attempt = 11;
    c.throttledBefore = 5;
    d = run(c);
    QCOMPARE(d.countedAttempts, 6);
    QCOMPARE(d.reason, QStringLiteral("max_attempts"));
}

void tst_RetryDecision::malformedRetryAfterFallsBackToBackoff()
{
    Case c;
    c.status = 429;
    c.headers = {"Retry-After: 1.5"};
    const RetryDecision d = run(c);
    QCOMPARE(d.action, RetryDecision::Action::Retry);
    QCOMPARE(d.source, WaitSource::Backoff);
    QCOMPARE(d.serverWait.retryAfter.form, RetryAfter::Form::Invalid);
    const QJsonObject ra = d.toJson().value(QStringLiteral("retry_after")).toObject();
    QCOMPARE(ra.value(QStringLiteral("form")).toString(), QStringLiteral("invalid"));
    QCOMPARE(ra.value(QStringLiteral("raw")).toString(), QStringLiteral("1.5"));
    QVERIFY(!ra.value(QStringLiteral("error")).toString().isEmpty());
    QVERIFY(ra.value(QStringLiteral("seconds")).isNull());
}

void tst_RetryDecision::jsonShape()
{
    Case c;
    c.status = 429;
    c.headers = {"Retry-After: 120"};
    const QJsonObject o = run(c).toJson();
    QCOMPARE(o.value(QStringLiteral("action")).toString(), QStringLiteral("retry"));
    QVERIFY(o.value(QStringLiteral("delay_seconds")).toDouble() >= 120);
    QCOMPARE(o.value(QStringLiteral("source")).toString(), QStringLiteral("retry-after"));
    QCOMPARE(o.value(QStringLiteral("reason")).toString(), QStringLiteral("throttled"));
    const QDateTime notBefore =
        QDateTime::fromString(o.value(QStringLiteral("not_before")).toString(), Qt::ISODateWithMs);
    QVERIFY(notBefore.isValid());
    QCOMPARE(notBefore.timeSpec(), Qt::UTC);
    QVERIFY(notBefore.toMSecsSinceEpoch() >= kNow + 120000);
    const QJsonObject ra = o.value(QStringLiteral("retry_after")).toObject();
    QCOMPARE(ra.value(QStringLiteral("form")).toString(), QStringLiteral("delta"));
    QCOMPARE(ra.value(QStringLiteral("seconds")).toDouble(), 120.0);
    QVERIFY(ra.value(QStringLiteral("error")).isNull());

    Case ok;
    ok.status = 200;
    const QJsonObject s = run(ok).toJson();
    QVERIFY(s.value(QStringLiteral("delay_seconds")).isNull());
    QVERIFY(s.value(QStringLiteral("not_before")).isNull());
    QCOMPARE(
        s.value(QStringLiteral("retry_after")).toObject().value(QStringLiteral("form")).toString(),
        QStringLiteral("absent"));
}

void tst_RetryDecision::aKeyTheServerForgotIsNeverSentAgainByItself()
{
    // The server keeps keys for an hour; the first attempt was 59 minutes ago.
    Case c;
    c.method = "POST";
    c.key = true;
    c.keyValidSeconds = 3600;
    c.elapsed = 59 * 60;
    c.set = {"deadline_seconds=0", "spread_seconds=0"};
    c.status = 429;
    c.headers = {"Retry-After: 30"};
    RetryDecision d = run(c);
    QCOMPARE(d.action, RetryDecision::Action::Retry); // 30 s: still inside the hour
    QCOMPARE(d.keyValidUntilMs, kNow + 60'000);
    QCOMPARE(d.toJson().value(QLatin1String("key_valid_until")).toString(),
             QStringLiteral("2026-11-29T12:01:00.000Z"));

    c.headers = {"Retry-After: 60"}; // the retry would start as the key is forgotten
    d = run(c);
    QCOMPARE(d.action, RetryDecision::Action::Park);
    QCOMPARE(d.reason, QStringLiteral("idempotency_key_expired"));
    QCOMPARE(d.notBeforeMs, kNoDelay);

    c.headers = {};
    c.status = 0;
    c.error = TransportError::Timeout;
    c.elapsed = 2 * 3600; // a backoff, however short, is after the hour
    QCOMPARE(run(c).reason, QStringLiteral("idempotency_key_expired"));

    // Without a documented lifetime, or for a method that is idempotent anyway, the
    // rule does not apply.
    Case unsaid = c;
    unsaid.keyValidSeconds = 0;
    QCOMPARE(run(unsaid).action, RetryDecision::Action::Retry);
    QCOMPARE(run(unsaid).keyValidUntilMs, -1);
    Case get = c;
    get.method = "GET";
    QCOMPARE(run(get).action, RetryDecision::Action::Retry);
}

// docs/checks.md: what the answer says decides beside its status.
void tst_RetryDecision::checks_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<bool>("key");
    QTest::addColumn<QByteArray>("expect");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<qint64>("durationMs");
    QTest::addColumn<RetryDecision::Action>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("check"); // the failure's text; empty: none

    using A = RetryDecision::Action;
    const QByteArray statusOk = "{\"json\": [{\"pointer\": \"/status\", \"equals\": \"ok\"}]}";
    const QByteArray retried = "{\"json\": [{\"pointer\": \"/status\", \"equals\": \"ok\"}], "
                               "\"retry_on_failure\": true}";
    const QByteArray good = "{\"status\": \"ok\"}";
    const QByteArray bad = "{\"status\": \"error\"}";
    const QString badCheck = QStringLiteral("json[0] /status equals \"ok\"; found: \"error\"");
    QTest::newRow("GET body passes") << QByteArray("GET") << false << statusOk << 200 << good
                                     << qint64(10) << A::Success << "ok" << QString();
    QTest::newRow("GET body fails: not retried")
        << QByteArray("GET") << false << statusOk << 200 << bad << qint64(10) << A::Fail
        << "assertion_failed" << badCheck;
    QTest::newRow("POST body fails: never sent again")
        << QByteArray("POST") << true << statusOk << 201 << bad << qint64(10) << A::Fail
        << "assertion_failed" << badCheck;
    QTest::newRow("GET retry_on_failure: retried")
        << QByteArray("GET") << false << retried << 200 << bad << qint64(10) << A::Retry
        << "assertion_failed" << badCheck;
    QTest::newRow("POST retry_on_failure without key: parked")
        << QByteArray("POST") << false << retried << 200 << bad << qint64(10) << A::Park
        << "not_idempotent" << badCheck;
    QTest::newRow("POST retry_on_failure with key: retried")
        << QByteArray("POST") << true << retried << 200 << bad << qint64(10) << A::Retry
        << "assertion_failed" << badCheck;
    QTest::newRow("2xx outside the statuses")
        << QByteArray("GET") << false << QByteArray("{\"status\": [\"200-204\"]}") << 206 << good
        << qint64(10) << A::Fail << "assertion_failed"
        << QStringLiteral("status is 200-204; found: 206");
    QTest::newRow("404 allowed") << QByteArray("GET") << false
                                 << QByteArray("{\"status\": [200, 404]}") << 404 << good
                                 << qint64(10) << A::Success << "ok" << QString();
    QTest::newRow("429 stays a throttle")
        << QByteArray("GET") << false << QByteArray("{\"status\": [\"200-499\"]}") << 429 << good
        << qint64(10) << A::Retry << "throttled" << QString();
    QTest::newRow("500 outside the statuses stays a server error")
        << QByteArray("GET") << false << statusOk << 500 << good << qint64(10) << A::Retry
        << "server_error" << QString();
    QTest::newRow("over budget: degraded")
        << QByteArray("GET") << false << QByteArray() << 200 << good << qint64(2001) << A::Success
        << "degraded" << QString();
    QTest::newRow("at budget: ok") << QByteArray("GET") << false << QByteArray() << 200 << good
                                   << qint64(2000) << A::Success << "ok" << QString();
    QTest::newRow("over budget and failing: failed")
        << QByteArray("GET") << false << statusOk << 200 << bad << qint64(5000) << A::Fail
        << "assertion_failed" << badCheck;
}

void tst_RetryDecision::checks()
{
    QFETCH(QByteArray, method);
    QFETCH(bool, key);
    QFETCH(QByteArray, expect);
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(qint64, durationMs);
    QFETCH(RetryDecision::Action, action);
    QFETCH(QString, reason);
    QFETCH(QString, check);

    std::optional<Expectation> expectation;
    if (!expect.isEmpty()) {
        QString error;
        JsonReader reader(&error);
        expectation = readExpectation(QJsonDocument::fromJson(expect).object(),
                                      QStringLiteral("expect"), reader);
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    AttemptOutcome outcome;
    outcome.method = method;
    outcome.status = status;
    outcome.idempotencyKeySent = key;
    outcome.body = body;
    outcome.headers.appendLine("Content-Type: application/json");
    outcome.expect = expectation ? &*expectation : nullptr;
    outcome.durationMs = durationMs;
    outcome.latencyBudgetMs = 2000;
    AttemptHistory history;
    history.firstAttemptAtMs = kNow;
    SeededRandom random(1);
    const RetryDecision d = RetryDecision::decide(RetryProfile(), outcome, history, kNow, random);
    QCOMPARE(d.action, action);
    QCOMPARE(d.reason, reason);
    QCOMPARE(d.check ? d.check->text() : QString(), check);
    QCOMPARE(d.degraded, reason == QLatin1String("degraded"));
    const QJsonObject json = d.toJson();
    QCOMPARE(json.value(QStringLiteral("check")).isNull(), check.isEmpty());
}

// docs/offline.md: an exchange that found no network is retried a few seconds later,
// whatever its method (nothing was sent), and never counts against max_attempts.
void tst_RetryDecision::offlineIsNoAttempt()
{
    for (const char *method : {"GET", "POST"}) {
        Case c;
        c.method = method;
        c.error = TransportError::NetworkUnreachable;
        c.attempt = 9; // max_attempts (2) long spent, by the count
        c.set = {QStringLiteral("max_attempts=2")};
        const RetryDecision d = run(c);
        QCOMPARE(d.action, RetryDecision::Action::Retry);
        QCOMPARE(d.reason, QStringLiteral("offline"));
        QVERIFY(d.offline);
        QCOMPARE(d.countedAttempts, 8); // the attempts before it
        QVERIFY(d.delayMs >= 5000 && d.delayMs <= 7000);
        QCOMPARE(d.source, WaitSource::Backoff);
    }
    QCOMPARE(transportErrorFromString(u"unreachable"), TransportError::NetworkUnreachable);

    // A name that does not resolve is the endpoint's failure, unless the engine finds
    // the machine offline (the names of several hosts failing at once).
    Case dns;
    dns.error = TransportError::HostNotFound;
    dns.attempt = 2;
    dns.set = {QStringLiteral("max_attempts=2")};
    QCOMPARE(run(dns).action, RetryDecision::Action::Fail);
    QCOMPARE(run(dns).reason, QStringLiteral("max_attempts"));
    dns.machineOffline = true;
    const RetryDecision offline = run(dns);
    QCOMPARE(offline.action, RetryDecision::Action::Retry);
    QCOMPARE(offline.reason, QStringLiteral("offline"));
    QVERIFY(offline.offline);
    QCOMPARE(offline.countedAttempts, 1);
}

QTEST_GUILESS_MAIN(tst_RetryDecision)
#include "tst_retrydecision.moc"

void tst_RetryDecision::blockedByIncident_data()
{
    QTest::addColumn<Case>("input");
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("blocked");

    const auto make = [](const char *method, int status, TransportError error, bool key) {
        Case c;
        c.method = method;
        c.status = status;
        c.error = error;
        c.key = key;
        c.attempt = 9; // max_attempts (2) long spent, by the count
        c.set = {QStringLiteral("max_attempts=2")};
        c.causeInIncident = true;
        return c;
    };
    // What would be retried is held, whatever attempts it has spent.
    QTest::newRow("GET refused") << make("GET", 0, TransportError::ConnectionRefused, false)
                                 << "retry"
                                 << "blocked_by_incident" << true;
    QTest::newRow("GET 502") << make("GET", 502, TransportError::None, false) << "retry"
                             << "blocked_by_incident" << true;
    QTest::newRow("GET timeout") << make("GET", 0, TransportError::Timeout, false) << "retry"
                                 << "blocked_by_incident" << true;
    QTest::newRow("keyed POST timeout") << make("POST", 0, TransportError::Timeout, true) << "retry"
                                        << "blocked_by_incident" << true;
    QTest::newRow("POST refused") << make("POST", 0, TransportError::ConnectionRefused, false)
                                  << "retry"
                                  << "blocked_by_incident" << true;
    // A POST that may have executed is parked all the same: the incident changes no
    // promise of the retry contract.
    QTest::newRow("POST timeout, no key")
        << make("POST", 0, TransportError::Timeout, false) << "park"
        << "ambiguous_send" << false;
    QTest::newRow("POST 502, no key") << make("POST", 502, TransportError::None, false) << "park"
                                      << "not_idempotent" << false;
    // What is not the cause's is decided as ever.
    QTest::newRow("GET 404") << make("GET", 404, TransportError::None, false) << "fail"
                             << "not_retryable" << false;
    QTest::newRow("GET TLS") << make("GET", 0, TransportError::Tls, false) << "fail"
                             << "tls_error" << false;
}

void tst_RetryDecision::blockedByIncident()
{
    QFETCH(Case, input);
    QFETCH(QString, action);
    QFETCH(QString, reason);
    QFETCH(bool, blocked);
    const RetryDecision d = run(input);
    QCOMPARE(QLatin1String(textOf(d.action)), action);
    QCOMPARE(d.reason, reason);
    QCOMPARE(d.blocked, blocked);
    if (blocked) {
        QCOMPARE(d.countedAttempts, 8); // the attempts before it: this one does not count
        QVERIFY2(d.delayMs >= 30000 && d.delayMs <= 40000, qPrintable(QString::number(d.delayMs)));
    }
    // Without the incident, the same outcome spends its last attempt.
    Case free = input;
    free.causeInIncident = false;
    const RetryDecision without = run(free);
    QVERIFY(!without.blocked);
    if (blocked)
        QCOMPARE(without.action, RetryDecision::Action::Fail);
}
