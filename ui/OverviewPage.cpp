// SPDX-License-Identifier: Apache-2.0
#include "ui/OverviewPage.h"

#include "core/retry/Decision.h"
#include "core/time/Clock.h"
#include "ui/ChartPoints.h"
#include "ui/CustomRangeDialog.h"
#include "ui/Palette.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDateTime>
#include <QFrame>
#include <QGraphicsSimpleTextItem>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QLineSeries>
#include <QLocale>
#include <QPen>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace cooldown {

namespace {

constexpr qint64 kMinute = 60000;
// The width of the many lines (partitions, dashed references). Without antialiasing a
// line of at most one pixel is drawn pixel by pixel; a wider one is first turned into
// a polygon, joins and dashes included, which made the lines most of a repaint.
constexpr qreal kThinLine = 1;
// The most partitions the 429 chart's legend lists in a row under the plot.
constexpr int kPartitionsInARow = 2;

// The wait groups of the stacked chart, bottom band first.
struct WaitGroup
{
    const char *label;
    QStringList sources;
    QColor color;
};

// The keys of Metrics' waits by source: the names the store keeps.
QString sourceName(WaitSource source)
{
    return QLatin1String(textOf(source));
}

const QList<WaitGroup> &waitGroups()
{
    static const QList<WaitGroup> groups{
        {QT_TRANSLATE_NOOP("cooldown::OverviewPage", "Server-given"),
         {sourceName(WaitSource::RetryAfter), sourceName(WaitSource::RateLimit),
          sourceName(WaitSource::XRateLimit), sourceName(WaitSource::Problem)},
         QColor(0xe0, 0x7a, 0x10)},
        {QT_TRANSLATE_NOOP("cooldown::OverviewPage", "Backoff"),
         {sourceName(WaitSource::Backoff)},
         QColor(0x3a, 0x7b, 0xd5)},
        {QT_TRANSLATE_NOOP("cooldown::OverviewPage", "Local queue (bucket, hold, permits)"),
         {QStringLiteral("queue")},
         QColor(0x8a, 0x8f, 0x98)},
    };
    return groups;
}

// `color` at `alpha` over white, as one opaque colour.
QColor onWhite(const QColor &color, int alpha)
{
    const auto over = [alpha](int channel) {
        return (channel * alpha + 255 * (255 - alpha)) / 255;
    };
    return QColor(over(color.red()), over(color.green()), over(color.blue()));
}

const QList<QColor> &partitionColors()
{
    static const QList<QColor> colors{QColor(0xd9, 0x48, 0x1c), QColor(0x7b, 0x4f, 0xc9),
                                      QColor(0x1b, 0x9e, 0x77), QColor(0xc2, 0x18, 0x5b),
                                      QColor(0x66, 0x7d, 0x12), QColor(0x0b, 0x7a, 0x9c)};
    return colors;
}

// A range of whole, round steps (1, 2 or 5 times a power of ten) from zero to at least
// value and at least floor, with a tick on each step: the scale only moves when the data
// outgrows it, and the labels read 0, 5, 10 rather than 0, 3, 5, 8.
void setRoundRange(QValueAxis *axis, double value, double floor)
{
    const double target = std::max(value, floor);
    const double raw = target / 5.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10 * magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (raw <= m * magnitude) {
            step = m * magnitude;
            break;
        }
    }
    const int steps = std::max(1, int(std::ceil(target / step - 1e-9)));
    axis->setRange(0, steps * step);
    axis->setTickCount(steps + 1);
}

// The least time a rate is taken over: a newest bucket a second old would make one
// event look like a storm.
constexpr qint64 kMinRateSpanMs = 10000;

// Each bucket's value times scale.
QList<double> perBucket(const MetricsSnapshot &m, const QList<qint64> &counts, double scale = 1)
{
    QList<double> values;
    values.reserve(m.bucketCount);
    for (int b = 0; b < m.bucketCount; ++b)
        values.append(b < counts.size() ? double(counts.at(b)) * scale : 0.0);
    return values;
}

