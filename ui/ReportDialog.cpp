// SPDX-License-Identifier: Apache-2.0
#include "ui/ReportDialog.h"

#include "core/query/SlaReportFormat.h"
#include "core/time/Clock.h"
#include "ui/Format.h"
#include "ui/ReportReader.h"
#include "ui/WorkerThread.h"

#include <QApplication>
#include <QComboBox>
#include <QDateEdit>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QPushButton>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace cooldown {

namespace {

QString localDateTime(qint64 ms)
{
    return QLocale().toString(QDateTime::fromMSecsSinceEpoch(ms), QLocale::ShortFormat);
}

QString percentOrDash(const std::optional<double> &value)
{
    return value ? slareport::percentText(*value) + QStringLiteral(" %") : QStringLiteral("–");
}

QString msOrDash(const std::optional<qint64> &value)
{
    return value ? QStringLiteral("≤ %1 ms").arg(*value) : QStringLiteral("–");
}

QString row(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td>%1</td><td align=\"right\"><b>%2</b></td></tr>")
        .arg(label.toHtmlEscaped(), value.toHtmlEscaped());
}

} // namespace

ReportDialog::ReportDialog(const QString &databaseUrl, const WorkspaceConfig &config,
                           const Clock &clock, QWidget *parent)
    : QDialog(parent), m_databaseUrl(databaseUrl), m_config(config), m_clock(clock),
      m_reader(std::make_unique<WorkerThread<ReportReader>>(QStringLiteral("report reader"),
                                                            databaseUrl))
{
    setObjectName(QStringLiteral("reportDialog"));
    setWindowTitle(tr("SLA report"));
    buildLayout();
    const SlaInterval month = previousCalendarMonth(m_clock.nowMs(), QTimeZone::systemTimeZone());
    setRange(QDateTime::fromMSecsSinceEpoch(month.startMs).date(),
             QDateTime::fromMSecsSinceEpoch(month.endMs).date().addDays(-1));
    resize(860, 760);
}

ReportDialog::~ReportDialog() = default;

