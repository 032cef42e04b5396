// SPDX-License-Identifier: Apache-2.0
// The decision table of docs/retry-contract.md end to end: Store + Transport (the real QNAM) +
// Scheduler against the demo API, all in this process. The demo API and the engine
// share one ManualClock, so server times, Date headers and the schedule agree to the
// millisecond while the HTTP exchanges themselves are real loopback I/O.

#include "app/demo/DemoServer.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/http/HttpDate.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ReadableEnums.h"
#include "support/ScriptedHttpServer.h"
#include "support/SettleScheduler.h"
#ifdef COOLDOWN_HAVE_LOGIND
#include "core/engine/LogindSleep.h"
#include "support/FakeLogind.h"
#endif

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QSslSocket>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

// On a minute boundary: the demo's fixed windows are aligned to the clock, so a
// 60-second window opened now closes exactly 60 s later.
const qint64 kStart = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();
const QByteArray kBody = R"({"part":"bolt-m6","count":12})";
constexpr int kRealIoTimeoutMs = 10000;

QByteArray jsonString(const QString &text)
{
    QByteArray out = text.toUtf8();
    out.replace('\\', "\\\\").replace('"', "\\\"");
    return '"' + out + '"';
}

} // namespace

class tst_DemoIntegration : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ManualClock> m_clock;
    std::unique_ptr<SeededRandom> m_random;
    std::unique_ptr<ManualWakeTimer> m_timer;
    std::unique_ptr<DemoServer> m_demo;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<Scheduler> m_scheduler;
    QString m_dbPath;
    int m_dbCounter = 0;
    QHash<QString, QString> m_env; // what ${env:NAME} reads

    QString demoUrl(const QString &pathAndQuery) const
    {
        return m_demo->baseUrl().toString() + pathAndQuery;
    }

    // One endpoint object; the URL is used as given.
    static QByteArray endpoint(const QString &id, const QString &url,
                               const QByteArray &method = "GET", bool keyed = false,
                               double timeoutSeconds = 5)
    {
        QByteArray e = "{\"id\": " + jsonString(id) + ", \"method\": \"" + method +
                       "\", \"url\": " + jsonString(url) +
                       ", \"timeout_seconds\": " + QByteArray::number(timeoutSeconds);
        if (method != "GET")
            e += ", \"body\": " + jsonString(QString::fromUtf8(kBody));
        if (keyed)
            e += R"(, "idempotency": {"header": "Idempotency-Key"})";
        return e + "}";
    }

    bool openStore()
    {
        if (m_store)
            return true;
        QString error;
        m_store = Store::open(m_dbPath, &error);
        if (!m_store)
            qWarning().noquote() << error;
        return bool(m_store);
    }

    // The profile's jitter and spread stay on; only the limits are set so that every
    // row can reach its second attempt.
    bool start(const QByteArray &endpoints, const QByteArray &moreTopLevel = {})
    {
        const QByteArray json = "{" + moreTopLevel + R"("version": 1,
            "retry_profiles": {"default": {"max_attempts": 6, "base_seconds": 1, "cap_seconds": 8,
                "deadline_seconds": 3600, "spread_seconds": 1}},
            "endpoints": [)" + endpoints +
                                "]}";
        QString error;
        auto config =
            WorkspaceConfig::parse(json, QStringLiteral("integration.json"), &error, {}, m_env);
        if (!config) {
            qWarning().noquote() << error;
            return false;
        }
        if (!openStore())
            return false;
        m_transport = std::make_unique<Transport>(*m_clock);
        SchedulerOptions options;
        options.workerId = QStringLiteral("integration");
        options.leaseMs = 60000;
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, options);
        if (!m_scheduler->start(&error)) {
            qWarning().noquote() << error;
            return false;
        }
        return settle();
    }

    bool settle()
    {
        if (settleScheduler(*m_scheduler, kRealIoTimeoutMs))
            return true;
        qWarning() << "exchanges still in flight after" << kRealIoTimeoutMs << "ms";
        return false;
    }

    // Moves the manual clock forward by ms, stopping at every time the scheduler's one
    // timer is armed for, firing it and letting the exchanges it starts finish.
    bool runFor(qint64 ms)
    {
        if (runSchedulerFor(*m_scheduler, *m_clock, *m_timer, ms))
            return true;
        qWarning() << "exchanges still in flight, or the timer kept firing without time passing";
        return false;
    }

    // Runs the manual clock to wall time atMs (UTC ms).
    bool runUntil(qint64 atMs) { return runFor(std::max<qint64>(0, atMs - m_clock->nowMs())); }

    OperationRecord operation(const QString &endpointId)
    {
        const auto op = m_store->latestOperation(endpointId);
        return op.value_or(OperationRecord{});
    }

    QList<AttemptRecord> attemptsOf(qint64 operationId)
    {
        AttemptFilter filter;
        filter.operationId = operationId;
        return m_store->attempts(filter);
    }

    // A scheduler for the workspace json on the store, not started: for the tests that
    // wire it before it starts.
    bool makeScheduler(const QByteArray &json, const QString &name)
    {
        QString error;
        auto config = WorkspaceConfig::parse(json, name, &error, {}, m_env);
        if (!config) {
            qWarning().noquote() << error;
            return false;
        }
        if (!openStore())
            return false;
        m_transport = std::make_unique<Transport>(*m_clock);
        SchedulerOptions options;
        options.workerId = QStringLiteral("integration");
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, options);
        return true;
    }

    // The first attempts of the endpoints get, keyed and unkeyed were in flight when the
    // machine slept: interrupted, and the POST without a key parked, never sent again.
    void checkInterruptedBySleep()
    {
        for (const char *id : {"get", "keyed", "unkeyed"}) {
            const QList<AttemptRecord> attempts = attemptsOf(operation(QLatin1String(id)).id);
            QVERIFY(!attempts.isEmpty());
            QCOMPARE(attempts.first().error, QStringLiteral("interrupted"));
            QCOMPARE(attempts.first().reason,
                     QLatin1String(qstrcmp(id, "unkeyed") == 0 ? "ambiguous_send" : "interrupted"));
        }
        QCOMPARE(operation(QStringLiteral("unkeyed")).state, OperationState::Parked);
    }

    qint64 demoRequests(const QString &clientKey) const
    {
        return m_demo->stats().requestsByKey.value(clientKey);
    }

    // Uses up a limit before the engine's first attempt, through a client of its own.
    bool prime(const QString &url)
    {
        QNetworkAccessManager manager;
        QNetworkReply *reply = manager.get(QNetworkRequest(QUrl(url)));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        const bool ok = finished.wait(kRealIoTimeoutMs);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return ok && status == 200;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void init()
    {
        m_clock = std::make_unique<ManualClock>(kStart);
        m_random = std::make_unique<SeededRandom>(20261129);
        m_timer = std::make_unique<ManualWakeTimer>(*m_clock);
        m_demo = std::make_unique<DemoServer>(*m_clock);
        QVERIFY2(m_demo->listen(0), qPrintable(m_demo->errorString()));
        m_dbPath = m_dir.filePath(QStringLiteral("integration-%1.db").arg(++m_dbCounter));
    }
    void cleanup()
    {
        m_env.clear();
        m_scheduler.reset();
        m_transport.reset();
        m_store.reset();
        m_demo.reset();
    }

    void retriedThenSucceeds_data();
    void retriedThenSucceeds();
    void firstAttemptDecides_data();
    void firstAttemptDecides();
    void requestTimeout408Retries();
    void keyInUse409RetriesAndExecutesOnce();
    void keyReused422Fails();
    void connectionRefusedRetries_data();
    void connectionRefusedRetries();
    void keyedPostResentWithSameKeyExecutesOnce();
    void workerDiedMidAttempt_data();
    void workerDiedMidAttempt();
    void learnsTheDemoApisQuota_data();
    void learnsTheDemoApisQuota();
    void alertArrivesOnceAfterItsTargets429();
    void alertsForHoldsAndPauses();
    void checksAgainstTheDemo_data();
    void checksAgainstTheDemo();
    void latencyBudget_data();
    void latencyBudget();
    void keptExchangesAreTheLastFewAndHoldNoSecret();
    void degradedIsNoFailure();
    void latencyAlertOnceAndItsRecoveryOnce();
    void sleepInterruptsWhatIsInFlight();
#ifdef COOLDOWN_HAVE_LOGIND
    void logindSaysItSleeps();
#endif
    void backOnlineRampsUp();
};

