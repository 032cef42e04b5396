// SPDX-License-Identifier: Apache-2.0
#include "ui/MainWindow.h"

#include "core/config/WorkspaceDocument.h"
#include "core/engine/Metrics.h"
#include "core/engine/RetentionRun.h"
#include "core/query/QueryStore.h"
#include "core/time/Clock.h"
#include "ui/Format.h"
#include "ui/HistoryPage.h"
#include "ui/ImportDialog.h"
#include "ui/IntegrationsPage.h"
#include "ui/JobsModel.h"
#include "ui/JobsPage.h"
#include "ui/OverviewPage.h"
#include "ui/Palette.h"
#include "ui/PartitionsModel.h"
#include "ui/ReportDialog.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTimer>

namespace cooldown {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");
const QString kTabKey = QStringLiteral("window/tab");
const QString kRangeKey = QStringLiteral("overview/range");
const QString kWindowFromKey = QStringLiteral("overview/window_from");
const QString kWindowToKey = QStringLiteral("overview/window_to");

} // namespace

MainWindow::MainWindow(EngineSession &engine, WorkspaceSource workspace, QWidget *parent)
    : QMainWindow(parent), m_engine(engine), m_workspace(std::move(workspace))
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Cooldown — %1").arg(m_workspace.name));
    setWindowIcon(QIcon(QStringLiteral(":/cooldown/icons/cooldown.png")));

    QHash<QString, QString> partitionOf;
    QStringList endpointIds;
    for (const EndpointConfig &e : engine.config().endpoints) {
        endpointIds.append(e.id);
        const QString label = Metrics::partitionLabel(e.policy, e.partitionKey);
        if (!label.isEmpty())
            partitionOf.insert(e.id, label);
    }
    m_changes = std::make_unique<WorkerThread<ChangePoller>>(QStringLiteral("change poller"),
                                                             engine.databaseUrl());
    m_reader = std::make_unique<WorkerThread<LiveReader>>(QStringLiteral("live reader"),
                                                          engine.databaseUrl(), engine.clock(),
                                                          partitionOf, endpointIds);

    // History older than the workspace keeps goes in small batches on its own thread,
    // a minute after the window opens and every hour after.
    m_pruner = std::make_unique<RetentionRun>(engine.databaseUrl(), engine.clock(),
                                              engine.config().retention, kRetentionDelayMs,
                                              kRetentionIntervalMs);

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_overview = new OverviewPage(engine.clock(), m_tabs);
    m_jobs = new JobsPage(&m_engine, engine.clock(), m_tabs);
    m_history = new HistoryPage(engine.databaseUrl(), engine.config(), engine.clock(), m_tabs);
    m_integrations =
        new IntegrationsPage(engine.databaseUrl(), engine.config(), engine.clock(), m_tabs);
    m_tabs->addTab(m_overview, tr("&Overview"));
    m_tabs->addTab(m_integrations, tr("&Integrations"));
    m_tabs->addTab(m_jobs, tr("&Jobs"));
    m_tabs->addTab(m_history, tr("&History"));
    setCentralWidget(m_tabs);

    setupMenus();
    setupStatusBar();
    setupTray();
    restoreSettings();
    connectEngine();

    m_tick = new QTimer(this);
    m_tick->setInterval(1000);
    connect(m_tick, &QTimer::timeout, this, &MainWindow::tick);
    m_tick->start();
    onEngineState();
    showWarnings();
    tick();
}

MainWindow::~MainWindow()
{
    disconnect(m_reader->worker(), nullptr, this, nullptr);
}

