// SPDX-License-Identifier: Apache-2.0
#include "ui/IntegrationsPage.h"

#include "core/config/WorkspaceConfig.h"
#include "core/engine/IncidentCause.h"
#include "core/query/ChangePoller.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/time/Clock.h"
#include "ui/Format.h"
#include "ui/IntegrationsModel.h"
#include "ui/Palette.h"

#include <QComboBox>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIcon>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

namespace cooldown {

namespace {

constexpr qint64 kHourMs = 3600 * 1000;

struct RangeChoice
{
    const char *label;
    qint64 rangeMs;
};

const RangeChoice kRanges[] = {
    {QT_TRANSLATE_NOOP("cooldown::IntegrationsPage", "Last hour"), kHourMs},
    {QT_TRANSLATE_NOOP("cooldown::IntegrationsPage", "Last 24 hours"), 24 * kHourMs},
    {QT_TRANSLATE_NOOP("cooldown::IntegrationsPage", "Last 7 days"), 7 * 24 * kHourMs},
    {QT_TRANSLATE_NOOP("cooldown::IntegrationsPage", "Last 30 days"), 30 * 24 * kHourMs},
};

// The light: a round lamp in the state's colour before its name, drawn as the item's
// decoration so that the style lays out, selects and elides it like any other cell.
class StateDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const int size = std::max(8, option->fontMetrics.height() * 2 / 3);
        const QColor color = integrationStateColor(
            IntegrationState(index.data(IntegrationsModel::StateRole).toInt()));
        const qreal ratio = option->widget ? option->widget->devicePixelRatioF() : 1.0;
        QPixmap lamp(QSize(size, size) * ratio);
        lamp.setDevicePixelRatio(ratio);
        lamp.fill(Qt::transparent);
        QPainter painter(&lamp);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setPen(QPen(color.darker(140), 1));
        painter.setBrush(color);
        painter.drawEllipse(QRectF(0.5, 0.5, size - 1, size - 1));
        painter.end();
        option->icon = QIcon(lamp);
        option->decorationSize = QSize(size, size);
        option->features |= QStyleOptionViewItem::HasDecoration;
    }
};

// The last hour, one bar per minute: attempts in grey, the 429s and 503s among them
// in the colour of "throttled", on a scale of the row's own busiest minute.
class SparklineDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        const QList<int> attempts =
            index.data(IntegrationsModel::SparkAttemptsRole).value<QList<int>>();
        const QList<int> throttled =
            index.data(IntegrationsModel::SparkThrottledRole).value<QList<int>>();
        if (attempts.isEmpty())
            return;
        const int peak = *std::max_element(attempts.cbegin(), attempts.cend());
        const QRectF area = QRectF(option.rect).adjusted(4, 3, -4, -3);
        painter->save();
        const QColor base = option.palette.color(QPalette::Mid);
        painter->setPen(base);
        painter->drawLine(area.bottomLeft(), area.bottomRight());
        if (peak > 0) {
            const double width = std::min(area.width() / attempts.size(), 4.0);
            const double left = area.right() - width * attempts.size();
            painter->setPen(Qt::NoPen);
            const QColor throttleColor = integrationStateColor(IntegrationState::Throttled);
            for (int i = 0; i < attempts.size(); ++i) {
                const int a = attempts.at(i);
                if (a <= 0)
                    continue;
                const double h = std::max(1.0, area.height() * a / peak);
                const double t =
                    i < throttled.size() ? area.height() * throttled.at(i) / peak : 0.0;
                const QRectF bar(left + i * width, area.bottom() - h, std::max(1.0, width - 1), h);
                painter->fillRect(bar, option.palette.color(QPalette::Dark));
                if (t > 0)
                    painter->fillRect(QRectF(bar.left(), area.bottom() - std::max(1.0, t),
                                             bar.width(), std::max(1.0, t)),
                                      throttleColor);
            }
        }
        painter->restore();
    }

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        size.setWidth(std::max(size.width(), 2 * IntegrationsReader::kSparkMinutes + 8));
        return size;
    }
};

} // namespace

