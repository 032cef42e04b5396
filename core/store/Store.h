// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/QuotaStatement.h"
#include "core/ratelimit/Gcra.h"
#include "core/store/ClaimPlanner.h"
#include "core/store/Claims.h"
#include "core/store/Database.h"
#include "core/store/DatabaseFault.h"
#include "core/store/EndpointReads.h"
#include "core/store/IncidentRecords.h"
#include "core/store/Incidents.h"
#include "core/store/LeaseClock.h"
#include "core/store/OperationSelection.h"
#include "core/store/OperatorAudit.h"
#include "core/store/Records.h"
#include "core/store/ReportRecords.h"
#include "core/store/ReportSums.h"
#include "core/store/SqlDialect.h"
#include "core/store/WorkerStates.h"

#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QMap>
#include <QSet>
#include <QSqlDatabase>
#include <QString>
#include <QVariant>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

class QSqlQuery;
struct sqlite3;
struct sqlite3_stmt;

namespace cooldown {

class SqlBatch;
class SqlStatement;

class WalCheckpointer;

// A worker as its leases show it: one that holds no running operation is not seen.
struct WorkerLeases
{
    QString workerId;
    qint64 running = 0;
    qint64 onStandby = 0;        // of those, claimed on standby: leased, holding no permit
    qint64 leaseExpiresAtMs = 0; // the latest of its leases
};

// A periodic endpoint as runDueTicks needs it.
// An endpoint that waits for a while (docs/maintenance.md): a maintenance window of the
// workspace stands, or an operator paused it for a time (`cooldown pause --for`).
struct EndpointHold
{
    QString endpointId;
    qint64 untilMs = 0;
    QString reason;
};

struct TickEndpoint
{
    QString endpointId;
    QString policyId;
    QString partitionKey;
    qint64 cost = 1;
    QString host;
    qint64 everyMs = 0; // its period
    // false ("catch_up": "none"): a tick a whole period or more late is skipped; the
    // next one runs on its schedule.
    bool catchUp = true;
};

// Which attempts a query or an export covers. Empty fields do not filter.
struct AttemptFilter
{
    qint64 fromMs = -1; // started at or after
    qint64 toMs = -1;   // started before
    QString endpointId;
    qint64 operationId = 0;
    std::optional<OperationState> operationState; // the operation's current state
    int statusMin = -1; // HTTP status within [statusMin, statusMax]; 0 is "no response"
    int statusMax = -1;
    int statusExcluded = -1; // and not this one (e.g. 4xx other than 429)
    std::optional<Decision> decision;
    // Only the attempts retention deletes at this cut (schema::prunableAttempt): started
    // before it, of an operation that has ended.
    qint64 prunableBeforeMs = -1;
    qint64 afterId = 0;       // only attempts with a larger id (paging by key)
    qint64 beforeId = 0;      // and, when above 0, a smaller one
    bool newestFirst = false; // largest id first
    int limit = -1;
};

struct OperationFilter
{
    std::optional<OperationState> state;
    QString endpointId;
    qint64 afterId = 0;
    qint64 upToId = -1; // the highest id selected; -1: no bound
    int limit = -1;
    // Highest ids first (then afterId is ignored): the latest operations.
    bool newestFirst = false;
};

// --- Bulk actions (StoreBulk.cpp) -------------------------------------------------------
// The operations of a selection that an action can change, per endpoint and partition:
// what a drain-time estimate (core/engine/DrainEstimate.h) starts from.
struct SelectionGroup
{
    QString endpointId;
    QString policyId;
    QString partitionKey;
    qint64 operations = 0;
    qint64 cost = 0;   // the units their sends take from the partition's bucket
    qint64 dueNow = 0; // of which scheduled or waiting and due already
};

// How far a bulk action has got; its progress callback gets one after each chunk.
struct BulkProgress
{
    qint64 matched = 0; // operations the selection matched when the action began
    qint64 done = 0;    // of which looked at so far
    qint64 changed = 0; // of which changed (a cancel that waits for a running attempt too)
    qint64 pending = 0; // of the changed: cancels that apply when a running attempt ends
};

struct BulkOptions
{
    int chunkSize = 500; // operations per transaction
    // Called after each committed chunk; false stops the action there (what was
    // committed stays, and the audit row says how much that was).
    std::function<bool(const BulkProgress &)> progress;
    // Called with the ids of each committed chunk, every operation looked at, changed
    // or not: for a worker that keeps state of its own per operation.
    std::function<void(const QList<qint64> &)> chunkApplied;
};

struct BulkOutcome
{
    enum class Result
    {
        Done,
        Stopped, // the progress callback asked to stop
        Failed,  // see Store::lastError(); the chunks before stay applied
    };
    Result result = Result::Done;
    BulkProgress progress;
};
// ---------------------------------------------------------------------------------------

// What one pass of retention removed (Store::prune*): rows, and how long the write
// transaction held the lock.
struct PruneBatch
{
    qint64 rows = 0;
    qint64 lockedUs = 0;
};

// The columns of an attempt row, in the order a cursor reads them: the attempt's
// own columns, then its operation's current state.
enum class AttemptColumn
{
    Id,
    OperationId,
    EndpointId,
    Attempt,
    StartedAt,
    FinishedAt,
    Method,
    Url,
    Status,
    Error,
    Decision,
    Reason,
    WaitMs,
    WaitSource,
    RetryAfterRaw,
    ProblemType,
    ProblemInstance,
    RateLimitRemaining,
    IdempotencyKey,
    DurationMs,
    WorkerId,
    PolicyId,
    PolicyVersion,
    Forced,
    RequestHeaders,
    ResponseHeaders,
    LeaseConflict,
    CheckFailure,
    OperationState,
};
inline constexpr int kAttemptColumnCount = int(AttemptColumn::OperationState) + 1;

// Attempts read one row at a time with a forward-only query: memory stays flat
// however many rows there are. Created by Store::streamAttempts; it must not outlive
// its store. On SQLite the rows come through SQLite's own statement API, so a cell
// can be read as the UTF-8 it is stored as, without a QVariant or a QString.
class AttemptCursor final
{
public:
    ~AttemptCursor();
    Q_DISABLE_COPY_MOVE(AttemptCursor)