// Rows of the table that retry once and then succeed: the first attempt's decision,
// the wait and its source as recorded, no request before the server's time (seen at
// the demo API), then success with the same idempotency key.
void tst_DemoIntegration::retriedThenSucceeds_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("primeFirst");
    QTest::addColumn<int>("firstStatus");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("waitSource");
    QTest::addColumn<qint64>("serverWaitMs"); // -1: no server time, backoff
    QTest::addColumn<QString>("retryAfterRaw");

    const QString fixed =
        QStringLiteral("/limited/fixed?limit=1&window=60&headers=none&problem=none");
    const QString retryAfterSeconds = fixed + QStringLiteral("&retry_after=seconds");
    const qint64 minute = 60000;

    QTest::newRow("GET 429 Retry-After seconds")
        << QByteArray("GET") << retryAfterSeconds << true << 429 << "throttled"
        << "retry-after" << minute << "60";
    QTest::newRow("GET 429 Retry-After IMF-fixdate")
        << QByteArray("GET") << fixed + QStringLiteral("&retry_after=date") << true << 429
        << "throttled"
        << "retry-after" << minute << QString::fromLatin1(HttpDate::format(kStart + minute));
    QTest::newRow("GET 429 Retry-After RFC 850 date")
        << QByteArray("GET") << fixed + QStringLiteral("&retry_after=rfc850") << true << 429
        << "throttled"
        << "retry-after" << minute << "Sunday, 29-Nov-26 12:01:00 GMT";
    QTest::newRow("GET 429 Retry-After asctime date")
        << QByteArray("GET") << fixed + QStringLiteral("&retry_after=asctime") << true << 429
        << "throttled"
        << "retry-after" << minute << "Sun Nov 29 12:01:00 2026";
    QTest::newRow("GET 429 RateLimit header, no Retry-After")
        << QByteArray("GET")
        << QStringLiteral(
               "/limited/fixed?limit=1&window=60&headers=draft&problem=none&retry_after=none")
        << true << 429 << "throttled"
        << "ratelimit" << minute << "";
    QTest::newRow("GET 429 token bucket Retry-After")
        << QByteArray("GET")
        << QStringLiteral(
               "/limited/bucket?capacity=1&rate=0.1&headers=none&problem=none&retry_after=seconds")
        << true << 429 << "throttled"
        << "retry-after" << qint64(10000) << "10";
    // A token per millisecond: the backoff is always long enough for the next one.
    const QString quickBucket =
        QStringLiteral("/limited/bucket?capacity=1&rate=1000&headers=none&problem=none");
    QTest::newRow("GET 429 without any hint backs off")
        << QByteArray("GET") << quickBucket + QStringLiteral("&retry_after=none") << true << 429
        << "throttled"
        << "backoff" << qint64(-1) << "";
    QTest::newRow("GET 429 malformed Retry-After backs off")
        << QByteArray("GET") << quickBucket + QStringLiteral("&retry_after=malformed") << true
        << 429 << "throttled"
        << "backoff" << qint64(-1) << "soon";
    QTest::newRow("GET 503 maintenance Retry-After seconds")
        << QByteArray("GET")
        << QStringLiteral("/maintenance?maintenance_for=30&retry_after=seconds") << false << 503
        << "throttled"
        << "retry-after" << qint64(30000) << "30";
    QTest::newRow("GET 503 maintenance Retry-After date")
        << QByteArray("GET") << QStringLiteral("/maintenance?maintenance_for=30&retry_after=date")
        << false << 503 << "throttled"
        << "retry-after" << qint64(30000) << QString::fromLatin1(HttpDate::format(kStart + 30000));
    QTest::newRow("GET 503 without hint backs off")
        << QByteArray("GET") << QStringLiteral("/flaky?fail_first=1&fail_status=503") << false
        << 503 << "throttled"
        << "backoff" << qint64(-1) << "";
    for (const int status : {500, 502, 504}) {
        QTest::addRow("GET %d flaky backs off", status)
            << QByteArray("GET") << QStringLiteral("/flaky?fail_first=1&fail_status=%1").arg(status)
            << false << status << "server_error"
            << "backoff" << qint64(-1) << "";
    }
    QTest::newRow("keyed POST 429 Retry-After seconds")
        << QByteArray("POST") << retryAfterSeconds << true << 429 << "throttled"
        << "retry-after" << minute << "60";
    QTest::newRow("keyed POST 503 maintenance")
        << QByteArray("POST")
        << QStringLiteral("/maintenance?maintenance_for=30&retry_after=seconds") << false << 503
        << "throttled"
        << "retry-after" << qint64(30000) << "30";
    QTest::newRow("keyed POST 502 flaky")
        << QByteArray("POST") << QStringLiteral("/flaky?fail_first=1&fail_status=502") << false
        << 502 << "server_error"
        << "backoff" << qint64(-1) << "";
}

void tst_DemoIntegration::retriedThenSucceeds()
{
    QFETCH(QByteArray, method);
    QFETCH(QString, path);
    QFETCH(bool, primeFirst);
    QFETCH(int, firstStatus);
    QFETCH(QString, reason);
    QFETCH(QString, waitSource);
    QFETCH(qint64, serverWaitMs);
    QFETCH(QString, retryAfterRaw);

    const QString clientKey = QStringLiteral("row");
    const QString url = demoUrl(path + QStringLiteral("&key=") + clientKey);
    if (primeFirst)
        QVERIFY(prime(url));
    const qint64 primed = demoRequests(clientKey);
    const bool keyed = method != "GET";
    QVERIFY(start(endpoint(QStringLiteral("e"), url, method, keyed)));

    OperationRecord op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Waiting);
    QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord first = attempts.first();
    QCOMPARE(first.status, firstStatus);
    QCOMPARE(first.error, QString());
    QCOMPARE(first.decision, Decision::Retry);
    QCOMPARE(first.reason, reason);
    QCOMPARE(QLatin1String(textOf(first.waitSource)), waitSource);
    QCOMPARE(first.retryAfterRaw, retryAfterRaw);
    QCOMPARE(op.nextAttemptAtMs, first.finishedAtMs + first.waitMs);
    if (serverWaitMs >= 0) {
        // The server's time, plus at most the configured spread of 1 s.
        QVERIFY2(first.waitMs >= serverWaitMs && first.waitMs <= serverWaitMs + 1000,
                 qPrintable(QString::number(first.waitMs)));
    } else {
        QVERIFY(first.waitMs >= 0 && first.waitMs <= 1000); // full jitter of base 1 s
    }
    QCOMPARE(demoRequests(clientKey), primed + 1);

    // Not one request before the time the engine promised (the server's time or later).
    QVERIFY(runUntil(op.nextAttemptAtMs - 1));
    QCOMPARE(demoRequests(clientKey), primed + 1);
    QCOMPARE(operation(QStringLiteral("e")).state, OperationState::Waiting);
    QVERIFY(runFor(2));
    QCOMPARE(demoRequests(clientKey), primed + 2);

    op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Succeeded);
    QCOMPARE(op.attempt, 2);
    QCOMPARE(op.throttledAttempts, reason == QLatin1String("throttled") ? 1 : 0);
    attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts[1].status, keyed ? 201 : 200);
    QCOMPARE(attempts[1].decision, Decision::Success);
    QVERIFY(attempts[1].startedAtMs >= first.finishedAtMs + std::max<qint64>(serverWaitMs, 0));
    if (keyed) {
        QCOMPARE(attempts[0].idempotencyKey, op.idempotencyKey);
        QCOMPARE(attempts[1].idempotencyKey, op.idempotencyKey);
        QCOMPARE(m_demo->stats().requestsByIdempotencyKey.value(op.idempotencyKey), 2);
        QCOMPARE(m_demo->stats().executedByIdempotencyKey.value(op.idempotencyKey), 1);
    }
}

