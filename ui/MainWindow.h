// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/EngineSession.h"
#include "core/query/ChangePoller.h"
#include "ui/EndpointsDialog.h"
#include "ui/LiveReader.h"
#include "ui/WorkerThread.h"

#include <QMainWindow>
#include <QPointer>

#include <memory>

class QLabel;
class QSystemTrayIcon;
class QTabWidget;
class QTimer;

namespace cooldown {

class HistoryPage;
class IntegrationsPage;
class JobsPage;
class OverviewPage;
class RetentionRun;

// The dashboard: Overview (charts and headline figures), Integrations (one light per
// endpoint; selecting one filters Jobs and History), Jobs (operations and the
// operator's actions) and History (every attempt, the inspector, CSV export), with
// the database, the permits in flight, the held partitions (of every worker), policy
// drift, policies that workers configure differently, credentials that hold work and
// the workspace's warnings in the status bar.
// Endpoints… edits the workspace file. Geometry, the open tab and the chosen ranges
// are kept with QSettings.
// Where the window's workspace comes from.
struct WorkspaceSource
{
    QString name;       // "Demo workspace" or the config file's path, for the title
    QString configPath; // the file Endpoints and "Adopt as policy" write and the engine
                        // applies; empty for the demo workspace, which lives in the binary
    QHash<QString, QString> variables; // what ${demo:…} placeholders read as
};

class MainWindow final : public QMainWindow
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)

public:
    // Retention's first pass, and the time between passes.
    static constexpr int kRetentionDelayMs = 60 * 1000;
    static constexpr int kRetentionIntervalMs = 3600 * 1000;

    MainWindow(EngineSession &engine, WorkspaceSource workspace, QWidget *parent = nullptr);
    ~MainWindow() override;

    OverviewPage *overviewPage() const { return m_overview; }
    IntegrationsPage *integrationsPage() const { return m_integrations; }
    JobsPage *jobsPage() const { return m_jobs; }
    HistoryPage *historyPage() const { return m_history; }
    QTabWidget *tabs() const { return m_tabs; }
    QAction *endpointsAction() const { return m_endpointsAction; }
    // The open Endpoints dialog, or null.
    EndpointsDialog *endpointsDialog() const { return m_endpointsDialog; }
    // Opens the Endpoints dialog on a page (or brings the open one forward).
    void openEndpoints(EndpointsDialog::Page page);
    // Writes a limit a server stated into the workspace file as a policy.
    void adoptServerLimit(const QString &host, qint64 quota, qint64 windowMs);
    // How many "failed for good" notifications were raised (shown in the tray when
    // there is one).
    int failureNotifications() const { return m_failureNotifications; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void setupMenus();
    void setupStatusBar();
    void setupTray();
    void connectEngine();
    void onSnapshot(const LiveSnapshot &snapshot);
    void onAttempt(const AttemptRecord &attempt, const OperationRecord &operation);
    void showDatabase();
    void refreshHolds();
    void showHolds();
    void refreshDrift();
    // The credentials that hold work, as the engine last reported them.
    void showCredentials();
    // What the workspace allows but weakens (a tls entry that does not check host names).
    void showWarnings();
    void onEngineState();
    // Reads `file` and has the engine run it; `done` says what wrote it.
    void applyWorkspace(const QString &file, const QString &done);
    void onWorkspaceApplied(bool applied, const QString &error);
    void showConflicts(const QList<PartitionState> &partitions);
    void tick();
    void restoreSettings();
    void saveSettings() const;
    void showAbout();

    EngineSession &m_engine;
    WorkspaceSource m_workspace;
    QString m_applying; // what is being applied, for the status bar
    std::unique_ptr<WorkerThread<LiveReader>> m_reader;
    std::unique_ptr<RetentionRun> m_pruner;
    // Asks the store once a second whether anything changed, for every reader; it goes
    // first, so that no poll reaches a reader that is going.
    std::unique_ptr<WorkerThread<ChangePoller>> m_changes;
    QTabWidget *m_tabs = nullptr;
    OverviewPage *m_overview = nullptr;
    IntegrationsPage *m_integrations = nullptr;
    JobsPage *m_jobs = nullptr;
    HistoryPage *m_history = nullptr;
    QLabel *m_databaseLabel = nullptr;
    QLabel *m_inFlightLabel = nullptr;
    QLabel *m_holdsLabel = nullptr;
    QLabel *m_driftLabel = nullptr;
    QLabel *m_conflictLabel = nullptr;
    QLabel *m_credentialsLabel = nullptr;
    QWidget *m_warnings = nullptr;
    QLabel *m_warningsLabel = nullptr;
    QAction *m_endpointsAction = nullptr;
    QPointer<EndpointsDialog> m_endpointsDialog;
    QSystemTrayIcon *m_tray = nullptr;
    QTimer *m_tick = nullptr;
    QList<PartitionHold> m_holds;
    QStringList m_driftLines;      // as last shown
    QStringList m_credentialLines; // as last shown
    int m_failureNotifications = 0;
    int m_lastInFlight = -1;
};

} // namespace cooldown
