// SPDX-License-Identifier: Apache-2.0
#include "ui/HistoryPage.h"

#include "core/query/CsvExportWorker.h"
#include "core/time/Clock.h"
#include "ui/AttemptInspector.h"
#include "ui/AuditModel.h"
#include "ui/AuditReader.h"
#include "ui/CsvExportJob.h"
#include "ui/Format.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryReader.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressDialog>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace cooldown {

namespace {

constexpr qint64 kMinute = 60000;

struct TimeChoice
{
    const char *label;
    qint64 rangeMs; // 0: everything
};

// A scroll into rows not read yet would paint them as placeholders, then again when
// they arrive. The hold asks for them as the scroll bar moves and keeps the table's
// viewport from painting until they are there, for at most kHoldMs: a jump is painted
// once, without a flash of empty rows. The bound keeps a drag through a slow
// database moving at a frame every 30 ms, placeholders and all.
class ScrollHold final : public QObject
{
public:
    static constexpr int kHoldMs = 30;

    explicit ScrollHold(QTableView *table) : QObject(table), m_table(table)
    {
        m_guard.setSingleShot(true);
        m_guard.setInterval(kHoldMs);
        connect(&m_guard, &QTimer::timeout, this, &ScrollHold::release);
        // After the view's own connection: rowAt() already answers for the new place.
        connect(table->verticalScrollBar(), &QScrollBar::valueChanged, this,
                &ScrollHold::onScrolled);
    }

private:
    HistoryModel *model() const { return qobject_cast<HistoryModel *>(m_table->model()); }

    // The rows the viewport shows, or false when it shows none.
    bool visibleRows(int *first, int *last) const
    {
        *first = m_table->rowAt(0);
        *last = m_table->rowAt(m_table->viewport()->height() - 1);
        if (*last < 0)
            *last = m_table->model()->rowCount() - 1;
        return *first >= 0 && *last >= *first;
    }

    bool shown(const HistoryModel *model, int first, int last) const
    {
        for (int row = first; row <= last; ++row) {
            if (!model->index(row, 0).data(HistoryModel::LoadedRole).toBool())
                return false;
        }
        return true;
    }

    void onScrolled()
    {
        HistoryModel *history = model();
        int first = 0;
        int last = 0;
        if (!history || !visibleRows(&first, &last) || shown(history, first, last)) {
            release();
            return;
        }
        history->ensureLoaded(first, last);
        if (m_connection)
            return; // already holding: the guard keeps counting from the first hold
        m_connection = connect(history, &HistoryModel::rowsLoaded, this, [this] {
            int first = 0;
            int last = 0;
            const HistoryModel *history = model();
            if (!history || !visibleRows(&first, &last) || shown(history, first, last))
                release();
        });
        m_table->viewport()->setUpdatesEnabled(false);
        m_guard.start();
    }

    void release()
    {
        if (!m_connection)
            return;
        disconnect(m_connection);
        m_connection = {};
        m_guard.stop();
        // Enabling updates again repaints the viewport.
        m_table->viewport()->setUpdatesEnabled(true);
    }

    QTableView *m_table;
    QTimer m_guard;
    QMetaObject::Connection m_connection;
};

const TimeChoice kTimes[] = {
    {QT_TRANSLATE_NOOP("cooldown::HistoryPage", "Last 15 minutes"), 15 * kMinute},
    {QT_TRANSLATE_NOOP("cooldown::HistoryPage", "Last hour"), 60 * kMinute},
    {QT_TRANSLATE_NOOP("cooldown::HistoryPage", "Last 24 hours"), 24 * 60 * kMinute},
    {QT_TRANSLATE_NOOP("cooldown::HistoryPage", "Last 7 days"), 7 * 24 * 60 * kMinute},
    {QT_TRANSLATE_NOOP("cooldown::HistoryPage", "Everything"), 0},
};

} // namespace