    // Moves to the next attempt; false at the end or on an error (see error()).
    bool next();
    // The next attempt as a record, or false as next().
    bool next(AttemptRecord *record);
    // The current attempt as a record.
    void read(AttemptRecord *record) const;
    // One cell of the current attempt: a number (0 for an empty cell), or text as
    // UTF-8, valid until next().
    qint64 integer(AttemptColumn column) const;
    QByteArrayView text(AttemptColumn column) const;
    // The operation state of the current attempt.
    OperationState operationState() const;
    QString error() const { return m_error; }

private:
    friend class Store;
    explicit AttemptCursor(std::unique_ptr<QSqlQuery> query);
    explicit AttemptCursor(sqlite3_stmt *statement);

    std::unique_ptr<QSqlQuery> m_query;             // any backend
    sqlite3_stmt *m_statement = nullptr;            // or SQLite's own statement
    mutable QByteArray m_text[kAttemptColumnCount]; // the query's cells as UTF-8
    QString m_error;
};

// The durable record of operations and attempts, on SQLite or PostgreSQL.
//
// Every method runs on the thread that opened the store; a thread that needs the
// store opens its own (each Store has its own named connection). Methods that can
// fail return false, -1 or an empty optional and leave the reason in lastError().
// Every text that could carry a credential (URLs, headers, error texts, problem
// instances) is redacted by the store itself before it is written.
class Store final
{
public:
    using Backend = Database::Backend;

    enum class FinishResult
    {
        Committed,     // the attempt and the operation's new state are durable
        LeaseConflict, // the worker had lost its lease: the attempt is kept, marked,
                       // and the operation is unchanged
        Failed,        // nothing was written; see lastError()
    };

    // One finished attempt for finishAttempts: the attempt row, the operation's new
    // state and the version the worker's claim holds.
    struct FinishRequest
    {
        FinishRequest() = default;
        FinishRequest(AttemptRecord attempt, OperationRecord newState, qint64 claimedVersion)
            : attempt(std::move(attempt)), newState(std::move(newState)),
              claimedVersion(claimedVersion)
        {}

