// SPDX-License-Identifier: Apache-2.0
// The dashboard's targets, each beside its reference in the same run:
//   history  the History table (a QTableView set up as HistoryPage sets it up) over
//            HistoryModel on 1,000,000 attempts: first paint, jump to the end, scroll
//            steps and resident memory, against the same view over a constant-data model
//            of as many rows
//   jobs     the Jobs table (a QTableView set up as JobsPage sets it up) over JobsModel
//            on 100,000 active operations: first paint, jump to the end and scroll steps,
//            against the same view over a constant-data model of as many rows
//   chart    OverviewPage::showSnapshot and the repaint it causes, at each time range,
//            against plain QPainter drawing the same points with the same pens on
//            images of the same sizes
// Widgets are drawn by the offscreen platform (QT_QPA_PLATFORM=offscreen is the default
// here). Waits run the event loop until the rows arrive, bounded by a timeout. Table
// times are wall times (a reader thread does part of the work); chart times are the
// main thread's CPU time, which leaves out the time other processes held the core.
//
//   bench_ui [--smoke] [--rows N] [--jobs N] [--only history|jobs|chart] [--keep]

#include "bench/AttemptSeed.h"
#include "bench/BenchSupport.h"
#include "core/time/Clock.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryPage.h"
#include "ui/HistoryReader.h"
#include "ui/JobsModel.h"
#include "ui/JobsPage.h"
#include "ui/JobsReader.h"
#include "ui/OverviewPage.h"
#include "ui/WorkerThread.h"

#include <QAbstractTableModel>
#include <QApplication>
#include <QAreaSeries>
#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QEventLoop>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <climits>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

constexpr int kTableWidth = 1200;
constexpr int kTableHeight = 800;
constexpr int kPageWidth = 1280;
constexpr int kPageHeight = 860;

QString ms(double value)
{
    return number(value, value < 10 ? 2 : 1) + QStringLiteral(" ms");
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const size_t at = size_t(std::ceil(p * double(values.size()))) - 1;
    return values[std::min(at, values.size() - 1)];
}

double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double millis(const QElapsedTimer &timer)
{
    return double(timer.nsecsElapsed()) / 1e6;
}

// Starts a new peak for VmHWM (the kernel's "5" of clear_refs).
void resetPeakRss()
{
    if (FILE *f = std::fopen("/proc/self/clear_refs", "w")) {
        std::fputs("5", f);
        std::fclose(f);
    }
}

// Runs the event loop until done() holds, waking whenever the model changes (a page
// of rows arrived, the index came in); false when timeoutMs passed first.
bool waitUntil(QAbstractItemModel *model, const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer elapsed;
    elapsed.start();
    while (!done()) {
        const qint64 left = timeoutMs - elapsed.elapsed();
        if (left <= 0)
            return false;
        QEventLoop loop;
        QTimer deadline;
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);
        QObject::connect(model, &QAbstractItemModel::dataChanged, &loop, &QEventLoop::quit);
        QObject::connect(model, &QAbstractItemModel::rowsInserted, &loop, &QEventLoop::quit);
        QObject::connect(model, &QAbstractItemModel::modelReset, &loop, &QEventLoop::quit);
        deadline.start(int(std::min<qint64>(left, 50))); // and look again now and then
        loop.exec();
    }
    return true;
}

// ---------------------------------------------------------------------------------------
// History table

// The reference: as many rows and columns as the table measured, every cell the same
// text, nothing to load.
class ConstantModel final : public QAbstractTableModel
{
public:
    explicit ConstantModel(int rows, int columns = HistoryModel::ColumnCount)
        : m_rows(rows), m_columns(columns)
    {}

    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : m_rows;
    }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : m_columns;
    }
    QVariant data(const QModelIndex &index, int role) const override
    {
        return index.isValid() && role == Qt::DisplayRole ? QVariant(m_text) : QVariant();
    }
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override
    {
        if (orientation == Qt::Horizontal && role == Qt::DisplayRole)
            return QStringLiteral("Column %1").arg(section);
        return QAbstractTableModel::headerData(section, orientation, role);
    }

