// SPDX-License-Identifier: Apache-2.0
// The scheduler with credentials (docs/credentials.md): a token fetched once for many
// operations, a stale token renewed on a 401 without an attempt spent, a token endpoint
// that is down holding the work instead of failing it, a refused client parking it with
// one alert. A manual clock and loopback servers.
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ReadableEnums.h"
#include "support/ScriptedHttpServer.h"
#include "support/SettleScheduler.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

const qint64 kStart = QDateTime(QDate(2026, 12, 5), QTime(9, 0), Qt::UTC).toMSecsSinceEpoch();
const QByteArray kSecret = "client-secret-that-must-stay-in-memory";

ScriptedResponse token(const QByteArray &value, int expiresIn = 3600)
{
    return {200,
            {{"Content-Type", "application/json"}},
            R"({"access_token":")" + value + R"(","token_type":"Bearer","expires_in":)" +
                QByteArray::number(expiresIn) + "}"};
}

ScriptedResponse invalidToken(const QByteArray &description = "The access token expired")
{
    return {
        401,
        {{"WWW-Authenticate", R"(Bearer realm="api", error="invalid_token", error_description=")" +
                                  description + "\""}},
        {}};
}

} // namespace

class tst_SchedulerCredentials : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ManualClock> m_clock;
    std::unique_ptr<SeededRandom> m_random;
    std::unique_ptr<ManualWakeTimer> m_timer;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<Scheduler> m_scheduler;
    std::unique_ptr<ScriptedHttpServer> m_server;
    int m_dbCounter = 0;

    // count one-shot endpoints e0, e1, ... on path, each with credentials "plm".
    QByteArray endpoints(int count, const char *path)
    {
        QByteArray list;
        for (int i = 0; i < count; ++i)
            list += (i ? "," : "") +
                    QStringLiteral(R"({"id": "e%1", "url": "%2", "credentials": "plm"})")
                        .arg(i)
                        .arg(m_server->url(QLatin1String(path)))
                        .toUtf8();
        return list;
    }

    QByteArray oauth(const QByteArray &extra = {}) const
    {
        return QStringLiteral(
                   R"("credentials": [{"id": "plm", "type": "oauth2_client_credentials", )"
                   R"("token_url": "%1", "client_id": "cooldown", )"
                   R"("client_secret": "${env:PLM_SECRET}", "scope": "bom.write"%2}],)")
            .arg(m_server->url(QStringLiteral("/token")), QString::fromUtf8(extra))
            .toUtf8();
    }

    // settle: wait for what the start sends; false leaves the test to drive it.
    bool startWith(const QByteArray &top, const QByteArray &endpoints, bool settleAfter = true)
    {
        const QByteArray json = R"({"version": 1, )" + top + R"("endpoints": [)" + endpoints + "]}";
        QString error;
        auto config = WorkspaceConfig::parse(
            json, QStringLiteral("test.json"), &error, {},
            QHash<QString, QString>{{QStringLiteral("PLM_SECRET"), QString::fromUtf8(kSecret)},
                                    {QStringLiteral("API_TOKEN"), QStringLiteral("static-tok")}});
        if (!config) {
            qWarning() << error;
            return false;
        }
        m_store = Store::open(m_dir.filePath(QStringLiteral("c-%1.db").arg(++m_dbCounter)), &error);
        if (!m_store) {
            qWarning() << error;
            return false;
        }
        m_transport = std::make_unique<Transport>(*m_clock);
        SchedulerOptions options;
        options.workerId = QStringLiteral("test-worker");
        options.leaseMs = 60000;
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, options);
        if (!m_scheduler->start(&error)) {
            qWarning() << error;
            return false;
        }
        return !settleAfter || settle();
    }

    bool settle() { return settleScheduler(*m_scheduler, 10000); }

    bool advance(qint64 ms, qint64 stepMs = 100)
    {
        return advanceScheduler(*m_scheduler, *m_clock, *m_timer, ms, stepMs);
    }

    QList<ReceivedRequest> requestsTo(const QByteArray &path) const
    {
        QList<ReceivedRequest> out;
        for (const ReceivedRequest &r : m_server->received) {
            if (r.path == path)
                out.append(r);
        }
        return out;
    }

    OperationRecord latest(const QString &endpointId)
    {
        return m_store->latestOperation(endpointId).value();
    }