        AttemptRecord attempt;
        OperationRecord newState;
        qint64 claimedVersion = 0;
        // What the response said about the partition's quota, when it said anything:
        // written on the partition's row with the attempt (see ServerWindow).
        std::optional<QuotaStatement> quota;
        QString quotaPolicyId;
        QString quotaPartitionKey;
        qint64 quotaObservedAtMs = 0;
        // The operation on standby that takes over this attempt's fleet-wide permit,
        // or -1: it holds the permit from this transaction on, so that the fleet's
        // count never drops while its request is in flight.
        qint64 permitTo = -1;
        qint64 permitToVersion = 0; // the version its claim gave it
    };
    struct FinishOutcome
    {
        FinishResult result = FinishResult::Failed;
        // Committed: the operation as it now is in the store (a pending cancel
        // applied, texts redacted). LeaseConflict: as the store has it, unchanged.
        OperationRecord operation;
        QString error; // LeaseConflict and Failed: why
    };
    // The most exchanges one worker had in flight during a minute (see InFlightPeaks);
    // read back, the fleet's: the sum of its workers' peaks.
    struct InFlightPeak
    {
        qint64 minuteAtMs = 0; // read back: the bucket's start
        int peak = 0;
    };

    enum class OperatorResult
    {
        Done,
        Pending, // cancel of a running operation: applied when its attempt ends
        Refused, // not allowed in the operation's state; lastError() says why
        NotFound,
        Failed,
    };

    // url: a SQLite file path, or postgresql://user[:password]@host[:port]/database.
    // Checks the schema version and migrates forward. A database from a newer
    // version, an unreachable server, a locked or unwritable file: nullptr, a message
    // in *error, and nothing written.
    // *failure, when given, tells whose the problem is: Input (a malformed URL, a
    // folder, no database where one must exist, a schema newer than this build) or
    // Runtime (a server that cannot be reached, a file that cannot be opened or
    // written, a missing driver): the command line's exit codes 2 and 1.
    using OpenFailure = Database::OpenFailure;
    static std::unique_ptr<Store> open(const QString &url, QString *error,
                                       const StoreOptions &options = {},
                                       OpenFailure *failure = nullptr);
    // Makes a database of an older schema version (created, or migrated up to it) and
    // closes it again: for the migration tests, which seed it with rows as that version
    // wrote them and then open it. No Store is handed out for it: every read and write
    // assumes the latest schema, which open() migrates to.
    static bool createAtVersion(const QString &url, int version, QString *error,
                                const StoreOptions &options = {});
    static int latestSchemaVersion();
    // The URL as it may be shown: the password replaced by a marker.
    static QString displayUrl(const QString &url);

    ~Store();
    Q_DISABLE_COPY_MOVE(Store)

    // --- When the database is away (docs/database-outages.md) ---------------------------
    // The fault the first failure since the last reconnect() showed (the connection was
    // lost, or the disk is full), and the reconnect that ends it: see Database.
    using Fault = DatabaseFault;
    Fault fault() const { return m_db->fault(); }
    bool reconnect(QString *error) { return m_db->reconnect(error); }
    // SQLite with StoreOptions::reserveBytes: deletes the reserve file, so that what
    // must still be written after the disk filled has room. True when there was one.
    bool releaseReserve() { return m_db->releaseReserve(); }
    // -----------------------------------------------------------------------------------

    // Until the batch commits, the store's writes go in its one transaction instead of
    // one each (SqlBatch): for bulk work. SQLite only; null on PostgreSQL (no error) and
    // when it could not begin (lastError()). See Database::beginBatch.
    std::unique_ptr<SqlBatch> beginBatch() { return m_db->beginBatch(); }
    // SQLite: copies the write-ahead log back into the database, off this thread where
    // the store can (after bulk work, so that the log does not stay large).
    void requestCheckpoint() { m_db->requestCheckpoint(); }
    Backend backend() const { return m_db->backend(); }
    // SQLite: whether the store calls the linked SQLite library on Qt's connection
    // (StoreOptions::useLinkedSqlite); false on PostgreSQL.
    bool usesLinkedSqlite() const { return m_db->usesLinkedSqlite(); }
    // The version the database's schema_meta states; nullopt when it cannot be read.
    std::optional<int> schemaVersion();
    QString lastError() const { return m_db->lastError(); }
    // Forgets the last error: a read that leaves one after this failed.
    void clearError() { m_db->clearError(); }

