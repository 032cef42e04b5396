// SPDX-License-Identifier: Apache-2.0
#include "core/engine/SystemReachability.h"

#include <QNetworkInformation>

namespace cooldown {

namespace {

int meaning(QNetworkInformation::Reachability r)
{
    switch (r) {
    case QNetworkInformation::Reachability::Disconnected:
        return 0;
    case QNetworkInformation::Reachability::Local:
    case QNetworkInformation::Reachability::Site:
    case QNetworkInformation::Reachability::Online:
        return 1;
    case QNetworkInformation::Reachability::Unknown:
        break;
    }
    return -1;
}

} // namespace

SystemReachability::SystemReachability(QObject *parent) : QObject(parent)
{
    if (!QNetworkInformation::loadBackendByFeatures(QNetworkInformation::Feature::Reachability))
        return;
    QNetworkInformation *info = QNetworkInformation::instance();
    if (!info)
        return;
    m_backend = info->backendName();
    m_reachable = meaning(info->reachability());
    connect(info, &QNetworkInformation::reachabilityChanged, this,
            [this](QNetworkInformation::Reachability r) { take(meaning(r)); });
}

void SystemReachability::take(int reachable)
{
    if (reachable == m_reachable)
        return;
    m_reachable = reachable;
    if (reachable >= 0)
        emit reachableChanged(reachable == 1);
}

} // namespace cooldown
