// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/JobValues.h"
#include "core/ratelimit/Gcra.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/retry/Decision.h"

#include <QList>
#include <QMetaType>
#include <QString>

#include <memory>
#include <optional>

namespace cooldown {

// scheduled → running → waiting → running → … → succeeded | failed | parked | cancelled
enum class OperationState
{
    Scheduled,
    Running,
    Waiting,
    Succeeded,
    Failed,
    Parked,
    Cancelled
};

// toString() takes the state through this implicit wrapper so that QTest's
// QCOMPARE(state, state) still finds its own toString: an exact-match overload here
// returning QString would hide it and fail to compile.
struct OperationStateName
{
    OperationStateName(OperationState s) : state(s) {} // NOLINT: implicit on purpose
    OperationState state;
};

// "scheduled", "running", ... as stored, exported and typed on the command line.
QString toString(OperationStateName state);
std::optional<OperationState> operationStateFromString(QStringView text);
// Succeeded, Failed and Cancelled end an operation; Parked waits for an operator.
bool isFinal(OperationState state);
QList<OperationState> allOperationStates();

// One logical run of an endpoint; keeps one idempotency key for all its attempts.
// Times are UTC milliseconds since the Unix epoch; -1 means "not set".
struct OperationRecord
{
    qint64 id = 0;
    QString endpointId;
    OperationState state = OperationState::Scheduled;
    int attempt = 0;           // attempts made so far
    int throttledAttempts = 0; // of which answered 429 or 503
    qint64 createdAtMs = -1;
    qint64 firstAttemptAtMs = -1;
    qint64 nextAttemptAtMs = -1;
    int lastStatus = 0; // 0 until a response arrived
    QString lastError;  // redacted when stored
    QString idempotencyKey;
    QString responseInstance; // redacted when stored
    QString leaseOwner;       // empty unless running
    qint64 leaseExpiresAtMs = -1;
    qint64 version = 0; // bumped by every claim and every state change
    QString finalReason;
    std::optional<WaitSource> waitSource; // the last attempt's; empty before the first
    qint64 previousBackoffMs = 0;
    QString policyId;
    QString partitionKey;
    bool forceNext = false; // the next attempt bypasses the partition's token bucket
    // Set by a claim (Claims::claim) when the claim took over a running operation whose
    // lease had expired: the previous attempt's worker died mid-exchange.
    bool rescued = false;
    // An operator asked to cancel while an attempt was running; the store turns the
    // attempt's outcome into "cancelled" unless it ended the operation anyway.
    bool cancelRequested = false;
    // Sent instead of the endpoint's body when not empty (an alert's message, a job's
    // body).
    QByteArray requestBody;
    // A job's values for its endpoint's ${job:NAME} placeholders (docs/intake.md).
    JobValues jobValues;
};

// A failed or degraded exchange kept whole (docs/checks.md): the bodies as sent and
// received, redacted and cut to a bound; the headers are the attempt's own. The store
// keeps the last `keepLast` of each endpoint.
struct KeptExchange
{
    QString requestBody;
    QString responseBody;
    qint64 requestBytes = 0; // the sizes as sent and as read
    qint64 responseBytes = 0;
    bool responseTruncated = false; // read only up to the transport's limit
    int keepLast = 20;
};

// One HTTP exchange. Everything here is redacted by the store before it is written.
struct AttemptRecord
{
    qint64 id = 0;
    qint64 operationId = 0;
    QString endpointId;
    int attempt = 0; // from 1
    qint64 startedAtMs = -1;
    qint64 finishedAtMs = -1;
    QString method;
    QString url;
    int status = 0; // 0 when there was no response
    QString error;  // the transport error, empty with a response
    Decision decision = Decision::Fail;
    QString reason;
    qint64 waitMs = -1; // -1 unless the decision was retry
    WaitSource waitSource = WaitSource::None;
    QString retryAfterRaw;
    QString problemType;
    QString problemInstance;
    int rateLimitRemaining = -1;
    QString idempotencyKey;
    qint64 durationMs = -1;
    QString workerId;
    QString policyId;
    int policyVersion = 0;
    bool forced = false;
    QString requestHeaders; // "Name: value\n" per field
    QString responseHeaders;
    // Set by the store: the worker had lost its lease, so this exchange did not
    // change the operation. It is kept because the request did leave.
    bool leaseConflict = false;
    // The assertion of the endpoint's expectation the answer failed, and what it had
    // ("json[0] /status equals \"ok\"; found: \"error\""); empty otherwise.
    QString checkFailure;
    // Written beside the attempt when set (a failed or degraded exchange).
    std::shared_ptr<const KeptExchange> kept;
};

// Attempts summed over one minute (or a longer bucket) and one key: what the store's
// rollups hold (see docs/rollups.md). Every figure of the Overview comes from these.
struct RollupRecord
{
    qint64 minuteAtMs = 0; // the start of the minute (or bucket) the attempts ended in
    QString endpointId;
    QString policyId;
    QString partitionKey;
    QString statusClass; // "429", "503", "none" (no response), or "2xx", "4xx", ...
    // Empty for attempts that lost their lease (stored as "conflict"): they decided
    // nothing.
    std::optional<Decision> decision;
    std::optional<WaitSource> waitSource; // a retry's; empty for other decisions
    // A final failure's ("unknown" when none), "degraded" for successes over their
    // latency budget (docs/checks.md); else empty.
    QString reason;
    qint64 attempts = 0;
    qint64 waitMs = 0;     // retries' waits
    qint64 queueMs = 0;    // retries started after they were due, by so much
    qint64 durationMs = 0; // exchanges' durations

