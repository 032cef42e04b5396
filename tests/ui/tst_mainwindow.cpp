// SPDX-License-Identifier: Apache-2.0
#include "app/demo/DemoServer.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/EngineSession.h"
#include "core/engine/Scheduler.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "support/AttemptFixture.h"
#include "support/ScriptedHttpServer.h"
#include "support/SqliteWriteLock.h"
#include "ui/DriftModel.h"
#include "ui/EndpointsDialog.h"
#include "ui/HistoryPage.h"
#include "ui/IntegrationsModel.h"
#include "ui/IntegrationsPage.h"
#include "ui/JobsModel.h"
#include "ui/JobsPage.h"
#include "ui/MainWindow.h"
#include "ui/OverviewPage.h"
#include "ui/PartitionsModel.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>

using namespace cooldown;

namespace {

bool hasPositivePoint(const QLineSeries *series)
{
    const QList<QPointF> points = series->points();
    return std::any_of(points.cbegin(), points.cend(), [](const QPointF &p) { return p.y() > 0; });
}

// One endpoint that answers 200 and one that does not exist (404: fails for good).
QByteArray operatorWorkspace()
{
    return R"({
      "version": 1,
      "endpoints": [
        { "id": "report", "method": "GET", "url": "${demo:base_url}/ok?key=ui-test",
          "timeout_seconds": 10 },
        { "id": "missing", "method": "GET", "url": "${demo:base_url}/nothing-here",
          "timeout_seconds": 10 }
      ]
    })";
}

// A server that advertises 2 requests per 6 s for a policy configured with 10.
QByteArray driftingWorkspace()
{
    return R"({
      "version": 1,
      "policies": [ { "policy_id": "search", "limit": 10, "window_seconds": 6 } ],
      "endpoints": [
        { "id": "search", "method": "GET",
          "url": "${demo:base_url}/limited/ratelimit?key=drift-test&limit=2&window=6&policy=search",
          "every_seconds": 1, "timeout_seconds": 10, "policy": "search", "partition_key": "p" }
      ]
    })";
}

// One operation of a paced policy against an endpoint that answers 200.
QByteArray pacedWorkspace()
{
    return R"({
      "version": 1,
      "policies": [ { "policy_id": "export", "limit": 10, "window_seconds": 60, "burst": 2 } ],
      "endpoints": [
        { "id": "report", "method": "GET", "url": "${demo:base_url}/ok?key=partitions-test",
          "timeout_seconds": 10, "policy": "export", "partition_key": "p-1" }
      ]
    })";
}

} // namespace

class tst_MainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void demoWorkspaceShowsThrottles();
    void retryNowSendsAWaitingJob();
    void forceNowAsksFirstAndIsRecorded();
    void finalFailureIsAnnounced();
    void automaticPauseIsAnnounced();
    void keepsGeometryAndTab();
    void customWindowIsReadAndKept();
    void endpointsOpenFromTheMenuAndTheDriftLabel();
    void partitionsShowAnotherWorkersHoldAndLiftIt();
    void policyConflictIsReportedInTheStatusBar();
    void jobsSummaryCountsScheduledOperations();
    void windowKeepsTurningWhileTheDatabaseIsLocked();
    void savedWorkspaceIsAppliedWithoutARestart();
    void credentialsAndWarningsInTheStatusBar();

private:
    std::unique_ptr<EngineSession> openSession(const QByteArray &json);
    // An operation of "report" waiting an hour for its second attempt.
    qint64 waitingOperation(const QString &key = QStringLiteral("k-1"));

    std::unique_ptr<QTemporaryDir> m_settings;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<DemoServer> m_server;
    QString m_db;
};

