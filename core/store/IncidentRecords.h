// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

namespace cooldown {

// One exchange of an endpoint that failed for a cause other endpoints may share: its
// host did not answer, or answered 500, 502 or 504; its proxy did not let it through
// (docs/incidents.md). cause is "host:NAME" or "proxy:ID".
struct IncidentSignal
{
    QString cause;
    QString endpointId;
    qint64 atMs = 0;
};

// An incident: the endpoints blocked by one cause, from when it opened (enough of them
// failed for it within the window) to when it cleared (an exchange with that cause
// succeeded). closedAtMs is -1 while it is open.
struct IncidentRecord
{
    qint64 id = 0;
    QString cause;
    qint64 openedAtMs = 0;
    qint64 closedAtMs = -1;
    // When its one alert went (Incidents::markAlerted); -1: not yet, or never, for
    // an incident that cleared before its endpoints were gathered.
    qint64 alertedAtMs = -1;
    QString openedBy; // the worker that opened it, and so sent its one alert
    QString closedBy;
    QStringList endpointIds; // sorted

    bool isOpen() const { return closedAtMs < 0; }
};

// What one Store::noteIncidents changed, and what stands after it.
struct IncidentChanges
{
    QList<IncidentRecord> opened; // by this call
    QList<IncidentRecord> closed; // by this call: this worker sends their recovery
    QList<IncidentRecord> open;   // every incident open once the call committed
    QStringList signalled;        // the causes with failures noted in the window, sorted
};

// When failures of one cause open an incident.
struct IncidentRule
{
    int minIntegrations = 3;
    qint64 windowMs = 300000;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::IncidentRecord)
