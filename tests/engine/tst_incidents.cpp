// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ScriptedHttpServer.h"
#include "support/SettleScheduler.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

const qint64 kStart = QDateTime(QDate(2026, 12, 5), QTime(22, 0), Qt::UTC).toMSecsSinceEpoch();
constexpr int kWorkers = 4;
constexpr int kOnDownHost = 10;
constexpr int kOnOtherHost = 2;
constexpr qint64 kOutageMs = 10 * 60 * 1000;

// One worker: its own connection to the shared database, transport, timer and random
// source, on the test's one clock.
struct Worker
{
    std::unique_ptr<Store> store;
    std::unique_ptr<Transport> transport;
    std::unique_ptr<ManualWakeTimer> timer;
    std::unique_ptr<SeededRandom> random;
    std::unique_ptr<Scheduler> scheduler;
};

} // namespace

// Incidents (docs/incidents.md): ten endpoints on a host that goes down for ten minutes
// and two on a host that stays up, run by four workers on one database, on a manual
// clock against loopback servers (127.0.0.1 goes down; 127.0.0.2 stays up; the alert
// target listens on 127.0.0.3).
class tst_Incidents : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ManualClock> m_clock;
    std::vector<Worker> m_workers;
    std::unique_ptr<ScriptedHttpServer> m_down;
    std::unique_ptr<ScriptedHttpServer> m_up;
    std::unique_ptr<ScriptedHttpServer> m_alerts;
    quint16 m_downPort = 0;

    enum class Plm
    {
        OnTheDownHost,
        Dropped,         // on the host that stays up, whose handler for them reads each
                         // request and closes the connection unanswered
        BehindTheTokens, // on the host that stays up, with tokens from its /token
    };

    QByteArray workspace(Plm plm) const
    {
        QJsonArray endpoints;
        const QString down = QStringLiteral("http://127.0.0.1:%1").arg(m_downPort);
        for (int i = 0; i < kOnDownHost; ++i) {
            const QString path = QStringLiteral("/plm/%1").arg(i);
            QJsonObject e{{"id", QStringLiteral("plm-%1").arg(i)},
                          {"url", plm == Plm::OnTheDownHost ? down + path : m_up->url(path)}};
            if (plm == Plm::BehindTheTokens)
                e.insert("credentials", "idp");
            endpoints.append(e);
        }
        for (int i = 0; i < kOnOtherHost; ++i)
            endpoints.append(QJsonObject{{"id", QStringLiteral("crm-%1").arg(i)},
                                         {"url", m_up->url(QStringLiteral("/crm/%1").arg(i))}});
        const QJsonArray credentials{QJsonObject{{"id", "idp"},
                                                 {"type", "oauth2_client_credentials"},
                                                 {"token_url", m_up->url(QStringLiteral("/token"))},
                                                 {"client_id", "cooldown"},
                                                 {"client_secret", "${env:IDP_SECRET}"}}};
        const QJsonObject top{
            {"version", 1},
            {"credentials", credentials},
            {"pause_after_failures", 2},
            {"alerts", QJsonArray{QJsonObject{{"id", "ops"},
                                              {"url", m_alerts->url(QStringLiteral("/hook"))},
                                              {"events", QJsonArray{"incident", "operation_failed",
                                                                    "endpoint_paused"}}}}},
            {"endpoints", endpoints}};
        return QJsonDocument(top).toJson(QJsonDocument::Compact);
    }

    bool startWorkers(Plm plm = Plm::OnTheDownHost)
    {
        const QString dbPath =
            m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + ".db");
        for (int w = 0; w < kWorkers; ++w) {
            QString error;
            auto config = WorkspaceConfig::parse(workspace(plm), "test.json", &error, {},
                                                 QHash<QString, QString>{{"IDP_SECRET", "s3cret"}});
            if (!config) {
                qWarning() << error;
                return false;
            }
            Worker worker;
            worker.store = Store::open(dbPath, &error);
            if (!worker.store) {
                qWarning() << error;
                return false;
            }
            worker.transport = std::make_unique<Transport>(*m_clock);
            worker.timer = std::make_unique<ManualWakeTimer>(*m_clock);
            worker.random = std::make_unique<SeededRandom>(11 + w);
            SchedulerOptions options;
            options.workerId = QStringLiteral("worker-%1").arg(w);
            worker.scheduler =
                std::make_unique<Scheduler>(std::move(*config), *worker.store, *worker.transport,
                                            *m_clock, *worker.random, *worker.timer, options);
            if (!worker.scheduler->start(&error)) {
                qWarning() << error;
                return false;
            }
            m_workers.push_back(std::move(worker));
        }
        return settleAll();
    }

    bool settleAll()
    {
        for (const Worker &w : m_workers) {
            if (!settleScheduler(*w.scheduler, 10000))
                return false;
        }
        return true;
    }

    // Moves the clock by ms, stopping at each time a worker's timer is armed for and
    // firing every timer due then.
    bool runFor(qint64 ms)
    {
        const qint64 end = m_clock->monotonicMs() + ms;
        for (int turns = 0; turns < 100000; ++turns) {
            qint64 due = -1;
            for (const Worker &w : m_workers) {
                const qint64 d = w.timer->dueMonotonicMs();
                if (d >= 0 && (due < 0 || d < due))
                    due = d;
            }
            if (due < 0 || due > end) {
                m_clock->advance(end - m_clock->monotonicMs());
                return true;
            }
            if (due > m_clock->monotonicMs())
                m_clock->advance(due - m_clock->monotonicMs());
            bool fired = false;
            for (const Worker &w : m_workers)
                fired = w.timer->fireIfDue() || fired;
            if (fired && !settleAll())
                return false;
        }
        return false;
    }

    QList<QJsonObject> alertBodies() const
    {
        QList<QJsonObject> out;
        for (const ReceivedRequest &r : m_alerts->received)
            out.append(QJsonDocument::fromJson(r.body).object());
        return out;
    }

    bool allEnded(Store &store) const
    {
        const QList<OperationRecord> ops = store.operations({});
        return std::all_of(ops.cbegin(), ops.cend(),
                           [](const OperationRecord &op) { return isFinal(op.state); });
    }