void tst_MainWindow::initTestCase()
{
    // Settings go to a folder of the test's own, never to the user's.
    m_settings = std::make_unique<QTemporaryDir>();
    QVERIFY(m_settings->isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings->path());
    QCoreApplication::setOrganizationName(QStringLiteral("CooldownTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
}

void tst_MainWindow::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_db = m_dir->filePath(QStringLiteral("dashboard.db"));
    m_server = std::make_unique<DemoServer>();
    QVERIFY2(m_server->listen(0), qPrintable(m_server->errorString()));
}

void tst_MainWindow::cleanup()
{
    m_server.reset();
    m_dir.reset();
}

std::unique_ptr<EngineSession> tst_MainWindow::openSession(const QByteArray &json)
{
    QString error;
    auto config = WorkspaceConfig::parse(json, QStringLiteral("test.json"), &error,
                                         WorkspaceConfig::demoVariables(m_server->baseUrl()));
    if (!config) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    auto session = EngineSession::open(std::move(*config), m_db, &error);
    if (!session || !session->start(&error)) {
        qWarning("%s", qPrintable(error));
        return nullptr;
    }
    return session;
}

qint64 tst_MainWindow::waitingOperation(const QString &key)
{
    QString error;
    auto store = Store::open(m_db, &error);
    if (!store)
        return 0;
    const qint64 now = SystemClock::instance().nowMs();
    const auto claimed =
        test::claimNew(*store, QStringLiteral("report"), key, now, QStringLiteral("earlier"));
    if (!claimed)
        return 0;
    AttemptRecord a = test::nextAttempt(*claimed, now, now + 10);
    a.method = QStringLiteral("GET");
    a.status = 429;
    a.decision = Decision::Retry;
    a.reason = QStringLiteral("throttled");
    a.waitMs = 3600000;
    a.waitSource = WaitSource::RetryAfter;
    a.workerId = QStringLiteral("earlier");
    OperationRecord next = test::leftIn(*claimed, a, OperationState::Waiting, now + 3600000);
    next.lastStatus = 429;
    next.waitSource = a.waitSource;
    if (test::finishAttempt(*store, a, next, QStringLiteral("earlier")) !=
        Store::FinishResult::Committed)
        return 0;
    return claimed->id;
}

void tst_MainWindow::demoWorkspaceShowsThrottles()
{
    QFile demo(QStringLiteral(":/cooldown/demo.json"));
    QVERIFY(demo.open(QIODevice::ReadOnly));
    auto session = openSession(demo.readAll());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.windowTitle().contains(QStringLiteral("Test")));

    // The demo API limits its endpoints hard: 429s are charted within seconds.
    const QLineSeries *total = window.overviewPage()->throttleTotalSeries();
    QTRY_VERIFY_WITH_TIMEOUT(hasPositivePoint(total), 30000);
    QVERIFY(total->count() >= 2);

    const auto *database = window.findChild<QLabel *>(QStringLiteral("databaseLabel"));
    QVERIFY(database && database->text().contains(QStringLiteral("dashboard.db")));
    const auto *inFlight = window.findChild<QLabel *>(QStringLiteral("inFlightLabel"));
    QVERIFY(inFlight && inFlight->text().endsWith(QStringLiteral("/ 8")));
    // Operations show up in the Jobs table as the engine runs them.
    QTRY_VERIFY_WITH_TIMEOUT(window.jobsPage()->model()->rowCount() > 0, 10000);
}

