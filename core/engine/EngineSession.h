// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"
#include "core/engine/Intake.h"
#include "core/engine/Scheduler.h"
#include "core/store/Store.h"

#include <QList>
#include <QMap>
#include <QObject>
#include <QPair>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QThread;

namespace cooldown {

class Clock;
class RandomSource;

// What the engine last reported of itself: enough for a window to draw its status
// without asking the engine anything while it draws.
struct EngineState
{
    QList<PartitionHold> holds; // this worker's holds that have not ended
    QList<PolicyDrift> drifts;
    int inFlight = 0;
    int maxInFlight = 0;
    QList<CredentialState> credentials; // the workspace's OAuth credentials, as held here
    int waitingForCredentials = 0;      // operations held until their credential has a token
    // The database unreachable (docs/database-outages.md): since when (wall clock; -1
    // while it answers) and why.
    qint64 databaseDownSinceMs = -1;
    QString databaseDownWhy;
    // No exchange reaches the network (docs/offline.md): since when; -1 while online.
    qint64 offlineSinceMs = -1;
    // The fleet's open incidents, as this worker knows them (docs/incidents.md).
    QList<IncidentRecord> openIncidents;
};

using PartitionId = QPair<QString, QString>; // policy id, partition key

// What a metrics scrape reads on the engine's thread: the scheduler's figures, and the
// store's unless the database is away (databaseUp false; the store's figures empty).
struct EngineFigures
{
    int inFlight = 0;
    bool databaseUp = true;
    QMap<OperationState, qint64> openCounts; // operations not ended, by state
    QList<CredentialState> credentials;      // the workspace's OAuth credentials, here
    int waitingForCredentials = 0;
    QList<PartitionState> partitions;
    QList<EndpointHold> endpointHolds;
    QStringList latencyDegraded;         // endpoints over their latency budget (docs/checks.md)
    qint64 offlineSinceMs = -1;          // docs/offline.md; -1 while online
    QList<IncidentRecord> openIncidents; // docs/incidents.md
};

// What one operator action on one operation came to, and the operation after it.
struct OperationActionOutcome
{
    Store::OperatorResult result = Store::OperatorResult::Failed;
    QString error; // the store's, when result is Failed or Refused
    std::optional<OperationRecord> after;
};

// What a pause, resume or hold of one endpoint came to, and where the endpoint stands.
struct EndpointActionOutcome
{
    bool applied = false;
    QString error;                    // the store's, when not applied
    bool paused = false;              // paused or held now
    std::optional<EndpointHold> hold; // its hold, when it is held
};

// How full the local API's queue is (operations scheduled, waiting or running), as the
// caller last counted it: recounted when older than a second, and before a refusal.
struct QueueCount
{
    qint64 queued = 0;
    qint64 countedAtMs = -1;
};

// What handing jobs in came to: refused whole because the queue is full, or the
// intake's report (which may refuse jobs one by one).
struct EnqueueOutcome
{
    bool full = false;
    qint64 queued = 0; // the queue as counted when it was decided
    IntakeReport report;
};

struct EngineOptions
{
    const Clock *clock = nullptr;   // the system clock when null
    RandomSource *random = nullptr; // the system's random source when null
    SchedulerOptions scheduler;
    QString threadName = QStringLiteral("engine");
    // Whether the engine hears what the system says of the network (SystemReachability,
    // docs/offline.md); where no backend loads it hears nothing either way.
    bool systemReachability = true;
    // Whether the engine hears logind's word before a sleep (LogindSleep, docs/offline.md);
    // where there is no system bus or no logind it hears nothing, and the boot clock
    // still tells of a sleep afterwards.
    bool logindSleep = true;
};

// One running engine: the workspace's store, the transport, the wake timer and the
// scheduler, on a thread of their own. The dashboard and `cooldown run` both run the
// engine through this class, so it is wired in this one place.
//
// The session object lives on the thread that opened it (the GUI thread in the
// dashboard); the engine's objects live on the engine thread and are only touched
// there. Whatever the engine does with the database (claims, group commits, waiting
// for another process's write lock) happens on that thread, so a window that talks to
// the engine through this class never waits for the database:
// - operator actions are queued to the engine and applied there in the order given;
//   what came of them arrives by signal;
// - the scheduler's signals are re-emitted here, on the session's thread;
// - holds, drifts and the in-flight count are kept as the engine last reported them
//   (state()), refreshed on its signals and on requestState().
//
// The pattern is qBittorrent's resume-data storage worker: one thread owns one
// connection and everything it writes, and callers only queue work to it.
class SystemReachability;
class LogindSleep;

class EngineSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EngineSession)