private:
    int m_rows = 0;
    int m_columns = 0;
    QString m_text = QStringLiteral("constant text");
};

struct TableFigures
{
    bool loaded = false;       // every wait ended with its rows shown
    double rowsKnownMs = 0;    // rowCount() came above zero: the model's index is in
    double allRowsKnownMs = 0; // the model's index is complete
    double firstPaintMs = 0;
    double jumpMs = 0;
    std::vector<double> stepMs;
    qint64 rssBytes = 0;
    qint64 peakRssBytes = 0;
    qint64 baselineRssBytes = 0;
};

// One variant of the History benchmark: makeModel() creates the model and starts its
// query, loaded(row) says whether a row shows real data.
TableFigures measureTable(
    const std::function<QAbstractItemModel *()> &makeModel,
    const std::function<bool(QAbstractItemModel *, int)> &loaded, int steps,
    int firstPaintTimeoutMs,
    const std::function<bool(QAbstractItemModel *)> &allRowsKnown =
        [](QAbstractItemModel *) { return true; },
    const std::function<void(QTableView *)> &configure = &HistoryPage::configureTable)
{
    TableFigures figures;
    QTableView view;
    view.resize(kTableWidth, kTableHeight);
    view.show();
    QCoreApplication::processEvents();
    resetPeakRss();
    figures.baselineRssBytes = procStatusBytes("VmRSS");

    QAbstractItemModel *model = nullptr;
    const auto visibleRowsShown = [&] {
        const int rows = model->rowCount();
        if (rows == 0)
            return false;
        const int first = view.rowAt(0);
        int last = view.rowAt(view.viewport()->height() - 1);
        if (first < 0)
            return false;
        if (last < 0)
            last = rows - 1;
        for (int r = first; r <= last; ++r) {
            if (!loaded(model, r))
                return false;
        }
        return true;
    };
    const auto settle = [&](int timeoutMs) {
        const bool shown = waitUntil(model, visibleRowsShown, timeoutMs);
        view.viewport()->repaint();
        return shown;
    };

    bool allShown = true;
    QElapsedTimer timer;
    timer.start();
    model = makeModel();
    if (model->rowCount() == 0) {
        QObject::connect(model, &QAbstractItemModel::rowsInserted, &view, [&figures, &timer] {
            if (figures.rowsKnownMs == 0)
                figures.rowsKnownMs = millis(timer);
        });
    } else {
        figures.rowsKnownMs = millis(timer);
    }
    view.setModel(model);
    configure(&view);
    allShown &= settle(firstPaintTimeoutMs);
    figures.firstPaintMs = millis(timer);
    QCoreApplication::processEvents();
    if (!allShown)
        steps = -1; // nothing to scroll through: skip to the memory figures
    // The end is the end only once the model knows every row: the jump and the steps
    // start from there (a big history shows its newest rows while it reads the rest).
    allShown &= waitUntil(
        model, [&] { return allRowsKnown(model); }, firstPaintTimeoutMs);
    figures.allRowsKnownMs = millis(timer);

    if (steps >= 0) {
        timer.start();
        view.scrollToBottom();
        allShown &= settle(10000);
        figures.jumpMs = millis(timer);
        QCoreApplication::processEvents();
    }

    // Half the steps jump to a random place, the other half page down from there.
    QScrollBar *bar = view.verticalScrollBar();
    QRandomGenerator random(20261129);
    for (int s = 0; s < steps; ++s) {
        const int value = s % 2 == 0 ? random.bounded(bar->maximum() + 1)
                                     : std::min(bar->maximum(), bar->value() + bar->pageStep());
        timer.start();
        bar->setValue(value);
        allShown &= settle(10000);
        figures.stepMs.push_back(millis(timer));
        QCoreApplication::processEvents();
    }
    figures.rssBytes = procStatusBytes("VmRSS");
    figures.peakRssBytes = procStatusBytes("VmHWM");
    figures.loaded = allShown && model->rowCount() > 0;
    view.setModel(nullptr);
    delete model;
    return figures;
}