HistoryPage::HistoryPage(const QString &databaseUrl, const WorkspaceConfig &config,
                         const Clock &clock, QWidget *parent)
    : QWidget(parent), m_databaseUrl(databaseUrl), m_clock(clock),
      m_indexReader(std::make_unique<WorkerThread<HistoryReader>>(QStringLiteral("history index"),
                                                                  databaseUrl)),
      m_rowReader(std::make_unique<WorkerThread<HistoryReader>>(QStringLiteral("history rows"),
                                                                databaseUrl)),
      m_model(new HistoryModel(m_indexReader->worker(), m_rowReader->worker(), this))
{
    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    const auto addCombo = [this, bar](const QString &label, const QString &name) {
        auto *caption = new QLabel(label, this);
        auto *combo = new QComboBox(this);
        combo->setObjectName(name);
        caption->setBuddy(combo);
        bar->addWidget(caption);
        bar->addWidget(combo);
        bar->addSpacing(8);
        return combo;
    };
    // Not on the filters' row, which is as wide as the window may be narrow.
    auto *viewBar = new QHBoxLayout;
    auto *viewCaption = new QLabel(tr("&View:"), this);
    m_view = new QComboBox(this);
    m_view->setObjectName(QStringLiteral("historyView"));
    m_view->addItem(tr("Attempts"), int(View::Attempts));
    m_view->addItem(tr("Operator actions"), int(View::OperatorActions));
    viewCaption->setBuddy(m_view);
    viewBar->addWidget(viewCaption);
    viewBar->addWidget(m_view);
    viewBar->addStretch(1);
    layout->addLayout(viewBar);
    m_endpoint = addCombo(tr("&Endpoint:"), QStringLiteral("historyEndpoint"));
    setEndpoints(config);
    m_status = addCombo(tr("S&tatus:"), QStringLiteral("historyStatus"));
    m_status->addItem(tr("Any"), int(HistoryQuery::StatusClass::Any));
    m_status->addItem(tr("2xx success"), int(HistoryQuery::StatusClass::Success));
    m_status->addItem(tr("429 Too Many Requests"), int(HistoryQuery::StatusClass::TooManyRequests));
    m_status->addItem(tr("503 Unavailable"), int(HistoryQuery::StatusClass::Unavailable));
    m_status->addItem(tr("Other 4xx"), int(HistoryQuery::StatusClass::ClientError));
    m_status->addItem(tr("Other 5xx"), int(HistoryQuery::StatusClass::ServerError));
    m_status->addItem(tr("No response"), int(HistoryQuery::StatusClass::NoResponse));
    m_decision = addCombo(tr("&Decision:"), QStringLiteral("historyDecision"));
    m_decision->addItem(tr("Any"), QVariant());
    // Shown in the operator's language; the store filters by the decision's word.
    for (const Decision d : {Decision::Success, Decision::Retry, Decision::Park, Decision::Fail})
        m_decision->addItem(format::decisionName(d), int(d));
    m_time = addCombo(tr("T&ime:"), QStringLiteral("historyTime"));
    for (const TimeChoice &t : kTimes)
        m_time->addItem(tr(t.label));
    m_time->setCurrentIndex(1);

    m_export = new QAction(tr("E&xport CSV…"), this);
    m_export->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    m_export->setStatusTip(tr("Write the attempts of this endpoint and time range as CSV"));
    auto *exportButton = new QToolButton(this);
    exportButton->setDefaultAction(m_export);
    exportButton->setObjectName(QStringLiteral("exportButton"));
    bar->addStretch(1);
    layout->addLayout(bar);
    // What the filters found, and the export, on the View's row: beside the filters
    // they made the page wider than a laptop's screen in Japanese.
    m_count = new QLabel(this);
    m_count->setObjectName(QStringLiteral("historyCount"));
    viewBar->addWidget(m_count);
    m_rawStart = new QLabel(this);
    m_rawStart->setObjectName(QStringLiteral("historyRawStart"));
    m_rawStart->setToolTip(tr("Older attempts were removed by the workspace's retention; the "
                              "Overview still shows them, summed per minute."));
    viewBar->addWidget(m_rawStart);
    viewBar->addSpacing(8);
    viewBar->addWidget(exportButton);

    m_stack = new QStackedWidget(this);
    auto *splitter = new QSplitter(Qt::Horizontal, m_stack);
    m_table = new QTableView(splitter);
    m_table->setObjectName(QStringLiteral("historyTable"));
    m_table->setModel(m_model);
    configureTable(m_table);
    m_inspector = new AttemptInspector(splitter);
    m_inspector->setConfig(config);
    splitter->addWidget(m_table);
    splitter->addWidget(m_inspector);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({2000, 1000});
    m_stack->addWidget(splitter);
    m_auditModel = new AuditModel(this);
    m_auditTable = new QTableView(m_stack);
    m_auditTable->setObjectName(QStringLiteral("auditTable"));
    m_auditTable->setModel(m_auditModel);
    m_auditTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_auditTable->setAlternatingRowColors(true);
    m_auditTable->setWordWrap(false);
    m_auditTable->verticalHeader()->hide();
    m_auditTable->horizontalHeader()->setStretchLastSection(true);
    const QList<int> auditWidths{130, 100, 80, 360, 70, 70, 120};
    for (int c = 0; c < auditWidths.size(); ++c)
        m_auditTable->setColumnWidth(
            c, std::max(auditWidths.at(c), m_auditTable->horizontalHeader()->sectionSizeHint(c)));
    m_stack->addWidget(m_auditTable);
    layout->addWidget(m_stack, 1);

    for (QComboBox *combo : {m_endpoint, m_status, m_decision, m_time})
        connect(combo, &QComboBox::currentIndexChanged, this, &HistoryPage::applyFilter);
    connect(m_view, &QComboBox::currentIndexChanged, this, &HistoryPage::onViewChanged);
    connect(m_export, &QAction::triggered, this, &HistoryPage::exportCsv);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &HistoryPage::showCurrentAttempt);
    connect(m_model, &HistoryModel::keptExchangeRead, this, &HistoryPage::showKept);
    connect(m_model, &HistoryModel::rowsLoaded, this, [this](int first, int last) {
        const int current = m_table->currentIndex().row();
        if (current >= first && current <= last)
            showCurrentAttempt();
    });
    connect(m_model, &HistoryModel::loadingChanged, this, &HistoryPage::updateCount);
    // The view opens on the newest attempt, so that the inspector is never blank while
    // there is something to show; after that the selection stays where it was put.
    const auto selectNewest = [this] {
        if (m_model->rowCount() > 0 && !m_table->currentIndex().isValid())
            m_table->setCurrentIndex(m_model->index(0, 0));
    };
    connect(m_model, &HistoryModel::loadingChanged, this, selectNewest);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, selectNewest);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &HistoryPage::updateCount);
    connect(m_model, &QAbstractItemModel::modelReset, this, &HistoryPage::updateCount);
    connect(m_model, &HistoryModel::progress, this, [this](qint64 indexed, qint64 total) {
        if (view() == View::Attempts)
            m_count->setText(tr("Reading… %L1 of %L2").arg(indexed).arg(total));
    });
    connect(m_model, &HistoryModel::failed, this,
            [this](const QString &text) { emit message(tr("History: %1").arg(text)); });

    m_poll = new QTimer(this);
    m_poll->setInterval(2000);
    connect(m_poll, &QTimer::timeout, this, [this] {
        m_model->setNowMs(m_clock.nowMs());
        m_model->refresh();
        if (view() == View::OperatorActions)
            readAudit();
    });
    m_poll->start();
    applyFilter();
}