// Rows decided by the first attempt: success, a final failure, a park, or a retry
// after a timeout. Final and parked operations are never sent again.
void tst_DemoIntegration::firstAttemptDecides_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<bool>("keyed");
    QTest::addColumn<QString>("path"); // relative to the demo API; "https:" for TLS
    QTest::addColumn<double>("timeoutSeconds");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error");
    QTest::addColumn<QString>("decision");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<OperationState>("state");
    QTest::addColumn<int>("executed"); // payload runs at the demo API, -1: not checked

    using S = OperationState;
    QTest::newRow("GET 200") << QByteArray("GET") << false << "/ok?" << 5.0 << 200 << ""
                             << "success"
                             << "ok" << S::Succeeded << 1;
    QTest::newRow("keyed POST 201") << QByteArray("POST") << true << "/uploads?" << 5.0 << 201 << ""
                                    << "success"
                                    << "ok" << S::Succeeded << 1;
    QTest::newRow("POST without key 201")
        << QByteArray("POST") << false << "/uploads?require_key=0&" << 5.0 << 201 << ""
        << "success"
        << "ok" << S::Succeeded << 1;
    QTest::newRow("GET 404 other 4xx")
        << QByteArray("GET") << false << "/missing?" << 5.0 << 404 << ""
        << "fail"
        << "not_retryable" << S::Failed << -1;
    QTest::newRow("GET 400 other 4xx")
        << QByteArray("GET") << false << "/ok?unknown_parameter=1&" << 5.0 << 400 << ""
        << "fail"
        << "not_retryable" << S::Failed << 0;
    QTest::newRow("GET 405 other 4xx")
        << QByteArray("GET") << false << "/uploads?" << 5.0 << 405 << ""
        << "fail"
        << "not_retryable" << S::Failed << 0;
    QTest::newRow("POST without required key 400")
        << QByteArray("POST") << false << "/uploads?require_key=1&" << 5.0 << 400 << ""
        << "fail"
        << "not_retryable" << S::Failed << 0;
    QTest::newRow("POST without key 503 parks")
        << QByteArray("POST") << false << "/maintenance?maintenance_for=30&retry_after=seconds&"
        << 5.0 << 503 << ""
        << "park"
        << "not_idempotent" << S::Parked << 0;
    QTest::newRow("POST without key 429 parks")
        << QByteArray("POST") << false << "/limited/fixed?limit=0&window=60&" << 5.0 << 429 << ""
        << "park"
        << "not_idempotent" << S::Parked << 0;
    QTest::newRow("POST without key 502 parks")
        << QByteArray("POST") << false << "/flaky?fail_first=1&fail_status=502&" << 5.0 << 502 << ""
        << "park"
        << "not_idempotent" << S::Parked << 0;
    QTest::newRow("POST without key timeout parks")
        << QByteArray("POST") << false << "/hang?" << 0.3 << 0 << "timeout"
        << "park"
        << "ambiguous_send" << S::Parked << 0;
    QTest::newRow("POST without key closed after send parks")
        << QByteArray("POST") << false << "/uploads?require_key=0&drop_first=1&" << 5.0 << 0
        << "closed"
        << "park"
        << "ambiguous_send" << S::Parked << 1;
    QTest::newRow("GET timeout retries")
        << QByteArray("GET") << false << "/hang?" << 0.3 << 0 << "timeout"
        << "retry"
        << "timeout" << S::Waiting << 0;
    QTest::newRow("keyed POST timeout retries")
        << QByteArray("POST") << true << "/hang?" << 0.3 << 0 << "timeout"
        << "retry"
        << "timeout" << S::Waiting << 0;
    QTest::newRow("GET TLS to a plain port fails")
        << QByteArray("GET") << false << "https:/ok?" << 5.0 << 0 << "tls"
        << "fail"
        << "tls_error" << S::Failed << 0;
}

void tst_DemoIntegration::firstAttemptDecides()
{
    QFETCH(QByteArray, method);
    QFETCH(bool, keyed);
    QFETCH(QString, path);
    QFETCH(double, timeoutSeconds);
    QFETCH(int, status);
    QFETCH(QString, error);
    QFETCH(QString, decision);
    QFETCH(QString, reason);
    QFETCH(OperationState, state);
    QFETCH(int, executed);

    const QString clientKey = QStringLiteral("row");
    QString url = demoUrl(path + QStringLiteral("key=") + clientKey);
    if (path.startsWith(QLatin1String("https:"))) {
        if (!QSslSocket::supportsSsl())
            QSKIP("no TLS backend: QNAM cannot attempt a handshake");
        QUrl u = m_demo->baseUrl();
        u.setScheme(QStringLiteral("https"));
        url = u.toString() + path.mid(6) + QStringLiteral("key=") + clientKey;
    }
    QVERIFY(start(endpoint(QStringLiteral("e"), url, method, keyed, timeoutSeconds)));

    OperationRecord op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, state);
    QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].status, status);
    QCOMPARE(attempts[0].error, error);
    QCOMPARE(QLatin1String(textOf(attempts[0].decision)), decision);
    QCOMPARE(attempts[0].reason, reason);
    if (state == OperationState::Failed || state == OperationState::Parked)
        QCOMPARE(op.finalReason, reason);
    if (executed >= 0)
        QCOMPARE(m_demo->stats().executedByKey.value(clientKey), executed);
    if (keyed)
        QVERIFY(m_demo->stats().executedByIdempotencyKey.value(op.idempotencyKey) <= 1);

    if (state == OperationState::Waiting) {
        QCOMPARE(attempts[0].waitSource, WaitSource::Backoff);
        QVERIFY(runUntil(op.nextAttemptAtMs - 1));
        QCOMPARE(attemptsOf(op.id).size(), 1);
        QVERIFY(runFor(2));
        QCOMPARE(attemptsOf(op.id).size(), 2); // the retry went out (and hung again)
        QCOMPARE(attemptsOf(op.id).at(1).idempotencyKey, attempts[0].idempotencyKey);
    } else {
        // An ended or parked operation is never sent again on its own.
        const qint64 seen = m_demo->stats().totalRequests;
        QVERIFY(runFor(600 * 1000));
        QCOMPARE(attemptsOf(op.id).size(), 1);
        QCOMPARE(m_demo->stats().totalRequests, seen);
        QCOMPARE(operation(QStringLiteral("e")).state, state);
    }
}

// The demo API never answers 408; a scripted loopback server does.
void tst_DemoIntegration::requestTimeout408Retries()
{
    ScriptedHttpServer server;
    server.script("/t", {{408, {}, "Request Timeout"}, {200, {}, "ok"}});
    QVERIFY(start(endpoint(QStringLiteral("e"), server.url(QStringLiteral("/t")))));
    OperationRecord op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Waiting);
    const QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts[0].status, 408);
    QCOMPARE(attempts[0].reason, QStringLiteral("request_timeout"));
    QCOMPARE(attempts[0].waitSource, WaitSource::Backoff);
    QVERIFY(runUntil(op.nextAttemptAtMs - 1));
    QCOMPARE(server.received.size(), 1);
    QVERIFY(runFor(2));
    QCOMPARE(server.received.size(), 2);
    QCOMPARE(operation(QStringLiteral("e")).state, OperationState::Succeeded);
}

