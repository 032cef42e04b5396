// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QPointF>
#include <QString>

namespace cooldown::chart {

// At most maxPoints points that draw like the input: the points are cut into
// maxPoints / 2 runs of consecutive x and each run keeps its lowest and highest point,
// in x order, so that peaks survive. Points must be sorted by x. About two points per
// pixel column is all a line can show; QXYSeries::replace() of more only costs time.
QList<QPointF> decimate(const QList<QPointF> &points, int maxPoints);

// A step line of buckets: bucket b covers [firstStartMs + b * bucketMs, the start of the
// next), and is drawn as a horizontal segment over that span, from a point at its start
// to a point at its end, at values[b]; neighbours meet in a vertical edge, and a bucket
// without events is a segment at zero (nothing is interpolated across it). The newest
// bucket ends at endMs when that comes first ("now", so that a bucket still filling is
// not drawn into the future); buckets that start at or after endMs are left out. x is in
// milliseconds from originMs.
QList<QPointF> steps(const QList<double> &values, qint64 firstStartMs, qint64 bucketMs,
                     qint64 endMs, qint64 originMs);

// A labelled tick of a time axis whose values are milliseconds from the window's start.
struct TimeTick
{
    qint64 offsetMs = 0;
    QString label;

    friend bool operator==(const TimeTick &a, const TimeTick &b)
    {
        return a.offsetMs == b.offsetMs && a.label == b.label;
    }
    friend bool operator!=(const TimeTick &a, const TimeTick &b) { return !(a == b); }
};

// The most intervals an axis is cut into.
constexpr int kMaxTimeIntervals = 7;

// The ticks of a window that follows the clock: "now" at its end (spanMs from its
// start) and round steps back from there ("−10 min", "−4 h", "−1 d") to rangeMs before
// it. They stay where they are while the window slides, so the axis is never laid out
// again for a new bucket.
QList<TimeTick> slidingTicks(qint64 rangeMs, qint64 spanMs);

// The ticks of a fixed window [fromMs, fromMs + spanMs): round local times inside it,
// labelled "14:30", "Tue 06:00" or "12 Nov" as the window and the step call for.
QList<TimeTick> clockTicks(qint64 fromMs, qint64 spanMs);

} // namespace cooldown::chart