void HistoryPage::setEndpoints(const WorkspaceConfig &config)
{
    const QString current = m_endpoint->currentData().toString();
    const QSignalBlocker blocker(m_endpoint);
    m_endpoint->clear();
    m_endpoint->addItem(tr("All"), QString());
    for (const EndpointConfig &e : config.endpoints)
        m_endpoint->addItem(e.id, e.id);
    // An endpoint no longer in the workspace stays selectable: its history is kept.
    if (!current.isEmpty() && m_endpoint->findData(current) < 0)
        m_endpoint->addItem(current, current);
    m_endpoint->setCurrentIndex(std::max(0, m_endpoint->findData(current)));
}

HistoryPage::~HistoryPage() = default;

void HistoryPage::configureTable(QTableView *table)
{
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    // A fixed row height lets the view place a million rows without measuring them.
    table->verticalHeader()->hide();
    table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);
    table->horizontalHeader()->setStretchLastSection(true);
    table->horizontalHeader()->setHighlightSections(false);
    const QList<int> widths{70, 110, 70, 55, 55, 65, 110, 65, 80, 80, 70};
    // At least as wide as the column's title, in whichever language it is.
    for (int c = 0; c < widths.size(); ++c)
        table->setColumnWidth(
            c, std::max(widths.at(c), table->horizontalHeader()->sectionSizeHint(c)));
    const QString hold = QStringLiteral("historyScrollHold");
    if (!table->findChild<QObject *>(hold, Qt::FindDirectChildrenOnly))
        (new ScrollHold(table))->setObjectName(hold);
}

