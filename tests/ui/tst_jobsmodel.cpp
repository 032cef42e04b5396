#include "ui/JobsModel.h"
#include "ui/Palette.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QSignalSpy>
#include <QTest>

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
};

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
    model.upsert(op(5, OperationState::Succeeded, 4));
    QCOMPARE(model.index(1, JobsModel::StateColumn).data().toString(), QStringLiteral("succeeded"));
    // A refresh read before that change arrives later: it must not undo it.
    model.upsert(op(5, OperationState::Running, 3));
    QCOMPARE(model.index(1, JobsModel::StateColumn).data().toString(), QStringLiteral("succeeded"));
    model.setOperations({op(2, OperationState::Waiting), op(5, OperationState::Running, 3)});
    QCOMPARE(model.index(1, JobsModel::StateColumn).data().toString(), QStringLiteral("succeeded"));
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
    model.setNowMs(99500);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().column(), int(JobsModel::NextAttemptColumn));
    QCOMPARE(changed.first().at(1).toModelIndex().column(), int(JobsModel::NextAttemptColumn));
    QCOMPARE(next.data().toString(), QStringLiteral("in 1 s"));
    model.setNowMs(100000);
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

QTEST_MAIN(tst_JobsModel)
#include "tst_jobsmodel.moc"
