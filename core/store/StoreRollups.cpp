// SPDX-License-Identifier: Apache-2.0
// The store's rollups and retention: the per-minute sums written with the attempts,
// the queries the Overview and the export read them with, and the pruning of old
// history. See docs/rollups.md.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/store/LatencyBuckets.h"
#include "core/store/Schema.h"
#include "core/store/SqlTransaction.h"

#include <QElapsedTimer>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QVariant>

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace cooldown {

using namespace storesql;

namespace {

constexpr qint64 kMinuteMs = 60000;
constexpr qint64 kHourMs = 60 * kMinuteMs;
constexpr qint64 kDayMs = 24 * kHourMs;

// A bucket of whole minutes, one at least.
qint64 wholeMinutes(qint64 bucketMs)
{
    return std::max<qint64>(1, (bucketMs + kMinuteMs - 1) / kMinuteMs) * kMinuteMs;
}

// Where a read of [fromMs, toMs) in buckets of bucketMs goes from the hourly rows to the
// minutes: buckets of whole hours that start on an hour come from the hourly rows, but
// for a last hour the range ends inside, the minutes are read as they are. fromMs when
// it reads minutes only.
qint64 hourlyUntil(qint64 fromMs, qint64 toMs, qint64 bucketMs)
{
    if (bucketMs % kHourMs != 0 || fromMs % kHourMs != 0)
        return fromMs;
    return std::max(fromMs, toMs - toMs % kHourMs);
}

QString statusClass(int status)
{
    if (status == 0)
        return QStringLiteral("none");
    if (status == 429 || status == 503)
        return QString::number(status);
    return QString::number(status / 100) + QStringLiteral("xx");
}

// When an attempt ended, as the rollups place it: its end, else its start.
qint64 endOf(qint64 finishedAtMs, qint64 startedAtMs)
{
    if (finishedAtMs >= 0)
        return finishedAtMs;
    return startedAtMs >= 0 ? startedAtMs : 0;
}

RollupRecord readRollup(const QSqlQuery &query)
{
    RollupRecord row;
    row.minuteAtMs = query.value(0).toLongLong();
    row.endpointId = query.value(1).toString();
    row.policyId = query.value(2).toString();
    row.partitionKey = query.value(3).toString();
    row.statusClass = query.value(4).toString();
    row.decision = rollupDecisionFromText(query.value(5).toString());
    row.waitSource = optionalWaitSourceFromText(query.value(6).toString());
    row.reason = query.value(7).toString();
    row.attempts = query.value(8).toLongLong();
    row.waitMs = query.value(9).toLongLong();
    row.queueMs = query.value(10).toLongLong();
    row.durationMs = query.value(11).toLongLong();
    return row;
}

} // namespace

// Sums per key, kept sorted: PostgreSQL workers upserting the same rows take their
// locks in one order, so two group commits never wait for each other in a cycle.
class Store::RollupBatch
{
public:
    using Key = std::tuple<qint64, QString, QString, QString, QString, QString, QString, QString>;
    struct Sums
    {
        qint64 attempts = 0;
        qint64 waitMs = 0;
        qint64 queueMs = 0;
        qint64 durationMs = 0;
    };

    // One attempt as the store wrote it. dueAtMs: when the operation's previous
    // attempt made it due (-1: it did not wait for a retry).
    void add(const AttemptRecord &a, const QString &partitionKey, bool leaseConflict,
             qint64 dueAtMs)
    {
        const qint64 end = endOf(a.finishedAtMs, a.startedAtMs);
        const bool retry = !leaseConflict && a.decision == Decision::Retry;
        const bool fail = !leaseConflict && a.decision == Decision::Fail;
        QString reason;
        if (fail) {
            reason = redaction::redactText(a.reason);
            if (reason.isEmpty())
                reason = QStringLiteral("unknown");
        } else if (!leaseConflict && a.decision == Decision::Success &&
                   a.reason == QLatin1String("degraded")) {
            reason = a.reason; // over its latency budget (docs/checks.md)
        } else if (retry && a.reason == QLatin1String("offline")) {
            reason = a.reason; // no network: the SLA report leaves it out (docs/report.md)
        }
        std::optional<WaitSource> waitSource;
        if (retry)
            waitSource = a.waitSource;
        const Key key{end - end % kMinuteMs,
                      text(a.endpointId),
                      text(a.policyId),
                      text(partitionKey),
                      statusClass(a.status),
                      rollupDecisionText(leaseConflict ? std::nullopt : std::optional(a.decision)),
                      waitSourceText(waitSource),
                      text(reason)};
        Sums &sums = m_rows[key];
        ++sums.attempts;
        if (retry && a.waitMs > 0)
            sums.waitMs += a.waitMs;
        if (!leaseConflict && dueAtMs >= 0 && a.startedAtMs > dueAtMs)
            sums.queueMs += a.startedAtMs - dueAtMs;
        if (a.durationMs > 0)
            sums.durationMs += a.durationMs;
        // The latency histogram counts the exchanges that were answered.
        if (a.status != 0)
            ++m_latency[{end - end % kHourMs, text(a.endpointId), latency::bucketOf(a.durationMs)}];
    }

    // An operation that succeeded after a 429 or 503, at its successful attempt.
    void addThrottledSuccess(const AttemptRecord &a)
    {
        const qint64 end = endOf(a.finishedAtMs, a.startedAtMs);
        ++m_throttledSuccesses[{end - end % kMinuteMs, text(a.endpointId)}];
    }

    using LatencyKey = std::tuple<qint64, QString, int>;
    using MinuteKey = std::pair<qint64, QString>;
    const std::map<Key, Sums> &rows() const { return m_rows; }
    const std::map<LatencyKey, qint64> &latency() const { return m_latency; }
    const std::map<MinuteKey, qint64> &throttledSuccesses() const { return m_throttledSuccesses; }

private:
    std::map<Key, Sums> m_rows;
    std::map<LatencyKey, qint64> m_latency;
    std::map<MinuteKey, qint64> m_throttledSuccesses;
};

namespace {

// Adds counts to a table keyed by (time column, endpoint_id[, bucket]): the SLA
// report's rows, upserted in key order like the rollups.
template <typename Key>
bool upsertCounts(Database &db, const QString &table, const QString &keyColumns,
                  const QString &countColumn, const std::map<Key, qint64> &rows)
{
    if (rows.empty())
        return true;
    const QStringList keys = keyColumns.split(QLatin1String(", "));
    QStringList values;
    for (qsizetype i = 0; i < keys.size(); ++i)
        values.append(QStringLiteral(":k%1").arg(i));
    SqlStatement *upsert =
        db.cached(QStringLiteral("INSERT INTO %1 (%2, %3) VALUES (%4, :count) ON CONFLICT (%2)"
                                 " DO UPDATE SET %3 = %1.%3 + excluded.%3")
                      .arg(table, keyColumns, countColumn, values.join(QLatin1String(", "))));
    if (!upsert)
        return false;
    for (const auto &[key, count] : rows) {
        std::apply(
            [&](const auto &...parts) {
                int i = 0;
                (upsert->bindValue(QStringLiteral(":k%1").arg(i++), QVariant::fromValue(parts)),
                 ...);
            },
            key);
        upsert->bindValue(QStringLiteral(":count"), count);
        if (!db.exec(*upsert))
            return false;
    }
    return true;
}

} // namespace

bool Store::writeReportCounts(const RollupBatch &batch)
{
    std::map<RollupBatch::MinuteKey, qint64> hours;
    for (const auto &[key, count] : batch.throttledSuccesses())
        hours[{key.first - key.first % kHourMs, key.second}] += count;
    if (!upsertCounts(*m_db, QStringLiteral("attempt_latency_rollups"),
                      QStringLiteral("hour_at, endpoint_id, bucket"), QStringLiteral("attempts"),
                      batch.latency()) ||
        !upsertCounts(*m_db, QStringLiteral("throttled_successes"),
                      QStringLiteral("minute_at, endpoint_id"), QStringLiteral("operations"),
                      batch.throttledSuccesses()) ||
        !upsertCounts(*m_db, QStringLiteral("throttled_successes_hourly"),
                      QStringLiteral("hour_at, endpoint_id"), QStringLiteral("operations"), hours))
        return false;
    // The same per day, and the rollups per day with the keys the report reads.
    using DayKey = std::tuple<qint64, QString, QString, QString, QString>;
    std::map<DayKey, qint64> days;
    for (const auto &[key, sums] : batch.rows()) {
        const qint64 day = std::get<0>(key) - std::get<0>(key) % kDayMs;
        days[{day, std::get<1>(key), std::get<4>(key), std::get<5>(key), std::get<7>(key)}] +=
            sums.attempts;
    }
    std::map<RollupBatch::LatencyKey, qint64> latencyDays;
    for (const auto &[key, count] : batch.latency())
        latencyDays[{std::get<0>(key) - std::get<0>(key) % kDayMs, std::get<1>(key),
                     std::get<2>(key)}] += count;
    std::map<RollupBatch::MinuteKey, qint64> throttledDays;
    for (const auto &[key, count] : batch.throttledSuccesses())
        throttledDays[{key.first - key.first % kDayMs, key.second}] += count;
    return upsertCounts(*m_db, QStringLiteral("attempt_rollups_daily"),
                        QStringLiteral("day_at, endpoint_id, status_class, decision, reason"),
                        QStringLiteral("attempts"), days) &&
           upsertCounts(*m_db, QStringLiteral("attempt_latency_rollups_daily"),
                        QStringLiteral("day_at, endpoint_id, bucket"), QStringLiteral("attempts"),
                        latencyDays) &&
           upsertCounts(*m_db, QStringLiteral("throttled_successes_daily"),
                        QStringLiteral("day_at, endpoint_id"), QStringLiteral("operations"),
                        throttledDays);
}

bool Store::throttledBefore(qint64 operationId, bool *throttled)
{
    SqlStatement *query = m_db->cached(QStringLiteral(
        "SELECT 1 FROM attempts WHERE operation_id = :operation AND status IN (429, 503) LIMIT 1"));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":operation"), operationId);
    if (!m_db->exec(*query))
        return false;
    *throttled = query->next();
    query->finish();
    return true;
}

