// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/http/StructuredFields.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ReadableEnums.h"
#include "support/ScriptedHttpServer.h"
#include "support/SettleScheduler.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {
const qint64 kStart = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();
}

class tst_Scheduler : public QObject
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
    QString m_dbPath;
    bool m_standby = false; // SchedulerOptions::standbyClaims for startWith

    QByteArray endpoint(const QString &id, const QString &path, const QByteArray &extra = {})
    {
        return QStringLiteral(R"({"id": "%1", "url": "%2")").arg(id, m_server->url(path)).toUtf8() +
               extra + "}";
    }

    // count endpoints prefix0, prefix1, ... on the same path.
    QByteArray endpoints(int count, const char *prefix, const char *path,
                         const QByteArray &extra = {})
    {
        QByteArray list;
        for (int i = 0; i < count; ++i)
            list += (i ? "," : "") +
                    endpoint(QStringLiteral("%1%2").arg(QLatin1String(prefix)).arg(i), path, extra);
        return list;
    }

    bool startWith(const QByteArray &endpoints, const QByteArray &top = {},
                   qint64 commitDelayMs = 0, qint64 claimAheadMs = 0, qint64 sendGatherMs = 0)
    {
        const QByteArray json = R"({"version": 1, )" + top + R"("endpoints": [)" + endpoints + "]}";
        QString error;
        auto config =
            WorkspaceConfig::parse(json, "test.json", &error, {}, QHash<QString, QString>{});
        if (!config) {
            qWarning() << error;
            return false;
        }
        m_store = Store::open(m_dbPath, &error);
        if (!m_store) {
            qWarning() << error;
            return false;
        }
        m_transport = std::make_unique<Transport>(*m_clock);
        SchedulerOptions options;
        options.workerId = QStringLiteral("test-worker");
        options.leaseMs = 60000;
        options.commitDelayMs = commitDelayMs;
        options.claimAheadMs = claimAheadMs;
        options.sendGatherMs = sendGatherMs;
        options.standbyClaims = m_standby;
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, options);
        if (!m_scheduler->start(&error)) {
            qWarning() << error;
            return false;
        }
        return settle();
    }

    // Bounded: false if the exchanges do not end within 10 s.
    bool settle() { return settleScheduler(*m_scheduler, 10000); }

    // Moves the manual clock in steps, firing the one timer whenever it is due.
    bool advance(qint64 ms, qint64 stepMs = 100)
    {
        return advanceScheduler(*m_scheduler, *m_clock, *m_timer, ms, stepMs);
    }

    // Operations of endpointId due these many ms after t0, keyed by them, in that
    // order; the scheduler is told of the first. Empty if the store failed.
    QList<qint64> addDue(const QString &endpointId, qint64 t0,
                         std::initializer_list<qint64> offsetsMs)
    {
        QList<qint64> ids;
        for (const qint64 due : offsetsMs) {
            const auto id = m_store->createOperation(endpointId, QString::number(due), t0 + due);
            if (!id)
                return {};
            ids.append(*id);
        }
        m_scheduler->workAdded(t0 + *offsetsMs.begin());
        return ids;
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
        m_dbPath = m_dir.filePath(QStringLiteral("sched-%1.db").arg(++m_dbCounter));
        m_standby = false;
    }
    void cleanup()
    {
        m_scheduler.reset();
        m_transport.reset();
        m_store.reset();
        m_server.reset();
    }

    void waitsForRetryAfterThenSucceeds();
    void wallClockJumpDoesNotFireEarly();
    void sleepMakesWhatCameDueDueNow();
    void missedTicksRunOnceAfterSleep_data();
    void missedTicksRunOnceAfterSleep();
    void wallClockStepBackDoesNotStrand();
    void theSystemSaysDisconnected();
    void goingToSleepWithoutAWakeGoesOnByItself();
    void anIdleWorkerProbesByItself();
    void aLeaseRescuedWhileAsleepIsNotSent();
    void aRefusedProbeIsTheNetworkThere();
    void postWithoutKeyParks();
    void keyedPostKeepsItsKey();
    void handedInKeyIsAStructuredString();
    void globalLimitHolds();
    void standbyTakesOverAnEndingAttemptsPermit();
    void standbyWithNoPermitLeftGoesBack();
    void inFlightPeaksAreStored();
    void quietAttemptsAreWrittenTogether();
    void periodicTicksDoNotStack();
    void claimedAheadStartsOnTime();
    void heldWorkGoesOutTogether();
    void quotaStatedWhileHeldAheadHandsItBack();
    void bucketPacesThePartition();
    void slowPartitionDoesNotStarveOthers();
    void throttleHoldsThePartition();
    void liftingAHoldReleasesThePartition();
    void liftingAnotherWorkersHold();
    void rescuesAnExpiredLease();
    void rescuedPostWithoutKeyParks();
    void operatorRetryAndCancel();
    void operatorCancel();
    void idleAndStop();
};

void tst_Scheduler::waitsForRetryAfterThenSucceeds()
{
    m_server->script("/x", {{429, {{"Retry-After", "120"}}, {}}, {200, {}, "ok"}});
    QVERIFY(startWith(endpoint("x", "/x")));
    QCOMPARE(m_server->received.size(), 1);
    OperationRecord op = latest("x");
    QCOMPARE(op.state, OperationState::Waiting);
    QVERIFY(op.nextAttemptAtMs >= kStart + 120000 && op.nextAttemptAtMs <= kStart + 121000);
    QCOMPARE(op.waitSource, WaitSource::RetryAfter);
    QCOMPARE(op.attempt, 1);

    QVERIFY(advance(119900));
    QCOMPARE(m_server->received.size(), 1); // never before the server's time
    QVERIFY(advance(1200));
    QCOMPARE(m_server->received.size(), 2);
    op = latest("x");
    QCOMPARE(op.state, OperationState::Succeeded);
    QCOMPARE(op.attempt, 2);
    QCOMPARE(op.throttledAttempts, 1);
    const QList<AttemptRecord> attempts = m_store->attempts({});
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts[0].status, 429);
    QCOMPARE(attempts[0].decision, Decision::Retry);
    QCOMPARE(attempts[0].retryAfterRaw, QStringLiteral("120"));
    QCOMPARE(attempts[1].status, 200);
    QCOMPARE(attempts[1].decision, Decision::Success);
}