void MainWindow::setupMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    m_endpointsAction = file->addAction(
        tr("&Endpoints…"), this, [this] { openEndpoints(EndpointsDialog::Page::Endpoints); });
    m_endpointsAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_endpointsAction->setStatusTip(
        tr("Add and edit the workspace's endpoints and policies; compare them with what "
           "servers advertise"));
    file->addAction(tr("&Import endpoints…"), this, [this] {
        // The Endpoints window holds a copy of the file that its Save would write back.
        if (m_endpointsDialog) {
            statusBar()->showMessage(tr("Close Endpoints first: it holds its own copy of the "
                                        "workspace"),
                                     10000);
            return;
        }
        auto *dialog = new ImportDialog(m_workspace.configPath, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &ImportDialog::saved, this, [this](const QString &file) {
            applyWorkspace(file, tr("Imported into %1").arg(file));
        });
        connect(dialog, &ImportDialog::savedWithoutVariables, this, [this](const QString &file) {
            statusBar()->showMessage(tr("Imported into %1; not applied until the variables it "
                                        "names are set and Cooldown starts again")
                                         .arg(file),
                                     20000);
        });
        dialog->open();
    });
    file->addAction(m_history->exportAction());
    file->addAction(tr("SLA &report…"), this, [this] {
        ReportDialog::open(m_engine.databaseUrl(), m_engine.config(), m_engine.clock(), this);
    });
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *jobs = menuBar()->addMenu(tr("&Jobs"));
    for (QAction *a : {m_jobs->retryNowAction(), m_jobs->forceNowAction(), m_jobs->cancelAction()})
        jobs->addAction(a);
    jobs->addSeparator();
    for (QAction *a : {m_jobs->pauseAction(), m_jobs->pauseForAction(), m_jobs->resumeAction(),
                       m_jobs->liftHoldAction()})
        jobs->addAction(a);
    jobs->addSeparator();
    jobs->addAction(m_jobs->bulkAction());

    QMenu *view = menuBar()->addMenu(tr("&View"));
    const QStringList names{tr("Overview"), tr("Integrations"), tr("Jobs"), tr("History")};
    for (int i = 0; i < names.size(); ++i) {
        QAction *a = view->addAction(names.at(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        a->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Cooldown"), this, &MainWindow::showAbout);
}

void MainWindow::setupStatusBar()
{
    m_databaseLabel =
        new QLabel(tr("Database: %1").arg(QueryStore::displayUrl(m_engine.databaseUrl())), this);
    m_databaseLabel->setObjectName(QStringLiteral("databaseLabel"));
    m_databaseLabel->setToolTip(m_workspace.name);
    m_inFlightLabel = new QLabel(this);
    m_inFlightLabel->setObjectName(QStringLiteral("inFlightLabel"));
    m_holdsLabel = new QLabel(this);
    m_holdsLabel->setObjectName(QStringLiteral("holdsLabel"));
    m_driftLabel = new QLabel(this);
    m_driftLabel->setObjectName(QStringLiteral("driftLabel"));
    m_driftLabel->setTextFormat(Qt::RichText);
    m_driftLabel->setTextInteractionFlags(Qt::LinksAccessibleByMouse |
                                          Qt::LinksAccessibleByKeyboard);
    connect(m_driftLabel, &QLabel::linkActivated, this,
            [this] { openEndpoints(EndpointsDialog::Page::Drift); });
    m_driftLabel->hide();
    m_conflictLabel = new QLabel(this);
    m_conflictLabel->setObjectName(QStringLiteral("conflictLabel"));
    m_conflictLabel->setTextFormat(Qt::RichText);
    m_conflictLabel->setTextInteractionFlags(Qt::LinksAccessibleByMouse |
                                             Qt::LinksAccessibleByKeyboard);
    connect(m_conflictLabel, &QLabel::linkActivated, this,
            [this] { m_tabs->setCurrentWidget(m_jobs); });
    m_conflictLabel->hide();
    m_credentialsLabel = new QLabel(this);
    m_credentialsLabel->setObjectName(QStringLiteral("credentialsLabel"));
    m_credentialsLabel->setTextFormat(Qt::RichText);
    m_credentialsLabel->setTextInteractionFlags(Qt::LinksAccessibleByMouse |
                                                Qt::LinksAccessibleByKeyboard);
    connect(m_credentialsLabel, &QLabel::linkActivated, this, [this] {
        openEndpoints(EndpointsDialog::Page::Credentials);
        // The first credential that holds work, with what the engine says of it.
        const qint64 now = m_engine.clock().nowMs();
        for (const CredentialState &c : m_engine.state().credentials) {
            if (m_endpointsDialog && !format::credentialTrouble(c, now).isEmpty()) {
                m_endpointsDialog->selectCredential(c.id);
                break;
            }
        }
    });
    m_credentialsLabel->hide();
    // A warning stays for as long as the workspace says what it warns of, so it has a
    // place of its own rather than a message that times out.
    m_warnings = new QWidget(this);
    m_warnings->setObjectName(QStringLiteral("warnings"));
    auto *warningsLayout = new QHBoxLayout(m_warnings);
    warningsLayout->setContentsMargins(0, 0, 0, 0);
    warningsLayout->setSpacing(4);
    auto *warningIcon = new QLabel(m_warnings);
    const int iconSize = fontMetrics().height();
    warningIcon->setPixmap(
        style()->standardIcon(QStyle::SP_MessageBoxWarning).pixmap(iconSize, iconSize));
    warningsLayout->addWidget(warningIcon);
    m_warningsLabel = new QLabel(m_warnings);
    m_warningsLabel->setObjectName(QStringLiteral("warningsLabel"));
    m_warningsLabel->setTextFormat(Qt::RichText);
    m_warningsLabel->setTextInteractionFlags(Qt::LinksAccessibleByMouse |
                                             Qt::LinksAccessibleByKeyboard);
    connect(m_warningsLabel, &QLabel::linkActivated, this,
            [this] { openEndpoints(EndpointsDialog::Page::Credentials); });
    warningsLayout->addWidget(m_warningsLabel);
    m_warnings->hide();
    statusBar()->addPermanentWidget(m_warnings);
    statusBar()->addPermanentWidget(m_credentialsLabel);
    statusBar()->addPermanentWidget(m_conflictLabel);
    statusBar()->addPermanentWidget(m_driftLabel);
    statusBar()->addPermanentWidget(m_inFlightLabel);
    statusBar()->addPermanentWidget(m_holdsLabel);
    statusBar()->addPermanentWidget(m_databaseLabel);
}

void MainWindow::setupTray()
{
    if (!QSystemTrayIcon::isSystemTrayAvailable())
        return;
    m_tray = new QSystemTrayIcon(windowIcon(), this);
    m_tray->setToolTip(tr("Cooldown — %1").arg(m_workspace.name));
    connect(m_tray, &QSystemTrayIcon::activated, this, [this] {
        showNormal();
        raise();
        activateWindow();
    });
    m_tray->show();
}

void MainWindow::connectEngine()
{
    LiveReader *reader = m_reader->worker();
    ChangePoller *changes = m_changes->worker();
    connect(changes, &ChangePoller::polled, reader, &LiveReader::tick);
    connect(reader, &LiveReader::snapshotReady, this, &MainWindow::onSnapshot);
    connect(reader, &LiveReader::failed, this, [this](const QString &message) {
        statusBar()->showMessage(tr("Database: %1").arg(message), 10000);
    });
    connect(m_overview, &OverviewPage::rangeChanged, this, [reader](qint64 range, qint64 bucket) {
        QMetaObject::invokeMethod(
            reader, [reader, range, bucket] { reader->setRange(range, bucket); },
            Qt::QueuedConnection);
    });
    connect(m_overview, &OverviewPage::windowChanged, this,
            [reader](qint64 from, qint64 to, qint64 bucket) {
                QMetaObject::invokeMethod(
                    reader, [reader, from, to, bucket] { reader->setWindow(from, to, bucket); },
                    Qt::QueuedConnection);
            });

    const OverviewPage::Range range = m_overview->currentRange();
    QMetaObject::invokeMethod(
        reader,
        [reader, range] {
            if (range.isFixed())
                reader->setWindow(range.fromMs, range.toMs, range.bucketMs);
            else
                reader->setRange(range.rangeMs, range.bucketMs);
        },
        Qt::QueuedConnection);

    connect(m_jobs, &JobsPage::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 8000); });
    connect(m_jobs, &JobsPage::adoptRequested, this, &MainWindow::adoptServerLimit);
    connect(m_jobs, &JobsPage::partitionsChanged, this, [reader] {
        QMetaObject::invokeMethod(reader, &LiveReader::poll, Qt::QueuedConnection);
    });
    connect(m_history, &HistoryPage::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 10000); });
    // The integration selected is the one Jobs and History show.
    connect(m_integrations, &IntegrationsPage::endpointSelected, this,
            [this](const QString &endpointId) {
                m_jobs->setEndpointFilter(endpointId);
                m_history->setEndpointFilter(endpointId);
            });
    connect(m_integrations, &IntegrationsPage::jobsRequested, this,
            [this] { m_tabs->setCurrentWidget(m_jobs); });
    m_integrations->start(changes);
    // Once a second, as the window's own tick; the readers read at once when set up.
    QMetaObject::invokeMethod(
        changes, [changes] { changes->start(1000); }, Qt::QueuedConnection);

    connect(&m_engine, &EngineSession::operationChanged, this, [this](const OperationRecord &op) {
        // A row already shown follows its operation (and goes when it leaves the
        // list); a new one appears if it belongs.
        m_jobs->model()->upsert(op);
    });
    connect(&m_engine, &EngineSession::attemptRecorded, this, &MainWindow::onAttempt);
    // Holds, drifts and the in-flight count as the engine last reported them.
    connect(&m_engine, &EngineSession::stateChanged, this, &MainWindow::onEngineState);
    connect(&m_engine, &EngineSession::configApplied, this, &MainWindow::onWorkspaceApplied);
    connect(&m_engine, &EngineSession::storeFailed, this, [this](const QString &message) {
        statusBar()->showMessage(tr("Engine database error: %1").arg(message), 15000);
    });
    connect(&m_engine, &EngineSession::endpointAutoPaused, this,
            [this](const QString &endpointId, int failures) {
                const QString title = tr("%1 paused").arg(endpointId);
                const QString text =
                    tr("After %n failed operation(s) in a row. Resume endpoint on the Jobs page "
                       "runs it again.",
                       nullptr, failures);
                if (m_tray)
                    m_tray->showMessage(title, text, QSystemTrayIcon::Warning, 10000);
                statusBar()->showMessage(QStringLiteral("%1 — %2").arg(title, text), 30000);
                // The Jobs page shows it paused, and offers Resume, at once.
                LiveReader *reader = m_reader->worker();
                QMetaObject::invokeMethod(reader, &LiveReader::poll, Qt::QueuedConnection);
            });
}