void benchHistory(const QString &databasePath, qint64 rows, int steps)
{
    const int firstPaintTimeoutMs = 300000;
    const TableFigures reference =
        measureTable([rows] { return new ConstantModel(int(rows)); },
                     [](QAbstractItemModel *, int) { return true; }, steps, firstPaintTimeoutMs);
    // The model's readers on threads of their own, as the History page starts them.
    WorkerThread<HistoryReader> index(QStringLiteral("history index"), databasePath);
    WorkerThread<HistoryReader> pages(QStringLiteral("history rows"), databasePath);
    const TableFigures history = measureTable(
        [&index, &pages] {
            auto *model = new HistoryModel(index.worker(), pages.worker());
            model->setQuery(HistoryQuery());
            return model;
        },
        [](QAbstractItemModel *model, int row) {
            return model->index(row, 0).data(HistoryModel::LoadedRole).toBool();
        },
        steps, firstPaintTimeoutMs,
        [](QAbstractItemModel *model) { return !static_cast<HistoryModel *>(model)->isLoading(); });
    if (!history.loaded)
        note(QStringLiteral("the History model did not show its rows within the timeouts"));
    if (g_smoke && !history.loaded)
        die(QStringLiteral("the History model never showed its rows"));

    const QString size = QStringLiteral("%L1 rows").arg(rows);
    note(QStringLiteral("scroll steps (ms), reference: p50 %1, p95 %2, max %3; History: p50 %4,"
                        " p95 %5, max %6")
             .arg(number(percentile(reference.stepMs, 0.5), 2),
                  number(percentile(reference.stepMs, 0.95), 2),
                  number(percentile(reference.stepMs, 1.0), 2),
                  number(percentile(history.stepMs, 0.5), 2),
                  number(percentile(history.stepMs, 0.95), 2),
                  number(percentile(history.stepMs, 1.0), 2)));
    note(QStringLiteral("History: first rows known after %1, shown %2 later; every row known"
                        " (the model's id index read) after %3")
             .arg(ms(history.rowsKnownMs), ms(history.firstPaintMs - history.rowsKnownMs),
                  ms(history.allRowsKnownMs)));
    note(QStringLiteral("resident before the view, reference: %1; History: %2")
             .arg(megabytes(reference.baselineRssBytes), megabytes(history.baselineRssBytes)));

    report(QStringLiteral("history first paint, QTableView over HistoryModel (%1)").arg(size),
           QStringLiteral("constant model: %1").arg(ms(reference.firstPaintMs)),
           ms(history.firstPaintMs), ratioText(history.firstPaintMs / reference.firstPaintMs),
           QStringLiteral("< 100 ms"), history.loaded && history.firstPaintMs < 100);
    report(QStringLiteral("history jump to the end: scrollToBottom, last rows shown"),
           QStringLiteral("constant model: %1").arg(ms(reference.jumpMs)), ms(history.jumpMs),
           ratioText(history.jumpMs / reference.jumpMs), QStringLiteral("< 50 ms"),
           history.loaded && history.jumpMs < 50);
    const double referenceP95 = percentile(reference.stepMs, 0.95);
    const double historyP95 = percentile(history.stepMs, 0.95);
    report(QStringLiteral("history scroll step p95 (%1 steps: random jumps, page downs)")
               .arg(history.stepMs.size()),
           QStringLiteral("constant model: %1").arg(ms(referenceP95)),
           QStringLiteral("%1 (p50 %2)").arg(ms(historyP95), ms(percentile(history.stepMs, 0.5))),
           ratioText(historyP95 / referenceP95), QStringLiteral("< 16 ms"),
           history.loaded && historyP95 < 16);
    report(QStringLiteral("history resident memory after the steps (VmRSS; peak VmHWM)"),
           QStringLiteral("constant model: %1 (peak %2)")
               .arg(megabytes(reference.rssBytes), megabytes(reference.peakRssBytes)),
           QStringLiteral("%1 (peak %2)")
               .arg(megabytes(history.rssBytes), megabytes(history.peakRssBytes)),
           ratioText(double(history.peakRssBytes) / double(reference.peakRssBytes)),
           QStringLiteral("< 150 MB"), history.peakRssBytes < 150LL * 1024 * 1024);
}

// ---------------------------------------------------------------------------------------
// Jobs table

