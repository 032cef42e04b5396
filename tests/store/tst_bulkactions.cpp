// SPDX-License-Identifier: Apache-2.0
// Bulk actions by filter in the store (docs/bulk-actions.md), on SQLite and on
// PostgreSQL: a retry or cancel over thousands of operations changes exactly the
// operations the filter selects, chunk by chunk, and writes one audit row; the single
// operator actions write their row in the same call; the audit table comes with a
// migration.

#include "StoreTestSupport.h"

#include "core/store/OperationSelection.h"
#include "core/store/Schema.h"
#include "core/store/SqlTransaction.h"
#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <QHash>
#include <QSet>
#include <QTest>

#include <iterator>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1'800'000'000'000;
constexpr qint64 kLeaseMs = 600'000;
const QString kWorker = QStringLiteral("w1");

// What each seeded operation ends up as, by its index.
struct Outcome
{
    OperationState state;
    int status;
    const char *reason;
};
const Outcome kOutcomes[] = {
    {OperationState::Waiting, 429, "throttled"},
    {OperationState::Parked, 503, "idempotency_key_expired"},
    {OperationState::Failed, 404, "client_error"},
    {OperationState::Succeeded, 200, ""},
    {OperationState::Running, 0, ""}, // claimed, attempt in flight
    {OperationState::Waiting, 0, "transport_error"},
    {OperationState::Scheduled, 0, ""}, // never claimed
};

OperationSelection parse(const char *text)
{
    QString error;
    const auto s = OperationSelection::parse(QString::fromLatin1(text), kNow, &error);
    if (!s)
        qFatal("bad filter in test: %s", qPrintable(error));
    return *s;
}

// The selection as the test reads it, independently of the store's SQL.
bool selects(const OperationSelection &s, const OperationRecord &op, const QString &lastReason)
{
    if (!s.endpointIds.isEmpty() && !s.endpointIds.contains(op.endpointId))
        return false;
    if (!s.states.isEmpty() && !s.states.contains(op.state))
        return false;
    if (!s.partitionKeys.isEmpty() && !s.partitionKeys.contains(op.partitionKey))
        return false;
    if (!s.statuses.isEmpty()) {
        bool any = false;
        for (const StatusMatch &m : s.statuses)
            any = any || (m.isError() ? op.attempt > 0 && op.lastStatus == 0
                                      : op.lastStatus >= m.min && op.lastStatus <= m.max);
        if (!any)
            return false;
    }
    if (!s.reasons.isEmpty() && !s.reasons.contains(op.finalReason) &&
        !s.reasons.contains(lastReason))
        return false;
    if (s.sinceMs >= 0 && op.createdAtMs < s.sinceMs)
        return false;
    if (s.untilMs >= 0 && op.createdAtMs >= s.untilMs)
        return false;
    return true;
}

} // namespace

class tst_BulkActions : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void init();
    void cleanup();

    void countAndGroupsFollowTheFilter();
    void retryAppliesExactlyTheFilterInChunks();
    void cancelStopsWhenAskedAndTheRowSaysHowFar();
    void nothingMatchingIsStillRecorded();
    void singleActionsShareOneRow();
    void migrationAddsTheAuditTable();

private:
    // The test's database, or the one at url.
    std::unique_ptr<Store> open(const QString &url = {});
    // n operations over two endpoints and three partition keys, one second apart,
    // left in the states of kOutcomes in turn.
    void seed(Store &store, int n);
    QHash<qint64, OperationRecord> snapshot(Store &store);

    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
    QHash<qint64, QString> m_lastReason; // by operation: its last attempt's reason
};

void tst_BulkActions::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("postgresql") << "postgresql";
}