void MainWindow::onSnapshot(const LiveSnapshot &snapshot)
{
    m_overview->showSnapshot(snapshot);
    m_history->setRawHistoryStart(snapshot.rawHistoryFromMs);
    m_jobs->showSnapshot(snapshot);
    showHolds();
    showConflicts(snapshot.partitions);
}

void MainWindow::onAttempt(const AttemptRecord &attempt, const OperationRecord &operation)
{
    if (operation.state != OperationState::Failed || attempt.leaseConflict)
        return;
    ++m_failureNotifications;
    const QString title = tr("%1 failed for good").arg(operation.endpointId);
    const QString text = tr("Operation %1 after %n attempt(s): %2", nullptr, operation.attempt)
                             .arg(operation.id)
                             .arg(operation.finalReason);
    if (m_tray)
        m_tray->showMessage(title, text, QSystemTrayIcon::Warning, 10000);
    statusBar()->showMessage(QStringLiteral("%1 — %2").arg(title, text), 15000);
}

void MainWindow::onEngineState()
{
    showDatabase();
    refreshHolds();
    refreshDrift();
    showCredentials();
    m_integrations->setCredentials(m_engine.state().credentials);
    m_integrations->setIncidents(m_engine.state().openIncidents);
    const int inFlight = m_engine.state().inFlight;
    const int limit = m_engine.state().maxInFlight;
    m_inFlightLabel->setText(tr("In flight: %1 / %2").arg(inFlight).arg(limit));
    m_inFlightLabel->setToolTip(QString());
    // No exchange reaches the network (docs/offline.md): the work waits, and says so.
    if (const qint64 since = m_engine.state().offlineSinceMs; since >= 0) {
        const QString at =
            QLocale().toString(QDateTime::fromMSecsSinceEpoch(since).time(), QLocale::ShortFormat);
        m_inFlightLabel->setText(
            QStringLiteral("<b style=\"color:%1\">%2</b>")
                .arg(palette::problem().name(),
                     tr("Offline since %1: work is held").arg(at).toHtmlEscaped()));
        m_inFlightLabel->setToolTip(
            tr("No request reaches the network. Attempts made meanwhile do not count against "
               "max_attempts; one request every 5 s looks whether the network is back, and "
               "sending then ramps up over a minute."));
    }
    m_overview->setInFlight(inFlight, limit);
    LiveReader *reader = m_reader->worker();
    QMetaObject::invokeMethod(
        reader, [reader, inFlight, limit] { reader->noteInFlight(inFlight, limit); },
        Qt::QueuedConnection);
}

