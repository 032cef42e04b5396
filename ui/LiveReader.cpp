#include "ui/LiveReader.h"

#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>

namespace cooldown {

LiveReader::LiveReader(QString databaseUrl, const Clock &clock, QHash<QString, QString> partitionOf,
                       QStringList endpointIds)
    : m_databaseUrl(std::move(databaseUrl)), m_clock(clock), m_partitionOf(std::move(partitionOf)),
      m_endpointIds(std::move(endpointIds)), m_metrics(clock)
{
    for (auto it = m_partitionOf.cbegin(); it != m_partitionOf.cend(); ++it)
        m_metrics.setPartitionOf(it.key(), it.value());
}

LiveReader::~LiveReader() = default;

bool LiveReader::ensureOpen()
{
    if (m_store)
        return true;
    if (m_openFailed)
        return false;
    QString error;
    m_store = Store::open(m_databaseUrl, &error);
    if (!m_store) {
        m_openFailed = true;
        emit failed(error);
        return false;
    }
    return true;
}

void LiveReader::start(int intervalMs)
{
    if (!m_timer) {
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &LiveReader::poll);
    }
    m_timer->start(intervalMs);
    poll();
}

void LiveReader::setRange(qint64 rangeMs, qint64 bucketMs)
{
    m_rangeMs = rangeMs;
    m_bucketMs = bucketMs;
    m_window.reset();
    m_windowFigures.reset();
    poll();
}

void LiveReader::setWindow(qint64 fromMs, qint64 toMs, qint64 bucketMs)
{
    // The first bucket starts where Metrics::snapshot() puts it: read it whole.
    const qint64 minute = Metrics::kMinuteMs;
    const qint64 bucket = std::max<qint64>(1, (bucketMs + minute - 1) / minute) * minute;
    const qint64 alignedFrom = std::max<qint64>(0, fromMs) / bucket * bucket;
    m_rangeMs = toMs - fromMs;
    m_bucketMs = bucketMs;
    m_windowFigures.reset();
    // Figures of their own, kept as long as the window is old: the live ones forget what
    // is older than a week.
    const qint64 age = m_clock.nowMs() - alignedFrom + minute;
    m_window = std::make_unique<Metrics>(m_clock, std::max(age, Metrics::kDefaultRetentionMs));
    for (auto it = m_partitionOf.cbegin(); it != m_partitionOf.cend(); ++it)
        m_window->setPartitionOf(it.key(), it.value());
    m_windowFromMs = alignedFrom;
    m_windowToMs = toMs;
    m_windowLastId = 0;
    m_windowComplete = false;
    poll();
}

void LiveReader::setJobsScope(JobsScope scope)
{
    m_scope = scope;
    poll();
}

void LiveReader::noteInFlight(int inFlight, int maxInFlight)
{
    m_metrics.recordInFlight(inFlight, maxInFlight);
}

qint64 LiveReader::localMidnightMs() const
{
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(m_clock.nowMs()).toLocalTime();
    return now.date().startOfDay().toMSecsSinceEpoch();
}

bool LiveReader::readNewAttempts(int maxPages)
{
    AttemptFilter filter;
    filter.fromMs = m_lastAttemptId == 0 ? m_loadedFromMs : -1;
    filter.limit = kPageRows;
    for (int page = 0; page < maxPages; ++page) {
        filter.afterId = m_lastAttemptId;
        const QList<AttemptRecord> rows = m_store->attempts(filter);
        if (rows.isEmpty() && !m_store->lastError().isEmpty()) {
            emit failed(m_store->lastError());
            return true;
        }
        for (const AttemptRecord &a : rows)
            m_metrics.record(a);
        if (!rows.isEmpty())
            m_lastAttemptId = rows.constLast().id;
        if (rows.size() < kPageRows)
            return true;
    }
    return false; // more to read
}

bool LiveReader::readWindow(int maxPages)
{
    AttemptFilter filter;
    filter.fromMs = m_windowFromMs;
    filter.toMs = m_windowToMs;
    filter.limit = kPageRows;
    for (int page = 0; page < maxPages; ++page) {
        filter.afterId = m_windowLastId;
        const QList<AttemptRecord> rows = m_store->attempts(filter);
        if (rows.isEmpty() && !m_store->lastError().isEmpty()) {
            emit failed(m_store->lastError());
            return true;
        }
        for (const AttemptRecord &a : rows)
            m_window->record(a);
        if (!rows.isEmpty())
            m_windowLastId = rows.constLast().id;
        if (rows.size() < kPageRows)
            return true;
    }
    return false;
}