    // Endpoints and policies, as configured.
    bool upsertEndpoint(const QString &endpointId, const QString &name, qint64 nowMs);
    // A paused endpoint's scheduled and waiting operations are not claimed. Running
    // ones still finish, and are still rescued when their worker dies.
    // The endpoint row's updated_at is when it was paused or resumed last (or created):
    // the automatic pause counts only what ended after it. audit: see the operator
    // actions below.
    bool setEndpointPaused(const QString &endpointId, bool paused, qint64 nowMs,
                           AuditRecord *audit = nullptr);
    std::optional<bool> isEndpointPaused(const QString &endpointId);
    // The automatic pause (pause_after_failures): pauses the endpoint when the last
    // `failures` of its operations to end since it was last paused or resumed all
    // ended failed, none succeeded between. An operation ends with its final attempt
    // (decision success or fail, lease not lost), in the order those attempts started,
    // so the count is the same for every worker and across restarts. True when this
    // call paused it: of several workers ending failures at once, one reports it. The
    // pause is written to the audit table in the same transaction, with the actor
    // kAutomaticActor and workerId as the engine that applied it.
    std::optional<bool> pauseAfterFailures(const QString &endpointId, int failures, qint64 nowMs,
                                           const QString &workerId);
    static constexpr char kAutomaticActor[] = "automatic";
    // Holds the endpoints until untilMs: like a pause, their scheduled and waiting
    // operations are not claimed and their periodic ticks are skipped, but the hold
    // ends by itself (liftEndedHolds). An endpoint an operator paused stays paused, and
    // one held until later keeps its later end: a hold only ever extends. Returns the
    // endpoints this call held or held longer; nullopt on error. With audit, the
    // action's row is written in the same transaction (see the operator actions).
    std::optional<QStringList> holdEndpoints(const QStringList &endpointIds, qint64 untilMs,
                                             const QString &reason, qint64 nowMs,
                                             AuditRecord *audit = nullptr);
    // Lifts the holds that ended by nowMs, and with endpointIds those endpoints' holds
    // whatever their end (an operator's resume). Returns the endpoints lifted; nullopt
    // on error.
    std::optional<QStringList> liftEndedHolds(qint64 nowMs, const QStringList &endpointIds = {},
                                              AuditRecord *audit = nullptr);
    // The holds standing, by their end; nullopt on error.
    std::optional<QList<EndpointHold>> endpointHolds();
    bool upsertPolicy(const QString &policyId, int policyVersion, const QString &definitionJson);

    enum class PaceResult
    {
        Written,   // the row now has this pace (new, same or older version replaced)
        KeptNewer, // the store holds a newer policy_version: left as it is
        Conflict,  // the same policy_version with another definition: left as it is
        Failed,
    };
    // The fleet-wide bucket of one (policy, partition key), created or brought to this
    // policy version. Its token state (TAT, hold) is kept across pace changes.
    // *storedDefinition tells what the store holds on KeptNewer and Conflict.
    PaceResult ensurePartition(const QString &policyId, const QString &partitionKey,
                               int policyVersion, const QString &definitionJson, const Gcra &pace,
                               QString *storedDefinition = nullptr);
    // The partition of a host's operations whose endpoint has no policy
    // (learnedPolicyId(host), partition key ""): unpaced until a server states a quota.
    bool ensureLearnedPartition(const QString &policyId);
    // Every partition with its bucket, hold and queue, for `cooldown status` and the
    // dashboard; nowMs decides what is due. nullopt when it cannot be read (lastError()),
    // which is not the same as none.
    std::optional<QList<PartitionState>> partitions(qint64 nowMs);
    // Workers holding running operations, by the latest lease expiry.
    QList<WorkerLeases> workers();
    // The parts that own tables of their own, on the store's connection.
    Incidents &incidents() { return m_incidents; }
    WorkerStates &workerStates() { return m_workerStates; }
    ReportSums &reportSums() { return m_reportSums; }
    EndpointReads &endpointReads() { return m_endpointReads; }
    Claims &claims() { return m_claims; }
    LeaseClock &leaseClock() { return m_clock; }
    // Scheduled and waiting operations due at nowMs, whether or not their partition
    // can send.
    qint64 dueCount(qint64 nowMs);

    // Periodic endpoints: one row each holds the next tick for the whole fleet.
    // ensureTick creates it due at firstTickAtMs, or changes the period of an
    // existing one (its next tick stays).
    bool ensureTick(const QString &endpointId, qint64 everyMs, qint64 firstTickAtMs);
    // Advances every tick due by nowMs + aheadMs atomically and creates one operation
    // per tick that this caller won (not for a paused endpoint, nor while the
    // endpoint's latest operation is unfinished), due at its tick (at nowMs for a
    // tick already past); ticks missed meanwhile collapse into one. Endpoints not in
    // `endpoints` are left for a worker that knows them. Returns the new operations'
    // ids; empty with lastError() on failure.
    QList<qint64> runDueTicks(qint64 nowMs, const QHash<QString, TickEndpoint> &endpoints,
                              const std::function<QString()> &newIdempotencyKey,
                              qint64 aheadMs = 0);
    std::optional<qint64> nextTickAtMs();