// The same per minute of the time the bucket covers: a bucket of 15 s with 2 events
// reads 8 per minute, one of 2 hours with 240 reads 2, so that every range reads on the
// same scale. The newest bucket of the last so much has only begun: taken over its
// whole length, its rate would fall at the start of every bucket, as if each storm were
// ending.
QList<double> perMinute(const MetricsSnapshot &m, const QList<qint64> &counts, double scale = 1)
{
    QList<double> values = perBucket(m, counts, scale);
    const qint64 least = std::min(m.bucketMs, kMinRateSpanMs);
    for (int b = 0; b < values.size(); ++b) {
        const qint64 covered = std::clamp(m.toMs - m.bucketStartMs(b), least, m.bucketMs);
        values[b] *= double(kMinute) / double(covered);
    }
    return values;
}

// Where the data ends: now, for the last so much (a bucket still filling is drawn up
// to now, not into the future); the window's end for a fixed window in the past.
qint64 dataEndMs(const MetricsSnapshot &m)
{
    return m.nowMs > m.fromMs ? std::min(m.toMs, m.nowMs) : m.toMs;
}

// The values as steps over the buckets' spans (chart::steps), x from originMs (the
// window's start).
QList<QPointF> stepsOf(const MetricsSnapshot &m, const QList<double> &values, qint64 originMs)
{
    return chart::steps(values, m.fromMs, m.bucketMs, dataEndMs(m), originMs);
}

// "15 s", "1 min", "2 h": how long one step of the charts is.
QString stepLength(qint64 ms)
{
    if (ms < kMinute)
        return OverviewPage::tr("%1 s").arg(ms / 1000);
    if (ms < 60 * kMinute)
        return OverviewPage::tr("%1 min").arg(ms / kMinute);
    return OverviewPage::tr("%1 h").arg(ms / (60 * kMinute));
}

double maxY(const QList<QPointF> &points)
{
    double max = 0;
    for (const QPointF &p : points)
        max = std::max(max, p.y());
    return max;
}

// Replaces a series' points only when they changed: every replace() makes Qt Charts
// recompute the series' path and shape and repaint the plot under it.
void setPoints(QXYSeries *series, const QList<QPointF> &points)
{
    if (series->points() != points)
        series->replace(points);
}

// How long the charts' window is: its buckets, the newest one whole. A window of the
// last so much ends at now and so starts inside its oldest bucket; its length stays the
// same while it slides, and so do the ticks.
qint64 timeSpanMs(const MetricsSnapshot &m)
{
    return std::max(1, m.bucketCount) * m.bucketMs;
}

QString figure(double value, int decimals = 0)
{
    return QLocale().toString(value, 'f', decimals);
}

} // namespace

QList<OverviewPage::Range> OverviewPage::ranges()
{
    // About a hundred buckets at the long ranges: a point every five or six pixels of a
    // plot, and little enough for a live update to recompute each line (Qt Charts
    // strokes a line's whole outline again for every change) within its 4 ms.
    return {
        // Buckets of 15 s: a storm that began 40 s ago shows as the last three steps
        // rather than as a line rising from minutes back. They are counted from the raw
        // attempts, finer than the per-minute rollups (LiveReader).
        {tr("Last 15 minutes"), 15 * kMinute, 15000},
        {tr("Last hour"), 60 * kMinute, kMinute},
        {tr("Last 24 hours"), 24 * 60 * kMinute, 15 * kMinute},
        {tr("Last 7 days"), 7 * 24 * 60 * kMinute, 120 * kMinute},
    };
}

OverviewPage::Range OverviewPage::customRange(qint64 fromMs, qint64 toMs)
{
    static const qint64 kStepMinutes[] = {1,   2,   5,   10,  15,   30,   60,
                                          120, 180, 360, 720, 1440, 2880, 10080};
    Range r;
    r.fromMs = fromMs;
    r.toMs = toMs;
    r.rangeMs = std::max<qint64>(1, toMs - fromMs);
    for (const qint64 minutes : kStepMinutes) {
        r.bucketMs = minutes * kMinute;
        if ((r.rangeMs + r.bucketMs - 1) / r.bucketMs <= kMaxBuckets)
            break;
    }
    return r;
}

