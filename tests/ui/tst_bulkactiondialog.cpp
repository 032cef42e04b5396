// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"
#include "core/engine/EngineSession.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "store/StoreTestSupport.h"
#include "support/AttemptFixture.h"
#include "support/ScriptedHttpServer.h"
#include "support/SqliteWriteLock.h"
#include "ui/AuditModel.h"
#include "ui/BulkActionDialog.h"
#include "ui/HistoryPage.h"
#include "ui/JobsPage.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

// 2026-12-01T10:00:00Z: the store's rows and the dialog's "now".
constexpr qint64 kNow = 1796119200000;

} // namespace

class tst_BulkActionDialog : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void countsFirstThenRetriesExactlyTheFilter_data() { backends(); }
    void countsFirstThenRetriesExactlyTheFilter();
    void badFilterNamesTheTerm();
    void fieldsWriteTheirTermAndKeepTheOthers();
    void stopEndsAfterTheChunkBeingApplied();
    void forcingAsksFirst_data() { backends(); }
    void forcingAsksFirst();

private:
    // The rows of a test that runs on SQLite and on PostgreSQL.
    static void backends();
    // Points m_db at the row's backend: a fresh PostgreSQL database, or the SQLite
    // file of init(). False (and the test skipped, with the reason) without a server.
    bool useBackend();

    // A parked (or, with dueAtMs, waiting) operation whose one attempt was answered
    // `status`.
    qint64 seed(Store &store, const QString &endpoint, int status,
                OperationState state = OperationState::Parked);
    std::unique_ptr<EngineSession> openSession();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ScriptedHttpServer> m_server;
    ManualClock m_clock{kNow};
    QString m_db;
    int m_keys = 0;
};

void tst_BulkActionDialog::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_db = m_dir->filePath(QStringLiteral("bulk.db"));
    m_server = std::make_unique<ScriptedHttpServer>();
    QVERIFY(m_server->isListening());
    m_clock.setWallMs(kNow);
}

void tst_BulkActionDialog::backends()
{
    QTest::addColumn<bool>("postgres");
    QTest::newRow("sqlite") << false;
    QTest::newRow("postgresql") << true;
}

bool tst_BulkActionDialog::useBackend()
{
    QFETCH(bool, postgres);
    if (!postgres)
        return true;
    QString why;
    m_db = test::freshPostgresDatabase(QStringLiteral("cooldown_bulk_dialog"), &why);
    if (m_db.isEmpty()) {
        QTest::qSkip(qPrintable(why), __FILE__, __LINE__);
        return false;
    }
    return true;
}

void tst_BulkActionDialog::cleanup()
{
    m_server.reset();
    m_dir.reset();
}

qint64 tst_BulkActionDialog::seed(Store &store, const QString &endpoint, int status,
                                  OperationState state)
{
    const qint64 at = kNow - 600000;
    const auto claimed = test::claimNew(store, endpoint, QStringLiteral("k-%1").arg(++m_keys), at,
                                        QStringLiteral("earlier"));
    if (!claimed)
        return 0;
    AttemptRecord a = test::nextAttempt(*claimed, at, at + 10);
    a.method = QStringLiteral("GET");
    a.status = status;
    a.decision = test::decisionLeaving(state);
    a.reason = QStringLiteral("throttled");
    a.workerId = QStringLiteral("earlier");
    OperationRecord next = test::leftIn(*claimed, a, state, kNow + 3600000);
    next.lastStatus = status;
    if (state == OperationState::Parked)
        next.finalReason = QStringLiteral("retry_after_too_long");
    if (test::finishAttempt(store, a, next, QStringLiteral("earlier")) !=
        Store::FinishResult::Committed)
        return 0;
    return claimed->id;
}

std::unique_ptr<EngineSession> tst_BulkActionDialog::openSession()
{
    QByteArray json = R"({"version": 1, "endpoints": [
        { "id": "upload", "method": "GET", "url": "BASE/upload", "enqueue_only": true },
        { "id": "other", "method": "GET", "url": "BASE/other", "enqueue_only": true } ]})";
    json.replace("BASE", m_server->url(QString()).toUtf8());
    QString error;
    auto config = WorkspaceConfig::parse(json, QStringLiteral("test.json"), &error, {},
                                         QHash<QString, QString>{});
    if (!config) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    EngineOptions options;
    options.clock = &m_clock;
    auto session = EngineSession::open(std::move(*config), m_db, &error, options);
    if (!session || !session->start(&error)) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    return session;
}