private slots:
    void init()
    {
        m_clock = std::make_unique<ManualClock>(kStart);
        m_random = std::make_unique<SeededRandom>(7);
        m_timer = std::make_unique<ManualWakeTimer>(*m_clock);
        m_server = std::make_unique<ScriptedHttpServer>();
    }

    void cleanup()
    {
        m_scheduler.reset();
        m_transport.reset();
        m_store.reset();
    }

    void oneTokenServesEveryOperation()
    {
        m_server->script("/token", {token("tok-1")});
        QVERIFY(startWith(oauth(), endpoints(5, "/api")));
        QCOMPARE(requestsTo("/token").size(), 1);
        const auto api = requestsTo("/api");
        QCOMPARE(api.size(), 5);
        for (const ReceivedRequest &r : api)
            QCOMPARE(r.header("Authorization"), QByteArray("Bearer tok-1"));
        for (int i = 0; i < 5; ++i)
            QCOMPARE(latest(QStringLiteral("e%1").arg(i)).state, OperationState::Succeeded);
        const QList<CredentialState> states = m_scheduler->credentialStates();
        QCOMPARE(states.size(), 1);
        QCOMPARE(int(states.first().phase), int(CredentialState::Phase::Valid));
    }

    void staleTokenIsRenewedWithoutAnAttempt()
    {
        // POST with no idempotency key: a 401 was not executed, so sending it again
        // with a new token is safe, and is no attempt against max_attempts.
        m_server->script("/token", {token("tok-1"), token("tok-2")});
        m_server->script("/api", {invalidToken(), {200, {}, "ok"}});
        QVERIFY(startWith(oauth(), QStringLiteral(R"({"id": "e0", "method": "POST", "body": "{}", )"
                                                  R"("url": "%1", "credentials": "plm"})")
                                       .arg(m_server->url(QStringLiteral("/api")))
                                       .toUtf8()));
        // Token requests start a second apart: the new token comes a second later.
        QCOMPARE(requestsTo("/token").size(), 1);
        QVERIFY(advance(1'000));
        QCOMPARE(requestsTo("/token").size(), 2);
        const auto api = requestsTo("/api");
        QCOMPARE(api.size(), 2);
        QCOMPARE(api.at(0).header("Authorization"), QByteArray("Bearer tok-1"));
        QCOMPARE(api.at(1).header("Authorization"), QByteArray("Bearer tok-2"));
        const OperationRecord op = latest(QStringLiteral("e0"));
        QCOMPARE(op.state, OperationState::Succeeded);
        QCOMPARE(op.attempt, 1);
        AttemptFilter filter;
        filter.endpointId = QStringLiteral("e0");
        const QList<AttemptRecord> attempts = m_store->attempts(filter);
        QCOMPARE(attempts.size(), 1);
        QCOMPARE(attempts.first().status, 200);
        // The token never reaches the record.
        QVERIFY2(!attempts.first().requestHeaders.contains(QLatin1String("tok-2")),
                 qPrintable(attempts.first().requestHeaders));
    }

    void aSecondRefusalIsAnAuthFailure()
    {
        m_server->script("/token", {token("tok-1"), token("tok-2"), token("tok-3")});
        m_server->script("/api", {invalidToken("audience mismatch")});
        QVERIFY(startWith(oauth(), endpoints(1, "/api")));
        QVERIFY(advance(1'000));
        QCOMPARE(requestsTo("/token").size(), 2);
        QCOMPARE(requestsTo("/api").size(), 2);
        const OperationRecord op = latest(QStringLiteral("e0"));
        QCOMPARE(op.state, OperationState::Failed);
        QCOMPARE(op.finalReason, QStringLiteral("auth_failed"));
        AttemptFilter filter;
        filter.endpointId = QStringLiteral("e0");
        const QList<AttemptRecord> attempts = m_store->attempts(filter);
        QCOMPARE(attempts.size(), 1);
        QVERIFY2(attempts.first().error.contains(QLatin1String("audience mismatch")),
                 qPrintable(attempts.first().error));
    }

    void plain401ToTheNewestTokenStands()
    {
        // No invalid_token, and the token is the newest and unexpired: the server
        // refuses this client, a renewal would not help.
        m_server->script("/token", {token("tok-1"), token("tok-2")});
        m_server->script("/api", {{401, {{"WWW-Authenticate", "Bearer"}}, {}}});
        QVERIFY(startWith(oauth(), endpoints(1, "/api")));
        QCOMPARE(requestsTo("/token").size(), 1);
        QCOMPARE(requestsTo("/api").size(), 1);
        QCOMPARE(latest(QStringLiteral("e0")).finalReason, QStringLiteral("auth_failed"));
    }

    void tokenEndpointDownHoldsTheWork()
    {
        m_server->script("/token", {{503, {{"Retry-After", "30"}}, {}}, token("tok-1")});
        QVERIFY(startWith(oauth(), endpoints(3, "/api")));
        QCOMPARE(requestsTo("/token").size(), 1);
        QCOMPARE(requestsTo("/api").size(), 0);
        for (int i = 0; i < 3; ++i) {
            const OperationRecord op = latest(QStringLiteral("e%1").arg(i));
            QVERIFY2(op.state == OperationState::Scheduled || op.state == OperationState::Waiting,
                     qPrintable(QString::fromLatin1(QTest::toString(op.state))));
            QCOMPARE(op.attempt, 0);
        }
        const CredentialState failing = m_scheduler->credentialStates().first();
        QCOMPARE(int(failing.phase), int(CredentialState::Phase::Failing));
        QCOMPARE(failing.failingSinceMs, kStart);
        QCOMPARE(failing.nextTryAtMs, kStart + 30000);
        // What `cooldown status` reads: the same, in the store.
        const auto rows = m_store->workerStates().credentials();
        QVERIFY(rows.has_value());
        QCOMPARE(rows->size(), 1);
        QCOMPARE(rows->first().workerId, QStringLiteral("test-worker"));
        QCOMPARE(rows->first().phase, QStringLiteral("failing"));
        QCOMPARE(rows->first().nextTryAtMs, kStart + 30000);
        QVERIFY2(rows->first().lastError.contains(QLatin1String("503")),
                 qPrintable(rows->first().lastError));

        QVERIFY(advance(29'000));
        QCOMPARE(requestsTo("/token").size(), 1);
        QVERIFY(advance(3'000));
        QCOMPARE(requestsTo("/token").size(), 2);
        const auto api = requestsTo("/api");
        QCOMPARE(api.size(), 3);
        for (const ReceivedRequest &r : api)
            QCOMPARE(r.header("Authorization"), QByteArray("Bearer tok-1"));
        for (int i = 0; i < 3; ++i) {
            const OperationRecord op = latest(QStringLiteral("e%1").arg(i));
            QCOMPARE(op.state, OperationState::Succeeded);
            QCOMPARE(op.attempt, 1);
        }
        QCOMPARE(m_store->workerStates().credentials()->first().phase, QStringLiteral("valid"));
        QCOMPARE(m_store->workerStates().credentials()->first().validUntilMs,
                 kStart + 30000 + 3600 * 1000);
        // A worker that stops leaves no state behind.
        m_scheduler->stop();
        QVERIFY(m_store->workerStates().credentials()->isEmpty());
    }

    void refusedClientParksWithOneAlert()
    {
        m_server->script(
            "/token",
            {{400, {{"Content-Type", "application/json"}}, R"({"error":"invalid_client"})"}});
        const QByteArray alerts =
            QStringLiteral(R"("alerts": [{"id": "ops", "url": "%1", )"
                           R"("events": ["credentials_refused", "operation_failed"]}],)")
                .arg(m_server->url(QStringLiteral("/alert")))
                .toUtf8();
        QVERIFY(startWith(oauth() + alerts, endpoints(4, "/api")));
        QVERIFY(advance(1'000));
        QCOMPARE(requestsTo("/token").size(), 1);
        QCOMPARE(requestsTo("/api").size(), 0);
        for (int i = 0; i < 4; ++i) {
            const OperationRecord op = latest(QStringLiteral("e%1").arg(i));
            QCOMPARE(op.state, OperationState::Parked);
            QCOMPARE(op.finalReason, QStringLiteral("credentials_refused"));
        }
        const auto alertsSent = requestsTo("/alert");
        QCOMPARE(alertsSent.size(), 1);
        QVERIFY2(alertsSent.first().body.contains("credentials_refused"), alertsSent.first().body);
        QVERIFY(!alertsSent.first().body.contains(kSecret));
        QCOMPARE(int(m_scheduler->credentialStates().first().phase),
                 int(CredentialState::Phase::Refused));
    }

    void headerCredentialIsRecordedRedactedWhateverItsName()
    {
        QVERIFY(startWith(R"("credentials": [{"id": "plm", "type": "header", )"
                          R"("name": "X-Customer-Code", "value": "${env:API_TOKEN}"}],)",
                          endpoints(1, "/api")));
        QCOMPARE(requestsTo("/api").first().header("X-Customer-Code"), QByteArray("static-tok"));
        AttemptFilter filter;
        filter.endpointId = QStringLiteral("e0");
        const QList<AttemptRecord> attempts = m_store->attempts(filter);
        QCOMPARE(attempts.size(), 1);
        QVERIFY2(
            attempts.first().requestHeaders.contains(QLatin1String("X-Customer-Code: [redacted]")),
            qPrintable(attempts.first().requestHeaders));
        QVERIFY(!attempts.first().requestHeaders.contains(QLatin1String("static-tok")));
    }

    void serverRefusingEveryTokenCostsOneRenewal()
    {
        // One at a time: each operation meets the token the one before it was refused with.
        m_server->script("/token", {token("tok-1"), token("tok-2"), token("tok-3"), token("tok-4"),
                                    token("tok-5")});
        m_server->script("/api", {invalidToken("wrong audience")});
        QVERIFY(startWith(R"("concurrency": {"max_in_flight": 1, "per_host": 1}, )" + oauth(),
                          endpoints(4, "/api")));
        for (int i = 0; i < 20 && m_scheduler->isIdle() == false; ++i)
            QVERIFY(advance(1'000));
        for (int i = 0; i < 4; ++i)
            QCOMPARE(latest(QStringLiteral("e%1").arg(i)).finalReason,
                     QStringLiteral("auth_failed"));
        // The first renewal showed the server refuses fresh tokens: the other operations
        // fail on their first 401 instead of renewing again.
        QCOMPARE(requestsTo("/token").size(), 2);
        QCOMPARE(requestsTo("/api").size(), 5);
    }

    void stuckTokenRequestDoesNotHoldTheClaims()
    {
        m_server->script("/token", {{0, {}, {}, true}}); // never answers
        QVERIFY(startWith(oauth(R"(, "timeout_seconds": 600)"), endpoints(3, "/api"), false));
        QTRY_COMPARE_WITH_TIMEOUT(requestsTo("/token").size(), 1, 10000);
        QCOMPARE(m_scheduler->waitingForCredentials(), 3);
        // A second on, they go back to the store; none failed, none spent an attempt.
        m_clock->advance(1'100);
        QVERIFY(m_timer->fireIfDue());
        QTRY_COMPARE_WITH_TIMEOUT(m_scheduler->waitingForCredentials(), 0, 10000);
        for (int i = 0; i < 3; ++i) {
            const OperationRecord op = latest(QStringLiteral("e%1").arg(i));
            QVERIFY2(op.state == OperationState::Scheduled || op.state == OperationState::Waiting,
                     qPrintable(QString::fromLatin1(QTest::toString(op.state))));
            QCOMPARE(op.attempt, 0);
        }
        QCOMPARE(requestsTo("/api").size(), 0);
    }

    void staticBearerIsSent()
    {
        QVERIFY(startWith(R"("credentials": [{"id": "plm", "type": "bearer", )"
                          R"("token": "${env:API_TOKEN}"}],)",
                          endpoints(2, "/api")));
        const auto api = requestsTo("/api");
        QCOMPARE(api.size(), 2);
        for (const ReceivedRequest &r : api)
            QCOMPARE(r.header("Authorization"), QByteArray("Bearer static-tok"));
        QVERIFY(requestsTo("/token").isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_SchedulerCredentials)
#include "tst_schedulercredentials.moc"
