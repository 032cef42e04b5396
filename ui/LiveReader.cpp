// SPDX-License-Identifier: Apache-2.0
#include "ui/LiveReader.h"

#include "core/time/Clock.h"
#include "core/time/TimeSteps.h"

#include <QDateTime>

#include <algorithm>

namespace cooldown {

namespace {

// The figures' minutes are never forgotten by age: the reader drops what leaves the range.
constexpr qint64 kKeepEverything = 100LL * 365 * 24 * 3600 * 1000;
// Samples of exchanges in flight are kept as long as the longest live range.
constexpr qint64 kInFlightKeptMs = 8LL * 24 * 3600 * 1000;

} // namespace

LiveReader::LiveReader(QString databaseUrl, const Clock &clock, QHash<QString, QString> partitionOf,
                       QStringList endpointIds)
    : m_store(std::move(databaseUrl), QueryStore::IfMissing::Create), m_clock(clock),
      m_partitionOf(std::move(partitionOf)), m_endpointIds(std::move(endpointIds)),
      m_figures(clock, kKeepEverything), m_inFlight(clock, kInFlightKeptMs)
{
    for (auto it = m_partitionOf.cbegin(); it != m_partitionOf.cend(); ++it)
        m_figures.setPartitionOf(it.key(), it.value());
}

LiveReader::~LiveReader() = default;

void LiveReader::setEndpoints(const QHash<QString, QString> &partitionOf,
                              const QStringList &endpointIds)
{
    m_partitionOf = partitionOf;
    m_endpointIds = endpointIds;
    for (auto it = m_partitionOf.cbegin(); it != m_partitionOf.cend(); ++it)
        m_figures.setPartitionOf(it.key(), it.value());
}

bool LiveReader::ensureOpen()
{
    return m_store.ensureOpen([this](const QString &error) { emit failed(error); });
}

void LiveReader::setRange(qint64 rangeMs, qint64 bucketMs)
{
    m_rangeMs = rangeMs;
    m_bucketMs = bucketMs;
    m_fixed = false;
    m_figuresStale = true;
    poll();
}

void LiveReader::setWindow(qint64 fromMs, qint64 toMs, qint64 bucketMs)
{
    m_bucketMs = bucketMs;
    m_rangeMs = toMs - fromMs;
    m_fixed = true;
    // The first bucket starts where Metrics::snapshot() puts it: read it whole.
    m_windowFromMs = floorTo(std::max<qint64>(0, fromMs), alignedBucketMs());
    m_windowToMs = toMs;
    m_figuresStale = true;
    poll();
}

void LiveReader::noteInFlight(int inFlight, int maxInFlight)
{
    m_inFlight.recordInFlight(inFlight, maxInFlight);
    m_maxInFlight = maxInFlight;
    const qint64 now = m_clock.nowMs();
    int &peak = m_peakPerSecond[floorTo(now, 1000)];
    peak = std::max(peak, inFlight);
    while (!m_peakPerSecond.empty() && m_peakPerSecond.begin()->first < now - kFinePeaksKeptMs)
        m_peakPerSecond.erase(m_peakPerSecond.begin());
}

qint64 LiveReader::localMidnightMs() const
{
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(m_clock.nowMs()).toLocalTime();
    return now.date().startOfDay().toMSecsSinceEpoch();
}

bool LiveReader::fineBuckets() const
{
    return !m_fixed && m_bucketMs > 0 && m_bucketMs < Metrics::kMinuteMs &&
           Metrics::kMinuteMs % m_bucketMs == 0;
}

qint64 LiveReader::slotOf(qint64 ms) const
{
    return fineBuckets() ? floorTo(ms, m_bucketMs) / m_bucketMs * Metrics::kMinuteMs : ms;
}

MetricsSnapshot LiveReader::fineSnapshot(qint64 fromMs, qint64 toMs) const
{
    const qint64 bucket = m_bucketMs;
    const qint64 from = floorTo(fromMs, bucket);
    const int count = int((std::max(toMs, from) - from + bucket - 1) / bucket);
    MetricsSnapshot s = m_figures.snapshot(slotOf(from), slotOf(from) + count * Metrics::kMinuteMs,
                                           Metrics::kMinuteMs);
    s.fromMs = from;
    s.toMs = std::max(toMs, from);
    s.bucketMs = bucket;
    s.maxInFlight = m_maxInFlight;
    s.peakInFlight.resize(count, 0);
    for (auto it = m_peakPerSecond.lower_bound(from); it != m_peakPerSecond.end(); ++it) {
        const qint64 b = (it->first - from) / bucket;
        if (b >= count)
            break;
        s.peakInFlight[b] = std::max(s.peakInFlight.at(b), it->second);
    }
    return s;
}

qint64 LiveReader::alignedBucketMs() const
{
    if (fineBuckets())
        return m_bucketMs;
    const qint64 minute = Metrics::kMinuteMs;
    return std::max<qint64>(1, (m_bucketMs + minute - 1) / minute) * minute;
}

qint64 LiveReader::rangeFromMs(qint64 nowMs) const
{
    return m_fixed ? m_windowFromMs : floorTo(nowMs - m_rangeMs, alignedBucketMs());
}

bool LiveReader::readFigures(qint64 fromMs)
{
    const qint64 now = m_clock.nowMs();
    const qint64 bucket = alignedBucketMs();
    qint64 from = fromMs;
    if (from < 0) {
        m_figures.clear();
        from = rangeFromMs(now);
    } else {
        m_figures.forgetFrom(slotOf(from));
    }
    // A live range takes what other workers' clocks put a little ahead of this one too.
    const qint64 to = m_fixed ? m_windowToMs : now + 24 * 3600 * 1000;
    const StoreResult<void> read =
        fineBuckets() ? m_store.forEachAttemptSum(from, to, bucket,
                                                  [this](const RollupRecord &row) {
                                                      RollupRecord inSlot = row;
                                                      inSlot.minuteAtMs = slotOf(row.minuteAtMs);
                                                      m_figures.add(inSlot);
                                                      return true;
                                                  })
                      : m_store.forEachRollup(from, to, bucket, [this](const RollupRecord &row) {
                            m_figures.add(row);
                            return true;
                        });
    if (!read) {
        emit failed(read.error());
        return false;
    }
    // The fleet's in-flight peaks, stored per minute: a short bucket shows the peak of
    // the minute it is in.
    const bool fine = fineBuckets();
    const auto peaks = m_store.inFlightPeaks(floorTo(from, Metrics::kMinuteMs), to,
                                             fine ? Metrics::kMinuteMs : bucket);
    if (!peaks) {
        emit failed(peaks.error());
        return false;
    }
    for (const InFlightPeak &p : *peaks) {
        if (!fine) {
            m_figures.addPeak(p.minuteAtMs, p.peak);
            continue;
        }
        for (qint64 at = p.minuteAtMs; at < p.minuteAtMs + Metrics::kMinuteMs; at += bucket)
            m_figures.addPeak(slotOf(at), p.peak);
    }
    m_settledBeforeMs = floorTo(now - kSettleMs, bucket);
    return true;
}

void LiveReader::poll()
{
    if (ensureOpen())
        refresh(true, true);
}

void LiveReader::tick(const ChangeToken &token)
{
    if (!ensureOpen())
        return;
    if (!token.value)
        emit failed(token.error);
    // Only the poller's tokens are compared: on SQLite a token counts the commits one
    // connection saw, so this reader's own connection would not agree with it.
    refresh(false, token.changedSince(m_token));
}

void LiveReader::refresh(bool force, bool changed)
{
    const qint64 now = m_clock.nowMs();
    // A new minute, or a new bucket of less, moves the range.
    const qint64 step = floorTo(now, fineBuckets() ? m_bucketMs : Metrics::kMinuteMs);
    const bool newStep = step != m_lastStep;
    m_lastStep = step;
    bool send = force || newStep;

    if (m_figuresStale) {
        m_figuresStale = !readFigures(-1);
        send = true;
    } else if (changed && !m_fixed) {
        readFigures(m_settledBeforeMs);
        send = true;
    }
    if (newStep) {
        if (!m_fixed)
            m_figures.forgetBefore(slotOf(rangeFromMs(now)));
        m_inFlight.forgetBefore(now - kInFlightKeptMs);
    }

    if (changed) {
        // What fails to read is said, and the last figures stay until a read succeeds.
        if (StoreResult<QMap<OperationState, qint64>> counts = m_store.openCountsByState())
            m_last.counts = std::move(*counts);
        else
            emit failed(counts.error());
        // Paused or held (isEndpointPaused): either stops the endpoint's work.
        m_last.pausedEndpoints.clear();
        for (const QString &endpoint : std::as_const(m_endpointIds)) {
            const StoreResult<bool> paused = m_store.isEndpointPaused(endpoint);
            if (!paused)
                emit failed(paused.error());
            else if (*paused)
                m_last.pausedEndpoints.insert(endpoint);
        }
        if (const StoreResult<qint64> earliest = m_store.earliestAttemptMs())
            m_last.rawHistoryFromMs = *earliest;
        else
            emit failed(earliest.error());
        ++m_last.storeChanges;
    }
    if (changed || newStep) {
        if (const StoreResult<qint64> failedToday = m_store.finalFailuresSince(localMidnightMs()))
            m_last.failedToday = *failedToday;
        else
            emit failed(failedToday.error());
    }
    if (changed || m_partitionsReadAtMs < 0 ||
        now - m_partitionsReadAtMs >= kPartitionsIntervalMs) {
        if (StoreResult<QList<PartitionState>> partitions = m_store.partitions(now))
            m_last.partitions = std::move(*partitions);
        else
            emit failed(partitions.error());
        m_partitionsReadAtMs = now;
        send = true;
    }
    if (!send)
        return;

    const qint64 from = m_fixed ? m_windowFromMs : now - m_rangeMs;
    const qint64 to = m_fixed ? m_windowToMs : now + 1;
    if (fineBuckets()) {
        m_last.metrics = fineSnapshot(from, to);
    } else {
        MetricsSnapshot figures = m_figures.snapshot(from, to, m_bucketMs);
        // The stored peaks, and those this window saw live (a sample between two group
        // commits), whichever is higher.
        const MetricsSnapshot live = m_inFlight.snapshot(from, to, m_bucketMs);
        figures.peakInFlight.resize(live.peakInFlight.size(), 0);
        for (qsizetype b = 0; b < live.peakInFlight.size(); ++b)
            figures.peakInFlight[b] = std::max(figures.peakInFlight.at(b), live.peakInFlight.at(b));
        figures.maxInFlight = live.maxInFlight;
        m_last.metrics = figures;
    }
    m_last.fixedWindow = m_fixed;
    emit snapshotReady(m_last);
}

} // namespace cooldown