// The first attempt times out while the demo API is still executing it; the retry
// with the same key arrives meanwhile and gets 409; once the first execution is done,
// the next retry gets its result replayed. The payload ran once.
void tst_DemoIntegration::keyInUse409RetriesAndExecutesOnce()
{
    const QString url = demoUrl(QStringLiteral("/uploads?key=slow&delay_ms=4000"));
    QVERIFY(start(endpoint(QStringLiteral("e"), url, "POST", true, 0.5)));
    OperationRecord op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Waiting);
    QCOMPARE(attemptsOf(op.id).at(0).reason, QStringLiteral("timeout"));

    QVERIFY(runUntil(op.nextAttemptAtMs));
    op = operation(QStringLiteral("e"));
    QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts[1].status, 409);
    QCOMPARE(attempts[1].decision, Decision::Retry);
    QCOMPARE(attempts[1].reason, QStringLiteral("key_in_use"));
    QCOMPARE(attempts[1].waitSource, WaitSource::Backoff);
    QCOMPARE(m_demo->stats().executedByIdempotencyKey.value(op.idempotencyKey), 0);

    // The first request finishes executing at the demo API (real time).
    QTRY_COMPARE_WITH_TIMEOUT(m_demo->stats().executedByIdempotencyKey.value(op.idempotencyKey), 1,
                              kRealIoTimeoutMs);
    QVERIFY(runUntil(op.nextAttemptAtMs));
    op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Succeeded);
    attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 3);
    QCOMPARE(attempts[2].status, 201);
    QVERIFY(attempts[2].responseHeaders.contains(QLatin1String("Idempotent-Replayed: true")));
    const DemoStats stats = m_demo->stats();
    QCOMPARE(stats.requestsByIdempotencyKey.value(op.idempotencyKey), 3);
    QCOMPARE(stats.executedByIdempotencyKey.value(op.idempotencyKey), 1);
    QCOMPARE(stats.replayed, 1);
}

// Two operations share a key (as when a key is reused by mistake): the second, with
// another body, is refused with 422 and fails for good; nothing runs twice.
void tst_DemoIntegration::keyReused422Fails()
{
    QVERIFY(openStore());
    const QString sharedKey = QStringLiteral("0b5c6f1e-reused-key");
    QVERIFY(m_store->ensureOneShotOperation(QStringLiteral("first"), sharedKey, kStart));
    QVERIFY(m_store->ensureOneShotOperation(QStringLiteral("second"), sharedKey, kStart + 5000));
    const QString url = demoUrl(QStringLiteral("/uploads?key=reuse"));
    QByteArray second = endpoint(QStringLiteral("second"), url, "POST", true);
    second.replace(jsonString(QString::fromUtf8(kBody)), R"("{\"part\":\"other\"}")");
    QVERIFY(start(endpoint(QStringLiteral("first"), url, "POST", true) + "," + second));
    QCOMPARE(operation(QStringLiteral("first")).state, OperationState::Succeeded);
    QCOMPARE(operation(QStringLiteral("second")).state, OperationState::Scheduled);

    QVERIFY(runFor(6000));
    const OperationRecord op = operation(QStringLiteral("second"));
    QCOMPARE(op.state, OperationState::Failed);
    QCOMPARE(op.finalReason, QStringLiteral("key_reused"));
    const QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].status, 422);
    QCOMPARE(attempts[0].decision, Decision::Fail);
    QCOMPARE(m_demo->stats().executedByIdempotencyKey.value(sharedKey), 1);
    QVERIFY(runFor(600000));
    QCOMPARE(attemptsOf(op.id).size(), 1);
}

// Nothing was sent: every method may go again, a POST without a key included.
void tst_DemoIntegration::connectionRefusedRetries_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<bool>("keyed");
    QTest::newRow("GET") << QByteArray("GET") << false;
    QTest::newRow("keyed POST") << QByteArray("POST") << true;
    QTest::newRow("POST without key") << QByteArray("POST") << false;
}

void tst_DemoIntegration::connectionRefusedRetries()
{
    QFETCH(QByteArray, method);
    QFETCH(bool, keyed);

    // A port nobody listens on until the second demo API takes it below.
    quint16 port = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        port = probe.serverPort();
    }
    const QString url =
        QStringLiteral("http://127.0.0.1:%1/uploads?require_key=0&key=late").arg(port);
    const QString getUrl = QStringLiteral("http://127.0.0.1:%1/ok?key=late").arg(port);
    QVERIFY(start(endpoint(QStringLiteral("e"), method == "GET" ? getUrl : url, method, keyed)));
    OperationRecord op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Waiting);
    QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].error, QStringLiteral("refused"));
    QCOMPARE(attempts[0].reason, QStringLiteral("connection_refused"));
    QCOMPARE(attempts[0].decision, Decision::Retry);
    QCOMPARE(attempts[0].waitSource, WaitSource::Backoff);

    DemoServer late(*m_clock);
    if (!late.listen(port))
        QSKIP("the probed port was taken by another process meanwhile");
    QVERIFY(runUntil(op.nextAttemptAtMs));
    op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Succeeded);
    QCOMPARE(late.stats().executedByKey.value(QStringLiteral("late")), 1);
}

// The server runs the payload and closes the connection before answering (a crash
// after commit). QNAM must not re-send the body on its own; the engine retries with
// the same key and the ledger replays the first result.
void tst_DemoIntegration::keyedPostResentWithSameKeyExecutesOnce()
{
    const QString url = demoUrl(QStringLiteral("/uploads?key=drop&drop_first=1"));
    QVERIFY(start(endpoint(QStringLiteral("e"), url, "POST", true)));
    OperationRecord op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Waiting);
    QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].error, QStringLiteral("closed"));
    QCOMPARE(attempts[0].reason, QStringLiteral("connection_closed"));
    QCOMPARE(attempts[0].decision, Decision::Retry);
    QCOMPARE(m_demo->stats().requestsByIdempotencyKey.value(op.idempotencyKey), 1);
    QCOMPARE(m_demo->stats().dropped, 1);

    QVERIFY(runUntil(op.nextAttemptAtMs));
    op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, OperationState::Succeeded);
    attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts[1].status, 201);
    QCOMPARE(attempts[1].idempotencyKey, attempts[0].idempotencyKey);
    const DemoStats stats = m_demo->stats();
    QCOMPARE(stats.requestsByIdempotencyKey.value(op.idempotencyKey), 2);
    QCOMPARE(stats.executedByIdempotencyKey.value(op.idempotencyKey), 1);
    QCOMPARE(stats.replayed, 1);
}

// Another worker claimed the operation and died: its lease expires while the
// operation is running, and this worker decides as for a connection lost.
void tst_DemoIntegration::workerDiedMidAttempt_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<bool>("keyed");
    QTest::addColumn<OperationState>("stateAfterRescue");
    QTest::addColumn<OperationState>("finalState");
    QTest::newRow("GET retries") << QByteArray("GET") << false << OperationState::Waiting
                                 << OperationState::Succeeded;
    QTest::newRow("keyed POST retries")
        << QByteArray("POST") << true << OperationState::Waiting << OperationState::Succeeded;
    QTest::newRow("POST without key parks")
        << QByteArray("POST") << false << OperationState::Parked << OperationState::Parked;
}