std::optional<qint64> Store::previousDueAtMs(qint64 operationId)
{
    SqlStatement *query = m_db->cached(
        QStringLiteral("SELECT decision, wait_ms, finished_at, started_at FROM attempts"
                       " WHERE operation_id = :operation AND lease_conflict = 0"
                       " ORDER BY id DESC LIMIT 1"));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":operation"), operationId);
    if (!m_db->exec(*query))
        return std::nullopt;
    qint64 due = -1;
    if (query->next() && decisionFromText(query->value(0).toString()) == Decision::Retry) {
        const qint64 waitMs = query->value(1).toLongLong();
        const qint64 finished = query->value(2).toLongLong();
        if (waitMs >= 0)
            due = (finished >= 0 ? finished : query->value(3).toLongLong()) + waitMs;
    }
    query->finish();
    return due;
}

bool Store::writeRollups(const RollupBatch &batch)
{
    // The minutes, then the same sums per hour: the hourly keys follow the same order.
    std::map<RollupBatch::Key, RollupBatch::Sums> hours;
    for (const auto &[key, sums] : batch.rows()) {
        RollupBatch::Key hour = key;
        std::get<0>(hour) -= std::get<0>(hour) % kHourMs;
        RollupBatch::Sums &h = hours[hour];
        h.attempts += sums.attempts;
        h.waitMs += sums.waitMs;
        h.queueMs += sums.queueMs;
        h.durationMs += sums.durationMs;
    }
    const auto upsertInto = [this](const char *table, const char *timeColumn,
                                   const std::map<RollupBatch::Key, RollupBatch::Sums> &rows) {
        SqlStatement *upsert = m_db->cached(
            QStringLiteral(
                "INSERT INTO %1 (%2, endpoint_id, policy_id, partition_key, status_class,"
                " decision, wait_source, reason, attempts, wait_ms, queue_ms, duration_ms)"
                " VALUES (:at, :endpoint, :policy, :partition, :status, :decision, :source,"
                " :reason, :attempts, :wait, :queue, :duration)"
                " ON CONFLICT (%2, endpoint_id, policy_id, partition_key, status_class, decision,"
                " wait_source, reason) DO UPDATE SET attempts = %1.attempts + excluded.attempts,"
                " wait_ms = %1.wait_ms + excluded.wait_ms,"
                " queue_ms = %1.queue_ms + excluded.queue_ms,"
                " duration_ms = %1.duration_ms + excluded.duration_ms")
                .arg(QLatin1String(table), QLatin1String(timeColumn)));
        if (!upsert)
            return false;
        for (const auto &[key, sums] : rows) {
            upsert->bindValue(QStringLiteral(":at"), std::get<0>(key));
            upsert->bindValue(QStringLiteral(":endpoint"), std::get<1>(key));
            upsert->bindValue(QStringLiteral(":policy"), std::get<2>(key));
            upsert->bindValue(QStringLiteral(":partition"), std::get<3>(key));
            upsert->bindValue(QStringLiteral(":status"), std::get<4>(key));
            upsert->bindValue(QStringLiteral(":decision"), std::get<5>(key));
            upsert->bindValue(QStringLiteral(":source"), std::get<6>(key));
            upsert->bindValue(QStringLiteral(":reason"), std::get<7>(key));
            upsert->bindValue(QStringLiteral(":attempts"), sums.attempts);
            upsert->bindValue(QStringLiteral(":wait"), sums.waitMs);
            upsert->bindValue(QStringLiteral(":queue"), sums.queueMs);
            upsert->bindValue(QStringLiteral(":duration"), sums.durationMs);
            if (!m_db->exec(*upsert))
                return false;
        }
        return true;
    };
    return upsertInto("attempt_rollups", "minute_at", batch.rows()) &&
           upsertInto("attempt_rollups_hourly", "hour_at", hours);
}