void tst_MainWindow::retryNowSendsAWaitingJob()
{
    const qint64 id = waitingOperation();
    QVERIFY(id > 0);
    auto session = openSession(operatorWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.jobsPage());

    JobsPage *jobs = window.jobsPage();
    QTRY_VERIFY_WITH_TIMEOUT(jobs->model()->rowOf(id) >= 0, 10000);
    const QModelIndex state =
        jobs->model()->index(jobs->model()->rowOf(id), JobsModel::StateColumn);
    QCOMPARE(state.data().toString(), QStringLiteral("waiting"));
    QVERIFY(jobs->model()
                ->index(state.row(), JobsModel::NextAttemptColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("in ")));
    jobs->selectOperations({id});
    // The row shows the outcome as it comes. A finished job then leaves the Active
    // list at the next refresh of the list, which a busy machine may run first of
    // all: so what the row showed is watched, not read at the end.
    bool showedSucceeded = false;
    QObject watching; // gone before the flag is
    JobsModel *model = jobs->model();
    connect(model, &QAbstractItemModel::dataChanged, &watching, [&] {
        const int row = model->rowOf(id);
        if (row >= 0 && model->index(row, JobsModel::StateColumn).data().toString() == u"succeeded")
            showedSucceeded = true;
    });
    auto *retry = jobs->findChild<QToolButton *>(QStringLiteral("retryNowButton"));
    QVERIFY(retry);
    QVERIFY(retry->isEnabled());
    QTest::mouseClick(retry, Qt::LeftButton);

    // The retry goes out at once and succeeds against the demo API.
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(store->operation(id)->state, OperationState::Succeeded, 10000);
    QCOMPARE(store->operation(id)->attempt, 2);
    AttemptFilter filter;
    filter.operationId = id;
    const QList<AttemptRecord> attempts = store->attempts(filter);
    QCOMPARE(attempts.size(), 2);
    QCOMPARE(attempts.last().status, 200);
    QVERIFY(!attempts.last().forced);
    QTRY_VERIFY_WITH_TIMEOUT(showedSucceeded, 5000);
}

void tst_MainWindow::forceNowAsksFirstAndIsRecorded()
{
    const qint64 id = waitingOperation();
    QVERIFY(id > 0);
    auto session = openSession(operatorWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    JobsPage *jobs = window.jobsPage();
    window.tabs()->setCurrentWidget(jobs);
    QTRY_VERIFY_WITH_TIMEOUT(jobs->model()->rowOf(id) >= 0, 10000);
    jobs->selectOperations({id});

    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    int asked = 0;
    jobs->setConfirmation([&asked](const QString &) { return ++asked > 1; });
    jobs->forceNowAction()->trigger(); // declined
    QCOMPARE(asked, 1);
    QCOMPARE(store->operation(id)->state, OperationState::Waiting);
    QVERIFY(store->operation(id)->nextAttemptAtMs > SystemClock::instance().nowMs() + 60000);

    jobs->forceNowAction()->trigger(); // confirmed
    QCOMPARE(asked, 2);
    QTRY_COMPARE_WITH_TIMEOUT(store->operation(id)->state, OperationState::Succeeded, 10000);
    AttemptFilter filter;
    filter.operationId = id;
    QVERIFY(store->attempts(filter).last().forced);
}

void tst_MainWindow::finalFailureIsAnnounced()
{
    auto session = openSession(operatorWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    // "missing" answers 404: not retryable, it fails for good at once.
    QTRY_COMPARE_WITH_TIMEOUT(window.failureNotifications(), 1, 10000);
}

void tst_MainWindow::automaticPauseIsAnnounced()
{
    QByteArray json = operatorWorkspace();
    json.replace(R"("version": 1,)", R"("version": 1, "pause_after_failures": 1,)");
    auto session = openSession(json);
    QVERIFY(session);
    QSignalSpy autoPaused(session.get(), &EngineSession::endpointAutoPaused);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    // "missing" fails for good at its first attempt; "report" succeeds and stays on.
    QTRY_COMPARE_WITH_TIMEOUT(autoPaused.size(), 1, 10000);
    QCOMPARE(autoPaused.at(0).at(0).toString(), QStringLiteral("missing"));
    QTRY_VERIFY2_WITH_TIMEOUT(
        window.statusBar()->currentMessage().contains(QStringLiteral("missing paused")),
        qPrintable(window.statusBar()->currentMessage()), 5000);
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("Resume endpoint")));
}

