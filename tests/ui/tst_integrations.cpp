// SPDX-License-Identifier: Apache-2.0
#include "UiTestSupport.h"

#include "core/engine/EngineSession.h"
#include "core/query/ChangePoller.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "ui/Format.h"
#include "ui/IntegrationsModel.h"
#include "ui/IntegrationsReader.h"
#include "ui/Palette.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <numeric>

using namespace cooldown;

namespace {

// 2026-03-02 10:00:00 UTC: every history below is laid out before it.
constexpr qint64 kNow = 1772445600000;
constexpr qint64 kMinute = 60000;

IntegrationStatus status(const QString &id)
{
    IntegrationStatus s;
    s.endpointId = id;
    s.hourAttempts = QList<int>(IntegrationsReader::kSparkMinutes, 0);
    s.hourThrottled = QList<int>(IntegrationsReader::kSparkMinutes, 0);
    return s;
}

IntegrationEndpoint endpoint(const QString &id)
{
    // Without a policy: the host's learned partition, as the scheduler has it.
    return {id, QString(), learnedPolicyId(id + QStringLiteral(".example")), QString(), QString()};
}

} // namespace

class tst_Integrations : public QObject
{
    Q_OBJECT

private slots:
    void modelPassesTheTester();
    void stateRulesAndPrecedence();
    void credentialsHoldInsteadOfFailing();
    void statesFromSeededHistories();
    void percentileIsNearestRank();
};

// The model under QAbstractItemModelTester through everything a snapshot can do: the
// first rows, the same rows again (in place), other rows, none.
void tst_Integrations::modelPassesTheTester()
{
    IntegrationsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    IntegrationsSnapshot snapshot;
    snapshot.rangeMs = 24 * 3600000LL;
    snapshot.rows = {status(QStringLiteral("a")), status(QStringLiteral("b"))};
    model.setNowMs(kNow);
    model.setSnapshot(snapshot);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(IntegrationsModel::ColumnCount));

    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    snapshot.rows[1].attempts = 10;
    snapshot.rows[1].throttled = 5;
    model.setSnapshot(snapshot);
    QCOMPARE(resets.count(), 0);
    QVERIFY(changes.count() > 0);
    QCOMPARE(model.stateAt(1), IntegrationState::Throttled);
    QCOMPARE(model.index(1, IntegrationsModel::ThrottledColumn).data().toString(),
             QStringLiteral("50 %"));
    QCOMPARE(model.index(1, IntegrationsModel::StateColumn).data().toString(),
             QStringLiteral("throttled"));
    QCOMPARE(model.index(0, IntegrationsModel::LastSuccessColumn).data().toString(),
             QStringLiteral("never"));
    QCOMPARE(model.data(model.index(1, 0), IntegrationsModel::EndpointIdRole).toString(),
             QStringLiteral("b"));
    QCOMPARE(model
                 .data(model.index(1, IntegrationsModel::SparklineColumn),
                       IntegrationsModel::SparkAttemptsRole)
                 .value<QList<int>>()
                 .size(),
             IntegrationsReader::kSparkMinutes);

    snapshot.rows = {status(QStringLiteral("c")), status(QStringLiteral("a")),
                     status(QStringLiteral("b"))};
    model.setSnapshot(snapshot);
    QCOMPARE(resets.count(), 1);
    QCOMPARE(model.rowOf(QStringLiteral("c")), 0);
    model.setNowMs(kNow + 1000);
    for (int r = 0; r < model.rowCount(); ++r)
        for (int c = 0; c < model.columnCount(); ++c)
            for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)})
                model.data(model.index(r, c), role);
    snapshot.rows.clear();
    model.setSnapshot(snapshot);
    QCOMPARE(model.rowCount(), 0);
}

