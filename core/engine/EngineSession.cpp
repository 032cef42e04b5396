// SPDX-License-Identifier: Apache-2.0
#include "core/engine/EngineSession.h"

#include "core/Logging.h"
#include "core/engine/SystemReachability.h"
#ifdef COOLDOWN_HAVE_LOGIND
#include "core/engine/LogindSleep.h"
#endif
#include "core/engine/Transport.h"
#include "core/time/Clock.h"
#include "core/time/DurationText.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"

#include <QThread>

#include <algorithm>
#include <limits>
#include <optional>

namespace cooldown {

// The engine's objects; created, used and destroyed on the engine thread only.
struct EngineSession::Engine
{
    const Clock &clock;
    RandomSource &random;
    SchedulerOptions options; // the worker id stays the same across configs
    WorkspaceConfig config;   // the config the scheduler runs
    std::unique_ptr<Store> store;
    std::unique_ptr<Transport> transport;
    std::unique_ptr<QtWakeTimer> timer;
    std::unique_ptr<Scheduler> scheduler;
    std::optional<WorkspaceConfig> next; // applied once the scheduler has stopped
    bool stopRequested = false;          // by stop(): no config is applied after it
    bool statePublishQueued = false;
};

namespace {

// What the engine's SQLite store keeps in reserve for a full disk: the records of a
// few hundred answered attempts and their rollups.
constexpr qint64 kStoreReserveBytes = qint64(1) << 20;

// Runs `work` on `context`'s thread and waits for it; at once when that is this thread.
void runAndWait(QObject *context, const std::function<void()> &work)
{
    if (context->thread() == QThread::currentThread())
        work();
    else
        QMetaObject::invokeMethod(context, work, Qt::BlockingQueuedConnection);
}

} // namespace

EngineSession::EngineSession(WorkspaceConfig config, QString databaseUrl, const Clock &clock)
    : m_config(std::move(config)), m_databaseUrl(std::move(databaseUrl)), m_clock(clock)
{
    m_state.maxInFlight = m_config.concurrency.maxInFlight;
    qRegisterMetaType<PartitionId>();
    qRegisterMetaType<QList<PartitionId>>();
}

std::unique_ptr<EngineSession> EngineSession::open(WorkspaceConfig config,
                                                   const QString &databaseUrl, QString *error,
                                                   EngineOptions options)
{
    const Clock &clock = options.clock ? *options.clock : SystemClock::instance();
    RandomSource &random =
        options.random ? *options.random : static_cast<RandomSource &>(SystemRandom::instance());
    std::unique_ptr<EngineSession> session(
        new EngineSession(std::move(config), databaseUrl, clock));
    EngineSession *self = session.get();
    if (options.systemReachability) {
        self->m_reachability = std::make_unique<SystemReachability>();
        self->m_systemReachable = self->m_reachability->reachable();
        connect(self->m_reachability.get(), &SystemReachability::reachableChanged, self,
                [self](bool reachable) { self->m_systemReachable = reachable ? 1 : 0; });
        if (self->m_reachability->backendName().isEmpty())
            qCInfo(lcEngine) << "no network reachability backend: the engine learns of being "
                                "offline from its exchanges";
        else
            qCInfo(lcEngine) << "network reachability from" << self->m_reachability->backendName();
    }
#ifdef COOLDOWN_HAVE_LOGIND
    if (options.logindSleep) {
        self->m_logind = std::make_unique<LogindSleep>();
        if (self->m_logind->isListening())
            qCInfo(lcEngine) << "listening for logind's word before the machine sleeps";
    }
#endif
    self->m_thread = std::make_unique<QThread>();
    self->m_thread->setObjectName(options.threadName);
    self->m_context = new QObject;
    self->m_context->moveToThread(self->m_thread.get());
    connect(self->m_thread.get(), &QThread::finished, self->m_context, &QObject::deleteLater);
    self->m_thread->start();

    // The database connection belongs to the thread that opens it: the engine's.
    QString openError;
    runAndWait(self->m_context, [&] {
        auto engine = std::make_unique<Engine>(Engine{clock, random, options.scheduler,
                                                      self->m_config, nullptr, nullptr, nullptr,
                                                      nullptr, std::nullopt, false});
        // The engine's store keeps a reserve beside a SQLite file, for the answers that
        // must still be written when the disk fills.
        StoreOptions storeOptions;
        storeOptions.reserveBytes = kStoreReserveBytes;
        engine->store = Store::open(databaseUrl, &openError, storeOptions);
        if (!engine->store)
            return;
        engine->transport = std::make_unique<Transport>(clock);
        engine->timer = std::make_unique<QtWakeTimer>();
        self->makeScheduler(*engine);
        engine->options.workerId = engine->scheduler->workerId();
        self->m_workerId = engine->options.workerId;
        self->m_engine = std::move(engine);
    });
    if (!self->m_engine) {
        if (error)
            *error = openError;
        return nullptr;
    }
    return session;
}

EngineSession::~EngineSession()
{
    if (!m_thread)
        return;
    runAndWait(m_context, [this] {
        if (!m_engine)
            return;
        // The scheduler refers to everything else; the store goes last.
        m_engine->scheduler.reset();
        m_engine->timer.reset();
        m_engine->transport.reset();
        m_engine->store.reset();
        m_engine.reset();
    });
    m_thread->quit();
    m_thread->wait();
}

QThread *EngineSession::engineThread() const
{
    return m_thread.get();
}

void EngineSession::post(std::function<void(Engine &)> work)
{
    QMetaObject::invokeMethod(
        m_context,
        [this, work = std::move(work)] {
            if (m_engine)
                work(*m_engine);
        },
        Qt::QueuedConnection);
}

void EngineSession::publishState(Engine &engine)
{
    if (engine.statePublishQueued)
        return;
    engine.statePublishQueued = true;
    // Read once the events already queued on the engine thread have been handled.
    post([this](Engine &e) {
        e.statePublishQueued = false;
        EngineState state;
        state.holds = e.scheduler->holds();
        state.drifts = e.scheduler->drifts();
        state.inFlight = e.scheduler->inFlight();
        state.maxInFlight = e.scheduler->maxInFlight();
        for (const CredentialState &c : e.scheduler->credentialStates()) {
            if (const CredentialConfig *config = e.config.credential(c.id);
                config && config->isOAuth())
                state.credentials.append(c);
        }
        state.waitingForCredentials = e.scheduler->waitingForCredentials();
        state.databaseDownSinceMs = e.scheduler->databaseDownSinceMs();
        state.databaseDownWhy = e.scheduler->databaseDownWhy();
        state.offlineSinceMs = e.scheduler->offlineSinceMs();
        state.openIncidents = e.scheduler->openIncidents();
        QMetaObject::invokeMethod(
            this,
            [this, state = std::move(state)] {
                m_state = state;
                emit stateChanged();
            },
            Qt::QueuedConnection);
    });
}

void EngineSession::makeScheduler(Engine &engine)
{
    engine.scheduler =
        std::make_unique<Scheduler>(engine.config, *engine.store, *engine.transport, engine.clock,
                                    engine.random, *engine.timer, engine.options);
    Scheduler *scheduler = engine.scheduler.get();
    if (m_reachability) {
        connect(m_reachability.get(), &SystemReachability::reachableChanged, scheduler,
                &Scheduler::noteSystemReachable);
        if (m_systemReachable == 0)
            scheduler->noteSystemReachable(false);
    }
#ifdef COOLDOWN_HAVE_LOGIND
    if (m_logind) {
        connect(m_logind.get(), &LogindSleep::goingToSleep, scheduler, &Scheduler::prepareForSleep);
        connect(m_logind.get(), &LogindSleep::wokeUp, scheduler, &Scheduler::resumeFromSleep);
        connect(scheduler, &Scheduler::readyForSleep, m_logind.get(), &LogindSleep::readyForSleep);
    }
#endif
    // Crossing threads, these are queued: they arrive in the order they left.
    connect(scheduler, &Scheduler::attemptRecorded, this, &EngineSession::attemptRecorded);
    connect(scheduler, &Scheduler::operationChanged, this, &EngineSession::operationChanged);
    connect(scheduler, &Scheduler::partitionHeld, this, &EngineSession::partitionHeld);
    connect(scheduler, &Scheduler::partitionReleased, this, &EngineSession::partitionReleased);
    connect(scheduler, &Scheduler::policyDrift, this, &EngineSession::policyDrift);
    connect(scheduler, &Scheduler::idle, this, &EngineSession::idle);
    connect(scheduler, &Scheduler::storeFailed, this, &EngineSession::storeFailed);
    connect(scheduler, &Scheduler::attemptsWritten, this, &EngineSession::attemptsWritten);
    connect(scheduler, &Scheduler::endpointAutoPaused, this, &EngineSession::endpointAutoPaused);
    connect(scheduler, &Scheduler::endpointsHeld, this, &EngineSession::endpointsHeld);
    connect(scheduler, &Scheduler::endpointsReleased, this, &EngineSession::endpointsReleased);
    connect(scheduler, &Scheduler::credentialChanged, this, &EngineSession::credentialChanged);
    connect(scheduler, &Scheduler::databaseLost, this, &EngineSession::databaseLost);
    connect(scheduler, &Scheduler::databaseBack, this, &EngineSession::databaseBack);
    connect(scheduler, &Scheduler::wentOffline, this, &EngineSession::wentOffline);
    connect(scheduler, &Scheduler::cameOnline, this, &EngineSession::cameOnline);
    connect(scheduler, &Scheduler::wokeFromSleep, this, &EngineSession::wokeFromSleep);
    connect(scheduler, &Scheduler::incidentsChanged, this, &EngineSession::incidentsChanged);
    // Queued even on the engine thread: the scheduler may say it stopped from inside
    // stop(), and it is replaced or reported only once that call has returned.
    connect(
        scheduler, &Scheduler::stopped, m_context,
        [this] {
            if (m_engine && m_engine->next && !m_engine->stopRequested)
                replaceScheduler(*m_engine);
            else
                QMetaObject::invokeMethod(
                    this, [this] { emit stopped(); }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
    // What changes the state shown: attempts (in flight), holds and drifts.
    const auto publish = [this] {
        if (m_engine)
            publishState(*m_engine);
    };
    connect(scheduler, &Scheduler::operationChanged, scheduler, publish);
    connect(scheduler, &Scheduler::partitionHeld, scheduler, publish);
    connect(scheduler, &Scheduler::partitionReleased, scheduler, publish);
    connect(scheduler, &Scheduler::policyDrift, scheduler, publish);
    connect(scheduler, &Scheduler::credentialChanged, scheduler, publish);
    connect(scheduler, &Scheduler::databaseLost, scheduler, publish);
    connect(scheduler, &Scheduler::databaseBack, scheduler, publish);
    connect(scheduler, &Scheduler::wentOffline, scheduler, publish);
    connect(scheduler, &Scheduler::cameOnline, scheduler, publish);
    connect(scheduler, &Scheduler::incidentsChanged, scheduler, publish);
}

void EngineSession::apply(WorkspaceConfig config)
{
    post([this, config = std::move(config)](Engine &e) mutable {
        if (e.stopRequested) {
            QMetaObject::invokeMethod(
                this,
                [this] { emit configApplied(false, QStringLiteral("the engine is stopping")); },
                Qt::QueuedConnection);
            return;
        }
        // The scheduler stops first: nothing new is sent, claims not yet sent go back to
        // the store, exchanges in flight finish and are recorded. Then the next one
        // starts on the new config. A later apply before that replaces this one.
        const bool stopping = e.next.has_value();
        e.next = std::move(config);
        if (!stopping)
            e.scheduler->stop();
    });
}

void EngineSession::replaceScheduler(Engine &engine)
{
    WorkspaceConfig previous = std::exchange(engine.config, std::move(*engine.next));
    engine.next.reset();
    engine.scheduler.reset();
    makeScheduler(engine);
    QString error;
    bool applied = engine.scheduler->start(&error);
    if (!applied) {
        // The database refused the new workspace: the engine goes on with the old one.
        engine.config = std::move(previous);
        engine.scheduler.reset();
        makeScheduler(engine);
        QString again;
        if (!engine.scheduler->start(&again))
            error =
                QStringLiteral("%1; and again with the previous workspace: %2").arg(error, again);
    }
    QMetaObject::invokeMethod(
        this,
        [this, applied, error, config = engine.config] {
            if (applied)
                m_config = config;
            emit configApplied(applied, error);
        },
        Qt::QueuedConnection);
    publishState(engine);
}

bool EngineSession::start(QString *error)
{
    bool started = false;
    QString problem;
    runAndWait(m_context, [&] { started = m_engine->scheduler->start(&problem); });
    if (!started && error)
        *error = problem;
    if (started)
        requestState();
    return started;
}

void EngineSession::stop()
{
    post([](Engine &e) {
        // A config waiting to be applied is dropped: stopping wins.
        e.stopRequested = true;
        e.next.reset();
        e.scheduler->stop();
    });
}

AuditRecord EngineSession::auditFor(OperatorAction action, const QString &target,
                                    qint64 asked) const
{
    AuditRecord audit;
    audit.atMs = m_clock.nowMs();
    audit.actor = m_operatorName;
    audit.workerId = m_workerId;
    audit.action = action;
    audit.target = target;
    audit.asked = asked;
    return audit;
}

void EngineSession::retryNow(const QList<qint64> &operationIds, bool force)
{
    AuditRecord audit = auditFor(force ? OperatorAction::Force : OperatorAction::Retry,
                                 idListTarget(operationIds), operationIds.size());
    post([this, operationIds, force, audit](Engine &e) mutable {
        QList<Store::OperatorResult> results;
        for (const qint64 id : operationIds)
            results.append(e.scheduler->retryNow(id, force, &audit));
        QMetaObject::invokeMethod(
            this,
            [this, operationIds, results, force] { emit retried(operationIds, results, force); },
            Qt::QueuedConnection);
    });
}

void EngineSession::cancel(const QList<qint64> &operationIds)
{
    AuditRecord audit =
        auditFor(OperatorAction::Cancel, idListTarget(operationIds), operationIds.size());
    post([this, operationIds, audit](Engine &e) mutable {
        QList<Store::OperatorResult> results;
        for (const qint64 id : operationIds)
            results.append(e.scheduler->cancel(id, &audit));
        QMetaObject::invokeMethod(
            this, [this, operationIds, results] { emit cancelled(operationIds, results); },
            Qt::QueuedConnection);
    });
}

void EngineSession::setEndpointsPaused(const QStringList &endpointIds, bool paused)
{
    AuditRecord audit = auditFor(paused ? OperatorAction::Pause : OperatorAction::Resume,
                                 endpointListTarget(endpointIds), endpointIds.size());
    post([this, endpointIds, paused, audit](Engine &e) mutable {
        QStringList done;
        for (const QString &id : endpointIds) {
            if (e.scheduler->setEndpointPaused(id, paused, &audit))
                done.append(id);
        }
        QMetaObject::invokeMethod(
            this, [this, done, paused] { emit pausedChanged(done, paused); }, Qt::QueuedConnection);
    });
}

void EngineSession::holdEndpoints(const QStringList &endpointIds, qint64 forMs,
                                  const QString &reason)
{
    AuditRecord audit =
        auditFor(OperatorAction::Pause,
                 endpointListTarget(endpointIds) + QStringLiteral(" for=") + durationText(forMs),
                 endpointIds.size());
    post([endpointIds, forMs, reason, audit](Engine &e) mutable {
        e.scheduler->holdEndpoints(endpointIds, forMs, reason, &audit);
    });
}

void EngineSession::liftHolds(const QList<PartitionId> &partitions)
{
    QStringList names;
    for (const auto &[policy, key] : partitions)
        names.append(policy + QLatin1Char('/') + key);
    AuditRecord audit =
        auditFor(OperatorAction::LiftHold,
                 QStringLiteral("partitions=") + names.join(QLatin1Char(',')), partitions.size());
    post([this, partitions, audit](Engine &e) mutable {
        for (const auto &[policy, key] : partitions)
            e.scheduler->liftHold(policy, key, &audit);
        QMetaObject::invokeMethod(
            this, [this, partitions] { emit holdsLifted(partitions); }, Qt::QueuedConnection);
        publishState(e);
    });
}

void EngineSession::applyToSelection(const OperationSelection &selection, OperatorAction action)
{
    m_bulkCancelled = false;
    AuditRecord audit = auditFor(action, selection.toText(), 0);
    post([this, selection, action, audit](Engine &e) mutable {
        BulkOptions options;
        options.chunkApplied = [&e](const QList<qint64> &ids) {
            e.scheduler->forgetRetryDelays(ids);
        };
        options.progress = [this](const BulkProgress &progress) {
            QMetaObject::invokeMethod(
                this, [this, progress] { emit bulkProgress(progress); }, Qt::QueuedConnection);
            return !m_bulkCancelled.load();
        };
        const BulkOutcome outcome =
            e.store->applyToMatching(selection, action, m_clock.nowMs(), &audit, options);
        const QString error =
            outcome.result == BulkOutcome::Result::Failed ? e.store->lastError() : QString();
        e.scheduler->wake();
        QMetaObject::invokeMethod(
            this, [this, outcome, error] { emit bulkFinished(outcome, error); },
            Qt::QueuedConnection);
    });
}

void EngineSession::cancelBulk()
{
    m_bulkCancelled = true;
}

void EngineSession::requestState()
{
    post([this](Engine &e) { publishState(e); });
}

void EngineSession::runOnEngine(const std::function<void(Store &, Scheduler &)> &work)
{
    runAndWait(m_context, [&] {
        if (m_engine)
            work(*m_engine->store, *m_engine->scheduler);
    });
}

EngineFigures EngineSession::figures()
{
    EngineFigures f;
    const qint64 now = m_clock.nowMs();
    runOnEngine([&](Store &store, Scheduler &scheduler) {
        f.inFlight = scheduler.inFlight();
        f.latencyDegraded = scheduler.latencyDegradedEndpoints();
        f.offlineSinceMs = scheduler.offlineSinceMs();
        f.openIncidents = scheduler.openIncidents();
        f.databaseUp = !scheduler.isDatabaseDown();
        if (!f.databaseUp)
            return; // nothing is read from a database that is away
        f.openCounts = store.openCountsByState();
        for (const CredentialState &c : scheduler.credentialStates()) {
            const CredentialConfig *credential = m_config.credential(c.id);
            if (credential && credential->isOAuth())
                f.credentials.append(c);
        }
        f.waitingForCredentials = scheduler.waitingForCredentials();
        f.partitions = store.partitions(now).value_or(QList<PartitionState>());
        f.endpointHolds = store.endpointHolds().value_or(QList<EndpointHold>());
    });
    return f;
}

std::optional<QMap<OperationState, qint64>> EngineSession::operationCounts()
{
    std::optional<QMap<OperationState, qint64>> counts;
    runOnEngine([&](Store &store, Scheduler &scheduler) {
        if (scheduler.isDatabaseDown())
            return;
        QMap<OperationState, qint64> read = store.countsByState();
        if (store.lastError().isEmpty())
            counts = read;
    });
    return counts;
}

Store::OperationLookup EngineSession::lookUp(qint64 operationId, QString *error)
{
    Store::OperationLookup lookup;
    runOnEngine([&](Store &store, Scheduler &) {
        lookup = store.lookUpOperation(operationId);
        *error = store.lastError();
    });
    return lookup;
}

OperationActionOutcome EngineSession::retryOne(qint64 operationId, bool force, AuditRecord *audit)
{
    OperationActionOutcome outcome;
    runOnEngine([&](Store &store, Scheduler &scheduler) {
        outcome.result = scheduler.retryNow(operationId, force, audit);
        outcome.error = store.lastError();
        outcome.after = store.operation(operationId);
    });
    return outcome;
}

OperationActionOutcome EngineSession::cancelOne(qint64 operationId, AuditRecord *audit)
{
    OperationActionOutcome outcome;
    runOnEngine([&](Store &store, Scheduler &scheduler) {
        outcome.result = scheduler.cancel(operationId, audit);
        outcome.error = store.lastError();
        outcome.after = store.operation(operationId);
    });
    return outcome;
}

EndpointActionOutcome EngineSession::endpointStanding(Store &store, const QString &endpointId,
                                                      bool applied)
{
    EndpointActionOutcome outcome;
    outcome.error = store.lastError();
    const std::optional<bool> paused = store.isEndpointPaused(endpointId);
    const std::optional<QList<EndpointHold>> holds = store.endpointHolds();
    outcome.applied = applied && paused && holds;
    if (!paused || !holds) {
        outcome.error = store.lastError();
        return outcome;
    }
    outcome.paused = *paused;
    for (const EndpointHold &h : *holds) {
        if (h.endpointId == endpointId)
            outcome.hold = h;
    }
    return outcome;
}

EndpointActionOutcome EngineSession::setEndpointPausedNow(const QString &endpointId, bool paused,
                                                          AuditRecord *audit)
{
    EndpointActionOutcome outcome;
    runOnEngine([&](Store &store, Scheduler &scheduler) {
        const bool applied = scheduler.setEndpointPaused(endpointId, paused, audit);
        outcome = endpointStanding(store, endpointId, applied);
    });
    return outcome;
}

EndpointActionOutcome EngineSession::holdEndpointNow(const QString &endpointId, qint64 forMs,
                                                     const QString &reason, AuditRecord *audit)
{
    EndpointActionOutcome outcome;
    runOnEngine([&](Store &store, Scheduler &scheduler) {
        const bool applied =
            scheduler.holdEndpoints({endpointId}, forMs, reason, audit).has_value();
        outcome = endpointStanding(store, endpointId, applied);
    });
    return outcome;
}

EnqueueOutcome EngineSession::enqueue(const QList<JobRequest> &jobs, const QStringList &paths,
                                      qint64 maxQueued, RandomSource &random, QueueCount &count)
{
    // Counting the queue reads an index entry per queued operation: it is counted again
    // once a second, and before any refusal, and followed in between.
    static constexpr qint64 kRecountMs = 1000;
    EnqueueOutcome outcome;
    const qint64 now = m_clock.nowMs();
    runOnEngine([&](Store &store, Scheduler &scheduler) {
        const auto recount = [&] {
            const QMap<OperationState, qint64> open = store.openCountsByState();
            // Parked operations wait for an operator, not for the queue: they do not
            // fill it.
            count.queued = open.value(OperationState::Scheduled) +
                           open.value(OperationState::Waiting) +
                           open.value(OperationState::Running);
            count.countedAtMs = now;
        };
        if (count.countedAtMs < 0 || now - count.countedAtMs >= kRecountMs ||
            now < count.countedAtMs)
            recount();
        if (count.queued + jobs.size() > maxQueued)
            recount();
        outcome.queued = count.queued;
        if (count.queued + jobs.size() > maxQueued) {
            outcome.full = true;
            return;
        }
        outcome.report = enqueueJobs(store, m_config, jobs, paths, now, random, false);
        count.queued += outcome.report.created();
        if (outcome.report.ok() && outcome.report.created() > 0) {
            qint64 due = std::numeric_limits<qint64>::max();
            for (const JobRequest &j : jobs)
                due = std::min(due, std::max(now, j.notBeforeMs));
            scheduler.workAdded(due);
        }
    });
    return outcome;
}

} // namespace cooldown
