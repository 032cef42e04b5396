// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/time/MaintenanceWindow.h"

#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace cooldown {

class JsonReader;
struct EndpointConfig;

// One entry of the workspace's "maintenance" list (docs/maintenance.md): a partner's
// announced window, when the endpoints it names wait instead of being sent.
struct MaintenanceConfig
{
    QString id;
    QString reason; // shown with the hold; "maintenance <id>" when not given
    // The endpoints it holds, resolved at load from its "endpoints" and "hosts" (an
    // endpoint named by either); every endpoint when it names neither.
    QStringList endpointIds;
    MaintenanceWindow window;

    // What the hold says: the reason given, else the window's id.
    QString holdReason() const;
};

// Reads the "maintenance" array at path; each window's endpoints and hosts must name
// endpoints of `endpoints`. Failures go to r, naming the path of what was wrong.
QList<MaintenanceConfig> readMaintenance(const QJsonValue &value, const QString &path,
                                         const QList<EndpointConfig> &endpoints, JsonReader &r);

} // namespace cooldown