// The rule, fact by fact, and which wins when several hold.
void tst_Integrations::stateRulesAndPrecedence()
{
    IntegrationStatus s = status(QStringLiteral("x"));
    QCOMPARE(integrationState(s, kNow), IntegrationState::Ok);
    s.open.waiting = 1;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Waiting);
    s.attempts = 10;
    s.throttled = 1; // 10 %: below the threshold
    QCOMPARE(integrationState(s, kNow), IntegrationState::Waiting);
    // docs/checks.md: a p95 over the latency budget is degraded; at the budget, not.
    s.latencyBudgetMs = 2000;
    s.p95Ms = 2000;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Waiting);
    s.p95Ms = 2001;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Degraded);
    s.latencyBudgetMs = 0; // no budget: never degraded
    QCOMPARE(integrationState(s, kNow), IntegrationState::Waiting);
    s.latencyBudgetMs = 2000;
    s.throttled = 2; // 20 %: at it
    QCOMPARE(integrationState(s, kNow), IntegrationState::Throttled);
    s.lastEndedFailed = true;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Failing);
    // docs/incidents.md: an open incident that lists it says what it fails for.
    s.blockedBy = QStringLiteral("host:api.example.com");
    s.blockedSinceMs = kNow - 60000;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Blocked);
    {
        IntegrationsModel model;
        IntegrationsSnapshot snapshot;
        snapshot.readAtMs = kNow;
        snapshot.rows = {s};
        model.setNowMs(kNow);
        model.setSnapshot(snapshot);
        QCOMPARE(model.index(0, IntegrationsModel::StateColumn).data().toString(),
                 QStringLiteral("blocked by host api.example.com"));
    }
    s.blockedBy.clear();
    QCOMPARE(integrationState(s, kNow), IntegrationState::Failing);
    s.heldUntilMs = kNow + 1;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Held);
    // A hold that ended is no hold.
    QCOMPARE(integrationState(s, kNow + 1), IntegrationState::Failing);
    // A maintenance window (or an operator's pause for a time) stops everything, by plan.
    s.endpointHeldUntilMs = kNow + 1;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Maintenance);
    QCOMPARE(integrationState(s, kNow + 1), IntegrationState::Failing);
    s.paused = true;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Paused);

    // The next run: the earliest of the due operation and the tick, not before a hold.
    IntegrationStatus n = status(QStringLiteral("n"));
    QCOMPARE(nextRunAtMs(n, kNow), -1);
    n.nextTickAtMs = kNow + 5000;
    n.open.nextAttemptAtMs = kNow + 2000;
    QCOMPARE(nextRunAtMs(n, kNow), kNow + 2000);
    n.heldUntilMs = kNow + 9000;
    QCOMPARE(nextRunAtMs(n, kNow), kNow + 9000);
}