QString OverviewPage::windowLabel(qint64 fromMs, qint64 toMs, qint64 nowMs)
{
    const QDateTime from = QDateTime::fromMSecsSinceEpoch(fromMs).toLocalTime();
    const QDateTime to = QDateTime::fromMSecsSinceEpoch(toMs).toLocalTime();
    const int thisYear = QDateTime::fromMSecsSinceEpoch(nowMs).toLocalTime().date().year();
    const QLocale locale;
    const auto day = [&locale, thisYear](const QDate &d) {
        // Date formats are the translator's: "d MMM" reads "M月d日" in Japanese.
        return locale.toString(d, d.year() == thisYear ? tr("d MMM", "date format")
                                                       : tr("d MMM yyyy", "date format"));
    };
    const QString hm = QStringLiteral("HH:mm");
    if (from.date() == to.date())
        return QStringLiteral("%1 %2 – %3")
            .arg(day(from.date()), from.toString(hm), to.toString(hm));
    return QStringLiteral("%1 %2 – %3 %4")
        .arg(day(from.date()), from.toString(hm), day(to.date()), to.toString(hm));
}

OverviewPage::OverviewPage(const Clock &clock, QWidget *parent) : QWidget(parent), m_clock(clock)
{
    m_pickWindow = [this](qint64 fromMs, qint64 toMs) -> std::optional<std::pair<qint64, qint64>> {
        CustomRangeDialog dialog(fromMs, toMs, m_clock.nowMs(), this);
        if (dialog.exec() != QDialog::Accepted)
            return std::nullopt;
        return std::make_pair(dialog.fromMs(), dialog.toMs());
    };

    auto *layout = new QVBoxLayout(this);

    auto *top = new QHBoxLayout;
    auto *rangeLabel = new QLabel(tr("&Time range:"), this);
    m_range = new QComboBox(this);
    m_range->setObjectName(QStringLiteral("overviewRange"));
    m_range->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (const Range &r : ranges())
        m_range->addItem(r.label);
    m_range->addItem(tr("Custom…"));
    m_range->setItemData(m_range->count() - 1,
                         tr("A fixed window of your choice, read from the database"),
                         Qt::ToolTipRole);
    rangeLabel->setBuddy(m_range);
    top->addWidget(rangeLabel);
    top->addWidget(m_range);
    top->addStretch(1);
    layout->addLayout(top);

    auto *cards = new QHBoxLayout;
    cards->setSpacing(8);
    m_inFlight = addCard(cards, tr("In flight / limit"),
                         tr("Exchanges on the wire now, and the configured global limit"));
    m_waiting =
        addCard(cards, tr("Waiting to retry"), tr("Operations waiting for their next attempt"));
    m_parked = addCard(cards, tr("Parked"), tr("Operations that need an operator"));
    m_failedToday =
        addCard(cards, tr("Failed today"), tr("Operations that failed for good since midnight"));
    m_attemptsPerSuccess = addCard(cards, tr("Attempts per success"),
                                   tr("Attempts made for each success in the time range"));
    m_held = addCard(cards, tr("Held partitions"),
                     tr("Partitions a server told to wait (429 or 503 with a time)"));
    layout->addLayout(cards);

    setupThrottleChart();
    setupWaitChart();
    setupFailureChart();
    setupInFlightChart();
    updateStepTitles(currentRange().bucketMs);
    auto *grid = new QGridLayout;
    grid->setSpacing(6);
    grid->addWidget(m_throttleView, 0, 0);
    grid->addWidget(m_waitView, 0, 1);
    grid->addWidget(m_failureView, 1, 0);
    grid->addWidget(m_inFlightView, 1, 1);
    grid->setRowStretch(0, 3);
    grid->setRowStretch(1, 2);
    layout->addLayout(grid, 1);

    connect(m_range, &QComboBox::currentIndexChanged, this, &OverviewPage::onRangeIndexChanged);
}

