// SPDX-License-Identifier: Apache-2.0
// The drain-time estimate of a bulk action (docs/bulk-actions.md): the model on its
// own, and once against the real scheduler draining a bulk retry on a manual clock.

#include "core/config/WorkspaceConfig.h"
#include "core/engine/DrainEstimate.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ScriptedHttpServer.h"
#include "support/SettleScheduler.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1'800'000'000'000;

SelectionGroup group(const char *endpoint, const char *policy, const char *key, qint64 ops)
{
    SelectionGroup g;
    g.endpointId = QLatin1String(endpoint);
    g.policyId = QLatin1String(policy);
    g.partitionKey = QLatin1String(key);
    g.operations = ops;
    g.cost = ops;
    return g;
}

// limit per second with a burst, full.
DrainBucket bucket(const char *policy, const char *key, qint64 perSecond, qint64 burst)
{
    DrainBucket b;
    b.policyId = QLatin1String(policy);
    b.partitionKey = QLatin1String(key);
    b.pace = Gcra::forLimit(perSecond, 1000, burst);
    b.availableUnits = burst;
    return b;
}

} // namespace

class tst_DrainEstimate : public QObject
{
    Q_OBJECT

private slots:
    void nothingWaitsWithoutLimits();
    void aBucketPacesAfterItsBurst();
    void anEmptyBucketStartsAtItsNextToken();
    void aHoldComesFirstAndTheBucketFillsMeanwhile();
    void workAlreadyDueGoesFirst();
    void theSlowestPartitionBounds();
    void theInFlightLimitBounds();
    void pausedEndpointsAreLeftOut();
    void matchesTheSchedulerDrainingABulkRetry();
};

void tst_DrainEstimate::nothingWaitsWithoutLimits()
{
    DrainInput in;
    in.nowMs = kNow;
    in.groups = {group("a", "", "", 5)};
    in.maxInFlight = 8;
    const DrainEstimate e = estimateDrain(in);
    QCOMPARE(e.operations, 5);
    QCOMPARE(e.drainMs, 0);
    QCOMPARE(e.bound, DrainEstimate::Bound::None);
}

void tst_DrainEstimate::aBucketPacesAfterItsBurst()
{
    DrainInput in;
    in.nowMs = kNow;
    in.maxInFlight = 0;
    in.groups = {group("a", "p", "k", 300)};
    in.buckets = {bucket("p", "k", 5, 5)};
    const DrainEstimate e = estimateDrain(in);
    // 5 at once, then one every 200 ms.
    QCOMPARE(e.drainMs, 295 * 200);
    QCOMPARE(e.bound, DrainEstimate::Bound::Rate);
    QCOMPARE(e.boundPartition, QStringLiteral("p/k"));
    in.groups = {group("a", "p", "k", 4)};
    QCOMPARE(estimateDrain(in).drainMs, 0);
}

void tst_DrainEstimate::anEmptyBucketStartsAtItsNextToken()
{
    DrainInput in;
    in.nowMs = kNow;
    in.maxInFlight = 0;
    in.groups = {group("a", "p", "k", 300)};
    DrainBucket b = bucket("p", "k", 5, 5);
    b.availableUnits = 0;
    b.nextTokenAtMs = kNow + 150;
    in.buckets = {b};
    QCOMPARE(estimateDrain(in).drainMs, 150 + 299 * 200);
}