// count scheduled operations over 20 endpoints, due over the next hour, in transactions
// of 10,000 through the store's own intake.
void seedOperations(const QString &databasePath, qint64 count)
{
    const std::unique_ptr<Store> store = openStore(databasePath);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (qint64 done = 0; done < count;) {
        QList<Store::NewOperation> jobs;
        for (; done < count && jobs.size() < 10000; ++done) {
            Store::NewOperation job;
            job.endpointId = QStringLiteral("endpoint-%1").arg(done % 20);
            job.idempotencyKey = QStringLiteral("bench-%1").arg(done);
            job.requestHash = QStringLiteral("request-%1").arg(done);
            job.policyId = QStringLiteral("policy-%1").arg(done % 4);
            job.partitionKey = QStringLiteral("tenant-%1").arg(done % 50);
            job.dueAtMs = now + done % 3600 * 1000;
            jobs.append(job);
        }
        if (!store->enqueue(jobs, now, Store::IntakeMode::AllOrNothing))
            die(QStringLiteral("seeding operations: %1").arg(store->lastError()));
    }
}

void benchJobs(const QString &databasePath, qint64 rows, int steps)
{
    const int firstPaintTimeoutMs = 300000;
    const TableFigures reference =
        measureTable([rows] { return new ConstantModel(int(rows), JobsModel::ColumnCount); },
                     [](QAbstractItemModel *, int) { return true; }, steps, firstPaintTimeoutMs,
                     [](QAbstractItemModel *) { return true; }, &JobsPage::configureTable);
    WorkerThread<JobsReader> reader(QStringLiteral("jobs reader"), databasePath);
    const TableFigures jobs = measureTable(
        [&reader] {
            auto *model = new JobsModel;
            model->attach(reader.worker());
            model->setQuery(JobsQuery{});
            return model;
        },
        [](QAbstractItemModel *model, int row) {
            return model->index(row, 0).data(JobsModel::LoadedRole).toBool();
        },
        steps, firstPaintTimeoutMs,
        [](QAbstractItemModel *model) { return !static_cast<JobsModel *>(model)->isLoading(); },
        &JobsPage::configureTable);
    if (!jobs.loaded)
        note(QStringLiteral("the Jobs model did not show its rows within the timeouts"));
    if (g_smoke && !jobs.loaded)
        die(QStringLiteral("the Jobs model never showed its rows"));

    const QString size = QStringLiteral("%L1 active operations").arg(rows);
    note(QStringLiteral("Jobs scroll steps (ms), reference: p50 %1, p95 %2, max %3; Jobs: p50 %4,"
                        " p95 %5, max %6")
             .arg(number(percentile(reference.stepMs, 0.5), 2),
                  number(percentile(reference.stepMs, 0.95), 2),
                  number(percentile(reference.stepMs, 1.0), 2),
                  number(percentile(jobs.stepMs, 0.5), 2), number(percentile(jobs.stepMs, 0.95), 2),
                  number(percentile(jobs.stepMs, 1.0), 2)));
    note(QStringLiteral("Jobs: first rows known after %1, shown %2 later; every row known after %3;"
                        " VmRSS after the steps %4 (reference %5)")
             .arg(ms(jobs.rowsKnownMs), ms(jobs.firstPaintMs - jobs.rowsKnownMs),
                  ms(jobs.allRowsKnownMs), megabytes(jobs.rssBytes),
                  megabytes(reference.rssBytes)));

    report(QStringLiteral("jobs first paint, QTableView over JobsModel (%1)").arg(size),
           QStringLiteral("constant model: %1").arg(ms(reference.firstPaintMs)),
           ms(jobs.firstPaintMs), ratioText(jobs.firstPaintMs / reference.firstPaintMs),
           QStringLiteral("< 100 ms"), jobs.loaded && jobs.firstPaintMs < 100);
    report(QStringLiteral("jobs jump to the end: scrollToBottom, last rows shown"),
           QStringLiteral("constant model: %1").arg(ms(reference.jumpMs)), ms(jobs.jumpMs),
           ratioText(jobs.jumpMs / reference.jumpMs), QStringLiteral("(info)"), jobs.loaded);
    const double referenceP95 = percentile(reference.stepMs, 0.95);
    const double jobsP95 = percentile(jobs.stepMs, 0.95);
    report(QStringLiteral("jobs scroll step p95 (%1 steps: random jumps, page downs)")
               .arg(jobs.stepMs.size()),
           QStringLiteral("constant model: %1").arg(ms(referenceP95)),
           QStringLiteral("%1 (p50 %2)").arg(ms(jobsP95), ms(percentile(jobs.stepMs, 0.5))),
           ratioText(jobsP95 / referenceP95), QStringLiteral("< 16 ms"),
           jobs.loaded && jobsP95 < 16);
}