void tst_DemoIntegration::workerDiedMidAttempt()
{
    QFETCH(QByteArray, method);
    QFETCH(bool, keyed);
    QFETCH(OperationState, stateAfterRescue);
    QFETCH(OperationState, finalState);

    QVERIFY(openStore());
    QVERIFY(m_store->ensureOneShotOperation(QStringLiteral("e"), QStringLiteral("rescued-key"),
                                            kStart));
    QCOMPARE(m_store->claims().claimDue(QStringLiteral("dead-worker"), kStart, 5000, 10).size(), 1);
    const QString url =
        demoUrl(method == "GET" ? QStringLiteral("/ok?key=rescue")
                                : QStringLiteral("/uploads?require_key=0&key=rescue"));
    QVERIFY(start(endpoint(QStringLiteral("e"), url, method, keyed)));
    QCOMPARE(operation(QStringLiteral("e")).state, OperationState::Running);
    QCOMPARE(m_demo->stats().totalRequests, 0);

    QVERIFY(runUntil(kStart + 5000));
    OperationRecord op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, stateAfterRescue);
    QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts[0].error, QStringLiteral("worker_died"));
    QCOMPARE(m_demo->stats().totalRequests, 0); // deciding sends nothing

    QVERIFY(runFor(60000));
    op = operation(QStringLiteral("e"));
    QCOMPARE(op.state, finalState);
    QCOMPARE(m_demo->stats().executedByKey.value(QStringLiteral("rescue")),
             finalState == OperationState::Succeeded ? 1 : 0);
}

// Endpoints without a policy against the demo API's fixed windows, which are aligned
// to the clock (a grid, unlike express-rate-limit's), stating their quota in each
// header dialect: the engine learns it from the first answers and sends each window's
// quota as it opens. After the first window at most 0.1 refusals per job, and the last
// job goes out within 1.1 times the ideal schedule.
void tst_DemoIntegration::learnsTheDemoApisQuota_data()
{
    QTest::addColumn<QString>("headers");
    QTest::newRow("RateLimit draft") << "draft";
    QTest::newRow("X-RateLimit") << "x";
}

void tst_DemoIntegration::learnsTheDemoApisQuota()
{
    QFETCH(QString, headers);
    constexpr int kJobs = 12;
    constexpr int kLimit = 3;
    constexpr qint64 kWindowMs = 10000;
    QByteArray endpoints;
    for (int i = 0; i < kJobs; ++i)
        endpoints += (i ? "," : "") +
                     endpoint(QStringLiteral("job-%1").arg(i),
                              demoUrl(QStringLiteral("/limited/fixed?key=learn-%1&limit=%2"
                                                     "&window=10&headers=%3&retry_after=seconds")
                                          .arg(headers)
                                          .arg(kLimit)
                                          .arg(headers)));
    QVERIFY(start(endpoints));
    QVERIFY(runFor(60000));
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), qint64(kJobs));
    qint64 last = 0;
    int refusedLater = 0;
    for (const AttemptRecord &a : m_store->attempts({})) {
        last = std::max(last, a.startedAtMs);
        refusedLater += a.status == 429 && a.startedAtMs >= kStart + kWindowMs;
    }
    QVERIFY2(refusedLater <= kJobs / 10, qPrintable(QString::number(refusedLater)));
    // A window for every kLimit jobs after the first: the last one opens 30 s in.
    const qint64 ideal = (kJobs / kLimit - 1) * kWindowMs;
    QVERIFY2(
        last - kStart <= ideal * 11 / 10,
        qPrintable(
            QStringLiteral("last request %1 ms in, ideal %2 ms").arg(last - kStart).arg(ideal)));
    const QList<PartitionState> partitions = m_store->partitions(m_clock->nowMs()).value();
    QCOMPARE(partitions.size(), 1);
    QVERIFY(partitions.first().isLearned());
    QCOMPARE(partitions.first().server.quota, qint64(kLimit));
}

// An operation that fails raises an alert; the alert target answers 429 with
// Retry-After first (its window is used up), then 201: the message is an operation of
// the engine like any other, retried after the server's time with the same key, and
// arrives once. It shows in the store (History) like any attempt.
void tst_DemoIntegration::alertArrivesOnceAfterItsTargets429()
{
    const QString target =
        demoUrl(QStringLiteral("/limited/fixed?key=alerts&limit=1&window=10&retry_after=seconds"));
    QVERIFY(prime(target));
    const QByteArray alerts = R"("alerts": [{"id": "ops", "url": )" + jsonString(target) +
                              R"(, "events": ["operation_failed"], "min_interval_seconds": 60}],)";
    // 404 is final: the operation fails at its first attempt.
    QVERIFY(start(endpoint(QStringLiteral("doomed"), demoUrl(QStringLiteral("/nope?key=doomed"))),
                  alerts));
    QVERIFY(runFor(30000));

    OperationFilter doomed;
    doomed.endpointId = QStringLiteral("doomed");
    QCOMPARE(m_store->operations(doomed).first().state, OperationState::Failed);
    OperationFilter sent;
    sent.endpointId = QStringLiteral("alert:ops");
    const QList<OperationRecord> alertOps = m_store->operations(sent);
    QCOMPARE(alertOps.size(), 1);
    const OperationRecord &alert = alertOps.first();
    QCOMPARE(alert.state, OperationState::Succeeded);
    const QJsonObject message = QJsonDocument::fromJson(alert.requestBody).object();
    QCOMPARE(message.value(QLatin1String("event")).toString(), QStringLiteral("operation_failed"));
    QCOMPARE(message.value(QLatin1String("endpoint_id")).toString(), QStringLiteral("doomed"));
    QVERIFY2(message.value(QLatin1String("text")).toString().contains(QLatin1String("doomed")),
             alert.requestBody.constData());

    const QList<AttemptRecord> attempts = attemptsOf(alert.id);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.at(0).status, 429);
    QCOMPARE(attempts.at(0).waitSource, WaitSource::RetryAfter);
    QCOMPARE(attempts.at(0).method, QStringLiteral("POST"));
    QCOMPARE(attempts.at(1).status, 201); // the demo API's answer to a POST it executed
    QVERIFY(attempts.at(1).startedAtMs >= attempts.at(0).finishedAtMs + attempts.at(0).waitMs);
    // The same key both times; delivered (executed) once.
    QCOMPARE(m_demo->stats().requestsByIdempotencyKey.value(alert.idempotencyKey), 2);
    QCOMPARE(m_demo->stats().executedByIdempotencyKey.value(alert.idempotencyKey), 1);
    QCOMPARE(m_demo->stats().requestsByKey.value(QStringLiteral("alerts")), 3); // prime + 2

    // Another failure within min_interval_seconds sends nothing more.
    QCOMPARE(m_scheduler->raiseAlert(AlertEvent::OperationFailed, QStringLiteral("again"), {}), 0);
    QVERIFY(runFor(5000));
    QCOMPARE(m_store->operations(sent).size(), 1);
}