void MainWindow::showDatabase()
{
    // The engine holds its work while the database is away and resumes by itself
    // (docs/database-outages.md); the window says so, and since when.
    const EngineState &state = m_engine.state();
    const QString shown = tr("Database: %1").arg(QueryStore::displayUrl(m_engine.databaseUrl()));
    if (state.databaseDownSinceMs < 0) {
        m_databaseLabel->setText(shown);
        m_databaseLabel->setToolTip(m_workspace.name);
        return;
    }
    const QString since = QLocale().toString(
        QDateTime::fromMSecsSinceEpoch(state.databaseDownSinceMs).time(), QLocale::ShortFormat);
    m_databaseLabel->setText(
        QStringLiteral("<b style=\"color:%1\">%2</b>")
            .arg(palette::problem().name(),
                 tr("Database unreachable since %1: work is held").arg(since).toHtmlEscaped()));
    m_databaseLabel->setToolTip(
        tr("%1\n%2\nNothing is claimed or sent until it answers again; answers already "
           "received are kept and written then.")
            .arg(shown, state.databaseDownWhy));
}

void MainWindow::refreshHolds()
{
    // Holds end on their own, whether or not the engine has said so yet.
    const qint64 now = m_engine.clock().nowMs();
    m_holds.clear();
    for (const PartitionHold &h : m_engine.state().holds) {
        if (h.untilMs > now)
            m_holds.append(h);
    }
    m_jobs->setHolds(m_holds);
    showHolds();
}

