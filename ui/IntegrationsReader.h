// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/CredentialBroker.h"
#include "core/query/ChangePoller.h"
#include "core/query/QueryStore.h"

#include <QHash>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace cooldown {

class Clock;

// An endpoint of the workspace as the Integrations view lists it: its partition is the
// one the scheduler paces it in (the policy's, or the host's learned one).
struct IntegrationEndpoint
{
    QString id;
    QString name;
    QString policyId;
    QString partitionKey;
    QString credentialId;       // the credential its requests carry, or empty
    qint64 latencyBudgetMs = 0; // docs/checks.md; 0: none
};

// What the store says about one endpoint: a plain value, handed from the reader's
// thread to the window by a queued signal. -1 means "none" for times and durations.
struct IntegrationStatus
{
    QString endpointId;
    QString name;
    QString policyId;
    QString partitionKey;
    QString credentialId;
    qint64 latencyBudgetMs = 0; // docs/checks.md; 0: none
    // Not the store's but the engine's (EngineState::credentials), as this worker holds
    // it; the model fills it in. Phase Idle when the endpoint has no credential.
    CredentialState credential;
    bool paused = false; // an operator paused the endpoint
    // The endpoint held for a while: a maintenance window, or an operator's pause for a
    // time (docs/maintenance.md); 0: not held.
    qint64 endpointHeldUntilMs = 0;
    QString endpointHoldReason;
    // The cause of the open incident that blocks it ("host:api.example.com"), and since
    // when; empty: none (docs/incidents.md).
    QString blockedBy;
    qint64 blockedSinceMs = -1;
    qint64 heldUntilMs = 0; // its partition's server hold (0: none ever placed)
    QString holdReason;
    bool lastEndedFailed = false; // its latest operation that ended, ended failed
    EndpointOpenWork open;        // scheduled, running, waiting, parked, next attempt
    qint64 nextTickAtMs = -1;     // a periodic endpoint's next operation
    qint64 lastSuccessAtMs = -1;  // when its latest successful attempt finished
    // Over the range, from the rollups:
    qint64 attempts = 0;
    qint64 throttled = 0; // answered 429 or 503
    qint64 successes = 0; // attempts that ended their operation in success
    qint64 outcomes = 0;  // attempts that decided an outcome: success, fail or park
    // Exchange durations over the range, from the latest kDurationSample raw attempts.
    qint64 p50Ms = -1;
    qint64 p95Ms = -1;
    int durationSamples = 0;
    bool durationsCapped = false; // the range had more exchanges than the sample
    // The last hour, one entry per minute, oldest first (kSparkMinutes of them).
    QList<int> hourAttempts;
    QList<int> hourThrottled;
};

struct IntegrationsSnapshot
{
    qint64 readAtMs = 0;
    qint64 rangeMs = 0;
    QList<IntegrationStatus> rows; // in the workspace's order
};

// Reads the store for the Integrations view, from a QueryStore of its own on the thread it
// was moved to (ui/WorkerThread.h), like LiveReader: each tick brings the store's change
// token (ChangePoller) and it reads only when another connection committed, or when a new minute
// moved the range. Success rate and 429/503 share come from the rollups (the hourly
// table for ranges of a day and more; what no longer changes is summed once), the
// light's facts from the open operations (state index), the partitions and the
// endpoints; percentiles from a bounded sample of raw attempts (the rollups keep only
// sums), read at most every kSlowReadMs.
class IntegrationsReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IntegrationsReader)

public:
    IntegrationsReader(QString databaseUrl, const Clock &clock,
                       QList<IntegrationEndpoint> endpoints);
    ~IntegrationsReader() override;

    static constexpr int kSparkMinutes = 60;
    // The latest exchanges of each endpoint in the range its percentiles are taken from.
    static constexpr int kDurationSample = 2000;
    // Percentiles are read at most this often while the store keeps changing (and at
    // once when the range changes).
    static constexpr qint64 kSlowReadMs = 10000;
    // Rollups of minutes this far back may still grow: other workers' attempts commit
    // a little after they end.
    static constexpr qint64 kSettleMs = 2 * 60000;

    // Percentile p (0..100) of values, nearest rank; -1 when empty. Sorts values.
    static qint64 percentile(QList<qint64> &values, int p);

public slots:
    void setRange(qint64 rangeMs);
    void setEndpoints(const QList<cooldown::IntegrationEndpoint> &endpoints);
    // What each poll of the ChangePoller runs (ChangePoller::polled).
    void tick(const cooldown::ChangeToken &token);
    // Reads everything now.
    void poll();

signals:
    void snapshotReady(const cooldown::IntegrationsSnapshot &snapshot);
    void failed(const QString &message);

private:
    bool ensureOpen();
    // force reads everything, changed or not.
    void refresh(bool force, bool changed);
    bool readOpenWork();
    bool readRange(qint64 nowMs);
    bool readSpark(qint64 nowMs);
    bool readDurations(qint64 nowMs);
    bool readHolds(qint64 nowMs);
    void fail();

    QueryStore m_store;
    QString m_error; // why the last read failed, for fail()
    const Clock &m_clock;
    QList<IntegrationEndpoint> m_endpoints;
    qint64 m_rangeMs = 24 * 3600 * 1000;
    std::optional<QByteArray> m_token; // the poller's, as last heard
    qint64 m_lastMinute = -1;
    qint64 m_slowReadAtMs = -1;
    bool m_rangeStale = true;
    bool m_slowPending = true;
    // The range's sums up to where its rollups no longer change, read once.
    struct RangeSums
    {
        qint64 attempts = 0;
        qint64 throttled = 0;
        qint64 successes = 0;
        qint64 outcomes = 0;
    };
    QHash<QString, RangeSums> m_settledSums;
    qint64 m_sumsFromMs = -1;
    qint64 m_sumsSettledMs = -1;
    // Per endpoint: attempts before this start need not be searched for a success again.
    QHash<QString, qint64> m_successSearchedFrom;
    QHash<QString, IntegrationStatus> m_rows;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::IntegrationEndpoint)
Q_DECLARE_METATYPE(cooldown::IntegrationsSnapshot)