// A server's hold longer than the target's threshold, and an operator's pause, each
// reach the targets that listen for them; a shorter hold and other kinds do not.
void tst_DemoIntegration::alertsForHoldsAndPauses()
{
    const QString limited = demoUrl(QStringLiteral(
        "/limited/fixed?key=held&limit=1&window=30&retry_after=seconds&headers=none"));
    QVERIFY(prime(limited));
    const QByteArray alerts = R"("alerts": [{"id": "holds", "url": )" +
                              jsonString(demoUrl(QStringLiteral("/ok?key=hook-holds"))) +
                              R"(, "events": ["partition_held"], "held_longer_than_seconds": 20},
        {"id": "strict", "url": )" +
                              jsonString(demoUrl(QStringLiteral("/ok?key=hook-strict"))) +
                              R"(, "events": ["partition_held"], "held_longer_than_seconds": 3600},
        {"id": "pauses", "url": )" +
                              jsonString(demoUrl(QStringLiteral("/ok?key=hook-pauses"))) +
                              R"(, "events": ["endpoint_paused"]}],)";
    QVERIFY(start(endpoint(QStringLiteral("limited"), limited) + "," +
                      endpoint(QStringLiteral("other"), demoUrl(QStringLiteral("/ok?key=other"))),
                  alerts));
    QVERIFY(runFor(5000));
    QVERIFY(m_scheduler->setEndpointPaused(QStringLiteral("other"), true));
    // The targets share the demo API's host, which the 429 holds for 30 s: the
    // messages wait for it like any operation to that host, and then go at the pace
    // measured from that refusal (one answer accepted before it: one per 30 s).
    QVERIFY(runFor(70000));

    auto messagesTo = [this](const char *alert) {
        OperationFilter filter;
        filter.endpointId = QStringLiteral("alert:") + QLatin1String(alert);
        return m_store->operations(filter);
    };
    const auto held = messagesTo("holds");
    QCOMPARE(held.size(), 1);
    QCOMPARE(held.first().state, OperationState::Succeeded);
    const QJsonObject heldMessage = QJsonDocument::fromJson(held.first().requestBody).object();
    QCOMPARE(heldMessage.value(QLatin1String("event")).toString(),
             QStringLiteral("partition_held"));
    QVERIFY(heldMessage.value(QLatin1String("held_seconds")).toDouble() >= 20);
    QCOMPARE(messagesTo("strict").size(), 0);
    const auto paused = messagesTo("pauses");
    QCOMPARE(paused.size(), 1);
    QCOMPARE(QJsonDocument::fromJson(paused.first().requestBody)
                 .object()
                 .value(QLatin1String("endpoint_id"))
                 .toString(),
             QStringLiteral("other"));
    QCOMPARE(demoRequests(QStringLiteral("hook-pauses")), 1);
}

// docs/checks.md against the demo API: each kind of assertion on a real answer, the
// operation's end, the assertion and value recorded, and how often the demo ran it.
void tst_DemoIntegration::checksAgainstTheDemo_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<bool>("keyed");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("expect");
    QTest::addColumn<OperationState>("state");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("check"); // the first attempt's check_failure
    QTest::addColumn<int>("executions");
    // A POST carries an idempotency key unless the row says "unkeyed".
    const auto row = [](const char *name, const QByteArray &method, const char *path,
                        const QByteArray &expect, OperationState state, const char *reason,
                        const char *check, int executions, bool keyed = true) {
        QTest::newRow(name) << method << (keyed && method == "POST") << QString::fromLatin1(path)
                            << expect << state << QString::fromLatin1(reason)
                            << QString::fromUtf8(check) << executions;
    };
    const QByteArray items = R"({"json": [{"pointer": "/items", "min_items": 1}]})";
    const QByteArray statusOk = R"({"json": [{"pointer": "/status", "equals": "ok"}]})";
    using S = OperationState;
    row("items present", "GET", "/answers/items", items, S::Succeeded, "", "", 1);
    row("empty list", "GET", "/answers/empty", items, S::Failed, "assertion_failed",
        "json[0] /items has at least 1 items; found: 0 items", 1);
    row("200 with an error body", "GET", "/answers/error", statusOk, S::Failed, "assertion_failed",
        "json[0] /status equals \"ok\"; found: \"error\"", 1);
    row("keyed POST whose answer fails is not sent again", "POST", "/answers/error", statusOk,
        S::Failed, "assertion_failed", "json[0] /status equals \"ok\"; found: \"error\"", 1);
    // It executed: without a key it is not sent again either, and not parked as
    // ambiguous, since the answer came.
    row("POST without a key whose answer fails is not sent again", "POST", "/answers/error",
        statusOk, S::Failed, "assertion_failed", "json[0] /status equals \"ok\"; found: \"error\"",
        1, false);
    row("wrong content type", "GET", "/answers/text",
        R"({"headers": {"Content-Type": {"matches": "json"}}})", S::Failed, "assertion_failed",
        "header Content-Type matches \"json\"; found: text/plain", 1);
    row("header equals", "GET", "/answers/items",
        R"({"headers": {"content-type": {"equals": "application/json"}}})", S::Succeeded, "", "",
        1);
    row("header that must be absent", "GET", "/answers/items",
        R"({"headers": {"Content-Type": {"present": false}}})", S::Failed, "assertion_failed",
        "header Content-Type is absent; found: application/json", 1);
    row("status not allowed", "POST", "/ok", R"({"status": [200]})", S::Failed, "assertion_failed",
        "status is 200; found: 201", 1);
    row("body pattern", "GET", "/answers/items", R"({"body_regex": "\\[1,2,3\\]"})", S::Succeeded,
        "", "", 1);
    row("one of", "GET", "/answers/error",
        R"({"json": [{"pointer": "/status", "one_of": ["ok", "queued"]}]})", S::Failed,
        "assertion_failed", "json[0] /status is one of [\"ok\",\"queued\"]; found: \"error\"", 1);
    row("a number within bounds", "GET", "/answers/items",
        R"({"json": [{"pointer": "/items/2", "min": 1, "max": 3}]})", S::Succeeded, "", "", 1);
    row("a number out of bounds", "GET", "/answers/items",
        R"({"json": [{"pointer": "/items/0", "min": 2}]})", S::Failed, "assertion_failed",
        "json[0] /items/0 is at least 2; found: 1", 1);
    row("a body too large", "GET", "/answers/text", R"({"max_body_bytes": 16})", S::Failed,
        "assertion_failed", "body is at most 16 bytes; found: 64 bytes", 1);
    row("retried when asked, until max_attempts", "GET", "/answers/error",
        R"({"json": [{"pointer": "/status", "equals": "ok"}], "retry_on_failure": true})",
        S::Failed, "max_attempts", "json[0] /status equals \"ok\"; found: \"error\"", 6);
}

void tst_DemoIntegration::checksAgainstTheDemo()
{
    QFETCH(QByteArray, method);
    QFETCH(bool, keyed);
    QFETCH(QString, path);
    QFETCH(QByteArray, expect);
    QFETCH(OperationState, state);
    QFETCH(QString, reason);
    QFETCH(QString, check);
    QFETCH(int, executions);

    QByteArray e =
        endpoint(QStringLiteral("check"), demoUrl(path + QStringLiteral("?key=c")), method, keyed);
    e.chop(1);
    e += ", \"expect\": " + expect + "}";
    QVERIFY(start(e));
    QVERIFY(runFor(10 * 60 * 1000));
    const OperationRecord op = operation(QStringLiteral("check"));
    QCOMPARE(op.state, state);
    QCOMPARE(op.finalReason, reason);
    const QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), executions);
    QCOMPARE(attempts.first().checkFailure, check);
    QCOMPARE(m_demo->stats().totalExecuted, qint64(executions));
}

// A latency budget: the manual clock moves on by `tookMs` while the demo's /slow
// answer is on its way, so the exchange takes exactly that long.
void tst_DemoIntegration::latencyBudget_data()
{
    QTest::addColumn<qint64>("tookMs");
    QTest::addColumn<QString>("reason");
    QTest::newRow("under budget") << qint64(1999) << "ok";
    QTest::newRow("at budget") << qint64(2000) << "ok";
    QTest::newRow("over budget") << qint64(2001) << "degraded";
}

void tst_DemoIntegration::latencyBudget()
{
    QFETCH(qint64, tookMs);
    QFETCH(QString, reason);
    connect(m_demo.get(), &DemoServer::requestReceived, this,
            [this, tookMs] { m_clock->advance(tookMs); });
    QByteArray e = endpoint(QStringLiteral("slow"), demoUrl(QStringLiteral("/slow?delay_ms=50")));
    e.chop(1);
    e += R"(, "latency_budget_ms": 2000})";
    QVERIFY(start(e));
    const OperationRecord op = operation(QStringLiteral("slow"));
    QCOMPARE(op.state, OperationState::Succeeded);
    const QList<AttemptRecord> attempts = attemptsOf(op.id);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().durationMs, tookMs);
    QCOMPARE(attempts.first().decision, Decision::Success);
    QCOMPARE(attempts.first().reason, reason);
    // A degraded exchange is kept whole; one within budget is not.
    QCOMPARE(m_store->keptExchange(attempts.first().id).has_value(), reason == "degraded");
}