    // A new operation in state scheduled, due now. It is durable, idempotency key
    // included, when this returns: before any byte of it is sent.
    // cost: the units its sends take from the partition's bucket (body bytes under a
    // byte quota, else 1); host: where its requests go, for per-host permits.
    // body: sent instead of the endpoint's (an alert's message); empty: the endpoint's.
    std::optional<qint64> createOperation(const QString &endpointId, const QString &idempotencyKey,
                                          qint64 nowMs, const QString &policyId = {},
                                          const QString &partitionKey = {}, qint64 cost = 1,
                                          const QString &host = {}, const QByteArray &body = {});

    // An operation to create. dueAtMs -1: due when created. jobValues fill the
    // endpoint's ${job:NAME} placeholders; requestHash (core/config/JobRequest.h) marks
    // a job handed in from outside, whose idempotency key then belongs to it alone.
    struct NewOperation
    {
        QString endpointId;
        QString idempotencyKey;
        QString policyId;
        QString partitionKey;
        QString host;
        qint64 cost = 1;
        qint64 dueAtMs = -1;
        QByteArray body;
        JobValues jobValues;
        QString requestHash;
    };
    // What became of one job handed in: a new operation, the one that already holds
    // its idempotency key for the same request, or a refusal because that operation's
    // request was another.
    struct Intake
    {
        enum class Result
        {
            Created,
            Existing,
            Conflict,
        };
        Result result = Result::Created;
        qint64 id = 0; // the new or the existing operation
    };
    enum class IntakeMode
    {
        AllOrNothing, // a conflict writes nothing
        KeepGoing,    // the jobs without a conflict are written
    };
    // Jobs handed in from outside (docs/intake.md), in one transaction, each durable
    // with its idempotency key before anything is sent. One Intake per job, in order;
    // nullopt with lastError() when the database failed (nothing written).
    std::optional<QList<Intake>> enqueue(const QList<NewOperation> &jobs, qint64 nowMs,
                                         IntakeMode mode);

    // For endpoints that run once per database: creates the operation the first time
    // the endpoint is seen, even when several workers race, and returns the same id
    // ever after. *created tells which happened.
    std::optional<qint64>
    ensureOneShotOperation(const QString &endpointId, const QString &idempotencyKey, qint64 nowMs,
                           const QString &policyId = {}, const QString &partitionKey = {},
                           bool *created = nullptr, qint64 cost = 1, const QString &host = {});

    // What a lookup of one operation came to: a missing operation is an answer, not a
    // failure of the database; only Failed sets lastError().
    struct OperationLookup
    {
        enum class Result
        {
            Found,
            Missing,
            Failed,
        };
        Result result = Result::Failed;
        OperationRecord record; // when Found
    };
    OperationLookup lookUpOperation(qint64 operationId);
    // The operation, or nothing when it is missing or the database failed (lastError()
    // says which: "no such operation" when it is missing).
    std::optional<OperationRecord> operation(qint64 operationId);
    std::optional<OperationRecord> latestOperation(const QString &endpointId);

    // Writes the attempt row and the operation's new state (state, counters, times,
    // last status and error, final reason, wait source, backoff, forceNext) in one
    // transaction, fenced by claimedVersion and workerId. On Committed the operation's
    // version is claimedVersion + 1 and its lease is released. A pending cancel turns
    // any state but succeeded and failed into cancelled.
    FinishResult finishAttempt(const AttemptRecord &attempt, const OperationRecord &newState,
                               qint64 claimedVersion, const QString &workerId);
    // Group commit: finishAttempt for each request, all in one transaction, each fenced
    // on its own (one stale claim does not hold back the others). One outcome per
    // request, in order. When the transaction fails nothing is written and every
    // outcome is Failed.
    // peaks: the worker's in-flight peaks of the minutes since its last group commit,
    // kept (the higher one) in the same transaction.
    QList<FinishOutcome> finishAttempts(const QList<FinishRequest> &requests,
                                        const QString &workerId,
                                        const QList<InFlightPeak> &peaks = {});