void tst_Scheduler::wallClockJumpDoesNotFireEarly()
{
    m_server->script("/x", {{503, {{"Retry-After", "300"}}, {}}, {200, {}, "ok"}});
    QVERIFY(startWith(endpoint("x", "/x")));
    QCOMPARE(latest("x").state, OperationState::Waiting);
    m_clock->jumpWall(3600 * 1000); // NTP step or an operator: an hour ahead
    QVERIFY(advance(10000));
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(advance(291000));
    QCOMPARE(m_server->received.size(), 2);
    QCOMPARE(latest("x").state, OperationState::Succeeded);
}

// docs/offline.md: unlike a wall-clock step, a suspend lets real time pass. A retry
// whose server time (300 s) ran out while the machine slept for 400 s goes out at the
// first wake after it, not 300 s of monotonic time later.
void tst_Scheduler::sleepMakesWhatCameDueDueNow()
{
    m_server->script("/x", {{503, {{"Retry-After", "300"}}, {}}, {200, {}, "ok"}});
    QVERIFY(startWith(endpoint("x", "/x")));
    QCOMPARE(latest("x").state, OperationState::Waiting);
    m_clock->sleep(400 * 1000);
    QVERIFY(advance(5000));
    QCOMPARE(m_server->received.size(), 2);
    QCOMPARE(latest("x").state, OperationState::Succeeded);
}

void tst_Scheduler::missedTicksRunOnceAfterSleep_data()
{
    QTest::addColumn<QByteArray>("catchUp");
    QTest::addColumn<int>("afterWake"); // exchanges in the first 5 s after waking
    QTest::newRow("one (default)") << QByteArray() << 1;
    QTest::newRow("one") << QByteArray(R"(, "catch_up": "one")") << 1;
    QTest::newRow("none") << QByteArray(R"(, "catch_up": "none")") << 0;
}

void tst_Scheduler::missedTicksRunOnceAfterSleep()
{
    QFETCH(QByteArray, catchUp);
    QFETCH(int, afterWake);
    QVERIFY(startWith(endpoint("t", "/t", R"(, "every_seconds": 60)" + catchUp)));
    QCOMPARE(m_server->received.size(), 1);
    // Two hours asleep: 120 ticks missed.
    m_clock->sleep(2 * 3600 * 1000);
    QVERIFY(advance(5000, 1000));
    QCOMPARE(m_server->received.size(), 1 + afterWake);
    // Either way the next tick runs on the schedule, once.
    QVERIFY(advance(60000, 1000));
    QCOMPARE(m_server->received.size(), 2 + afterWake);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), 2 + afterWake);
}

// docs/offline.md: an operation claimed before the machine said it would sleep, whose
// time came meanwhile, waits with its permits; another worker rescued it while this
// machine slept (its lease ran out), so at the wake it is let go, not sent.
void tst_Scheduler::aLeaseRescuedWhileAsleepIsNotSent()
{
    // Ticks are made and claimed 200 ms ahead, and held until their time.
    QVERIFY(startWith(endpoint("t", "/t", R"(, "every_seconds": 10)"), {}, 0, 200, 0));
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(advance(9900, 100));
    QCOMPARE(m_server->received.size(), 1);
    m_scheduler->prepareForSleep();
    QVERIFY(advance(1000, 100));
    QVERIFY(settle());
    QCOMPARE(m_server->received.size(), 1);
    {
        QSqlDatabase peek = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), "rescue");
        peek.setDatabaseName(m_dbPath);
        QVERIFY(peek.open());
        QSqlQuery query(peek);
        QVERIFY(query.exec(QStringLiteral("UPDATE operations SET lease_owner = 'other-worker', "
                                          "version = version + 1 WHERE state = 'running'")));
        QCOMPARE(query.numRowsAffected(), 1);
    }
    QSqlDatabase::removeDatabase(QStringLiteral("rescue"));
    m_scheduler->resumeFromSleep();
    QVERIFY(advance(1000, 100));
    QVERIFY(settle());
    QCOMPARE(m_server->received.size(), 1);
    QCOMPARE(m_scheduler->inFlight(), 0);
}

// docs/offline.md: offline with nothing due for ten minutes, the worker learns that the
// network is back by a probe of its own, a TCP connection to the endpoint's host that
// sends no request; a host that refuses counts too. Back online, the due check goes.
void tst_Scheduler::anIdleWorkerProbesByItself()
{
    QVERIFY(startWith(endpoint("t", "/t", R"(, "every_seconds": 600)")));
    QCOMPARE(m_server->received.size(), 1);
    QSignalSpy online(m_scheduler.get(), &Scheduler::cameOnline);
    m_scheduler->noteSystemReachable(false);
    QVERIFY(m_scheduler->offlineSinceMs() >= 0);
    // Nothing is due for ten minutes; the probe time comes after five seconds.
    QVERIFY(advance(4000, 1000));
    QVERIFY(settle());
    QCOMPARE(online.size(), 0);
    QVERIFY(advance(2000, 500));
    QTRY_COMPARE(online.size(), 1);
    QCOMPARE(m_scheduler->offlineSinceMs(), qint64(-1));
    QCOMPARE(m_server->received.size(), 1); // a connection, no request
    QVERIFY(advance(600'000, 10'000));
    QCOMPARE(m_server->received.size(), 2);
}