bool Store::writeInFlightPeaks(const QList<InFlightPeak> &peaks, const QString &workerId)
{
    if (peaks.isEmpty())
        return true;
    // The minute's row, then the hour's: the higher peak stays.
    std::map<qint64, int> minutes;
    std::map<qint64, int> hours;
    for (const InFlightPeak &p : peaks) {
        if (p.peak <= 0)
            continue;
        const qint64 minute = p.minuteAtMs - p.minuteAtMs % kMinuteMs;
        minutes[minute] = std::max(minutes[minute], p.peak);
        hours[minute - minute % kHourMs] = std::max(hours[minute - minute % kHourMs], p.peak);
    }
    const auto upsertInto = [&](const char *table, const char *timeColumn,
                                const std::map<qint64, int> &rows) {
        SqlStatement *upsert = m_db->cached(
            QStringLiteral("INSERT INTO %1 (%2, worker_id, peak) VALUES (:at, :worker, :peak)"
                           " ON CONFLICT (%2, worker_id) DO UPDATE SET peak = %3(%1.peak,"
                           " excluded.peak)")
                .arg(QLatin1String(table), QLatin1String(timeColumn), m_db->dialect().greatest()));
        if (!upsert)
            return false;
        for (const auto &[at, peak] : rows) {
            upsert->bindValue(QStringLiteral(":at"), at);
            upsert->bindValue(QStringLiteral(":worker"), workerId);
            upsert->bindValue(QStringLiteral(":peak"), peak);
            if (!m_db->exec(*upsert))
                return false;
        }
        return true;
    };
    return upsertInto("inflight_peaks", "minute_at", minutes) &&
           upsertInto("inflight_peaks_hourly", "hour_at", hours);
}

