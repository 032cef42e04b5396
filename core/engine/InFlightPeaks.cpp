// SPDX-License-Identifier: Apache-2.0
#include "core/engine/InFlightPeaks.h"

#include "core/time/TimeSteps.h"

#include <algorithm>

namespace cooldown {

namespace {

constexpr qint64 kMinuteMs = 60000;

} // namespace

void InFlightPeaks::holdUntil(qint64 nowMs)
{
    const qint64 minute = floorTo(nowMs, kMinuteMs);
    if (m_count > 0) {
        qint64 from = m_lastMinute < 0 ? minute : m_lastMinute + kMinuteMs;
        from = std::max(from, minute - kLongestGapMs);
        for (qint64 m = from; m <= minute; m += kMinuteMs) {
            int &peak = m_peaks[m];
            peak = std::max(peak, m_count);
        }
    }
    m_lastMinute = std::max(m_lastMinute, minute);
}

void InFlightPeaks::set(qint64 nowMs, int count)
{
    holdUntil(nowMs);
    m_count = std::max(0, count);
    if (m_count > 0) {
        int &peak = m_peaks[floorTo(nowMs, kMinuteMs)];
        peak = std::max(peak, m_count);
    }
}

QList<Store::InFlightPeak> InFlightPeaks::take(qint64 nowMs)
{
    holdUntil(nowMs);
    QList<Store::InFlightPeak> out;
    out.reserve(qsizetype(m_peaks.size()));
    for (const auto &[minute, peak] : m_peaks)
        out.append({minute, peak});
    m_peaks.clear();
    return out;
}

} // namespace cooldown