// A probe to a port nobody listens on is refused: the network is there all the same.
void tst_Scheduler::aRefusedProbeIsTheNetworkThere()
{
    QTcpServer closed;
    QVERIFY(closed.listen(QHostAddress::LocalHost));
    const quint16 port = closed.serverPort();
    closed.close();
    const QByteArray e = QStringLiteral(R"({"id": "t", "url": "http://127.0.0.1:%1/t", )"
                                        R"("every_seconds": 600})")
                             .arg(port)
                             .toUtf8();
    QVERIFY(startWith(e));
    QSignalSpy online(m_scheduler.get(), &Scheduler::cameOnline);
    m_scheduler->noteSystemReachable(false);
    QVERIFY(advance(6000, 500));
    QTRY_COMPARE(online.size(), 1);
}

// docs/offline.md: logind said the machine would sleep (prepareForSleep) and then said
// nothing more. Ticks come due and none goes; a minute of monotonic time later (which a
// machine asleep does not run) the engine believes it is awake and goes on. Said again,
// it holds again; resumeFromSleep sends at once.
void tst_Scheduler::goingToSleepWithoutAWakeGoesOnByItself()
{
    QVERIFY(startWith(endpoint("t", "/t", R"(, "every_seconds": 10)")));
    QCOMPARE(m_server->received.size(), 1);
    m_scheduler->prepareForSleep();
    QVERIFY(advance(Scheduler::kGoingToSleepForMs - 1000, 1000));
    QVERIFY(settle());
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(advance(2000, 500));
    QCOMPARE(m_server->received.size(), 2);
    QVERIFY(advance(10000, 1000));
    QCOMPARE(m_server->received.size(), 3);

    m_scheduler->prepareForSleep();
    QVERIFY(advance(30000, 1000));
    QVERIFY(settle());
    QCOMPARE(m_server->received.size(), 3);
    m_scheduler->resumeFromSleep();
    QVERIFY(advance(5000, 100));
    QCOMPARE(m_server->received.size(), 4);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), 4);
}

// docs/offline.md: what the system says of the network (SystemReachability) is believed
// at once: disconnected holds the work without an exchange spent to learn it, a probe
// that reaches a server outweighs it, and reachable again sends at once.
void tst_Scheduler::theSystemSaysDisconnected()
{
    QVERIFY(startWith(endpoint("t", "/t", R"(, "every_seconds": 1)")));
    QCOMPARE(m_server->received.size(), 1);
    QSignalSpy offline(m_scheduler.get(), &Scheduler::wentOffline);
    QSignalSpy online(m_scheduler.get(), &Scheduler::cameOnline);
    m_scheduler->noteSystemReachable(false);
    QCOMPARE(offline.size(), 1);
    QCOMPARE(m_scheduler->offlineSinceMs(), m_clock->nowMs());
    // Four ticks come and go unsent.
    QVERIFY(advance(4900));
    QCOMPARE(m_server->received.size(), 1);
    // The probe 5 s on reaches the server: online, whatever the system said.
    QVERIFY(advance(1000));
    QCOMPARE(m_server->received.size(), 2);
    QCOMPARE(online.size(), 1);
    QCOMPARE(m_scheduler->offlineSinceMs(), qint64(-1));
    // Disconnected again, then reachable after two seconds: sending resumes then.
    m_scheduler->noteSystemReachable(false);
    QVERIFY(advance(2000));
    const qsizetype held = m_server->received.size();
    m_scheduler->noteSystemReachable(true);
    QCOMPARE(online.size(), 2);
    QVERIFY(advance(1000));
    QVERIFY2(m_server->received.size() > held, qPrintable(QString::number(held)));
}

void tst_Scheduler::wallClockStepBackDoesNotStrand()
{
    m_server->script("/x", {{503, {{"Retry-After", "300"}}, {}}, {200, {}, "ok"}});
    QVERIFY(startWith(endpoint("x", "/x")));
    QCOMPARE(latest("x").state, OperationState::Waiting);
    m_clock->jumpWall(-3600 * 1000); // the wall clock is stepped an hour back
    QVERIFY(advance(290000, 1000));
    QCOMPARE(m_server->received.size(), 1); // not early
    QVERIFY(advance(12000, 500));
    QCOMPARE(m_server->received.size(), 2); // and not an hour late
    QCOMPARE(latest("x").state, OperationState::Succeeded);
}

void tst_Scheduler::postWithoutKeyParks()
{
    m_server->script("/p", {{503, {{"Retry-After", "5"}}, {}}});
    QVERIFY(startWith(endpoint("p", "/p", R"(, "method": "POST", "body": "x")")));
    QCOMPARE(latest("p").state, OperationState::Parked);
    QCOMPARE(latest("p").finalReason, QStringLiteral("not_idempotent"));
    QVERIFY(advance(60000, 1000));
    QCOMPARE(m_server->received.size(), 1);
}