bool Store::handOverPermits(const QList<FinishRequest> &requests,
                            const QList<FinishOutcome> &outcomes, const QString &workerId)
{
    SqlStatement *update = nullptr;
    for (qsizetype i = 0; i < requests.size(); ++i) {
        const FinishRequest &request = requests.at(i);
        if (request.permitTo < 0 || outcomes.at(i).result != FinishResult::Committed)
            continue;
        if (!update) {
            update = m_db->cached(QStringLiteral(
                "UPDATE operations SET holds_permit = 1 WHERE id = :id AND version = :version"
                " AND lease_owner = :owner AND state = 'running'"));
            if (!update)
                return false;
        }
        update->bindValue(QStringLiteral(":id"), request.permitTo);
        update->bindValue(QStringLiteral(":version"), request.permitToVersion);
        update->bindValue(QStringLiteral(":owner"), text(workerId));
        if (!m_db->exec(*update))
            return false;
    }
    return true;
}

QList<Store::FinishOutcome> Store::finishAttempts(const QList<FinishRequest> &requests,
                                                  const QString &workerId,
                                                  const QList<InFlightPeak> &peaks)
{
    QList<FinishOutcome> outcomes(requests.size());
    const auto failAll = [&](const QString &detail) {
        m_db->fail(QStringLiteral("finish attempts"), detail);
        for (FinishOutcome &outcome : outcomes) {
            outcome.result = FinishResult::Failed;
            outcome.error = m_db->lastError();
        }
        return outcomes;
    };
    if (requests.isEmpty())
        return outcomes;
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive())
        return failAll(transaction.error());
    RollupBatch rollups;
    for (qsizetype i = 0; i < requests.size(); ++i) {
        const FinishRequest &request = requests.at(i);
        // Only a retry's next attempt can have waited past its due time; its
        // previous attempt is read before this one is written.
        qint64 dueAtMs = -1;
        if (request.attempt.attempt > 1) {
            const std::optional<qint64> due = previousDueAtMs(request.attempt.operationId);
            if (!due)
                return failAll(m_db->lastError());
            dueAtMs = *due;
        }
        if (!finishOne(request, workerId, &outcomes[i]))
            return failAll(m_db->lastError());
        const bool conflict = outcomes.at(i).result == FinishResult::LeaseConflict;
        const QString &partitionKey =
            conflict ? outcomes.at(i).operation.partitionKey : request.newState.partitionKey;
        rollups.add(request.attempt, partitionKey, conflict, dueAtMs);
        // The SLA report tells operations that succeeded only after a 429 or 503 apart.
        if (!conflict && request.attempt.decision == Decision::Success &&
            request.attempt.attempt > 1) {
            bool throttled = false;
            if (!throttledBefore(request.attempt.operationId, &throttled))
                return failAll(m_db->lastError());
            if (throttled)
                rollups.addThrottledSuccess(request.attempt);
        }
    }
    // Permits handed over to operations on standby, in the transaction that releases
    // them: the fleet's count of permits never drops while a request is in flight.
    if (!handOverPermits(requests, outcomes, workerId))
        return failAll(m_db->lastError());
    // What the responses said about their quotas, after the attempts: an operation
    // just finished no longer counts as in flight.
    for (const FinishRequest &request : requests) {
        if (request.quota && !observeQuota(request))
            return failAll(m_db->lastError());
    }
    if (!observeAnswers(requests))
        return failAll(m_db->lastError());
    // Last: on PostgreSQL the rollup rows are the ones other workers' commits touch
    // too, so their locks are held for the shortest time.
    if (!writeRollups(rollups))
        return failAll(m_db->lastError());
    if (!writeReportCounts(rollups))
        return failAll(m_db->lastError());
    if (!writeInFlightPeaks(peaks, workerId))
        return failAll(m_db->lastError());
    if (!transaction.commit())
        return failAll(transaction.error());
    for (const FinishOutcome &outcome : std::as_const(outcomes)) {
        if (outcome.result == FinishResult::LeaseConflict)
            qCWarning(lcStore).noquote() << "lease conflict:" << outcome.error;
    }
    return outcomes;
}

bool Store::forEachRollup(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                          const std::function<bool(const RollupRecord &)> &visit)
{
    const qint64 bucket = wholeMinutes(bucketMs);
    const qint64 from = std::max<qint64>(0, fromMs);
    const qint64 hoursTo = hourlyUntil(from, toMs, bucket);
    if (hoursTo > from) {
        const ScanOutcome hours =
            scanRollups("attempt_rollups_hourly", "hour_at", from, hoursTo, bucket, visit);
        if (hours != ScanOutcome::Done)
            return hours == ScanOutcome::Stopped ? (m_db->clearError(), false) : false;
        if (hoursTo >= toMs)
            return true;
    }
    const ScanOutcome minutes =
        scanRollups("attempt_rollups", "minute_at", hoursTo, toMs, bucket, visit);
    if (minutes == ScanOutcome::Stopped)
        m_db->clearError();
    return minutes == ScanOutcome::Done;
}