QList<IntegrationEndpoint> IntegrationsPage::endpointsOf(const WorkspaceConfig &config)
{
    QList<IntegrationEndpoint> out;
    for (const EndpointConfig &e : config.endpoints) {
        IntegrationEndpoint endpoint;
        endpoint.id = e.id;
        endpoint.name = e.name;
        // As the scheduler partitions it: the policy's, or the host's learned one.
        endpoint.policyId = e.policy.isEmpty() ? learnedPolicyId(e.url.host()) : e.policy;
        endpoint.partitionKey = e.policy.isEmpty() ? QString() : e.partitionKey;
        endpoint.credentialId = e.credentials;
        endpoint.latencyBudgetMs = e.latencyBudgetMs;
        out.append(endpoint);
    }
    return out;
}

IntegrationsPage::IntegrationsPage(const QString &databaseUrl, const WorkspaceConfig &config,
                                   const Clock &clock, QWidget *parent)
    : QWidget(parent), m_clock(clock), m_model(new IntegrationsModel(this))
{
    m_reader = std::make_unique<WorkerThread<IntegrationsReader>>(
        QStringLiteral("integrations reader"), databaseUrl, clock, endpointsOf(config));

    auto *layout = new QVBoxLayout(this);
    auto *bar = new QHBoxLayout;
    auto *rangeLabel = new QLabel(tr("&Range:"), this);
    m_range = new QComboBox(this);
    m_range->setObjectName(QStringLiteral("integrationsRange"));
    for (const RangeChoice &r : kRanges)
        m_range->addItem(tr(r.label), r.rangeMs);
    m_range->setCurrentIndex(1);
    rangeLabel->setBuddy(m_range);
    bar->addWidget(rangeLabel);
    bar->addWidget(m_range);
    bar->addSpacing(16);
    auto *hint = new QLabel(
        tr("Select an integration to show only its operations in Jobs and its attempts in "
           "History."),
        this);
    hint->setObjectName(QStringLiteral("integrationsHint"));
    hint->setEnabled(false);
    bar->addWidget(hint);
    bar->addStretch(1);
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("integrationsSummary"));
    bar->addWidget(m_summary);
    layout->addLayout(bar);
    m_incidents = new QLabel(this);
    m_incidents->setObjectName(QStringLiteral("integrationsIncidents"));
    m_incidents->setWordWrap(true);
    m_incidents->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_incidents->hide();
    layout->addWidget(m_incidents);

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("integrationsTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 12);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->setItemDelegateForColumn(IntegrationsModel::StateColumn, new StateDelegate(m_table));
    m_table->setItemDelegateForColumn(IntegrationsModel::SparklineColumn,
                                      new SparklineDelegate(m_table));
    // The sparkline takes what is left.
    const QList<int> widths{110, 260, 110, 95, 100, 95, 95, 110};
    // At least as wide as the column's title, in whichever language it is.
    for (int c = 0; c < widths.size(); ++c)
        m_table->setColumnWidth(
            c, std::max(widths.at(c), m_table->horizontalHeader()->sectionSizeHint(c) + 8));
    layout->addWidget(m_table, 1);

    IntegrationsReader *reader = m_reader->worker();
    connect(reader, &IntegrationsReader::snapshotReady, this, &IntegrationsPage::showSnapshot);
    connect(m_range, &QComboBox::currentIndexChanged, this, [this, reader] {
        const qint64 range = rangeMs();
        QMetaObject::invokeMethod(
            reader, [reader, range] { reader->setRange(range); }, Qt::QueuedConnection);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const QString endpoint = selectedEndpoint();
        if (endpoint == m_selected)
            return;
        m_selected = endpoint;
        emit endpointSelected(endpoint);
    });
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &index) {
        emit jobsRequested(index.data(IntegrationsModel::EndpointIdRole).toString());
    });
    // The selection follows its endpoint when the rows are replaced.
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        const int row = m_model->rowOf(m_selected);
        if (row >= 0)
            m_table->selectRow(row);
        else if (!m_selected.isEmpty()) {
            m_selected.clear();
            emit endpointSelected(QString());
        }
    });

    m_tick = new QTimer(this);
    m_tick->setInterval(1000);
    connect(m_tick, &QTimer::timeout, this, [this] {
        m_model->setNowMs(m_clock.nowMs());
        updateSummary();
    });
    m_model->setNowMs(m_clock.nowMs());
}