// docs/checks.md: degraded is not failed. A periodic check answered over its budget every
// time neither retries nor counts towards pause_after_failures.
void tst_DemoIntegration::degradedIsNoFailure()
{
    connect(m_demo.get(), &DemoServer::requestReceived, this, [this] { m_clock->advance(2500); });
    QByteArray e = endpoint(QStringLiteral("slow"), demoUrl(QStringLiteral("/slow?delay_ms=50")));
    e.chop(1);
    e += R"(, "latency_budget_ms": 2000, "every_seconds": 10, "pause_after_failures": 2})";
    QVERIFY(start(e));
    QVERIFY(runFor(60 * 1000));
    OperationFilter filter;
    filter.endpointId = QStringLiteral("slow");
    const QList<OperationRecord> ops = m_store->operations(filter);
    QVERIFY2(ops.size() >= 5, qPrintable(QString::number(ops.size())));
    for (const OperationRecord &op : ops) {
        if (!isFinal(op.state))
            continue; // the tick under way
        QCOMPARE(op.state, OperationState::Succeeded);
        const QList<AttemptRecord> attempts = attemptsOf(op.id);
        QCOMPARE(attempts.size(), 1);
        QCOMPARE(attempts.first().reason, QStringLiteral("degraded"));
    }
    QCOMPARE(m_store->isEndpointPaused(QStringLiteral("slow")), std::optional<bool>(false));
}

// The last kept_exchanges failed exchanges of an endpoint are kept with their bodies;
// nothing kept names the workspace's secret, whether in a header, the request body
// or the answer.
void tst_DemoIntegration::keptExchangesAreTheLastFewAndHoldNoSecret()
{
    const QString secret = QStringLiteral("tok-4f9a-SECRET-e1c2");
    m_env.insert(QStringLiteral("COOLDOWN_TEST_KEPT_TOKEN"), secret);
    const QByteArray top = R"("retention": {"kept_exchanges": 2},
        "credentials": [{"id": "partner", "type": "bearer", "token": "${env:COOLDOWN_TEST_KEPT_TOKEN}"}],)";
    QByteArray e = "{\"id\": \"events\", \"method\": \"POST\", \"url\": " +
                   jsonString(demoUrl(QStringLiteral("/answers/error?key=k"))) +
                   R"(, "credentials": "partner", "every_seconds": 10,
        "headers": {"Content-Type": "application/json"},
        "body": "{\"event\": \"e-1\", \"token\": \"${env:COOLDOWN_TEST_KEPT_TOKEN}\", \"copy\": \"x ${env:COOLDOWN_TEST_KEPT_TOKEN} y\"}",
        "expect": {"json": [{"pointer": "/status", "equals": "ok"}]}})";
    QVERIFY(start(e, top));
    QVERIFY(runFor(25000)); // ticks at 0, 10 and 20 s
    m_env.clear();
    AttemptFilter filter;
    filter.endpointId = QStringLiteral("events");
    const QList<AttemptRecord> attempts = m_store->attempts(filter);
    QCOMPARE(attempts.size(), 3);
    QVERIFY(!m_store->keptExchange(attempts.at(0).id)); // the oldest went
    for (int i = 1; i < 3; ++i) {
        const auto kept = m_store->keptExchange(attempts.at(i).id);
        QVERIFY(kept);
        QVERIFY2(kept->responseBody.contains(QStringLiteral("the event was dropped")),
                 qPrintable(kept->responseBody));
        QVERIFY2(kept->requestBody.contains(QStringLiteral("e-1")), qPrintable(kept->requestBody));
        for (const QString &text :
             {kept->requestBody, kept->responseBody, attempts.at(i).requestHeaders,
              attempts.at(i).responseHeaders, attempts.at(i).checkFailure, attempts.at(i).url})
            QVERIFY2(!text.contains(secret), qPrintable(text));
        QVERIFY(kept->requestBody.contains(QStringLiteral("[redacted]")));
    }
}