void tst_Scheduler::keyedPostKeepsItsKey()
{
    m_server->script("/p", {{503, {{"Retry-After", "5"}}, {}}, {201, {}, {}}});
    QVERIFY(startWith(endpoint(
        "p", "/p",
        R"(, "method": "POST", "body": "{\"a\":1}", "idempotency": {"header": "Idempotency-Key"})")));
    QCOMPARE(latest("p").state, OperationState::Waiting);
    QVERIFY(advance(7000));
    QCOMPARE(m_server->received.size(), 2);
    const QByteArray key = m_server->received[0].header("Idempotency-Key");
    QVERIFY(key.startsWith('"') && key.endsWith('"') && key.size() == 38);
    QCOMPARE(m_server->received[1].header("Idempotency-Key"), key);
    QCOMPARE(m_server->received[1].body, QByteArray("{\"a\":1}"));
    QCOMPARE(latest("p").state, OperationState::Succeeded);
    QCOMPARE('"' + latest("p").idempotencyKey.toLatin1() + '"', key);
}

void tst_Scheduler::handedInKeyIsAStructuredString()
{
    // A job's own key may hold any visible ASCII: quotes and backslashes are escaped,
    // as RFC 9651 §4.1.6 writes an sf-string, not sent as they are.
    QVERIFY(startWith(endpoint(
        "j", "/j",
        R"(, "method": "POST", "enqueue_only": true, "idempotency": {"header": "Idempotency-Key"})")));
    QCOMPARE(m_server->received.size(), 0);
    const QString key = QStringLiteral("bom \"7\" \\ rev");
    QVERIFY(m_store->createOperation("j", key, m_clock->nowMs(), learnedPolicyId("127.0.0.1"), {},
                                     1, "127.0.0.1"));
    QVERIFY(advance(5000)); // the next look at the store (pollMs) finds it
    QCOMPARE(m_server->received.size(), 1);
    const QByteArray sent = m_server->received[0].header("Idempotency-Key");
    QCOMPARE(sent, QByteArray("\"bom \\\"7\\\" \\\\ rev\""));
    const auto parsed = StructuredFields::parseItem(sent);
    QVERIFY(parsed);
    QCOMPARE(QString::fromLatin1(parsed->value.toBytes()), key);
}

void tst_Scheduler::globalLimitHolds()
{
    m_server->script("/h", {{200, {}, {}, true}});
    const QByteArray json =
        R"({"version": 1, "concurrency": {"max_in_flight": 2}, "endpoints": [)" +
        endpoints(5, "h", "/h", R"(, "timeout_seconds": 0.5)") + "]}";
    QString error;
    auto config = WorkspaceConfig::parse(json, "t.json", &error, {}, QHash<QString, QString>{});
    QVERIFY2(config, qPrintable(error));
    m_store = Store::open(m_dbPath, &error);
    m_transport = std::make_unique<Transport>(*m_clock);
    m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport, *m_clock,
                                              *m_random, *m_timer);
    QVERIFY(m_scheduler->start(&error));
    // Sample the exchanges really open at the transport, on every event-loop turn.
    int maxOpen = 0;
    QElapsedTimer t;
    t.start();
    while (m_server->received.size() < 4 && t.elapsed() < 10000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        maxOpen = std::max(maxOpen, m_transport->inFlight());
        if (m_scheduler->inFlight() == 0) {
            // The first two timed out (real time); their retries back off (manual time).
            m_clock->advance(500);
            m_timer->fireIfDue();
        }
    }
    QVERIFY(m_server->received.size() >= 4);
    QCOMPARE(maxOpen, 2);
    QVERIFY(m_scheduler->inFlight() <= 2);
}

void tst_Scheduler::standbyTakesOverAnEndingAttemptsPermit()
{
    // Two permits for the fleet. The first claim takes two operations with them and
    // two more on standby; as the first two attempts end (they time out), the two on
    // standby go out in their place at once, and the records that end those attempts
    // hand the permits over. The fleet's count of permits, as any worker's claim reads
    // it, never drops below what is in flight, nor rises above two.
    m_server->script("/s", {{200, {}, {}, true}});
    const QByteArray json =
        R"({"version": 1, "concurrency": {"max_in_flight": 2, "per_host": 2}, "endpoints": [)" +
        endpoints(4, "s", "/s", R"(, "timeout_seconds": 0.3)") + "]}";
    QString error;
    auto config = WorkspaceConfig::parse(json, "t.json", &error, {}, QHash<QString, QString>{});
    QVERIFY2(config, qPrintable(error));
    m_store = Store::open(m_dbPath, &error);
    QVERIFY2(m_store, qPrintable(error));
    m_transport = std::make_unique<Transport>(*m_clock);
    SchedulerOptions options;
    options.workerId = QStringLiteral("test-worker");
    options.commitDelayMs = SchedulerOptions::kBatchedCommitMs;
    options.standbyClaims = true;
    m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport, *m_clock,
                                              *m_random, *m_timer, options);
    QVERIFY(m_scheduler->start(&error));
    qint64 mostOnStandby = 0;
    int maxOpen = 0;
    QElapsedTimer t;
    t.start();
    while (m_store->countAttempts({}) < 4 && t.elapsed() < 10000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        const int open = m_transport->inFlight();
        maxOpen = std::max(maxOpen, open);
        qint64 permits = 0;
        for (const WorkerLeases &w : m_store->workers()) {
            permits += w.running - w.onStandby;
            mostOnStandby = std::max(mostOnStandby, w.onStandby);
        }
        QVERIFY2(
            permits >= open && permits <= 2,
            qPrintable(QStringLiteral("%1 permits held with %2 in flight").arg(permits).arg(open)));
        if (m_scheduler->inFlight() == 0) {
            // The records of the last two wait for the group commit (manual time).
            m_clock->advance(10);
            m_timer->fireIfDue();
        }
    }
    QCOMPARE(m_store->countAttempts({}), qint64(4));
    QCOMPARE(m_server->received.size(), 4);
    QCOMPARE(maxOpen, 2);
    QCOMPARE(mostOnStandby, qint64(2));
    // All four timed out and wait for their retries, their permits given back.
    QCOMPARE(m_store->countsByState().value(OperationState::Waiting), qint64(4));
    QVERIFY(m_store->workers().isEmpty());
}

void tst_Scheduler::standbyWithNoPermitLeftGoesBack()
{
    // One permit. The claim at +10 takes the operation due then, with the permit, and
    // the one due at +30 ahead of its time, on standby. The first one's attempt ends
    // while the second waits for its time, so nothing takes its permit over; at +30
    // the one on standby, with no permit of this worker left to wait for, goes back to
    // the store, is claimed again with the permit, and runs.
    m_standby = true;
    QVERIFY(startWith(endpoint("s", "/s"),
                      R"("concurrency": {"max_in_flight": 1, "per_host": 1}, )", 0, 50, 0));
    QCOMPARE(m_server->received.size(), 1); // the run-once operation
    const QList<qint64> ids = addDue(QStringLiteral("s"), m_clock->nowMs(), {10, 30});
    QCOMPARE(ids.size(), qsizetype(2));
    QVERIFY(settle());
    QVERIFY(advance(10, 1));
    QCOMPARE(m_server->received.size(), 2);
    {
        QSqlDatabase peek = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), "peek");
        peek.setDatabaseName(m_dbPath);
        QVERIFY(peek.open());
        QSqlQuery query(peek);
        QVERIFY(
            query.exec(QStringLiteral("SELECT state, holds_permit FROM operations WHERE id = %1")
                           .arg(ids.at(1))));
        QVERIFY(query.next());
        QCOMPARE(query.value(0).toString(), QStringLiteral("running"));
        QCOMPARE(query.value(1).toInt(), 0);
    }
    QSqlDatabase::removeDatabase(QStringLiteral("peek"));
    QVERIFY(advance(30, 1));
    QCOMPARE(m_server->received.size(), 3);
    QVERIFY(advance(100, 10)); // the records wait for a group commit
    QCOMPARE(m_store->operation(ids.at(0))->state, OperationState::Succeeded);
    QCOMPARE(m_store->operation(ids.at(1))->state, OperationState::Succeeded);
    QVERIFY(m_store->workers().isEmpty());
}