    // Operator actions. retryNow: a waiting, parked, failed or scheduled operation
    // becomes waiting and due at nowMs; force makes that attempt bypass the token
    // bucket. Running and cancelled ones are refused, succeeded ones too.
    //
    // audit, when given, is the operator's action this call is (part of): its row is
    // written in the same transaction, the first time (audit->id is 0; then set), and
    // each later call with the same record adds what it changed to the row. So an
    // action on a list of operations is one row, however many calls apply it.
    OperatorResult retryNow(qint64 operationId, qint64 nowMs, bool force,
                            AuditRecord *audit = nullptr);
    // Any operation that has not ended becomes cancelled. A running one keeps its
    // lease: its attempt's result is still recorded when it ends, and the operation
    // becomes cancelled then (Pending), or when its lease expires unfinished.
    OperatorResult cancel(qint64 operationId, qint64 nowMs, AuditRecord *audit = nullptr);
    // A server told the partition to wait: every worker holds it until untilMs, and
    // its scheduled and waiting operations are not due before then (forced ones
    // excepted). Returns how many moved, -1 on error.
    int snoozePartition(const QString &policyId, const QString &partitionKey, qint64 untilMs,
                        const QString &why = {});
    // The operator lifted a snooze that ended at untilMs (-1: this worker did not know
    // it): what it pushed back, to untilMs or to the end the partition's row holds, is
    // due at nowMs, and no worker holds the partition any longer. Returns how many
    // moved, -1 on error.
    int liftPartitionSnooze(const QString &policyId, const QString &partitionKey, qint64 untilMs,
                            qint64 nowMs, AuditRecord *audit = nullptr);

    // --- Bulk actions by filter (StoreBulk.cpp, docs/bulk-actions.md) ----------------
    // How many operations the selection matches now, in any state; -1 on error.
    qint64 countMatching(const OperationSelection &selection);
    // The operations of the selection that `action` (retry, force or cancel) would
    // change, per endpoint and partition; nowMs decides what is due already.
    std::optional<QList<SelectionGroup>> matchingGroups(const OperationSelection &selection,
                                                        OperatorAction action, qint64 nowMs);
    // Applies retry, force or cancel to every operation the selection matches, as
    // retryNow and cancel do one by one, in transactions of options.chunkSize
    // operations. The operations are those that match when it begins (the largest id
    // then bounds it) and still match when their chunk is applied. The audit row is
    // written with the first chunk and counts each chunk's changes; when nothing
    // matches it is written alone. audit->asked is set to the count at the start.
    BulkOutcome applyToMatching(const OperationSelection &selection, OperatorAction action,
                                qint64 nowMs, AuditRecord *audit, const BulkOptions &options = {});
    // Writes an action's audit row by itself (an action the store did not apply, such
    // as one that matched nothing); sets audit->id. False on error.
    bool recordOperatorAction(AuditRecord *audit);
    // The audit rows of actions asked for in [fromMs, toMs) (-1: unbounded), oldest
    // first unless newestFirst; at most limit (-1: all). Empty with lastError() on error.
    std::optional<QList<AuditRecord>> operatorActions(qint64 fromMs = -1, qint64 toMs = -1,
                                                      int limit = -1, bool newestFirst = false);
    // -----------------------------------------------------------------------------------

    // Queries for the dashboard, metrics and export.
    QList<OperationRecord> operations(const OperationFilter &filter);
    // The ids alone of the operations the filter selects, by id: what a paged view needs
    // to know its rows before it reads the ones it shows. Empty with lastError() on
    // failure.
    QList<qint64> operationIds(const OperationFilter &filter);
    QMap<OperationState, qint64> countsByState();
    // The operations that have not ended (scheduled, running, waiting, parked), by
    // state, read through the state index: the cost follows the open work, not the
    // history (countsByState reads every operation ever made).
    QMap<OperationState, qint64> openCountsByState();
    // Whether any operation is running, or scheduled or waiting on an endpoint that is
    // not paused: whether there is work that goes on without an operator. One index
    // probe, however long the history (countsByState counts every operation ever made).
    std::optional<bool> hasUnfinishedOperations();
    QList<AttemptRecord> attempts(const AttemptFilter &filter);
    // The ids alone of the attempts the filter selects, in its order: what a view
    // needs to know its rows before it reads the ones it shows.
    QList<qint64> attemptIds(const AttemptFilter &filter);
    qint64 countAttempts(const AttemptFilter &filter);
    // The highest attempt id (0 with none, -1 on error; see lastError()): one index
    // lookup, so that a reader following new attempts can tell it has nothing to read.
    qint64 newestAttemptId();
    qint64 leaseConflictCount();
    // SQLite: write-ahead log checkpoints completed off this store's thread (see
    // WalCheckpointer); 0 on PostgreSQL.
    int backgroundCheckpoints() const;
    // The exchange kept for a failed or degraded attempt (docs/checks.md); empty when
    // none is kept (any other attempt, or one beyond the endpoint's last few).
    std::optional<KeptExchange> keptExchange(qint64 attemptId);
    // A forward-only stream of the attempts the filter selects, oldest id first.
    // withHeaders = false leaves the request and response headers empty, unread: the
    // largest texts of a row, which an export does not contain.
    std::unique_ptr<AttemptCursor> streamAttempts(const AttemptFilter &filter,
                                                  bool withHeaders = true);

