// SPDX-License-Identifier: Apache-2.0
#include "core/time/Clock.h"
#include "ui/JobsModel.h"
#include "ui/JobsPage.h"

#include <QSignalSpy>
#include <QTableView>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1795953600000; // 2026-11-29T12:00:00Z

QList<OperationRecord> waitingOperations(int count)
{
    QList<OperationRecord> out;
    for (int i = 1; i <= count; ++i) {
        OperationRecord o;
        o.id = i;
        o.endpointId = QStringLiteral("e");
        o.state = OperationState::Waiting;
        o.version = 1;
        o.nextAttemptAtMs = kNow + i * 1000;
        out.append(o);
    }
    return out;
}

// The rows every dataChanged of the spy covered, [first, last] each.
QList<QPair<int, int>> changedRows(const QSignalSpy &spy)
{
    QList<QPair<int, int>> out;
    for (const QList<QVariant> &args : spy)
        out.append({args.at(0).toModelIndex().row(), args.at(1).toModelIndex().row()});
    return out;
}

} // namespace

class tst_JobsPage : public QObject
{
    Q_OBJECT

private slots:
    void countdownsMoveOnTheVisibleRowsOnly();
};

void tst_JobsPage::countdownsMoveOnTheVisibleRowsOnly()
{
    ManualClock clock(kNow);
    JobsPage page(nullptr, clock);
    page.resize(900, 500);
    page.model()->setOperations(waitingOperations(10000));
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));

    const auto [first, last] = page.visibleRows();
    QCOMPARE(first, 0);
    QVERIFY(last > 0);
    QVERIFY(last < 100);
    QSignalSpy changed(page.model(), &QAbstractItemModel::dataChanged);
    clock.advance(1000);
    page.tick(clock.nowMs());
    QVERIFY(!changed.isEmpty());
    for (const auto &[top, bottom] : changedRows(changed)) {
        QCOMPARE(top, first);
        QCOMPARE(bottom, last);
    }
    QCOMPARE(page.model()->index(first, JobsModel::NextAttemptColumn).data().toString(),
             QStringLiteral("due"));
    QCOMPARE(page.model()->index(last, JobsModel::NextAttemptColumn).data().toString(),
             QStringLiteral("in %1 s").arg(last));

    // Scrolled to the end, the end moves.
    page.table()->scrollToBottom();
    QTRY_VERIFY(page.visibleRows().first > 9000);
    const auto [endFirst, endLast] = page.visibleRows();
    QCOMPARE(endLast, 9999);
    changed.clear();
    clock.advance(1000);
    page.tick(clock.nowMs());
    QVERIFY(!changed.isEmpty());
    for (const auto &[top, bottom] : changedRows(changed)) {
        QCOMPARE(top, endFirst);
        QCOMPARE(bottom, endLast);
    }

    // A page nobody sees changes nothing.
    page.hide();
    changed.clear();
    clock.advance(1000);
    page.tick(clock.nowMs());
    QCOMPARE(changed.size(), 0);
}

QTEST_MAIN(tst_JobsPage)
#include "tst_jobspage.moc"
