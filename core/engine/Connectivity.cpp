// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Connectivity.h"

#include <algorithm>

namespace cooldown {

void Connectivity::goOffline(qint64 nowMs, qint64 mono)
{
    m_offlineByNames = false;
    m_offline = true;
    m_offlineSinceMs = nowMs;
    m_offlineSinceMono = mono;
}

bool Connectivity::noteUnreachable(qint64 nowMs, qint64 mono)
{
    m_probeAtMono = mono + kProbeMs;
    if (m_offline)
        return false;
    // Another exchange got through a moment ago: this route is missing, not the network.
    if (reachedWithin(mono, kProbeMs))
        return false;
    goOffline(nowMs, mono);
    return true;
}

void Connectivity::comeOnline(qint64 mono)
{
    m_offline = false;
    m_offlineByNames = false;
    m_onlineAtMono = mono;
    m_lastSpellMs = mono - m_offlineSinceMono;
}

Connectivity::Change Connectivity::noteNameFailure(const QString &host, qint64 nowMs, qint64 mono)
{
    m_nameFailedAtMono.insert(host.toLower(), mono);
    for (auto it = m_nameFailedAtMono.begin(); it != m_nameFailedAtMono.end();) {
        if (mono - it.value() >= kNameWindowMs)
            it = m_nameFailedAtMono.erase(it);
        else
            ++it;
    }
    if (m_offline) {
        m_probeAtMono = mono + kProbeMs;
        if (m_offlineByNames && m_nameFailedAtMono.size() < 2) {
            comeOnline(mono);
            return Change::CameOnline;
        }
        return Change::None;
    }
    if (m_nameFailedAtMono.size() < 2 || reachedWithin(mono, kNameWindowMs))
        return Change::None;
    m_probeAtMono = mono + kProbeMs;
    goOffline(nowMs, mono);
    m_offlineByNames = true;
    return Change::WentOffline;
}

Connectivity::Change Connectivity::noteSystemReachable(bool reachable, qint64 nowMs, qint64 mono)
{
    if (reachable == !m_offline)
        return Change::None;
    if (reachable) {
        comeOnline(mono);
        return Change::CameOnline;
    }
    m_probeAtMono = mono + kProbeMs;
    goOffline(nowMs, mono);
    return Change::WentOffline;
}

bool Connectivity::noteReached(qint64 mono)
{
    m_reachedAtMono = mono;
    m_nameFailedAtMono.clear();
    if (!m_offline)
        return false;
    comeOnline(mono);
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