void tst_MainWindow::keepsGeometryAndTab()
{
    {
        auto session = openSession(operatorWorkspace());
        QVERIFY(session);
        MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resize(1000, 700);
        window.tabs()->setCurrentIndex(2);
        window.overviewPage()->setRangeIndex(1);
        window.close();
    }
    auto session = openSession(operatorWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    QCOMPARE(window.tabs()->currentIndex(), 2);
    QCOMPARE(window.overviewPage()->rangeIndex(), 1);
    QCOMPARE(window.size(), QSize(1000, 700));
}

void tst_MainWindow::customWindowIsReadAndKept()
{
    const qint64 now = SystemClock::instance().nowMs();
    const qint64 to = now - now % 60000 - 3600000;
    const qint64 from = to - 2 * 3600000;
    {
        auto session = openSession(operatorWorkspace());
        QVERIFY(session);
        MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.overviewPage()->setCustomWindow(from, to));
        // The reader reads that window, and the charts show it.
        QTRY_COMPARE_WITH_TIMEOUT(window.overviewPage()->shownWindow(), std::make_pair(from, to),
                                  10000);
        window.close();
    }
    auto session = openSession(operatorWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    QCOMPARE(window.overviewPage()->rangeIndex(), OverviewPage::customIndex());
    const OverviewPage::Range range = window.overviewPage()->currentRange();
    QVERIFY(range.isFixed());
    QCOMPARE(range.fromMs, from);
    QCOMPARE(range.toMs, to);
    window.overviewPage()->setRangeIndex(0);
    window.close();
}

void tst_MainWindow::endpointsOpenFromTheMenuAndTheDriftLabel()
{
    const QString path = m_dir->filePath(QStringLiteral("drift.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(driftingWorkspace());
    file.close();
    auto session = openSession(driftingWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), path, {}});
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));

    QVERIFY(!window.endpointsDialog());
    QTest::keyClick(&window, Qt::Key_E, Qt::ControlModifier);
    EndpointsDialog *dialog = window.endpointsDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->filePath(), path);
    QCOMPARE(dialog->currentPage(), EndpointsDialog::Page::Endpoints);
    QCOMPARE(dialog->document().endpoints().size(), 1);
    QVERIFY2(dialog->problem().isEmpty(), qPrintable(dialog->problem()));
    dialog->close();
    QTRY_VERIFY(!window.endpointsDialog()); // deleted once closed

    // The server's first answer shows the drift; the label opens the dialog on it.
    auto *drift = window.findChild<QLabel *>(QStringLiteral("driftLabel"));
    QVERIFY(drift);
    QTRY_VERIFY_WITH_TIMEOUT(drift->isVisible(), 15000);
    emit drift->linkActivated(QStringLiteral("#drift"));
    dialog = window.endpointsDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->currentPage(), EndpointsDialog::Page::Drift);
    QVERIFY(dialog->driftModel()->rowCount() >= 1);
    const QModelIndex row = dialog->driftModel()->index(0, 0);
    QCOMPARE(row.data().toString(), QStringLiteral("search"));
    QCOMPARE(dialog->driftModel()->index(0, DriftModel::AdvertisedColumn).data().toString(),
             QStringLiteral("2 per 6 s"));
    QVERIFY(row.data(DriftModel::ServerIsStricterRole).toBool());
}

