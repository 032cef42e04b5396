// SPDX-License-Identifier: Apache-2.0
#include "core/store/Store.h"
#include "ui/JobsModel.h"
#include "ui/JobsReader.h"
#include "ui/Palette.h"
#include "ui/WorkerThread.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QHeaderView>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cooldown;

namespace {

OperationRecord op(qint64 id, OperationState state, qint64 version = 1)
{
    OperationRecord o;
    o.id = id;
    o.endpointId = QStringLiteral("e%1").arg(id % 3);
    o.state = state;
    o.version = version;
    o.policyId = QStringLiteral("read-v1");
    o.partitionKey = QStringLiteral("p-1");
    return o;
}

QList<qint64> ids(const JobsModel &model)
{
    QList<qint64> out;
    for (int r = 0; r < model.rowCount(); ++r)
        out.append(model.index(r, 0).data(JobsModel::OperationIdRole).toLongLong());
    return out;
}

constexpr qint64 kNow = 1795953600000; // 2026-11-29T12:00:00Z

// count new scheduled operations, in one transaction, alternating between endpoints a
// and b. Their ids, ascending.
QList<qint64> seed(Store &store, int count, qint64 dueAtMs = -1)
{
    QList<Store::NewOperation> jobs;
    jobs.reserve(count);
    for (int i = 0; i < count; ++i) {
        Store::NewOperation job;
        job.endpointId = i % 2 == 0 ? QStringLiteral("a") : QStringLiteral("b");
        job.idempotencyKey = QStringLiteral("key-%1").arg(i);
        job.requestHash = QStringLiteral("request-%1").arg(i);
        job.dueAtMs = dueAtMs;
        jobs.append(job);
    }
    QList<qint64> out;
    const auto intake = store.enqueue(jobs, kNow, Store::IntakeMode::AllOrNothing);
    if (!intake)
        return out;
    for (const Store::Intake &i : *intake)
        out.append(i.id);
    std::sort(out.begin(), out.end());
    return out;
}

// What the store holds in the query's open states, ascending: what the rows must be.
QList<qint64> activeIds(Store &store, const QString &endpoint = {})
{
    QList<qint64> out;
    for (const OperationState state : {OperationState::Scheduled, OperationState::Running,
                                       OperationState::Waiting, OperationState::Parked}) {
        OperationFilter filter;
        filter.state = state;
        filter.endpointId = endpoint;
        out.append(store.operationIds(filter));
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool allLoaded(const JobsModel &model, int first, int last)
{
    for (int r = first; r <= last; ++r) {
        if (!model.index(r, 0).data(JobsModel::LoadedRole).toBool())
            return false;
    }
    return true;
}

} // namespace

class tst_JobsModel : public QObject
{
    Q_OBJECT

private slots:
    void mergesRefreshes_data();
    void mergesRefreshes();
    void refreshKeepsRowsAndSelection();
    void upsertInsertsInOrderAndIgnoresOlderVersions();
    void countdownMovesOnlyItsColumn();
    void showsHoldsAndPausedEndpoints();
    void rolesCarryTheRecord();
    void onlyFailedIsAProblem();
    void newRowsOnlyForTheQuery();

    // Paged from a store.
    void init();
    void cleanup();
    void pagesFromTheStoreUnderTheTester();
    void rowsTheStoreNoLongerSelectsGo();
    void endpointFilterIsPartOfTheQuery();
    void latestScopesKeepTheLatest();
    void scrollingReachesEveryRowOnceInOrder();
    void countdownsMoveOnTheRowsShownOnly();

private:
    QString url() const { return m_dir->filePath(QStringLiteral("jobs.db")); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Store> m_store;
};

void tst_JobsModel::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QString error;
    m_store = Store::open(url(), &error);
    QVERIFY2(m_store, qPrintable(error));
}

void tst_JobsModel::cleanup()
{
    m_store.reset();
    m_dir.reset();
}

void tst_JobsModel::mergesRefreshes_data()
{
    QTest::addColumn<QList<qint64>>("before");
    QTest::addColumn<QList<qint64>>("after");
    QTest::newRow("empty to some") << QList<qint64>{} << QList<qint64>{1, 2, 3};
    QTest::newRow("some to empty") << QList<qint64>{1, 2, 3} << QList<qint64>{};
    QTest::newRow("interleaved") << QList<qint64>{1, 3, 5, 7} << QList<qint64>{2, 3, 4, 7, 8};
    QTest::newRow("runs removed") << QList<qint64>{1, 2, 3, 4, 5, 6} << QList<qint64>{1, 6};
    QTest::newRow("runs inserted") << QList<qint64>{1, 6} << QList<qint64>{1, 2, 3, 4, 5, 6, 9};
    QTest::newRow("unsorted input") << QList<qint64>{4, 2} << QList<qint64>{9, 1, 4};
    QTest::newRow("same") << QList<qint64>{1, 2} << QList<qint64>{1, 2};
}

void tst_JobsModel::mergesRefreshes()
{
    QFETCH(QList<qint64>, before);
    QFETCH(QList<qint64>, after);
    JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QList<OperationRecord> first;
    for (const qint64 id : before)
        first.append(op(id, OperationState::Waiting));
    model.setOperations(first);
    QList<OperationRecord> second;
    for (const qint64 id : after)
        second.append(op(id, OperationState::Running, 2));
    model.setOperations(second);
    std::sort(after.begin(), after.end());
    QCOMPARE(ids(model), after);
    for (int r = 0; r < model.rowCount(); ++r)
        QCOMPARE(model.index(r, JobsModel::StateColumn).data().toString(),
                 QStringLiteral("running"));
}

void tst_JobsModel::refreshKeepsRowsAndSelection()
{
    JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setOperations({op(1, OperationState::Waiting), op(2, OperationState::Waiting)});
    const QPersistentModelIndex second = model.index(1, 0);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setOperations({op(2, OperationState::Running, 2), op(3, OperationState::Scheduled)});
    QCOMPARE(reset.size(), 0);
    QVERIFY(second.isValid());
    QCOMPARE(second.row(), 0);
    QCOMPARE(second.data(JobsModel::StateRole).value<OperationState>(), OperationState::Running);
    QCOMPARE(changed.size(), 1);
}

void tst_JobsModel::upsertInsertsInOrderAndIgnoresOlderVersions()
{
    JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.upsert(op(5, OperationState::Running, 3));
    model.upsert(op(2, OperationState::Waiting));
    model.upsert(op(9, OperationState::Scheduled));
    QCOMPARE(ids(model), (QList<qint64>{2, 5, 9}));
    model.upsert(op(5, OperationState::Waiting, 4));
    QCOMPARE(model.index(1, JobsModel::StateColumn).data().toString(), QStringLiteral("waiting"));
    // A refresh read before that change arrives later: it must not undo it.
    model.upsert(op(5, OperationState::Running, 3));
    QCOMPARE(model.index(1, JobsModel::StateColumn).data().toString(), QStringLiteral("waiting"));
    model.setOperations({op(2, OperationState::Waiting), op(5, OperationState::Running, 3)});
    QCOMPARE(model.index(1, JobsModel::StateColumn).data().toString(), QStringLiteral("waiting"));
    QCOMPARE(model.rowOf(9), -1);
    QCOMPARE(model.rowOf(5), 1);
}

void tst_JobsModel::countdownMovesOnlyItsColumn()
{
    JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    OperationRecord waiting = op(1, OperationState::Waiting);
    waiting.nextAttemptAtMs = 100000;
    OperationRecord done = op(2, OperationState::Succeeded);
    done.nextAttemptAtMs = -1;
    model.setOperations({waiting, done});
    model.setNowMs(70000);
    const QModelIndex next = model.index(0, JobsModel::NextAttemptColumn);
    QCOMPARE(next.data().toString(), QStringLiteral("in 30 s"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.showTime(99500, 0, 1);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().column(), int(JobsModel::NextAttemptColumn));
    QCOMPARE(changed.first().at(1).toModelIndex().column(), int(JobsModel::NextAttemptColumn));
    QCOMPARE(next.data().toString(), QStringLiteral("in 1 s"));
    // Rows no view shows do not change.
    model.showTime(99600, 0, -1);
    QCOMPARE(changed.size(), 1);
    model.showTime(100000, 0, 1);
    QCOMPARE(next.data().toString(), QStringLiteral("due"));
    QCOMPARE(model.index(1, JobsModel::NextAttemptColumn).data().toString(), QStringLiteral("—"));
}

void tst_JobsModel::showsHoldsAndPausedEndpoints()
{
    JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setOperations({op(1, OperationState::Waiting)});
    model.setNowMs(1000);
    const QModelIndex partition = model.index(0, JobsModel::PartitionColumn);
    QCOMPARE(partition.data().toString(), QStringLiteral("p-1"));
    PartitionHold hold;
    hold.policyId = QStringLiteral("read-v1");
    hold.partitionKey = QStringLiteral("p-1");
    hold.untilMs = 31000;
    model.setHolds({hold});
    QCOMPARE(partition.data().toString(), QStringLiteral("p-1 (held, in 30 s)"));
    model.setPausedEndpoints({QStringLiteral("e1")});
    QCOMPARE(model.index(0, JobsModel::EndpointColumn).data().toString(),
             QStringLiteral("e1 (paused)"));
    QVERIFY(model.isPaused(QStringLiteral("e1")));
}

void tst_JobsModel::rolesCarryTheRecord()
{
    JobsModel model;
    OperationRecord o = op(7, OperationState::Parked);
    o.leaseOwner = QStringLiteral("worker-a");
    o.finalReason = QStringLiteral("ambiguous_send");
    o.attempt = 2;
    o.lastStatus = 0;
    o.lastError = QStringLiteral("closed");
    model.setOperations({o});
    const QModelIndex i = model.index(0, 0);
    QCOMPARE(i.data(JobsModel::OperationIdRole).toLongLong(), qint64(7));
    QCOMPARE(i.data(JobsModel::EndpointIdRole).toString(), QStringLiteral("e1"));
    QCOMPARE(i.data(JobsModel::OperationRole).value<OperationRecord>().finalReason,
             QStringLiteral("ambiguous_send"));
    QCOMPARE(model.index(0, JobsModel::LastStatusColumn).data().toString(),
             QStringLiteral("closed"));
    QCOMPARE(model.index(0, JobsModel::LeaseOwnerColumn).data().toString(),
             QStringLiteral("worker-a"));
    QCOMPARE(model.headerData(JobsModel::NextAttemptColumn, Qt::Horizontal).toString(),
             QStringLiteral("Next attempt"));
    QCOMPARE(model.columnCount(), int(JobsModel::ColumnCount));
    QCOMPARE(model.rowCount(i), 0);
}

void tst_JobsModel::onlyFailedIsAProblem()
{
    JobsModel model;
    model.setOperations({op(1, OperationState::Failed), op(2, OperationState::Waiting),
                         op(3, OperationState::Running), op(4, OperationState::Parked),
                         op(5, OperationState::Succeeded)});
    QCOMPARE(model.rowCount(), 5);
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex state = model.index(row, JobsModel::StateColumn);
        const QColor color = state.data(Qt::ForegroundRole).value<QBrush>().color();
        const bool failed = state.data(JobsModel::OperationRole).value<OperationRecord>().state ==
                            OperationState::Failed;
        QVERIFY2((color == palette::problem()) == failed, qPrintable(state.data().toString()));
    }
}

void tst_JobsModel::newRowsOnlyForTheQuery()
{
    JobsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.upsert(op(1, OperationState::Running, 2));
    model.upsert(op(2, OperationState::Waiting));
    // An operation that is already over never gets a row of the active list.
    model.upsert(op(3, OperationState::Succeeded));
    QCOMPARE(ids(model), (QList<qint64>{1, 2}));
    // One that ends shows how it ended, until the list is read again.
    model.upsert(op(1, OperationState::Succeeded, 3));
    QCOMPARE(ids(model), (QList<qint64>{1, 2}));
    QCOMPARE(model.index(0, JobsModel::StateColumn).data().toString(), QStringLiteral("succeeded"));
    // The latest operations of any state take new ones at the end only.
    model.setQuery(JobsQuery{JobsScope::Recent, QString()});
    model.upsert(op(4, OperationState::Succeeded, 3));
    model.upsert(op(2, OperationState::Running, 2));
    QCOMPARE(ids(model), (QList<qint64>{4}));
}

void tst_JobsModel::pagesFromTheStoreUnderTheTester()
{
    const QList<qint64> seeded = seed(*m_store, 1500);
    QCOMPARE(seeded.size(), 1500);
    // Some of them end, some run: the active rows are the others, and those running.
    for (int i = 0; i < seeded.size(); i += 7)
        QCOMPARE(m_store->cancel(seeded.at(i), kNow), Store::OperatorResult::Done);
    QCOMPARE(m_store->claims().claimDue(QStringLiteral("w1"), kNow, 60000, 40).size(), 40);
    const QList<qint64> expected = activeIds(*m_store);

    WorkerThread<JobsReader> reader(QStringLiteral("jobs reader"), url());
    JobsModel model;
    model.attach(reader.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.setQuery(JobsQuery{});
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(ids(model), expected);
    // The first chunk of ids came alone, before the rest.
    QVERIFY(inserted.size() >= 2);
    QCOMPARE(inserted.first().at(2).toInt(), JobsReader::kFirstIndexChunk - 1);

    // The first rows came with the index; the others are read when a view asks.
    QVERIFY(model.index(0, 0).data(JobsModel::LoadedRole).toBool());
    QVERIFY(!model.index(500, 0).data(JobsModel::LoadedRole).toBool());
    QSignalSpy loaded(&model, &JobsModel::rowsLoaded);
    model.ensureLoaded(0, model.rowCount() - 1);
    QTRY_VERIFY_WITH_TIMEOUT(allLoaded(model, 0, model.rowCount() - 1), 10000);
    QVERIFY(loaded.size() < (model.rowCount() + JobsModel::kPageRows - 1) / JobsModel::kPageRows);
    for (int r = 0; r < model.rowCount(); ++r) {
        const auto record = model.operationAt(r);
        QVERIFY(record);
        QCOMPARE(record->id, expected.at(r));
        QVERIFY(!isFinal(record->state));
    }

    // A row changes state, live.
    OperationRecord changed = *model.operationAt(100);
    QCOMPARE(changed.state, OperationState::Scheduled);
    changed.state = OperationState::Waiting;
    changed.version += 1;
    changed.nextAttemptAtMs = kNow + 30000;
    QSignalSpy dataChanged(&model, &QAbstractItemModel::dataChanged);
    model.upsert(changed);
    QCOMPARE(dataChanged.size(), 1);
    QCOMPARE(model.index(100, JobsModel::StateColumn).data().toString(), QStringLiteral("waiting"));
    // An operation ends: its row shows it, and goes at the next read of the store.
    QCOMPARE(m_store->cancel(expected.at(101), kNow), Store::OperatorResult::Done);
    model.upsert(*m_store->operation(expected.at(101)));
    QCOMPARE(model.index(101, 0).data(JobsModel::StateRole).value<OperationState>(),
             OperationState::Cancelled);

    // Another worker cancels some and adds one: a refresh follows the store.
    for (int r = 110; r < 120; ++r)
        QCOMPARE(m_store->cancel(expected.at(r), kNow), Store::OperatorResult::Done);
    Store::NewOperation job;
    job.endpointId = QStringLiteral("a");
    job.idempotencyKey = QStringLiteral("late");
    job.requestHash = QStringLiteral("late request");
    QVERIFY(m_store->enqueue({job}, kNow, Store::IntakeMode::AllOrNothing));
    model.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(ids(model), activeIds(*m_store), 10000);
    QCOMPARE(model.rowOf(expected.at(101)), -1);
    // The new operation's row came with its record.
    QVERIFY(model.index(model.rowCount() - 1, 0).data(JobsModel::LoadedRole).toBool());
    // The rows shown are read again: the store's state, not the one set above.
    model.showTime(kNow, 90, 110);
    QTRY_COMPARE_WITH_TIMEOUT(model.index(100, JobsModel::StateColumn).data().toString(),
                              QStringLiteral("scheduled"), 10000);
}

void tst_JobsModel::rowsTheStoreNoLongerSelectsGo()
{
    const QList<qint64> seeded = seed(*m_store, 300);
    QCOMPARE(seeded.size(), 300);
    WorkerThread<JobsReader> reader(QStringLiteral("jobs reader"), url());
    JobsModel model;
    model.attach(reader.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setQuery(JobsQuery{});
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(model.rowCount(), 300);
    // Cancelled by another worker after the index was read, before the rows were.
    // (The first rows came with the index: these are further down.)
    QVERIFY(!model.index(220, 0).data(JobsModel::LoadedRole).toBool());
    QCOMPARE(m_store->cancel(seeded.at(220), kNow), Store::OperatorResult::Done);
    QCOMPARE(m_store->cancel(seeded.at(250), kNow), Store::OperatorResult::Done);
    model.ensureLoaded(0, model.rowCount() - 1);
    QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() == 298 && allLoaded(model, 0, 297), 10000);
    QCOMPARE(model.rowOf(seeded.at(220)), -1);
    QCOMPARE(model.rowOf(seeded.at(250)), -1);
}

void tst_JobsModel::endpointFilterIsPartOfTheQuery()
{
    QCOMPARE(seed(*m_store, 500).size(), 500);
    WorkerThread<JobsReader> reader(QStringLiteral("jobs reader"), url());
    JobsModel model;
    model.attach(reader.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setQuery(JobsQuery{JobsScope::Active, QStringLiteral("b")});
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(ids(model), activeIds(*m_store, QStringLiteral("b")));
    model.ensureLoaded(0, model.rowCount() - 1);
    QTRY_VERIFY_WITH_TIMEOUT(allLoaded(model, 0, model.rowCount() - 1), 10000);
    for (int r = 0; r < model.rowCount(); ++r)
        QCOMPARE(model.index(r, 0).data(JobsModel::EndpointIdRole).toString(), QStringLiteral("b"));
    // A live change of another endpoint does not come in.
    OperationRecord other = *model.operationAt(0);
    other.id = 100000;
    other.endpointId = QStringLiteral("a");
    model.upsert(other);
    QCOMPARE(model.rowOf(100000), -1);
}

void tst_JobsModel::latestScopesKeepTheLatest()
{
    const QList<qint64> seeded = seed(*m_store, 400);
    QCOMPARE(seeded.size(), 400);
    for (const qint64 id : seeded.mid(0, 20))
        QCOMPARE(m_store->cancel(id, kNow), Store::OperatorResult::Done);
    WorkerThread<JobsReader> reader(QStringLiteral("jobs reader"), url());
    JobsModel model;
    model.attach(reader.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setQuery(JobsQuery{JobsScope::Recent, QString()});
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(ids(model), seeded.mid(seeded.size() - JobsQuery::kLatestOperations));
    model.setQuery(JobsQuery{JobsScope::Failed, QString()});
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(model.rowCount(), 0);
}

void tst_JobsModel::scrollingReachesEveryRowOnceInOrder()
{
    const QList<qint64> seeded = seed(*m_store, 20000);
    QCOMPARE(seeded.size(), 20000);
    WorkerThread<JobsReader> reader(QStringLiteral("jobs reader"), url());
    JobsModel model;
    model.attach(reader.worker());
    QTableView view;
    view.verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view.verticalHeader()->setDefaultSectionSize(20);
    view.resize(900, 4000);
    view.setModel(&model);
    model.setQuery(JobsQuery{});
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 20000);
    QCOMPARE(model.rowCount(), 20000);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));

    QList<qint64> reached;
    QSet<qint64> seen;
    int next = 0; // the first row not reached yet
    while (next < model.rowCount()) {
        // A page down; at the end the view stops short of putting next on top.
        view.verticalScrollBar()->setValue(next);
        const int top = view.rowAt(0);
        QVERIFY(top >= 0 && top <= next);
        int bottom = view.rowAt(view.viewport()->height() - 1);
        if (bottom < 0)
            bottom = model.rowCount() - 1;
        QVERIFY(bottom >= next);
        // What the view paints asks for the rows it shows.
        QTRY_VERIFY_WITH_TIMEOUT(allLoaded(model, top, bottom), 10000);
        for (int r = next; r <= bottom; ++r) {
            const qint64 id = model.operationAt(r)->id;
            QVERIFY2(!seen.contains(id), qPrintable(QString::number(id)));
            seen.insert(id);
            reached.append(id);
        }
        next = bottom + 1;
    }
    QCOMPARE(reached, seeded);
}

void tst_JobsModel::countdownsMoveOnTheRowsShownOnly()
{
    // In JobsPage terms: what a second costs does not grow with the rows.
    JobsModel model;
    QList<OperationRecord> rows;
    for (int i = 1; i <= 1000; ++i) {
        OperationRecord o = op(i, OperationState::Waiting);
        o.nextAttemptAtMs = kNow + i * 1000;
        rows.append(o);
    }
    model.setOperations(rows);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.showTime(kNow + 500, 200, 230);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().row(), 200);
    QCOMPARE(changed.first().at(1).toModelIndex().row(), 230);
    QCOMPARE(model.index(200, JobsModel::NextAttemptColumn).data().toString(),
             QStringLiteral("in 3 min 21 s"));
}

QTEST_MAIN(tst_JobsModel)
#include "tst_jobsmodel.moc"
