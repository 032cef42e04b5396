// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ScriptedHttpServer.h"
#include "support/SettleScheduler.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {
const qint64 kStart = QDateTime(QDate(2026, 12, 1), QTime(9, 0), Qt::UTC).toMSecsSinceEpoch();
// Every operation of the endpoint is one attempt: a 404 fails it, a 200 ends it well.
const ScriptedResponse kNotFound{404, {}, {}};
const ScriptedResponse kOk{200, {}, "ok"};
} // namespace

// The automatic pause (pause_after_failures): a periodic endpoint runs one operation
// every 10 s on a manual clock against a loopback server that answers as scripted.
class tst_AutoPause : public QObject
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

    bool startWith(const QByteArray &endpointExtra, const QByteArray &top = {},
                   const QByteArray &schedule = R"(, "every_seconds": 10)")
    {
        const QByteArray json = R"({"version": 1, )" + top + R"("endpoints": [)" +
                                QStringLiteral(R"({"id": "upload", "url": "%1")")
                                    .arg(m_server->url(QStringLiteral("/upload")))
                                    .toUtf8() +
                                schedule + endpointExtra + "}]}";
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
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, options);
        if (!m_scheduler->start(&error)) {
            qWarning() << error;
            return false;
        }
        return settleScheduler(*m_scheduler, 10000);
    }

    void stopEngine()
    {
        m_scheduler.reset();
        m_transport.reset();
        m_store.reset();
    }

    // Moves the manual clock in steps, firing the one timer whenever it is due.
    bool advance(qint64 ms, qint64 stepMs = 1000)
    {
        return advanceScheduler(*m_scheduler, *m_clock, *m_timer, ms, stepMs);
    }

    // The operations after the first: one per 10 s.
    bool runOperations(int count) { return advance(qint64(count) * 10000); }

    bool paused() { return m_store->isEndpointPaused(QStringLiteral("upload")).value_or(false); }

private slots:
    void init()
    {
        m_clock = std::make_unique<ManualClock>(kStart);
        m_random = std::make_unique<SeededRandom>(7);
        m_timer = std::make_unique<ManualWakeTimer>(*m_clock);
        m_server = std::make_unique<ScriptedHttpServer>();
        m_dbPath = m_dir.filePath(QStringLiteral("autopause-%1.db").arg(++m_dbCounter));
    }
    void cleanup()
    {
        stopEngine();
        m_server.reset();
    }

    void pausesAfterFailuresInARow();
    void successInBetweenStartsTheCountOver();
    void resumeStartsTheCountOver();
    void countsAcrossRestarts();
    void workspaceDefault();
    void offByDefault();
    void pausedWorkLeavesTheEngineIdle();
};

void tst_AutoPause::pausesAfterFailuresInARow()
{
    m_server->script("/upload", {kNotFound});
    QVERIFY(startWith(R"(, "pause_after_failures": 3)"));
    QSignalSpy autoPaused(m_scheduler.get(), &Scheduler::endpointAutoPaused);
    QVERIFY(runOperations(1));
    QCOMPARE(m_server->received.size(), 2);
    QVERIFY(!paused());
    QVERIFY(autoPaused.isEmpty());

    QVERIFY(runOperations(1));
    QCOMPARE(m_server->received.size(), 3);
    QVERIFY(paused());
    QCOMPARE(autoPaused.size(), 1);
    QCOMPARE(autoPaused.at(0).at(0).toString(), QStringLiteral("upload"));
    QCOMPARE(autoPaused.at(0).at(1).toInt(), 3);
    // The audit says who paused it: the engine, not an operator.
    const auto audit = m_store->operatorActions();
    QVERIFY(audit);
    QCOMPARE(audit->size(), 1);
    QCOMPARE(audit->at(0).actor, QStringLiteral("automatic"));
    QCOMPARE(audit->at(0).workerId, QStringLiteral("test-worker"));
    QCOMPARE(audit->at(0).action, OperatorAction::Pause);
    QCOMPARE(audit->at(0).target, QStringLiteral("endpoints=upload"));
    QCOMPARE(audit->at(0).changed, 1);
    QCOMPARE(audit->at(0).atMs, kStart + 20000); // when the third failure was recorded

    // Paused: it runs nothing more, and the pause is reported once.
    QVERIFY(runOperations(5));
    QCOMPARE(m_server->received.size(), 3);
    QCOMPARE(autoPaused.size(), 1);
    QCOMPARE(m_store->countsByState().value(OperationState::Failed), 3);
}

void tst_AutoPause::successInBetweenStartsTheCountOver()
{
    m_server->script("/upload", {kNotFound, kNotFound, kOk, kNotFound, kNotFound, kNotFound});
    QVERIFY(startWith(R"(, "pause_after_failures": 3)"));
    QSignalSpy autoPaused(m_scheduler.get(), &Scheduler::endpointAutoPaused);
    QVERIFY(runOperations(4)); // fail, fail, ok, fail, fail
    QCOMPARE(m_server->received.size(), 5);
    QVERIFY(!paused());
    QVERIFY(autoPaused.isEmpty());

    QVERIFY(runOperations(1)); // the third failure since the success
    QCOMPARE(m_server->received.size(), 6);
    QVERIFY(paused());
    QCOMPARE(autoPaused.size(), 1);
}