OverviewPage::~OverviewPage() = default;

OverviewPage::Card OverviewPage::addCard(QHBoxLayout *row, const QString &caption,
                                         const QString &tip)
{
    auto *frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    frame->setToolTip(tip);
    frame->setBackgroundRole(QPalette::Base);
    frame->setAutoFillBackground(true);
    auto *box = new QVBoxLayout(frame);
    box->setContentsMargins(12, 6, 12, 6);
    box->setSpacing(0);
    Card card;
    card.value = new QLabel(QStringLiteral("—"), frame);
    QFont big = card.value->font();
    big.setPointSizeF(big.pointSizeF() * 1.8);
    big.setBold(true);
    card.value->setFont(big);
    card.caption = new QLabel(caption, frame);
    card.caption->setForegroundRole(QPalette::PlaceholderText);
    box->addWidget(card.value);
    box->addWidget(card.caption);
    row->addWidget(frame, 1);
    return card;
}

QChartView *OverviewPage::makeChartView(QChart *chart, const QString &objectName)
{
    chart->setTheme(QChart::ChartThemeLight);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setShowToolTips(true); // the whole name of an entry cut short
    chart->setAnimationOptions(QChart::NoAnimation);
    QFont title = chart->titleFont();
    title.setBold(true);
    title.setPointSizeF(font().pointSizeF() * 1.05);
    chart->setTitleFont(title);
    auto *view = new QChartView(chart, this);
    view->setObjectName(objectName);
    // Drawn without antialiasing, Qt Charts' own default: antialiased, a repaint of
    // these charts costs about three times the instructions (every wide line and each
    // band's edge is blended pixel by pixel), which puts a live update over its 4 ms.
    view->setRenderHint(QPainter::Antialiasing, false);
    view->setMinimumSize(320, 200);
    // The view paints the white behind the chart as one rectangle. The chart's own
    // background is a rounded rectangle, filled as a path span by span (and, being
    // large, on the GUI thread pool) at every repaint of the plot.
    chart->setBackgroundVisible(false);
    view->setBackgroundBrush(QColor(Qt::white));
    return view;
}

QCategoryAxis *OverviewPage::makeTimeAxis(QChart *chart)
{
    // The series lie on an axis of milliseconds from the window's start, labelled with
    // ticks of our own (chart::slidingTicks, chart::clockTicks). While the window slides
    // with the clock neither its range nor its labels change: a new bucket only gives
    // the series new points, and the axis is not laid out again (each label of a Qt
    // Charts axis is a rich-text document, laid out twice more to be measured).
    auto *axis = new QCategoryAxis(chart);
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    axis->setStartValue(0);
    chart->addAxis(axis, Qt::AlignBottom);
    m_timeAxes.append(axis);
    return axis;
}

void OverviewPage::setupThrottleChart()
{
    m_throttleChart = new QChart;
    m_throttleChart->setTitle(tr("429 Too Many Requests per minute"));
    m_throttleView = makeChartView(m_throttleChart, QStringLiteral("throttleChart"));
    QCategoryAxis *x = makeTimeAxis(m_throttleChart);
    m_throttleY = new QValueAxis(m_throttleChart);
    m_throttleY->setLabelFormat(QStringLiteral("%.0f"));
    m_throttleY->setRange(0, 1);
    m_throttleChart->addAxis(m_throttleY, Qt::AlignLeft);

    m_throttleTotal = new QLineSeries(m_throttleChart);
    m_throttleTotal->setName(tr("429, all partitions"));
    m_throttleTotal->setObjectName(QStringLiteral("throttleTotal"));
    m_throttleTotal->setPen(QPen(QColor(0x20, 0x24, 0x2a), 3.5));
    m_unavailableTotal = new QLineSeries(m_throttleChart);
    m_unavailableTotal->setName(tr("503, all"));
    QPen dashed(QColor(0x8a, 0x8f, 0x98), kThinLine);
    dashed.setStyle(Qt::DashLine);
    m_unavailableTotal->setPen(dashed);
    for (QLineSeries *s : {m_throttleTotal, m_unavailableTotal}) {
        m_throttleChart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(m_throttleY);
    }
}