HistoryQuery HistoryPage::currentQuery() const
{
    HistoryQuery q;
    q.endpointId = m_endpoint->currentData().toString();
    q.status = HistoryQuery::StatusClass(m_status->currentData().toInt());
    const QVariant decision = m_decision->currentData();
    if (decision.isValid())
        q.decision = Decision(decision.toInt());
    const int t = std::clamp(m_time->currentIndex(), 0, int(std::size(kTimes)) - 1);
    if (kTimes[t].rangeMs > 0)
        q.fromMs = m_clock.nowMs() - kTimes[t].rangeMs;
    return q;
}

void HistoryPage::setFilter(const QString &endpointId, int timeIndex,
                            HistoryQuery::StatusClass status, std::optional<Decision> decision)
{
    const QSignalBlocker b1(m_endpoint), b2(m_status), b3(m_decision), b4(m_time);
    m_endpoint->setCurrentIndex(std::max(0, m_endpoint->findData(endpointId)));
    m_status->setCurrentIndex(std::max(0, m_status->findData(int(status))));
    m_decision->setCurrentIndex(
        std::max(0, m_decision->findData(decision ? QVariant(int(*decision)) : QVariant())));
    m_time->setCurrentIndex(std::clamp(timeIndex, 0, m_time->count() - 1));
    applyFilter();
}

void HistoryPage::setEndpointFilter(const QString &endpointId)
{
    if (m_endpoint->currentData().toString() == endpointId)
        return;
    if (!endpointId.isEmpty() && m_endpoint->findData(endpointId) < 0)
        m_endpoint->addItem(endpointId, endpointId);
    m_endpoint->setCurrentIndex(std::max(0, m_endpoint->findData(endpointId))); // applies it
}

void HistoryPage::applyFilter()
{
    m_model->setNowMs(m_clock.nowMs());
    m_model->setQuery(currentQuery());
    m_inspector->showAttempt(std::nullopt);
    if (view() == View::OperatorActions)
        readAudit();
}

HistoryPage::View HistoryPage::view() const
{
    return View(m_view->currentData().toInt());
}

void HistoryPage::setView(View view)
{
    m_view->setCurrentIndex(std::max(0, m_view->findData(int(view))));
}

void HistoryPage::onViewChanged()
{
    const bool audit = view() == View::OperatorActions;
    m_stack->setCurrentIndex(audit ? 1 : 0);
    // The audit table has no endpoint, status or decision of its own: only the time
    // range applies to it.
    for (QComboBox *combo : {m_endpoint, m_status, m_decision})
        combo->setEnabled(!audit);
    m_export->setEnabled(!audit && !(m_job && m_job->isRunning()));
    if (audit)
        readAudit();
    else
        updateCount();
}

void HistoryPage::readAudit()
{
    if (!m_auditReader) {
        m_auditReader = std::make_unique<WorkerThread<AuditReader>>(QStringLiteral("audit-reader"),
                                                                    m_databaseUrl);
        AuditReader *reader = m_auditReader->worker();
        connect(reader, &AuditReader::rowsRead, this,
                [this](quint64 generation, const QList<AuditRecord> &rows) {
                    if (generation != m_auditGeneration || view() != View::OperatorActions)
                        return;
                    m_auditModel->setRows(rows, m_clock.nowMs());
                    m_count->setText(rows.size() >= kAuditRows
                                         ? tr("The newest %L1 operator actions").arg(rows.size())
                                         : tr("%Ln operator action(s)", nullptr, int(rows.size())));
                });
        connect(reader, &AuditReader::failed, this,
                [this](const QString &text) { emit message(tr("History: %1").arg(text)); });
    }
    const HistoryQuery query = currentQuery();
    const quint64 generation = ++m_auditGeneration;
    AuditReader *reader = m_auditReader->worker();
    QMetaObject::invokeMethod(reader, [reader, generation, from = query.fromMs] {
        reader->read(generation, from, kAuditRows);
    });
}

