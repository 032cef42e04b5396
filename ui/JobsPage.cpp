// SPDX-License-Identifier: Apache-2.0
#include "ui/JobsPage.h"

#include "core/query/QueryRecords.h"
#include "core/time/Clock.h"
#include "core/time/DurationText.h"
#include "ui/BulkActionDialog.h"
#include "ui/JobsModel.h"
#include "ui/JobsReader.h"
#include "ui/PartitionsModel.h"
#include "ui/PauseForDialog.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

namespace cooldown {

namespace {

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *table = new QTableView(parent);
    table->setModel(model);
    JobsPage::configureTable(table);
    return table;
}

QToolButton *buttonFor(QAction *action, const QString &objectName, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setDefaultAction(action);
    button->setObjectName(objectName);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return button;
}

bool canRetry(OperationState state)
{
    return state == OperationState::Waiting || state == OperationState::Parked ||
           state == OperationState::Failed || state == OperationState::Scheduled;
}

} // namespace

JobsPage::JobsPage(EngineSession *engine, const Clock &clock, QWidget *parent)
    : QWidget(parent), m_engine(engine), m_clock(clock), m_model(new JobsModel(this)),
      m_partitionsModel(new PartitionsModel(this))
{
    if (engine) {
        m_reader = std::make_unique<WorkerThread<JobsReader>>(QStringLiteral("jobs reader"),
                                                              engine->databaseUrl());
        m_model->attach(m_reader->worker());
    }
    m_model->setNowMs(clock.nowMs());
    m_confirm = [this](const QString &question) {
        return askToForce(this, question);
    };
    if (m_engine)
        connectEngine();

    const auto makeAction = [this](const QString &text, const QKeySequence &shortcut,
                                   const QString &tip) {
        auto *action = new QAction(text, this);
        action->setShortcut(shortcut);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        action->setToolTip(
            QStringLiteral("%1 (%2)").arg(tip, shortcut.toString(QKeySequence::NativeText)));
        action->setStatusTip(tip);
        addAction(action);
        return action;
    };
    m_retryNow = makeAction(tr("&Retry now"), QKeySequence(Qt::CTRL | Qt::Key_R),
                            tr("Make the selected operations due now; they still wait for a "
                               "token of their partition's bucket"));
    m_forceNow = makeAction(tr("&Force now…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                            tr("Send the selected operations now, bypassing the token bucket; "
                               "recorded as forced"));
    m_cancel = makeAction(tr("&Cancel"), QKeySequence(Qt::Key_Delete),
                          tr("Cancel the selected operations"));
    m_pause = makeAction(tr("&Pause endpoint"), QKeySequence(Qt::CTRL | Qt::Key_P),
                         tr("Stop claiming operations of the selected endpoints"));
    m_resume = makeAction(tr("Res&ume endpoint"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
                          tr("Claim operations of the selected endpoints again"));
    m_pauseFor = makeAction(tr("Pause f&or…"), QKeySequence(),
                            tr("Hold the selected endpoints for a while, as for a partner's "
                               "maintenance; they resume by themselves"));
    m_liftHold = makeAction(tr("&Lift hold"), QKeySequence(Qt::CTRL | Qt::Key_L),
                            tr("Let the held partition send again before the server's time"));
    m_adopt = makeAction(tr("&Adopt as policy"), QKeySequence(),
                         tr("Write the limit this server states into the workspace as a policy "
                            "of its endpoints that have none"));
    m_bulk = makeAction(tr("&Bulk action…"), QKeySequence(Qt::CTRL | Qt::Key_B),
                        tr("Retry, force or cancel every operation a filter selects, after "
                           "seeing how many match and how long they take to go out"));
    // Unlike the actions above it does not act on the selected rows: Ctrl+B opens it
    // wherever the focus is in the window, as the Jobs menu does.
    m_bulk->setShortcutContext(Qt::WindowShortcut);

    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    auto *scopeLabel = new QLabel(tr("&Show:"), this);
    m_scope = new QComboBox(this);
    m_scope->setObjectName(QStringLiteral("jobsScope"));
    m_scope->addItem(tr("Active (scheduled, running, waiting, parked)"), int(JobsScope::Active));
    m_scope->addItem(tr("Failed"), int(JobsScope::Failed));
    m_scope->addItem(tr("Recent, any state"), int(JobsScope::Recent));
    scopeLabel->setBuddy(m_scope);
    bar->addWidget(scopeLabel);
    bar->addWidget(m_scope);
    m_filterLabel = new QLabel(this);
    m_filterLabel->setObjectName(QStringLiteral("jobsEndpointFilter"));
    m_showAll = new QToolButton(this);
    m_showAll->setObjectName(QStringLiteral("jobsShowAllEndpoints"));
    m_showAll->setText(tr("Show all endpoints"));
    connect(m_showAll, &QToolButton::clicked, this, [this] { setEndpointFilter(QString()); });
    m_filterLabel->hide();
    m_showAll->hide();
    bar->addSpacing(8);
    bar->addWidget(m_filterLabel);
    bar->addWidget(m_showAll);
    bar->addStretch(1);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("jobsSummary"));
    bar->addWidget(m_summary);
    layout->addLayout(bar);
    // The actions on a row of their own: with the scope and the counts beside them
    // they made the window wider than a laptop's screen in Japanese.
    auto *actions = new QHBoxLayout;
    actions->addWidget(buttonFor(m_retryNow, QStringLiteral("retryNowButton"), this));
    actions->addWidget(buttonFor(m_forceNow, QStringLiteral("forceNowButton"), this));
    actions->addWidget(buttonFor(m_cancel, QStringLiteral("cancelButton"), this));
    actions->addSpacing(16);
    actions->addWidget(buttonFor(m_pause, QStringLiteral("pauseButton"), this));
    actions->addWidget(buttonFor(m_pauseFor, QStringLiteral("pauseForButton"), this));
    actions->addWidget(buttonFor(m_resume, QStringLiteral("resumeButton"), this));
    actions->addSpacing(16);
    actions->addWidget(buttonFor(m_bulk, QStringLiteral("bulkActionButton"), this));
    actions->addStretch(1);
    layout->addLayout(actions);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    // No proxy model: the store filters by endpoint, and a proxy would read every row.
    m_table = makeTable(m_model, splitter);
    m_table->setObjectName(QStringLiteral("jobsTable"));
    for (QAction *a : {m_retryNow, m_forceNow, m_cancel, m_pause, m_pauseFor, m_resume, m_liftHold})
        m_table->addAction(a);
    const QList<int> widths{80, 150, 90, 60, 120, 90, 90, 220, 170};
    // At least as wide as the column's title, in whichever language it is.
    for (int c = 0; c < widths.size(); ++c)
        m_table->setColumnWidth(
            c, std::max(widths.at(c), m_table->horizontalHeader()->sectionSizeHint(c)));

    auto *partitionsBox = new QWidget(splitter);
    auto *partitionsLayout = new QVBoxLayout(partitionsBox);
    partitionsLayout->setContentsMargins(0, 4, 0, 0);
    auto *partitionsBar = new QHBoxLayout;
    auto *partitionsTitle =
        new QLabel(tr("<b>Partitions</b> — why their operations wait, for every worker: a "
                      "server's hold (nothing is sent before it), the next token"),
                   partitionsBox);
    // It wraps rather than widening the window.
    partitionsTitle->setWordWrap(true);
    partitionsBar->addWidget(partitionsTitle, 1);
    partitionsBar->addWidget(buttonFor(m_adopt, QStringLiteral("adoptButton"), partitionsBox));
    partitionsBar->addWidget(
        buttonFor(m_liftHold, QStringLiteral("liftHoldButton"), partitionsBox));
    partitionsLayout->addLayout(partitionsBar);
    m_partitions = makeTable(m_partitionsModel, partitionsBox);
    m_partitions->setObjectName(QStringLiteral("partitionsTable"));
    m_partitions->setSelectionMode(QAbstractItemView::SingleSelection);
    m_partitions->addAction(m_liftHold);
    m_partitions->addAction(m_adopt);
    const QList<int> partitionWidths{130, 130, 130, 130, 115, 330};
    for (int c = 0; c < partitionWidths.size(); ++c)
        m_partitions->setColumnWidth(
            c,
            std::max(partitionWidths.at(c), m_partitions->horizontalHeader()->sectionSizeHint(c)));
    partitionsLayout->addWidget(m_partitions);
    splitter->addWidget(m_table);
    splitter->addWidget(partitionsBox);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({3000, 1000});
    layout->addWidget(splitter, 1);

    connect(m_retryNow, &QAction::triggered, this, [this] { retrySelected(false); });
    connect(m_forceNow, &QAction::triggered, this, [this] { retrySelected(true); });
    connect(m_cancel, &QAction::triggered, this, &JobsPage::cancelSelected);
    connect(m_pause, &QAction::triggered, this, [this] { pauseSelected(true); });
    connect(m_resume, &QAction::triggered, this, [this] { pauseSelected(false); });
    connect(m_pauseFor, &QAction::triggered, this, &JobsPage::pauseSelectedFor);
    connect(m_liftHold, &QAction::triggered, this, &JobsPage::liftHold);
    connect(m_bulk, &QAction::triggered, this, &JobsPage::openBulkDialog);
    connect(m_adopt, &QAction::triggered, this, [this] {
        for (const QModelIndex &index : m_partitions->selectionModel()->selectedRows()) {
            const QString host = index.data(PartitionsModel::LearnedHostRole).toString();
            if (!host.isEmpty())
                emit adoptRequested(host,
                                    index.data(PartitionsModel::LearnedQuotaRole).toLongLong(),
                                    index.data(PartitionsModel::LearnedWindowMsRole).toLongLong());
        }
    });
    connect(m_scope, &QComboBox::currentIndexChanged, this, [this] {
        applyQuery();
        emit scopeChanged(scope());
    });
    connect(m_model, &JobsModel::failed, this,
            [this](const QString &text) { emit message(tr("Database: %1").arg(text)); });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &JobsPage::updateActions);
    connect(m_partitions->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &JobsPage::updateActions);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                // The countdowns move every second; they change no action.
                if (topLeft.column() == bottomRight.column() &&
                    (topLeft.column() == JobsModel::NextAttemptColumn ||
                     topLeft.column() == JobsModel::PartitionColumn))
                    return;
                updateActions();
            });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &JobsPage::updateActions);
    // Holds start and end with the partitions' rows.
    connect(m_partitionsModel, &QAbstractItemModel::dataChanged, this, &JobsPage::updateActions);
    connect(m_partitionsModel, &QAbstractItemModel::rowsRemoved, this, &JobsPage::updateActions);
    updateActions();
    m_model->setQuery(JobsQuery{scope(), m_endpointFilter});
}

