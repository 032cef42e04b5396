// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/IncidentRecords.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

class Database;

// The store's part for incidents (docs/incidents.md): failures that share a cause, for
// the whole fleet, and the fleet's turns of each alert target. It owns the tables
// incidents, incident_endpoints, incident_signals and alert_turns, and nothing else;
// every call runs on the store's connection and is nullopt on failure, with why in the
// store's lastError().
class Incidents final
{
public:
    explicit Incidents(Database &database) : m_db(database) {}

    // In one transaction: each failure is noted for its cause and endpoint; a cause
    // whose failures cover rule.minIntegrations endpoints within rule.windowMs opens an
    // incident, unless one is open for it, which then gains the endpoint; each cleared
    // cause closes its open incident, if any, and forgets its failures. Only one worker
    // opens (and one closes) an incident, however many note it at once:
    // IncidentChanges::opened and ::closed are this call's.
    std::optional<IncidentChanges> note(const QList<IncidentSignal> &failures,
                                        const QStringList &clearedCauses, const IncidentRule &rule,
                                        qint64 nowMs, const QString &workerId);
    // The open incidents, or those opened since sinceMs (open ones included whenever
    // they opened), newest first, at most limit.
    std::optional<QList<IncidentRecord>> list(bool openOnly, qint64 sinceMs = 0, int limit = 1000);
    // The causes with failures noted since sinceMs (whether or not an incident is open
    // for them), sorted: a success of one of them clears what was noted.
    std::optional<QStringList> signalCauses(qint64 sinceMs);
    // Notes that the open incident's alert goes now: true for the one worker whose call
    // noted it, false for every other and once the incident has closed.
    std::optional<bool> markAlerted(qint64 incidentId, qint64 nowMs);
    // Whether an alert of kind may go to the target alertId now: true, and noted, when
    // none went in the last minIntervalMs, for the whole fleet.
    std::optional<bool> takeAlertTurn(const QString &alertId, const QString &kind, qint64 nowMs,
                                      qint64 minIntervalMs);

private:
    // The phases of note(): the causes whose open incident this call closed; the causes
    // whose incident this call opened; what workerId closed at nowMs.
    std::optional<QSet<QString>> closeCleared(const QStringList &clearedCauses, qint64 nowMs,
                                              const QString &workerId);
    std::optional<QSet<QString>> noteFailures(const QList<IncidentSignal> &failures,
                                              const IncidentRule &rule, qint64 nowMs,
                                              const QString &workerId);
    std::optional<QList<IncidentRecord>> closedBy(const QString &workerId, qint64 nowMs);

    Database &m_db;
};

} // namespace cooldown
