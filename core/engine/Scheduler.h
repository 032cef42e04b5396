// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"
#include "core/engine/Connectivity.h"
#include "core/engine/CredentialBroker.h"
#include "core/engine/InFlightPeaks.h"
#include "core/engine/IncidentCause.h"
#include "core/engine/LatencyWatch.h"
#include "core/engine/ReachProbe.h"
#include "core/engine/SleepWatch.h"
#include "core/ratelimit/PartitionSnooze.h"
#include "core/ratelimit/PolicyDrift.h"
#include "core/ratelimit/RateLimitPolicy.h"
#include "core/ratelimit/TokenBucket.h"
#include "core/store/Records.h"
#include "core/store/Store.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QSet>

#include <limits>
#include <map>
#include <memory>
#include <optional>

namespace cooldown {

class AsyncSemaphore;
class Clock;
class RandomSource;
class Transport;
class WakeTimer;
struct ConnectionSettings;
struct TransportResult;
struct QuotaStatement;
struct AttemptFacts;
struct RetryDecision;
struct ServerWait;

struct SchedulerOptions
{
    QString workerId;        // unique per process; made up when empty
    qint64 leaseMs = 120000; // renewed while an attempt is held
    qint64 maxResponseBytes = 1 << 20;
    int maxRedirects = 5;
    // Look at the store at least this often, for work other workers added.
    qint64 pollMs = 2000;
    // While nothing else is due, the records of attempts that end wait for the next
    // wake, at most this long after the first of them ended, and are written together
    // (docs/retry-contract.md, "Group commit"). 0, or work due: at the end of the
    // event-loop pass they ended in. batched() uses kBatchedCommitMs.
    qint64 commitDelayMs = 0;
    static constexpr qint64 kBatchedCommitMs = 50;
    // Periodic ticks are made this long before they come, and a claim also takes what
    // is due within this time where nothing paces its partition; each operation is held
    // until its time. One tick transaction, one claim and one group commit then serve
    // the work of this long together, and no request starts before its time
    // (docs/retry-contract.md, "Claims ahead"). batched() uses kClaimAheadMs.
    qint64 claimAheadMs = 0;
    static constexpr qint64 kClaimAheadMs = 50;
    // An operation held until its time waits up to this long after it for others held
    // whose times come within it, and all go out together, in one wake; alone, it goes
    // at its time. None goes before its time, none more than this late
    // (docs/retry-contract.md, "Claims ahead"). 0: each at its own time. batched()
    // uses kSendGatherMs.
    qint64 sendGatherMs = 0;
    static constexpr qint64 kSendGatherMs = 20;
    // Where the fleet's permits are limited, a claim also takes operations on standby
    // (FleetConcurrency::standbyPerHost): one of them goes out as soon as an attempt
    // of this worker to its host ends, with that attempt's permit, instead of after
    // the attempt's record and the next claim; and the records of attempts that end
    // while standby work keeps the permits busy are written together
    // (docs/fleet.md, "Standby claims"). batched() turns it on.
    bool standbyClaims = false;

    // What the engine session and `cooldown run` use: batched commits, claims ahead
    // and gathered sends. The defaults (all 0) keep each at once, for tests.
    static SchedulerOptions batched()
    {
        SchedulerOptions options;
        options.commitDelayMs = kBatchedCommitMs;
        options.claimAheadMs = kClaimAheadMs;
        options.sendGatherMs = kSendGatherMs;
        options.standbyClaims = true;
        return options;
    }
};

// A partition held back by a server's wait (a 429 or 503 that named a time).
using PartitionHold = SnoozeHold;

// Runs the configured endpoints: one timer armed for the earliest due time, due
// operations claimed from the store with a lease, a token from the partition's
// bucket, a permit per host and a global one, one exchange through the transport,
// and the decision written back with the attempt, fenced by the claim. Attempts that
// end in the same pass of the event loop are written in one transaction (group
// commit), and while nothing else is due those of up to commitDelayMs; an operation
// is claimed again only after its attempt is durable.
class Scheduler final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Scheduler)

