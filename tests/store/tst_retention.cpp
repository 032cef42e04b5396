// SPDX-License-Identifier: Apache-2.0
// Retention on SQLite and PostgreSQL: the pruner removes exactly the history older
// than the periods, never an attempt of an operation that has not ended, in batches,
// and on SQLite the file shrinks. Time is a ManualClock; nothing here sleeps.

#include "StoreTestSupport.h"
#include "support/AttemptFixture.h"

#include "core/store/RetentionPruner.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QFileInfo>
#include <QLoggingCategory>
#include <QTest>

#include <algorithm>
#include <memory>

using namespace cooldown;

namespace {

const qint64 kDay = 24LL * 3600 * 1000;
const qint64 kNow = 1'795'000'020'000; // on a minute; no test here reads the clock

// The claimed operation's next attempt, started at `at`, leaving it in `state` (a
// waiting one is due a day after kNow).
bool finish(Store &store, const OperationRecord &op, qint64 at, OperationState state,
            const QString &headers = {})
{
    AttemptRecord a = test::nextAttempt(op, at, at + 10);
    a.status = state == OperationState::Succeeded ? 200 : 503;
    a.decision = test::decisionLeaving(state);
    a.responseHeaders = headers;
    return test::finishAttempt(store, a, test::leftIn(op, a, state, kNow + kDay),
                               QStringLiteral("w")) == Store::FinishResult::Committed;
}

// One operation with one attempt that started at `at`, left in `state`. Returns its id.
qint64 record(Store &store, const QString &endpoint, qint64 at, OperationState state,
              const QString &headers = {})
{
    const auto claimed = test::claimNew(store, endpoint, QString(), at, QStringLiteral("w"));
    return claimed && finish(store, *claimed, at, state, headers) ? claimed->id : 0;
}

QList<qint64> sorted(QList<qint64> ids)
{
    std::sort(ids.begin(), ids.end());
    return ids;
}

} // namespace

class tst_Retention : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void init();
    void cleanup();

    void prunesExactlyWhatIsOlder();
    void prunableSelectionIsWhatIsPruned();
    void zeroKeepsForEver();
    void prunesInBatches();
    void fileShrinks();
    void vacuumThroughQtSqlAlone();

private:
    std::unique_ptr<Store> open();
    bool isSqlite() const { return m_backend == QLatin1String("sqlite"); }

    QString m_backend;
    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void tst_Retention::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("postgresql") << "postgresql";
}