void MainWindow::showHolds()
{
    // This engine's holds and those of other workers, as the partitions show them.
    const QList<PartitionHold> holds = m_jobs->partitionsModel()->activeHolds();
    m_overview->setHeldPartitions(int(holds.size()));
    if (holds.isEmpty()) {
        m_holdsLabel->setText(tr("No held partitions"));
        m_holdsLabel->setToolTip(QString());
        return;
    }
    qint64 until = 0;
    QStringList lines;
    for (const PartitionHold &h : holds) {
        until = std::max(until, h.untilMs);
        lines.append(
            QStringLiteral("%1 / %2 until %3 (%4)")
                .arg(h.policyId, h.partitionKey,
                     QDateTime::fromMSecsSinceEpoch(h.untilMs).toString(QStringLiteral("HH:mm:ss")),
                     h.why));
    }
    m_holdsLabel->setText(
        tr("Held partitions: %1 (until %2)")
            .arg(holds.size())
            .arg(QDateTime::fromMSecsSinceEpoch(until).toString(QStringLiteral("HH:mm:ss"))));
    m_holdsLabel->setToolTip(lines.join(QLatin1Char('\n')));
}

void MainWindow::refreshDrift()
{
    // The server advertises other limits than the config assumes: say so, with what differs.
    QStringList lines;
    bool stricter = false;
    const QList<PolicyDrift> drifts = m_engine.state().drifts;
    for (const PolicyDrift &d : drifts) {
        if (!d.isDrift())
            continue;
        stricter = stricter || d.serverIsStricter();
        lines.append(
            QStringLiteral("%1 / %2: %3")
                .arg(d.policyId, d.partitionKey, d.differences.join(QStringLiteral("; "))));
    }
    // The engine reports its state every second; the label and the dialog change only
    // when what differs does.
    if (lines == m_driftLines && !m_driftLabel->text().isEmpty())
        return;
    m_driftLines = lines;
    m_driftLabel->setVisible(!lines.isEmpty());
    const QString text = stricter
                             ? tr("<b>Policy drift: %1 (server stricter)</b>").arg(lines.size())
                             : tr("Policy drift: %1").arg(lines.size());
    m_driftLabel->setText(QStringLiteral("<a href=\"#drift\">%1</a>").arg(text));
    lines.append(tr("Click to compare with the configured policies."));
    m_driftLabel->setToolTip(lines.join(QLatin1Char('\n')));
    if (m_endpointsDialog)
        m_endpointsDialog->setDrifts(m_engine.state().drifts, m_engine.clock().nowMs());
}

