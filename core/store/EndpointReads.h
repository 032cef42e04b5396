// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/Records.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

class Database;

// One endpoint's work that has not ended, as EndpointReads::openWork reads it.
struct EndpointOpenWork
{
    qint64 scheduled = 0;
    qint64 running = 0;
    qint64 waiting = 0; // waiting to retry
    qint64 parked = 0;  // waiting for an operator
    // The earliest next attempt of its scheduled or waiting operations; -1: none.
    qint64 nextAttemptAtMs = -1;
};

// The store's part for where each endpoint stands, as the dashboard's Integrations view
// shows it (ui/IntegrationsReader), the drain estimate and `cooldown pause` read it.
// Each is one indexed query whose cost follows the open work or a bounded slice of one
// endpoint's history, never the whole history. Reads only; every call runs on the
// store's connection and is nullopt on failure, with why in the store's lastError().
class EndpointReads final
{
public:
    explicit EndpointReads(Database &database) : m_db(database) {}

    // Every endpoint's open work, read through the state index: the cost follows the
    // open operations, not the history.
    std::optional<QHash<QString, EndpointOpenWork>> openWork();
    // The next tick of every periodic endpoint.
    std::optional<QHash<QString, qint64>> nextTicks();
    // Every endpoint the store has a row for (a worker ran it, or it was paused or held).
    std::optional<QStringList> ids();
    // The endpoints an operator paused.
    std::optional<QSet<QString>> paused();
    // The state (succeeded or failed) of the endpoint's latest operation that ended in
    // either; an empty inner optional when none has. Walks the endpoint's operations
    // from the newest and stops at the first that ended.
    std::optional<std::optional<OperationState>> lastEndedState(const QString &endpointId);
    // When the endpoint's latest successful attempt that started at or after
    // sinceStartedMs finished (-1: none such). Walks the endpoint's attempts from the
    // newest (attempts_by_endpoint) and stops at the first success.
    std::optional<qint64> lastSuccessAtMs(const QString &endpointId, qint64 sinceStartedMs = -1);
    // The durations of the endpoint's latest `limit` exchanges (attempts with a
    // duration, lease conflicts included: they did leave) that started in
    // [fromMs, toMs), newest first. Rollups keep only sums; percentiles need values.
    std::optional<QList<qint64>> exchangeDurations(const QString &endpointId, qint64 fromMs,
                                                   qint64 toMs, int limit);

private:
    Database &m_db;
};

} // namespace cooldown
