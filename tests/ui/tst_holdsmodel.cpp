#include "ui/HoldsModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTest>

using namespace cooldown;

namespace {

PartitionHold hold(const char *key, qint64 untilMs)
{
    PartitionHold h;
    h.policyId = QStringLiteral("read-v1");
    h.partitionKey = QString::fromLatin1(key);
    h.untilMs = untilMs;
    h.why = QStringLiteral("429 retry-after");
    return h;
}

} // namespace

class tst_HoldsModel : public QObject
{
    Q_OBJECT

private slots:
    void sortsAndDropsEndedHolds();
    void countdownMoves();
};

void tst_HoldsModel::sortsAndDropsEndedHolds()
{
    HoldsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHolds({hold("b", 50000), hold("gone", 1000), hold("a", 20000)}, 10000);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, HoldsModel::PartitionKeyColumn).data().toString(), QStringLiteral("a"));
    QCOMPARE(model.index(1, HoldsModel::PartitionKeyColumn).data().toString(), QStringLiteral("b"));
    QCOMPARE(model.index(0, 0).data(HoldsModel::UntilMsRole).toLongLong(), qint64(20000));
    QCOMPARE(model.index(0, HoldsModel::WhyColumn).data().toString(),
             QStringLiteral("429 retry-after"));
    model.setHolds({}, 10000);
    QCOMPARE(model.rowCount(), 0);
}

void tst_HoldsModel::countdownMoves()
{
    HoldsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHolds({hold("a", 40000)}, 10000);
    const QModelIndex until = model.index(0, HoldsModel::UntilColumn);
    QVERIFY(until.data().toString().endsWith(QStringLiteral("(in 30 s)")));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setNowMs(39000);
    QCOMPARE(changed.size(), 1);
    QVERIFY(until.data().toString().endsWith(QStringLiteral("(in 1 s)")));
}

QTEST_MAIN(tst_HoldsModel)
#include "tst_holdsmodel.moc"