void tst_Scheduler::inFlightPeaksAreStored()
{
    // Three exchanges that time out, two at a time: the minute's stored peak is two,
    // written with the attempts, so a window opened later still draws it.
    m_server->script("/h", {{200, {}, {}, true}});
    QVERIFY(startWith(endpoints(3, "h", "/h", R"(, "timeout_seconds": 0.3)"),
                      R"("concurrency": {"max_in_flight": 2}, )"));
    QCOMPARE(m_store->countAttempts({}), qint64(3));
    const qint64 minute = kStart - kStart % 60000;
    const auto peaks = m_store->inFlightPeaks(minute - 60000, minute + 120000);
    QVERIFY2(peaks, qPrintable(m_store->lastError()));
    QCOMPARE(peaks->size(), qsizetype(1));
    QCOMPARE(peaks->first().minuteAtMs, minute);
    QCOMPARE(peaks->first().peak, 2);
}

void tst_Scheduler::quietAttemptsAreWrittenTogether()
{
    // Three checks that end while nothing else is due: their records wait for the
    // commit delay on the manual clock and are then written in one transaction.
    m_server->script("/q", {{200, {}, {}}});
    QVERIFY(startWith(endpoints(3, "q", "/q"), {}, 50));
    QSignalSpy written(m_scheduler.get(), &Scheduler::attemptsWritten);
    QCOMPARE(m_server->received.size(), 3);
    // All three ended; none is written, and none is claimed again meanwhile.
    QCOMPARE(written.size(), 0);
    QCOMPARE(m_store->countAttempts({}), qint64(0));
    QCOMPARE(m_store->countsByState().value(OperationState::Running), qint64(3));
    QVERIFY(!m_scheduler->isIdle());
    // One millisecond short of the delay: still held.
    m_clock->advance(49);
    m_timer->fireIfDue();
    QCOMPARE(written.size(), 0);
    m_clock->advance(1);
    QVERIFY(m_timer->fireIfDue());
    QCOMPARE(written.size(), 1);
    QCOMPARE(written.first().first().toInt(), 3);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), qint64(3));

    // A stop writes what is held at once.
    QVERIFY(
        m_store->createOperation(QStringLiteral("q0"), QStringLiteral("again"), m_clock->nowMs()));
    m_scheduler->workAdded(m_clock->nowMs());
    QVERIFY(settle());
    QCOMPARE(written.size(), 1);
    QSignalSpy stopped(m_scheduler.get(), &Scheduler::stopped);
    m_scheduler->stop();
    QVERIFY(stopped.wait(5000));
    QCOMPARE(written.size(), 2);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), qint64(4));
}

void tst_Scheduler::periodicTicksDoNotStack()
{
    m_server->script("/t", {{429, {{"Retry-After", "60"}}, {}}, {200, {}, {}}});
    QVERIFY(startWith(endpoint("t", "/t", R"(, "every_seconds": 10)")));
    const qint64 first = latest("t").id;
    QVERIFY(advance(35000, 1000));
    QCOMPARE(latest("t").id, first); // the unfinished operation blocks new ticks
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(advance(27000, 1000)); // retry at ~61 s succeeds, then ticks resume
    QCOMPARE(m_store->operation(first)->state, OperationState::Succeeded);
    QVERIFY(advance(10000, 1000));
    QVERIFY(latest("t").id != first);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), 2);
}

