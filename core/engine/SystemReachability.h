// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>

namespace cooldown {

// What the system says of the network, through QNetworkInformation (NetworkManager on
// Linux, the platform's own elsewhere), for Scheduler::noteSystemReachable
// (docs/offline.md). Where no backend loads (Linux without NetworkManager, a container)
// or it says Unknown, it says nothing, and the engine learns from its exchanges alone.
// Local and Site count as reachable: an integration may well run on the LAN.
class SystemReachability final : public QObject
{
    Q_OBJECT

public:
    explicit SystemReachability(QObject *parent = nullptr);

    // The backend that answers ("networkmanager"), or empty when none loaded.
    QString backendName() const { return m_backend; }
    // What it says now: 1 reachable, 0 disconnected, -1 nothing (no backend, Unknown).
    int reachable() const { return m_reachable; }

signals:
    void reachableChanged(bool reachable);

private:
    void take(int reachable);

    QString m_backend;
    int m_reachable = -1;
};

} // namespace cooldown