Store::ScanOutcome Store::scanRollups(const char *table, const char *timeColumn, qint64 fromMs,
                                      qint64 toMs, qint64 bucketMs,
                                      const std::function<bool(const RollupRecord &)> &visit)
{
    const QString keys = QStringLiteral(
        "endpoint_id, policy_id, partition_key, status_class, decision, wait_source, reason");
    const QString time = QLatin1String(timeColumn);
    const bool whole = (bucketMs == kMinuteMs && time == QLatin1String("minute_at")) ||
                       (bucketMs == kHourMs && time == QLatin1String("hour_at"));
    QString sql;
    if (whole) {
        sql = QStringLiteral("SELECT %1, %2, attempts, wait_ms, queue_ms, duration_ms FROM %3"
                             " WHERE %1 >= :from AND %1 < :to ORDER BY %1")
                  .arg(time, keys, QLatin1String(table));
    } else {
        const QString start = QStringLiteral("%1 - %1 % %2").arg(time).arg(bucketMs);
        sql = QStringLiteral("SELECT %1, %2, CAST(SUM(attempts) AS BIGINT),"
                             " CAST(SUM(wait_ms) AS BIGINT), CAST(SUM(queue_ms) AS BIGINT),"
                             " CAST(SUM(duration_ms) AS BIGINT) FROM %3"
                             " WHERE %4 >= :from AND %4 < :to"
                             " GROUP BY %1, %2 ORDER BY %1")
                  .arg(start, keys, QLatin1String(table), time);
    }
    QSqlQuery query(m_db->connection());
    query.setForwardOnly(true);
    if (!query.prepare(sql)) {
        m_db->fail(QStringLiteral("rollups"), errorText(query.lastError()));
        return ScanOutcome::Failed;
    }
    query.bindValue(QStringLiteral(":from"), fromMs);
    query.bindValue(QStringLiteral(":to"), toMs);
    if (!m_db->exec(query))
        return ScanOutcome::Failed;
    while (query.next()) {
        if (!visit(readRollup(query)))
            return ScanOutcome::Stopped;
    }
    if (query.lastError().isValid()) {
        m_db->fail(QStringLiteral("rollups"), errorText(query.lastError()));
        return ScanOutcome::Failed;
    }
    m_db->clearError();
    return ScanOutcome::Done;
}

QList<RollupRecord> Store::recountRollups(qint64 fromMs, qint64 toMs)
{
    QList<RollupRecord> out;
    QSqlQuery query(m_db->connection());
    query.setForwardOnly(true);
    if (!query.exec(schema::rollupRecount(fromMs, toMs) + QStringLiteral(" ORDER BY 1"))) {
        m_db->fail(QStringLiteral("recount rollups"), errorText(query.lastError()));
        return out;
    }
    while (query.next())
        out.append(readRollup(query));
    m_db->clearError();
    return out;
}

bool Store::forEachAttemptSum(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                              const std::function<bool(const RollupRecord &)> &visit)
{
    // The rollups' key and sums for each attempt, as schema::rollupRecount() counts
    // them, but over the attempts of the range only: they are found through the index on
    // started_at (an attempt ends after it starts, at most an exchange's longest timeout
    // later), and each one's queue time is measured from its operation's previous
    // attempt that kept its lease, found by operation (previousDueAtMs() at the write).
    const qint64 bucket = std::clamp<qint64>(bucketMs, 1, kMinuteMs);
    const QString end = QStringLiteral("CASE WHEN a.finished_at >= 0 THEN a.finished_at"
                                       " WHEN a.started_at >= 0 THEN a.started_at ELSE 0 END");
    const QString sql =
        QStringLiteral(
            "SELECT bucket_at, endpoint_id, policy_id, partition_key, status_class, decision,"
            " wait_source, reason, CAST(COUNT(*) AS BIGINT), CAST(SUM(wait_ms) AS BIGINT),"
            " CAST(SUM(queue_ms) AS BIGINT), CAST(SUM(duration_ms) AS BIGINT)"
            " FROM (SELECT e.end_at - e.end_at % %2 AS bucket_at,"
            " e.endpoint_id AS endpoint_id, e.policy_id AS policy_id,"
            " COALESCE(o.partition_key, '') AS partition_key,"
            " CASE WHEN e.status = 0 THEN 'none'"
            " WHEN e.status IN (429, 503) THEN CAST(e.status AS TEXT)"
            " ELSE CAST(e.status / 100 AS TEXT) || 'xx' END AS status_class,"
            " CASE WHEN e.lease_conflict = 1 THEN 'conflict' ELSE e.decision END AS decision,"
            " CASE WHEN e.lease_conflict = 0 AND e.decision = 'retry' THEN"
            " CASE WHEN e.wait_source = '' THEN 'backoff' ELSE e.wait_source END"
            " ELSE '' END AS wait_source,"
            " CASE WHEN e.lease_conflict = 0 AND e.decision = 'fail' THEN"
            " CASE WHEN e.reason = '' THEN 'unknown' ELSE e.reason END"
            " WHEN e.lease_conflict = 0 AND e.decision = 'success' AND e.reason = 'degraded'"
            " THEN 'degraded' WHEN e.lease_conflict = 0 AND e.decision = 'retry'"
            " AND e.reason = 'offline' THEN 'offline' ELSE '' END AS reason,"
            " CASE WHEN e.lease_conflict = 0 AND e.decision = 'retry' AND e.wait_ms > 0"
            " THEN e.wait_ms ELSE 0 END AS wait_ms,"
            " CASE WHEN e.lease_conflict = 0 AND e.started_at > e.due_at"
            " THEN e.started_at - e.due_at ELSE 0 END AS queue_ms,"
            " CASE WHEN e.duration_ms > 0 THEN e.duration_ms ELSE 0 END AS duration_ms"
            " FROM (SELECT a.operation_id, a.endpoint_id, a.policy_id, a.status, a.decision,"
            " a.lease_conflict, a.wait_source, a.reason, a.wait_ms, a.started_at,"
            " a.duration_ms, %1 AS end_at,"
            " (SELECT CASE WHEN p.decision = 'retry' AND p.wait_ms >= 0 THEN"
            " (CASE WHEN p.finished_at >= 0 THEN p.finished_at ELSE p.started_at END)"
            " + p.wait_ms END FROM attempts p WHERE p.operation_id = a.operation_id"
            " AND p.lease_conflict = 0 AND p.id < a.id ORDER BY p.id DESC LIMIT 1) AS due_at"
            " FROM attempts a WHERE a.started_at >= :scan AND a.started_at < :startedBefore"
            " AND %1 >= :from AND %1 < :to) e"
            " LEFT JOIN operations o ON o.id = e.operation_id) r"
            " GROUP BY bucket_at, endpoint_id, policy_id, partition_key, status_class,"
            " decision, wait_source, reason ORDER BY bucket_at")
            .arg(end)
            .arg(bucket);
    QSqlQuery query(m_db->connection());
    query.setForwardOnly(true);
    if (!query.prepare(sql)) {
        m_db->fail(QStringLiteral("attempt sums"), errorText(query.lastError()));
        return false;
    }
    const qint64 from = std::max<qint64>(0, fromMs);
    query.bindValue(QStringLiteral(":scan"), from - kLongestExchangeMs);
    query.bindValue(QStringLiteral(":from"), from);
    query.bindValue(QStringLiteral(":startedBefore"), toMs);
    query.bindValue(QStringLiteral(":to"), toMs);
    if (!m_db->exec(query))
        return false;
    while (query.next()) {
        if (!visit(readRollup(query))) {
            m_db->clearError();
            return false;
        }
    }
    if (query.lastError().isValid()) {
        m_db->fail(QStringLiteral("attempt sums"), errorText(query.lastError()));
        return false;
    }
    m_db->clearError();
    return true;
}