// ---------------------------------------------------------------------------------------
// Overview charts

const QStringList kPartitions{
    QStringLiteral("project-read / tenant-1"),
    QStringLiteral("project-read / tenant-2"),
    QStringLiteral("project-read / tenant-3"),
    QStringLiteral("uploads / eu"),
    QStringLiteral("uploads / us"),
    QStringLiteral("reports"),
};
const QStringList kWaitSources{
    QStringLiteral("retry-after"), QStringLiteral("ratelimit"), QStringLiteral("x-ratelimit"),
    QStringLiteral("problem"),     QStringLiteral("backoff"),   QStringLiteral("queue"),
};

// A busy stream as the live reader sees it: every bucket of the range has something in
// every series, past buckets stay as they were, the newest grows as time passes, and a
// new bucket starts on the bucket grid. Final failures grow now and then.
LiveSnapshot denseSnapshot(const OverviewPage::Range &range, qint64 nowMs)
{
    LiveSnapshot snapshot;
    MetricsSnapshot &m = snapshot.metrics;
    m.bucketMs = range.bucketMs;
    m.toMs = nowMs + 1;
    m.fromMs = (nowMs - range.rangeMs) / m.bucketMs * m.bucketMs;
    m.bucketCount = int((m.toMs - m.fromMs + m.bucketMs - 1) / m.bucketMs);
    m.nowMs = nowMs;
    m.maxInFlight = 16;
    const double newestShare =
        double(m.toMs - m.bucketStartMs(m.bucketCount - 1)) / double(m.bucketMs);
    const auto series = [&m, newestShare](int seed, qint64 scale) {
        QList<qint64> values(m.bucketCount);
        for (int b = 0; b < m.bucketCount; ++b) {
            const qint64 bucket = m.bucketStartMs(b) / m.bucketMs;
            const double wave = std::sin(double(bucket) * 0.21 + seed) + 1.2;
            const double full = wave * double(scale) + double((bucket * 7 + seed * 13) % 11);
            values[b] = qint64(b == m.bucketCount - 1 ? full * newestShare : full);
        }
        return values;
    };
    const qint64 minutes = m.bucketMs / 60000;
    m.tooManyRequests = series(1, 40 * minutes);
    m.unavailable = series(2, 8 * minutes);
    for (int p = 0; p < kPartitions.size(); ++p) {
        m.tooManyRequestsByPartition.insert(kPartitions.at(p), series(10 + p, 6 * minutes));
        m.unavailableByPartition.insert(kPartitions.at(p), series(20 + p, minutes));
    }
    for (int s = 0; s < kWaitSources.size(); ++s)
        m.waitMsBySource.insert(kWaitSources.at(s), series(30 + s, 20000 * minutes));
    for (const qint64 v : series(40, 6))
        m.peakInFlight.append(int(std::min<qint64>(v, 16)));
    const char *const reasons[] = {"http_400",           "http_404", "http_409", "http_422",
                                   "attempts_exhausted", "deadline", "tls",      "dns"};
    for (int r = 0; r < 8; ++r)
        m.finalFailuresByReason.insert(QLatin1String(reasons[r]), 3 + 4 * r + nowMs / 7000 % 3);
    m.attempts = 1000 * m.bucketCount;
    m.successes = 800 * m.bucketCount;
    snapshot.counts.insert(OperationState::Waiting, 120 + nowMs / 1000 % 7);
    snapshot.counts.insert(OperationState::Parked, 4);
    snapshot.failedToday = 37;
    return snapshot;
}

