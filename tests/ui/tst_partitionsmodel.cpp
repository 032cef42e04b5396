// SPDX-License-Identifier: Apache-2.0
#include "ui/Format.h"
#include "ui/Palette.h"
#include "ui/PartitionsModel.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1795953600000; // 2026-11-29T12:00:00Z

// A partition of "read-v1" (24 per 60 s, burst 4) as the store reports it at kNow.
PartitionState partition(const char *key, qint64 pending, qint64 due, qint64 available,
                         qint64 nextTokenAtMs = kNow)
{
    PartitionState p;
    p.policyId = QStringLiteral("read-v1");
    p.partitionKey = QString::fromLatin1(key);
    p.policyVersion = 1;
    p.pace = Gcra::forLimit(24, 60000, 4);
    p.definition =
        QStringLiteral(R"({"policy_id":"read-v1","quota_unit":"request","limit":24,"burst":4,)"
                       R"("policy_version":1,"window_seconds":60})");
    p.pending = pending;
    p.due = due;
    p.availableUnits = available;
    p.nextTokenAtMs = nextTokenAtMs;
    return p;
}

PartitionState held(const char *key, qint64 untilMs, qint64 pending = 1)
{
    PartitionState p = partition(key, pending, 0, 4);
    p.heldUntilMs = untilMs;
    p.holdReason = QStringLiteral("429 retry-after 30 s");
    return p;
}

PartitionHold engineHold(const char *key, qint64 untilMs)
{
    PartitionHold h;
    h.policyId = QStringLiteral("read-v1");
    h.partitionKey = QString::fromLatin1(key);
    h.untilMs = untilMs;
    h.why = QStringLiteral("429 retry-after");
    return h;
}

QString text(const PartitionsModel &model, int row, int column)
{
    return model.index(row, column).data().toString();
}

QStringList keys(const PartitionsModel &model)
{
    QStringList out;
    for (int row = 0; row < model.rowCount(); ++row)
        out.append(text(model, row, PartitionsModel::PartitionKeyColumn));
    return out;
}

} // namespace

class tst_PartitionsModel : public QObject
{
    Q_OBJECT

private slots:
    void tokensNowOrLater();
    void storeHoldAndItsEnd();
    void engineHoldsShowAtOnce();
    void countdownMoves();
    void conflictIsShown();
    void sortOrder();
    void selectionStaysWithItsPartition();
    void learnedFromTheServer();
};

void tst_PartitionsModel::tokensNowOrLater()
{
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPartitions({partition("ready", 12, 3, 3), partition("empty", 5, 2, 0, kNow + 3000),
                         partition("slow", 1, 1, 0, kNow + 600000)},
                        kNow);
    QCOMPARE(keys(model), (QStringList{QStringLiteral("empty"), QStringLiteral("slow"),
                                       QStringLiteral("ready")}));

    // Due work and no token: it waits for one, and says when it comes.
    QCOMPARE(text(model, 0, PartitionsModel::StateColumn), QStringLiteral("waiting for a token"));
    QCOMPARE(text(model, 0, PartitionsModel::TokensColumn), QStringLiteral("next in 3 s"));
    QCOMPARE(text(model, 0, PartitionsModel::WaitingColumn), QStringLiteral("5 (2 due)"));
    QCOMPARE(model.index(0, 0).data(PartitionsModel::ActivityRole).toInt(),
             int(PartitionsModel::Activity::WaitingForToken));
    QCOMPARE(text(model, 1, PartitionsModel::TokensColumn),
             QStringLiteral("next at %1").arg(format::localTime(kNow + 600000, kNow)));
    // Due work and tokens: it goes out.
    QCOMPARE(text(model, 2, PartitionsModel::StateColumn), QStringLiteral("sending"));
    QCOMPARE(text(model, 2, PartitionsModel::TokensColumn), QStringLiteral("3 available"));
    QCOMPARE(text(model, 2, PartitionsModel::WaitingColumn), QStringLiteral("12 (3 due)"));
    QVERIFY(text(model, 2, PartitionsModel::HeldColumn).isEmpty());

    // The clock moves past the next token before the store is read again.
    model.setNowMs(kNow + 2000);
    QCOMPARE(text(model, 0, PartitionsModel::TokensColumn), QStringLiteral("next in 1 s"));
    model.setNowMs(kNow + 3000);
    QCOMPARE(keys(model), (QStringList{QStringLiteral("slow"), QStringLiteral("ready"),
                                       QStringLiteral("empty")}));
    QCOMPARE(text(model, 2, PartitionsModel::TokensColumn), QStringLiteral("1 available"));
    QCOMPARE(text(model, 2, PartitionsModel::StateColumn), QStringLiteral("sending"));

    // No work: idle, or waiting for its own time.
    model.setPartitions({partition("quiet", 0, 0, 4), partition("later", 2, 0, 4)}, kNow);
    QCOMPARE(keys(model), (QStringList{QStringLiteral("later"), QStringLiteral("quiet")}));
    QCOMPARE(text(model, 0, PartitionsModel::StateColumn), QStringLiteral("not due yet"));
    QCOMPARE(text(model, 0, PartitionsModel::WaitingColumn), QStringLiteral("2"));
    QCOMPARE(text(model, 1, PartitionsModel::StateColumn), QStringLiteral("idle"));
    QCOMPARE(text(model, 1, PartitionsModel::TokensColumn), QStringLiteral("4 available"));

    // A policy without a pace (concurrency) needs no token.
    PartitionState unpaced = partition("permits", 1, 1, 1);
    unpaced.pace = Gcra();
    unpaced.definition.clear();
    model.setPartitions({unpaced}, kNow);
    QCOMPARE(text(model, 0, PartitionsModel::TokensColumn), QStringLiteral("not paced"));
    QCOMPARE(text(model, 0, PartitionsModel::StateColumn), QStringLiteral("sending"));
}

