// SPDX-License-Identifier: Apache-2.0
#pragma once

// The most events any half-open window [t, t + window) holds, for tests of limits
// that promise "at most N in any window".

#include <QList>
#include <QtGlobal>

#include <algorithm>

namespace cooldown::test {

inline int maxInWindow(QList<qint64> times, qint64 window)
{
    std::sort(times.begin(), times.end());
    int best = 0;
    qsizetype first = 0;
    for (qsizetype last = 0; last < times.size(); ++last) {
        while (times[last] - times[first] >= window)
            ++first;
        best = std::max(best, int(last - first + 1));
    }
    return best;
}

} // namespace cooldown::test