QList<QChartView *> chartViews(const OverviewPage &page)
{
    QList<QChartView *> views;
    for (const char *name : {"throttleChart", "waitChart", "failureChart", "inFlightChart"})
        views.append(page.findChild<QChartView *>(QLatin1String(name)));
    return views;
}

// Counts the paints of the chart views: what an update redraws, and whether anything
// was left to draw after it.
class PaintCounter final : public QObject
{
public:
    explicit PaintCounter(const QList<QChartView *> &views)
    {
        for (QChartView *view : views) {
            view->viewport()->installEventFilter(this);
            m_painted.insert(view->viewport(), 0);
        }
    }
    void reset()
    {
        for (auto it = m_painted.begin(); it != m_painted.end(); ++it)
            it.value() = 0;
    }
    int paints() const
    {
        int total = 0;
        for (const int n : m_painted)
            total += n;
        return total;
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && m_painted.contains(watched))
            ++m_painted[watched];
        return false;
    }

private:
    QHash<QObject *, int> m_painted;
};

// One update as the event loop runs it: showSnapshot, then the posted events it caused
// (the scenes' queued updates, chart layouts, the window's repaint of what changed), and
// those that these posted in turn.
void updateAndRepaint(OverviewPage &page, const LiveSnapshot &snapshot)
{
    page.showSnapshot(snapshot);
    for (int pass = 0; pass < 3; ++pass)
        QCoreApplication::sendPostedEvents();
}

// The lines (and areas) one chart view draws, with their pens and brushes.
struct ChartLines
{
    QSize size;
    QRectF plot;
    bool antialiased = false; // as the view draws
    QList<QList<QPointF>> lines;
    QList<QPen> pens;
    QList<QPair<QList<QPointF>, QList<QPointF>>> areas;
    QList<QPen> areaPens;
    QList<QBrush> areaBrushes;
};

ChartLines linesOf(QChartView *view)
{
    ChartLines out;
    out.size = view->viewport()->size();
    out.plot = view->chart()->plotArea();
    out.antialiased = view->renderHints().testFlag(QPainter::Antialiasing);
    const QList<QAbstractSeries *> all = view->chart()->series();
    for (QAbstractSeries *series : all) {
        if (auto *line = qobject_cast<QLineSeries *>(series)) {
            out.lines.append(line->points());
            out.pens.append(line->pen());
        } else if (auto *area = qobject_cast<QAreaSeries *>(series)) {
            // Without a lower line an area reaches down to zero.
            QList<QPointF> lower;
            if (area->lowerSeries())
                lower = area->lowerSeries()->points();
            else if (const QList<QPointF> upper = area->upperSeries()->points(); !upper.isEmpty())
                lower = {QPointF(upper.first().x(), 0), QPointF(upper.last().x(), 0)};
            out.areas.append({area->upperSeries()->points(), lower});
            out.areaPens.append(area->pen());
            out.areaBrushes.append(area->brush());
        }
    }
    return out;
}

int pointCount(const QList<ChartLines> &charts)
{
    int n = 0;
    for (const ChartLines &c : charts) {
        for (const QList<QPointF> &line : c.lines)
            n += int(line.size());
        for (const auto &area : c.areas)
            n += int(area.first.size() + area.second.size());
    }
    return n;
}