void tst_PartitionsModel::storeHoldAndItsEnd()
{
    // A hold another worker placed: only the store knows it.
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPartitions({partition("busy", 9, 9, 0, kNow + 2000), held("h", kNow + 30000)}, kNow);
    QCOMPARE(keys(model), (QStringList{QStringLiteral("h"), QStringLiteral("busy")}));
    QCOMPARE(text(model, 0, PartitionsModel::StateColumn), QStringLiteral("held by the server"));
    QCOMPARE(text(model, 0, PartitionsModel::HeldColumn),
             QStringLiteral("until %1 (in 30 s) — 429 retry-after 30 s")
                 .arg(format::localTime(kNow + 30000, kNow)));
    QCOMPARE(model.index(0, 0).data(PartitionsModel::HeldUntilMsRole).toLongLong(), kNow + 30000);
    QCOMPARE(model.activeHolds().size(), 1);
    QCOMPARE(model.activeHolds().first().why, QStringLiteral("429 retry-after 30 s"));

    // The hold ends on the clock, before the store is read again.
    model.setNowMs(kNow + 30000);
    QCOMPARE(keys(model), (QStringList{QStringLiteral("busy"), QStringLiteral("h")}));
    QVERIFY(text(model, 1, PartitionsModel::HeldColumn).isEmpty());
    QCOMPARE(text(model, 1, PartitionsModel::StateColumn), QStringLiteral("not due yet"));
    QCOMPARE(model.index(1, 0).data(PartitionsModel::HeldUntilMsRole).toLongLong(), qint64(0));
    QVERIFY(model.activeHolds().isEmpty());
}

