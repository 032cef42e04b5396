// SPDX-License-Identifier: Apache-2.0
#include "core/engine/SleepWatch.h"

namespace cooldown {

std::optional<qint64> SleepWatch::note(qint64 bootMs, qint64 mono)
{
    const qint64 gap = (bootMs - m_lastBootMs) - (mono - m_lastMono);
    const bool started = m_started;
    m_started = true;
    m_lastBootMs = bootMs;
    m_lastMono = mono;
    if (!started || gap < kThresholdMs)
        return std::nullopt;
    return gap;
}

} // namespace cooldown
