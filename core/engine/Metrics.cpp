// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Metrics.h"

#include "core/time/Clock.h"
#include "core/time/TimeSteps.h"

#include <algorithm>

namespace cooldown {

namespace {

void addTo(QMap<QString, QList<qint64>> &series, const QHash<QString, qint64> &values, int bucket,
           int bucketCount)
{
    for (auto it = values.cbegin(); it != values.cend(); ++it) {
        QList<qint64> &list = series[it.key()];
        if (list.isEmpty())
            list.resize(bucketCount, 0);
        list[bucket] += it.value();
    }
}

} // namespace

double MetricsSnapshot::attemptsPerSuccess() const
{
    return successes > 0 ? double(attempts) / double(successes) : -1.0;
}

qint64 MetricsSnapshot::finalFailures() const
{
    qint64 total = 0;
    for (const qint64 n : finalFailuresByReason)
        total += n;
    return total;
}

Metrics::Metrics(const Clock &clock, qint64 retentionMs)
    : m_clock(clock), m_retentionMs(std::max(retentionMs, kMinuteMs))
{}

void Metrics::setPartitionOf(const QString &endpointId, const QString &partitionLabel)
{
    if (partitionLabel.isEmpty())
        m_partitionOf.remove(endpointId);
    else
        m_partitionOf.insert(endpointId, partitionLabel);
}

QString Metrics::partitionLabel(const QString &policyId, const QString &partitionKey)
{
    if (policyId.isEmpty())
        return QString();
    if (partitionKey.isEmpty())
        return policyId;
    return policyId + QStringLiteral(" / ") + partitionKey;
}

QString Metrics::partitionOf(const QString &endpointId, const QString &policyId) const
{
    const auto it = m_partitionOf.constFind(endpointId);
    if (it != m_partitionOf.constEnd())
        return it.value();
    return policyId.isEmpty() ? endpointId : policyId;
}

Metrics::Minute &Metrics::minuteAt(qint64 ms)
{
    return m_minutes[floorDiv(ms, kMinuteMs)];
}

void Metrics::record(const AttemptRecord &attempt)
{
    const qint64 at = attempt.finishedAtMs >= 0 ? attempt.finishedAtMs : attempt.startedAtMs;
    if (at < 0 || at < m_clock.nowMs() - m_retentionMs)
        return;
    Minute &minute = minuteAt(at);
    ++minute.attempts;

    const QString partition = partitionOf(attempt.endpointId, attempt.policyId);
    if (attempt.status == 429) {
        ++minute.tooMany;
        ++minute.tooManyByPartition[partition];
        ++minute.tooManyByEndpoint[attempt.endpointId];
    } else if (attempt.status == 503) {
        ++minute.unavailable;
        ++minute.unavailableByPartition[partition];
        ++minute.unavailableByEndpoint[attempt.endpointId];
    }
    if (attempt.leaseConflict)
        return;

    // A retry that started later than it was due waited here, not at the server.
    const auto due = m_dueAtMs.constFind(attempt.operationId);
    if (due != m_dueAtMs.constEnd() && attempt.startedAtMs > due.value()) {
        Minute &started = minuteAt(attempt.startedAtMs);
        started.waitMsBySource[QStringLiteral("queue")] += attempt.startedAtMs - due.value();
    }
    if (attempt.decision == Decision::Retry && attempt.waitMs >= 0) {
        if (attempt.waitMs > 0)
            minute.waitMsBySource[QLatin1String(textOf(attempt.waitSource))] += attempt.waitMs;
        m_dueAtMs.insert(attempt.operationId, at + attempt.waitMs);
    } else {
        m_dueAtMs.remove(attempt.operationId);
    }
    if (attempt.decision == Decision::Success)
        ++minute.successes;
    else if (attempt.decision == Decision::Fail)
        ++minute.finalFailuresByReason[attempt.reason.isEmpty() ? QStringLiteral("unknown")
                                                                : attempt.reason];
    forgetOld();
}

void Metrics::add(const RollupRecord &rollup)
{
    Minute &minute = minuteAt(rollup.minuteAtMs);
    const qint64 n = rollup.attempts;
    minute.attempts += n;
    const bool tooMany = rollup.statusClass == QLatin1String("429");
    if (tooMany || rollup.statusClass == QLatin1String("503")) {
        const QString partition = partitionOf(rollup.endpointId, rollup.policyId);
        if (tooMany) {
            minute.tooMany += n;
            minute.tooManyByPartition[partition] += n;
            minute.tooManyByEndpoint[rollup.endpointId] += n;
        } else {
            minute.unavailable += n;
            minute.unavailableByPartition[partition] += n;
            minute.unavailableByEndpoint[rollup.endpointId] += n;
        }
    }
    if (rollup.waitMs > 0)
        minute.waitMsBySource[QLatin1String(
            textOf(rollup.waitSource.value_or(WaitSource::Backoff)))] += rollup.waitMs;
    if (rollup.queueMs > 0)
        minute.waitMsBySource[QStringLiteral("queue")] += rollup.queueMs;
    if (rollup.decision == Decision::Success)
        minute.successes += n;
    else if (rollup.decision == Decision::Fail)
        minute.finalFailuresByReason[rollup.reason.isEmpty() ? QStringLiteral("unknown")
                                                             : rollup.reason] += n;
}

void Metrics::addPeak(qint64 atMs, int peak)
{
    Minute &minute = minuteAt(atMs);
    minute.peakInFlight = std::max(minute.peakInFlight, peak);
}

void Metrics::forgetFrom(qint64 fromMs)
{
    for (auto it = m_minutes.lower_bound(floorDiv(fromMs, kMinuteMs)); it != m_minutes.end();) {
        const int peak = it->second.peakInFlight;
        if (peak == 0) {
            it = m_minutes.erase(it);
            continue;
        }
        it->second = Minute();
        it->second.peakInFlight = peak;
        ++it;
    }
}

void Metrics::forgetBefore(qint64 beforeMs)
{
    m_minutes.erase(m_minutes.begin(), m_minutes.lower_bound(floorDiv(beforeMs, kMinuteMs)));
}

void Metrics::recordInFlight(int inFlight, int maxInFlight)
{
    m_maxInFlight = maxInFlight;
    Minute &minute = minuteAt(m_clock.nowMs());
    minute.peakInFlight = std::max(minute.peakInFlight, inFlight);
}

void Metrics::clear()
{
    m_minutes.clear();
    m_dueAtMs.clear();
}

void Metrics::forgetOld()
{
    const qint64 oldest = floorDiv(m_clock.nowMs() - m_retentionMs, kMinuteMs);
    // Minutes arrive mostly in order, so the stale ones sit at the front.
    while (!m_minutes.empty() && m_minutes.begin()->first < oldest)
        m_minutes.erase(m_minutes.begin());
    if (m_dueAtMs.size() > 4096) {
        const qint64 cutoff = m_clock.nowMs() - m_retentionMs;
        for (auto it = m_dueAtMs.begin(); it != m_dueAtMs.end();)
            it = it.value() < cutoff ? m_dueAtMs.erase(it) : std::next(it);
    }
}

MetricsSnapshot Metrics::snapshot(qint64 fromMs, qint64 toMs, qint64 bucketMs) const
{
    MetricsSnapshot s;
    s.bucketMs = std::max<qint64>(1, (bucketMs + kMinuteMs - 1) / kMinuteMs) * kMinuteMs;
    s.fromMs = floorDiv(fromMs, s.bucketMs) * s.bucketMs;
    s.toMs = std::max(toMs, s.fromMs);
    s.nowMs = m_clock.nowMs();
    s.maxInFlight = m_maxInFlight;
    s.bucketCount = int((s.toMs - s.fromMs + s.bucketMs - 1) / s.bucketMs);
    s.tooManyRequests.resize(s.bucketCount, 0);
    s.unavailable.resize(s.bucketCount, 0);
    s.peakInFlight.resize(s.bucketCount, 0);

    const auto first = m_minutes.lower_bound(floorDiv(s.fromMs, kMinuteMs));
    for (auto it = first; it != m_minutes.end(); ++it) {
        const qint64 minuteStart = it->first * kMinuteMs;
        if (minuteStart >= s.toMs)
            break;
        const Minute &m = it->second;
        const int b = int((minuteStart - s.fromMs) / s.bucketMs);
        s.tooManyRequests[b] += m.tooMany;
        s.unavailable[b] += m.unavailable;
        s.peakInFlight[b] = std::max(s.peakInFlight[b], m.peakInFlight);
        addTo(s.tooManyRequestsByPartition, m.tooManyByPartition, b, s.bucketCount);
        addTo(s.unavailableByPartition, m.unavailableByPartition, b, s.bucketCount);
        addTo(s.tooManyRequestsByEndpoint, m.tooManyByEndpoint, b, s.bucketCount);
        addTo(s.unavailableByEndpoint, m.unavailableByEndpoint, b, s.bucketCount);
        addTo(s.waitMsBySource, m.waitMsBySource, b, s.bucketCount);
        for (auto r = m.finalFailuresByReason.cbegin(); r != m.finalFailuresByReason.cend(); ++r)
            s.finalFailuresByReason[r.key()] += r.value();
        for (const qint64 w : m.waitMsBySource)
            s.waitMsTotal += w;
        s.attempts += m.attempts;
        s.successes += m.successes;
    }
    return s;
}

qint64 Metrics::finalFailuresSince(qint64 sinceMs) const
{
    qint64 total = 0;
    for (auto it = m_minutes.lower_bound(floorDiv(sinceMs, kMinuteMs)); it != m_minutes.end();
         ++it) {
        for (const qint64 n : it->second.finalFailuresByReason)
            total += n;
    }
    return total;
}

qint64 Metrics::earliestMs() const
{
    return m_minutes.empty() ? -1 : m_minutes.begin()->first * kMinuteMs;
}

} // namespace cooldown