void tst_MainWindow::partitionsShowAnotherWorkersHoldAndLiftIt()
{
    auto session = openSession(pacedWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.tabs()->setCurrentWidget(window.jobsPage());
    JobsPage *jobs = window.jobsPage();
    PartitionsModel *partitions = jobs->partitionsModel();
    QTRY_COMPARE_WITH_TIMEOUT(partitions->rowCount(), 1, 10000);
    const QModelIndex state = partitions->index(0, PartitionsModel::StateColumn);
    QTRY_COMPARE_WITH_TIMEOUT(state.data().toString(), QStringLiteral("idle"), 10000);
    // An operation of the partition, due in an hour.
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    const auto later = store->createOperation(QStringLiteral("report"), QStringLiteral("k-2"),
                                              SystemClock::instance().nowMs() + 3600000,
                                              QStringLiteral("export"), QStringLiteral("p-1"));
    QVERIFY(later);
    QTRY_COMPARE_WITH_TIMEOUT(state.data().toString(), QStringLiteral("not due yet"), 5000);
    QTRY_VERIFY(jobs->model()->rowOf(*later) >= 0);
    const QModelIndex jobPartition =
        jobs->model()->index(jobs->model()->rowOf(*later), JobsModel::PartitionColumn);
    QCOMPARE(jobPartition.data().toString(), QStringLiteral("p-1"));

    // A worker elsewhere got a 429: only the database knows, and the dashboard shows it,
    // on the partition and on its operations.
    const qint64 until = SystemClock::instance().nowMs() + 600000;
    QVERIFY(store->snoozePartition(QStringLiteral("export"), QStringLiteral("p-1"), until,
                                   QStringLiteral("429 retry-after 600 s")) >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(state.data().toString(), QStringLiteral("held by the server"), 5000);
    QVERIFY(partitions->index(0, PartitionsModel::HeldColumn)
                .data()
                .toString()
                .endsWith(QStringLiteral("429 retry-after 600 s")));
    const auto *holds = window.findChild<QLabel *>(QStringLiteral("holdsLabel"));
    QVERIFY(holds);
    QTRY_VERIFY(holds->text().startsWith(QStringLiteral("Held partitions: 1")));
    // The Jobs page reads its rows on a thread of its own: the hold reaches them when
    // that reader has seen the store change, which may come after the partitions table.
    const auto jobPartitionText = [&] {
        return jobs->model()
            ->index(jobs->model()->rowOf(*later), JobsModel::PartitionColumn)
            .data()
            .toString();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(jobPartitionText().startsWith(QStringLiteral("p-1 (held, in ")),
                              qPrintable(jobPartitionText()), 10000);

    // Lift hold works on the row: for every worker, at once.
    auto *lift = jobs->findChild<QToolButton *>(QStringLiteral("liftHoldButton"));
    QVERIFY(lift);
    QVERIFY(!lift->isEnabled());
    jobs->partitionsTable()->selectRow(0);
    QVERIFY(lift->isEnabled());
    QTest::mouseClick(lift, Qt::LeftButton);
    // Applied by the engine on its thread, a moment later.
    QTRY_COMPARE_WITH_TIMEOUT(
        store->partitions(SystemClock::instance().nowMs()).value().first().heldUntilMs, 0, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(state.data().toString(), QStringLiteral("not due yet"), 5000);
    QTRY_COMPARE(holds->text(), QStringLiteral("No held partitions"));
    QTRY_COMPARE_WITH_TIMEOUT(jobPartitionText(), QStringLiteral("p-1"), 10000);
    QVERIFY(!lift->isEnabled());
}

void tst_MainWindow::policyConflictIsReportedInTheStatusBar()
{
    auto session = openSession(pacedWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const auto *conflict = window.findChild<QLabel *>(QStringLiteral("conflictLabel"));
    QVERIFY(conflict);
    PartitionsModel *partitions = window.jobsPage()->partitionsModel();
    QTRY_COMPARE_WITH_TIMEOUT(partitions->rowCount(), 1, 10000);
    QVERIFY(conflict->isHidden());

    // Another worker configures version 1 of the policy otherwise: reported, not merged.
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    const QString theirs = QStringLiteral(R"({"policy_id":"export","limit":50})");
    QCOMPARE(store->ensurePartition(QStringLiteral("export"), QStringLiteral("p-1"), 1, theirs,
                                    Gcra::forLimit(50, 60000, 0)),
             Store::PaceResult::Conflict);
    QTRY_VERIFY_WITH_TIMEOUT(!conflict->isHidden(), 5000);
    QVERIFY2(conflict->text().contains(QStringLiteral("Policy conflict: export")),
             qPrintable(conflict->text()));
    QVERIFY2(conflict->toolTip().contains(theirs.toHtmlEscaped()) ||
                 conflict->toolTip().contains(theirs),
             qPrintable(conflict->toolTip()));
    QVERIFY(
        partitions->index(0, 0).data(PartitionsModel::ConflictRole).toString().contains(theirs));
    // The database's version is kept.
    QCOMPARE(store->partitions(SystemClock::instance().nowMs()).value().first().pace,
             Gcra::forLimit(10, 60000, 2));

    // A newer version settles it for everyone.
    QCOMPARE(store->ensurePartition(QStringLiteral("export"), QStringLiteral("p-1"), 2, theirs,
                                    Gcra::forLimit(50, 60000, 0)),
             Store::PaceResult::Written);
    QTRY_VERIFY_WITH_TIMEOUT(conflict->isHidden(), 5000);
    QVERIFY(partitions->index(0, 0).data(PartitionsModel::ConflictRole).toString().isEmpty());
}

// The Jobs page's summary counts every state that has not ended: a backlog of
// scheduled operations (here an endpoint's, paused) is not "0 waiting".
void tst_MainWindow::jobsSummaryCountsScheduledOperations()
{
    {
        QString error;
        auto store = Store::open(m_db, &error);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(store->setEndpointPaused(QStringLiteral("backlog"), true, 0));
        const qint64 now = SystemClock::instance().nowMs();
        for (int i = 0; i < 1200; ++i)
            QVERIFY(store->createOperation(QStringLiteral("backlog"), QStringLiteral("k%1").arg(i),
                                           now));
    }
    auto session = openSession(pacedWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const auto *summary = window.findChild<QLabel *>(QStringLiteral("jobsSummary"));
    QVERIFY(summary);
    const QString expected = QStringLiteral("%1 scheduled").arg(QLocale().toString(1200));
    QTRY_VERIFY2_WITH_TIMEOUT(summary->text().startsWith(expected), qPrintable(summary->text()),
                              10000);
}

// The engine works on a thread of its own: while another connection holds SQLite's
// write lock, the engine waits for it there and the window goes on drawing. Operator
// actions given meanwhile are applied once the lock is released, in the order given.
// (SQLite's locks between two connections are the same whether they are in one
// process or in two; the other connection is the test's, so that the test decides
// when it lets go.)
void tst_MainWindow::windowKeepsTurningWhileTheDatabaseIsLocked()
{
    const qint64 retried = waitingOperation(QStringLiteral("k-1"));
    const qint64 cancelled = waitingOperation(QStringLiteral("k-2"));
    QVERIFY(retried > 0 && cancelled > 0);
    auto session = openSession(operatorWorkspace());
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    JobsPage *jobs = window.jobsPage();
    window.tabs()->setCurrentWidget(jobs);
    QTRY_VERIFY_WITH_TIMEOUT(jobs->model()->rowOf(retried) >= 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(jobs->model()->rowOf(cancelled) >= 0, 10000);
    // The failing endpoint has failed for good and the engine has nothing to do.
    QTRY_COMPARE_WITH_TIMEOUT(window.failureNotifications(), 1, 10000);

    test::SqliteWriteLock lock(m_db);
    QVERIFY2(lock.isHeld(), qPrintable(lock.error()));

    QSignalSpy messages(jobs, &JobsPage::message);
    jobs->selectOperations({retried});
    jobs->retryNowAction()->trigger();
    jobs->selectOperations({cancelled});
    jobs->cancelAction()->trigger();

    // Three seconds of the lock, with a timer on the window's thread watching for gaps.
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0;
    qint64 longestGap = 0;
    QTimer watch;
    watch.setInterval(10);
    connect(&watch, &QTimer::timeout, this, [&] {
        const qint64 now = clock.elapsed();
        longestGap = std::max(longestGap, now - last);
        last = now;
    });
    watch.start();
    QEventLoop held;
    QTimer::singleShot(3000, &held, &QEventLoop::quit);
    held.exec();
    watch.stop();
    qInfo("the window's longest pause while the database was locked: %lld ms", longestGap);
    // A window that waited for the lock would stop for the whole of it (3 s); the
    // bound leaves room for a busy machine's scheduling, not for such a wait.
    QVERIFY2(longestGap <= 500,
             qPrintable(QStringLiteral("the window's thread stopped for %1 ms").arg(longestGap)));
    // The engine could not apply the actions: they wait for the lock, on its thread.
    QCOMPARE(messages.count(), 0);
    QCOMPARE(jobs->model()
                 ->index(jobs->model()->rowOf(retried), JobsModel::StateColumn)
                 .data()
                 .toString(),
             QStringLiteral("waiting"));

    QVERIFY(lock.release());
    // Every reader that waited for the lock goes on too; under a sanitizer that takes a
    // while.
    QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 2, 30000);
    QCOMPARE(messages.at(0).at(0).toString(), QStringLiteral("Retry now — %1: done").arg(retried));
    QCOMPARE(messages.at(1).at(0).toString(), QStringLiteral("Cancel — %1: done").arg(cancelled));
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    QTRY_COMPARE_WITH_TIMEOUT(store->operation(retried)->state, OperationState::Succeeded, 10000);
    QCOMPARE(store->operation(cancelled)->state, OperationState::Cancelled);
    AttemptFilter filter;
    filter.operationId = retried;
    QCOMPARE(store->attempts(filter).size(), 2);
}

// What the Endpoints dialog saves, the running engine applies: a file that does not
// validate is refused with where it is wrong; a valid one is run at once.
void tst_MainWindow::savedWorkspaceIsAppliedWithoutARestart()
{
    const QString path = m_dir->filePath(QStringLiteral("workspace.json"));
    const auto write = [&path](const QByteArray &json) {
        QFile file(path);
        return file.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
               file.write(json) == json.size();
    };
    QVERIFY(write(pacedWorkspace()));
    auto session = openSession(pacedWorkspace());
    QVERIFY(session);
    const QHash<QString, QString> variables = WorkspaceConfig::demoVariables(m_server->baseUrl());
    MainWindow window(*session, {QStringLiteral("Test"), path, variables});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTest::keyClick(&window, Qt::Key_E, Qt::ControlModifier);
    EndpointsDialog *dialog = window.endpointsDialog();
    QVERIFY(dialog);

    // Not valid: the engine goes on with what it runs.
    QByteArray broken = pacedWorkspace();
    broken.replace(R"("limit": 10)", R"("limit": "ten")");
    QVERIFY(write(broken));
    emit dialog->saved(path);
    QTRY_VERIFY_WITH_TIMEOUT(
        window.statusBar()->currentMessage().contains(QStringLiteral("not applied")), 5000);
    QVERIFY2(window.statusBar()->currentMessage().contains(QStringLiteral("limit")),
             qPrintable(window.statusBar()->currentMessage()));
    QCOMPARE(session->config().endpoints.size(), 1);

    // Valid, with an endpoint more: it runs now, and the History filter offers it.
    QByteArray more = pacedWorkspace();
    more.replace(R"("endpoints": [)", R"("endpoints": [
        { "id": "added", "method": "GET", "url": "${demo:base_url}/ok?key=applied-test",
          "timeout_seconds": 10 },)");
    QVERIFY(write(more));
    QSignalSpy attempts(session.get(), &EngineSession::attemptRecorded);
    emit dialog->saved(path);
    QTRY_VERIFY_WITH_TIMEOUT(
        window.statusBar()->currentMessage().contains(QStringLiteral("the engine runs it now")),
        10000);
    QCOMPARE(session->config().endpoints.size(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(attempts.cbegin(), attempts.cend(),
                                         [](const QList<QVariant> &args) {
                                             return args.at(0).value<AttemptRecord>().endpointId ==
                                                        QStringLiteral("added") &&
                                                    args.at(0).value<AttemptRecord>().status == 200;
                                         }),
                             10000);
    auto *endpointFilter =
        window.historyPage()->findChild<QComboBox *>(QStringLiteral("historyEndpoint"));
    QVERIFY(endpointFilter);
    QVERIFY(endpointFilter->findData(QStringLiteral("added")) >= 0);
}

// A token endpoint that answers 503 holds the work of its credential: the status bar and
// the Integrations view say so, and the workspace's warning (a tls entry that does not
// check host names) stays in the status bar.
void tst_MainWindow::credentialsAndWarningsInTheStatusBar()
{
    ScriptedHttpServer idp;
    QVERIFY(idp.isListening());
    idp.script("/token", {{503,
                           {{"Retry-After", "120"}, {"Content-Type", "application/json"}},
                           R"({"error":"temporarily_unavailable"})"}});
    qputenv("UI_MW_SECRET", "MW-SECRET-VALUE");
    const QByteArray json = QStringLiteral(R"({
      "version": 1,
      "credentials": [
        { "id": "plm", "type": "oauth2_client_credentials", "token_url": "%1",
          "client_id": "cooldown", "client_secret": "${env:UI_MW_SECRET}" } ],
      "tls": [ { "id": "lab", "verify_hostname": false } ],
      "endpoints": [
        { "id": "bom", "method": "GET", "url": "${demo:base_url}/ok?key=credentials-test",
          "timeout_seconds": 10, "credentials": "plm", "tls": "lab" } ]
    })")
                                .arg(idp.url("/token"))
                                .toUtf8();
    auto session = openSession(json);
    QVERIFY(session);
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    auto *warnings = window.findChild<QLabel *>(QStringLiteral("warningsLabel"));
    QVERIFY(warnings && warnings->isVisible());
    QVERIFY2(warnings->text().contains(
                 QStringLiteral("Workspace warning: tls &#x27;lab&#x27; does not verify host "
                                "names")) ||
                 warnings->text().contains(
                     QStringLiteral("Workspace warning: tls 'lab' does not verify host names")),
             qPrintable(warnings->text()));

    auto *credentials = window.findChild<QLabel *>(QStringLiteral("credentialsLabel"));
    QVERIFY(credentials);
    QTRY_VERIFY_WITH_TIMEOUT(credentials->isVisible(), 15000);
    QVERIFY2(credentials->text().contains(QStringLiteral("Waiting for credentials plm")),
             qPrintable(credentials->text()));
    QVERIFY2(credentials->toolTip().contains(QStringLiteral(
                 "Waiting for credentials plm (token endpoint: temporarily_unavailable")),
             qPrintable(credentials->toolTip()));
    // The whole of it in the tooltip, however narrow the status bar.
    QVERIFY2(credentials->toolTip().contains(QStringLiteral("next try")),
             qPrintable(credentials->toolTip()));
    QVERIFY(!credentials->text().contains(QStringLiteral("MW-SECRET-VALUE")));

    // The Integrations view shows the endpoint waiting, not failing.
    IntegrationsModel *integrations = window.integrationsPage()->model();
    QTRY_COMPARE_WITH_TIMEOUT(integrations->rowCount(), 1, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(integrations->stateAt(0), IntegrationState::WaitingForCredentials,
                              5000);
    QCOMPARE(integrations->index(0, IntegrationsModel::StateColumn).data().toString(),
             QStringLiteral("waiting for credentials"));
    QVERIFY(!idp.received.isEmpty());

    // The warning's link opens the credentials, which name the state too.
    QMetaObject::invokeMethod(warnings, "linkActivated", Q_ARG(QString, QStringLiteral("#w")));
    QTRY_VERIFY(window.endpointsDialog());
    QCOMPARE(window.endpointsDialog()->currentPage(), EndpointsDialog::Page::Credentials);
    window.endpointsDialog()->close();
    qunsetenv("UI_MW_SECRET");
}

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
