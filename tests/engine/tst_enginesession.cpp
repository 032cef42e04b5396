// SPDX-License-Identifier: Apache-2.0
// The engine session (core/engine/EngineSession): the engine on a thread of its own,
// driven by queued calls, heard by signals on the caller's thread.

#include "core/engine/EngineSession.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "support/ScriptedHttpServer.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace cooldown;

class tst_EngineSession : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void openFailsWithTheDatabasesMessage();
    void engineRunsOnItsThreadAndSignalsArriveOnTheCallers();
    void operatorActionsAreAppliedInTheOrderGiven();
    void aBulkActionIsAppliedOnTheEngineAndAuditedOnce();
    void stateFollowsTheEngine();
    void applyWaitsForExchangesInFlightThenRunsTheNewWorkspace();
    void stopWinsOverAnApplyNotYetTakenEffect();

private:
    std::unique_ptr<EngineSession> open(const QByteArray &json, QString *error = nullptr);
    // A connection of the test's own to the session's database, to check what it wrote.
    std::unique_ptr<Store> readStore() const
    {
        QString error;
        std::unique_ptr<Store> store = Store::open(m_db, &error);
        if (!store)
            qFatal("%s", qPrintable(error));
        return store;
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ScriptedHttpServer> m_server;
    QString m_db;
};

void tst_EngineSession::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_db = m_dir->filePath(QStringLiteral("engine.db"));
    m_server = std::make_unique<ScriptedHttpServer>();
    QVERIFY(m_server->isListening());
}

void tst_EngineSession::cleanup()
{
    m_server.reset();
    m_dir.reset();
}

std::unique_ptr<EngineSession> tst_EngineSession::open(const QByteArray &json, QString *error)
{
    QString problem;
    QByteArray text = json;
    text.replace("BASE", m_server->url(QString()).toUtf8());
    auto config = WorkspaceConfig::parse(text, QStringLiteral("test.json"), &problem, {},
                                         QHash<QString, QString>{});
    if (!config) {
        qWarning("%s", qPrintable(problem));
        return nullptr;
    }
    auto session = EngineSession::open(std::move(*config), m_db, &problem);
    if (error)
        *error = problem;
    return session;
}

void tst_EngineSession::openFailsWithTheDatabasesMessage()
{
    m_db = m_dir->filePath(QStringLiteral("no-such-folder/engine.db"));
    QString error;
    auto session = open(R"({"version": 1, "endpoints": [
        { "id": "report", "method": "GET", "url": "BASE/ok", "timeout_seconds": 10 } ]})",
                        &error);
    QVERIFY(!session);
    QVERIFY2(error.contains(QStringLiteral("no-such-folder")), qPrintable(error));
}

void tst_EngineSession::engineRunsOnItsThreadAndSignalsArriveOnTheCallers()
{
    auto session = open(R"({"version": 1, "endpoints": [
        { "id": "report", "method": "GET", "url": "BASE/ok", "timeout_seconds": 10 } ]})");
    QVERIFY(session);
    QVERIFY(session->engineThread());
    QVERIFY(session->engineThread() != QThread::currentThread());
    QThread *heardOn = nullptr;
    connect(session.get(), &EngineSession::attemptRecorded, this,
            [&heardOn] { heardOn = QThread::currentThread(); });
    QSignalSpy attempts(session.get(), &EngineSession::attemptRecorded);
    QString error;
    QVERIFY2(session->start(&error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(attempts.count(), 1, 10000);
    QCOMPARE(heardOn, QThread::currentThread());
    QCOMPARE(attempts.at(0).at(0).value<AttemptRecord>().status, 200);
    QCOMPARE(m_server->received.size(), 1);

    // The calls that wait read through the engine's own connection.
    const std::optional<QMap<OperationState, qint64>> counts = session->operationCounts();
    QVERIFY(counts);
    QCOMPARE(counts->value(OperationState::Succeeded), 1);
    QCOMPARE(session->figures().openCounts.value(OperationState::Scheduled), 0);
}

// Cancel, then Retry now, of one operation due in an hour: in that order the retry is
// refused and nothing is sent; the other way round it would have been sent.
void tst_EngineSession::operatorActionsAreAppliedInTheOrderGiven()
{
    qint64 id = 0;
    {
        QString error;
        auto store = Store::open(m_db, &error);
        QVERIFY2(store, qPrintable(error));
        const auto created = store->createOperation(QStringLiteral("report"), QStringLiteral("k-1"),
                                                    SystemClock::instance().nowMs() + 3600000);
        QVERIFY(created);
        id = *created;
    }
    auto session = open(R"({"version": 1, "endpoints": [
        { "id": "report", "method": "GET", "url": "BASE/ok", "timeout_seconds": 10 } ]})");
    QVERIFY(session);
    QString error;
    QVERIFY2(session->start(&error), qPrintable(error));

    QStringList order;
    connect(session.get(), &EngineSession::cancelled, this,
            [&](const QList<qint64> &ids, const QList<Store::OperatorResult> &results) {
                QCOMPARE(ids, QList<qint64>{id});
                QCOMPARE(results, QList<Store::OperatorResult>{Store::OperatorResult::Done});
                order.append(QStringLiteral("cancel"));
            });
    connect(session.get(), &EngineSession::retried, this,
            [&](const QList<qint64> &ids, const QList<Store::OperatorResult> &results, bool force) {
                QCOMPARE(ids, QList<qint64>{id});
                QVERIFY(!force);
                QCOMPARE(results, QList<Store::OperatorResult>{Store::OperatorResult::Refused});
                order.append(QStringLiteral("retry"));
            });
    session->cancel({id});
    session->retryNow({id}, false);
    QTRY_COMPARE_WITH_TIMEOUT(order.size(), 2, 10000);
    QCOMPARE(order, (QStringList{QStringLiteral("cancel"), QStringLiteral("retry")}));

    OperationState state = OperationState::Scheduled;
    qsizetype attempts = -1;
    {
        const std::unique_ptr<Store> store = readStore();
        state = store->operation(id)->state;
        AttemptFilter filter;
        filter.operationId = id;
        attempts = store->attempts(filter).size();
    }
    QCOMPARE(state, OperationState::Cancelled);
    QCOMPARE(attempts, 0);

    // Each action is one audit row, by this operator on this worker.
    QList<AuditRecord> rows;
    rows = readStore()->operatorActions().value();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0].action, OperatorAction::Cancel);
    QCOMPARE(rows[0].changed, 1);
    QCOMPARE(rows[1].action, OperatorAction::Retry);
    QCOMPARE(rows[1].target, QStringLiteral("ids=%1").arg(id));
    QCOMPARE(rows[1].asked, 1);
    QCOMPARE(rows[1].changed, 0);
    QCOMPARE(rows[1].actor, session->operatorName());
    QCOMPARE(rows[1].workerId, session->workerId());
}