IntegrationsPage::~IntegrationsPage()
{
    disconnect(m_reader->worker(), nullptr, this, nullptr);
}

void IntegrationsPage::start(ChangePoller *changes)
{
    IntegrationsReader *reader = m_reader->worker();
    connect(changes, &ChangePoller::polled, reader, &IntegrationsReader::tick);
    const qint64 range = rangeMs();
    QMetaObject::invokeMethod(
        reader, [reader, range] { reader->setRange(range); }, Qt::QueuedConnection);
    m_tick->start();
}

qint64 IntegrationsPage::rangeMs() const
{
    return m_range->currentData().toLongLong();
}

void IntegrationsPage::setEndpoints(const WorkspaceConfig &config)
{
    IntegrationsReader *reader = m_reader->worker();
    const QList<IntegrationEndpoint> endpoints = endpointsOf(config);
    QMetaObject::invokeMethod(
        reader, [reader, endpoints] { reader->setEndpoints(endpoints); }, Qt::QueuedConnection);
}

QString IntegrationsPage::selectedEndpoint() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString()
                          : rows.first().data(IntegrationsModel::EndpointIdRole).toString();
}

void IntegrationsPage::selectEndpoint(const QString &endpointId)
{
    const int row = m_model->rowOf(endpointId);
    if (row < 0)
        m_table->clearSelection();
    else
        m_table->selectRow(row);
}

void IntegrationsPage::setCredentials(const QList<CredentialState> &credentials)
{
    m_model->setCredentials(credentials);
    fitStateColumn();
    updateSummary();
}

void IntegrationsPage::setIncidents(const QList<IncidentRecord> &incidents)
{
    QStringList lines;
    const qint64 now = m_clock.nowMs();
    for (const IncidentRecord &incident : incidents)
        lines << tr("Incident %1: %2 has been failing since %3 for %n integration(s): %4. Their "
                    "failures are held, and alerts speak of all of them at once.",
                    nullptr, int(incident.endpointIds.size()))
                     .arg(incident.id)
                     .arg(incidentCauseText(incident.cause),
                          format::localTime(incident.openedAtMs, now),
                          incident.endpointIds.join(QStringLiteral(", ")));
    m_incidents->setText(lines.join(QLatin1Char('\n')));
    m_incidents->setVisible(!lines.isEmpty());
    palette::showAsProblem(m_incidents);
}

void IntegrationsPage::fitStateColumn()
{
    // The column is as wide as the usual lights; a longer one widens it, and it stays so
    // rather than jumping back and forth while a token endpoint comes and goes.
    const QFontMetrics metrics = m_table->fontMetrics();
    int width = 0;
    for (int r = 0; r < m_model->rowCount(); ++r)
        width = std::max(width,
                         metrics.horizontalAdvance(
                             m_model->index(r, IntegrationsModel::StateColumn).data().toString()));
    width += metrics.height() + 24; // the lamp and the margins
    if (width > m_table->columnWidth(IntegrationsModel::StateColumn))
        m_table->setColumnWidth(IntegrationsModel::StateColumn, width);
}

void IntegrationsPage::showSnapshot(const IntegrationsSnapshot &snapshot)
{
    m_model->setNowMs(m_clock.nowMs());
    m_model->setSnapshot(snapshot);
    fitStateColumn();
    updateSummary();
}

void IntegrationsPage::updateSummary()
{
    int trouble = 0;
    for (int r = 0; r < m_model->rowCount(); ++r) {
        // Waiting to retry is the engine doing its work, and a maintenance window was
        // planned; the others want a look.
        const IntegrationState state = m_model->stateAt(r);
        trouble += state != IntegrationState::Ok && state != IntegrationState::Waiting &&
                           state != IntegrationState::Maintenance
                       ? 1
                       : 0;
    }
    m_summary->setText(
        tr("%1 of %n integration(s) need attention", nullptr, m_model->rowCount()).arg(trouble));
    if (trouble > 0)
        palette::showAsProblem(m_summary);
    else
        m_summary->setPalette(QPalette());
}

} // namespace cooldown
