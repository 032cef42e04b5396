// SPDX-License-Identifier: Apache-2.0
#include "ui/ChartPoints.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

#include <algorithm>

namespace cooldown::chart {

QList<QPointF> decimate(const QList<QPointF> &points, int maxPoints)
{
    maxPoints = std::max(maxPoints, 2);
    if (points.size() <= maxPoints)
        return points;
    const qsizetype runs = maxPoints / 2;
    QList<QPointF> out;
    out.reserve(runs * 2);
    for (qsizetype r = 0; r < runs; ++r) {
        const qsizetype begin = points.size() * r / runs;
        const qsizetype end = points.size() * (r + 1) / runs;
        if (begin >= end)
            continue;
        qsizetype low = begin;
        qsizetype high = begin;
        for (qsizetype i = begin + 1; i < end; ++i) {
            if (points.at(i).y() < points.at(low).y())
                low = i;
            if (points.at(i).y() > points.at(high).y())
                high = i;
        }
        out.append(points.at(std::min(low, high)));
        if (low != high)
            out.append(points.at(std::max(low, high)));
    }
    return out;
}

QList<QPointF> steps(const QList<double> &values, qint64 firstStartMs, qint64 bucketMs,
                     qint64 endMs, qint64 originMs)
{
    QList<QPointF> out;
    out.reserve(values.size() * 2);
    for (int b = 0; b < values.size(); ++b) {
        const qint64 start = firstStartMs + qint64(b) * bucketMs;
        if (start >= endMs)
            break;
        const qint64 end = std::min(start + bucketMs, endMs);
        out.append(QPointF(double(start - originMs), values.at(b)));
        out.append(QPointF(double(end - originMs), values.at(b)));
    }
    return out;
}

namespace {

constexpr qint64 kMinuteMs = 60000;
constexpr qint64 kHourMs = 60 * kMinuteMs;
constexpr qint64 kDayMs = 24 * kHourMs;

// The smallest round step that cuts spanMs into at most kMaxTimeIntervals.
qint64 roundStep(qint64 spanMs)
{
    static const qint64 steps[] = {
        kMinuteMs, 2 * kMinuteMs, 5 * kMinuteMs, 10 * kMinuteMs, 15 * kMinuteMs, 30 * kMinuteMs,
        kHourMs,   2 * kHourMs,   3 * kHourMs,   4 * kHourMs,    6 * kHourMs,    12 * kHourMs,
        kDayMs,    2 * kDayMs,    7 * kDayMs,    14 * kDayMs,    28 * kDayMs};
    for (const qint64 step : steps) {
        if (spanMs <= step * kMaxTimeIntervals)
            return step;
    }
    return (spanMs + kMaxTimeIntervals - 1) / kMaxTimeIntervals;
}

QString agoLabel(qint64 agoMs, qint64 stepMs)
{
    if (agoMs == 0)
        return QCoreApplication::translate("TimeTicks", "now");
    // U+2212 MINUS SIGN: the labels read as times before now.
    if (stepMs < kHourMs)
        return QCoreApplication::translate("TimeTicks", "\u2212%1 min").arg(agoMs / kMinuteMs);
    if (stepMs < kDayMs)
        return QCoreApplication::translate("TimeTicks", "\u2212%1 h").arg(agoMs / kHourMs);
    return QCoreApplication::translate("TimeTicks", "\u2212%1 d").arg(agoMs / kDayMs);
}

} // namespace

QList<TimeTick> slidingTicks(qint64 rangeMs, qint64 spanMs)
{
    QList<TimeTick> ticks;
    if (rangeMs <= 0 || spanMs <= 0)
        return ticks;
    const qint64 step = roundStep(rangeMs);
    for (qint64 ago = (std::min(rangeMs, spanMs) / step) * step; ago >= 0; ago -= step) {
        if (spanMs - ago > 0)
            ticks.append({spanMs - ago, agoLabel(ago, step)});
    }
    return ticks;
}

QList<TimeTick> clockTicks(qint64 fromMs, qint64 spanMs)
{
    QList<TimeTick> ticks;
    if (spanMs <= 0)
        return ticks;
    const qint64 step = roundStep(spanMs);
    const qint64 toMs = fromMs + spanMs;
    const QDateTime from = QDateTime::fromMSecsSinceEpoch(fromMs).toLocalTime();
    const QDateTime to = QDateTime::fromMSecsSinceEpoch(toMs - 1).toLocalTime();
    // Date formats are the translator's: "d MMM" reads "M月d日" in Japanese.
    const QString format =
        step >= kDayMs ? QCoreApplication::translate("TimeTicks", "d MMM", "date format")
        : from.date() == to.date() ? QStringLiteral("HH:mm")
        : spanMs <= 7 * kDayMs
            ? QCoreApplication::translate("TimeTicks", "ddd HH:mm", "date format")
            : QCoreApplication::translate("TimeTicks", "d MMM HH:mm", "date format");
    // Round local times: steps from the local midnight before the window (a week's steps
    // from the Monday before it).
    QDate origin = from.date();
    if (step >= 7 * kDayMs)
        origin = origin.addDays(1 - origin.dayOfWeek());
    const qint64 originMs = origin.startOfDay().toMSecsSinceEpoch();
    const QLocale locale;
    for (qint64 t = originMs + (std::max<qint64>(0, fromMs - originMs) + step - 1) / step * step;
         t <= toMs; t += step) {
        const QString label =
            locale.toString(QDateTime::fromMSecsSinceEpoch(t).toLocalTime(), format);
        if (t > fromMs && (ticks.isEmpty() || ticks.constLast().label != label))
            ticks.append({t - fromMs, label});
    }
    return ticks;
}

} // namespace cooldown::chart
