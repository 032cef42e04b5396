// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/EngineSession.h"
#include "ui/JobsQuery.h"
#include "ui/LiveReader.h"
#include "ui/WorkerThread.h"

#include <QList>
#include <QPair>
#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

class QAction;
class QComboBox;
class QLabel;
class QTableView;
class QToolButton;

namespace cooldown {

class BulkActionDialog;
class Clock;
class JobsModel;
class JobsReader;
class PartitionsModel;

// The operations table and what an operator can do to them: retry now (through the
// partition's bucket), force now (bypassing it, after a confirmation), cancel, pause or
// resume an endpoint, lift a partition hold. Actions work on the whole selection and
// are on buttons, in the context menu and on keyboard shortcuts; "Bulk action…" acts
// on every operation a filter selects (BulkActionDialog). The table pages its
// rows from the store (see JobsModel); the scope and the endpoint filter are part of
// the query the store answers, and the countdowns move on the visible rows only. Below, every
// partition with why its operations wait (a server's hold, the next token) or that
// they do not, held ones first.
class JobsPage final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(JobsPage)

public:
    // engine may be null: the table is then read-only, and filled by model() alone. The
    // rows are read from the engine's database. Actions are queued to the engine; what
    // came of them is reported by message() once the engine has applied them.
    JobsPage(EngineSession *engine, const Clock &clock, QWidget *parent = nullptr);
    ~JobsPage() override;

    // Sets a table up the way the operations table is: whole rows, fixed row heights
    // (so that a long list lays out without measuring rows), no word wrap.
    static void configureTable(QTableView *table);

    JobsModel *model() const { return m_model; }
    PartitionsModel *partitionsModel() const { return m_partitionsModel; }
    QTableView *table() const { return m_table; }
    QTableView *partitionsTable() const { return m_partitions; }

    QAction *retryNowAction() const { return m_retryNow; }
    QAction *forceNowAction() const { return m_forceNow; }
    QAction *cancelAction() const { return m_cancel; }
    QAction *pauseAction() const { return m_pause; }
    QAction *resumeAction() const { return m_resume; }
    QAction *pauseForAction() const { return m_pauseFor; }
    QAction *liftHoldAction() const { return m_liftHold; }
    QAction *adoptAction() const { return m_adopt; }
    QAction *bulkAction() const { return m_bulk; }

    // Opens the bulk-action dialog (or brings the open one forward), its filter
    // prefilled from what the page shows: the endpoint filter, and the parked or failed
    // operations. Null without an engine.
    BulkActionDialog *openBulkDialog();
    BulkActionDialog *bulkDialog() const;

    void showSnapshot(const LiveSnapshot &snapshot);
    // The holds of the engine in this process, shown before the store's rows say so.
    void setHolds(const QList<PartitionHold> &holds);
    // Moves the countdowns of the rows the table shows.
    void tick(qint64 nowMs);
    // The rows the table shows now, [first, last]; last < first when it shows none.
    QPair<int, int> visibleRows() const;
    JobsScope scope() const;

    // Only the operations of this endpoint are listed (empty: every endpoint's), as
    // chosen in the Integrations view; "Show all" clears it.
    void setEndpointFilter(const QString &endpointId);
    QString endpointFilter() const { return m_endpointFilter; }

    QList<qint64> selectedOperationIds() const;
    void selectOperations(const QList<qint64> &operationIds);

    // Asked before "Force now"; the default shows a question box. Tests replace it.
    void setConfirmation(std::function<bool(const QString &question)> confirm);
    // The question asked before `count` operations are forced, here and in the
    // bulk-action dialog.
    static QString forceQuestion(qint64 count);
    // The default confirmation: a question box over parent. True for yes.
    static bool askToForce(QWidget *parent, const QString &question);

signals:
    void scopeChanged(cooldown::JobsScope scope);
    void message(const QString &text);
    // An action changed the partitions in the store: read them again now.
    void partitionsChanged();
    // "Adopt as policy" on a partition learned from a server's statements.
    void adoptRequested(const QString &host, qint64 quota, qint64 windowMs);

private:
    void retrySelected(bool force);
    void cancelSelected();
    void pauseSelected(bool paused);
    void pauseSelectedFor();
    void liftHold();
    void connectEngine();
    void updateActions();
    void applyQuery();
    QStringList selectedEndpoints() const;
    bool isHeld(const QString &policyId, const QString &partitionKey) const;
    QString describe(Store::OperatorResult result) const;
    QString describe(const QList<qint64> &operationIds,
                     const QList<Store::OperatorResult> &results) const;

    EngineSession *m_engine = nullptr;
    const Clock &m_clock;
    // The model's reader, on a thread of its own; null without an engine.
    std::unique_ptr<WorkerThread<JobsReader>> m_reader;
    JobsModel *m_model = nullptr;
    PartitionsModel *m_partitionsModel = nullptr;
    QTableView *m_table = nullptr;
    QTableView *m_partitions = nullptr;
    QComboBox *m_scope = nullptr;
    QString m_endpointFilter;
    QLabel *m_filterLabel = nullptr;
    QToolButton *m_showAll = nullptr;
    QLabel *m_summary = nullptr;
    QAction *m_retryNow = nullptr;
    QAction *m_forceNow = nullptr;
    QAction *m_cancel = nullptr;
    QAction *m_pause = nullptr;
    QAction *m_resume = nullptr;
    QAction *m_pauseFor = nullptr;
    QAction *m_liftHold = nullptr;
    QAction *m_adopt = nullptr;
    QAction *m_bulk = nullptr;
    QPointer<BulkActionDialog> m_bulkDialog;
    std::function<bool(const QString &)> m_confirm;
    quint64 m_storeChanges = 0; // LiveSnapshot::storeChanges of the last snapshot
};

} // namespace cooldown