void tst_BulkActionDialog::countsFirstThenRetriesExactlyTheFilter()
{
    if (!useBackend())
        return;
    QList<qint64> matching;
    QList<qint64> others;
    {
        QString error;
        auto store = Store::open(m_db, &error);
        QVERIFY2(store, qPrintable(error));
        for (int i = 0; i < 12; ++i)
            matching.append(seed(*store, QStringLiteral("upload"), 429));
        for (int i = 0; i < 5; ++i)
            others.append(seed(*store, QStringLiteral("upload"), 503));
        for (int i = 0; i < 4; ++i)
            others.append(seed(*store, QStringLiteral("other"), 429));
        for (int i = 0; i < 3; ++i)
            others.append(seed(*store, QStringLiteral("upload"), 429, OperationState::Waiting));
        QVERIFY(!matching.contains(0) && !others.contains(0));
    }
    auto session = openSession();
    QVERIFY(session);
    session->setOperatorName(QStringLiteral("dana"));

    JobsPage page(session.get(), m_clock);
    QVERIFY(page.bulkAction()->isEnabled());
    page.bulkAction()->trigger();
    BulkActionDialog *dialog = page.bulkDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->filterText(), QStringLiteral("state=parked"));
    // The operator the audit row will name, as for the single actions.
    QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("bulkActor"))
                ->text()
                .contains(QStringLiteral("dana")));
    // Every parked operation, before the filter is narrowed.
    QTRY_COMPARE(dialog->matchedCount(), 12 + 5 + 4);

    dialog->setFilterText(QStringLiteral("endpoint=upload state=parked status=429"));
    QVERIFY(!dialog->applyButton()->isEnabled()); // nothing to apply before it is counted
    QTRY_COMPARE(dialog->matchedCount(), 12);
    const QString summary = dialog->summaryLabel()->text();
    QVERIFY2(summary.startsWith(QLocale().toString(12) + QStringLiteral(" operation")),
             qPrintable(summary));
    QVERIFY2(summary.contains(QStringLiteral("go out")), qPrintable(summary));
    QVERIFY(dialog->errorLabel()->isHidden());
    QVERIFY(dialog->applyButton()->isEnabled());

    QSignalSpy finished(dialog, &BulkActionDialog::finished);
    QSignalSpy messages(&page, &JobsPage::message);
    QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
    QVERIFY(dialog->isApplying());
    QVERIFY(!dialog->applyButton()->isEnabled());
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    const auto outcome = finished.at(0).at(0).value<BulkOutcome>();
    QVERIFY(outcome.result == BulkOutcome::Result::Done);
    QCOMPARE(outcome.progress.changed, 12);
    QVERIFY(!dialog->isApplying());
    QVERIFY(dialog->resultLabel()->isVisible());
    QVERIFY2(dialog->resultLabel()->text().startsWith(QStringLiteral("12 operations are due now")),
             qPrintable(dialog->resultLabel()->text()));
    QCOMPARE(messages.count(), 1);
    // Counted again afterwards: none of them is parked any longer.
    QTRY_COMPARE(dialog->matchedCount(), 0);

    // The retried ones are sent, and only they.
    QTRY_COMPARE_WITH_TIMEOUT(m_server->received.size(), 12, 10000);
    for (const ReceivedRequest &r : std::as_const(m_server->received))
        QCOMPARE(r.path, QByteArray("/upload"));
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    for (const qint64 id : std::as_const(matching)) {
        QTRY_COMPARE_WITH_TIMEOUT(store->operation(id)->state, OperationState::Succeeded, 10000);
        QCOMPARE(store->operation(id)->attempt, 2);
    }
    for (const qint64 id : std::as_const(others)) {
        const auto op = store->operation(id);
        QVERIFY(op);
        QCOMPARE(op->attempt, 1);
        QVERIFY(op->state == OperationState::Parked || op->state == OperationState::Waiting);
    }
    const auto rows = store->operatorActions();
    QVERIFY2(rows, qPrintable(store->lastError()));
    QCOMPARE(rows->size(), 1);
    const AuditRecord &row = rows->constFirst();
    QCOMPARE(row.actor, QStringLiteral("dana"));
    QCOMPARE(row.workerId, session->workerId());
    QVERIFY(row.action == OperatorAction::Retry);
    QCOMPARE(row.target, QStringLiteral("endpoint=upload state=parked status=429"));
    QCOMPARE(row.asked, 12);
    QCOMPARE(row.changed, 12);
    QCOMPARE(row.atMs, kNow);

    // History's operator actions show that row.
    HistoryPage history(m_db, session->config(), m_clock);
    history.setView(HistoryPage::View::OperatorActions);
    QTRY_COMPARE(history.auditModel()->rowCount(), 1);
    const auto cell = [&](int column) {
        return history.auditModel()->index(0, column).data().toString();
    };
    QCOMPARE(cell(AuditModel::ActorColumn), QStringLiteral("dana"));
    QCOMPARE(cell(AuditModel::ActionColumn), QStringLiteral("Retry"));
    QCOMPARE(cell(AuditModel::TargetColumn),
             QStringLiteral("endpoint=upload state=parked status=429"));
    QCOMPARE(cell(AuditModel::AskedColumn), QStringLiteral("12"));
    QCOMPARE(cell(AuditModel::ChangedColumn), QStringLiteral("12"));
    QCOMPARE(cell(AuditModel::WorkerColumn), session->workerId());
}