JobsPage::~JobsPage() = default;

void JobsPage::configureTable(QTableView *table)
{
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    table->verticalHeader()->hide();
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setHighlightSections(false);
    table->setContextMenuPolicy(Qt::ActionsContextMenu);
}

void JobsPage::applyQuery()
{
    JobsQuery query;
    query.scope = scope();
    query.endpointId = m_endpointFilter;
    if (query != m_model->query())
        m_model->setQuery(query);
}

void JobsPage::setConfirmation(std::function<bool(const QString &)> confirm)
{
    m_confirm = std::move(confirm);
}

JobsScope JobsPage::scope() const
{
    return JobsScope(m_scope->currentData().toInt());
}

void JobsPage::showSnapshot(const LiveSnapshot &snapshot)
{
    // Whatever changed in the store, by this engine or another worker, the rows follow.
    if (snapshot.storeChanges != m_storeChanges) {
        m_storeChanges = snapshot.storeChanges;
        m_model->refresh();
    }
    m_model->setPausedEndpoints(snapshot.pausedEndpoints);
    m_partitionsModel->setPartitions(snapshot.partitions, m_clock.nowMs());
    m_model->setHolds(m_partitionsModel->activeHolds());
    // Every state that has not ended, scheduled (due or due later) included: a backlog
    // waiting for its partition's tokens is scheduled, not "waiting to retry".
    const QLocale locale;
    const auto count = [&](OperationState state) {
        return locale.toString(snapshot.counts.value(state));
    };
    m_summary->setText(tr("%1 scheduled · %2 waiting · %3 running · %4 parked")
                           .arg(count(OperationState::Scheduled), count(OperationState::Waiting),
                                count(OperationState::Running), count(OperationState::Parked)));
}

