// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

namespace cooldown {

// a / b rounded down (b > 0), before the epoch too: which step of b a time is in.
constexpr qint64 floorDiv(qint64 a, qint64 b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// The start of the step of `step` ms that ms is in (minutes, buckets, seconds).
constexpr qint64 floorTo(qint64 ms, qint64 step)
{
    return floorDiv(ms, step) * step;
}

} // namespace cooldown
