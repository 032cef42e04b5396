// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/ChartPoints.h"
#include "ui/LiveReader.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QWidget>

#include <functional>
#include <optional>
#include <utility>

class QAreaSeries;
class QBarCategoryAxis;
class QBarSet;
class QChart;
class QChartView;
class QComboBox;
class QCategoryAxis;
class QGraphicsSimpleTextItem;
class QHBoxLayout;
class QLabel;
class QLineSeries;
class QValueAxis;

namespace cooldown {

class Clock;

// Is anything being throttled, who waits and why, what failed for good: four charts
// over a chosen time range and the headline figures above them. It draws what it is
// given (showSnapshot); the time range choice goes out as rangeChanged (the last so
// much, following the clock) or windowChanged (a fixed window chosen with "Custom…").
class OverviewPage final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OverviewPage)

public:
    struct Range
    {
        QString label;
        qint64 rangeMs = 0;
        qint64 bucketMs = 0;
        // A fixed window [fromMs, toMs) rather than the last rangeMs: the custom choice.
        qint64 fromMs = -1;
        qint64 toMs = -1;

        bool isFixed() const { return toMs >= 0; }
    };
    static QList<Range> ranges();
    // The most buckets a custom window is cut into.
    static constexpr int kMaxBuckets = 300;
    // [fromMs, toMs) in the smallest round bucket that keeps to kMaxBuckets.
    static Range customRange(qint64 fromMs, qint64 toMs);
    // "12 Nov 10:00 – 14:00", in local time.
    static QString windowLabel(qint64 fromMs, qint64 toMs, qint64 nowMs);
    using WindowPicker =
        std::function<std::optional<std::pair<qint64, qint64>>(qint64 fromMs, qint64 toMs)>;

    explicit OverviewPage(const Clock &clock, QWidget *parent = nullptr);
    ~OverviewPage() override;

    void showSnapshot(const LiveSnapshot &snapshot);
    void setInFlight(int inFlight, int maxInFlight);
    void setHeldPartitions(int count);
    Range currentRange() const;
    // 0 .. ranges().size() - 1: the ranges; customIndex(): the custom window, if any.
    void setRangeIndex(int index);
    int rangeIndex() const;
    static int customIndex() { return int(ranges().size()); }
    std::optional<Range> customWindow() const { return m_custom; }
    // Makes [fromMs, toMs) the custom choice, and the current one when select is set.
    // False, and nothing changes, when CustomRangeDialog::problem() refuses it.
    bool setCustomWindow(qint64 fromMs, qint64 toMs, bool select = true);
    // What "Custom…" asks with; by default CustomRangeDialog. nullopt: cancelled.
    void setWindowPicker(WindowPicker picker);

    // The chart's line of 429s per minute over every partition (for tests and checks):
    // two points per bucket, at its start and its end (chart::steps).
    const QLineSeries *throttleTotalSeries() const { return m_throttleTotal; }
    // The time axis of the charts: milliseconds from the window's start, labelled.
    const QCategoryAxis *timeAxis() const { return m_timeAxes.value(0); }
    // The window the charts show, [from, to): a fixed window's buckets, or the last so
    // much up to now (to is the snapshot's time; from lies inside the oldest bucket).
    std::pair<qint64, qint64> shownWindow() const
    {
        return {m_shownFromMs, m_shownFromMs + m_timeSpanMs};
    }

signals:
    void rangeChanged(qint64 rangeMs, qint64 bucketMs);
    void windowChanged(qint64 fromMs, qint64 toMs, qint64 bucketMs);

private:
    struct Card
    {
        QLabel *value = nullptr;
        QLabel *caption = nullptr;
    };
    Card addCard(QHBoxLayout *row, const QString &caption, const QString &tip);
    QChartView *makeChartView(QChart *chart, const QString &objectName);
    QCategoryAxis *makeTimeAxis(QChart *chart);
    void setupThrottleChart();
    void setupWaitChart();
    void setupFailureChart();
    void setupInFlightChart();
    void updateStepTitles(qint64 bucketMs);
    void updateThrottleChart(const MetricsSnapshot &m);
    void updateWaitChart(const MetricsSnapshot &m);
    void updateFailureChart(const MetricsSnapshot &m);
    void updateInFlightChart(const MetricsSnapshot &m);
    void placeFailureTotal();
    void updateTimeAxes(const LiveSnapshot &snapshot);
    int pointBudget(const QChartView *view) const;
    QLineSeries *partitionSeries(const QString &partition);
    void onRangeIndexChanged(int index);
    void pickCustomWindow();
    void emitRange();

    const Clock &m_clock;
    WindowPicker m_pickWindow;
    std::optional<Range> m_custom;
    int m_lastIndex = 0; // the range shown while "Custom…" asks
    QComboBox *m_range = nullptr;
    Card m_inFlight;
    Card m_waiting;
    Card m_parked;
    Card m_failedToday;
    Card m_attemptsPerSuccess;
    Card m_held;

    QChartView *m_throttleView = nullptr;
    QChart *m_throttleChart = nullptr;
    QLineSeries *m_throttleTotal = nullptr;
    QLineSeries *m_unavailableTotal = nullptr;
    QHash<QString, QLineSeries *> m_partitionSeries;
    QValueAxis *m_throttleY = nullptr;

    QChartView *m_waitView = nullptr;
    QChart *m_waitChart = nullptr;
    QList<QLineSeries *> m_waitUpper; // the top of each wait group's band, bottom first
    QValueAxis *m_waitY = nullptr;

    QChartView *m_failureView = nullptr;
    QChart *m_failureChart = nullptr;
    QBarSet *m_failureSet = nullptr;
    QBarCategoryAxis *m_failureReasons = nullptr;
    QValueAxis *m_failureX = nullptr;
    QStringList m_failureCategories;
    QGraphicsSimpleTextItem *m_failureTotal = nullptr;

    QChartView *m_inFlightView = nullptr;
    QChart *m_inFlightChart = nullptr;
    QLineSeries *m_inFlightPeak = nullptr;
    QLineSeries *m_inFlightLimit = nullptr;
    QValueAxis *m_inFlightY = nullptr;

    QList<QCategoryAxis *> m_timeAxes;
    QList<chart::TimeTick> m_timeTicks;
    qint64 m_timeSpanMs = -1;
    qint64 m_shownFromMs = -1;
    qint64 m_titledBucketMs = -1;
};

} // namespace cooldown