void tst_Retention::init()
{
    QFETCH_GLOBAL(QString, backend);
    m_backend = backend;
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    if (isSqlite()) {
        m_url = m_dir->filePath(QStringLiteral("retention.db"));
        return;
    }
    QString why;
    m_url = test::freshPostgresDatabase(QStringLiteral("cooldown_tst_retention"), &why);
    if (m_url.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
}

void tst_Retention::cleanup()
{
    m_dir.reset();
}

std::unique_ptr<Store> tst_Retention::open()
{
    QString error;
    StoreOptions options;
    options.paceByDatabaseClock = false;
    std::unique_ptr<Store> store = Store::open(m_url, &error, options);
    if (!store)
        qWarning("open failed: %s", qPrintable(error));
    return store;
}

void tst_Retention::prunesExactlyWhatIsOlder()
{
    auto store = open();
    QVERIFY(store);
    const qint64 raw = 30 * kDay;
    // Ended long ago, just before and just after the raw cutoff, and recently.
    const qint64 ancient =
        record(*store, QStringLiteral("e"), kNow - 450 * kDay, OperationState::Succeeded);
    const qint64 old =
        record(*store, QStringLiteral("e"), kNow - 100 * kDay, OperationState::Failed);
    const qint64 justBefore =
        record(*store, QStringLiteral("e"), kNow - raw - 1, OperationState::Succeeded);
    const qint64 atCutoff =
        record(*store, QStringLiteral("e"), kNow - raw, OperationState::Succeeded);
    const qint64 recent =
        record(*store, QStringLiteral("e"), kNow - kDay, OperationState::Succeeded);
    // Old, but their operations have not ended: kept, whatever their age.
    const qint64 parked =
        record(*store, QStringLiteral("e"), kNow - 200 * kDay, OperationState::Parked);
    const qint64 waiting =
        record(*store, QStringLiteral("e"), kNow - 200 * kDay, OperationState::Waiting);
    for (const qint64 id : {ancient, old, justBefore, atCutoff, recent, parked, waiting})
        QVERIFY(id > 0);
    QCOMPARE(store->earliestAttemptMs(), kNow - 450 * kDay);
    const qint64 rollupsBefore = store->rollups(0, kNow * 2).size();
    QCOMPARE(rollupsBefore, qint64(6)); // both at the cutoff end in one minute

    ManualClock clock(kNow);
    RetentionPruner pruner(m_url, clock, RetentionPeriods{raw, 400 * kDay});
    const PruneSummary summary = pruner.pruneNow();
    QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
    QVERIFY(summary.complete);
    QCOMPARE(summary.attempts, qint64(3));
    QCOMPARE(summary.rollups, qint64(1)); // the minute 450 days ago

    QList<qint64> kept;
    for (const AttemptRecord &a : store->attempts({}))
        kept.append(a.operationId);
    std::sort(kept.begin(), kept.end());
    QList<qint64> expected{atCutoff, recent, parked, waiting};
    std::sort(expected.begin(), expected.end());
    QCOMPARE(kept, expected);
    // The operations whose history went are gone too; the others stay.
    QVERIFY(!store->operation(ancient));
    QVERIFY(!store->operation(old));
    QVERIFY(!store->operation(justBefore));
    QVERIFY(store->operation(parked));
    QVERIFY(store->operation(waiting));
    QCOMPARE(store->earliestAttemptMs(), kNow - 200 * kDay);
    // Rollups are kept longer than the raw attempts.
    const QList<RollupRecord> rollups = store->rollups(0, kNow * 2);
    QCOMPARE(rollups.size(), 5);
    QCOMPARE(rollups.first().minuteAtMs, (kNow - 200 * kDay) / 60'000 * 60'000);
    // The hourly sums go with them.
    const qint64 hour = 3'600'000;
    const QList<RollupRecord> hours = store->rollups(0, kNow * 2, hour);
    QVERIFY(!hours.isEmpty());
    QCOMPARE(hours.first().minuteAtMs, (kNow - 200 * kDay) / hour * hour);

    // A later pass finds nothing; a day on, the attempt at the cutoff goes.
    QCOMPARE(pruner.pruneNow().attempts, qint64(0));
    clock.advance(kDay);
    QCOMPARE(pruner.pruneNow().attempts, qint64(1));
    QVERIFY(!store->operation(atCutoff));
}

void tst_Retention::prunableSelectionIsWhatIsPruned()
{
    // `cooldown export --prunable` writes what AttemptFilter::prunableBeforeMs selects at
    // the cut RetentionPeriods gives; the pruner deletes by the same rule. Around the cut,
    // of every kind of operation, and one with attempts on both sides of it.
    auto store = open();
    QVERIFY(store);
    const RetentionPeriods periods = RetentionPeriods::fromDays(30, 400);
    const qint64 cut = periods.rawCutoffMs(kNow);
    QCOMPARE(cut, kNow - 30 * kDay);
    QCOMPARE(RetentionPeriods::fromDays(0, 400).rawCutoffMs(kNow), qint64(-1));

    // Its first attempt is older than the cut, its second newer: only the first goes.
    const qint64 split = record(*store, QStringLiteral("e"), cut - kDay, OperationState::Waiting);
    QVERIFY(split > 0);
    const QList<OperationRecord> again =
        store->claims().claimDue(QStringLiteral("w"), kNow + kDay, 60'000, 1);
    QCOMPARE(again.size(), 1);
    QCOMPARE(again.first().id, split);
    QVERIFY(finish(*store, again.first(), kNow - kDay, OperationState::Succeeded));

    const qint64 old = record(*store, QStringLiteral("f"), cut - 90 * kDay, OperationState::Failed);
    const qint64 justBefore =
        record(*store, QStringLiteral("e"), cut - 1, OperationState::Succeeded);
    const qint64 atCut = record(*store, QStringLiteral("e"), cut, OperationState::Succeeded);
    const qint64 cancelled =
        record(*store, QStringLiteral("f"), cut - 2 * kDay, OperationState::Waiting);
    QVERIFY(cancelled > 0);
    QCOMPARE(store->cancel(cancelled, kNow), Store::OperatorResult::Done);
    const qint64 waiting =
        record(*store, QStringLiteral("e"), cut - 5 * kDay, OperationState::Waiting);
    const qint64 parked =
        record(*store, QStringLiteral("f"), cut - 5 * kDay, OperationState::Parked);
    for (const qint64 id : {old, justBefore, atCut, waiting, parked})
        QVERIFY(id > 0);

    AttemptFilter prunable;
    prunable.prunableBeforeMs = cut;
    QList<qint64> selected;
    QList<QPair<qint64, int>> selectedAttempts;
    for (const AttemptRecord &a : store->attempts(prunable)) {
        selected.append(a.id);
        selectedAttempts.append({a.operationId, a.attempt});
    }
    std::sort(selectedAttempts.begin(), selectedAttempts.end());
    QList<QPair<qint64, int>> expected{{split, 1}, {old, 1}, {justBefore, 1}, {cancelled, 1}};
    std::sort(expected.begin(), expected.end());
    QCOMPARE(selectedAttempts, expected);
    // Every way of reading the selection agrees: the count, the ids, the export's stream.
    QCOMPARE(store->countAttempts(prunable), qint64(selected.size()));
    QCOMPARE(store->attemptIds(prunable), selected);
    QList<qint64> streamed;
    const std::unique_ptr<AttemptCursor> cursor = store->streamAttempts(prunable, false);
    QVERIFY(cursor);
    while (cursor->next())
        streamed.append(cursor->integer(AttemptColumn::Id));
    QVERIFY2(cursor->error().isEmpty(), qPrintable(cursor->error()));
    QCOMPARE(streamed, selected);

    QList<qint64> before;
    for (const AttemptRecord &a : store->attempts({}))
        before.append(a.id);
    ManualClock clock(kNow);
    RetentionPruner pruner(m_url, clock, periods);
    const PruneSummary summary = pruner.pruneNow();
    QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
    QCOMPARE(summary.attempts, qint64(selected.size()));
    QList<qint64> deleted = before;
    for (const AttemptRecord &a : store->attempts({}))
        deleted.removeOne(a.id);
    QCOMPARE(sorted(deleted), sorted(selected));
    QCOMPARE(store->countAttempts(prunable), qint64(0));
}

void tst_Retention::zeroKeepsForEver()
{
    auto store = open();
    QVERIFY(store);
    QVERIFY(record(*store, QStringLiteral("e"), kNow - 5000 * kDay, OperationState::Succeeded));
    ManualClock clock(kNow);
    RetentionPruner pruner(m_url, clock, RetentionPeriods{0, 0});
    const PruneSummary summary = pruner.pruneNow();
    QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
    QCOMPARE(summary.attempts, qint64(0));
    QCOMPARE(summary.rollups, qint64(0));
    QCOMPARE(store->countAttempts({}), qint64(1));
    QCOMPARE(store->rollups(0, kNow).size(), 1);
}

void tst_Retention::prunesInBatches()
{
    auto store = open();
    QVERIFY(store);
    const int count = 3 * RetentionPruner::kFirstBatchRows + 17;
    for (int i = 0; i < count; ++i)
        QVERIFY(record(*store, QStringLiteral("e%1").arg(i % 7), kNow - 60 * kDay + i * 1000,
                       OperationState::Succeeded));
    ManualClock clock(kNow);
    RetentionPruner pruner(m_url, clock, RetentionPeriods{30 * kDay, 40 * kDay});
    // One batch takes at most its limit, and leaves the rest for the next.
    QVERIFY(pruner.runBatch());
    QVERIFY(pruner.summary().attempts <= RetentionPruner::kFirstBatchRows);
    QVERIFY(pruner.summary().attempts > 0);
    const PruneSummary summary = pruner.pruneNow();
    QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
    QCOMPARE(summary.attempts + RetentionPruner::kFirstBatchRows >= count, true);
    QCOMPARE(store->countAttempts({}), qint64(0));
    QVERIFY(store->rollups(0, kNow).isEmpty());
    QVERIFY(summary.batches >= 2);
    QCOMPARE(store->earliestAttemptMs(), qint64(-1));
}

void tst_Retention::fileShrinks()
{
    if (!isSqlite())
        QSKIP("a SQLite file only");
    const QString headers = QStringLiteral("X-Padding: %1\n").arg(QString(2000, u'x'));
    {
        auto store = open();
        QVERIFY(store);
        for (int i = 0; i < 3000; ++i)
            QVERIFY(record(*store, QStringLiteral("e"), kNow - 90 * kDay + i * 1000,
                           OperationState::Succeeded, headers));
    }
    // Closing the last connection checkpoints the log into the file.
    const qint64 full = QFileInfo(m_url).size();
    QVERIFY2(full > 3000 * 2000, qPrintable(QString::number(full)));
    {
        ManualClock clock(kNow);
        RetentionPruner pruner(m_url, clock, RetentionPeriods{30 * kDay, 400 * kDay});
        const PruneSummary summary = pruner.pruneNow();
        QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
        QCOMPARE(summary.attempts, qint64(3000));
        QCOMPARE(summary.freePagesLeft, qint64(0));
    }
    const qint64 after = QFileInfo(m_url).size();
    QVERIFY2(after < full / 4, qPrintable(QStringLiteral("%1 -> %2 bytes").arg(full).arg(after)));
    // The rollups of those minutes are still there.
    auto store = open();
    QVERIFY(store);
    qint64 attempts = 0;
    for (const RollupRecord &r : store->rollups(0, kNow))
        attempts += r.attempts;
    QCOMPARE(attempts, qint64(3000));
}

void tst_Retention::vacuumThroughQtSqlAlone()
{
    if (!isSqlite())
        QSKIP("a SQLite file only");
    const QString headers = QStringLiteral("X-Padding: %1\n").arg(QString(2000, u'x'));
    {
        auto store = open();
        QVERIFY(store);
        for (int i = 0; i < 600; ++i)
            QVERIFY(record(*store, QStringLiteral("e"), kNow - 90 * kDay + i * 1000,
                           OperationState::Succeeded, headers));
    }
    const qint64 full = QFileInfo(m_url).size();
    {
        StoreOptions options;
        options.useLinkedSqlite = false; // the driver's own library, through QtSql only
        QString error;
        auto store = Store::open(m_url, &error, options);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(!store->usesLinkedSqlite());
        QCOMPARE(store->pruneAttempts(kNow - 30 * kDay, 1000).rows, qint64(600));
        qint64 left = store->incrementalVacuum(100);
        QVERIFY2(left > 0, qPrintable(store->lastError()));
        for (int i = 0; i < 1000 && left > 0; ++i)
            left = store->incrementalVacuum(100);
        QCOMPARE(left, qint64(0));
    }
    const qint64 after = QFileInfo(m_url).size();
    QVERIFY2(after < full / 4, qPrintable(QStringLiteral("%1 -> %2 bytes").arg(full).arg(after)));
}

QTEST_GUILESS_MAIN(tst_Retention)
#include "tst_retention.moc"
