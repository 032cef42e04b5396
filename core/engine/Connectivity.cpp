// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Connectivity.h"

#include <algorithm>

namespace cooldown {

bool Connectivity::noteUnreachable(qint64 nowMs, qint64 mono)
{
    m_probeAtMono = mono + kProbeMs;
    if (m_offline)
        return false;
    // Another exchange got through a moment ago: this route is missing, not the network.
    if (m_reachedAtMono >= 0 && mono - m_reachedAtMono < kProbeMs)
        return false;
    m_offline = true;
    m_offlineSinceMs = nowMs;
    m_offlineSinceMono = mono;
    return true;
}

bool Connectivity::noteReached(qint64 mono)
{
    m_reachedAtMono = mono;
    if (!m_offline)
        return false;
    m_offline = false;
    m_onlineAtMono = mono;
    m_lastSpellMs = mono - m_offlineSinceMono;
    return true;
}

int Connectivity::allowed(int permits, qint64 mono) const
{
    if (m_offline)
        return mono >= m_probeAtMono ? 1 : 0;
    if (m_onlineAtMono < 0 || mono >= m_onlineAtMono + kRampMs)
        return permits;
    // A tenth at first, all at the end of the ramp; never none.
    const double share = 0.1 + 0.9 * double(mono - m_onlineAtMono) / double(kRampMs);
    return std::clamp(int(double(permits) * share), 1, permits);
}

qint64 Connectivity::nextChangeAt(qint64 mono) const
{
    if (m_offline)
        return mono < m_probeAtMono ? m_probeAtMono : -1;
    if (m_onlineAtMono < 0 || mono >= m_onlineAtMono + kRampMs)
        return -1;
    // Looked at again each second of the ramp: the share grows in small steps.
    return std::min(mono + 1000, m_onlineAtMono + kRampMs);
}

} // namespace cooldown