QList<RollupRecord> Store::rollups(qint64 fromMs, qint64 toMs, qint64 bucketMs)
{
    QList<RollupRecord> out;
    forEachRollup(fromMs, toMs, bucketMs, [&out](const RollupRecord &row) {
        out.append(row);
        return true;
    });
    return out;
}

std::optional<QList<Store::InFlightPeak>> Store::inFlightPeaks(qint64 fromMs, qint64 toMs,
                                                               qint64 bucketMs)
{
    QList<InFlightPeak> out;
    const qint64 bucket = wholeMinutes(bucketMs);
    const qint64 from = std::max<qint64>(0, fromMs);
    std::map<qint64, int> peaks; // bucket start -> the fleet's peak
    // Per minute (or hour) the workers add up: each had its peak at some moment of it,
    // so the sum bounds the fleet's from above. A bucket shows its highest one.
    const auto scan = [&](const char *table, const char *timeColumn, qint64 scanFrom,
                          qint64 scanTo) {
        SqlStatement *query =
            m_db->cached(QStringLiteral("SELECT %1 - %1 % %3 AS bucket_at, MAX(fleet) FROM"
                                        " (SELECT %1, SUM(peak) AS fleet FROM %2"
                                        " WHERE %1 >= :from AND %1 < :to GROUP BY %1) m"
                                        " GROUP BY %1 - %1 % %3")
                             .arg(QLatin1String(timeColumn), QLatin1String(table))
                             .arg(bucket));
        if (!query)
            return false;
        query->bindValue(QStringLiteral(":from"), scanFrom);
        query->bindValue(QStringLiteral(":to"), scanTo);
        if (!m_db->exec(*query))
            return false;
        while (query->next()) {
            int &peak = peaks[query->value(0).toLongLong()];
            peak = std::max(peak, query->value(1).toInt());
        }
        if (query->lastError().isValid())
            return m_db->fail(QStringLiteral("in-flight peaks"), errorText(query->lastError()));
        query->finish();
        return true;
    };
    // Hourly rows where the rollups read them (with several workers a looser bound:
    // their peaks in an hour need not have come at once).
    const qint64 hoursTo = hourlyUntil(from, toMs, bucket);
    if (hoursTo > from && !scan("inflight_peaks_hourly", "hour_at", from, hoursTo))
        return std::nullopt;
    if (toMs > hoursTo && !scan("inflight_peaks", "minute_at", hoursTo, toMs))
        return std::nullopt;
    for (const auto &[at, peak] : peaks)
        out.append({at, peak});
    m_db->clearError();
    return out;
}

qint64 Store::finalFailuresSince(qint64 sinceMs)
{
    SqlStatement *query = m_db->cached(
        QStringLiteral("SELECT CAST(COALESCE(SUM(attempts), 0) AS BIGINT) FROM attempt_rollups"
                       " WHERE minute_at >= :since AND decision = 'fail'"));
    if (!query)
        return -1;
    const qint64 since = std::max<qint64>(0, sinceMs);
    query->bindValue(QStringLiteral(":since"), since - since % kMinuteMs);
    if (!m_db->exec(*query) || !query->next())
        return -1;
    const qint64 total = query->value(0).toLongLong();
    query->finish();
    m_db->clearError();
    return total;
}