private slots:
    void init()
    {
        m_clock = std::make_unique<ManualClock>(kStart);
        // The down host: a port that was just listened on and is refused from now on.
        m_down = std::make_unique<ScriptedHttpServer>();
        m_downPort = m_down->serverPort();
        m_down->close();
        m_up = std::make_unique<ScriptedHttpServer>(nullptr,
                                                    QHostAddress(QStringLiteral("127.0.0.2")));
        m_alerts = std::make_unique<ScriptedHttpServer>(nullptr,
                                                        QHostAddress(QStringLiteral("127.0.0.3")));
        QVERIFY(m_up->isListening());
        QVERIFY(m_alerts->isListening());
    }
    void cleanup()
    {
        m_workers.clear();
        m_down.reset();
        m_up.reset();
        m_alerts.reset();
    }

    void oneIncidentOneAlertOneRecovery();
    void aHostThatTakesTheRequestsOpensNone();
    void aDeadTokenEndpointIsOneIncident();
};

void tst_Incidents::oneIncidentOneAlertOneRecovery()
{
    QVERIFY(startWorkers());
    Store &store = *m_workers.front().store;

    // Ten minutes down.
    QVERIFY(runFor(kOutageMs));
    const auto open = store.incidents().list(true);
    QVERIFY(open);
    QCOMPARE(open->size(), 1);
    const IncidentRecord incident = open->first();
    QCOMPARE(incident.cause, QStringLiteral("host:127.0.0.1"));
    QStringList downIds;
    for (int i = 0; i < kOnDownHost; ++i)
        downIds.append(QStringLiteral("plm-%1").arg(i));
    std::sort(downIds.begin(), downIds.end());
    QCOMPARE(incident.endpointIds, downIds);
    // Every worker knows it, and blocks the same endpoints.
    for (const Worker &w : m_workers) {
        QCOMPARE(w.scheduler->openIncidents().size(), 1);
        QCOMPARE(w.scheduler->openIncidents().first().id, incident.id);
    }
    // The other host's endpoints ended well, untouched.
    for (int i = 0; i < kOnOtherHost; ++i) {
        OperationFilter filter;
        filter.endpointId = QStringLiteral("crm-%1").arg(i);
        const QList<OperationRecord> ops = store.operations(filter);
        QCOMPARE(ops.size(), 1);
        QCOMPARE(ops.first().state, OperationState::Succeeded);
    }
    // Nothing of the down host ended, nothing paused: the failures are held.
    for (const QString &id : std::as_const(downIds)) {
        OperationFilter filter;
        filter.endpointId = id;
        const QList<OperationRecord> ops = store.operations(filter);
        QCOMPARE(ops.size(), 1);
        QVERIFY2(!isFinal(ops.first().state), qPrintable(id));
        QVERIFY(ops.first().attempt < 6); // what max_attempts allows is not spent
        QCOMPARE(store.isEndpointPaused(id).value_or(true), false);
    }
    // Held failures look again every 30 to 40 s: at most one exchange per endpoint per
    // 30 s, plus the few before the incident opened.
    AttemptFilter refused;
    refused.statusMin = 0;
    refused.statusMax = 0;
    const qint64 tries = store.countAttempts(refused);
    QVERIFY2(tries <= kOnDownHost * (kOutageMs / 30000 + 4), qPrintable(QString::number(tries)));
    AttemptFilter blocked;
    blocked.decision = Decision::Retry;
    int blockedCount = 0;
    for (const AttemptRecord &a : store.attempts(blocked))
        blockedCount += a.reason == QLatin1String("blocked_by_incident") ? 1 : 0;
    QVERIFY(blockedCount >= kOnDownHost * (kOutageMs / 40000 - 2));

    // One alert, for all ten, from one of the four workers.
    QList<QJsonObject> alerts = alertBodies();
    QCOMPARE(alerts.size(), 1);
    QCOMPARE(alerts.first().value("event").toString(), QStringLiteral("incident"));
    QCOMPARE(alerts.first().value("cause").toString(), QStringLiteral("host:127.0.0.1"));
    QCOMPARE(alerts.first().value("endpoints").toArray().size(), kOnDownHost);
    QVERIFY(!alerts.first().contains("recovered"));

    // The host comes back: the first exchange that works clears it, everything ends.
    m_down = std::make_unique<ScriptedHttpServer>(nullptr, QHostAddress::LocalHost, m_downPort);
    QVERIFY(m_down->isListening());
    for (int minute = 0; minute < 5 && !allEnded(store); ++minute)
        QVERIFY(runFor(60000));
    QVERIFY(runFor(10000)); // the recovery's own exchange
    const QList<OperationRecord> ops = store.operations({});
    QCOMPARE(ops.size(), kOnDownHost + kOnOtherHost + 2); // and the two alerts
    for (const OperationRecord &op : ops)
        QCOMPARE(op.state, OperationState::Succeeded);
    QCOMPARE(m_down->received.size(), kOnDownHost); // each sent once it could be
    alerts = alertBodies();
    QCOMPARE(alerts.size(), 2);
    QCOMPARE(alerts.last().value("event").toString(), QStringLiteral("incident"));
    QCOMPARE(alerts.last().value("recovered").toBool(), true);
    QCOMPARE(alerts.last().value("incident_id").toInteger(), incident.id);
    const auto after = store.incidents().list(false, kStart);
    QVERIFY(after);
    QCOMPARE(after->size(), 1);
    QVERIFY(!after->first().isOpen());
    QVERIFY(after->first().alertedAtMs >= 0);
    for (const Worker &w : m_workers)
        QVERIFY(w.scheduler->openIncidents().isEmpty());
}

