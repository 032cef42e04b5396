// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"
#include "ui/HistoryQuery.h"
#include "ui/WorkerThread.h"

#include <QPointer>
#include <QWidget>

#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QProgressDialog;
class QStackedWidget;
class QTableView;
class QTimer;

namespace cooldown {

class AttemptInspector;
class AuditModel;
class AuditReader;
class Clock;
class CsvExportJob;
class HistoryModel;
class HistoryReader;

// Every attempt, filtered by endpoint, status, decision and time; the inspector shows
// the selected one. "Export CSV…" writes what the store's part of the filter selects.
// The view can switch to the operator actions (the audit table: who, when, what, to
// which filter, how many), newest first, over the same time range.
class HistoryPage final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryPage)

public:
    enum class View
    {
        Attempts,
        OperatorActions,
    };
    // The newest operator actions the page lists at most.
    static constexpr int kAuditRows = 1000;

    HistoryPage(const QString &databaseUrl, const WorkspaceConfig &config, const Clock &clock,
                QWidget *parent = nullptr);
    ~HistoryPage() override;
    // The endpoints offered by the filter, when the engine runs another workspace.
    void setEndpoints(const WorkspaceConfig &config);

    // How the page sets up its table, for a view over any model with the History
    // columns (the page's own, or a benchmark's reference); call it after setModel().
    // Over a HistoryModel, a scroll into rows not read yet is painted once they are
    // there (waiting 30 ms at most), not first as placeholders.
    static void configureTable(QTableView *table);

    HistoryModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    AttemptInspector *inspector() const { return m_inspector; }
    QAction *exportAction() const { return m_export; }
    AuditModel *auditModel() const { return m_auditModel; }
    QTableView *auditTable() const { return m_auditTable; }

    View view() const;
    void setView(View view);

    // The query the filter widgets describe, with the time range measured from now.
    HistoryQuery currentQuery() const;
    // Sets the filter widgets; the query runs at once.
    void setFilter(const QString &endpointId, int timeIndex, HistoryQuery::StatusClass status,
                   std::optional<Decision> decision);
    void applyFilter();
    // Shows only this endpoint's attempts (empty: every endpoint's), the other filters
    // as they are: what the Integrations view selected.
    void setEndpointFilter(const QString &endpointId);

    // Where the raw history starts (the oldest attempt retention kept); -1: none.
    void setRawHistoryStart(qint64 ms);
    QLabel *rawHistoryLabel() const { return m_rawStart; }

    // Asks for a file name, then exports with progress and a Cancel button.
    void exportCsv();
    // The same without asking; the job reports through exportFinished().
    CsvExportJob *exportTo(const QString &fileName);

signals:
    void message(const QString &text);
    void exportFinished(int error, const QString &text, qint64 rows);

private:
    void showCurrentAttempt();
    void showKept(qint64 attemptId, const std::optional<KeptExchange> &kept);
    void updateCount();
    void onViewChanged();
    void readAudit();

    QString m_databaseUrl;
    const Clock &m_clock;
    // The model's readers, each on a thread of its own: the ids and new attempts, and
    // the rows asked for.
    std::unique_ptr<WorkerThread<HistoryReader>> m_indexReader;
    std::unique_ptr<WorkerThread<HistoryReader>> m_rowReader;
    HistoryModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    AttemptInspector *m_inspector = nullptr;
    QComboBox *m_endpoint = nullptr;
    QComboBox *m_status = nullptr;
    QComboBox *m_decision = nullptr;
    QComboBox *m_time = nullptr;
    QLabel *m_count = nullptr;
    QLabel *m_rawStart = nullptr;
    qint64 m_rawStartMs = -2;
    QAction *m_export = nullptr;
    QTimer *m_poll = nullptr;
    CsvExportJob *m_job = nullptr;
    QPointer<QProgressDialog> m_progress;
    QComboBox *m_view = nullptr;
    QStackedWidget *m_stack = nullptr;
    AuditModel *m_auditModel = nullptr;
    QTableView *m_auditTable = nullptr;
    // Started when the operator actions are first shown.
    std::unique_ptr<WorkerThread<AuditReader>> m_auditReader;
    quint64 m_auditGeneration = 0;
};

} // namespace cooldown