void tst_Scheduler::claimedAheadStartsOnTime()
{
    // `cooldown run`'s settings: a tick is made and claimed up to 50 ms before it
    // comes, held, and sent at its time, neither before nor a batch later.
    QVERIFY(startWith(endpoint("t", "/t", R"(, "every_seconds": 10)"), {},
                      SchedulerOptions::kBatchedCommitMs, 50));
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(advance(9940, 10));
    QCOMPARE(latest("t").state, OperationState::Succeeded); // nothing made yet
    QVERIFY(advance(10, 10));
    const OperationRecord held = latest("t");
    QCOMPARE(held.state, OperationState::Running);
    QCOMPARE(held.nextAttemptAtMs, kStart + 10000);
    QVERIFY(advance(50, 1));
    QCOMPARE(m_server->received.size(), 1);
    // The clocks are read in whole milliseconds: it goes one after its time.
    QVERIFY(advance(1, 1));
    QCOMPARE(m_server->received.size(), 2);
    QVERIFY(advance(100, 10)); // the record waits for a group commit, then is written
    const QList<AttemptRecord> attempts = m_store->attempts({});
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.at(1).startedAtMs - kStart, 10001);
    QCOMPARE(m_store->operation(held.id)->state, OperationState::Succeeded);

    // A claim made for what is due takes one-shot work due within the horizon too, and
    // holds it the same way.
    const qint64 t0 = m_clock->nowMs();
    const auto first = m_store->createOperation(QStringLiteral("t"), QStringLiteral("a"), t0 + 30);
    const auto second = m_store->createOperation(QStringLiteral("t"), QStringLiteral("b"), t0 + 60);
    QVERIFY(first && second);
    m_scheduler->workAdded(t0 + 30);
    QVERIFY(settle());
    QCOMPARE(m_store->operation(*first)->state, OperationState::Scheduled);
    QVERIFY(advance(29, 1));
    QCOMPARE(m_server->received.size(), 2);
    QVERIFY(advance(1, 1));
    QCOMPARE(m_server->received.size(), 3);
    QCOMPARE(m_store->operation(*second)->state, OperationState::Running);
    QVERIFY(advance(30, 1));
    QCOMPARE(m_server->received.size(), 3);
    QVERIFY(advance(1, 1));
    QCOMPARE(m_server->received.size(), 4);
}

void tst_Scheduler::heldWorkGoesOutTogether()
{
    // `cooldown run`'s settings: work held for its time waits up to 20 ms for other held
    // work whose time comes within them, and all of it goes out in one wake; alone, it
    // goes at its time. Never before its time, never more than 20 ms after.
    const SchedulerOptions run = SchedulerOptions::batched();
    QCOMPARE(run.sendGatherMs, 20);
    QVERIFY(
        startWith(endpoint("t", "/t"), {}, run.commitDelayMs, run.claimAheadMs, run.sendGatherMs));
    QCOMPARE(m_server->received.size(), 1); // the run-once operation
    QVERIFY(advance(200, 10));

    const qint64 t0 = m_clock->nowMs();
    const QList<qint64> ids = addDue(QStringLiteral("t"), t0, {10, 23, 31, 45, 90});
    QCOMPARE(ids.size(), qsizetype(5));
    QVERIFY(settle());
    // Due at +10: claimed then, with the three due within the 50 ms after it, and sent
    // at once, at its time.
    QVERIFY(advance(10, 1));
    QCOMPARE(m_server->received.size(), 2);
    for (const qint64 id : ids.mid(1, 3))
        QCOMPARE(m_store->operation(id)->state, OperationState::Running);
    // Held until +24 and +32 (the clocks are read in whole milliseconds): the first
    // waits for the second, which comes within 20 ms of it, and both go at +32.
    QVERIFY(advance(21, 1));
    QCOMPARE(m_server->received.size(), 2);
    QVERIFY(advance(1, 1));
    QCOMPARE(m_server->received.size(), 4);
    // Held until +46, with nothing else within 20 ms of it: at its time.
    QVERIFY(advance(13, 1));
    QCOMPARE(m_server->received.size(), 4);
    QVERIFY(advance(1, 1));
    QCOMPARE(m_server->received.size(), 5);
    // Due at +90, claimed at its time as nothing else is held: sent then.
    QVERIFY(advance(44, 1));
    QCOMPARE(m_server->received.size(), 6);

    QVERIFY(advance(200, 10)); // the records wait for a group commit
    const QList<AttemptRecord> attempts = m_store->attempts({});
    QCOMPARE(attempts.size(), 6);
    QHash<qint64, qint64> startedAt;
    for (const AttemptRecord &a : attempts)
        startedAt.insert(a.operationId, a.startedAtMs - t0);
    QCOMPARE(startedAt.value(ids.at(0)), 10);
    QCOMPARE(startedAt.value(ids.at(1)), 32);
    QCOMPARE(startedAt.value(ids.at(2)), 32);
    QCOMPARE(startedAt.value(ids.at(3)), 46);
    QVERIFY(startedAt.value(ids.at(4)) >= 90 && startedAt.value(ids.at(4)) <= 91);
}

void tst_Scheduler::quotaStatedWhileHeldAheadHandsItBack()
{
    // Work is claimed ahead only from lanes nothing paces. An answer that states the
    // server's quota for such a lane while work of it is held ahead sends that work
    // back to the store, whose claim then paces it by what the server said, instead
    // of it going out at its time whatever the server said.
    const QList<QPair<QByteArray, QByteArray>> spent = {
        {"RateLimit-Policy", R"("window";q=2;w=10)"}, {"RateLimit", R"("window";r=0;t=10)"}};
    m_server->script("/q", {{200, {}, "ok"}, {200, spent, "ok"}});
    QVERIFY(startWith(endpoint("q", "/q"), {}, SchedulerOptions::kBatchedCommitMs, 50));
    QCOMPARE(m_server->received.size(), 1); // the run-once operation; no quota stated
    QVERIFY(advance(200, 10));

    const qint64 t0 = m_clock->nowMs();
    // As the engine makes them: in the host's partition, learned from its answers.
    const QString lane = learnedPolicyId(QStringLiteral("127.0.0.1"));
    const auto first = m_store->createOperation(QStringLiteral("q"), QStringLiteral("a"), t0 + 10,
                                                lane, {}, 1, QStringLiteral("127.0.0.1"));
    const auto second = m_store->createOperation(QStringLiteral("q"), QStringLiteral("b"), t0 + 40,
                                                 lane, {}, 1, QStringLiteral("127.0.0.1"));
    QVERIFY(first && second);
    m_scheduler->workAdded(t0 + 10);
    // At its time the first is claimed, and the second with it, 30 ms ahead; the
    // first's answer spends the server's window.
    QVERIFY(advance(10, 1));
    QCOMPARE(m_server->received.size(), 2);
    const OperationRecord handedBack = *m_store->operation(*second);
    QCOMPARE(handedBack.state, OperationState::Scheduled);
    QCOMPARE(handedBack.nextAttemptAtMs, t0 + 40);
    QCOMPARE(handedBack.attempt, 0);
    QVERIFY(advance(9000, 10));
    QCOMPARE(m_server->received.size(), 2); // not at its time: the window is spent
    QVERIFY(advance(2000, 10));
    QCOMPARE(m_server->received.size(), 3); // once the server's window has reset
    QVERIFY(advance(100, 10));
    QCOMPARE(m_store->operation(*second)->state, OperationState::Succeeded);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), 3);
}