std::optional<QByteArray> Store::changeToken()
{
    // SQLite counts the commits of other connections for us. PostgreSQL has no such
    // counter: the latest ids, the open operations and their versions, and the
    // partitions' holds change with everything the views show.
    SqlStatement *query = m_db->cached(
        !m_db->isPostgres()
            ? QStringLiteral("PRAGMA data_version")
            : QStringLiteral("SELECT (SELECT COALESCE(MAX(id), 0) FROM attempts),"
                             " (SELECT COALESCE(MAX(id), 0) FROM operations),"
                             " (SELECT COUNT(*) FROM operations"
                             " WHERE state IN ('scheduled', 'running', 'waiting', 'parked')),"
                             " (SELECT COALESCE(SUM(version), 0) FROM operations"
                             " WHERE state IN ('scheduled', 'running', 'waiting', 'parked')),"
                             " (SELECT COALESCE(SUM(held_until), 0) FROM rate_partitions),"
                             " (SELECT COUNT(*) FROM rate_partitions),"
                             " (SELECT COALESCE(SUM(paused), 0) FROM endpoints)"));
    if (!query || !m_db->exec(*query) || !query->next())
        return std::nullopt;
    QByteArray token;
    for (int i = 0; i < query->columnCount(); ++i)
        token += query->value(i).toByteArray() + ',';
    query->finish();
    m_db->clearError();
    return token;
}

qint64 Store::earliestAttemptMs()
{
    SqlStatement *query = m_db->cached(QStringLiteral("SELECT MIN(started_at) FROM attempts"));
    if (!query || !m_db->exec(*query) || !query->next())
        return -1;
    const qint64 earliest = query->value(0).isNull() ? -1 : query->value(0).toLongLong();
    query->finish();
    m_db->clearError();
    return earliest;
}

PruneBatch Store::pruneAttempts(qint64 beforeMs, int limit)
{
    PruneBatch batch;
    batch.rows = -1;
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("prune attempts"), transaction.error());
        return batch;
    }
    // From the moment the lock is held (BEGIN IMMEDIATE may first wait for it).
    QElapsedTimer held;
    held.start();
    // The oldest attempts first, through the index on started_at; attempts of an
    // operation that has not ended stay, whatever their age (schema::prunableAttempt,
    // which `cooldown export --prunable` selects by too). SQLite's planner would
    // rather walk the ended operations and sort all their attempts, every batch:
    // CROSS JOIN keeps attempts in the outer loop there.
    const QString victims =
        QStringLiteral("SELECT a.id FROM attempts a %1 operations o ON o.id = a.operation_id"
                       " WHERE %2 ORDER BY a.started_at LIMIT %3")
            .arg(!m_db->isPostgres() ? QLatin1String("CROSS JOIN") : QLatin1String("JOIN"),
                 schema::prunableAttempt(QString::number(beforeMs)))
            .arg(std::max(1, limit));
    QSqlQuery query(m_db->connection());
    query.setForwardOnly(true);
    if (!query.exec(QStringLiteral("SELECT DISTINCT operation_id FROM attempts WHERE id IN (%1)")
                        .arg(victims))) {
        m_db->fail(QStringLiteral("prune attempts"), errorText(query.lastError()));
        return batch;
    }
    QStringList operations;
    while (query.next())
        operations.append(QString::number(query.value(0).toLongLong()));
    query.finish();
    if (operations.isEmpty()) {
        transaction.rollback();
        batch.rows = 0;
        batch.lockedUs = held.nsecsElapsed() / 1000;
        m_db->clearError();
        return batch;
    }
    if (!query.exec(
            QStringLiteral("DELETE FROM kept_exchanges WHERE attempt_id IN (%1)").arg(victims))) {
        m_db->fail(QStringLiteral("prune kept exchanges"), errorText(query.lastError()));
        return batch;
    }
    if (!query.exec(QStringLiteral("DELETE FROM attempts WHERE id IN (%1)").arg(victims))) {
        m_db->fail(QStringLiteral("prune attempts"), errorText(query.lastError()));
        return batch;
    }
    const qint64 deleted = query.numRowsAffected();
    // Their operations go once no attempt of theirs is left (a one-shot endpoint's
    // operation stays: it marks that the endpoint ran).
    if (!query.exec(QStringLiteral("DELETE FROM operations WHERE id IN (%1) AND state IN %2"
                                   " AND created_at < %3"
                                   " AND NOT EXISTS (SELECT 1 FROM attempts a"
                                   " WHERE a.operation_id = operations.id)"
                                   " AND NOT EXISTS (SELECT 1 FROM one_shot_runs r"
                                   " WHERE r.operation_id = operations.id)")
                        .arg(operations.join(u','), schema::endedStates())
                        .arg(beforeMs))) {
        m_db->fail(QStringLiteral("prune operations"), errorText(query.lastError()));
        return batch;
    }
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("prune attempts"), transaction.error());
        return batch;
    }
    batch.rows = deleted;
    batch.lockedUs = held.nsecsElapsed() / 1000;
    m_db->clearError();
    return batch;
}

