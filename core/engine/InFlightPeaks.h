// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/Store.h"

#include <QList>

#include <map>

namespace cooldown {

// The most exchanges a worker had in flight in each minute, from every change of its
// count: a minute's peak is the highest count it held at any moment of the minute,
// including a count carried into it from the minute before. The scheduler notes each
// change and hands the peaks to its group commit (Store::finishAttempts), which keeps
// them in inflight_peaks (docs/rollups.md).
class InFlightPeaks
{
public:
    // Minutes a count was held through without a change are filled in when the next
    // change (or take) comes, back this far at most.
    static constexpr qint64 kLongestGapMs = 24LL * 3600 * 1000;

    // The count is now `count`, at nowMs.
    void set(qint64 nowMs, int count);
    // The peaks of the minutes since the last take, through nowMs's minute (the count
    // held until now counts in it), oldest first, and forgets them. Minutes with no
    // exchange in flight are left out.
    QList<Store::InFlightPeak> take(qint64 nowMs);

private:
    // The current count held through every minute from the last noted one to nowMs's.
    void holdUntil(qint64 nowMs);

    std::map<qint64, int> m_peaks; // minute start -> peak
    qint64 m_lastMinute = -1;      // the minute the count was last noted in
    int m_count = 0;
};

} // namespace cooldown
