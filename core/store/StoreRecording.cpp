// SPDX-License-Identifier: Apache-2.0
// The store: attempts recorded with their fences.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/store/ClaimPlanner.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/ratelimit/MeasuredPace.h"
#include "core/store/SqlTransaction.h"
#include "core/store/WalCheckpointer.h"

#include <QAtomicInteger>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QThread>
#include <QUrl>
#include <QVariant>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <limits>
#include <thread>
#include <utility>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace cooldown {

using namespace storesql;

bool Store::insertAttempt(const AttemptRecord &a, bool leaseConflict, qint64 *id)
{
    static const QString sql = QStringLiteral("INSERT INTO attempts (%1) VALUES (%2)")
                                   .arg(attemptInsert().names(), attemptInsert().list());
    SqlStatement *statement = m_db->cached(sql + m_db->dialect().returningId());
    if (!statement)
        return false;
    SqlStatement &query = *statement;
    // Redaction happens here, whatever the caller did.
    const QVariant values[] = {
        a.operationId,
        text(a.endpointId),
        a.attempt,
        a.startedAtMs,
        a.finishedAtMs,
        text(a.method),
        text(redaction::redactUrl(a.url)),
        a.status,
        text(redaction::redactText(a.error)),
        decisionText(a.decision),
        text(redaction::redactText(a.reason)),
        a.waitMs,
        waitSourceText(a.waitSource),
        text(a.retryAfterRaw),
        text(redaction::redactText(a.problemType)),
        text(redaction::redactText(a.problemInstance)),
        a.rateLimitRemaining,
        text(a.idempotencyKey),
        a.durationMs,
        text(a.workerId),
        text(a.policyId),
        a.policyVersion,
        a.forced ? 1 : 0,
        text(redaction::redactHeaderLines(a.requestHeaders)),
        text(redaction::redactHeaderLines(a.responseHeaders)),
        leaseConflict ? 1 : 0,
    };
    attemptInsert().bind(query, values);
    if (!m_db->exec(query))
        return false;
    const QVariant inserted = m_db->dialect().insertedId(query);
    if (m_db->dialect().isPostgres())
        query.finish();
    if (!inserted.isValid())
        return m_db->fail(QStringLiteral("record attempt"), QStringLiteral("no id returned"));
    const qint64 attemptId = inserted.toLongLong();
    if (id)
        *id = attemptId;
    if (!a.checkFailure.isEmpty()) {
        // Written apart: few attempts fail a check, and every attempt's insert stays one
        // statement prepared once.
        SqlStatement *check = m_db->cached(
            QStringLiteral("UPDATE attempts SET check_failure = :check WHERE id = :id"));
        if (!check)
            return false;
        check->bindValue(QStringLiteral(":check"), text(redaction::redactText(a.checkFailure)));
        check->bindValue(QStringLiteral(":id"), attemptId);
        if (!m_db->exec(*check))
            return false;
    }
    return !a.kept || keepExchange(attemptId, a.endpointId, *a.kept);
}

bool Store::keepExchange(qint64 attemptId, const QString &endpointId, const KeptExchange &kept)
{
    // The engine redacted the bodies by their kind (redaction::redactBody); their URLs
    // are redacted again here, whatever the caller did.
    SqlStatement *insert = m_db->cached(QStringLiteral(
        "INSERT INTO kept_exchanges (attempt_id, endpoint_id, request_body, response_body,"
        " request_bytes, response_bytes, response_truncated) VALUES (:attempt, :endpoint,"
        " :request, :response, :request_bytes, :response_bytes, :truncated)"));
    if (!insert)
        return false;
    insert->bindValue(QStringLiteral(":attempt"), attemptId);
    insert->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    insert->bindValue(QStringLiteral(":request"), text(redaction::redactUrls(kept.requestBody)));
    insert->bindValue(QStringLiteral(":response"), text(redaction::redactUrls(kept.responseBody)));
    insert->bindValue(QStringLiteral(":request_bytes"), kept.requestBytes);
    insert->bindValue(QStringLiteral(":response_bytes"), kept.responseBytes);
    insert->bindValue(QStringLiteral(":truncated"), kept.responseTruncated ? 1 : 0);
    if (!m_db->exec(*insert))
        return false;
    // Only the endpoint's last keepLast: the oldest beyond them go.
    SqlStatement *trim = m_db->cached(QStringLiteral(
        "DELETE FROM kept_exchanges WHERE endpoint_id = :endpoint AND attempt_id <= (SELECT"
        " attempt_id FROM kept_exchanges WHERE endpoint_id = :endpoint2"
        " ORDER BY attempt_id DESC LIMIT 1 OFFSET :keep)"));
    if (!trim)
        return false;
    trim->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    trim->bindValue(QStringLiteral(":endpoint2"), text(endpointId));
    trim->bindValue(QStringLiteral(":keep"), std::max(0, kept.keepLast));
    return m_db->exec(*trim);
}