// The reference: the same points with the same pens and brushes, antialiased as the
// charts are, on images of the views' sizes (kept from one update to the next, as a
// backing store is). A wide pen draws segment by segment: QPainter::drawPolyline of a
// wide antialiased pen costs more than linear time in the point count.
void drawReference(const QList<ChartLines> &charts, QList<QImage> &images)
{
    for (int c = 0; c < charts.size(); ++c) {
        const ChartLines &chart = charts.at(c);
        QImage &image = images[c];
        if (image.size() != chart.size)
            image = QImage(chart.size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing, chart.antialiased);
        double minX = std::numeric_limits<double>::max();
        double maxX = std::numeric_limits<double>::lowest();
        double maxY = 1;
        const auto extend = [&](const QList<QPointF> &points) {
            for (const QPointF &p : points) {
                minX = std::min(minX, p.x());
                maxX = std::max(maxX, p.x());
                maxY = std::max(maxY, p.y());
            }
        };
        for (const QList<QPointF> &line : chart.lines)
            extend(line);
        for (const auto &area : chart.areas)
            extend(area.first);
        const double sx = chart.plot.width() / std::max(1.0, maxX - minX);
        const double sy = chart.plot.height() / maxY;
        const auto mapped = [&](const QList<QPointF> &points) {
            QPolygonF polygon;
            polygon.reserve(points.size());
            for (const QPointF &p : points)
                polygon.append(QPointF(chart.plot.left() + (p.x() - minX) * sx,
                                       chart.plot.bottom() - p.y() * sy));
            return polygon;
        };
        for (int l = 0; l < chart.lines.size(); ++l) {
            const QPolygonF polyline = mapped(chart.lines.at(l));
            painter.setPen(chart.pens.at(l));
            if (chart.pens.at(l).widthF() <= 1) {
                painter.drawPolyline(polyline);
                continue;
            }
            for (qsizetype i = 1; i < polyline.size(); ++i)
                painter.drawLine(polyline.at(i - 1), polyline.at(i));
        }
        for (int a = 0; a < chart.areas.size(); ++a) {
            QPolygonF polygon = mapped(chart.areas.at(a).first);
            const QPolygonF lower = mapped(chart.areas.at(a).second);
            for (qsizetype i = lower.size() - 1; i >= 0; --i)
                polygon.append(lower.at(i));
            painter.setPen(chart.areaPens.at(a));
            painter.setBrush(chart.areaBrushes.at(a));
            painter.drawPolygon(polygon);
        }
    }
}

struct UpdateTimes
{
    std::vector<double> cpuMs;
    std::vector<double> wallMs;
};