// Ten endpoints whose handler takes each request and drops the connection, on a host
// that answers two others: each endpoint fails by itself, as it did before incidents.
// Nothing is held, no incident opens, and every one spends its attempts and ends failed.
void tst_Incidents::aHostThatTakesTheRequestsOpensNone()
{
    for (int i = 0; i < kOnDownHost; ++i) {
        ScriptedResponse drop;
        drop.close = true;
        m_up->script(QStringLiteral("/plm/%1").arg(i).toUtf8(), {drop});
    }
    QVERIFY(startWorkers(Plm::Dropped));
    Store &store = *m_workers.front().store;
    for (int minute = 0; minute < 30 && !allEnded(store); ++minute)
        QVERIFY(runFor(60000));
    QVERIFY(allEnded(store));
    QCOMPARE(store.incidents().list(false, kStart).value_or(QList<IncidentRecord>{{}}).size(), 0);
    for (int i = 0; i < kOnDownHost; ++i) {
        OperationFilter filter;
        filter.endpointId = QStringLiteral("plm-%1").arg(i);
        const QList<OperationRecord> ops = store.operations(filter);
        QCOMPARE(ops.size(), 1);
        QCOMPARE(ops.first().state, OperationState::Failed);
        QCOMPARE(ops.first().finalReason, QStringLiteral("max_attempts"));
    }
    AttemptFilter all;
    for (const AttemptRecord &a : store.attempts(all))
        QVERIFY2(a.reason != QLatin1String("blocked_by_incident"), qPrintable(a.endpointId));
    for (const QJsonObject &alert : alertBodies())
        QVERIFY(alert.value("event").toString() != QLatin1String("incident"));
}

