#pragma once

#include <QList>
#include <QPointF>

namespace cooldown::chart {

// At most maxPoints points that draw like the input: the points are cut into
// maxPoints / 2 runs of consecutive x and each run keeps its lowest and highest point,
// in x order, so that peaks survive. Points must be sorted by x. About two points per
// pixel column is all a line can show; QXYSeries::replace() of more only costs time.
QList<QPointF> decimate(const QList<QPointF> &points, int maxPoints);

} // namespace cooldown::chart