QLineSeries *OverviewPage::partitionSeries(const QString &partition)
{
    if (QLineSeries *existing = m_partitionSeries.value(partition))
        return existing;
    auto *series = new QLineSeries(m_throttleChart);
    series->setName(tr("429, %1").arg(partition));
    const QColor color = partitionColors().at(m_partitionSeries.size() % partitionColors().size());
    series->setPen(QPen(color, kThinLine));
    m_throttleChart->addSeries(series);
    series->attachAxis(m_timeAxes.first());
    series->attachAxis(m_throttleY);
    m_partitionSeries.insert(partition, series);
    // An entry per partition: past a few, a row under the plot would cut their names to
    // a few letters; a column beside it shows them whole.
    if (m_partitionSeries.size() == kPartitionsInARow + 1)
        m_throttleChart->legend()->setAlignment(Qt::AlignRight);
    return series;
}

void OverviewPage::setupWaitChart()
{
    m_waitChart = new QChart;
    m_waitChart->setTitle(tr("Wait chosen, seconds per minute, by source"));
    m_waitView = makeChartView(m_waitChart, QStringLiteral("waitChart"));
    QCategoryAxis *x = makeTimeAxis(m_waitChart);
    m_waitY = new QValueAxis(m_waitChart);
    m_waitY->setLabelFormat(QStringLiteral("%.0f s"));
    m_waitY->setRange(0, 1);
    m_waitChart->addAxis(m_waitY, Qt::AlignLeft);
    // The bands are stacked: each one's top is the sum of its group and those below. Each
    // is an area from zero to its top, painted opaque (the colour a translucent fill
    // shows on the white plot), the highest first and every lower one over it. That
    // looks like bands between lines, and gives Qt Charts one line per band to lay out
    // at every update instead of two.
    m_waitUpper.resize(waitGroups().size());
    for (int g = int(waitGroups().size()) - 1; g >= 0; --g) {
        const WaitGroup &group = waitGroups().at(g);
        auto *upper = new QLineSeries(m_waitChart);
        auto *area = new QAreaSeries(upper);
        area->setName(tr(group.label));
        area->setBrush(onWhite(group.color, 170));
        area->setPen(QPen(group.color.darker(115), 1));
        m_waitChart->addSeries(area);
        area->attachAxis(x);
        area->attachAxis(m_waitY);
        m_waitUpper[g] = upper;
    }
}

void OverviewPage::setupFailureChart()
{
    m_failureChart = new QChart;
    m_failureChart->setTitle(tr("Final failures by reason"));
    m_failureView = makeChartView(m_failureChart, QStringLiteral("failureChart"));
    auto *series = new QHorizontalBarSeries(m_failureChart);
    m_failureSet = new QBarSet(tr("Operations failed for good"), series);
    m_failureSet->setColor(palette::problem());
    series->append(m_failureSet);
    series->setLabelsVisible(true);
    series->setLabelsPosition(QAbstractBarSeries::LabelsInsideEnd);
    m_failureChart->addSeries(series);
    m_failureReasons = new QBarCategoryAxis(m_failureChart);
    m_failureChart->addAxis(m_failureReasons, Qt::AlignLeft);
    series->attachAxis(m_failureReasons);
    m_failureX = new QValueAxis(m_failureChart);
    m_failureX->setLabelFormat(QStringLiteral("%.0f"));
    m_failureX->setRange(0, 1);
    m_failureChart->addAxis(m_failureX, Qt::AlignBottom);
    series->attachAxis(m_failureX);
    m_failureChart->legend()->hide();
    // The number in range is drawn in the title's row by an item of its own: a new
    // chart title lays the whole chart out again, every axis label included, and the
    // number changes with every final failure.
    m_failureTotal = new QGraphicsSimpleTextItem(m_failureChart);
    m_failureTotal->setBrush(palette().color(QPalette::PlaceholderText));
    connect(m_failureChart, &QGraphicsWidget::geometryChanged, this,
            &OverviewPage::placeFailureTotal);
}