public:
    // How long the engine holds its work, awake, after logind said the machine would
    // sleep and before it believes it is still awake (prepareForSleep()).
    static constexpr qint64 kGoingToSleepForMs = 60'000;

    Scheduler(WorkspaceConfig config, Store &store, Transport &transport, const Clock &clock,
              RandomSource &random, WakeTimer &timer, SchedulerOptions options = {},
              QObject *parent = nullptr);
    ~Scheduler() override;

    // Registers the endpoints and creates the operations of run-once endpoints the
    // first time the database sees them. False with a message when the store fails.
    bool start(QString *error);
    // No new claims; held operations not yet sent go back to the store unchanged,
    // exchanges in flight finish and are recorded. stopped() follows.
    void stop();

    QString workerId() const { return m_options.workerId; }
    int inFlight() const { return m_inFlight; }
    int maxInFlight() const;
    // Nothing is held here and nothing in the store is running, or scheduled or waiting
    // on an endpoint that is not paused: what is left waits for an operator to resume.
    bool isIdle();
    QList<PartitionHold> holds() const;
    // Server-advertised policies that differ from the configured ones.
    QList<PolicyDrift> drifts() const;
    // The workspace's credentials as this worker holds them (docs/credentials.md).
    QList<CredentialState> credentialStates() const;
    // Operations held here until their credential has a token.
    int waitingForCredentials() const;
    // The database cannot be used for now (docs/database-outages.md): the connection
    // was lost or the disk is full. Nothing is claimed or sent meanwhile; exchanges in
    // flight finish and their records are kept until it is back.
    bool isDatabaseDown() const { return m_databaseDown; }
    // Since when (wall clock), and why, while it is down.
    qint64 databaseDownSinceMs() const { return m_databaseDown ? m_downSinceMs : -1; }
    // Since when (wall clock) no exchange could reach the network; -1 while online
    // (docs/offline.md).
    qint64 offlineSinceMs() const { return m_connectivity.offlineSinceMs(); }
    QString databaseDownWhy() const { return m_databaseDown ? m_downWhy : QString(); }
    // Answered attempts waiting to be recorded.
    int recordsKept() const { return int(m_finishing.size()); }

    // Operator actions. They go through the store, so they work the same from a
    // shell (`cooldown retry`, `cooldown cancel`) against a running worker.
    // audit: the operator's action this call is part of, recorded by the store in the
    // same transaction (Store::retryNow).
    Store::OperatorResult retryNow(qint64 operationId, bool force, AuditRecord *audit = nullptr);
    Store::OperatorResult cancel(qint64 operationId, AuditRecord *audit = nullptr);
    bool setEndpointPaused(const QString &endpointId, bool paused, AuditRecord *audit = nullptr);
    // An operator holds endpoints for forMs (docs/maintenance.md): see
    // Store::holdEndpoints. What this worker claimed of them but did not send goes back.
    std::optional<QStringList> holdEndpoints(const QStringList &endpointIds, qint64 forMs,
                                             const QString &reason, AuditRecord *audit = nullptr);
    // Lifts a server's hold on the partition for every worker, whichever placed it.
    void liftHold(const QString &policyId, const QString &partitionKey,
                  AuditRecord *audit = nullptr);

    // An operator changed these operations without retryNow (a bulk action through
    // the store): a retry delay this worker set for one of them no longer holds it
    // back once it is due again.
    void forgetRetryDelays(const QList<qint64> &operationIds);

    // Looks at the store now instead of at the next timer.
    void wake();
    // Operations were written to the store from outside the scheduler (jobs handed in);
    // the earliest is due at dueAtMs. Their time is kept like the scheduler's own, so
    // a job due later is claimed when due rather than at the next poll.
    void workAdded(qint64 dueAtMs);

    // Sends an event to the workspace's alert targets that listen for it, as an
    // operation of each (see AlertConfig), no more often than each one's
    // min_interval_seconds per kind. heldMs: how long a partition is held, for
    // PartitionHeld. Returns how many messages were queued. A recovery ("recovered":
    // true in details) is a kind of its own: it is not held back by the alert it ends.
    int raiseAlert(AlertEvent event, const QString &text, const QJsonObject &details,
                   qint64 heldMs = 0);
    // The endpoints whose p95 is over their latency budget now (docs/checks.md).
    QStringList latencyDegradedEndpoints() const { return m_latency.degraded(); }
    // The fleet's open incidents as this worker last read or changed them
    // (docs/incidents.md), by cause.
    QList<IncidentRecord> openIncidents() const { return m_openIncidents.values(); }