void MainWindow::showCredentials()
{
    const qint64 now = m_engine.clock().nowMs();
    QStringList lines;
    int waiting = 0;
    int refused = 0;
    for (const CredentialState &c : m_engine.state().credentials) {
        const QString trouble = format::credentialTrouble(c, now);
        if (trouble.isEmpty())
            continue;
        lines.append(trouble);
        if (format::credentialRefused(c))
            ++refused;
        else
            ++waiting;
    }
    if (m_endpointsDialog)
        m_endpointsDialog->setCredentialStates(m_engine.state().credentials, now);
    if (lines == m_credentialLines && !m_credentialsLabel->text().isEmpty())
        return;
    m_credentialLines = lines;
    m_credentialsLabel->setVisible(!lines.isEmpty());
    if (lines.isEmpty()) {
        m_credentialsLabel->setText(QStringLiteral(" "));
        m_credentialsLabel->setToolTip(QString());
        return;
    }
    const QString text =
        lines.size() == 1
            ? m_credentialsLabel->fontMetrics().elidedText(lines.first(), Qt::ElideRight, 380)
            : tr("Credentials: %1 waiting, %2 refused").arg(waiting).arg(refused);
    // Refused credentials need the operator; a token endpoint that is down ends by itself.
    const QString style = refused > 0
                              ? QStringLiteral(" style=\"color:%1\"").arg(palette::problem().name())
                              : QString();
    m_credentialsLabel->setText(
        QStringLiteral("<a href=\"#credentials\"%1>%2</a>")
            .arg(style, refused > 0 ? QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped())
                                    : text.toHtmlEscaped()));
    QStringList tip = lines;
    tip.append(tr("Click to see the workspace's credentials and test them."));
    m_credentialsLabel->setToolTip(tip.join(QLatin1Char('\n')));
}

void MainWindow::showWarnings()
{
    const QStringList warnings = m_engine.config().warnings;
    m_warnings->setVisible(!warnings.isEmpty());
    if (warnings.isEmpty()) {
        m_warningsLabel->clear();
        m_warnings->setToolTip(QString());
        return;
    }
    const QString text = warnings.size() == 1
                             ? tr("Workspace warning: %1")
                                   .arg(m_warningsLabel->fontMetrics().elidedText(
                                       warnings.first(), Qt::ElideRight, 300))
                             : tr("%n workspace warning(s)", nullptr, int(warnings.size()));
    m_warningsLabel->setText(
        QStringLiteral("<a href=\"#warnings\">%1</a>").arg(text.toHtmlEscaped()));
    QStringList tip = warnings;
    tip.append(tr("Click to see the workspace's credentials and TLS settings."));
    m_warnings->setToolTip(tip.join(QLatin1Char('\n')));
    m_warningsLabel->setToolTip(m_warnings->toolTip());
}