void tst_EngineSession::aBulkActionIsAppliedOnTheEngineAndAuditedOnce()
{
    {
        QString error;
        auto store = Store::open(m_db, &error);
        QVERIFY2(store, qPrintable(error));
        QList<Store::NewOperation> jobs;
        for (int i = 0; i < 30; ++i) {
            Store::NewOperation op;
            op.endpointId = QStringLiteral("jobs");
            op.idempotencyKey = QStringLiteral("k-%1").arg(i);
            op.requestHash = QStringLiteral("hash-%1").arg(i);
            op.dueAtMs = SystemClock::instance().nowMs() + 3'600'000;
            jobs.append(op);
        }
        QVERIFY(
            store->enqueue(jobs, SystemClock::instance().nowMs(), Store::IntakeMode::AllOrNothing));
    }
    auto session = open(R"({"version": 1, "endpoints": [
        { "id": "jobs", "method": "GET", "url": "BASE/ok", "enqueue_only": true } ]})");
    QVERIFY(session);
    session->setOperatorName(QStringLiteral("carol"));
    QString error;
    QVERIFY2(session->start(&error), qPrintable(error));
    QSignalSpy progress(session.get(), &EngineSession::bulkProgress);
    QSignalSpy finished(session.get(), &EngineSession::bulkFinished);
    OperationSelection selection;
    selection.endpointIds = {QStringLiteral("jobs")};
    session->applyToSelection(selection, OperatorAction::Retry);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    const auto outcome = finished.at(0).at(0).value<BulkOutcome>();
    QVERIFY(outcome.result == BulkOutcome::Result::Done);
    QCOMPARE(outcome.progress.changed, 30);
    QCOMPARE(progress.count(), 1);
    // Due now, and sent by the engine without waiting for its next timer.
    QTRY_COMPARE_WITH_TIMEOUT(m_server->received.size(), 30, 10000);
    QList<AuditRecord> rows;
    rows = readStore()->operatorActions().value();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows[0].actor, QStringLiteral("carol"));
    QCOMPARE(rows[0].target, QStringLiteral("endpoint=jobs"));
    QCOMPARE(rows[0].asked, 30);
    QCOMPARE(rows[0].changed, 30);
    QCOMPARE(finished.count(), 1); // once, however long the events ran since
}