void OverviewPage::setupInFlightChart()
{
    m_inFlightChart = new QChart;
    m_inFlightView = makeChartView(m_inFlightChart, QStringLiteral("inFlightChart"));
    QCategoryAxis *x = makeTimeAxis(m_inFlightChart);
    m_inFlightY = new QValueAxis(m_inFlightChart);
    m_inFlightY->setLabelFormat(QStringLiteral("%.0f"));
    m_inFlightY->setRange(0, 1);
    m_inFlightChart->addAxis(m_inFlightY, Qt::AlignLeft);
    m_inFlightPeak = new QLineSeries(m_inFlightChart);
    m_inFlightPeak->setName(tr("Peak in flight"));
    m_inFlightPeak->setPen(QPen(QColor(0x1f, 0x5f, 0xbf), 2));
    m_inFlightLimit = new QLineSeries(m_inFlightChart);
    m_inFlightLimit->setName(tr("Limit"));
    QPen dashed(palette::problem(), kThinLine);
    dashed.setStyle(Qt::DashLine);
    m_inFlightLimit->setPen(dashed);
    for (QLineSeries *s : {m_inFlightPeak, m_inFlightLimit}) {
        m_inFlightChart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(m_inFlightY);
    }
}

int OverviewPage::pointBudget(const QChartView *view) const
{
    return std::max(64, 2 * view->width());
}

void OverviewPage::showSnapshot(const LiveSnapshot &snapshot)
{
    const MetricsSnapshot &m = snapshot.metrics;
    m_waiting.value->setText(figure(double(snapshot.counts.value(OperationState::Waiting))));
    m_parked.value->setText(figure(double(snapshot.counts.value(OperationState::Parked))));
    m_failedToday.value->setText(figure(double(snapshot.failedToday)));
    const double perSuccess = m.attemptsPerSuccess();
    m_attemptsPerSuccess.value->setText(perSuccess < 0 ? QStringLiteral("—")
                                                       : figure(perSuccess, 2));

    updateTimeAxes(snapshot);
    updateStepTitles(m.bucketMs);
    updateThrottleChart(m);
    updateWaitChart(m);
    updateFailureChart(m);
    updateInFlightChart(m);
}

void OverviewPage::updateTimeAxes(const LiveSnapshot &snapshot)
{
    const MetricsSnapshot &m = snapshot.metrics;
    const qint64 span = timeSpanMs(m);
    // A fixed window from its first bucket; the last so much up to now, "now" at the
    // right edge, where the newest step ends.
    const QList<chart::TimeTick> ticks = snapshot.fixedWindow
                                             ? chart::clockTicks(m.fromMs, span)
                                             : chart::slidingTicks(span - m.bucketMs, span);
    m_shownFromMs = snapshot.fixedWindow ? m.fromMs : dataEndMs(m) - span;
    if (ticks == m_timeTicks && span == m_timeSpanMs)
        return;
    m_timeTicks = ticks;
    m_timeSpanMs = span;
    for (QCategoryAxis *axis : std::as_const(m_timeAxes)) {
        const QStringList old = axis->categoriesLabels();
        for (const QString &label : old)
            axis->remove(label);
        for (const chart::TimeTick &tick : ticks)
            axis->append(tick.label, double(tick.offsetMs));
        axis->setRange(0, double(span));
    }
}

void OverviewPage::updateStepTitles(qint64 bucketMs)
{
    // The rates are per minute at every range; the titles say how long a step is, so that
    // a step of 15 s is not read as a minute's count.
    if (bucketMs == m_titledBucketMs)
        return;
    m_titledBucketMs = bucketMs;
    const QString step = stepLength(bucketMs);
    const QString perMinute = tr("per minute, in steps of %1").arg(step);
    m_throttleY->setTitleText(perMinute);
    m_waitY->setTitleText(perMinute);
    m_inFlightChart->setTitle(tr("In flight (peak in each %1) and limit").arg(step));
}