public slots:
    // What the system says of the network (core/engine/SystemReachability): true when
    // it can reach it, false when it is disconnected (docs/offline.md).
    void noteSystemReachable(bool reachable);
    // What logind says (core/engine/LogindSleep, docs/offline.md): the machine is about
    // to sleep, so what is in flight ends now as interrupted and nothing more is sent
    // or claimed, until it is awake again. readyForSleep() follows once the exchanges
    // are marked. Without resumeFromSleep() the engine goes on by itself after
    // kGoingToSleepForMs of monotonic time (which a machine asleep does not run).
    void prepareForSleep();
    void resumeFromSleep();

signals:
    void attemptRecorded(const cooldown::AttemptRecord &attempt,
                         const cooldown::OperationRecord &operation);
    void operationChanged(const cooldown::OperationRecord &operation);
    void partitionHeld(const cooldown::PartitionHold &hold);
    void partitionReleased(const cooldown::PartitionHold &hold); // lifted or expired
    void policyDrift(const cooldown::PolicyDrift &drift);
    void idle();
    void stopped();
    void storeFailed(const QString &message);
    // A group of finished attempts was committed; how long the write took.
    void attemptsWritten(int count, double seconds);
    // The endpoint was paused because its last `failures` operations ended failed
    // (its pause_after_failures); emitted once, by the worker that paused it.
    void endpointAutoPaused(const QString &endpointId, int failures);
    // A credential's token was obtained, renewed, failed or refused.
    void credentialChanged(const cooldown::CredentialState &state);
    // The database became unreachable (once per outage, not per statement), and came
    // back after downMs: leases renewed, the records kept meanwhile written.
    void databaseLost(const QString &why);
    void databaseBack(qint64 downMs);
    // Endpoints this worker held for a maintenance window, or whose hold (whoever
    // placed it) it lifted at its end (docs/maintenance.md).
    void endpointsHeld(const QStringList &endpointIds, qint64 untilMs, const QString &reason);
    void endpointsReleased(const QStringList &endpointIds);
    // No exchange can reach the network (docs/offline.md): work is held; and it is back
    // after offlineMs, sending again at a pace that ramps up.
    void wentOffline(qint64 sinceMs);
    void cameOnline(qint64 offlineMs);
    // The machine slept for about sleptMs (docs/offline.md): exchanges in flight were
    // recorded interrupted, and what came due meanwhile is due now.
    void wokeFromSleep(qint64 sleptMs);
    // After prepareForSleep(): the exchanges in flight are marked interrupted.
    void readyForSleep();
    // The open incidents changed: one opened, gained endpoints or cleared, here or in
    // another worker (docs/incidents.md).
    void incidentsChanged(const QList<cooldown::IncidentRecord> &open);