void HistoryPage::setRawHistoryStart(qint64 ms)
{
    if (ms == m_rawStartMs)
        return;
    m_rawStartMs = ms;
    m_rawStart->setText(
        ms < 0 ? QString()
               : tr("Raw history since %1")
                     .arg(QLocale().toString(QDateTime::fromMSecsSinceEpoch(ms).toLocalTime(),
                                             QLocale::ShortFormat)));
}

void HistoryPage::updateCount()
{
    if (view() == View::OperatorActions)
        return; // the label counts the audit rows
    if (m_model->isLoading()) {
        m_count->setText(tr("Reading…"));
        return;
    }
    m_count->setText(tr("%Ln attempt(s)", nullptr, m_model->rowCount()));
}

void HistoryPage::showCurrentAttempt()
{
    const QModelIndex current = m_table->currentIndex();
    const std::optional<AttemptRecord> attempt =
        current.isValid() ? m_model->attemptAt(current.row()) : std::nullopt;
    m_inspector->showAttempt(attempt);
    // A failed or degraded exchange may be kept whole: its bodies follow when read.
    if (attempt &&
        (attempt->decision != Decision::Success || attempt->reason == QLatin1String("degraded")))
        m_model->requestKept(attempt->id);
}

void HistoryPage::showKept(qint64 attemptId, const std::optional<KeptExchange> &kept)
{
    const QModelIndex current = m_table->currentIndex();
    const std::optional<AttemptRecord> attempt =
        current.isValid() ? m_model->attemptAt(current.row()) : std::nullopt;
    if (kept && attempt && attempt->id == attemptId)
        m_inspector->showAttempt(attempt, kept);
}

void HistoryPage::exportCsv()
{
    if (m_job && m_job->isRunning())
        return;
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString suggested =
        QDir(folder).filePath(QStringLiteral("cooldown-attempts-%1.csv")
                                  .arg(QDateTime::fromMSecsSinceEpoch(m_clock.nowMs())
                                           .toString(QStringLiteral("yyyyMMdd-HHmmss"))));
    const QString fileName = QFileDialog::getSaveFileName(
        this, tr("Export attempts as CSV"), suggested, tr("CSV files (*.csv);;All files (*)"));
    if (fileName.isEmpty())
        return;
    exportTo(fileName);
}

CsvExportJob *HistoryPage::exportTo(const QString &fileName)
{
    if (!m_job) {
        m_job = new CsvExportJob(this);
        connect(m_job, &CsvExportJob::progress, this, [this](qint64 rows, qint64 total) {
            if (!m_progress)
                return;
            m_progress->setMaximum(int(std::min<qint64>(total, INT_MAX)));
            m_progress->setValue(int(std::min<qint64>(rows, INT_MAX)));
            m_progress->setLabelText(tr("Writing %L1 of %L2 attempts…").arg(rows).arg(total));
        });
        connect(m_job, &CsvExportJob::finished, this,
                [this](int error, const QString &text, qint64 rows) {
                    if (m_progress)
                        m_progress->deleteLater();
                    m_export->setEnabled(view() == View::Attempts);
                    if (error == CsvExporter::NoError)
                        emit message(tr("Export: %1").arg(text));
                    else if (error == CsvExporter::Cancelled)
                        emit message(tr("Export cancelled; no file was written"));
                    else
                        emit message(tr("Export failed: %1").arg(text));
                    emit exportFinished(error, text, rows);
                });
    }
    if (m_job->isRunning())
        return m_job;
    const HistoryQuery query = m_model->query();
    m_progress = new QProgressDialog(tr("Exporting attempts…"), tr("Cancel"), 0, 0, this);
    m_progress->setObjectName(QStringLiteral("exportProgress"));
    m_progress->setWindowTitle(tr("Export CSV"));
    m_progress->setWindowModality(Qt::WindowModal);
    m_progress->setMinimumDuration(300);
    m_progress->setAutoClose(false);
    m_progress->setAutoReset(false);
    connect(m_progress, &QProgressDialog::canceled, m_job, &CsvExportJob::cancel);
    m_export->setEnabled(false);
    m_job->start(m_databaseUrl, query.storeFilter(), fileName);
    return m_job;
}

} // namespace cooldown