void OverviewPage::updateThrottleChart(const MetricsSnapshot &m)
{
    const int budget = pointBudget(m_throttleView);
    const QList<QPointF> total = stepsOf(m, perMinute(m, m.tooManyRequests), m_shownFromMs);
    double top = maxY(total);
    setPoints(m_throttleTotal, chart::decimate(total, budget));
    const QList<QPointF> unavailable = stepsOf(m, perMinute(m, m.unavailable), m_shownFromMs);
    top = std::max(top, maxY(unavailable));
    setPoints(m_unavailableTotal, chart::decimate(unavailable, budget));
    // A partition seen once keeps its line (at zero) so that colours stay put.
    for (auto it = m.tooManyRequestsByPartition.cbegin(); it != m.tooManyRequestsByPartition.cend();
         ++it)
        partitionSeries(it.key());
    for (auto it = m_partitionSeries.cbegin(); it != m_partitionSeries.cend(); ++it) {
        const QList<QPointF> points =
            stepsOf(m, perMinute(m, m.tooManyRequestsByPartition.value(it.key())), m_shownFromMs);
        top = std::max(top, maxY(points));
        setPoints(it.value(), chart::decimate(points, budget));
    }
    setRoundRange(m_throttleY, top, 5);
}

void OverviewPage::updateWaitChart(const MetricsSnapshot &m)
{
    const int budget = pointBudget(m_waitView);
    QList<qint64> stacked(m.bucketCount, 0);
    double top = 0;
    for (int g = 0; g < waitGroups().size(); ++g) {
        for (const QString &source : waitGroups().at(g).sources) {
            const QList<qint64> values = m.waitMsBySource.value(source);
            for (int b = 0; b < values.size() && b < stacked.size(); ++b)
                stacked[b] += values.at(b);
        }
        const QList<QPointF> upper = stepsOf(m, perMinute(m, stacked, 0.001), m_shownFromMs);
        top = std::max(top, maxY(upper));
        setPoints(m_waitUpper.at(g), chart::decimate(upper, budget));
    }
    setRoundRange(m_waitY, top, 10);
}

void OverviewPage::updateFailureChart(const MetricsSnapshot &m)
{
    QList<QPair<QString, qint64>> reasons;
    for (auto it = m.finalFailuresByReason.cbegin(); it != m.finalFailuresByReason.cend(); ++it)
        reasons.append({it.key(), it.value()});
    std::sort(reasons.begin(), reasons.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second < b.second : a.first > b.first;
    });
    QStringList categories;
    for (const auto &r : reasons)
        categories.append(r.first);
    if (categories.isEmpty())
        categories.append(QString());
    if (categories != m_failureCategories) {
        m_failureCategories = categories;
        m_failureReasons->setCategories(categories);
        m_failureSet->remove(0, m_failureSet->count());
        for (int i = 0; i < categories.size(); ++i)
            m_failureSet->append(0);
    }
    double top = 0;
    for (int i = 0; i < reasons.size(); ++i) {
        const double value = double(reasons.at(i).second);
        // Each replace() lays out every bar again.
        if (m_failureSet->at(i) != value)
            m_failureSet->replace(i, value);
        top = std::max(top, value);
    }
    setRoundRange(m_failureX, top, 5);
    const QString title = reasons.isEmpty() ? tr("Final failures by reason: none in this range")
                                            : tr("Final failures by reason");
    if (m_failureChart->title() != title)
        m_failureChart->setTitle(title);
    const QString total =
        reasons.isEmpty() ? QString() : tr("%1 in range").arg(figure(double(m.finalFailures())));
    if (m_failureTotal->text() != total) {
        m_failureTotal->setText(total);
        placeFailureTotal();
    }
}

void OverviewPage::placeFailureTotal()
{
    // Right-aligned with the plot, on the title's line just above it.
    const QRectF plot = m_failureChart->plotArea();
    const QRectF text = m_failureTotal->boundingRect();
    m_failureTotal->setPos(plot.right() - text.width(), plot.top() - text.height() - 5);
}