private:
    struct Held;
    struct Partition;

    void createPeriodicOperations(qint64 nowMs, qint64 mono);
    void keepHolds(qint64 nowMs, qint64 mono);
    // Incidents (docs/incidents.md): what a committed batch of attempts says of the
    // causes endpoints share, written for the fleet, with the alerts of the incidents
    // this worker opened or closed; and, once a poll, the incidents others changed.
    void noteIncidents(const QList<Store::FinishRequest> &batch,
                       const QList<Store::FinishOutcome> &outcomes);
    // A token endpoint failing or answering again, as a cause of incidents.
    void noteTokenEndpoint(const CredentialState &state);
    // Failures and cleared causes into the store's incidents, and what came of it.
    void recordIncidents(const QList<IncidentSignal> &failures, QStringList cleared);
    void lookAtIncidents(qint64 mono);
    void setOpenIncidents(const QList<IncidentRecord> &open);
    void alertIncident(const IncidentRecord &incident, bool recovered);
    // Sends the alert of each open incident that has gathered its endpoints, once for
    // the fleet (Incidents::markAlerted).
    void alertGatheredIncidents();
    static constexpr qint64 kIncidentGatherMs = 30000;
    // Whether an open incident lists the endpoint as blocked by its cause.
    bool isBlocked(const QString &endpointId) const;
    std::optional<qint64> holdMaintenance(qint64 nowMs);
    void handBackHeldEndpoints(const QStringList &endpointIds);
    // Work this worker put in the store is due at atMs: the next wake looks for it then.
    void noteStoreDue(qint64 atMs);
    // Whether a claim now may find work, as far as this worker knows.
    bool claimMayFindWork(qint64 nowMs, qint64 mono) const;
    // Whether a wake at these times asks the store for work: ticks to look for, or a
    // claim.
    bool storeWorkDue(qint64 nowMs, qint64 mono) const;
    qint64 tickBatchMs() const;
    bool ensurePartition(const EndpointConfig &endpoint);
    // The partition an endpoint's operations are claimed in: its policy's, or the
    // host's learned one (core/ratelimit/ServerWindow.h) when it has none.
    QString partitionPolicyOf(const EndpointConfig &endpoint) const;
    qint64 costOf(const EndpointConfig &endpoint) const;
    void admit(const OperationRecord &op, bool onStandby);
    void advance(Held &held);
    void deferOrWait(Held &held, qint64 waitMs);
    // The credential stage of advance(): whether held may go on to its bucket.
    bool takeCredential(Held &held);
    void onCredentialChanged(const QString &credentialId);
    void saveCredentialState(const CredentialState &state);
    void onCredentialRefused(const QString &credentialId, const QString &reason);
    // A 401 to a request whose token may be stale: the token is dropped and held goes
    // back to wait for a new one, to be sent once more. False when the 401 stands.
    bool renewAfterRefusedToken(Held &held, const TransportResult &result);
    // An answer stated the server's quota for this lane: what this worker holds of it,
    // claimed ahead while nothing paced the lane, goes back to the store unchanged, due
    // at its time, for a claim that paces it. After a refusal (standbyToo), so does
    // what waits on standby in the lane.
    void handBackClaimedAhead(const QString &policyId, const QString &partitionKey,
                              bool standbyToo = false);
    // Exchanges of this worker in flight in the lane, but the one given.
    int inFlightInLane(const QString &policyId, const QString &partitionKey,
                       qint64 exceptOperationId) const;
    void send(Held &held);
    void onFinished(qint64 operationId, const TransportResult &result);
    // What an attempt of held did, apart from its exchange (Bookkeeping.h).
    AttemptFacts factsOf(const Held &held);
    // The phases of onFinished() after the decision, in the order it runs them.
    // factsOf(held) with what the exchange adds. A 401 that the decision does not
    // retry, to an endpoint with credentials, is an authentication failure: d says so,
    // and the token sent is distrusted.
    AttemptFacts factsOfAnswer(const Held &held, const TransportResult &result, RetryDecision &d);
    // The assertion the answer failed, and the exchange kept whole when it failed or
    // was degraded (docs/checks.md), both scrubbed of every secret in play.
    void noteCheck(const Held &held, const TransportResult &result, const RetryDecision &d,
                   AttemptRecord &a) const;
    // An answer of an endpoint with a latency budget: alerts when its p95 goes over the
    // budget, and when it comes back.
    void watchLatency(const EndpointConfig &e, const RetryDecision &d, qint64 nowMs);
    // Whether the exchange reached the network: offline when it found no route,
    // online again when it reached any server.
    // A failed lookup, for the names failing at once that mean offline; whether the
    // engine is offline after it.
    bool noteNameFailure(const QString &host, const TransportResult &result, qint64 nowMs);
    // Says a change of connectivity in the run log, in the store (for `cooldown status`)
    // and by signal; back online, the work held in the store is due again.
    void announceConnectivity(Connectivity::Change change, qint64 nowMs, const char *why);
    void noteConnectivity(const TransportResult &result, qint64 nowMs);
    // After a sleep: exchanges in flight across it end interrupted, waits kept on the
    // monotonic clock lose the time asleep, and the store is looked at again now.
    void wakeFromSleep(qint64 sleptMs, qint64 mono);
    void lookAgainAtEverything(qint64 mono);
    // Marks the exchanges in flight interrupted and aborts them once the caller is
    // done; how many.
    qsizetype interruptInFlight();
    // Whether a wake between prepareForSleep() and resumeFromSleep() goes on: only
    // once kGoingToSleepForMs have passed awake.
    bool wakeWhileGoingToSleep(qint64 mono);
    // Arms the timer for the end of kGoingToSleepForMs, and notes it.
    void armUntilAwake(qint64 mono);
    // Renews every held lease and lets go, unsent, what lost its lease meanwhile; false
    // when the database failed.
    bool keepLeasesOfHeld(const char *meanwhile);
    // Sends what got its permits while nothing could be sent.
    void sendWhatWaited();
    // Offline, idle and at the probe's time: a probe of its own (ReachProbe).
    void probeIfIdle(qint64 mono);
    void probeFinished(ReachProbe::Outcome outcome);
    // Where a probe goes for the endpoint: its explicit proxy, or its URL's host.
    void aimProbeAt(const EndpointConfig &e);
    // What the answer teaches the partition's bucket and the drift monitor.
    void paceAfterAnswer(Partition &partition, const Held &held, const RetryDecision &d,
                         qint64 nowMs);
    // Holds held's partition for every worker when the server's wait calls for it, and
    // says so by an alert (but for an alert's own operation).
    void holdPartitionForServer(const QString &partitionPolicy, const Held &held, int status,
                                const ServerWait &serverWait, qint64 nowMs);
    void recordRescue(Held &held);
    // handOver: the attempt's permit may pass to an operation on standby for its host.
    void finish(Held &held, const AttemptRecord &attempt, const OperationRecord &next,
                const QuotaStatement *quota = nullptr, bool handOver = true);
    void flushFinished();
    // Writes m_finishing; false when the database failed with a fault and the records
    // were kept for when it is back.
    bool writeFinished();
    // Whether the store has met a fault (the database down); enters that state the
    // first time.
    bool databaseFault();
    // A store call failed: a fault enters the database-down state (said once), anything
    // else is reported by storeFailed.
    void reportStoreFailure();
    void enterDatabaseDown();
    void scheduleReconnect();
    void tryReconnect();
    // After a reconnect: leases renewed, records written; false on another fault.
    bool resumeAfterOutage();
    // After operations of these endpoints ended failed: pauses those whose last
    // pause_after_failures operations all failed.
    void pauseAfterFailures(const QSet<QString> &endpointIds);
    void release(qint64 operationId);
    // Operations on standby whose host has no operation of this worker left holding a
    // permit would wait for ever: they go back to the store, due as they were.
    void handBackOrphanedStandby();
    // Held operations waiting for permits: the host's and the global semaphore's, or
    // on standby for one of the fleet's.
    qsizetype queuedForPermits() const;
    // The first operation on standby for host, ready to go, or nullptr.
    Held *standbyHeir(const QString &host);
    static QString hostOf(const Held &held);
    void renewLeases(qint64 nowMs);
    // What the store's next due time is to the timer: read it now (a claim left room),
    // the one remembered (the claim was skipped because it is later), or none (the
    // claim was full, capped, or had no room: what wakes us is an exchange ending).
    enum class StoreDue
    {
        Read,
        Remembered,
        Unknown,
    };
    void armTimer(StoreDue storeDue);
    // The phases of wake(), in the order it runs them.
    void wakeWhileDatabaseDown(qint64 mono);
    // Moves on the held operations whose stage waits for nothing but this wake.
    void advanceDue(qint64 mono);
    // Claims what fits when the store may have due work; what the timer is to make of
    // the store's next due time.
    StoreDue claimMore(qint64 nowMs, qint64 mono);
    // One claim and its bookkeeping; whether the store may still have due work.
    bool claim(qint64 nowMs, qint64 mono, int room);
    // When the timer is to send held work (SchedulerOptions::sendGatherMs); none held:
    // nullopt.
    std::optional<qint64> heldSendAtMonotonicMs() const;
    void checkIdle();
    Partition *partitionOf(const Held &held);
    AsyncSemaphore &hostSemaphore(const QString &host);
    QString newIdempotencyKey();
    qint64 nowMs() const;
    static bool isAlert(const QString &endpointId);

    WorkspaceConfig m_config;
    // The endpoints of m_config by id: thousands of periodic endpoints are looked up
    // once per operation.
    QHash<QString, const EndpointConfig *> m_endpointById;
    Store &m_store;
    Transport &m_transport;
    const Clock &m_clock;
    RandomSource &m_random;
    WakeTimer &m_timer;
    SchedulerOptions m_options;

    QHash<QString, RateLimitPolicy> m_policies;
    PartitionSnooze m_snooze;
    PolicyDriftMonitor m_drift;
    std::map<std::pair<QString, QString>, std::unique_ptr<Partition>> m_partitions;
    std::unique_ptr<AsyncSemaphore> m_global;
    std::map<QString, std::unique_ptr<AsyncSemaphore>> m_hosts;
    std::map<qint64, std::unique_ptr<Held>> m_held;
    std::unique_ptr<CredentialBroker> m_credentials;
    // Each endpoint's TLS and proxy settings, by endpoint id; absent: the defaults.
    QHash<QString, std::shared_ptr<const ConnectionSettings>> m_connections;
    // Attempts that ended, waiting for the group commit at the end of this event
    // loop pass; their operations stay leased to this worker until it is written.
    QList<Store::FinishRequest> m_finishing;
    bool m_flushQueued = false;
    bool m_standbyCheckQueued = false;
    // Held operations without a fleet-wide permit, and until when claims take none.
    int m_onStandby = 0;
    qint64 m_standbyPausedUntilMonotonicMs = std::numeric_limits<qint64>::min();
    qint64 m_flushByMonotonicMs = -1;               // a held-back batch is written by then
    qint64 m_wakeAtMonotonicMs = -1;                // what the timer was last armed for
    QHash<QString, TickEndpoint> m_ticks;           // periodic endpoints
    QHash<QString, qint64> m_lastAlertAtMs;         // by alert id and event kind
    QHash<QString, IncidentRecord> m_openIncidents; // the fleet's, by cause
    QSet<QString> m_signalledCauses;                // with the fleet's failures noted
    QHash<qint64, ExchangeCauses> m_exchangeCauses; // by operation, until its record is written
    qint64 m_incidentsLookedAtMonotonicMs = std::numeric_limits<qint64>::min() / 2;
    QHash<qint64, qint64> m_notBeforeMonotonicMs; // retries this process scheduled
    mutable qint64 m_monotonicToWallMs = 0;       // follows the wall clock until it steps back
    int m_inFlight = 0;
    InFlightPeaks m_inFlightPeaks; // written with the attempts
    LatencyWatch m_latency;        // the endpoints with a latency budget
    Connectivity m_connectivity;   // whether exchanges reach the network
    // Offline with nothing to send, the engine probes by itself (docs/offline.md): where
    // the last exchange that found no network was going (a proxy's address when it went
    // through one), else the first endpoint's.
    ReachProbe m_reachProbe;
    QString m_probeHost;
    quint16 m_probePort = 0;
    SleepWatch m_sleepWatch; // whether the machine slept between two wakes
    bool m_started = false;
    bool m_stopping = false;
    bool m_waking = false;
    bool m_wasIdle = false;
    bool m_fleetCapped = false;    // the last claim found the fleet's permits taken
    bool m_lastClaimEmpty = false; // the last claim found nothing
    bool m_claimContended = false; // the last claim met another worker's claim
    WorkerClaimState m_claimState; // what the store has of this worker's claims
    // When a claim may next find work: the store's next due time as this worker last
    // read it or has moved it since (min: unknown, look now); and when that was read.
    // A claim then also takes what nothing paces of the claimAheadMs after it, and
    // the ticks of that time are made before it (not counted here: a paced lane's
    // due time would otherwise cost a claim that finds nothing, claimAheadMs before).
    qint64 m_claimAtMs = std::numeric_limits<qint64>::min();
    qint64 m_storeDueReadMonotonicMs = 0;
    // The store's next periodic tick, as read after runDueTicks last ran.
    std::optional<qint64> m_nextTickAtMs;
    bool m_nextTickKnown = false;
    // When runDueTicks last ran, on the monotonic clock.
    qint64 m_ticksLookedAtMonotonicMs = std::numeric_limits<qint64>::min() / 2;
    // Endpoint holds (docs/maintenance.md): when to look at them again, and the end of
    // each maintenance window this worker last held its endpoints until, by id.
    qint64 m_holdsLookAtMonotonicMs = 0;
    QHash<QString, qint64> m_maintenanceHeldUntil;
    // The database unreachable (docs/database-outages.md).
    bool m_databaseDown = false;
    // Between prepareForSleep() and resumeFromSleep(): nothing is claimed or sent.
    bool m_goingToSleep = false;
    qint64 m_goingToSleepAtMonotonicMs = 0;
    QString m_downWhy;
    qint64 m_downSinceMs = -1;
    qint64 m_downSinceMonotonicMs = 0;
    int m_reconnectTries = 0;
    qint64 m_reconnectAtMonotonicMs = 0;
    // A full disk whose reserve was given back: what was answered may still be written.
    bool m_recordWhileDown = false;
};

} // namespace cooldown