void tst_AutoPause::resumeStartsTheCountOver()
{
    m_server->script("/upload", {kNotFound});
    QVERIFY(startWith(R"(, "pause_after_failures": 3)"));
    QSignalSpy autoPaused(m_scheduler.get(), &Scheduler::endpointAutoPaused);
    QVERIFY(runOperations(2));
    QVERIFY(paused());
    QVERIFY(runOperations(2)); // a paused endpoint does not run
    QCOMPARE(m_server->received.size(), 3);

    // One action resumes it; the three failures before do not count any more.
    QVERIFY(m_scheduler->setEndpointPaused(QStringLiteral("upload"), false));
    QVERIFY(settleScheduler(*m_scheduler, 10000));
    for (int s = 0; s < 15 && m_server->received.size() < 4; ++s)
        QVERIFY(advance(1000)); // its next tick
    QCOMPARE(m_server->received.size(), 4);
    QVERIFY(!paused());
    QVERIFY(runOperations(1));
    QCOMPARE(m_server->received.size(), 5);
    QVERIFY(!paused());
    QCOMPARE(autoPaused.size(), 1);

    QVERIFY(runOperations(1)); // three failures since the resume
    QCOMPARE(m_server->received.size(), 6);
    QVERIFY(paused());
    QCOMPARE(autoPaused.size(), 2);
}

void tst_AutoPause::countsAcrossRestarts()
{
    m_server->script("/upload", {kNotFound});
    QVERIFY(startWith(R"(, "pause_after_failures": 3)"));
    QVERIFY(runOperations(1));
    QCOMPARE(m_server->received.size(), 2);
    stopEngine();

    // Another run on the same database: the failures of the first one count.
    m_clock->advance(10000);
    QVERIFY(startWith(R"(, "pause_after_failures": 3)")); // its first operation fails
    QVERIFY(advance(1000));
    QCOMPARE(m_server->received.size(), 3);
    QVERIFY(paused());
}

void tst_AutoPause::workspaceDefault()
{
    m_server->script("/upload", {kNotFound});
    QVERIFY(startWith({}, R"("pause_after_failures": 2, )"));
    QVERIFY(!paused());
    QVERIFY(runOperations(1));
    QVERIFY(paused());

    // An endpoint's own value wins over the workspace's.
    stopEngine();
    m_dbPath = m_dir.filePath(QStringLiteral("autopause-own.db"));
    QVERIFY(startWith(R"(, "pause_after_failures": 4)", R"("pause_after_failures": 2, )"));
    QVERIFY(runOperations(2));
    QVERIFY(!paused());
    QVERIFY(runOperations(1));
    QVERIFY(paused());
}

void tst_AutoPause::offByDefault()
{
    m_server->script("/upload", {kNotFound});
    QVERIFY(startWith({}));
    QSignalSpy autoPaused(m_scheduler.get(), &Scheduler::endpointAutoPaused);
    QVERIFY(runOperations(9));
    QCOMPARE(m_server->received.size(), 10);
    QVERIFY(!paused());
    QVERIFY(autoPaused.isEmpty());
}

void tst_AutoPause::pausedWorkLeavesTheEngineIdle()
{
    // Jobs handed in one at a time: the third and fourth come after the pause.
    m_server->script("/upload", {kNotFound});
    QVERIFY(startWith(R"(, "pause_after_failures": 2)", {}, R"(, "enqueue_only": true)"));
    int jobs = 0;
    const auto enqueue = [&] {
        return m_store
            ->createOperation(QStringLiteral("upload"), QStringLiteral("job-%1").arg(++jobs),
                              m_clock->nowMs(), learnedPolicyId(QStringLiteral("127.0.0.1")), {}, 1,
                              QStringLiteral("127.0.0.1"))
            .has_value();
    };
    QVERIFY(enqueue());
    QVERIFY(advance(5000)); // the next look at the store finds it
    QCOMPARE(m_server->received.size(), 1);
    QVERIFY(enqueue());
    QVERIFY(advance(5000));
    QCOMPARE(m_server->received.size(), 2);
    QVERIFY(paused());
    QVERIFY(enqueue());
    QVERIFY(enqueue());
    QVERIFY(advance(5000));
    QCOMPARE(m_server->received.size(), 2);
    // What is left waits for an operator, not for the engine: `cooldown run
    // --until-idle` ends instead of waiting for ever.
    QVERIFY(m_scheduler->isIdle());

    QVERIFY(m_scheduler->setEndpointPaused(QStringLiteral("upload"), false));
    QVERIFY(!m_scheduler->isIdle());
    QVERIFY(advance(5000));
    QCOMPARE(m_server->received.size(), 4);
}

QTEST_GUILESS_MAIN(tst_AutoPause)
#include "tst_autopause.moc"