void tst_Scheduler::bucketPacesThePartition()
{
    // 2 requests per 60 s, burst 1: after the first, one every 30 s.
    const QByteArray policy =
        R"("policies": [{"policy_id": "p", "partition": "project", "quota_unit": "request",
        "limit": 2, "window_seconds": 60, "burst": 1, "policy_version": 1}], )";
    QVERIFY(
        startWith(endpoints(4, "b", "/b", R"(, "policy": "p", "partition_key": "k1")"), policy));
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(advance(29000, 1000));
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(advance(1100));
    QCOMPARE(m_server->received.size(), 2);
    QVERIFY(advance(60000, 1000));
    QCOMPARE(m_server->received.size(), 4);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), 4);
}

void tst_Scheduler::slowPartitionDoesNotStarveOthers()
{
    // One request a minute for "slow"; its waiting operations go back to the store
    // with the time their token comes, instead of sitting on claims.
    const QByteArray policy =
        R"("policies": [{"policy_id": "p", "partition": "project", "quota_unit": "request",
        "limit": 1, "window_seconds": 60, "burst": 0, "policy_version": 1}], )";
    const QByteArray list =
        endpoints(12, "s", "/slow", R"(, "policy": "p", "partition_key": "slow")") + "," +
        endpoint("fast", "/fast", R"(, "every_seconds": 1)");
    const QByteArray json = R"({"version": 1, "concurrency": {"max_in_flight": 4}, )" + policy +
                            R"("endpoints": [)" + list + "]}";
    QString error;
    auto config = WorkspaceConfig::parse(json, "t.json", &error, {}, QHash<QString, QString>{});
    QVERIFY2(config, qPrintable(error));
    m_store = Store::open(m_dbPath, &error);
    m_transport = std::make_unique<Transport>(*m_clock);
    m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport, *m_clock,
                                              *m_random, *m_timer);
    QVERIFY(m_scheduler->start(&error));
    QVERIFY(settle());
    QVERIFY(advance(10000, 500));
    int slow = 0, fast = 0;
    for (const auto &r : std::as_const(m_server->received))
        (r.path == "/slow" ? slow : fast)++;
    QCOMPARE(slow, 1);
    QVERIFY2(fast >= 9, qPrintable(QString::number(fast)));
    // Nothing of the slow partition sits claimed: it waits in the store for its token,
    // which the partition's row says is a minute after the first send.
    QCOMPARE(m_store->countsByState().value(OperationState::Running), 0);
    // The periodic endpoint has no policy: its host's learned partition, with no quota
    // learned, is the other row.
    auto partitions = m_store->partitions(m_clock->nowMs()).value();
    QCOMPARE(partitions.size(), 2);
    QVERIFY(partitions.first().isLearned());
    QCOMPARE(partitions.first().policyId, QStringLiteral("learned:127.0.0.1"));
    QCOMPARE(partitions.first().server.quota, 0);
    partitions.removeFirst();
    QCOMPARE(partitions.first().partitionKey, QStringLiteral("slow"));
    QCOMPARE(partitions.first().availableUnits, 0);
    QCOMPARE(partitions.first().due, 11);
    QVERIFY(partitions.first().nextTokenAtMs > m_clock->nowMs());
}

void tst_Scheduler::throttleHoldsThePartition()
{
    const QByteArray policy =
        R"("policies": [{"policy_id": "p", "partition": "project", "quota_unit": "request",
        "limit": 100, "window_seconds": 60, "burst": 100, "policy_version": 1}], )";
    m_server->script("/first", {{429, {{"Retry-After", "30"}}, {}}, {200, {}, {}}});
    const QByteArray endpoints =
        endpoint("first", "/first", R"(, "policy": "p", "partition_key": "k1")") + "," +
        endpoint("other", "/other",
                 R"(, "policy": "p", "partition_key": "k1", "every_seconds": 5)");
    QVERIFY(startWith(endpoints, policy));
    // The partition is held until the server's time: "other" does not go meanwhile.
    QCOMPARE(m_scheduler->holds().size(), 1);
    QCOMPARE(m_scheduler->holds().first().partitionKey, QStringLiteral("k1"));
    QVERIFY(advance(25000, 1000));
    int otherDuringHold = 0;
    for (const auto &r : std::as_const(m_server->received))
        otherDuringHold += r.path == "/other";
    QVERIFY(otherDuringHold <= 1); // at most the one sent before the 429 arrived
    QVERIFY(advance(10000, 1000));
    QCOMPARE(latest("first").state, OperationState::Succeeded);
    QVERIFY(m_scheduler->holds().isEmpty());
}

