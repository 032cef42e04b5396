// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QString>
#include <QtGlobal>

namespace cooldown {

// Whether this machine can reach the network, as the engine's own exchanges tell
// (docs/offline.md): an exchange that finds no route (TransportError::NetworkUnreachable)
// makes it offline, unless another exchange reached a server within the last kProbeMs
// (then only that route is missing: a VPN down, say, and the rest keeps going). Names
// of two or more hosts failing to resolve within kNameWindowMs, with no exchange
// reaching a server meanwhile, make it offline too: a laptop off its Wi-Fi asks a
// local resolver that can reach nobody. One host's name failing is that host's
// problem (a typo, a name gone), and stays an ordinary failure. Any
// exchange that reaches a server, whatever it answers, makes it online again. While offline the
// engine sends one exchange at a time, no more often than every kProbeMs, to find out; the rest
// wait without spending attempts. Back online, it ramps up: a tenth of its permits at first, all of
// them after kRampMs, so that a fleet that was cut off does not arrive as a herd.
//
// Times are the engine's monotonic clock (mono) and wall clock (now) in ms.
class Connectivity
{
public:
    static constexpr qint64 kProbeMs = 5000;
    static constexpr qint64 kRampMs = 60'000;
    static constexpr qint64 kNameWindowMs = 30'000;

    // An exchange found no route. True when this makes the engine offline.
    bool noteUnreachable(qint64 nowMs, qint64 mono);
    // The name of host did not resolve: what that changes. An offline spell that failed
    // names began ends when only one host's name has failed within kNameWindowMs (the
    // probes find one name missing, not the network).
    enum class Change
    {
        None,
        WentOffline,
        CameOnline,
    };
    Change noteNameFailure(const QString &host, qint64 nowMs, qint64 mono);
    // What the system says of the network (QNetworkInformation: NetworkManager on
    // Linux), where it says anything. Disconnected is offline at once, before an
    // exchange is spent to learn it; probes still look every kProbeMs, and one that
    // reaches a server is believed over the system. Reachable again ends a spell at
    // once, ramping up as after any.
    Change noteSystemReachable(bool reachable, qint64 nowMs, qint64 mono);
    // An exchange reached a server. True when this ends an offline spell.
    bool noteReached(qint64 mono);

    bool isOffline() const { return m_offline; }
    qint64 offlineSinceMs() const { return m_offline ? m_offlineSinceMs : -1; }
    // How long the last offline spell lasted, once it ended.
    qint64 lastSpellMs() const { return m_lastSpellMs; }

    // How many exchanges may be under way now, of `permits`: while offline one, once
    // the probe time has come (else none); while ramping up, a share rising from a
    // tenth to all; otherwise all of them.
    int allowed(int permits, qint64 mono) const;
    // When allowed() next grows, or -1 when it will not by itself.
    qint64 nextChangeAt(qint64 mono) const;

private:
    bool m_offline = false;
    qint64 m_offlineSinceMs = -1;
    qint64 m_offlineSinceMono = -1;
    qint64 m_probeAtMono = -1;
    qint64 m_onlineAtMono = -1; // when the last offline spell ended
    qint64 m_lastSpellMs = 0;
    qint64 m_reachedAtMono = -1; // the last exchange that reached a server
    bool m_offlineByNames = false;
    QHash<QString, qint64> m_nameFailedAtMono; // by host, the last failed lookup

    bool reachedWithin(qint64 mono, qint64 windowMs) const
    {
        return m_reachedAtMono >= 0 && mono - m_reachedAtMono < windowMs;
    }
    void goOffline(qint64 nowMs, qint64 mono);
    void comeOnline(qint64 mono);
};

} // namespace cooldown