// Ten endpoints that need tokens from one identity provider, whose token endpoint fails
// for ten minutes on a host that answers everything else: none spends an attempt (they
// wait for credentials), one incident names the token endpoint and all ten, one alert
// goes for it and one recovery once a token comes.
void tst_Incidents::aDeadTokenEndpointIsOneIncident()
{
    m_up->script("/token", {{500, {}, "identity provider down"}});
    QVERIFY(startWorkers(Plm::BehindTheTokens));
    Store &store = *m_workers.front().store;
    QVERIFY(runFor(kOutageMs));
    const auto open = store.incidents().list(true);
    QVERIFY(open);
    QCOMPARE(open->size(), 1);
    const IncidentRecord incident = open->first();
    QCOMPARE(incident.cause, QStringLiteral("token:127.0.0.2:%1").arg(m_up->serverPort()));
    QCOMPARE(incident.endpointIds.size(), kOnDownHost);
    QVERIFY(incident.endpointIds.first().startsWith(QLatin1String("plm-")));
    for (const Worker &w : m_workers)
        QCOMPARE(w.scheduler->openIncidents().size(), 1);
    // Nothing was sent to the API without a token, nothing ended or paused.
    int apiRequests = 0;
    for (const ReceivedRequest &r : m_up->received)
        apiRequests += r.path.startsWith("/plm/") ? 1 : 0;
    QCOMPARE(apiRequests, 0);
    for (int i = 0; i < kOnDownHost; ++i) {
        OperationFilter filter;
        filter.endpointId = QStringLiteral("plm-%1").arg(i);
        const QList<OperationRecord> ops = store.operations(filter);
        QCOMPARE(ops.size(), 1);
        QVERIFY(!isFinal(ops.first().state));
        QCOMPARE(store.isEndpointPaused(filter.endpointId).value_or(true), false);
    }
    QList<QJsonObject> alerts = alertBodies();
    QCOMPARE(alerts.size(), 1);
    QCOMPARE(alerts.first().value("event").toString(), QStringLiteral("incident"));
    QCOMPARE(alerts.first().value("cause").toString(), incident.cause);
    QCOMPARE(alerts.first().value("endpoints").toArray().size(), kOnDownHost);

    // Tokens again: the incident clears with the first, everything goes out once.
    m_up->script("/token",
                 {{200,
                   {{"Content-Type", "application/json"}},
                   R"({"access_token": "t-1", "token_type": "Bearer", "expires_in": 3600})"}});
    for (int minute = 0; minute < 10 && !allEnded(store); ++minute)
        QVERIFY(runFor(60000));
    QVERIFY(runFor(10000)); // the recovery's own exchange
    QVERIFY(allEnded(store));
    for (const OperationRecord &op : store.operations({}))
        QCOMPARE(op.state, OperationState::Succeeded);
    alerts = alertBodies();
    QCOMPARE(alerts.size(), 2);
    QCOMPARE(alerts.last().value("recovered").toBool(), true);
    QCOMPARE(alerts.last().value("incident_id").toInteger(), incident.id);
    QCOMPARE(store.incidents().list(true).value_or(QList<IncidentRecord>{{}}).size(), 0);
}

QTEST_GUILESS_MAIN(tst_Incidents)
#include "tst_incidents.moc"