void tst_DrainEstimate::aHoldComesFirstAndTheBucketFillsMeanwhile()
{
    DrainInput in;
    in.nowMs = kNow;
    in.maxInFlight = 0;
    in.groups = {group("a", "p", "k", 300)};
    DrainBucket b = bucket("p", "k", 5, 5);
    b.availableUnits = 0;
    b.nextTokenAtMs = kNow + 200;
    b.heldUntilMs = kNow + 30'000;
    in.buckets = {b};
    const DrainEstimate e = estimateDrain(in);
    QCOMPARE(e.drainMs, 30'000 + 295 * 200);
    QCOMPARE(e.bound, DrainEstimate::Bound::Hold);
    QCOMPARE(e.partitions.size(), 1);
    QVERIFY(e.partitions.constFirst().heldFirst);

    // A forced retry goes past the hold and the bucket: only the in-flight limit holds
    // it back.
    in.forced = true;
    in.maxInFlight = 10;
    in.defaultDurationMs = 500;
    const DrainEstimate forced = estimateDrain(in);
    QCOMPARE(forced.bound, DrainEstimate::Bound::Concurrency);
    QCOMPARE(forced.drainMs, 300 * 500 / 10 - 500);
}

void tst_DrainEstimate::workAlreadyDueGoesFirst()
{
    DrainInput in;
    in.nowMs = kNow;
    in.maxInFlight = 0;
    in.groups = {group("a", "p", "k", 300)};
    DrainBucket b = bucket("p", "k", 5, 5);
    b.aheadUnits = 100;
    in.buckets = {b};
    QCOMPARE(estimateDrain(in).drainMs, 395 * 200);
}

void tst_DrainEstimate::theSlowestPartitionBounds()
{
    DrainInput in;
    in.nowMs = kNow;
    in.maxInFlight = 0;
    in.groups = {group("a", "p", "fast", 100), group("b", "p", "slow", 100),
                 group("c", "", "", 50)};
    in.buckets = {bucket("p", "fast", 50, 10), bucket("p", "slow", 2, 1)};
    const DrainEstimate e = estimateDrain(in);
    QCOMPARE(e.operations, 250);
    QCOMPARE(e.drainMs, 99 * 500);
    QCOMPARE(e.boundPartition, QStringLiteral("p/slow"));
    QCOMPARE(e.partitions.size(), 3);
    QCOMPARE(e.partitions.at(0).partitionKey, QStringLiteral("slow"));
    QCOMPARE(e.partitions.at(1).drainMs, 90 * 20);
}

void tst_DrainEstimate::theInFlightLimitBounds()
{
    DrainInput in;
    in.nowMs = kNow;
    in.maxInFlight = 4;
    in.groups = {group("slow", "", "", 100)};
    in.typicalDurationMs = {{QStringLiteral("slow"), 2000}};
    // 4 at a time for 2 s each: the last of 100 starts 48 s in.
    DrainEstimate e = estimateDrain(in);
    QCOMPARE(e.drainMs, 100 * 2000 / 4 - 2000);
    QCOMPARE(e.bound, DrainEstimate::Bound::Concurrency);
    // An endpoint without recent exchanges takes the default.
    in.typicalDurationMs.clear();
    in.defaultDurationMs = 1000;
    QCOMPARE(estimateDrain(in).drainMs, 100 * 1000 / 4 - 1000);
    // A faster pace than the limit allows: the limit bounds.
    in.groups = {group("slow", "p", "k", 100)};
    in.buckets = {bucket("p", "k", 100, 1)};
    e = estimateDrain(in);
    QCOMPARE(e.bound, DrainEstimate::Bound::Concurrency);
    QCOMPARE(e.drainMs, 24'000);
}

void tst_DrainEstimate::pausedEndpointsAreLeftOut()
{
    DrainInput in;
    in.nowMs = kNow;
    in.maxInFlight = 0;
    in.groups = {group("a", "p", "k", 10), group("b", "p", "k", 290)};
    in.buckets = {bucket("p", "k", 5, 5)};
    in.pausedEndpoints = {QStringLiteral("b")};
    const DrainEstimate e = estimateDrain(in);
    QCOMPARE(e.operations, 10);
    QCOMPARE(e.pausedOperations, 290);
    QCOMPARE(e.pausedEndpoints, QStringList{QStringLiteral("b")});
    QCOMPARE(e.drainMs, 5 * 200);
}

void tst_DrainEstimate::matchesTheSchedulerDrainingABulkRetry()
{
    // 300 operations parked until later (not due), then retried in bulk under a
    // policy of 5 per second with a burst of 5; the scheduler sends them on a manual
    // clock to a loopback server.
    const qint64 start = kNow;
    ManualClock clock(start);
    SeededRandom random(7);
    ManualWakeTimer timer(clock);
    ScriptedHttpServer server;
    QTemporaryDir dir;
    const QByteArray json =
        R"({"version": 1, "concurrency": {"max_in_flight": 8},
            "policies": [{"policy_id": "p", "quota_unit": "request", "limit": 5,
                          "window_seconds": 1, "burst": 5, "policy_version": 1}],
            "endpoints": [{"id": "x", "url": ")" +
        server.url(QStringLiteral("/x")).toUtf8() +
        R"(", "policy": "p", "partition_key": "k1", "enqueue_only": true}]})";
    QString error;
    auto config = WorkspaceConfig::parse(json, QStringLiteral("w.json"), &error, {},
                                         QHash<QString, QString>{});
    QVERIFY2(config, qPrintable(error));
    StoreOptions storeOptions;
    storeOptions.paceByDatabaseClock = false;
    auto store = Store::open(dir.filePath(QStringLiteral("drain.db")), &error, storeOptions);
    QVERIFY2(store, qPrintable(error));
    Transport transport(clock);
    SchedulerOptions options;
    options.workerId = QStringLiteral("w");
    options.leaseMs = 60'000;
    Scheduler scheduler(std::move(*config), *store, transport, clock, random, timer, options);
    QVERIFY2(scheduler.start(&error), qPrintable(error));
    QVERIFY(settleScheduler(scheduler, 10'000));

    QList<Store::NewOperation> jobs;
    for (int i = 0; i < 300; ++i) {
        Store::NewOperation op;
        op.endpointId = QStringLiteral("x");
        op.idempotencyKey = QStringLiteral("k-%1").arg(i);
        op.requestHash = QStringLiteral("hash-%1").arg(i);
        op.policyId = QStringLiteral("p");
        op.partitionKey = QStringLiteral("k1");
        op.host = QStringLiteral("127.0.0.1");
        op.dueAtMs = start + 86'400'000;
        jobs.append(op);
    }
    QVERIFY(store->enqueue(jobs, start, Store::IntakeMode::AllOrNothing));

    OperationSelection selection;
    selection.endpointIds = {QStringLiteral("x")};
    const auto input = readDrainInput(*store, selection, OperatorAction::Retry, clock.nowMs(),
                                      scheduler.maxInFlight(), &error);
    QVERIFY2(input, qPrintable(error));
    QCOMPARE(input->groups.size(), 1);
    QCOMPARE(input->buckets.size(), 1);
    const DrainEstimate estimate = estimateDrain(*input);
    QCOMPARE(estimate.operations, 300);
    QVERIFY(estimate.drainMs > 0);

    AuditRecord audit;
    audit.actor = QStringLiteral("test");
    const BulkOutcome applied =
        store->applyToMatching(selection, OperatorAction::Retry, clock.nowMs(), &audit);
    QCOMPARE(applied.progress.changed, 300);
    scheduler.wake();
    QVERIFY(settleScheduler(scheduler, 10'000));

    // The clock moves in 20 ms steps until the last request has arrived.
    const qint64 stepMs = 20;
    qint64 lastSentAtMs = -1;
    for (qint64 t = 0; t < 10 * 60'000; t += stepMs) {
        if (server.received.size() >= 300) {
            lastSentAtMs = clock.nowMs() - start;
            break;
        }
        clock.advance(stepMs);
        if (timer.fireIfDue())
            QVERIFY(settleScheduler(scheduler, 10'000));
    }
    QVERIFY2(lastSentAtMs > 0, "the scheduler did not send all 300 within ten minutes");
    QCOMPARE(server.received.size(), 300);
    qInfo("estimated %lld ms, the scheduler took %lld ms", estimate.drainMs, lastSentAtMs);
    const double error10 = std::abs(double(estimate.drainMs - lastSentAtMs)) / double(lastSentAtMs);
    QVERIFY2(error10 <= 0.10, qPrintable(QStringLiteral("estimated %1 ms, the scheduler took %2 ms")
                                             .arg(estimate.drainMs)
                                             .arg(lastSentAtMs)));
}

QTEST_GUILESS_MAIN(tst_DrainEstimate)
#include "tst_drainestimate.moc"
