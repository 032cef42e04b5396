// SPDX-License-Identifier: Apache-2.0
#include "ui/IntegrationsReader.h"

#include "core/time/Clock.h"
#include "core/time/TimeSteps.h"

#include <algorithm>

namespace cooldown {

namespace {

constexpr qint64 kMinuteMs = 60000;
constexpr qint64 kHourMs = 3600000;
constexpr qint64 kDayMs = 24 * kHourMs;
// No exchange lasts this long: a success found before it was searched already.
constexpr qint64 kLongestExchangeMs = kDayMs;

bool isThrottle(const QString &statusClass)
{
    return statusClass == QLatin1String("429") || statusClass == QLatin1String("503");
}

} // namespace

IntegrationsReader::IntegrationsReader(QString databaseUrl, const Clock &clock,
                                       QList<IntegrationEndpoint> endpoints)
    : m_store(std::move(databaseUrl), QueryStore::IfMissing::Create), m_clock(clock),
      m_endpoints(std::move(endpoints))
{
    qRegisterMetaType<cooldown::IntegrationsSnapshot>();
    qRegisterMetaType<QList<cooldown::IntegrationEndpoint>>();
}

IntegrationsReader::~IntegrationsReader() = default;

qint64 IntegrationsReader::percentile(QList<qint64> &values, int p)
{
    if (values.isEmpty())
        return -1;
    std::sort(values.begin(), values.end());
    // Nearest rank: the smallest value with at least p% of the values at or below it.
    const qsizetype rank = std::max<qsizetype>(1, (qsizetype(p) * values.size() + 99) / 100);
    return values.at(std::min(rank, values.size()) - 1);
}

namespace {

// Whether the read went through; if not, *error says why.
template <typename Result> bool took(const Result &result, QString *error)
{
    if (result)
        return true;
    *error = result.error();
    return false;
}

} // namespace

bool IntegrationsReader::ensureOpen()
{
    return m_store.ensureOpen([this](const QString &error) { emit failed(error); });
}

void IntegrationsReader::fail()
{
    emit failed(m_error);
}

void IntegrationsReader::setRange(qint64 rangeMs)
{
    m_rangeMs = std::max<qint64>(kMinuteMs, rangeMs);
    m_rangeStale = true;
    poll();
}

void IntegrationsReader::setEndpoints(const QList<IntegrationEndpoint> &endpoints)
{
    m_endpoints = endpoints;
    m_rangeStale = true;
    poll();
}

void IntegrationsReader::poll()
{
    if (ensureOpen())
        refresh(true, true);
}

void IntegrationsReader::tick(const ChangeToken &token)
{
    if (!ensureOpen())
        return;
    if (!token.value)
        emit failed(token.error);
    // As LiveReader::tick: only the poller's tokens are compared with each other.
    refresh(false, token.changedSince(m_token));
}

bool IntegrationsReader::readOpenWork()
{
    const auto open = m_store.openWorkByEndpoint();
    const auto ticks = m_store.nextTicksByEndpoint();
    const auto paused = m_store.pausedEndpointIds();
    const auto holds = m_store.endpointHolds();
    const auto incidents = m_store.incidents(true);
    if (!took(open, &m_error) || !took(ticks, &m_error) || !took(paused, &m_error) ||
        !took(holds, &m_error) || !took(incidents, &m_error))
        return false;
    for (const IntegrationEndpoint &e : std::as_const(m_endpoints)) {
        IntegrationStatus &row = m_rows[e.id];
        row.open = open->value(e.id);
        row.nextTickAtMs = ticks->value(e.id, -1);
        row.paused = paused->contains(e.id);
        row.endpointHeldUntilMs = 0;
        row.endpointHoldReason.clear();
        for (const EndpointHold &hold : std::as_const(*holds)) {
            if (hold.endpointId == e.id) {
                row.endpointHeldUntilMs = hold.untilMs;
                row.endpointHoldReason = hold.reason;
            }
        }
        row.blockedBy.clear();
        row.blockedSinceMs = -1;
        for (const IncidentRecord &incident : std::as_const(*incidents)) {
            if (incident.endpointIds.contains(e.id)) {
                row.blockedBy = incident.cause;
                row.blockedSinceMs = incident.openedAtMs;
            }
        }
        const auto ended = m_store.lastEndedState(e.id);
        if (!took(ended, &m_error))
            return false;
        row.lastEndedFailed = *ended == OperationState::Failed;
        // The success search walks back from the newest attempt; once it has looked, it
        // looks again only at what started since (less the longest exchange).
        const qint64 from = m_successSearchedFrom.value(e.id, -1);
        const qint64 now = m_clock.nowMs();
        const auto success = m_store.lastSuccessAtMs(e.id, from);
        if (!took(success, &m_error))
            return false;
        if (*success >= 0 || from < 0)
            row.lastSuccessAtMs = std::max(row.lastSuccessAtMs, *success);
        m_successSearchedFrom.insert(e.id, now - kLongestExchangeMs);
    }
    return true;
}

bool IntegrationsReader::readRange(qint64 nowMs)
{
    // A range of a day or more starts on the hour, so that whole hours come from the
    // hourly rollups; a shorter one on the minute.
    const qint64 step = m_rangeMs >= kDayMs ? kHourMs : kMinuteMs;
    const qint64 from = floorTo(nowMs - m_rangeMs, step);
    // Buckets before this one no longer change (other workers' attempts commit a little
    // after they end): they are summed once, and each read after adds the rest.
    const qint64 settled = std::max(from, floorTo(nowMs - kSettleMs, step));
    const auto add = [](QHash<QString, RangeSums> &sums) {
        return [&sums](const RollupRecord &r) {
            RangeSums &s = sums[r.endpointId];
            s.attempts += r.attempts;
            if (isThrottle(r.statusClass))
                s.throttled += r.attempts;
            if (r.decision == Decision::Success)
                s.successes += r.attempts;
            if (r.decision == Decision::Success || r.decision == Decision::Fail ||
                r.decision == Decision::Park)
                s.outcomes += r.attempts;
            return true;
        };
    };
    if (m_rangeStale || from != m_sumsFromMs || settled != m_sumsSettledMs) {
        m_settledSums.clear();
        if (!took(m_store.forEachRollup(from, settled, step, add(m_settledSums)), &m_error))
            return false;
        m_sumsFromMs = from;
        m_sumsSettledMs = settled;
    }
    // Other workers' clocks may run a little ahead of this one.
    QHash<QString, RangeSums> recent;
    if (!took(m_store.forEachRollup(settled, nowMs + kHourMs, step, add(recent)), &m_error))
        return false;
    for (IntegrationStatus &row : m_rows) {
        const RangeSums a = m_settledSums.value(row.endpointId);
        const RangeSums b = recent.value(row.endpointId);
        row.attempts = a.attempts + b.attempts;
        row.throttled = a.throttled + b.throttled;
        row.successes = a.successes + b.successes;
        row.outcomes = a.outcomes + b.outcomes;
    }
    return true;
}

bool IntegrationsReader::readSpark(qint64 nowMs)
{
    const qint64 first = floorTo(nowMs, kMinuteMs) - (kSparkMinutes - 1) * kMinuteMs;
    for (IntegrationStatus &row : m_rows) {
        row.hourAttempts = QList<int>(kSparkMinutes, 0);
        row.hourThrottled = QList<int>(kSparkMinutes, 0);
    }
    const StoreResult<void> read = m_store.forEachRollup(
        first, first + kSparkMinutes * kMinuteMs, kMinuteMs, [this, first](const RollupRecord &r) {
            const auto it = m_rows.find(r.endpointId);
            const qint64 slot = (r.minuteAtMs - first) / kMinuteMs;
            if (it == m_rows.end() || slot < 0 || slot >= kSparkMinutes)
                return true;
            it->hourAttempts[slot] += int(r.attempts);
            if (isThrottle(r.statusClass))
                it->hourThrottled[slot] += int(r.attempts);
            return true;
        });
    return took(read, &m_error);
}

bool IntegrationsReader::readDurations(qint64 nowMs)
{
    const qint64 from = nowMs - m_rangeMs;
    for (const IntegrationEndpoint &e : std::as_const(m_endpoints)) {
        auto values = m_store.exchangeDurations(e.id, from, nowMs + kHourMs, kDurationSample);
        if (!took(values, &m_error))
            return false;
        IntegrationStatus &row = m_rows[e.id];
        row.durationSamples = int(values->size());
        row.durationsCapped = values->size() >= kDurationSample;
        row.p50Ms = percentile(*values, 50);
        row.p95Ms = percentile(*values, 95);
    }
    return true;
}

bool IntegrationsReader::readHolds(qint64 nowMs)
{
    const StoreResult<QList<PartitionState>> read = m_store.partitions(nowMs);
    if (!took(read, &m_error))
        return false;
    const QList<PartitionState> &partitions = *read;
    for (const IntegrationEndpoint &e : std::as_const(m_endpoints)) {
        IntegrationStatus &row = m_rows[e.id];
        row.heldUntilMs = 0;
        row.holdReason.clear();
        for (const PartitionState &p : partitions) {
            if (p.policyId == e.policyId && p.partitionKey == e.partitionKey) {
                row.heldUntilMs = p.heldUntilMs;
                row.holdReason = p.holdReason;
                break;
            }
        }
    }
    return true;
}

void IntegrationsReader::refresh(bool force, bool changed)
{
    const qint64 now = m_clock.nowMs();
    const qint64 minute = floorTo(now, kMinuteMs);
    const bool newMinute = minute != m_lastMinute;
    m_lastMinute = minute;
    // The percentiles follow changes at most every kSlowReadMs (a change meanwhile is
    // read once that has passed), and a new minute.
    m_slowPending = m_slowPending || changed || newMinute;
    const bool slowDue =
        force || m_rangeStale ||
        (m_slowPending && (m_slowReadAtMs < 0 || now - m_slowReadAtMs >= kSlowReadMs));
    if (!changed && !newMinute && !slowDue)
        return;

    // Rows of endpoints no longer configured go; new ones start empty.
    QHash<QString, IntegrationStatus> rows;
    for (const IntegrationEndpoint &e : std::as_const(m_endpoints)) {
        IntegrationStatus row = m_rows.value(e.id);
        row.endpointId = e.id;
        row.name = e.name;
        row.policyId = e.policyId;
        row.partitionKey = e.partitionKey;
        row.credentialId = e.credentialId;
        row.latencyBudgetMs = e.latencyBudgetMs;
        rows.insert(e.id, row);
    }
    m_rows = rows;

    bool ok = true;
    if (changed)
        ok = readOpenWork() && readHolds(now);
    if (changed || newMinute || m_rangeStale)
        ok = readSpark(now) && readRange(now) && ok;
    if (slowDue) {
        ok = readDurations(now) && ok;
        m_slowReadAtMs = now;
        m_slowPending = false;
    }
    m_rangeStale = false;
    if (!ok)
        fail();

    IntegrationsSnapshot snapshot;
    snapshot.readAtMs = now;
    snapshot.rangeMs = m_rangeMs;
    for (const IntegrationEndpoint &e : std::as_const(m_endpoints))
        snapshot.rows.append(m_rows.value(e.id));
    emit snapshotReady(snapshot);
}

} // namespace cooldown