void JobsPage::setHolds(const QList<PartitionHold> &holds)
{
    const qint64 now = m_clock.nowMs();
    m_partitionsModel->setHolds(holds, now);
    // The operations show their partition's hold, whichever worker it came from.
    m_model->setHolds(m_partitionsModel->activeHolds());
}

QPair<int, int> JobsPage::visibleRows() const
{
    if (!m_table->isVisible() || m_model->rowCount() == 0)
        return {0, -1};
    const int first = m_table->rowAt(0);
    if (first < 0)
        return {0, -1};
    const int last = m_table->rowAt(m_table->viewport()->height() - 1);
    return {first, last < 0 ? m_model->rowCount() - 1 : last};
}

void JobsPage::tick(qint64 nowMs)
{
    const auto [first, last] = visibleRows();
    m_model->showTime(nowMs, first, last);
    m_partitionsModel->setNowMs(nowMs);
}

void JobsPage::setEndpointFilter(const QString &endpointId)
{
    if (endpointId == m_endpointFilter)
        return;
    m_endpointFilter = endpointId;
    applyQuery();
    m_filterLabel->setText(tr("Endpoint: <b>%1</b>").arg(endpointId.toHtmlEscaped()));
    m_filterLabel->setVisible(!endpointId.isEmpty());
    m_showAll->setVisible(!endpointId.isEmpty());
    updateActions();
}