void ReportDialog::open(const QString &databaseUrl, const WorkspaceConfig &config,
                        const Clock &clock, QWidget *parent)
{
    auto *dialog = new ReportDialog(databaseUrl, config, clock, parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    dialog->refresh();
}

void ReportDialog::buildLayout()
{
    m_from = new QDateEdit(this);
    m_to = new QDateEdit(this);
    for (QDateEdit *edit : {m_from, m_to}) {
        edit->setCalendarPopup(true);
        edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd"));
    }
    m_throttled = new QComboBox(this);
    m_throttled->addItem(tr("count as succeeded"), int(ThrottledRule::AsSuccess));
    m_throttled->addItem(tr("count as not available"), int(ThrottledRule::AsFailure));
    m_throttled->addItem(tr("leave out"), int(ThrottledRule::Exclude));
    m_maintenance = new QComboBox(this);
    m_maintenance->addItem(tr("left out"), int(MaintenanceRule::Exclude));
    m_maintenance->addItem(tr("counted"), int(MaintenanceRule::Include));
    auto *options = new QFormLayout;
    auto *range = new QHBoxLayout;
    range->addWidget(m_from);
    range->addWidget(new QLabel(tr("to"), this));
    range->addWidget(m_to);
    range->addStretch();
    options->addRow(tr("Days:"), range);
    options->addRow(tr("Succeeded after a 429 or 503:"), m_throttled);
    options->addRow(tr("Maintenance windows:"), m_maintenance);

    m_page = new QTextBrowser(this);
    m_page->setObjectName(QStringLiteral("reportPage"));
    m_page->setOpenLinks(false);
    m_status = new QLabel(this);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *pdf = buttons->addButton(tr("Export &PDF…"), QDialogButtonBox::ActionRole);
    connect(pdf, &QPushButton::clicked, this, &ReportDialog::chooseExportFile);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(options);
    layout->addWidget(m_page, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    for (QDateEdit *edit : {m_from, m_to})
        connect(edit, &QDateEdit::dateChanged, this, [this] { refresh(); });
    for (QComboBox *box : {m_throttled, m_maintenance})
        connect(box, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
}

void ReportDialog::setRange(const QDate &from, const QDate &to)
{
    const QSignalBlocker blockFrom(m_from);
    const QSignalBlocker blockTo(m_to);
    m_from->setDate(from);
    m_to->setDate(to);
}

void ReportDialog::refresh()
{
    SlaRequest request;
    const QTimeZone zone = QTimeZone::systemTimeZone();
    request.fromMs = QDateTime(m_from->date(), QTime(0, 0), zone).toMSecsSinceEpoch();
    request.toMs = QDateTime(m_to->date().addDays(1), QTime(0, 0), zone).toMSecsSinceEpoch();
    for (const EndpointConfig &e : m_config.endpoints)
        request.endpoints.append({e.id, e.name, e.slaTarget});
    request.maintenance = m_config.maintenance;
    request.throttled = ThrottledRule(m_throttled->currentData().toInt());
    request.maintenanceRule = MaintenanceRule(m_maintenance->currentData().toInt());
    const quint64 generation = ++m_generation;
    m_status->setText(tr("Reading…"));
    ReportReader *reader = m_reader->worker();
    // The dialog outlives any read: its reader's thread is stopped before it goes.
    QMetaObject::invokeMethod(reader, [this, reader, request, generation] {
        QString error;
        const std::optional<SlaReport> report = reader->read(request, &error);
        QMetaObject::invokeMethod(
            this, [this, report, error, generation] { showReport(report, error, generation); },
            Qt::QueuedConnection);
    });
}

void ReportDialog::showReport(const std::optional<SlaReport> &report, const QString &error,
                              quint64 generation)
{
    if (generation != m_generation)
        return; // an answer to options changed since
    if (!report) {
        m_page->setHtml(
            QStringLiteral("<p>%1</p>")
                .arg(tr("The report could not be read: %1").arg(error).toHtmlEscaped()));
        m_status->setText(error);
        Q_EMIT reportShown(false);
        return;
    }
    m_page->setHtml(pageHtml(*report));
    m_status->setText(
        tr("Read from the rollups: %n endpoint(s).", nullptr, int(report->endpoints.size())));
    Q_EMIT reportShown(true);
}

QString ReportDialog::pageHtml(const SlaReport &report)
{
    QString html = QStringLiteral("<h2>%1</h2><p>%2</p><p><i>%3</i></p>")
                       .arg(tr("SLA report").toHtmlEscaped(),
                            tr("From %1 to %2")
                                .arg(localDateTime(report.fromMs), localDateTime(report.toMs))
                                .toHtmlEscaped(),
                            report.ruleText().toHtmlEscaped());
    if (report.endpoints.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(tr("No endpoint had attempts in the range."));
    for (qsizetype i = 0; i < report.endpoints.size(); ++i)
        html += endpointHtml(report.endpoints.at(i), int(i));
    return html;
}

QString ReportDialog::endpointHtml(const SlaEndpointReport &e, int index)
{
    const QString title = e.name.isEmpty() ? e.endpointId : tr("%1 (%2)").arg(e.name, e.endpointId);
    QString html = QStringLiteral("<h3>%1</h3><table cellspacing=\"0\" cellpadding=\"3\">")
                       .arg(title.toHtmlEscaped());
    html += row(tr("Availability"), percentOrDash(e.availabilityPercent()));
    html += row(tr("Operations counted"), tr("%1 available of %2").arg(e.available).arg(e.counted));
    if (e.slaTarget >= 0) {
        const std::optional<bool> met = e.targetMet();
        html += row(tr("Target"),
                    tr("%1 %: %2")
                        .arg(e.slaTarget)
                        .arg(!met ? tr("nothing counted") : (*met ? tr("met") : tr("missed"))));
    }
    html += row(tr("Succeeded / failed"), tr("%1 / %2").arg(e.succeeded).arg(e.failed));
    html += row(tr("Succeeded after a 429 or 503"), QString::number(e.throttledSucceeded));
    html += row(tr("Degraded"), QString::number(e.degraded));
    html += row(tr("Answered 429"), tr("%1 of %2 attempts (%3)")
                                        .arg(e.answered429)
                                        .arg(e.attempts)
                                        .arg(percentOrDash(e.share429Percent())));
    html += row(tr("Latency p50 / p95"), tr("%1 / %2").arg(msOrDash(e.p50Ms), msOrDash(e.p95Ms)));
    html += row(tr("Downtime"), tr("%1 in %n interval(s)", nullptr, int(e.downtime.size()))
                                    .arg(format::duration(e.downtimeMs())));
    for (auto it = e.failuresByReason.cbegin(); it != e.failuresByReason.cend(); ++it)
        html += row(tr("Failed: %1").arg(it.key()), QString::number(it.value()));
    html += QStringLiteral("</table>");
    const QUrl chart(QStringLiteral("chart://%1").arg(index));
    m_page->document()->addResource(QTextDocument::ImageResource, chart,
                                    dailyChart(e, m_from->date(), m_to->date()));
    html += QStringLiteral("<p><img src=\"%1\"></p>").arg(chart.toString());
    QStringList lines;
    for (const SlaInterval &i : e.downtime)
        lines.append(tr("Down %1 – %2 (%3)")
                         .arg(localDateTime(i.startMs), localDateTime(i.endMs),
                              format::duration(i.durationMs()))
                         .toHtmlEscaped());
    for (const SlaInterval &i : e.maintenance)
        lines.append(tr("Maintenance %1 – %2 (%3)")
                         .arg(localDateTime(i.startMs), localDateTime(i.endMs),
                              format::duration(i.durationMs()))
                         .toHtmlEscaped());
    if (!lines.isEmpty())
        html += QStringLiteral("<p>%1</p>").arg(lines.join(QStringLiteral("<br>")));
    return html;
}

QImage ReportDialog::dailyChart(const SlaEndpointReport &endpoint, const QDate &from,
                                const QDate &to)
{
    const int days = std::max<int>(1, int(from.daysTo(to)) + 1);
    QImage image(640, 160, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    const QRectF plot(44, 10, image.width() - 54, image.height() - 34);
    // The scale runs from the lowest day (at most 90 %) to 100 %, so that 99.5 and 100
    // look apart.
    double floor = 90;
    for (const SlaDay &d : endpoint.days) {
        if (d.counted > 0)
            floor = std::min(floor, 100.0 * double(d.available) / double(d.counted));
    }
    // A step of 10 below the lowest day, so that its bar shows.
    floor = std::max(0.0, std::floor((floor - 1) / 10) * 10);
    const auto y = [&](double percent) {
        return plot.bottom() - (percent - floor) / (100 - floor) * plot.height();
    };
    p.setPen(QColor(0xcc, 0xcc, 0xcc));
    for (const double mark : {floor, (floor + 100) / 2, 100.0}) {
        p.drawLine(QPointF(plot.left(), y(mark)), QPointF(plot.right(), y(mark)));
        p.setPen(Qt::darkGray);
        p.drawText(QRectF(0, y(mark) - 8, 40, 16), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("%1 %").arg(mark));
        p.setPen(QColor(0xcc, 0xcc, 0xcc));
    }
    const double width = plot.width() / days;
    for (const SlaDay &d : endpoint.days) {
        const qint64 index = from.daysTo(d.date);
        if (d.counted <= 0 || index < 0 || index >= days)
            continue;
        const double percent = 100.0 * double(d.available) / double(d.counted);
        const bool below = endpoint.slaTarget >= 0 && percent < endpoint.slaTarget;
        // A day at the bottom of the scale still shows a stub.
        const double top = std::min(y(percent), plot.bottom() - 3);
        const QRectF bar(plot.left() + index * width + width * 0.15, top, width * 0.7,
                         plot.bottom() - top);
        p.fillRect(bar, below ? QColor(0xd0, 0x45, 0x3c) : QColor(0x3a, 0x7c, 0xc4));
    }
    if (endpoint.slaTarget >= floor) {
        p.setPen(QPen(QColor(0xe0, 0x8a, 0x00), 1.5, Qt::DashLine));
        p.drawLine(QPointF(plot.left(), y(endpoint.slaTarget)),
                   QPointF(plot.right(), y(endpoint.slaTarget)));
    }
    p.setPen(Qt::darkGray);
    const int step = std::max(1, days / 8);
    for (int i = 0; i < days; i += step)
        p.drawText(QRectF(plot.left() + i * width - 20, plot.bottom() + 4, 60, 16), Qt::AlignLeft,
                   QLocale().toString(from.addDays(i), QStringLiteral("MM-dd")));
    return image;
}

bool ReportDialog::exportPdf(const QString &fileName, QString *error) const
{
    QPdfWriter writer(fileName);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setResolution(150);
    writer.setTitle(tr("SLA report"));
    writer.setCreator(QStringLiteral("Cooldown"));
    m_page->document()->print(&writer);
    QFile file(fileName);
    if (!file.exists() || file.size() == 0) {
        *error = tr("%1 could not be written").arg(fileName);
        return false;
    }
    return true;
}

void ReportDialog::chooseExportFile()
{
    const QString fileName =
        QFileDialog::getSaveFileName(this, tr("Export the report as PDF"),
                                     QStringLiteral("sla-report.pdf"), tr("PDF files (*.pdf)"));
    if (fileName.isEmpty())
        return;
    QString error;
    m_status->setText(exportPdf(fileName, &error) ? tr("Written to %1").arg(fileName) : error);
}

QString ReportDialog::html() const
{
    return m_page->toHtml();
}

} // namespace cooldown