void tst_EngineSession::stateFollowsTheEngine()
{
    m_server->script("/limited", {ScriptedResponse{429, {{"Retry-After", "600"}}, {}}});
    auto session = open(R"({"version": 1,
        "concurrency": { "max_in_flight": 3 },
        "policies": [ { "policy_id": "p", "limit": 10, "window_seconds": 60 } ],
        "endpoints": [
        { "id": "limited", "method": "GET", "url": "BASE/limited", "timeout_seconds": 10,
          "policy": "p", "partition_key": "k" } ]})");
    QVERIFY(session);
    // Known before the engine has said anything.
    QCOMPARE(session->state().maxInFlight, 3);
    QVERIFY(session->state().holds.isEmpty());
    QSignalSpy held(session.get(), &EngineSession::partitionHeld);
    QString error;
    QVERIFY2(session->start(&error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(held.count(), 1, 10000);
    // The hold reaches the state without being asked for.
    QTRY_COMPARE_WITH_TIMEOUT(session->state().holds.size(), 1, 5000);
    const PartitionHold hold = session->state().holds.first();
    QCOMPARE(hold.policyId, QStringLiteral("p"));
    QCOMPARE(hold.partitionKey, QStringLiteral("k"));
    QVERIFY(hold.untilMs > SystemClock::instance().nowMs() + 500000);

    // The same workspace applied again: the hold is the partition's, in the store, and
    // the new scheduler keeps it; nothing more is sent.
    QSignalSpy applied(session.get(), &EngineSession::configApplied);
    session->apply(session->config());
    QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 5000);
    QVERIFY(applied.at(0).at(0).toBool());
    qint64 heldUntil = 0;
    for (const PartitionState &p : session->figures().partitions) {
        if (p.policyId == QStringLiteral("p"))
            heldUntil = p.heldUntilMs;
    }
    QCOMPARE(heldUntil, hold.untilMs);
    QCOMPARE(m_server->received.size(), 1);

    QSignalSpy lifted(session.get(), &EngineSession::holdsLifted);
    session->liftHolds({{QStringLiteral("p"), QStringLiteral("k")}});
    QTRY_COMPARE_WITH_TIMEOUT(lifted.count(), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(session->state().holds.isEmpty(), 5000);
    for (const PartitionState &p : session->figures().partitions)
        QVERIFY(p.heldUntilMs <= SystemClock::instance().nowMs());
}

// The first workspace's exchange hangs until its timeout; the new workspace is run only
// once that attempt is recorded, by the same worker, and its new endpoint is sent.
void tst_EngineSession::applyWaitsForExchangesInFlightThenRunsTheNewWorkspace()
{
    m_server->script("/hang", {ScriptedResponse{200, {}, {}, true}});
    const QByteArray first = R"({"version": 1, "endpoints": [
        { "id": "slow", "method": "GET", "url": "BASE/hang", "timeout_seconds": 1 } ]})";
    auto session = open(first);
    QVERIFY(session);
    QStringList events;
    connect(session.get(), &EngineSession::attemptRecorded, this, [&](const AttemptRecord &a) {
        events.append(QStringLiteral("attempt ") + a.endpointId);
    });
    QString appliedError = QStringLiteral("not yet");
    connect(session.get(), &EngineSession::configApplied, this,
            [&](bool applied, const QString &error) {
                QVERIFY(applied);
                appliedError = error;
                events.append(QStringLiteral("applied"));
            });
    QString error;
    QVERIFY2(session->start(&error), qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->open, 1, 10000); // in flight

    QByteArray second = R"({"version": 1, "endpoints": [
        { "id": "slow", "method": "GET", "url": "BASE/hang", "timeout_seconds": 1 },
        { "id": "quick", "method": "GET", "url": "BASE/ok", "timeout_seconds": 5 } ]})";
    second.replace("BASE", m_server->url(QString()).toUtf8());
    auto config = WorkspaceConfig::parse(second, QStringLiteral("second.json"), &error, {},
                                         QHash<QString, QString>{});
    QVERIFY2(config, qPrintable(error));
    session->apply(std::move(*config));
    QTRY_VERIFY_WITH_TIMEOUT(events.contains(QStringLiteral("attempt quick")), 10000);
    QCOMPARE(events.mid(0, 3),
             (QStringList{QStringLiteral("attempt slow"), QStringLiteral("applied"),
                          QStringLiteral("attempt quick")}));
    QVERIFY(appliedError.isEmpty());
    QCOMPARE(session->config().endpoints.size(), 2);

    QStringList workers;
    for (const AttemptRecord &a : readStore()->attempts(AttemptFilter{}))
        workers.append(a.workerId);
    QVERIFY(workers.size() >= 2);
    for (const QString &w : std::as_const(workers))
        QCOMPARE(w, session->workerId());
}

// SIGHUP and then SIGTERM at once: the engine stops, and stays stopped.
void tst_EngineSession::stopWinsOverAnApplyNotYetTakenEffect()
{
    const QByteArray json = R"({"version": 1, "endpoints": [
        { "id": "report", "method": "GET", "url": "BASE/ok", "timeout_seconds": 10 } ]})";
    auto session = open(json);
    QVERIFY(session);
    QString error;
    QVERIFY2(session->start(&error), qPrintable(error));
    QSignalSpy stopped(session.get(), &EngineSession::stopped);
    QSignalSpy applied(session.get(), &EngineSession::configApplied);
    WorkspaceConfig other = session->config();
    other.endpoints.clear();
    session->apply(other);
    session->stop();
    QTRY_COMPARE_WITH_TIMEOUT(stopped.count(), 1, 10000);
    QCOMPARE(session->config().endpoints.size(), 1);
    // An apply asked for after the stop is refused, and says why.
    session->apply(other);
    QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 5000);
    QVERIFY(!applied.at(0).at(0).toBool());
    QCOMPARE(applied.at(0).at(1).toString(), QStringLiteral("the engine is stopping"));
    QCOMPARE(stopped.count(), 1);
}

QTEST_GUILESS_MAIN(tst_EngineSession)
#include "tst_enginesession.moc"