QList<qint64> JobsPage::selectedOperationIds() const
{
    QList<qint64> ids;
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
        ids.append(index.data(JobsModel::OperationIdRole).toLongLong());
    std::sort(ids.begin(), ids.end());
    return ids;
}

void JobsPage::selectOperations(const QList<qint64> &operationIds)
{
    QItemSelection selection;
    for (const qint64 id : operationIds) {
        const int row = m_model->rowOf(id);
        if (row >= 0)
            selection.select(m_model->index(row, 0),
                             m_model->index(row, JobsModel::ColumnCount - 1));
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    if (!selection.isEmpty())
        m_table->setCurrentIndex(selection.first().topLeft());
}

QStringList JobsPage::selectedEndpoints() const
{
    QStringList endpoints;
    // Rows not read yet (a selection far beyond the screen) have no endpoint to tell.
    for (const QModelIndex &index : m_table->selectionModel()->selectedRows()) {
        const auto op = m_model->operationAt(index.row());
        if (op && !endpoints.contains(op->endpointId))
            endpoints.append(op->endpointId);
    }
    return endpoints;
}

bool JobsPage::isHeld(const QString &policyId, const QString &partitionKey) const
{
    const int row = m_partitionsModel->rowOf(policyId, partitionKey);
    return row >= 0 && m_partitionsModel->activityAt(row) == PartitionsModel::Activity::Held;
}

QString JobsPage::describe(Store::OperatorResult result) const
{
    switch (result) {
    case Store::OperatorResult::Done:
        return tr("done");
    case Store::OperatorResult::Pending:
        return tr("applied when the running attempt ends");
    case Store::OperatorResult::Refused:
        return tr("refused in its current state");
    case Store::OperatorResult::NotFound:
        return tr("no longer exists");
    case Store::OperatorResult::Failed:
        return tr("the database failed");
    }
    return QString();
}

QString JobsPage::describe(const QList<qint64> &operationIds,
                           const QList<Store::OperatorResult> &results) const
{
    QStringList lines;
    for (qsizetype i = 0; i < operationIds.size() && i < results.size(); ++i)
        lines.append(tr("%1: %2").arg(operationIds.at(i)).arg(describe(results.at(i))));
    return lines.join(QStringLiteral(", "));
}

void JobsPage::retrySelected(bool force)
{
    if (!m_engine)
        return;
    const QList<qint64> ids = selectedOperationIds();
    if (ids.isEmpty())
        return;
    if (force && !m_confirm(forceQuestion(ids.size())))
        return;
    m_engine->retryNow(ids, force);
}

bool JobsPage::askToForce(QWidget *parent, const QString &question)
{
    return QMessageBox::question(parent, tr("Force now"), question,
                                 QMessageBox::Yes | QMessageBox::Cancel,
                                 QMessageBox::Cancel) == QMessageBox::Yes;
}

QString JobsPage::forceQuestion(qint64 count)
{
    return tr("Send %n operation(s) now, bypassing the partition's token bucket?\n\n"
              "The server may answer 429 again, and the attempt is recorded as forced.",
              nullptr, int(std::min<qint64>(count, INT_MAX)));
}

void JobsPage::cancelSelected()
{
    if (!m_engine)
        return;
    const QList<qint64> ids = selectedOperationIds();
    if (!ids.isEmpty())
        m_engine->cancel(ids);
}

void JobsPage::pauseSelected(bool paused)
{
    if (!m_engine)
        return;
    const QStringList endpoints = selectedEndpoints();
    if (!endpoints.isEmpty())
        m_engine->setEndpointsPaused(endpoints, paused);
}

void JobsPage::pauseSelectedFor()
{
    if (!m_engine)
        return;
    const QStringList endpoints = selectedEndpoints();
    if (endpoints.isEmpty())
        return;
    PauseForDialog dialog(endpoints, m_clock.nowMs(), this);
    if (dialog.exec() != QDialog::Accepted || !dialog.forMs())
        return;
    const QString reason =
        dialog.reason().isEmpty()
            ? tr("paused by %1 for %2").arg(m_engine->operatorName(), durationText(*dialog.forMs()))
            : dialog.reason();
    m_engine->holdEndpoints(endpoints, *dialog.forMs(), reason);
}

void JobsPage::liftHold()
{
    if (!m_engine)
        return;
    QList<PartitionId> partitions;
    for (const QModelIndex &index : m_partitions->selectionModel()->selectedRows()) {
        const PartitionId p{index.data(PartitionsModel::PolicyIdRole).toString(),
                            index.data(PartitionsModel::PartitionKeyRole).toString()};
        if (isHeld(p.first, p.second))
            partitions.append(p);
    }
    if (partitions.isEmpty()) {
        for (const QModelIndex &index : m_table->selectionModel()->selectedRows()) {
            const auto op = m_model->operationAt(index.row());
            if (!op)
                continue;
            const PartitionId p{op->policyId, op->partitionKey};
            if (!p.first.isEmpty() && !partitions.contains(p) && isHeld(p.first, p.second))
                partitions.append(p);
        }
    }
    if (!partitions.isEmpty())
        m_engine->liftHolds(partitions);
}

void JobsPage::connectEngine()
{
    // The engine reports what came of each action once it has applied it, which may be
    // after a wait for the database; the page says so then.
    connect(
        m_engine, &EngineSession::retried, this,
        [this](const QList<qint64> &ids, const QList<Store::OperatorResult> &results, bool force) {
            emit message(
                (force ? tr("Force now — %1") : tr("Retry now — %1")).arg(describe(ids, results)));
        });
    connect(m_engine, &EngineSession::cancelled, this,
            [this](const QList<qint64> &ids, const QList<Store::OperatorResult> &results) {
                emit message(tr("Cancel — %1").arg(describe(ids, results)));
            });
    connect(m_engine, &EngineSession::pausedChanged, this,
            [this](const QStringList &endpoints, bool paused) {
                if (endpoints.isEmpty())
                    return;
                emit message((paused ? tr("Paused: %1") : tr("Resumed: %1"))
                                 .arg(endpoints.join(QStringLiteral(", "))));
            });
    connect(m_engine, &EngineSession::holdsLifted, this,
            [this](const QList<PartitionId> &partitions) {
                for (const auto &[policy, key] : partitions)
                    emit message(tr("Hold lifted: %1 / %2").arg(policy, key));
                emit partitionsChanged();
            });
}

void JobsPage::updateActions()
{
    const bool live = m_engine != nullptr;
    bool retry = false;
    bool cancel = false;
    bool anyPaused = false;
    bool anyRunning = false;
    bool heldPartition = false;
    for (const QModelIndex &index : m_partitions->selectionModel()->selectedRows())
        heldPartition =
            heldPartition || isHeld(index.data(PartitionsModel::PolicyIdRole).toString(),
                                    index.data(PartitionsModel::PartitionKeyRole).toString());
    // The records the model holds, without asking for the others: a selection of every
    // row must not read them all. A row not read yet may be in any state; the engine
    // refuses what its state does not allow.
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    for (const QModelIndex &index : rows) {
        const auto op = m_model->operationAt(index.row());
        if (!op) {
            retry = cancel = anyRunning = true;
            continue;
        }
        retry = retry || canRetry(op->state);
        cancel = cancel || !isFinal(op->state);
        anyPaused = anyPaused || m_model->isPaused(op->endpointId);
        anyRunning = anyRunning || !m_model->isPaused(op->endpointId);
        heldPartition = heldPartition || isHeld(op->policyId, op->partitionKey);
    }
    m_retryNow->setEnabled(live && retry);
    m_forceNow->setEnabled(live && retry);
    m_cancel->setEnabled(live && cancel);
    m_pause->setEnabled(live && anyRunning);
    m_pauseFor->setEnabled(live && anyRunning);
    m_resume->setEnabled(live && anyPaused);
    m_liftHold->setEnabled(live && heldPartition);
    bool learned = false;
    for (const QModelIndex &index : m_partitions->selectionModel()->selectedRows())
        learned = learned || !index.data(PartitionsModel::LearnedHostRole).toString().isEmpty();
    m_adopt->setEnabled(learned);
    m_bulk->setEnabled(live);
}

BulkActionDialog *JobsPage::bulkDialog() const
{
    return m_bulkDialog;
}

BulkActionDialog *JobsPage::openBulkDialog()
{
    if (!m_engine)
        return nullptr;
    if (!m_bulkDialog) {
        m_bulkDialog = new BulkActionDialog(*m_engine, m_clock, this);
        m_bulkDialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(m_bulkDialog, &BulkActionDialog::message, this, &JobsPage::message);
        // What the operator most often acts on after a partner's outage: the parked
        // operations, or the failed ones when that is what the page lists.
        OperationSelection prefill;
        if (!m_endpointFilter.isEmpty())
            prefill.endpointIds = {m_endpointFilter};
        prefill.states = {scope() == JobsScope::Failed ? OperationState::Failed
                                                       : OperationState::Parked};
        m_bulkDialog->setFilterText(prefill.toText());
    }
    m_bulkDialog->show();
    m_bulkDialog->raise();
    m_bulkDialog->activateWindow();
    return m_bulkDialog;
}

} // namespace cooldown