void MainWindow::showConflicts(const QList<PartitionState> &partitions)
{
    // Workers that configure a policy otherwise are reported, never merged: the
    // database keeps its version, and the operator should know the fleet disagrees.
    QStringList lines;
    QStringList policies;
    QString firstConflict;
    for (const PartitionState &p : partitions) {
        if (p.conflict.isEmpty())
            continue;
        lines.append(QStringLiteral("%1 / %2: %3").arg(p.policyId, p.partitionKey, p.conflict));
        if (policies.contains(p.policyId))
            continue;
        policies.append(p.policyId);
        if (firstConflict.isEmpty())
            firstConflict = p.conflict;
    }
    m_conflictLabel->setVisible(!policies.isEmpty());
    if (policies.isEmpty()) {
        m_conflictLabel->clear();
        m_conflictLabel->setToolTip(QString());
        return;
    }
    const QFontMetrics metrics = m_conflictLabel->fontMetrics();
    const QString text =
        policies.size() == 1
            ? tr("Policy conflict: %1 — %2")
                  .arg(policies.first(), metrics.elidedText(firstConflict, Qt::ElideRight, 280))
            : tr("Policy conflicts: %1")
                  .arg(
                      metrics.elidedText(policies.join(QStringLiteral(", ")), Qt::ElideRight, 360));
    m_conflictLabel->setText(QStringLiteral("<a href=\"#partitions\" style=\"color:%1\">"
                                            "<b>%2</b></a>")
                                 .arg(palette::problem().name(), text.toHtmlEscaped()));
    lines.append(tr("The database keeps its version. Click to see the partitions."));
    m_conflictLabel->setToolTip(lines.join(QLatin1Char('\n')));
}

void MainWindow::adoptServerLimit(const QString &host, qint64 quota, qint64 windowMs)
{
    // The endpoints whose operations the learned partition paces: no policy, that host.
    QStringList endpointIds;
    for (const EndpointConfig &e : m_engine.config().endpoints) {
        if (e.policy.isEmpty() && e.url.host() == host)
            endpointIds.append(e.id);
    }
    const QString path = m_workspace.configPath;
    if (path.isEmpty()) {
        QMessageBox::information(
            this, tr("Adopt as policy"),
            tr("The demo workspace has no file to write a policy into. Open a workspace file "
               "to adopt what %1 states: %n request(s) per %2.",
               nullptr, int(quota))
                .arg(host, format::duration(windowMs)));
        return;
    }
    QString error;
    std::optional<WorkspaceDocument> document = WorkspaceDocument::load(path, &error);
    QString policyId;
    if (document) {
        policyId = document->adoptServerLimit(host, quota, windowMs, endpointIds);
        if (!document->save(path, &error, WorkspaceConfig::demoVariables()))
            document.reset();
    }
    if (!document) {
        QMessageBox::warning(this, tr("Adopt as policy"), error);
        return;
    }
    applyWorkspace(path, tr("Policy %1 written to %2 for %3")
                             .arg(policyId, path, endpointIds.join(QStringLiteral(", "))));
}

void MainWindow::applyWorkspace(const QString &file, const QString &done)
{
    // What was saved is read back as the engine will run it; a file that does not
    // validate is not applied, and the engine goes on with what it runs.
    QString error;
    std::optional<WorkspaceConfig> config =
        WorkspaceConfig::load(file, &error, m_workspace.variables);
    if (!config) {
        statusBar()->showMessage(
            tr("%1; not applied, the engine goes on with its workspace: %2").arg(done, error),
            20000);
        return;
    }
    if (m_workspace.configPath.isEmpty()) {
        // The demo workspace saved as a file: that file is the workspace from now on.
        m_workspace.configPath = file;
        m_workspace.name = QDir::toNativeSeparators(file);
        setWindowTitle(tr("Cooldown — %1").arg(m_workspace.name));
    }
    m_applying = done;
    statusBar()->showMessage(tr("%1; applying it to the engine…").arg(done));
    m_engine.apply(std::move(*config));
}

void MainWindow::onWorkspaceApplied(bool applied, const QString &error)
{
    const QString done = std::exchange(m_applying, QString());
    if (!applied) {
        statusBar()->showMessage(
            tr("%1; not applied, the engine goes on with its workspace: %2").arg(done, error),
            20000);
        return;
    }
    // The views that list the workspace's endpoints follow it.
    QHash<QString, QString> partitionOf;
    QStringList endpointIds;
    for (const EndpointConfig &e : m_engine.config().endpoints) {
        endpointIds.append(e.id);
        const QString label = Metrics::partitionLabel(e.policy, e.partitionKey);
        if (!label.isEmpty())
            partitionOf.insert(e.id, label);
    }
    LiveReader *reader = m_reader->worker();
    QMetaObject::invokeMethod(
        reader,
        [reader, partitionOf, endpointIds] {
            reader->setEndpoints(partitionOf, endpointIds);
            reader->poll();
        },
        Qt::QueuedConnection);
    m_history->setEndpoints(m_engine.config());
    m_integrations->setEndpoints(m_engine.config());
    showWarnings();
    // Retention follows the workspace too, from the pruner's next pass.
    m_pruner->follow(m_engine.config().retention);
    statusBar()->showMessage(tr("%1; the engine runs it now").arg(done), 10000);
}

