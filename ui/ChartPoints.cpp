#include "ui/ChartPoints.h"

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

} // namespace cooldown::chart