void benchCharts(int updates)
{
    const SystemClock clock;
    OverviewPage page(clock);
    page.resize(kPageWidth, kPageHeight);
    page.show();
    QCoreApplication::processEvents();
    const QList<QChartView *> views = chartViews(page);
    if (views.contains(nullptr))
        die(QStringLiteral("the Overview page has no chart view of that name"));
    PaintCounter counter(views);
    // On the grid of the longest bucket, so that half way through the updates a new
    // bucket starts at every range and the window moves by one bucket.
    const QList<OverviewPage::Range> ranges = OverviewPage::ranges();
    qint64 grid = 1;
    for (const OverviewPage::Range &range : ranges)
        grid = std::max(grid, range.bucketMs);
    const qint64 boundary = QDateTime::currentMSecsSinceEpoch() / grid * grid;
    for (int r = 0; r < ranges.size(); ++r) {
        const OverviewPage::Range &range = ranges.at(r);
        page.setRangeIndex(r);
        UpdateTimes measured;
        std::vector<double> firstCpuMs;
        double movedCpuMs = 0;
        int paints = 0;
        int latePaints = 0;
        qint64 fromMs = -1;
        UpdateTimes reference;
        QList<QImage> images(views.size());
        QList<ChartLines> charts;
        // Two updates first, not counted: the first at a range moves every axis (and, at
        // the first range, adds the partition series). The reference draws what each
        // update left in the charts right after it, so that both see the same load.
        for (int u = -2; u < updates; ++u) {
            const qint64 now = boundary + (u - updates / 2) * 1000 + 500;
            const LiveSnapshot snapshot = denseSnapshot(range, now);
            QElapsedTimer wall;
            wall.start();
            counter.reset();
            const double cpuStart = cpuMs();
            updateAndRepaint(page, snapshot);
            const double cpu = cpuMs() - cpuStart;
            const double elapsed = millis(wall);
            const int painted = counter.paints();
            QCoreApplication::processEvents();
            latePaints += counter.paints() - painted;
            if (u < 0) {
                firstCpuMs.push_back(cpu);
            } else {
                measured.cpuMs.push_back(cpu);
                measured.wallMs.push_back(elapsed);
                paints += painted;
                if (fromMs >= 0 && snapshot.metrics.fromMs != fromMs)
                    movedCpuMs = cpu;
            }
            fromMs = snapshot.metrics.fromMs;

            charts.clear();
            for (QChartView *view : views)
                charts.append(linesOf(view));
            QElapsedTimer referenceWall;
            referenceWall.start();
            const double referenceStart = cpuMs();
            drawReference(charts, images);
            if (u >= 0) {
                reference.cpuMs.push_back(cpuMs() - referenceStart);
                reference.wallMs.push_back(millis(referenceWall));
            }
        }
        if (page.throttleTotalSeries()->count() == 0)
            die(QStringLiteral("the 429 series stayed empty at %1").arg(range.label));
        if (latePaints > 0)
            note(QStringLiteral("%1 chart paints came after the measured part of the updates")
                     .arg(latePaints));

        const double median = percentile(measured.cpuMs, 0.5);
        const double worst = percentile(measured.cpuMs, 1.0);
        const double referenceMedian = percentile(reference.cpuMs, 0.5);
        note(QStringLiteral("%1: %2 buckets, %3 points in 4 charts, %4 chart paints per update;"
                            " CPU: first updates %5 and %6, the update that moved the window a"
                            " bucket %7; wall: median %8, max %9; reference wall median %10")
                 .arg(range.label)
                 .arg(denseSnapshot(range, boundary).metrics.bucketCount)
                 .arg(pointCount(charts))
                 .arg(number(double(paints) / double(measured.cpuMs.size()), 1))
                 .arg(ms(firstCpuMs.at(0)), ms(firstCpuMs.at(1)), ms(movedCpuMs),
                      ms(percentile(measured.wallMs, 0.5)), ms(percentile(measured.wallMs, 1.0)),
                      ms(percentile(reference.wallMs, 0.5))));
        report(QStringLiteral("chart update, CPU, %1 (%2 updates)")
                   .arg(range.label.toLower())
                   .arg(measured.cpuMs.size()),
               QStringLiteral("QPainter, same points: %1").arg(ms(referenceMedian)),
               QStringLiteral("median %1, max %2").arg(ms(median), ms(worst)),
               ratioText(median / referenceMedian), QStringLiteral("<= 4 ms, max"), worst <= 4);
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const qint64 rows = option(args, QStringLiteral("--rows"),
                               g_smoke ? QStringLiteral("5000") : QStringLiteral("1000000"))
                            .toLongLong();
    const QString which = option(args, QStringLiteral("--only"), QString());
    QTemporaryDir dir;
    if (!dir.isValid() || rows <= 0 || rows > INT_MAX)
        die(QStringLiteral("no temporary folder, or a bad --rows"));
    if (args.contains(QStringLiteral("--keep"))) {
        dir.setAutoRemove(false);
        note(QStringLiteral("files kept in %1").arg(dir.path()));
    }
    note(QStringLiteral("load average: %1").arg(loadAverage()));

    if (which.isEmpty() || which == QLatin1String("history")) {
        const QString db = dir.filePath(QStringLiteral("history.db"));
        QElapsedTimer seedTimer;
        seedTimer.start();
        seedAttempts(db, rows);
        note(QStringLiteral("seeded %1 attempts in %2 s")
                 .arg(rows)
                 .arg(number(seconds(seedTimer), 1)));
        benchHistory(db, rows, g_smoke ? 10 : 200);
    }
    if (which.isEmpty() || which == QLatin1String("jobs")) {
        const qint64 jobs = option(args, QStringLiteral("--jobs"),
                                   g_smoke ? QStringLiteral("5000") : QStringLiteral("100000"))
                                .toLongLong();
        if (jobs <= 0 || jobs > INT_MAX)
            die(QStringLiteral("a bad --jobs"));
        const QString db = dir.filePath(QStringLiteral("jobs.db"));
        QElapsedTimer seedTimer;
        seedTimer.start();
        seedOperations(db, jobs);
        note(QStringLiteral("seeded %1 operations in %2 s")
                 .arg(jobs)
                 .arg(number(seconds(seedTimer), 1)));
        benchJobs(db, jobs, g_smoke ? 10 : 200);
    }
    if (which.isEmpty() || which == QLatin1String("chart"))
        benchCharts(g_smoke ? 5 : 50);
    return g_failures > 0 ? 1 : 0;
}