void MainWindow::openEndpoints(EndpointsDialog::Page page)
{
    if (m_endpointsDialog) {
        m_endpointsDialog->showPage(page);
        m_endpointsDialog->raise();
        m_endpointsDialog->activateWindow();
        return;
    }
    // The file as it is now, which is what Save replaces; the demo has no file.
    const QString path = m_workspace.configPath;
    QString error;
    std::optional<WorkspaceDocument> document;
    if (path.isEmpty()) {
        QFile demo(QStringLiteral(":/cooldown/demo.json"));
        if (demo.open(QIODevice::ReadOnly))
            document =
                WorkspaceDocument::fromJson(demo.readAll(), QStringLiteral("demo.json"), &error);
        else
            error = tr("The demo workspace is missing from this build.");
    } else {
        document = WorkspaceDocument::load(path, &error);
    }
    if (!document) {
        QMessageBox::warning(this, tr("Endpoints"), error);
        return;
    }
    m_endpointsDialog = new EndpointsDialog(std::move(*document), path, this);
    m_endpointsDialog->setAttribute(Qt::WA_DeleteOnClose);
    m_endpointsDialog->setDrifts(m_engine.state().drifts, m_engine.clock().nowMs());
    m_endpointsDialog->setCredentialStates(m_engine.state().credentials, m_engine.clock().nowMs());
    m_endpointsDialog->showPage(page);
    connect(m_endpointsDialog, &EndpointsDialog::saved, this,
            [this](const QString &file) { applyWorkspace(file, tr("Saved %1").arg(file)); });
    m_endpointsDialog->show();
}

void MainWindow::tick()
{
    const qint64 now = m_engine.clock().nowMs();
    m_jobs->tick(now);
    // Holds end on their own; the list follows without waiting for a signal.
    bool expired = false;
    for (const PartitionHold &h : std::as_const(m_holds))
        expired = expired || h.untilMs <= now;
    if (expired || m_holdsLabel->text().isEmpty())
        refreshHolds();
    else
        showHolds();
    // The answer comes by stateChanged(), whenever the engine gets to it: a tick never
    // waits for the engine, which may be waiting for the database.
    m_engine.requestState();
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        resize(1280, 820);
    restoreState(settings.value(kStateKey).toByteArray());
    m_tabs->setCurrentIndex(settings.value(kTabKey, 0).toInt());
    const qint64 windowTo = settings.value(kWindowToKey, -1).toLongLong();
    if (windowTo >= 0)
        m_overview->setCustomWindow(settings.value(kWindowFromKey).toLongLong(), windowTo, false);
    m_overview->setRangeIndex(settings.value(kRangeKey, 0).toInt());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kTabKey, m_tabs->currentIndex());
    settings.setValue(kRangeKey, m_overview->rangeIndex());
    if (const auto window = m_overview->customWindow()) {
        settings.setValue(kWindowFromKey, window->fromMs);
        settings.setValue(kWindowToKey, window->toMs);
    } else {
        settings.remove(kWindowFromKey);
        settings.remove(kWindowToKey);
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // Edits not saved yet are not dropped without asking.
    if (m_endpointsDialog && !m_endpointsDialog->close()) {
        event->ignore();
        return;
    }
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::showAbout()
{
    QMessageBox::about(
        this, tr("About Cooldown"),
        tr("<h3>Cooldown %1</h3><p>Runs API integrations through one shared concurrency limit "
           "and a retry engine that treats <b>429</b>, <b>503</b> and <code>Retry-After</code> "
           "as a contract, and keeps every attempt.</p><p>Workspace: %2<br>Database: %3</p>")
            .arg(QApplication::applicationVersion(), m_workspace.name.toHtmlEscaped(),
                 QueryStore::displayUrl(m_engine.databaseUrl()).toHtmlEscaped()));
}

} // namespace cooldown
