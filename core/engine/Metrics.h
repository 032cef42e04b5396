// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/Records.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QMetaType>
#include <QString>

#include <map>

namespace cooldown {

class Clock;

// The dashboard's figures over one time range, cut into equal buckets. A plain value:
// it is made on a worker thread and handed to the window by a queued signal.
struct MetricsSnapshot
{
    qint64 fromMs = 0;       // start of bucket 0, aligned to bucketMs
    qint64 toMs = 0;         // end of the range (exclusive)
    qint64 bucketMs = 60000; // a whole number of minutes
    int bucketCount = 0;
    qint64 nowMs = 0;

    // Per bucket. A map key is a partition label (Metrics::partitionLabel), an
    // endpoint id or a wait source ("retry-after", "ratelimit", "x-ratelimit",
    // "problem", "backoff", and "queue": time spent due but held back locally by the
    // partition's bucket, a hold or the permits).
    QList<qint64> tooManyRequests; // 429 answers
    QList<qint64> unavailable;     // 503 answers
    QMap<QString, QList<qint64>> tooManyRequestsByPartition;
    QMap<QString, QList<qint64>> unavailableByPartition;
    QMap<QString, QList<qint64>> tooManyRequestsByEndpoint;
    QMap<QString, QList<qint64>> unavailableByEndpoint;
    QMap<QString, QList<qint64>> waitMsBySource;
    QList<int> peakInFlight;

    // Over the whole range.
    QMap<QString, qint64> finalFailuresByReason; // decision "fail", by reason
    qint64 attempts = 0;
    qint64 successes = 0;
    qint64 waitMsTotal = 0;
    int maxInFlight = 0; // the configured limit at the last sample

    qint64 bucketStartMs(int bucket) const { return fromMs + qint64(bucket) * bucketMs; }
    // Attempts needed per success; -1 when nothing succeeded in the range.
    double attemptsPerSuccess() const;
    qint64 finalFailures() const;
};

// Rolling per-minute windows of what the engine did: 429s and 503s per partition and
// per endpoint, wait time by source, attempts, successes, final failures by reason and
// the peak of exchanges in flight. Fed one attempt at a time, from the scheduler's
// attemptRecorded signal or read back from the store, in any order of minutes.
//
// Minutes older than the retention are forgotten as time moves on. Not thread-safe:
// one owner, one thread. Time comes from the injected clock.
class Metrics final
{
public:
    static constexpr qint64 kMinuteMs = 60000;
    static constexpr qint64 kDefaultRetentionMs = 7 * 24 * 3600 * qint64(1000);

    explicit Metrics(const Clock &clock, qint64 retentionMs = kDefaultRetentionMs);

    // Throttles of an endpoint are counted under this partition label. Endpoints
    // without one are counted under their own id.
    void setPartitionOf(const QString &endpointId, const QString &partitionLabel);
    // "policy / key", or the policy alone when it has no key.
    static QString partitionLabel(const QString &policyId, const QString &partitionKey);

    // One finished attempt. Its minute is that of finishedAtMs (startedAtMs when the
    // finish time is not set). An attempt that lost its lease counts as a response but
    // not as a decision: it changed nothing.
    void record(const AttemptRecord &attempt);
    // Attempts summed by the store (Store::rollups): counted in the minute (or bucket)
    // the row starts, as record() counts each attempt; a rollup's queue time counts
    // in its own minute.
    void add(const RollupRecord &rollup);
    // An in-flight peak read back from the store (Store::inFlightPeaks): the minute of
    // atMs keeps the higher of it and what it held.
    void addPeak(qint64 atMs, int peak);
    // Forgets what minutes from fromMs on hold, in-flight peaks apart (peaks only
    // grow, and the live ones are sampled): their rollups are about to be read again.
    void forgetFrom(qint64 fromMs);
    // Forgets every minute before beforeMs.
    void forgetBefore(qint64 beforeMs);
    // The exchanges in flight now and the configured limit.
    void recordInFlight(int inFlight, int maxInFlight);
    void clear();

    // The figures for [fromMs, toMs) in buckets of bucketMs (rounded up to whole
    // minutes); fromMs is aligned down to a bucket boundary.
    MetricsSnapshot snapshot(qint64 fromMs, qint64 toMs, qint64 bucketMs = kMinuteMs) const;
    // Operations that failed finally since a time (e.g. the local midnight).
    qint64 finalFailuresSince(qint64 sinceMs) const;
    // The earliest minute still held, or -1 when empty.
    qint64 earliestMs() const;

private:
    struct Minute
    {
        QHash<QString, qint64> tooManyByPartition;
        QHash<QString, qint64> unavailableByPartition;
        QHash<QString, qint64> tooManyByEndpoint;
        QHash<QString, qint64> unavailableByEndpoint;
        QHash<QString, qint64> waitMsBySource;
        QHash<QString, qint64> finalFailuresByReason;
        qint64 tooMany = 0;
        qint64 unavailable = 0;
        qint64 attempts = 0;
        qint64 successes = 0;
        int peakInFlight = 0;
    };

    Minute &minuteAt(qint64 ms);
    void forgetOld();
    QString partitionOf(const QString &endpointId, const QString &policyId) const;

    const Clock &m_clock;
    qint64 m_retentionMs = kDefaultRetentionMs;
    std::map<qint64, Minute> m_minutes; // key: minute number since the epoch
    QHash<QString, QString> m_partitionOf;
    // Per operation waiting to retry: when the retry was due, to measure how long it
    // then waited locally.
    QHash<qint64, qint64> m_dueAtMs;
    int m_maxInFlight = 0;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::MetricsSnapshot)