PruneBatch Store::pruneRollups(qint64 beforeMs, qint64 spanMs)
{
    PruneBatch batch;
    batch.rows = -1;
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("prune rollups"), transaction.error());
        return batch;
    }
    // From the moment the lock is held (BEGIN IMMEDIATE may first wait for it).
    QElapsedTimer held;
    held.start();
    QSqlQuery query(m_db->connection());
    if (!query.exec(QStringLiteral("SELECT MIN(minute_at) FROM attempt_rollups")) ||
        !query.next()) {
        m_db->fail(QStringLiteral("prune rollups"), errorText(query.lastError()));
        return batch;
    }
    const bool empty = query.value(0).isNull();
    const qint64 oldest = query.value(0).toLongLong();
    query.finish();
    if (empty || oldest >= beforeMs) {
        transaction.rollback();
        batch.rows = 0;
        batch.lockedUs = held.nsecsElapsed() / 1000;
        m_db->clearError();
        return batch;
    }
    const qint64 upTo = std::min(beforeMs, oldest + std::max<qint64>(kMinuteMs, spanMs));
    if (!query.exec(QStringLiteral("DELETE FROM attempt_rollups WHERE minute_at < %1").arg(upTo))) {
        m_db->fail(QStringLiteral("prune rollups"), errorText(query.lastError()));
        return batch;
    }
    const qint64 deleted = query.numRowsAffected();
    // With them, what is kept of the same time: the in-flight peaks and the SLA report's
    // counts. Hours and days go whole only: an hour that still holds minutes kept stays.
    const QString minutes = QString::number(upTo);
    const QString hours = QString::number(upTo - kHourMs);
    const QString days = QString::number(upTo - kDayMs);
    const QStringList deletes = {
        QStringLiteral("DELETE FROM inflight_peaks WHERE minute_at < ") + minutes,
        QStringLiteral("DELETE FROM inflight_peaks_hourly WHERE hour_at <= ") + hours,
        QStringLiteral("DELETE FROM attempt_rollups_hourly WHERE hour_at <= ") + hours,
        QStringLiteral("DELETE FROM throttled_successes WHERE minute_at < ") + minutes,
        QStringLiteral("DELETE FROM throttled_successes_hourly WHERE hour_at <= ") + hours,
        QStringLiteral("DELETE FROM attempt_latency_rollups WHERE hour_at <= ") + hours,
        QStringLiteral("DELETE FROM attempt_rollups_daily WHERE day_at <= ") + days,
        QStringLiteral("DELETE FROM attempt_latency_rollups_daily WHERE day_at <= ") + days,
        QStringLiteral("DELETE FROM throttled_successes_daily WHERE day_at <= ") + days,
    };
    for (const QString &statement : deletes) {
        if (!query.exec(statement)) {
            m_db->fail(QStringLiteral("prune rollups"), errorText(query.lastError()));
            return batch;
        }
    }
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("prune rollups"), transaction.error());
        return batch;
    }
    batch.rows = deleted;
    batch.lockedUs = held.nsecsElapsed() / 1000;
    m_db->clearError();
    return batch;
}

qint64 Store::incrementalVacuum(int pages)
{
    if (m_db->isPostgres())
        return 0;
    QSqlQuery query(m_db->connection());
    if (!query.exec(QStringLiteral("PRAGMA auto_vacuum")) || !query.next()) {
        m_db->fail(QStringLiteral("vacuum"), errorText(query.lastError()));
        return -1;
    }
    const int mode = query.value(0).toInt();
    query.finish();
    if (mode != 2)
        return 0; // a database from before schema version 8 reuses its free pages instead
    // The pragma frees one page per step of its statement, and QtSql steps a statement
    // that returns no rows once: sqlite3_exec runs it to the end.
    // Without the linked library, one page per statement, in one transaction.
    if (sqlite3 *connection = m_db->sqliteHandle()) {
        const QByteArray vacuum =
            QStringLiteral("PRAGMA incremental_vacuum(%1)").arg(std::max(1, pages)).toUtf8();
        char *message = nullptr;
        if (sqlite3_exec(connection, vacuum.constData(), nullptr, nullptr, &message) != SQLITE_OK) {
            m_db->fail(QStringLiteral("vacuum"), QString::fromUtf8(message ? message : "?"));
            sqlite3_free(message);
            return -1;
        }
    } else {
        SqlTransaction transaction = m_db->begin();
        if (!transaction.isActive()) {
            m_db->fail(QStringLiteral("vacuum"), transaction.error());
            return -1;
        }
        QSqlQuery step(m_db->connection());
        if (!step.prepare(QStringLiteral("PRAGMA incremental_vacuum(1)"))) {
            m_db->fail(QStringLiteral("vacuum"), errorText(step.lastError()));
            return -1;
        }
        for (int i = 0; i < std::max(1, pages); ++i) {
            if (!step.exec()) {
                m_db->fail(QStringLiteral("vacuum"), errorText(step.lastError()));
                return -1;
            }
            step.finish();
        }
        if (!transaction.commit()) {
            m_db->fail(QStringLiteral("vacuum"), transaction.error());
            return -1;
        }
    }
    if (!query.exec(QStringLiteral("PRAGMA freelist_count")) || !query.next()) {
        m_db->fail(QStringLiteral("vacuum"), errorText(query.lastError()));
        return -1;
    }
    const qint64 left = query.value(0).toLongLong();
    query.finish();
    m_db->clearError();
    return left;
}

} // namespace cooldown