public:
    // Starts the engine thread and opens (and migrates) the database on it. Waits for
    // that; nullptr with a message when the database cannot be opened.
    static std::unique_ptr<EngineSession> open(WorkspaceConfig config, const QString &databaseUrl,
                                               QString *error, EngineOptions options = {});
    // Destroys the engine on its thread (attempts that ended are still written), then
    // ends the thread. Waits for both.
    ~EngineSession() override;

    // Starts the scheduler on the engine thread and waits for it to have started.
    bool start(QString *error);
    // Asks the scheduler to stop: nothing new is sent, exchanges in flight finish and
    // are recorded, then stopped() is emitted.
    void stop();

    // Operator actions, applied on the engine thread in the order they were asked for.
    // Each is reported by the matching signal once applied, and recorded as one row of
    // the store's audit table (by operatorName(), on this worker).
    void retryNow(const QList<qint64> &operationIds, bool force);
    void cancel(const QList<qint64> &operationIds);
    void setEndpointsPaused(const QStringList &endpointIds, bool paused);
    // Holds the endpoints for forMs, then they resume by themselves (docs/maintenance.md);
    // reported by endpointsHeld for those it held.
    void holdEndpoints(const QStringList &endpointIds, qint64 forMs, const QString &reason);
    void liftHolds(const QList<PartitionId> &partitions);
    // A bulk action (retry, force or cancel) on every operation the selection matches,
    // applied on the engine thread in chunks (Store::applyToMatching) and recorded as
    // one audit row. bulkProgress() follows each chunk and bulkFinished() the end,
    // once. cancelBulk() stops it after the chunk being applied.
    void applyToSelection(const OperationSelection &selection, OperatorAction action);
    void cancelBulk();
    // Runs the engine on another workspace without a restart. The scheduler stops as
    // stop() does (claims not yet sent go back to the store, exchanges in flight finish
    // and are recorded), and a new one starts on `config` with the same worker id.
    // Buckets, holds and learned quotas are in the store and carry over; a policy whose
    // version changed is re-paced as at any start. configApplied() reports the outcome;
    // when the database refuses the new workspace the old one goes on running.
    // Validate the config before: this applies what it is given.
    void apply(WorkspaceConfig config);
    // Asks the engine for its state; stateChanged() follows.
    void requestState();

    // Calls that run on the engine thread and wait for it, for the command line and the
    // local API. A window must not use them: they wait for the database.
    EngineFigures figures();
    // Every operation the database has, by state; nullopt while it is away or failing.
    std::optional<QMap<OperationState, qint64>> operationCounts();
    Store::OperationLookup lookUp(qint64 operationId, QString *error);
    OperationActionOutcome retryOne(qint64 operationId, bool force, AuditRecord *audit = nullptr);
    OperationActionOutcome cancelOne(qint64 operationId, AuditRecord *audit = nullptr);
    EndpointActionOutcome setEndpointPausedNow(const QString &endpointId, bool paused,
                                               AuditRecord *audit = nullptr);
    EndpointActionOutcome holdEndpointNow(const QString &endpointId, qint64 forMs,
                                          const QString &reason, AuditRecord *audit = nullptr);
    // Hands jobs in (enqueueJobs, docs/intake.md) unless the queue and they would hold
    // more than maxQueued; count is the caller's, kept across calls.
    EnqueueOutcome enqueue(const QList<JobRequest> &jobs, const QStringList &paths,
                           qint64 maxQueued, RandomSource &random, QueueCount &count);

    const EngineState &state() const { return m_state; }
    const WorkspaceConfig &config() const { return m_config; }
    QString databaseUrl() const { return m_databaseUrl; }
    QString workerId() const { return m_workerId; }
    // Who the audit table names for this session's operator actions: the OS user.
    QString operatorName() const { return m_operatorName; }
    void setOperatorName(const QString &name) { m_operatorName = name; }
    const Clock &clock() const { return m_clock; }
    QThread *engineThread() const;

