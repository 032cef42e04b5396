// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/CredentialBroker.h"
#include "core/store/Records.h"

#include <QByteArray>
#include <QMap>
#include <QString>

#include <array>
#include <map>
#include <tuple>

namespace cooldown {

// What is read at the moment of a scrape: the engine's and the store's state.
struct ScrapeState
{
    // The database's operations that have not ended, by state (their counts follow
    // the open work; finished ones are counted by the counters above, per worker).
    QMap<OperationState, qint64> operationsByState;
    int inFlight = 0;
    int maxInFlight = 0;
    int perHost = 0;
    int heldPartitions = 0;
    // Endpoints held for a while: a maintenance window, an operator's pause --for
    // (docs/maintenance.md).
    int heldEndpoints = 0;
    // Since when no exchange of this worker reaches the network; -1 while online
    // (docs/offline.md).
    qint64 offlineSinceMs = -1;
    // The fleet's open incidents and the endpoints they block (docs/incidents.md).
    int openIncidents = 0;
    int blockedEndpoints = 0;
    // Each endpoint with a latency budget, and whether its p95 is over it now
    // (docs/checks.md).
    QMap<QString, bool> latencyDegraded;
    // Per policy (never per partition key: label values stay few): the partitions the
    // store knows and the units their buckets hold now, summed.
    QMap<QString, qint64> partitionsByPolicy;
    QMap<QString, qint64> availableUnitsByPolicy;
    // This worker's OAuth credentials (docs/credentials.md), and the operations it
    // holds until one of them has a token; nowMs: when they were read.
    QList<CredentialState> credentials;
    int waitingForCredentials = 0;
    qint64 nowMs = 0;
    // Whether this worker can use its database (docs/database-outages.md): while it
    // cannot, the figures read from it above are left at zero.
    bool databaseUp = true;
};

// The engine's figures in Prometheus' text exposition format (version 0.0.4), for
// `cooldown run --listen`. Counters run from the start of the process and are fed one
// attempt at a time; gauges come from the ScrapeState of each scrape.
//
// Labels are bounded: endpoint ids (configured), status classes, decisions, wait
// sources and final reasons (fixed vocabularies), policy ids (configured). No
// partition key, operation id or URL is ever a label.
class PrometheusMetrics
{
public:
    // The upper bounds of the wait histogram's buckets, in seconds.
    static constexpr std::array<double, 12> kWaitBuckets = {0.1, 0.5, 1,   2,   5,    10,
                                                            30,  60,  300, 900, 3600, 21600};

    void record(const AttemptRecord &attempt);
    // One attempt's record took this long to commit (the group commit's duration).
    void recordStoreWrite(double seconds);
    QByteArray render(const ScrapeState &state) const;

    // "2xx" … "5xx" for a response, "none" when there was none.
    static QString statusClass(int status);

private:
    struct Histogram
    {
        std::array<qint64, kWaitBuckets.size()> buckets{}; // not cumulative
        qint64 count = 0;
        double sum = 0;
        void observe(double seconds);
    };

    // The parts of render(): what this worker's attempts counted, the state it was
    // given, and its credentials (only when it has some).
    void renderAttempts(QString &out) const;
    static void renderState(QString &out, const ScrapeState &state);
    static void renderCredentials(QString &out, const ScrapeState &state);
    static void histogram(QString &out, const char *name, const QString &labelPairs,
                          const Histogram &h);

    std::map<std::tuple<QString, QString, QString>, qint64> m_attempts; // endpoint, class, decision
    std::map<std::pair<QString, int>, qint64> m_throttles;              // endpoint, 429 or 503
    std::map<QString, Histogram> m_waits;                               // by source
    std::map<QString, qint64> m_finalFailures;                          // by reason
    Histogram m_storeWrites;
};

} // namespace cooldown