// An endpoint whose credential has no token shows that, from the engine's state, rather
// than the failure it may have caused; a refused one asks for the operator.
void tst_Integrations::credentialsHoldInsteadOfFailing()
{
    IntegrationsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    IntegrationsSnapshot snapshot;
    snapshot.rangeMs = 3600000;
    IntegrationStatus bom = status(QStringLiteral("bom"));
    bom.credentialId = QStringLiteral("plm");
    bom.lastEndedFailed = true;
    bom.open.waiting = 3;
    bom.nextTickAtMs = kNow + 1000;
    snapshot.rows = {bom, status(QStringLiteral("other"))};
    model.setNowMs(kNow);
    model.setSnapshot(snapshot);
    QCOMPARE(model.stateAt(0), IntegrationState::Failing);

    // As the window has it: the engine's last report.
    EngineState engine;
    CredentialState plm;
    plm.id = QStringLiteral("plm");
    plm.phase = CredentialState::Phase::Failing;
    plm.failingSinceMs = kNow - 60000;
    plm.nextTryAtMs = kNow + 30000;
    plm.lastError = QStringLiteral("http_503");
    CredentialState unused;
    unused.id = QStringLiteral("unused");
    unused.phase = CredentialState::Phase::Refused;
    unused.lastError = QStringLiteral("invalid_client");
    engine.credentials = {plm, unused};
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    model.setCredentials(engine.credentials);
    QVERIFY(changes.count() > 0);
    const QModelIndex light = model.index(0, IntegrationsModel::StateColumn);
    QCOMPARE(model.stateAt(0), IntegrationState::WaitingForCredentials);
    QCOMPARE(light.data().toString(), QStringLiteral("waiting for credentials"));
    QCOMPARE(model.stateAt(1), IntegrationState::Ok); // names no credential
    const QString tip = light.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("Waiting for credentials plm (token endpoint: http_503, "
                                         "next try %1)")
                              .arg(format::localTime(kNow + 30000, kNow))),
             qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("without spending attempts")), qPrintable(tip));
    QVERIFY(!light.data(Qt::ForegroundRole).isValid()); // not the red of a failure
    // Nothing goes before the next token request.
    QCOMPARE(model.index(0, IntegrationsModel::NextRunColumn).data().toString(),
             format::countdown(kNow + 30000, kNow));

    // The engine reports every second; the same state changes nothing.
    changes.clear();
    model.setCredentials(engine.credentials);
    QCOMPARE(changes.count(), 0);
    // The store's next snapshot keeps it.
    model.setSnapshot(snapshot);
    QCOMPARE(model.stateAt(0), IntegrationState::WaitingForCredentials);

    // Asking again after the failure is still waiting.
    plm.phase = CredentialState::Phase::Renewing;
    model.setCredentials({plm});
    QCOMPARE(model.stateAt(0), IntegrationState::WaitingForCredentials);
    QVERIFY(light.data(Qt::ToolTipRole).toString().contains(QStringLiteral("asking again now")));

    // Refused: parked, and the operator's red.
    plm.phase = CredentialState::Phase::Refused;
    plm.lastError = QStringLiteral("invalid_client: Client authentication failed");
    model.setCredentials({plm});
    QCOMPARE(model.stateAt(0), IntegrationState::CredentialsRefused);
    QCOMPARE(light.data().toString(), QStringLiteral("credentials refused"));
    QCOMPARE(light.data(Qt::ForegroundRole).value<QColor>(), palette::problem());
    QVERIFY2(light.data(Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("Credentials plm refused: invalid_client: Client "
                                          "authentication failed — operations parked")),
             qPrintable(light.data(Qt::ToolTipRole).toString()));

    // Precedence: the operator's pause first, then the refusal, the server's hold, the
    // wait for a token, and only then the endpoint's own facts.
    IntegrationStatus s = bom;
    s.credential = plm;
    s.heldUntilMs = kNow + 5000;
    QCOMPARE(integrationState(s, kNow), IntegrationState::CredentialsRefused);
    s.paused = true;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Paused);
    s.paused = false;
    s.credential.phase = CredentialState::Phase::Failing;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Held);
    s.heldUntilMs = 0;
    QCOMPARE(integrationState(s, kNow), IntegrationState::WaitingForCredentials);
    // A renewal that fails while the token held is still valid holds nothing yet.
    s.credential.validUntilMs = kNow + 60000;
    QCOMPARE(integrationState(s, kNow), IntegrationState::Failing);

    // A token again: the endpoint's own light.
    plm.phase = CredentialState::Phase::Valid;
    plm.failingSinceMs = -1;
    plm.nextTryAtMs = -1;
    plm.lastError.clear();
    plm.validUntilMs = kNow + 3600000;
    model.setCredentials({plm});
    QCOMPARE(model.stateAt(0), IntegrationState::Failing);
}