signals:
    // The scheduler's signals, re-emitted on the session's thread.
    void attemptRecorded(const cooldown::AttemptRecord &attempt,
                         const cooldown::OperationRecord &operation);
    void operationChanged(const cooldown::OperationRecord &operation);
    void partitionHeld(const cooldown::PartitionHold &hold);
    void partitionReleased(const cooldown::PartitionHold &hold);
    void policyDrift(const cooldown::PolicyDrift &drift);
    void idle();
    void stopped();
    void storeFailed(const QString &message);
    void attemptsWritten(int count, double seconds);
    void endpointAutoPaused(const QString &endpointId, int failures);
    void endpointsHeld(const QStringList &endpointIds, qint64 untilMs, const QString &reason);
    void endpointsReleased(const QStringList &endpointIds);
    void credentialChanged(const cooldown::CredentialState &state);
    // The database became unreachable, once per outage, and came back after downMs.
    void databaseLost(const QString &why);
    void databaseBack(qint64 downMs);
    void wentOffline(qint64 sinceMs);
    void cameOnline(qint64 offlineMs);
    void wokeFromSleep(qint64 sleptMs);
    // The fleet's open incidents changed (docs/incidents.md).
    void incidentsChanged(const QList<cooldown::IncidentRecord> &open);

    void stateChanged();
    // apply() has taken effect (config() is the new workspace) or has not (error).
    void configApplied(bool applied, const QString &error);
    // What the operator actions came to, one result per operation asked for.
    void retried(const QList<qint64> &operationIds,
                 const QList<cooldown::Store::OperatorResult> &results, bool force);
    void cancelled(const QList<qint64> &operationIds,
                   const QList<cooldown::Store::OperatorResult> &results);
    // The endpoints whose pause state was written.
    void pausedChanged(const QStringList &endpointIds, bool paused);
    void holdsLifted(const QList<cooldown::PartitionId> &partitions);
    void bulkProgress(const cooldown::BulkProgress &progress);
    // error: the store's, when outcome.result is Failed.
    void bulkFinished(const cooldown::BulkOutcome &outcome, const QString &error);

private:
    struct Engine;

    // Runs `work` on the engine thread with the engine's store and scheduler, and waits
    // for it: what the calls above are made of.
    void runOnEngine(const std::function<void(Store &, Scheduler &)> &work);
    EndpointActionOutcome endpointStanding(Store &store, const QString &endpointId, bool applied);

    EngineSession(WorkspaceConfig config, QString databaseUrl, const Clock &clock);
    // Queues `work` to the engine thread; it runs there after what was queued before.
    void post(std::function<void(Engine &)> work);
    // On the engine thread: sends the engine's state to the session once, however many
    // times it is asked before that happens.
    void publishState(Engine &engine);
    // On the engine thread: a scheduler for engine.config, wired to this session.
    void makeScheduler(Engine &engine);
    // On the engine thread, once the scheduler has stopped: the next config's scheduler.
    void replaceScheduler(Engine &engine);
    // The audit row of an operator action asked for now.
    AuditRecord auditFor(OperatorAction action, const QString &target, qint64 asked) const;

    WorkspaceConfig m_config;
    QString m_databaseUrl;
    QString m_workerId;
    QString m_operatorName = currentUserName();
    std::atomic<bool> m_bulkCancelled{false}; // set here, read on the engine thread
    const Clock &m_clock;
    EngineState m_state;
    std::unique_ptr<QThread> m_thread;
    QObject *m_context = nullptr; // lives on the engine thread; queued work runs there
    std::unique_ptr<Engine> m_engine;
    // Lives on the session's thread; its word reaches the scheduler queued.
    std::unique_ptr<SystemReachability> m_reachability;
#ifdef COOLDOWN_HAVE_LOGIND
    std::unique_ptr<LogindSleep> m_logind;
#endif
    std::atomic<int> m_systemReachable{-1}; // as m_reachability last said, for a new scheduler
};

} // namespace cooldown