void tst_BulkActions::init()
{
    QFETCH_GLOBAL(QString, backend);
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_lastReason.clear();
    if (backend == QLatin1String("sqlite")) {
        m_url = m_dir->filePath(QStringLiteral("bulk.db"));
        return;
    }
    QString why;
    m_url = test::freshPostgresDatabase(QStringLiteral("cooldown_tst_bulkactions"), &why);
    if (m_url.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
}

void tst_BulkActions::cleanup()
{
    m_dir.reset();
}

std::unique_ptr<Store> tst_BulkActions::open(const QString &url)
{
    StoreOptions options;
    options.paceByDatabaseClock = false;
    QString error;
    std::unique_ptr<Store> store = Store::open(url.isEmpty() ? m_url : url, &error, options);
    if (!store)
        qWarning("open failed: %s", qPrintable(error));
    return store;
}

void tst_BulkActions::seed(Store &store, int n)
{
    const int kinds = int(std::size(kOutcomes));
    {
        auto batch = store.beginBatch(); // null on PostgreSQL: each insert commits
        for (int i = 0; i < n; ++i) {
            Store::NewOperation op;
            op.endpointId = i % 2 ? QStringLiteral("sync") : QStringLiteral("upload");
            op.partitionKey = QStringLiteral("t%1").arg(i % 3);
            op.idempotencyKey = QStringLiteral("key-%1").arg(i);
            op.requestHash = QStringLiteral("hash-%1").arg(i);
            // One that stays scheduled is due after every claim below.
            if (kOutcomes[i % kinds].state == OperationState::Scheduled)
                op.dueAtMs = kNow + 3'600'000;
            const auto made =
                store.enqueue({op}, kNow - (n - i) * 1000, Store::IntakeMode::AllOrNothing);
            QVERIFY2(made && made->size() == 1, qPrintable(store.lastError()));
        }
        if (batch)
            QVERIFY(batch->commit());
    }
    const QList<OperationRecord> ops = store.operations(OperationFilter());
    QCOMPARE(ops.size(), n);
    QHash<qint64, int> indexOf;
    int toClaim = 0;
    for (int i = 0; i < n; ++i) {
        indexOf.insert(ops[i].id, i);
        if (kOutcomes[i % kinds].state != OperationState::Scheduled)
            ++toClaim;
    }
    // Claimed in turn, then each left as its outcome says, in group commits.
    int claimedCount = 0;
    while (claimedCount < toClaim) {
        const QList<OperationRecord> claimed =
            store.claims().claimDue(kWorker, kNow, kLeaseMs, 500);
        QVERIFY2(!claimed.isEmpty(), qPrintable(store.lastError()));
        QList<Store::FinishRequest> requests;
        for (const OperationRecord &op : claimed) {
            QVERIFY(indexOf.contains(op.id));
            ++claimedCount;
            const Outcome &o = kOutcomes[indexOf.value(op.id) % kinds];
            QVERIFY(o.state != OperationState::Scheduled);
            if (o.state == OperationState::Running)
                continue;
            AttemptRecord a;
            a.operationId = op.id;
            a.endpointId = op.endpointId;
            a.attempt = op.attempt + 1;
            a.startedAtMs = kNow;
            a.finishedAtMs = kNow + 5;
            a.durationMs = 5;
            a.method = QStringLiteral("POST");
            a.url = QStringLiteral("https://example.com/x");
            a.status = o.status;
            a.error = o.status == 0 ? QStringLiteral("connection refused") : QString();
            a.reason = QLatin1String(o.reason);
            a.decision = test::decisionLeaving(o.state);
            a.workerId = kWorker;
            OperationRecord next = op;
            next.state = o.state;
            next.attempt = a.attempt;
            next.lastStatus = o.status;
            next.lastError = a.error;
            next.nextAttemptAtMs = o.state == OperationState::Waiting ? kNow + 600'000 : -1;
            next.finalReason =
                o.state == OperationState::Parked || o.state == OperationState::Failed
                    ? QLatin1String(o.reason)
                    : QString();
            m_lastReason.insert(op.id, a.reason);
            requests.append(Store::FinishRequest(a, next, op.version));
        }
        if (!requests.isEmpty()) {
            for (const Store::FinishOutcome &f : store.finishAttempts(requests, kWorker))
                QCOMPARE(int(f.result), int(Store::FinishResult::Committed));
        }
    }
}

QHash<qint64, OperationRecord> tst_BulkActions::snapshot(Store &store)
{
    QHash<qint64, OperationRecord> out;
    for (const OperationRecord &op : store.operations(OperationFilter()))
        out.insert(op.id, op);
    return out;
}

void tst_BulkActions::countAndGroupsFollowTheFilter()
{
    auto store = open();
    QVERIFY(store);
    seed(*store, 700);
    if (QTest::currentTestFailed())
        return;
    const auto before = snapshot(*store);
    for (const char *text :
         {"endpoint=upload", "state=waiting,parked", "status=4xx", "status=error", "status=429,5xx",
          "reason=idempotency_key_expired", "reason=throttled", "partition=t1 state=failed",
          "endpoint=sync status=2xx"}) {
        const OperationSelection s = parse(text);
        qint64 expected = 0;
        for (const OperationRecord &op : before)
            expected += selects(s, op, m_lastReason.value(op.id)) ? 1 : 0;
        QVERIFY2(expected > 0, text);
        QCOMPARE(store->countMatching(s), expected);
    }
    // since/until select by creation time.
    OperationSelection recent;
    recent.sinceMs = kNow - 100'000;
    QCOMPARE(store->countMatching(recent), 100);
    recent.untilMs = kNow - 40'000;
    QCOMPARE(store->countMatching(recent), 60);

    // The groups count what a retry would change: not running, succeeded or cancelled.
    const auto groups =
        store->matchingGroups(parse("endpoint=upload"), OperatorAction::Retry, kNow);
    QVERIFY2(groups, qPrintable(store->lastError()));
    qint64 inGroups = 0;
    qint64 expected = 0;
    for (const SelectionGroup &g : *groups) {
        QCOMPARE(g.endpointId, QStringLiteral("upload"));
        QCOMPARE(g.cost, g.operations);
        inGroups += g.operations;
    }
    for (const OperationRecord &op : before) {
        if (op.endpointId == QLatin1String("upload") &&
            (op.state == OperationState::Scheduled || op.state == OperationState::Waiting ||
             op.state == OperationState::Parked || op.state == OperationState::Failed))
            ++expected;
    }
    QCOMPARE(inGroups, expected);
    QCOMPARE(groups->size(), 3); // one per partition key
}

void tst_BulkActions::retryAppliesExactlyTheFilterInChunks()
{
    auto store = open();
    QVERIFY(store);
    seed(*store, 2800);
    if (QTest::currentTestFailed())
        return;
    const auto before = snapshot(*store);
    // Every state, so that the filter selects operations a retry cannot change too.
    const OperationSelection s = parse("endpoint=upload partition=t0,t2 since=2h");
    QSet<qint64> selected;
    QSet<qint64> changes;
    for (const OperationRecord &op : before) {
        if (!selects(s, op, m_lastReason.value(op.id)))
            continue;
        selected.insert(op.id);
        if (op.state == OperationState::Scheduled || op.state == OperationState::Waiting ||
            op.state == OperationState::Parked || op.state == OperationState::Failed)
            changes.insert(op.id);
    }
    QVERIFY(changes.size() > 500); // more than one chunk
    QVERIFY(changes.size() < selected.size());

    AuditRecord audit;
    audit.actor = QStringLiteral("ops-oncall");
    audit.action = OperatorAction::Force;
    audit.target = s.toText();
    QList<BulkProgress> steps;
    BulkOptions options;
    options.chunkSize = 300;
    options.progress = [&steps](const BulkProgress &p) {
        steps.append(p);
        return true;
    };
    const qint64 now = kNow + 1000;
    const BulkOutcome outcome =
        store->applyToMatching(s, OperatorAction::Force, now, &audit, options);
    QVERIFY2(outcome.result == BulkOutcome::Result::Done, qPrintable(store->lastError()));
    QCOMPARE(outcome.progress.matched, selected.size());
    QCOMPARE(outcome.progress.done, selected.size());
    QCOMPARE(outcome.progress.changed, changes.size());
    QCOMPARE(steps.size(), int((selected.size() + 299) / 300));
    for (int i = 1; i < steps.size(); ++i)
        QVERIFY(steps[i].done > steps[i - 1].done);

    // Exactly the selected operations that a retry can change, changed as retryNow
    // changes one; nothing else touched.
    const auto after = snapshot(*store);
    QCOMPARE(after.size(), before.size());
    for (const OperationRecord &op : after) {
        const OperationRecord &was = before.value(op.id);
        if (changes.contains(op.id)) {
            QCOMPARE(op.state, OperationState::Waiting);
            QCOMPARE(op.nextAttemptAtMs, now);
            QVERIFY(op.forceNext);
            QCOMPARE(op.finalReason, QString());
            QCOMPARE(op.version, was.version + 1);
        } else {
            QCOMPARE(op.state, was.state);
            QCOMPARE(op.version, was.version);
            QCOMPARE(op.nextAttemptAtMs, was.nextAttemptAtMs);
        }
    }

    // One audit row for the whole action.
    const auto rows = store->operatorActions();
    QVERIFY2(rows, qPrintable(store->lastError()));
    QCOMPARE(rows->size(), 1);
    const AuditRecord &row = rows->constFirst();
    QCOMPARE(row.id, audit.id);
    QCOMPARE(row.atMs, now);
    QCOMPARE(row.actor, QStringLiteral("ops-oncall"));
    QCOMPARE(row.action, OperatorAction::Force);
    QCOMPARE(row.target, s.toText());
    QCOMPARE(row.asked, selected.size());
    QCOMPARE(row.changed, changes.size());
}

void tst_BulkActions::cancelStopsWhenAskedAndTheRowSaysHowFar()
{
    auto store = open();
    QVERIFY(store);
    seed(*store, 1400);
    if (QTest::currentTestFailed())
        return;
    const auto before = snapshot(*store);
    const OperationSelection s = parse("endpoint=sync");
    AuditRecord audit;
    audit.actor = QStringLiteral("ops");
    audit.action = OperatorAction::Cancel;
    audit.target = s.toText();
    BulkOptions options;
    options.chunkSize = 200;
    int calls = 0;
    options.progress = [&calls](const BulkProgress &) {
        return ++calls < 2;
    };
    const BulkOutcome outcome =
        store->applyToMatching(s, OperatorAction::Cancel, kNow + 1000, &audit, options);
    QVERIFY(outcome.result == BulkOutcome::Result::Stopped);
    QCOMPARE(calls, 2);
    QCOMPARE(outcome.progress.done, 400);

    // The first 400 operations of the endpoint were looked at: those not ended are
    // cancelled, or asked to be when their attempt is running.
    QList<OperationRecord> ofSync;
    for (const OperationRecord &op : store->operations(OperationFilter())) {
        if (op.endpointId == QLatin1String("sync"))
            ofSync.append(op);
    }
    qint64 cancelled = 0;
    qint64 pending = 0;
    for (int i = 0; i < ofSync.size(); ++i) {
        const OperationRecord &op = ofSync[i];
        const OperationRecord &was = before.value(op.id);
        if (i >= 400 || isFinal(was.state)) {
            QCOMPARE(op.state, was.state);
            QCOMPARE(op.cancelRequested, false);
        } else if (was.state == OperationState::Running) {
            QCOMPARE(op.state, OperationState::Running); // its lease is live
            QVERIFY(op.cancelRequested);
            ++pending;
        } else {
            QCOMPARE(op.state, OperationState::Cancelled);
            QCOMPARE(op.finalReason, QStringLiteral("cancelled_by_operator"));
            ++cancelled;
        }
    }
    QVERIFY(pending > 0);
    QCOMPARE(outcome.progress.changed, cancelled + pending);
    QCOMPARE(outcome.progress.pending, pending);
    const auto rows = store->operatorActions();
    QCOMPARE(rows->size(), 1);
    QCOMPARE(rows->constFirst().asked, 700);
    QCOMPARE(rows->constFirst().changed, cancelled + pending);
}

void tst_BulkActions::nothingMatchingIsStillRecorded()
{
    auto store = open();
    QVERIFY(store);
    seed(*store, 14);
    if (QTest::currentTestFailed())
        return;
    AuditRecord audit;
    audit.actor = QStringLiteral("ops");
    audit.action = OperatorAction::Retry;
    const OperationSelection s = parse("endpoint=nowhere");
    audit.target = s.toText();
    const BulkOutcome outcome = store->applyToMatching(s, OperatorAction::Retry, kNow, &audit);
    QVERIFY(outcome.result == BulkOutcome::Result::Done);
    QCOMPARE(outcome.progress.matched, 0);
    // Matching only operations a retry cannot change: looked at, none changed.
    AuditRecord running;
    running.actor = QStringLiteral("ops");
    running.target = QStringLiteral("state=succeeded");
    const BulkOutcome none =
        store->applyToMatching(parse("state=succeeded"), OperatorAction::Retry, kNow, &running);
    QVERIFY(none.result == BulkOutcome::Result::Done);
    QCOMPARE(none.progress.matched, 2);
    QCOMPARE(none.progress.changed, 0);
    const auto rows = store->operatorActions(-1, -1, -1, true);
    QCOMPARE(rows->size(), 2);
    QCOMPARE(rows->at(0).target, QStringLiteral("state=succeeded"));
    QCOMPARE(rows->at(0).asked, 2);
    QCOMPARE(rows->at(0).changed, 0);
    QCOMPARE(rows->at(1).target, QStringLiteral("endpoint=nowhere"));
    QCOMPARE(rows->at(1).asked, 0);
}

void tst_BulkActions::singleActionsShareOneRow()
{
    auto store = open();
    QVERIFY(store);
    const qint64 a =
        store->createOperation(QStringLiteral("e"), QStringLiteral("k1"), kNow).value();
    const qint64 b =
        store->createOperation(QStringLiteral("e"), QStringLiteral("k2"), kNow).value();
    QCOMPARE(store->cancel(b, kNow), Store::OperatorResult::Done); // no audit: no row
    QCOMPARE(store->operatorActions()->size(), 0);

    // One action on three operations, applied by three calls: one row.
    AuditRecord audit;
    audit.atMs = kNow;
    audit.actor = QStringLiteral("alice");
    audit.workerId = QStringLiteral("w1");
    audit.action = OperatorAction::Retry;
    audit.target = idListTarget({a, b, 999});
    audit.asked = 3;
    QCOMPARE(store->retryNow(a, kNow, false, &audit), Store::OperatorResult::Done);
    QVERIFY(audit.id > 0);
    QCOMPARE(store->retryNow(b, kNow, false, &audit), Store::OperatorResult::Refused);
    QVERIFY2(store->lastError().contains(QStringLiteral("cancelled")),
             qPrintable(store->lastError()));
    QCOMPARE(store->retryNow(999, kNow, false, &audit), Store::OperatorResult::NotFound);
    auto rows = store->operatorActions();
    QCOMPARE(rows->size(), 1);
    QCOMPARE(rows->constFirst().target, QStringLiteral("ids=%1,%2,999").arg(a).arg(b));
    QCOMPARE(rows->constFirst().asked, 3);
    QCOMPARE(rows->constFirst().changed, 1);
    QCOMPARE(rows->constFirst().workerId, QStringLiteral("w1"));

    AuditRecord cancel = audit;
    cancel.id = 0;
    cancel.changed = 0;
    cancel.action = OperatorAction::Cancel;
    QCOMPARE(store->cancel(a, kNow + 1, &cancel), Store::OperatorResult::Done);
    QCOMPARE(store->cancel(a, kNow + 2, &cancel), Store::OperatorResult::Refused);

    AuditRecord pause;
    pause.atMs = kNow;
    pause.actor = QStringLiteral("alice");
    pause.action = OperatorAction::Pause;
    pause.target = endpointListTarget({QStringLiteral("e"), QStringLiteral("f")});
    pause.asked = 2;
    QVERIFY(store->setEndpointPaused(QStringLiteral("e"), true, kNow, &pause));
    QVERIFY(store->setEndpointPaused(QStringLiteral("f"), true, kNow, &pause));
    QCOMPARE(*store->isEndpointPaused(QStringLiteral("f")), true);

    AuditRecord lift;
    lift.atMs = kNow;
    lift.actor = QStringLiteral("alice");
    lift.action = OperatorAction::LiftHold;
    lift.target = QStringLiteral("partitions=p/k");
    lift.asked = 1;
    QVERIFY(store->liftPartitionSnooze(QStringLiteral("p"), QStringLiteral("k"), -1, kNow, &lift) >=
            0);

    rows = store->operatorActions();
    QCOMPARE(rows->size(), 4);
    QCOMPARE(rows->at(1).action, OperatorAction::Cancel);
    QCOMPARE(rows->at(1).changed, 1);
    QCOMPARE(rows->at(2).action, OperatorAction::Pause);
    QCOMPARE(rows->at(2).changed, 2);
    QCOMPARE(rows->at(3).action, OperatorAction::LiftHold);
    // The time range selects by when the action was asked for.
    QCOMPARE(store->operatorActions(kNow + 1, -1)->size(), 0);
    QCOMPARE(store->operatorActions(kNow, kNow + 1)->size(), 4);
}

void tst_BulkActions::migrationAddsTheAuditTable()
{
    // An operation of the version before the audit table, its rows copied from one this
    // version wrote (whose action is audited; the older database has nowhere to keep it).
    QTemporaryDir other;
    const QString recordedAt = other.filePath(QStringLiteral("recorded.db"));
    QString error;
    qint64 id = 0;
    {
        auto recorded = open(recordedAt);
        QVERIFY(recorded);
        id = recorded->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow).value();
        AuditRecord audit;
        audit.atMs = kNow;
        audit.actor = QStringLiteral("bob");
        audit.action = OperatorAction::Retry;
        audit.target = idListTarget({id});
        audit.asked = 1;
        QCOMPARE(recorded->retryNow(id, kNow, false, &audit), Store::OperatorResult::Done);
        QCOMPARE(recorded->operatorActions()->size(), 1);
    }
    QVERIFY2(Store::createAtVersion(m_url, schema::auditVersion() - 1, &error), qPrintable(error));
    QVERIFY2(test::copyRows(recordedAt, m_url,
                            {QStringLiteral("endpoints"), QStringLiteral("operations"),
                             QStringLiteral("operator_audit")},
                            &error),
             qPrintable(error));

    auto store = open();
    QVERIFY(store);
    QCOMPARE(store->schemaVersion().value_or(-1), Store::latestSchemaVersion());
    QCOMPARE(store->operatorActions()->size(), 0);
    QVERIFY(store->operation(id));
    AuditRecord audit;
    audit.atMs = kNow;
    audit.actor = QStringLiteral("bob");
    audit.action = OperatorAction::Cancel;
    audit.target = idListTarget({id});
    audit.asked = 1;
    QCOMPARE(store->cancel(id, kNow, &audit), Store::OperatorResult::Done);
    QCOMPARE(store->operatorActions()->size(), 1);
}

QTEST_GUILESS_MAIN(tst_BulkActions)
#include "tst_bulkactions.moc"