MetricsSnapshot LiveReader::windowSnapshot()
{
    MetricsSnapshot figures = m_windowFigures
                                  ? *m_windowFigures
                                  : m_window->snapshot(m_windowFromMs, m_windowToMs, m_bucketMs);
    if (m_windowComplete && !m_windowFigures)
        m_windowFigures = figures;
    // Exchanges in flight are sampled, not stored: the window has those seen live.
    const MetricsSnapshot live = m_metrics.snapshot(m_windowFromMs, m_windowToMs, m_bucketMs);
    figures.peakInFlight = live.peakInFlight;
    figures.maxInFlight = live.maxInFlight;
    figures.nowMs = live.nowMs;
    return figures;
}

QList<OperationRecord> LiveReader::readOperations()
{
    QList<OperationRecord> out;
    OperationFilter filter;
    switch (m_scope) {
    case JobsScope::Active:
        for (const OperationState state : {OperationState::Scheduled, OperationState::Running,
                                           OperationState::Waiting, OperationState::Parked}) {
            filter.state = state;
            out.append(m_store->operations(filter));
        }
        break;
    case JobsScope::Failed:
        filter.state = OperationState::Failed;
        out = m_store->operations(filter);
        if (out.size() > kRecentOperations)
            out.remove(0, out.size() - kRecentOperations);
        break;
    case JobsScope::Recent: {
        // Operation ids grow by one, so the latest id tells where the recent ones start.
        qint64 latest = 0;
        for (const QString &endpoint : std::as_const(m_endpointIds)) {
            if (const auto op = m_store->latestOperation(endpoint))
                latest = std::max(latest, op->id);
        }
        filter.afterId = std::max<qint64>(0, latest - kRecentOperations);
        out = m_store->operations(filter);
        break;
    }
    }
    if (!m_store->lastError().isEmpty())
        emit failed(m_store->lastError());
    return out;
}

void LiveReader::poll()
{
    if (!ensureOpen())
        return;
    const qint64 now = m_clock.nowMs();
    // The live figures cover today at least, for "failed today".
    const qint64 wantedFrom =
        m_window ? localMidnightMs() : std::min(now - m_rangeMs, localMidnightMs());
    if (m_loadedFromMs < 0 || wantedFrom < m_loadedFromMs) {
        // The range reaches further back than what was read: read it again from there.
        m_metrics.clear();
        m_loadedFromMs = wantedFrom;
        m_lastAttemptId = 0;
    }
    // A long history is read a few pages per tick, so that the figures appear early
    // and a change of range is never stuck behind a week of rows.
    m_catchingUp = !readNewAttempts(m_catchingUp ? 40 : 20);
    if (m_window && !m_windowComplete) {
        m_windowComplete = readWindow(m_catchingUp ? 20 : 40);
        m_catchingUp = m_catchingUp || !m_windowComplete;
    }

    LiveSnapshot snapshot;
    snapshot.metrics =
        m_window ? windowSnapshot() : m_metrics.snapshot(now - m_rangeMs, now + 1, m_bucketMs);
    snapshot.counts = m_store->countsByState();
    snapshot.failedToday = m_metrics.finalFailuresSince(localMidnightMs());
    for (const QString &endpoint : std::as_const(m_endpointIds)) {
        if (m_store->isEndpointPaused(endpoint).value_or(false))
            snapshot.pausedEndpoints.insert(endpoint);
    }
    snapshot.jobsScope = m_scope;
    snapshot.operations = readOperations();
    const QString errorBefore = m_store->lastError();
    snapshot.partitions = m_store->partitions(now);
    if (snapshot.partitions.isEmpty() && m_store->lastError() != errorBefore)
        emit failed(m_store->lastError());
    snapshot.loadingHistory = m_catchingUp;
    snapshot.fixedWindow = m_window != nullptr;
    emit snapshotReady(snapshot);
    if (m_catchingUp)
        QTimer::singleShot(0, this, &LiveReader::poll);
}

} // namespace cooldown