void tst_PartitionsModel::engineHoldsShowAtOnce()
{
    // Holds of this process's engine, before the store's rows are read: ended ones are
    // left out, the earliest end comes first.
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHolds({engineHold("b", 50000), engineHold("gone", 1000), engineHold("a", 20000)},
                   10000);
    QCOMPARE(keys(model), (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    QCOMPARE(model.index(0, 0).data(PartitionsModel::HeldUntilMsRole).toLongLong(), qint64(20000));
    QVERIFY(
        text(model, 0, PartitionsModel::HeldColumn).endsWith(QStringLiteral("429 retry-after")));
    QCOMPARE(text(model, 0, PartitionsModel::StateColumn), QStringLiteral("held by the server"));
    QCOMPARE(text(model, 0, PartitionsModel::TokensColumn), QStringLiteral("—"));
    model.setHolds({}, 10000);
    QCOMPARE(model.rowCount(), 0);

    // Once the store's row is there, the engine's hold is shown on it, not beside it.
    model.setPartitions({partition("a", 3, 3, 4)}, kNow);
    QCOMPARE(text(model, 0, PartitionsModel::StateColumn), QStringLiteral("sending"));
    model.setHolds({engineHold("a", kNow + 5000)}, kNow);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(text(model, 0, PartitionsModel::StateColumn), QStringLiteral("held by the server"));
    QCOMPARE(text(model, 0, PartitionsModel::WaitingColumn), QStringLiteral("3 (3 due)"));
    // A later hold on the store's row (another worker extended it) wins.
    PartitionState extended = held("a", kNow + 9000);
    model.setPartitions({extended}, kNow);
    QCOMPARE(model.index(0, 0).data(PartitionsModel::HeldUntilMsRole).toLongLong(), kNow + 9000);
    QVERIFY(text(model, 0, PartitionsModel::HeldColumn).endsWith(QStringLiteral("30 s")));
}

void tst_PartitionsModel::countdownMoves()
{
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setHolds({engineHold("a", 40000)}, 10000);
    const QModelIndex until = model.index(0, PartitionsModel::HeldColumn);
    QVERIFY(until.data().toString().contains(QStringLiteral("(in 30 s)")));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setNowMs(39000);
    QCOMPARE(changed.size(), 1);
    QVERIFY(until.data().toString().contains(QStringLiteral("(in 1 s)")));
    // The hold ends: a partition only the engine knew goes.
    model.setNowMs(40000);
    QCOMPARE(model.rowCount(), 0);
}

void tst_PartitionsModel::conflictIsShown()
{
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    PartitionState agreed = partition("a", 0, 0, 4);
    PartitionState disputed = partition("b", 0, 0, 4);
    disputed.conflict = QStringLiteral("a worker configures version 1 as {\"limit\":30}");
    model.setPartitions({agreed, disputed}, kNow);
    QCOMPARE(text(model, 0, PartitionsModel::ConfiguredColumn),
             QStringLiteral("24 per 60 s, burst 4 · version 1"));
    QVERIFY(model.index(0, 0).data(PartitionsModel::ConflictRole).toString().isEmpty());
    QVERIFY(!model.index(0, PartitionsModel::ConfiguredColumn)
                 .data(Qt::ToolTipRole)
                 .toString()
                 .contains(QStringLiteral("Conflict")));

    QCOMPARE(text(model, 1, PartitionsModel::ConfiguredColumn),
             QStringLiteral("24 per 60 s, burst 4 · version 1 — conflict"));
    QCOMPARE(model.index(1, 0).data(PartitionsModel::ConflictRole).toString(), disputed.conflict);
    const QString tip =
        model.index(1, PartitionsModel::ConfiguredColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(disputed.definition), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("Conflict: ") + disputed.conflict), qPrintable(tip));
    // The disputed row is drawn in the window's problem colour; the agreed one is not.
    QCOMPARE(model.index(1, PartitionsModel::ConfiguredColumn)
                 .data(Qt::ForegroundRole)
                 .value<QBrush>()
                 .color(),
             palette::problem());
    QVERIFY(!model.index(0, PartitionsModel::ConfiguredColumn).data(Qt::ForegroundRole).isValid());
}

void tst_PartitionsModel::sortOrder()
{
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPartitions(
        {partition("idle", 0, 0, 4), partition("notdue", 3, 0, 4), partition("sending", 10, 10, 4),
         held("heldlate", kNow + 60000, 50), partition("waitsfew", 2, 2, 0, kNow + 1000),
         partition("waitsmany", 5, 5, 0, kNow + 1000), held("heldsoon", kNow + 20000, 1)},
        kNow);
    QCOMPARE(keys(model), (QStringList{QStringLiteral("heldsoon"), QStringLiteral("heldlate"),
                                       QStringLiteral("waitsmany"), QStringLiteral("waitsfew"),
                                       QStringLiteral("sending"), QStringLiteral("notdue"),
                                       QStringLiteral("idle")}));
    // An engine hold puts its partition among the held ones at once.
    model.setHolds({engineHold("idle", kNow + 40000)}, kNow);
    QCOMPARE(keys(model).mid(0, 3), (QStringList{QStringLiteral("heldsoon"), QStringLiteral("idle"),
                                                 QStringLiteral("heldlate")}));
}

void tst_PartitionsModel::selectionStaysWithItsPartition()
{
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QItemSelectionModel selection(&model);
    model.setPartitions({partition("a", 1, 0, 4), partition("b", 5, 0, 4), partition("c", 3, 0, 4)},
                        kNow);
    QCOMPARE(keys(model),
             (QStringList{QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("a")}));
    selection.select(model.index(1, 0),
                     QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

    // "c" is held now, "b" went away and "d" came: "c" moves to the top, still selected.
    model.setPartitions(
        {partition("a", 1, 0, 4), held("c", kNow + 5000, 3), partition("d", 7, 0, 4)}, kNow);
    QCOMPARE(keys(model),
             (QStringList{QStringLiteral("c"), QStringLiteral("d"), QStringLiteral("a")}));
    QCOMPARE(resets.size(), 0);
    const QModelIndexList rows = selection.selectedRows();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.first().data(PartitionsModel::PartitionKeyRole).toString(), QStringLiteral("c"));
    QCOMPARE(model.rowOf(QStringLiteral("read-v1"), QStringLiteral("c")), 0);
    QCOMPARE(model.rowOf(QStringLiteral("read-v1"), QStringLiteral("b")), -1);
}

void tst_PartitionsModel::learnedFromTheServer()
{
    PartitionsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    PartitionState learned = partition("", 0, 0, 4);
    learned.policyId = QStringLiteral("learned:api.example.com");
    learned.definition.clear();
    learned.pace = {};
    learned.server.quota = 5;
    learned.server.windowMs = 10000;
    learned.server.remaining = 2;
    learned.server.resetAtMs = kNow + 4000;
    learned.server.knownUntilMs = kNow + 100000;
    learned.learnedAtMs = kNow - 1000;
    learned.learnedFrom =
        QStringLiteral("RateLimit-Policy: \"api\";q=5;w=10\nRateLimit: \"api\";r=2;t=4\n");
    PartitionState silent = learned;
    silent.policyId = QStringLiteral("learned:quiet.example.com");
    silent.server = {};
    silent.learnedFrom.clear();
    PartitionState configured = partition("k", 0, 0, 4);
    configured.server = learned.server;
    // A server that states nothing, paced by what its refusals measured.
    PartitionState measured = silent;
    measured.policyId = QStringLiteral("learned:nginx.example.com");
    measured.pace.intervalUs = 150'000;
    measured.pace.capacity = 1;
    measured.learnedFrom = QStringLiteral("429 after 6 accepted answers in 0.9 s, Retry-After: 1");
    PartitionState slow = measured;
    slow.policyId = QStringLiteral("learned:slow.example.com");
    slow.pace.intervalUs = 2'500'000;
    model.setPartitions({learned, silent, configured, measured, slow}, kNow);

    const int row = model.rowOf(learned.policyId, QString());
    QCOMPARE(text(model, row, PartitionsModel::ConfiguredColumn),
             QStringLiteral("learned from the server: 5 per 10 s"));
    const QString tip =
        model.index(row, PartitionsModel::ConfiguredColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(learned.learnedFrom), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("api.example.com")), qPrintable(tip));
    // What "Adopt as policy" writes.
    QCOMPARE(model.index(row, 0).data(PartitionsModel::LearnedHostRole).toString(),
             QStringLiteral("api.example.com"));
    QCOMPARE(model.index(row, 0).data(PartitionsModel::LearnedQuotaRole).toLongLong(), 5);
    QCOMPARE(model.index(row, 0).data(PartitionsModel::LearnedWindowMsRole).toLongLong(), 10000);
    // The server's window paces it: its tokens are what the window has left.
    QCOMPARE(text(model, row, PartitionsModel::TokensColumn), QStringLiteral("4 available"));

    // Nothing stated yet: nothing to adopt.
    const int quiet = model.rowOf(silent.policyId, QString());
    QCOMPARE(text(model, quiet, PartitionsModel::ConfiguredColumn),
             QStringLiteral("no policy; the server has stated no limit"));
    QVERIFY(model.index(quiet, 0).data(PartitionsModel::LearnedHostRole).toString().isEmpty());

    const int paced = model.rowOf(measured.policyId, QString());
    QCOMPARE(text(model, paced, PartitionsModel::ConfiguredColumn),
             QStringLiteral("measured from the server's refusals: about 6.7 per second"));
    const QString pacedTip =
        model.index(paced, PartitionsModel::ConfiguredColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(pacedTip.contains(measured.learnedFrom), qPrintable(pacedTip));
    QCOMPARE(text(model, model.rowOf(slow.policyId, QString()), PartitionsModel::ConfiguredColumn),
             QStringLiteral("measured from the server's refusals: about one every 2.5 s"));

    // A configured policy shows what the server states beside it, and is not adoptable.
    const int policy = model.rowOf(configured.policyId, QStringLiteral("k"));
    QCOMPARE(text(model, policy, PartitionsModel::ConfiguredColumn),
             QStringLiteral("24 per 60 s, burst 4 · version 1 · the server states 5 per 10 s"));
    QVERIFY(model.index(policy, 0).data(PartitionsModel::LearnedHostRole).toString().isEmpty());

    // Forgotten once the server stops saying it.
    model.setNowMs(kNow + 100000);
    QCOMPARE(text(model, row, PartitionsModel::ConfiguredColumn),
             QStringLiteral("no policy; the server has stated no limit"));
    QVERIFY(model.index(row, 0).data(PartitionsModel::LearnedHostRole).toString().isEmpty());
}

QTEST_MAIN(tst_PartitionsModel)
#include "tst_partitionsmodel.moc"