void tst_BulkActionDialog::badFilterNamesTheTerm()
{
    auto session = openSession();
    QVERIFY(session);
    BulkActionDialog dialog(*session, m_clock);
    dialog.setFilterText(QStringLiteral("endpoint=upload stat=parked"));
    QVERIFY(dialog.errorLabel()->isVisibleTo(&dialog));
    const QString error = dialog.errorLabel()->text();
    QVERIFY2(error.contains(QStringLiteral("'stat=parked'")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("unknown key 'stat'")), qPrintable(error));
    QVERIFY(!dialog.applyButton()->isEnabled());
    QCOMPARE(dialog.matchedCount(), -1);

    // Everything, by mistake: refused, not counted.
    dialog.setFilterText(QString());
    QVERIFY(dialog.errorLabel()->isVisibleTo(&dialog));
    QVERIFY2(dialog.errorLabel()->text().contains(QStringLiteral("at least one term")),
             qPrintable(dialog.errorLabel()->text()));

    dialog.setFilterText(QStringLiteral("endpoint=upload"));
    QVERIFY(!dialog.errorLabel()->isVisibleTo(&dialog));
    QTRY_COMPARE(dialog.matchedCount(), 0);
    QVERIFY(!dialog.applyButton()->isEnabled()); // nothing to act on
}

void tst_BulkActionDialog::fieldsWriteTheirTermAndKeepTheOthers()
{
    auto session = openSession();
    QVERIFY(session);
    BulkActionDialog dialog(*session, m_clock);
    dialog.show();
    dialog.setFilterText(QStringLiteral("partition=\"tenant 7\" state=parked"));
    auto *state = dialog.findChild<QComboBox *>(QStringLiteral("bulkState"));
    auto *endpoint = dialog.findChild<QComboBox *>(QStringLiteral("bulkEndpoint"));
    auto *status = dialog.findChild<QComboBox *>(QStringLiteral("bulkStatus"));
    auto *time = dialog.findChild<QComboBox *>(QStringLiteral("bulkTime"));
    QVERIFY(state && endpoint && status && time);
    // The text shows in the fields it fits.
    QCOMPARE(state->currentData().toString(), QStringLiteral("parked"));
    QCOMPARE(endpoint->currentIndex(), 0);

    endpoint->setCurrentIndex(endpoint->findData(QStringLiteral("other")));
    emit endpoint->activated(endpoint->currentIndex());
    status->setCurrentIndex(status->findData(QStringLiteral("4xx")));
    emit status->activated(status->currentIndex());
    QCOMPARE(dialog.filterText(),
             QStringLiteral("endpoint=other state=parked partition=\"tenant 7\" status=4xx"));
    time->setCurrentIndex(2); // the last hour
    emit time->activated(time->currentIndex());
    QVERIFY2(dialog.filterText().endsWith(QStringLiteral(" since=2026-12-01T09:00:00Z")),
             qPrintable(dialog.filterText()));

    // Several values do not fit a field: it shows blank, and the text keeps them.
    dialog.setFilterText(QStringLiteral("state=parked,waiting"));
    QCOMPARE(state->currentIndex(), -1);
    QCOMPARE(time->currentIndex(), 0);
}