std::optional<KeptExchange> Store::keptExchange(qint64 attemptId)
{
    QSqlQuery query = m_db->prepare(QStringLiteral(
        "SELECT request_body, response_body, request_bytes, response_bytes, response_truncated"
        " FROM kept_exchanges WHERE attempt_id = :attempt"));
    query.bindValue(QStringLiteral(":attempt"), attemptId);
    if (!m_db->exec(query) || !query.next())
        return std::nullopt;
    KeptExchange kept;
    kept.requestBody = query.value(0).toString();
    kept.responseBody = query.value(1).toString();
    kept.requestBytes = query.value(2).toLongLong();
    kept.responseBytes = query.value(3).toLongLong();
    kept.responseTruncated = query.value(4).toInt() != 0;
    return kept;
}

Store::FinishResult Store::finishAttempt(const AttemptRecord &attempt,
                                         const OperationRecord &newState, qint64 claimedVersion,
                                         const QString &workerId)
{
    const FinishOutcome outcome =
        finishAttempts({{attempt, newState, claimedVersion}}, workerId).value(0);
    if (outcome.result != FinishResult::Committed)
        m_db->setError(outcome.error);
    return outcome.result;
}

bool Store::observeQuota(const FinishRequest &request)
{
    const QString lock = m_db->dialect().forUpdate();
    SqlStatement *row = m_db->cached(
        QStringLiteral("SELECT server_quota, server_window_ms, server_remaining, server_reset_at,"
                       " server_known_until, server_opened_at FROM rate_partitions"
                       " WHERE policy_id = :policy AND partition_key = :partition") +
        lock);
    SqlStatement *running = m_db->cached(QStringLiteral(
        "SELECT COUNT(*) FROM operations WHERE state = 'running' AND policy_id = :policy"
        " AND partition_key = :partition"));
    SqlStatement *update = m_db->cached(QStringLiteral(
        "UPDATE rate_partitions SET server_quota = :quota, server_window_ms = :window,"
        " server_remaining = :remaining, server_reset_at = :reset,"
        " server_known_until = :until, server_opened_at = :opened, learned_from = :from,"
        " learned_at = :at,"
        // A learned partition paced by the server's refusals is paced by what it states.
        " interval_us = CASE WHEN policy_id LIKE 'learned:%' THEN 0 ELSE interval_us END,"
        " next_at = CASE WHEN :open = 1 AND look_at < next_at THEN look_at ELSE next_at END"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    if (!row || !running || !update)
        return false;
    const QString policy = request.quotaPolicyId;
    const QString partition = request.quotaPartitionKey;
    row->bindValue(QStringLiteral(":policy"), text(policy));
    row->bindValue(QStringLiteral(":partition"), text(partition));
    if (!m_db->exec(*row))
        return false;
    if (!row->next()) {
        row->finish();
        return true; // no such partition (any more): nothing to pace
    }
    ServerWindow window;
    window.quota = row->value(0).toLongLong();
    window.windowMs = row->value(1).toLongLong();
    window.remaining = row->value(2).toLongLong();
    window.resetAtMs = row->value(3).toLongLong();
    window.knownUntilMs = row->value(4).toLongLong();
    window.openedAtMs = row->value(5).toLongLong();
    row->finish();
    running->bindValue(QStringLiteral(":policy"), text(policy));
    running->bindValue(QStringLiteral(":partition"), text(partition));
    if (!m_db->exec(*running) || !running->next())
        return m_db->fail(QStringLiteral("quota"), errorText(running->lastError()));
    const qint64 othersInFlight = running->value(0).toLongLong();
    running->finish();
    const qint64 now = request.quotaObservedAtMs;
    window.observe(*request.quota, othersInFlight, now);
    if (window.quota <= 0)
        return true;
    update->bindValue(QStringLiteral(":quota"), window.quota);
    update->bindValue(QStringLiteral(":window"), window.windowMs);
    update->bindValue(QStringLiteral(":remaining"), window.remaining);
    update->bindValue(QStringLiteral(":reset"), window.resetAtMs);
    update->bindValue(QStringLiteral(":until"), window.knownUntilMs);
    update->bindValue(QStringLiteral(":opened"), window.openedAtMs);
    update->bindValue(QStringLiteral(":from"), text(request.quota->fields));
    update->bindValue(QStringLiteral(":at"), now);
    update->bindValue(QStringLiteral(":open"), window.available(0, now) > 0 ? 1 : 0);
    update->bindValue(QStringLiteral(":policy"), text(policy));
    update->bindValue(QStringLiteral(":partition"), text(partition));
    return m_db->exec(*update);
}

bool Store::observeAnswers(const QList<FinishRequest> &requests)
{
    // The answers of each learned partition, in order. A statement of a quota paces
    // the partition by itself (observeQuota).
    QList<QPair<QString, QString>> partitions;
    QHash<QPair<QString, QString>, QList<const FinishRequest *>> answers;
    for (const FinishRequest &request : requests) {
        const OperationRecord &op = request.newState;
        if (!isLearnedPolicyId(op.policyId) || request.attempt.status <= 0 ||
            (request.quota && request.quota->quota > 0))
            continue;
        const QPair<QString, QString> key{op.policyId, op.partitionKey};
        if (!answers.contains(key))
            partitions.append(key);
        answers[key].append(&request);
    }
    if (partitions.isEmpty())
        return true;
    const QString lock = m_db->dialect().forUpdate();
    SqlStatement *row = m_db->cached(
        QStringLiteral("SELECT interval_us, measured_since, measured_accepted, measured_raised_at,"
                       " server_quota, server_known_until FROM rate_partitions"
                       " WHERE policy_id = :policy AND partition_key = :partition") +
        lock);
    SqlStatement *update = m_db->cached(QStringLiteral(
        "UPDATE rate_partitions SET interval_us = :interval, capacity = 1,"
        " measured_since = :since, measured_accepted = :accepted, measured_raised_at = :raised,"
        " learned_from = CASE WHEN :lesson = '' THEN learned_from ELSE :lesson2 END,"
        " learned_at = CASE WHEN :lesson3 = '' THEN learned_at ELSE :at END"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    if (!row || !update)
        return false;
    for (const auto &key : std::as_const(partitions)) {
        row->bindValue(QStringLiteral(":policy"), text(key.first));
        row->bindValue(QStringLiteral(":partition"), text(key.second));
        if (!m_db->exec(*row))
            return false;
        if (!row->next()) {
            row->finish();
            continue; // no such partition (any more)
        }
        MeasuredPace pace;
        pace.intervalUs = row->value(0).toLongLong();
        pace.sinceMs = row->value(1).toLongLong();
        pace.accepted = row->value(2).toLongLong();
        pace.raisedAtMs = row->value(3).toLongLong();
        const bool stated = row->value(4).toLongLong() > 0;
        const qint64 statedUntil = row->value(5).toLongLong();
        row->finish();
        QString lesson;
        qint64 lessonAt = 0;
        for (const FinishRequest *request : answers.value(key)) {
            const AttemptRecord &a = request->attempt;
            if (stated && statedUntil > a.finishedAtMs)
                continue; // paced by what the server states
            const bool refused = a.status == 429;
            const qint64 holdMs = a.waitSource == WaitSource::RetryAfter ? a.waitMs : 0;
            const MeasuredPace before = pace;
            pace.answered(refused, holdMs, a.startedAtMs, a.finishedAtMs);
            if (refused && pace.intervalUs != before.intervalUs) {
                lesson = QStringLiteral("429 after %1 accepted answers in %2 s%3")
                             .arg(before.accepted)
                             .arg(double(a.finishedAtMs - before.sinceMs) / 1000.0, 0, 'f', 1)
                             .arg(a.retryAfterRaw.isEmpty()
                                      ? QString()
                                      : QStringLiteral(", Retry-After: ") + a.retryAfterRaw);
                lessonAt = a.finishedAtMs;
            }
        }
        update->bindValue(QStringLiteral(":interval"), pace.intervalUs);
        update->bindValue(QStringLiteral(":since"), pace.sinceMs);
        update->bindValue(QStringLiteral(":accepted"), pace.accepted);
        update->bindValue(QStringLiteral(":raised"), pace.raisedAtMs);
        update->bindValue(QStringLiteral(":lesson"), text(lesson));
        update->bindValue(QStringLiteral(":lesson2"), text(lesson));
        update->bindValue(QStringLiteral(":lesson3"), text(lesson));
        update->bindValue(QStringLiteral(":at"), lessonAt);
        update->bindValue(QStringLiteral(":policy"), text(key.first));
        update->bindValue(QStringLiteral(":partition"), text(key.second));
        if (!m_db->exec(*update))
            return false;
    }
    return true;
}

namespace {

// One statement applies the new state where the fence holds; a pending cancel turns
// any state but succeeded and failed into cancelled on the way. PostgreSQL returns
// the flag with the update.
const QString &finishStatement(bool postgres)
{
    static const QString sql = QStringLiteral(
        "UPDATE operations SET"
        " state = CASE WHEN cancel_requested = 1 THEN :cancelled_state ELSE :state END,"
        " attempt = :attempt, throttled_attempts = :throttled_attempts,"
        " first_attempt_at = :first_attempt_at,"
        " next_attempt_at = CASE WHEN cancel_requested = 1 THEN CAST(:cancelled_next AS BIGINT)"
        " ELSE CAST(:next AS BIGINT) END,"
        " last_status = :last_status, last_error = :last_error,"
        " response_instance = :response_instance,"
        " final_reason = CASE WHEN cancel_requested = 1 THEN :cancelled_reason ELSE :reason END,"
        " wait_source = :wait_source, previous_backoff_ms = :previous_backoff_ms,"
        " force_next = :force_next, rescued = 0,"
        " lease_owner = CASE WHEN cancel_requested = 1 THEN :cancelled_owner ELSE :owner END,"
        " lease_expires_at = CASE WHEN cancel_requested = 1 THEN CAST(:cancelled_expires AS BIGINT)"
        " ELSE CAST(:expires AS BIGINT) END, version = version + 1"
        " WHERE id = :id AND version = :version AND lease_owner = :worker");
    static const QString returning = sql + QStringLiteral(" RETURNING cancel_requested");
    return postgres ? returning : sql;
}

// The operation as finishStatement will store it, without and with a pending cancel:
// which of the two it became is known only once the statement ran.
struct FinishedRecords
{
    OperationRecord stored;
    OperationRecord cancelled;
};

FinishedRecords finishedRecords(const Store::FinishRequest &request, const QString &workerId)
{
    const OperationRecord &next = request.newState;
    FinishedRecords records;
    OperationRecord &stored = records.stored;
    stored = next;
    stored.id = request.attempt.operationId;
    stored.version = request.claimedVersion + 1;
    stored.lastError = redaction::redactText(next.lastError);
    stored.responseInstance = redaction::redactText(next.responseInstance);
    stored.rescued = false;
    const bool keepsLease = next.state == OperationState::Running;
    stored.leaseOwner = keepsLease ? workerId : QString();
    stored.leaseExpiresAtMs = keepsLease ? next.leaseExpiresAtMs : -1;
    OperationRecord &cancelled = records.cancelled;
    cancelled = stored;
    cancelled.cancelRequested = true;
    if (next.state != OperationState::Succeeded && next.state != OperationState::Failed) {
        cancelled.state = OperationState::Cancelled;
        cancelled.finalReason = QStringLiteral("cancelled_by_operator");
        cancelled.nextAttemptAtMs = -1;
        cancelled.leaseOwner.clear();
        cancelled.leaseExpiresAtMs = -1;
    }
    return records;
}

// finishStatement's values: each column's pair for a pending cancel and without, then
// the fence.
void bindFinish(SqlStatement &update, const Store::FinishRequest &request,
                const FinishedRecords &records, const QString &workerId)
{
    const OperationRecord &next = request.newState;
    const OperationRecord &stored = records.stored;
    const OperationRecord &cancelled = records.cancelled;
    const QVariant values[] = {
        stateText(cancelled.state),
        stateText(stored.state),
        next.attempt,
        next.throttledAttempts,
        next.firstAttemptAtMs,
        cancelled.nextAttemptAtMs,
        stored.nextAttemptAtMs,
        next.lastStatus,
        text(stored.lastError),
        text(stored.responseInstance),
        text(cancelled.finalReason),
        text(stored.finalReason),
        waitSourceText(next.waitSource),
        next.previousBackoffMs,
        next.forceNext ? 1 : 0,
        text(cancelled.leaseOwner),
        text(stored.leaseOwner),
        cancelled.leaseExpiresAtMs,
        stored.leaseExpiresAtMs,
        request.attempt.operationId,
        request.claimedVersion,
        text(workerId),
    };
    finishUpdate().bind(update, values);
}

// What a worker that lost its lease is told: whose the operation is now, at which
// version.
QString leaseConflictText(const Store::FinishRequest &request, const QString &workerId,
                          const OperationRecord &current)
{
    return QStringLiteral("operation %1: worker '%2' held version %3, the store has "
                          "version %4 leased to '%5'")
        .arg(request.attempt.operationId)
        .arg(workerId)
        .arg(request.claimedVersion)
        .arg(current.version)
        .arg(current.leaseOwner);
}

} // namespace

bool Store::finishOne(const FinishRequest &request, const QString &workerId, FinishOutcome *outcome)
{
    const bool postgres = m_db->isPostgres();
    SqlStatement *update = m_db->cached(finishStatement(postgres));
    if (!update)
        return false;
    const AttemptRecord &attempt = request.attempt;
    const FinishedRecords records = finishedRecords(request, workerId);
    bindFinish(*update, request, records, workerId);
    if (!m_db->exec(*update))
        return false;
    // Whether a cancel was pending: PostgreSQL returned it with the update; SQLite
    // would build a temporary table for that (see insertAttempt), so there the flag
    // is read back by key.
    bool applied = false;
    bool cancelRequested = false;
    if (postgres) {
        applied = update->next();
        cancelRequested = applied && update->value(0).toInt() != 0;
        update->finish();
    } else if (update->numRowsAffected() == 1) {
        SqlStatement *flag =
            m_db->cached(QStringLiteral("SELECT cancel_requested FROM operations WHERE id = :id"));
        if (!flag)
            return false;
        flag->bindValue(QStringLiteral(":id"), attempt.operationId);
        if (!m_db->exec(*flag) || !flag->next())
            return m_db->fail(QStringLiteral("finish"), QStringLiteral("the operation vanished"));
        applied = true;
        cancelRequested = flag->value(0).toInt() != 0;
        flag->finish();
    }

    if (applied) {
        outcome->result = FinishResult::Committed;
        outcome->operation = cancelRequested ? records.cancelled : records.stored;
        return insertAttempt(attempt, false, nullptr);
    }

    // The fence did not hold. The request did leave: keep what it got, but let it
    // change nothing.
    const OperationLookup lookup = lookUpOperation(attempt.operationId);
    if (lookup.result != OperationLookup::Result::Found) {
        outcome->result = FinishResult::Failed;
        outcome->error = QStringLiteral("operation %1 does not exist").arg(attempt.operationId);
        return lookup.result == OperationLookup::Result::Missing;
    }
    outcome->result = FinishResult::LeaseConflict;
    outcome->operation = lookup.record;
    outcome->error = leaseConflictText(request, workerId, lookup.record);
    return insertAttempt(attempt, true, nullptr);
}

} // namespace cooldown