// A store seeded with one history per light, on fixed timestamps; the reader reads it
// on this thread at a time the test sets.
void tst_Integrations::statesFromSeededHistories()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("integrations.db"));
    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    using test::recordAttempt;
    const QString ok = QStringLiteral("ok");
    const QString throttled = QStringLiteral("throttled");
    const QString waiting = QStringLiteral("waiting");
    const QString failing = QStringLiteral("failing");
    const QString paused = QStringLiteral("paused");
    const QString held = QStringLiteral("held");
    const QString quiet = QStringLiteral("quiet");
    const QString maintained = QStringLiteral("maintained");

    // ok: four successes in the last hour.
    for (int i = 0; i < 4; ++i)
        QVERIFY(recordAttempt(*store, ok, kNow - (50 - 10 * i) * kMinute, 200, Decision::Success));
    // throttled: one success, then three 429s that ended their operations for good
    // (parked), so that none is waiting: 3 of 4 attempts throttled.
    QVERIFY(recordAttempt(*store, throttled, kNow - 40 * kMinute, 200, Decision::Success));
    for (int i = 0; i < 3; ++i)
        QVERIFY(recordAttempt(*store, throttled, kNow - (30 - i) * kMinute, 429, Decision::Park,
                              OperationState::Parked));
    // waiting: a success, then a 500 to retry in an hour (1 attempt in 4 refused by
    // the server, none throttled).
    for (int i = 0; i < 3; ++i)
        QVERIFY(recordAttempt(*store, waiting, kNow - (40 - i) * kMinute, 200, Decision::Success));
    QVERIFY(recordAttempt(*store, waiting, kNow - 20 * kMinute, 500, Decision::Retry,
                          OperationState::Waiting));
    // failing: succeeded yesterday, failed for good an hour ago.
    QVERIFY(recordAttempt(*store, failing, kNow - 25 * 3600000LL, 200, Decision::Success));
    QVERIFY(recordAttempt(*store, failing, kNow - 59 * kMinute, 404, Decision::Fail,
                          OperationState::Failed));
    // paused: failing too, but an operator paused it, which says more.
    QVERIFY(recordAttempt(*store, paused, kNow - 10 * kMinute, 404, Decision::Fail,
                          OperationState::Failed));
    QVERIFY(store->setEndpointPaused(paused, true, kNow - 5 * kMinute));
    // held: its partition is held by the server for ten more minutes.
    QVERIFY(recordAttempt(*store, held, kNow - 3 * kMinute, 200, Decision::Success));
    const QString heldPolicy = learnedPolicyId(QStringLiteral("held.example"));
    QVERIFY(store->ensureLearnedPartition(heldPolicy));
    QVERIFY(store->snoozePartition(heldPolicy, QString(), kNow + 10 * kMinute,
                                   QStringLiteral("Retry-After: 600")) >= 0);
    // quiet: nothing ever happened.
    // maintained: a success, then a maintenance window holds it for half an hour more.
    QVERIFY(recordAttempt(*store, maintained, kNow - 30 * kMinute, 200, Decision::Success));
    QVERIFY(store->holdEndpoints({maintained}, kNow + 30 * kMinute, QStringLiteral("upgrade"),
                                 kNow - kMinute));

    ManualClock clock(kNow);
    IntegrationsReader reader(db, clock,
                              {endpoint(ok), endpoint(throttled), endpoint(waiting),
                               endpoint(failing), endpoint(paused), endpoint(held), endpoint(quiet),
                               endpoint(maintained)});
    QSignalSpy spy(&reader, &IntegrationsReader::snapshotReady);
    QSignalSpy failures(&reader, &IntegrationsReader::failed);
    // The window's one poller, polled by hand: each poll is one tick.
    ChangePoller changes(db);
    connect(&changes, &ChangePoller::polled, &reader, &IntegrationsReader::tick);
    reader.setRange(3600000); // the last hour
    QVERIFY(!spy.isEmpty());
    QVERIFY2(failures.isEmpty(),
             failures.isEmpty() ? "" : qPrintable(failures.first().first().toString()));
    IntegrationsSnapshot snapshot = spy.last().first().value<IntegrationsSnapshot>();
    QCOMPARE(snapshot.rows.size(), 8);
    const auto row = [&snapshot](const QString &id) {
        for (const IntegrationStatus &s : std::as_const(snapshot.rows))
            if (s.endpointId == id)
                return s;
        return IntegrationStatus();
    };
    QCOMPARE(integrationState(row(ok), kNow), IntegrationState::Ok);
    QCOMPARE(integrationState(row(throttled), kNow), IntegrationState::Throttled);
    QCOMPARE(integrationState(row(waiting), kNow), IntegrationState::Waiting);
    QCOMPARE(integrationState(row(failing), kNow), IntegrationState::Failing);
    QCOMPARE(integrationState(row(paused), kNow), IntegrationState::Paused);
    QCOMPARE(integrationState(row(held), kNow), IntegrationState::Held);
    QCOMPARE(integrationState(row(quiet), kNow), IntegrationState::Ok);
    QCOMPARE(integrationState(row(maintained), kNow), IntegrationState::Maintenance);
    QCOMPARE(row(maintained).endpointHeldUntilMs, kNow + 30 * kMinute);
    QCOMPARE(row(maintained).endpointHoldReason, QStringLiteral("upgrade"));

    // The figures behind them.
    QCOMPARE(row(ok).attempts, 4);
    QCOMPARE(row(ok).successes, 4);
    QCOMPARE(row(ok).outcomes, 4);
    QCOMPARE(row(ok).lastSuccessAtMs, kNow - 20 * kMinute + 40);
    QCOMPARE(row(ok).p50Ms, 40);
    QCOMPARE(row(ok).p95Ms, 40);
    QCOMPARE(row(ok).durationSamples, 4);
    QCOMPARE(row(throttled).throttled, 3);
    QCOMPARE(row(throttled).attempts, 4);
    QCOMPARE(row(throttled).open.parked, 3);
    QCOMPARE(row(waiting).open.waiting, 1);
    QCOMPARE(row(waiting).open.nextAttemptAtMs, kNow - 20 * kMinute + 3600000);
    QCOMPARE(nextRunAtMs(row(waiting), kNow), kNow + 40 * kMinute);
    // Yesterday's success is outside the hour's figures, still its last success.
    QCOMPARE(row(failing).lastSuccessAtMs, kNow - 25 * 3600000LL + 40);
    QCOMPARE(row(failing).successes, 0);
    QCOMPARE(row(failing).outcomes, 1);
    QCOMPARE(row(held).heldUntilMs, kNow + 10 * kMinute);
    QCOMPARE(row(quiet).lastSuccessAtMs, -1);
    QCOMPARE(row(quiet).attempts, 0);
    // The sparkline: the ok endpoint's four minutes, the latest 20 minutes ago.
    const QList<int> spark = row(ok).hourAttempts;
    QCOMPARE(spark.size(), IntegrationsReader::kSparkMinutes);
    QCOMPARE(std::accumulate(spark.cbegin(), spark.cend(), 0), 4);
    QCOMPARE(spark.at(IntegrationsReader::kSparkMinutes - 1 - 20), 1);
    QCOMPARE(std::accumulate(row(throttled).hourThrottled.cbegin(),
                             row(throttled).hourThrottled.cend(), 0),
             3);

    // A success after the failure, and time goes on: the hold ends and the hour's
    // 429s leave the range.
    QVERIFY(recordAttempt(*store, failing, kNow + 30 * kMinute, 200, Decision::Success));
    clock.setWallMs(kNow + 45 * kMinute);
    spy.clear();
    changes.poll();
    QVERIFY(!spy.isEmpty());
    snapshot = spy.last().first().value<IntegrationsSnapshot>();
    QCOMPARE(integrationState(row(held), clock.nowMs()), IntegrationState::Ok);
    QCOMPARE(row(throttled).attempts, 0);
    QCOMPARE(integrationState(row(throttled), clock.nowMs()), IntegrationState::Ok);
    QCOMPARE(integrationState(row(failing), clock.nowMs()), IntegrationState::Ok);
    QCOMPARE(row(failing).lastSuccessAtMs, kNow + 30 * kMinute + 40);
    QCOMPARE(integrationState(row(paused), clock.nowMs()), IntegrationState::Paused);
    // The retry came due meanwhile: still waiting, and due now.
    QCOMPARE(integrationState(row(waiting), clock.nowMs()), IntegrationState::Waiting);

    // What another connection writes shows at the next tick, in the same minute: the
    // range's figures agree with the last success.
    const qint64 okBefore = row(ok).attempts;
    // (The due retry would be claimed first: its endpoint is paused meanwhile.)
    QVERIFY(store->setEndpointPaused(waiting, true, kNow + 45 * kMinute));
    QVERIFY(recordAttempt(*store, ok, kNow + 45 * kMinute + 1000, 200, Decision::Success));
    clock.setWallMs(kNow + 45 * kMinute + 2000);
    spy.clear();
    changes.poll();
    QVERIFY(!spy.isEmpty());
    snapshot = spy.last().first().value<IntegrationsSnapshot>();
    QCOMPARE(row(ok).attempts, okBefore + 1);
    QCOMPARE(row(ok).lastSuccessAtMs, kNow + 45 * kMinute + 1040);
    QCOMPARE(integrationState(row(waiting), clock.nowMs()), IntegrationState::Paused);
    // Nothing written: nothing read, nothing sent.
    spy.clear();
    clock.setWallMs(kNow + 45 * kMinute + 3000);
    changes.poll();
    QVERIFY(spy.isEmpty());
}

void tst_Integrations::percentileIsNearestRank()
{
    QList<qint64> none;
    QCOMPARE(IntegrationsReader::percentile(none, 50), -1);
    QList<qint64> values{50, 10, 40, 20, 30, 60, 70, 80, 90, 100};
    QCOMPARE(IntegrationsReader::percentile(values, 50), 50);
    QCOMPARE(IntegrationsReader::percentile(values, 95), 100);
    QList<qint64> one{7};
    QCOMPARE(IntegrationsReader::percentile(one, 95), 7);
}

QTEST_MAIN(tst_Integrations)
#include "tst_integrations.moc"