void tst_BulkActionDialog::stopEndsAfterTheChunkBeingApplied()
{
    {
        QString error;
        auto store = Store::open(m_db, &error);
        QVERIFY2(store, qPrintable(error));
        QList<Store::NewOperation> jobs;
        for (int i = 0; i < 600; ++i) {
            Store::NewOperation op;
            op.endpointId = QStringLiteral("upload");
            op.idempotencyKey = QStringLiteral("k-%1").arg(i);
            op.requestHash = QStringLiteral("hash-%1").arg(i);
            op.dueAtMs = kNow + 3600000;
            jobs.append(op);
        }
        QVERIFY(store->enqueue(jobs, kNow, Store::IntakeMode::AllOrNothing));
    }
    auto session = openSession();
    QVERIFY(session);
    BulkActionDialog dialog(*session, m_clock);
    dialog.show();
    dialog.setFilterText(QStringLiteral("endpoint=upload state=scheduled"));
    dialog.setAction(OperatorAction::Cancel);
    QTRY_COMPARE(dialog.matchedCount(), 600);
    QSignalSpy finished(&dialog, &BulkActionDialog::finished);
    // Another process holds the write lock, so that the engine cannot commit its first
    // chunk before Stop is pressed: it then stops after that chunk of 500, which stays
    // applied.
    {
        test::SqliteWriteLock lock(m_db);
        QVERIFY2(lock.isHeld(), qPrintable(lock.error()));
        dialog.applyButton()->click();
        QVERIFY(dialog.stopButton()->isVisibleTo(&dialog));
        dialog.stopButton()->click();
    }
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    const auto outcome = finished.at(0).at(0).value<BulkOutcome>();
    QVERIFY2(outcome.result == BulkOutcome::Result::Stopped,
             qPrintable(dialog.resultLabel()->text()));
    QCOMPARE(outcome.progress.changed, 500);
    QVERIFY2(dialog.resultLabel()->text().startsWith(QStringLiteral("Stopped after 500 of 600")),
             qPrintable(dialog.resultLabel()->text()));
    QVERIFY(!dialog.stopButton()->isVisibleTo(&dialog));
    QTRY_COMPARE(dialog.matchedCount(), 100);

    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    OperationSelection cancelled;
    cancelled.states = {OperationState::Cancelled};
    QCOMPARE(store->countMatching(cancelled), 500);
    const auto rows = store->operatorActions();
    QVERIFY2(rows, qPrintable(store->lastError()));
    QCOMPARE(rows->size(), 1);
    QVERIFY(rows->constFirst().action == OperatorAction::Cancel);
    QCOMPARE(rows->constFirst().asked, 600);
    QCOMPARE(rows->constFirst().changed, 500);
    QCOMPARE(m_server->received.size(), 0);
}

// Force bypasses the partitions' buckets, so the dialog asks first, naming how many;
// no is nothing sent and nothing audited.
void tst_BulkActionDialog::forcingAsksFirst()
{
    if (!useBackend())
        return;
    {
        QString error;
        auto store = Store::open(m_db, &error);
        QVERIFY2(store, qPrintable(error));
        for (int i = 0; i < 3; ++i)
            QVERIFY(seed(*store, QStringLiteral("upload"), 429) > 0);
    }
    auto session = openSession();
    QVERIFY(session);
    BulkActionDialog dialog(*session, m_clock);
    QStringList questions;
    bool answer = false;
    dialog.setConfirmation([&](const QString &question) {
        questions.append(question);
        return answer;
    });
    dialog.show();
    dialog.setFilterText(QStringLiteral("endpoint=upload state=parked"));
    dialog.setAction(OperatorAction::Force);
    QTRY_COMPARE(dialog.matchedCount(), 3);
    QTRY_VERIFY(dialog.applyButton()->isEnabled());
    QSignalSpy finished(&dialog, &BulkActionDialog::finished);

    dialog.applyButton()->click();
    QCOMPARE(questions.size(), 1);
    QVERIFY2(questions.constFirst().startsWith(QStringLiteral("Send 3 operation")),
             qPrintable(questions.constFirst()));
    QVERIFY(questions.constFirst().contains(QStringLiteral("bypassing")));
    QVERIFY(!dialog.isApplying());
    QVERIFY(dialog.applyButton()->isEnabled());

    answer = true;
    dialog.applyButton()->click();
    QCOMPARE(questions.size(), 2);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QCOMPARE(finished.at(0).at(0).value<BulkOutcome>().progress.changed, 3);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->received.size(), 3, 10000);

    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    const auto rows = store->operatorActions();
    QVERIFY2(rows, qPrintable(store->lastError()));
    QCOMPARE(rows->size(), 1); // the refused one left no row
    QVERIFY(rows->constFirst().action == OperatorAction::Force);
    QCOMPARE(rows->constFirst().changed, 3);
}

QTEST_MAIN(tst_BulkActionDialog)
#include "tst_bulkactiondialog.moc"