    // Rollups (see docs/rollups.md): written by finishAttempts in the same transaction
    // as the attempts, so they always equal a recount of the attempts recorded since
    // the rollups began. Rows of minutes in [fromMs, toMs), summed per bucket of
    // bucketMs (whole minutes, aligned to the epoch; minuteAtMs is the bucket's start),
    // ordered by bucket. One range scan of a primary key: the hourly table's for
    // buckets of whole hours from an hour on (the minutes' for a last part hour).
    // A bucket's rows may come in two parts then (the same key twice): add them up.
    QList<RollupRecord> rollups(qint64 fromMs, qint64 toMs, qint64 bucketMs = 60000);
    // The same rows one at a time, for an export of any size; visit returns false to
    // stop (then this returns false too, with no error).
    bool forEachRollup(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                       const std::function<bool(const RollupRecord &)> &visit);
    // The rollups counted afresh from the raw attempts that ended in [fromMs, toMs)
    // (-1: unbounded), per minute: what rollups() must return while no attempt has
    // been pruned. Reads every attempt of the range: for checks, not for views.
    QList<RollupRecord> recountRollups(qint64 fromMs = -1, qint64 toMs = -1);
    // Finer than the rollups, for the Overview's short range: the rows the rollups would
    // have for the attempts that ended in [fromMs, toMs), counted from the raw attempts in
    // buckets of bucketMs (which divides a minute; minuteAtMs is the bucket's start),
    // ordered by bucket; summed per minute they equal recountRollups(). Attempts are
    // found by their start, from kLongestExchangeMs before fromMs: one that took longer
    // is left out. The queue time comes from each attempt's previous one, by operation.
    static constexpr qint64 kLongestExchangeMs = 3600 * 1000;
    bool forEachAttemptSum(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                           const std::function<bool(const RollupRecord &)> &visit);
    // The fleet's in-flight peak in each bucket of bucketMs (whole minutes) of the
    // minutes in [fromMs, toMs): per minute the sum of the workers' peaks, then the
    // highest minute of the bucket. Buckets with no exchange are left out; ordered by
    // bucket. Empty with lastError() on failure.
    std::optional<QList<InFlightPeak>> inFlightPeaks(qint64 fromMs, qint64 toMs,
                                                     qint64 bucketMs = 60000);
    // Final failures in the minutes from sinceMs on (-1 on error).
    qint64 finalFailuresSince(qint64 sinceMs);
    // A value that changes whenever another connection committed a change to
    // operations, attempts or partitions: SQLite's data_version; on PostgreSQL a
    // fingerprint of the latest ids and the open operations' versions. Reading it
    // costs one small query, so an idle reader can poll it and read nothing else.
    std::optional<QByteArray> changeToken();