void tst_Scheduler::liftingAHoldReleasesThePartition()
{
    const QByteArray policy =
        R"("policies": [{"policy_id": "p", "partition": "project", "quota_unit": "request",
        "limit": 100, "window_seconds": 60, "burst": 100, "policy_version": 1}], )";
    m_server->script("/first", {{429, {{"Retry-After", "300"}}, {}}, {200, {}, {}}});
    const QByteArray endpoints =
        endpoint("first", "/first", R"(, "policy": "p", "partition_key": "k1")") + "," +
        endpoint("other", "/other",
                 R"(, "policy": "p", "partition_key": "k1", "every_seconds": 5)");
    QVERIFY(startWith(endpoints, policy));
    QCOMPARE(m_scheduler->holds().size(), 1);
    QSignalSpy released(m_scheduler.get(), &Scheduler::partitionReleased);
    auto otherRequests = [this] {
        int n = 0;
        for (const auto &r : std::as_const(m_server->received))
            n += r.path == "/other";
        return n;
    };
    QVERIFY(advance(20000, 1000));
    const int before = otherRequests();
    QVERIFY(before <= 1);
    m_scheduler->liftHold("p", "k1");
    QVERIFY(settle());
    QCOMPARE(released.count(), 1);
    QVERIFY(m_scheduler->holds().isEmpty());
    QCOMPARE(otherRequests(), before + 1);
    // The throttled operation itself still waits for its own server time.
    QCOMPARE(latest("first").state, OperationState::Waiting);
}

void tst_Scheduler::liftingAnotherWorkersHold()
{
    const QByteArray policy =
        R"("policies": [{"policy_id": "p", "partition": "project", "quota_unit": "request",
        "limit": 100, "window_seconds": 60, "burst": 100, "policy_version": 1}], )";
    QVERIFY(startWith(endpoint("other", "/other",
                               R"(, "policy": "p", "partition_key": "k1", "every_seconds": 5)"),
                      policy));
    auto otherRequests = [this] {
        int n = 0;
        for (const auto &r : std::as_const(m_server->received))
            n += r.path == "/other";
        return n;
    };
    // Another worker was told to wait five minutes: only the database knows.
    QVERIFY(m_store->snoozePartition("p", "k1", m_clock->nowMs() + 300000,
                                     "429 retry-after 300 s") >= 0);
    QVERIFY(advance(20000, 1000));
    const int before = otherRequests();
    QVERIFY(m_scheduler->holds().isEmpty());
    m_scheduler->liftHold("p", "k1");
    QVERIFY(settle());
    QCOMPARE(otherRequests(), before + 1);
    QCOMPARE(m_store->partitions(m_clock->nowMs()).value().first().heldUntilMs, 0);
}

void tst_Scheduler::rescuesAnExpiredLease()
{
    {
        QString error;
        auto store = Store::open(m_dbPath, &error);
        QVERIFY(store);
        QVERIFY(store->ensureOneShotOperation("r", "key-1", kStart));
        QCOMPARE(store->claims().claimDue("dead-worker", kStart, 5000, 10).size(), 1);
    }
    QVERIFY(startWith(endpoint("r", "/r")));
    QCOMPARE(m_server->received.size(), 0); // the lease is still held by the dead worker
    QCOMPARE(latest("r").state, OperationState::Running);
    QVERIFY(advance(6000, 500));
    QTRY_COMPARE_WITH_TIMEOUT(latest("r").state, OperationState::Succeeded, 5000);
    const QList<AttemptRecord> attempts = m_store->attempts({});
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts[0].error, QStringLiteral("worker_died"));
    QCOMPARE(attempts[0].decision, Decision::Retry);
    QCOMPARE(attempts[1].status, 200);
    QCOMPARE(m_server->received.size(), 1);
}

void tst_Scheduler::rescuedPostWithoutKeyParks()
{
    {
        QString error;
        auto store = Store::open(m_dbPath, &error);
        QVERIFY(store->ensureOneShotOperation("r", "key-1", kStart));
        QCOMPARE(store->claims().claimDue("dead-worker", kStart, 5000, 10).size(), 1);
    }
    QVERIFY(startWith(endpoint("r", "/r", R"(, "method": "POST", "body": "x")")));
    QVERIFY(advance(6000, 500));
    QCOMPARE(latest("r").state, OperationState::Parked);
    QCOMPARE(latest("r").finalReason, QStringLiteral("ambiguous_send"));
    QCOMPARE(m_server->received.size(), 0);
}

void tst_Scheduler::operatorRetryAndCancel()
{
    m_server->script("/p", {{503, {}, {}}, {200, {}, {}}});
    QVERIFY(startWith(endpoint("p", "/p", R"(, "method": "POST", "body": "x")") + "," +
                      endpoint("w", "/w", R"(, "every_seconds": 0)")));
    const OperationRecord parked = latest("p");
    QCOMPARE(parked.state, OperationState::Parked);
    QCOMPARE(m_scheduler->retryNow(parked.id, false), Store::OperatorResult::Done);
    QVERIFY(settle());
    QCOMPARE(latest("p").state, OperationState::Succeeded);
    QCOMPARE(m_server->received.size(), 3);
}

void tst_Scheduler::operatorCancel()
{
    m_server->script("/c", {{429, {{"Retry-After", "100"}}, {}}});
    QVERIFY(startWith(endpoint("c", "/c")));
    const OperationRecord waiting = latest("c");
    QCOMPARE(waiting.state, OperationState::Waiting);
    QCOMPARE(m_scheduler->cancel(waiting.id), Store::OperatorResult::Done);
    QVERIFY(advance(200000, 5000));
    QCOMPARE(latest("c").state, OperationState::Cancelled);
}

void tst_Scheduler::idleAndStop()
{
    m_server->script("/x", {{500, {}, {}}, {200, {}, {}}});
    QVERIFY(startWith(endpoint("x", "/x", R"(, "retry": "default")")));
    QSignalSpy idle(m_scheduler.get(), &Scheduler::idle);
    QVERIFY(!m_scheduler->isIdle());
    QVERIFY(advance(2000));
    QCOMPARE(latest("x").state, OperationState::Succeeded);
    QVERIFY(m_scheduler->isIdle());
    QCOMPARE(idle.count(), 1);
    QSignalSpy stopped(m_scheduler.get(), &Scheduler::stopped);
    m_scheduler->stop();
    QCOMPARE(stopped.count(), 1);
}

QTEST_GUILESS_MAIN(tst_Scheduler)
#include "tst_scheduler.moc"