// A periodic check of /slow with a 2 s budget: its answers take 2.5 s (on the manual
// clock) for the first minute, then 1 s. The alert target hears latency_degraded once
// when the p95 goes over the budget, and once more when the slow answers have left the
// 5-minute window; the answers in between raise nothing more.
void tst_DemoIntegration::latencyAlertOnceAndItsRecoveryOnce()
{
    qint64 tookMs = 2500;
    connect(m_demo.get(), &DemoServer::requestReceived, this, [this, &tookMs](const QString &path) {
        if (path == QLatin1String("/slow"))
            m_clock->advance(tookMs);
    });
    QByteArray e = endpoint(QStringLiteral("convert"),
                            demoUrl(QStringLiteral("/slow?key=convert&delay_ms=20")));
    e.chop(1);
    e += R"(, "every_seconds": 10, "latency_budget_ms": 2000})";
    const QByteArray alerts = R"("alerts": [{"id": "lat", "url": )" +
                              jsonString(demoUrl(QStringLiteral("/ok?key=hook-lat"))) +
                              R"(, "events": ["latency_degraded"]}],)";
    QVERIFY(start(e, alerts));
    QVERIFY(runFor(60'000));
    QVERIFY(m_scheduler->latencyDegradedEndpoints().contains(QStringLiteral("convert")));
    tookMs = 1000;
    QVERIFY(runFor(9 * 60'000));
    QVERIFY(m_scheduler->latencyDegradedEndpoints().isEmpty());

    OperationFilter filter;
    filter.endpointId = QStringLiteral("alert:lat");
    const QList<OperationRecord> messages = m_store->operations(filter);
    QCOMPARE(messages.size(), 2);
    QList<bool> recovered;
    for (const OperationRecord &m : messages) {
        const QJsonObject body = QJsonDocument::fromJson(m.requestBody).object();
        QCOMPARE(body.value(QLatin1String("event")).toString(), QStringLiteral("latency_degraded"));
        QCOMPARE(body.value(QLatin1String("endpoint_id")).toString(), QStringLiteral("convert"));
        recovered.append(body.value(QLatin1String("recovered")).toBool());
    }
    QCOMPARE(recovered, QList<bool>({false, true}));
    QCOMPARE(demoRequests(QStringLiteral("hook-lat")), 2);
    // Degraded is not failed: every check succeeded.
    filter.endpointId = QStringLiteral("convert");
    for (const OperationRecord &op : m_store->operations(filter))
        QCOMPARE(op.state, OperationState::Succeeded);
}

// docs/offline.md: three exchanges to /hang are in flight when the machine sleeps for
// ten minutes (the wall clock jumps, the monotonic one does not). At the next wake each
// ends interrupted, and the contract decides as for a lost connection: the GET and the
// keyed POST are retried, the POST without a key is parked, not sent again.
void tst_DemoIntegration::sleepInterruptsWhatIsInFlight()
{
    const QString hang = demoUrl(QStringLiteral("/hang?key=sleep"));
    QByteArray endpoints = endpoint(QStringLiteral("get"), hang) + "," +
                           endpoint(QStringLiteral("keyed"), hang, "POST", true) + "," +
                           endpoint(QStringLiteral("unkeyed"), hang, "POST", false);
    QSignalSpy received(m_demo.get(), &DemoServer::requestReceived);
    const QByteArray json = R"({"version": 1, "endpoints": [)" + endpoints + "]}";
    QVERIFY(makeScheduler(json, QStringLiteral("sleep.json")));
    QString error;
    QSignalSpy woke(m_scheduler.get(), &Scheduler::wokeFromSleep);
    QVERIFY2(m_scheduler->start(&error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 3, kRealIoTimeoutMs);

    m_clock->sleep(10 * 60 * 1000);
    QVERIFY(runFor(m_timer->dueMonotonicMs() - m_clock->monotonicMs()));
    QCOMPARE(woke.size(), 1);
    QVERIFY(woke.first().first().toLongLong() >= 10 * 60 * 1000);
    QVERIFY(settle());

    checkInterruptedBySleep();
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(operation(QStringLiteral("get")).state, OperationState::Waiting);
    QCOMPARE(operation(QStringLiteral("keyed")).state, OperationState::Waiting);
}

// docs/offline.md: back online, the worker's concurrency ramps from a tenth of its
// permits to all of them over a minute. 30 jobs to /hang (never answered, so each
// exchange keeps its permit) and 6 permits: 1 at first, 3 half-way, 6 after the minute.
void tst_DemoIntegration::backOnlineRampsUp()
{
    const QString url = demoUrl(QStringLiteral("/hang?key=ramp"));
    const QByteArray json = R"({"version": 1, "concurrency": {"max_in_flight": 6, "per_host": 6},
        "endpoints": [{"id": "ramp", "url": ")" +
                            url.toUtf8() + R"(", "enqueue_only": true, "timeout_seconds": 3600}]})";
    QVERIFY(makeScheduler(json, QStringLiteral("ramp.json")));
    QString error;
    const QString host = m_demo->baseUrl().host();
    for (int i = 0; i < 30; ++i)
        QVERIFY(m_store->createOperation(QStringLiteral("ramp"), QStringLiteral("job-%1").arg(i),
                                         kStart, learnedPolicyId(host), {}, 1, host));
    QSignalSpy received(m_demo.get(), &DemoServer::requestReceived);
    m_scheduler->noteSystemReachable(false);
    QVERIFY2(m_scheduler->start(&error), qPrintable(error));
    m_scheduler->noteSystemReachable(true);
    // The exchanges never end, so the clock is moved by hand, a second at a time, and
    // the event loop turned until what was sent has arrived.
    const auto runSeconds = [this](int seconds) {
        for (int i = 0; i < seconds; ++i) {
            m_clock->advance(1000);
            m_timer->fireIfDue();
            QCoreApplication::processEvents();
        }
    };
    const auto arrived = [&](int expected) {
        QTRY_COMPARE_WITH_TIMEOUT(m_scheduler->inFlight(), expected, kRealIoTimeoutMs);
        QTRY_COMPARE_WITH_TIMEOUT(int(received.size()), expected, kRealIoTimeoutMs);
    };
    runSeconds(1);
    arrived(1);
    runSeconds(29);
    arrived(3);
    runSeconds(31);
    arrived(6);
    runSeconds(30);
    QCOMPARE(m_scheduler->inFlight(), 6);
    QCOMPARE(int(received.size()), 6);
}

#ifdef COOLDOWN_HAVE_LOGIND
// docs/offline.md: logind's PrepareForSleep, from a stand-in on a private bus, wired as
// EngineSession wires it. The word alone (no clock moved) ends what is in flight as
// interrupted and lets the delay lock go; nothing is sent until the wake, though retries
// come due meanwhile; after two hours asleep the periodic check runs once, the keyed POST
// and the GET go again, and the POST without a key is never sent again.
void tst_DemoIntegration::logindSaysItSleeps()
{
    PrivateBus bus;
    QVERIFY2(!bus.address().isEmpty(), qPrintable(bus.error()));
    FakeLogind logind;
    QVERIFY(logind.serve(bus.connect(QStringLiteral("logind"))));
    LogindSleep watcher(bus.connect(QStringLiteral("engine")));
    QTRY_VERIFY(watcher.holdsDelayLock());

    // Answered after 1.5 s of real time: long enough to be in flight when the word comes.
    const auto slow = [this](const char *key) {
        return demoUrl(QStringLiteral("/slow?delay_ms=1500&key=%1").arg(QLatin1String(key)));
    };
    const QByteArray endpoints =
        endpoint(QStringLiteral("get"), slow("get")) + "," +
        endpoint(QStringLiteral("keyed"), slow("keyed"), "POST", true) + "," +
        endpoint(QStringLiteral("unkeyed"), slow("unkeyed"), "POST", false) + "," +
        R"({"id": "tick", "url": ")" + demoUrl(QStringLiteral("/ok?key=tick")).toUtf8() +
        R"(", "every_seconds": 600})";
    QSignalSpy received(m_demo.get(), &DemoServer::requestReceived);
    // A day's deadline: the two hours asleep count against it, as wall-clock time does.
    const QByteArray json = R"({"version": 1, "retry_profiles": {"default": {"max_attempts": 6,
        "base_seconds": 1, "cap_seconds": 8, "deadline_seconds": 86400}}, "endpoints": [)" +
                            endpoints + "]}";
    QVERIFY(makeScheduler(json, QStringLiteral("logind.json")));
    QString error;
    connect(&watcher, &LogindSleep::goingToSleep, m_scheduler.get(), &Scheduler::prepareForSleep);
    connect(&watcher, &LogindSleep::wokeUp, m_scheduler.get(), &Scheduler::resumeFromSleep);
    connect(m_scheduler.get(), &Scheduler::readyForSleep, &watcher, &LogindSleep::readyForSleep);
    QVERIFY2(m_scheduler->start(&error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 4, kRealIoTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(demoRequests(QStringLiteral("tick")), 1, kRealIoTimeoutMs);
    QCOMPARE(m_scheduler->inFlight(), 3);

    logind.sendPrepareForSleep(true);
    QTRY_COMPARE_WITH_TIMEOUT(logind.locksHeld(), 0, kRealIoTimeoutMs);
    QVERIFY(settle());
    checkInterruptedBySleep();
    if (QTest::currentTestFailed())
        return;

    // The machine takes its time to sleep: the retries come due, and none goes.
    QVERIFY(runFor(50'000));
    QCOMPARE(received.size(), 4);
    QCOMPARE(operation(QStringLiteral("get")).state, OperationState::Waiting);

    // The demo API ran the two POSTs all the same (a server does not know its client
    // left): the keyed one is replayed when it comes again, the other must not come.
    QTRY_COMPARE_WITH_TIMEOUT(m_demo->stats().executedByKey.value(QStringLiteral("keyed")), 1,
                              kRealIoTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(m_demo->stats().executedByKey.value(QStringLiteral("unkeyed")), 1,
                              kRealIoTimeoutMs);
    m_clock->sleep(2 * 60 * 60 * 1000);
    QSignalSpy woke(m_scheduler.get(), &Scheduler::wokeFromSleep);
    logind.sendPrepareForSleep(false);
    QTRY_COMPARE_WITH_TIMEOUT(woke.size(), 1, kRealIoTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(logind.locksHeld(), 1, kRealIoTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 7, kRealIoTimeoutMs);
    QVERIFY(settle());
    QVERIFY(runFor(60'000));
    // Twelve ticks were missed; one ran.
    QCOMPARE(demoRequests(QStringLiteral("tick")), 2);
    QCOMPARE(demoRequests(QStringLiteral("get")), 2);
    QCOMPARE(demoRequests(QStringLiteral("keyed")), 2);
    QCOMPARE(demoRequests(QStringLiteral("unkeyed")), 1);
    QCOMPARE(m_demo->stats().executedByKey.value(QStringLiteral("keyed")), 1);
    QCOMPARE(m_demo->stats().executedByKey.value(QStringLiteral("unkeyed")), 1);
    QCOMPARE(operation(QStringLiteral("get")).state, OperationState::Succeeded);
    QCOMPARE(operation(QStringLiteral("keyed")).state, OperationState::Succeeded);
    QCOMPARE(operation(QStringLiteral("unkeyed")).state, OperationState::Parked);
}
#endif

QTEST_GUILESS_MAIN(tst_DemoIntegration)
#include "tst_demo_integration.moc"