    // Retention. The start of the raw history: the earliest attempt kept, or -1 when
    // there is none (or on error; see lastError()).
    qint64 earliestAttemptMs();
    // Deletes up to limit attempts that started before beforeMs and whose operation
    // has ended (succeeded, failed, cancelled), oldest first, in one transaction; then
    // such operations left without attempts, created before beforeMs. The attempts
    // of an operation that has not ended are never deleted. rows: the attempts
    // deleted; -1 on error.
    PruneBatch pruneAttempts(qint64 beforeMs, int limit);
    // Deletes the rollups of minutes before beforeMs, at most spanMs of minutes from
    // the oldest in one transaction. rows: the rollup rows deleted; -1 on error.
    PruneBatch pruneRollups(qint64 beforeMs, qint64 spanMs);
    // SQLite with auto_vacuum=incremental (every database created since schema
    // version 8): gives up to pages free pages back to the file system. Returns the
    // pages still free afterwards, -1 on error; 0 elsewhere.
    qint64 incrementalVacuum(int pages);

private:
    explicit Store(std::unique_ptr<Database> database);
    // The rollups of the attempts finishAttempts wrote, added up per key in the same
    // transaction (see StoreRollups.cpp).
    class RollupBatch;
    // The due time the operation's previous attempt set, as the rollups count queue
    // waits (-1: none).
    std::optional<qint64> previousDueAtMs(qint64 operationId);
    bool writeRollups(const RollupBatch &batch);
    // The SLA report's counts of the batch (latency histogram, throttled successes).
    bool writeReportCounts(const RollupBatch &batch);
    // Whether any attempt of the operation was answered 429 or 503.
    bool throttledBefore(qint64 operationId, bool *throttled);
    bool writeInFlightPeaks(const QList<InFlightPeak> &peaks, const QString &workerId);
    enum class ScanOutcome
    {
        Done,
        Stopped, // the visitor asked to stop
        Failed,
    };
    // The rows of one rollup table whose time is in [fromMs, toMs), summed per bucket.
    ScanOutcome scanRollups(const char *table, const char *timeColumn, qint64 fromMs, qint64 toMs,
                            qint64 bucketMs,
                            const std::function<bool(const RollupRecord &)> &visit);

    // Migrates to targetVersion (0: the latest). *newerSchema: the database is of a
    // newer version than this build (the caller's to fix, not the environment's).
    bool initialise(const StoreOptions &options, const QString &displayName, QString *error,
                    bool *newerSchema, int targetVersion = 0);
    std::optional<int> readSchemaVersion(QString *error);
    bool migrate(int from, int to, QString *error);
    bool ensureEndpointRow(const QString &endpointId, qint64 nowMs);
    // rowsThere: the endpoint's row and the partition's are known to exist.
    std::optional<qint64> insertOperation(const NewOperation &operation, qint64 nowMs,
                                          bool rowsThere = false);
    // The operation columns readOperation() reads, as this database's schema has them.
    QString operationColumns() const;
    // The operation that holds a job's idempotency key, and what its request hashed to.
    std::optional<std::pair<qint64, QString>> handedInWithKey(const QString &idempotencyKey,
                                                              bool *failed);
    bool insertAttempt(const AttemptRecord &attempt, bool leaseConflict, qint64 *id);
    bool keepExchange(qint64 attemptId, const QString &endpointId, const KeptExchange &kept);
    OperationLookup singleOperation(const QString &where, const QVariant &value);
    // The lookup as an optional, for callers that only need the record.
    std::optional<OperationRecord> recordOf(OperationLookup lookup);
    bool finishOne(const FinishRequest &request, const QString &workerId, FinishOutcome *outcome);
    // Writes request.quota on its partition's row (ServerWindow::observe).
    bool observeQuota(const FinishRequest &request);
    // Counts the answers of learned partitions whose server states no quota, and
    // paces those partitions by what their refusals measure (MeasuredPace).
    bool observeAnswers(const QList<FinishRequest> &requests);
    // Writes each request's permitTo: that operation holds a permit from now on.
    // Only where the attempt's own record committed: one whose lease was lost had no
    // permit left to give.
    bool handOverPermits(const QList<FinishRequest> &requests, const QList<FinishOutcome> &outcomes,
                         const QString &workerId);
    // Writes audit's row (the first time) or adds changed to it, inside the caller's
    // transaction (StoreBulk.cpp).
    bool writeAudit(AuditRecord *audit, qint64 changed);
    // The selection as an SQL condition on the operations table, with its values
    // appended to *values (bound by position, in order of appearance).
    QString selectionCondition(const OperationSelection &selection, QVariantList *values) const;

    // The connection, its statements, errors and faults, and the backend's dialect.
    std::unique_ptr<Database> m_db;
    Incidents m_incidents;
    WorkerStates m_workerStates;
    ReportSums m_reportSums;
    EndpointReads m_endpointReads;
    LeaseClock m_clock;
    Claims m_claims;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::BulkProgress)
Q_DECLARE_METATYPE(cooldown::BulkOutcome)