void OverviewPage::updateInFlightChart(const MetricsSnapshot &m)
{
    QList<qint64> peaks;
    peaks.reserve(m.peakInFlight.size());
    for (const int p : m.peakInFlight)
        peaks.append(p);
    const QList<QPointF> points = stepsOf(m, perBucket(m, peaks), m_shownFromMs);
    setPoints(m_inFlightPeak, chart::decimate(points, pointBudget(m_inFlightView)));
    setPoints(m_inFlightLimit, {QPointF(0, m.maxInFlight),
                                QPointF(double(dataEndMs(m) - m_shownFromMs), m.maxInFlight)});
    setRoundRange(m_inFlightY, std::max<double>(maxY(points), m.maxInFlight) + 1, 5);
}

void OverviewPage::setInFlight(int inFlight, int maxInFlight)
{
    m_inFlight.value->setText(QStringLiteral("%1 / %2").arg(inFlight).arg(maxInFlight));
}

void OverviewPage::setHeldPartitions(int count)
{
    m_held.value->setText(figure(count));
}

OverviewPage::Range OverviewPage::currentRange() const
{
    const int index = rangeIndex();
    if (index == customIndex() && m_custom)
        return *m_custom;
    const QList<Range> all = ranges();
    return all.value(std::clamp(index, 0, int(all.size()) - 1));
}

void OverviewPage::setRangeIndex(int index)
{
    m_range->setCurrentIndex(std::clamp(index, 0, m_custom ? customIndex() : customIndex() - 1));
}

int OverviewPage::rangeIndex() const
{
    // While "Custom…" asks, the range shown is still the one before.
    const int index = m_range->currentIndex();
    return index == m_range->count() - 1 ? m_lastIndex : index;
}

bool OverviewPage::setCustomWindow(qint64 fromMs, qint64 toMs, bool select)
{
    const qint64 now = m_clock.nowMs();
    if (!CustomRangeDialog::problem(fromMs, toMs, now).isEmpty())
        return false;
    Range r = customRange(fromMs, toMs);
    r.label = windowLabel(fromMs, toMs, now);
    const QSignalBlocker blocker(m_range);
    const int index = customIndex();
    if (m_custom)
        m_range->setItemText(index, r.label);
    else
        m_range->insertItem(index, r.label);
    const QString full = QStringLiteral("yyyy-MM-dd HH:mm");
    m_range->setItemData(
        index,
        tr("%1 to %2, in buckets of %3 min")
            .arg(QDateTime::fromMSecsSinceEpoch(fromMs).toLocalTime().toString(full),
                 QDateTime::fromMSecsSinceEpoch(toMs).toLocalTime().toString(full))
            .arg(r.bucketMs / kMinute),
        Qt::ToolTipRole);
    m_custom = r;
    if (select) {
        m_range->setCurrentIndex(index);
        m_lastIndex = index;
        emitRange();
    }
    return true;
}

void OverviewPage::setWindowPicker(WindowPicker picker)
{
    m_pickWindow = std::move(picker);
}

void OverviewPage::onRangeIndexChanged(int index)
{
    if (index == m_range->count() - 1) {
        pickCustomWindow();
        return;
    }
    m_lastIndex = index;
    emitRange();
}

void OverviewPage::pickCustomWindow()
{
    // The dialog opens on the custom window, or on the range shown until now.
    const qint64 now = m_clock.nowMs();
    const Range shown = currentRange();
    const qint64 to = m_custom ? m_custom->toMs : now;
    const qint64 from = m_custom ? m_custom->fromMs : now - shown.rangeMs;
    const auto picked = m_pickWindow(from, to);
    if (picked && setCustomWindow(picked->first, picked->second))
        return;
    const QSignalBlocker blocker(m_range);
    m_range->setCurrentIndex(m_lastIndex);
}

void OverviewPage::emitRange()
{
    const Range r = currentRange();
    if (r.isFixed())
        emit windowChanged(r.fromMs, r.toMs, r.bucketMs);
    else
        emit rangeChanged(r.rangeMs, r.bucketMs);
}

} // namespace cooldown