    bool isLeaseConflict() const { return !decision.has_value(); }

    // Every field equal: for tests that compare rollups with a recount.
    friend bool operator==(const RollupRecord &a, const RollupRecord &b)
    {
        return a.minuteAtMs == b.minuteAtMs && a.endpointId == b.endpointId &&
               a.policyId == b.policyId && a.partitionKey == b.partitionKey &&
               a.statusClass == b.statusClass && a.decision == b.decision &&
               a.waitSource == b.waitSource && a.reason == b.reason && a.attempts == b.attempts &&
               a.waitMs == b.waitMs && a.queueMs == b.queueMs && a.durationMs == b.durationMs;
    }
};

// The fleet-wide state of one (policy, partition key), as the store keeps it.
struct PartitionState
{
    QString policyId;
    QString partitionKey;
    int policyVersion = 0;
    Gcra pace;
    qint64 tatUs = 0;
    qint64 heldUntilMs = 0; // a server's hold; 0 when none was ever placed
    QString holdReason;
    // When one unit is there again (now or in the past: there), on the pacing clock:
    // PostgreSQL's, unless StoreOptions::paceByDatabaseClock is off.
    qint64 nextTokenAtMs = 0;
    qint64 availableUnits = 0;
    qint64 pending = 0; // scheduled or waiting operations
    qint64 due = 0;     // of which due now
    QString definition; // the policy as the worker that wrote this version had it
    // A worker configured this policy otherwise (an older version, or the same
    // version with another definition); empty when all agree.
    QString conflict;
    QString pacing; // "smooth", or empty for the default (burst)
    // What the server states about its quota, as the fleet counts it (on the callers'
    // clock), and the header lines that taught it last, when.
    ServerWindow server;
    QString learnedFrom;
    qint64 learnedAtMs = 0;

    // The partition of an endpoint without a policy, paced by what the server states.
    bool isLearned() const { return isLearnedPolicyId(policyId); }
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::OperationState)
Q_DECLARE_METATYPE(cooldown::OperationRecord)
Q_DECLARE_METATYPE(cooldown::AttemptRecord)
Q_DECLARE_METATYPE(cooldown::RollupRecord)
