// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Scheduler.h"

#include "core/engine/Bookkeeping.h"
#include "core/engine/IncidentCause.h"
#include "core/engine/Intake.h"
#include "core/store/SqlTransaction.h"

#include "core/Logging.h"
#include "core/config/JobRequest.h"
#include "core/engine/AsyncSemaphore.h"
#include "core/engine/Transport.h"
#include "core/http/AuthChallenge.h"
#include "core/http/QuotaStatement.h"
#include "core/http/Redaction.h"
#include "core/http/StructuredFields.h"
#include "core/retry/RetryDecision.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QHostInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUrl>

#include <algorithm>
#include <climits>
#include <utility>

namespace cooldown {

namespace {

// A claimed operation waits this long at most for its partition's token before it is
// handed back to the store with the time the token will be there.
constexpr qint64 kKeepClaimMs = 1000;
// A wall clock this far behind the monotonic one has been stepped back, not slewed.
constexpr qint64 kWallStepBackMs = 1000;
// A concurrency quota frees up when an exchange ends; look again this soon.
constexpr qint64 kConcurrencyRecheckMs = 500;
// The fleet's permits were all taken at the last claim; another worker's exchange may
// end at any time.
constexpr qint64 kFleetPermitRecheckMs = 100;
// QNetworkAccessManager opens at most this many connections to a host and queues the
// rest, with their transfer timeouts running: one process never has more in flight
// to a host, whatever the fleet's per_host.
constexpr int kConnectionsPerHost = 6;
// Another worker was claiming; its claim takes a few milliseconds.
constexpr qint64 kContendedClaimRecheckMs = 5;
// The least wait after a claim that found nothing although the store said work was due.
constexpr qint64 kEmptyClaimRecheckMs = 20;
// Periodic ticks are looked for at most this often (or every claimAheadMs, if longer):
// with thousands of periodic endpoints, each look serves the ticks of this long
// together (one transaction, one claim) instead of one wake for each. Without claims
// ahead, a tick is at most this much later for it.
constexpr qint64 kTickBatchMs = 20;
// The most records held back for one group commit while nothing else is due.
constexpr qsizetype kLargestHeldBackBatch = 256;
// Records of ended attempts wait while at least this many operations on standby keep
// the permits busy; with fewer, they are written and the claim that follows refills.
constexpr int kStandbyToHoldRecords = 2;
// After operations on standby went back for want of a permit to wait for, claims take
// none on standby for this long.
constexpr qint64 kStandbyPauseMs = 1000;
// While the database is unreachable, it is tried again after a wait drawn at random
// up to this, doubling with each try up to kReconnectCapMs (full jitter), and never
// sooner than kReconnectFloorMs: a fleet does not come back in step, and each worker
// resumes within about a second of the database answering.
constexpr qint64 kReconnectFirstMs = 250;
constexpr qint64 kReconnectCapMs = 1000;
constexpr qint64 kReconnectFloorMs = 50;

// The request's headers as recorded: a credential's value replaced whatever its name,
// since the store's redaction goes by names that look secret and a "header" credential
// may have any name.
HttpHeaders withoutCredential(const HttpHeaders &headers, const QByteArray &credentialHeader)
{
    if (credentialHeader.isEmpty())
        return headers;
    HttpHeaders out;
    for (const auto &field : headers.fields())
        out.append(field.first, field.first.compare(credentialHeader, Qt::CaseInsensitive) == 0
                                    ? QByteArrayLiteral("[redacted]")
                                    : field.second);
    return out;
}

QString headerLines(const HttpHeaders &headers)
{
    QString out;
    for (const auto &field : headers.fields())
        out += QString::fromLatin1(field.first) + QStringLiteral(": ") +
               QString::fromUtf8(field.second) + QLatin1Char('\n');
    return out;
}

// What the decision table reads of an exchange.
AttemptOutcome outcomeOf(const EndpointConfig &e, const TransportResult &result)
{
    AttemptOutcome outcome;
    outcome.method = e.method;
    outcome.status = result.error == TransportError::None || result.status != 0 ? result.status : 0;
    outcome.error = result.error;
    outcome.headers = result.headers;
    outcome.body = result.body;
    outcome.idempotencyKeySent = !e.idempotencyHeader.isEmpty();
    outcome.keyValidMs = qint64(e.keyValidSeconds * 1000);
    outcome.expect = e.expect.get();
    outcome.bodyTruncated = result.bodyTruncated;
    outcome.durationMs = result.durationMs;
    outcome.latencyBudgetMs = e.latencyBudgetMs;
    if (outcome.error != TransportError::None)
        outcome.status = 0;
    return outcome;
}

// The operation's attempts so far, this one counted; the first attempt's start is
// this one's when there was none before.
AttemptHistory historyOf(const OperationRecord &op, const TransportResult &result)
{
    AttemptHistory history;
    history.attempt = op.attempt + 1;
    history.throttledBefore = op.throttledAttempts;
    history.firstAttemptAtMs = op.firstAttemptAtMs >= 0 ? op.firstAttemptAtMs : result.startedAtMs;
    history.previousBackoffMs = op.previousBackoffMs;
    return history;
}

// The error recorded for a credential the server refused, with the words of its
// Bearer challenge. No "name: value" shape: the store would read it as a header line,
// and "auth..." as a secret's name.
QString authFailedText(const HttpHeaders &headers)
{
    const auto challenge = AuthChallenge::bearer(headers);
    QStringList said;
    if (challenge) {
        for (const char *name : {"error", "error_description"}) {
            const QString value = challenge->param(name).value_or(QString());
            if (!value.isEmpty())
                said.append(value);
        }
    }
    return said.isEmpty() ? QStringLiteral("auth_failed")
                          : QStringLiteral("auth_failed (%1)").arg(said.join(u", "));
}

} // namespace

// The per-(policy, partition key) pace.
struct Scheduler::Partition
{
    const RateLimitPolicy *policy = nullptr;
    QString partitionKey;
    std::unique_ptr<TokenBucket> bucket;
};

// An operation this worker has claimed, from the claim until its attempt is recorded.
struct Scheduler::Held
{
    enum class Stage
    {
        Guard,
        Standby,     // claimed without a fleet-wide permit: waits for one to be handed over
        Credentials, // waits for its credential's token request to end
        Bucket,
        Permits,
        InFlight
    };

    OperationRecord op;
    const EndpointConfig *endpoint = nullptr;
    FilledRequest filled; // the endpoint's request, filled with the operation's job values
    Stage stage = Stage::Guard;
    qint64 readyAtMonotonicMs = 0;
    qint64 bucketCost = 0;
    bool tookConcurrencyPermit = false;
    bool fleetPermit = true;   // its lease holds one of the fleet's permits
    bool permitPassed = false; // ...which went to an operation on standby

    // Claimed on standby, its permit not handed over yet. A rescue holds no permit
    // either (it sends nothing), but waits for none.
    bool onStandby() const { return !fleetPermit && !op.rescued; }
    Permit hostPermit;
    Permit globalPermit;
    AsyncSemaphore::Ticket hostTicket = 0;
    AsyncSemaphore::Ticket globalTicket = 0;
    TransportCall *call = nullptr;
    TransportRequest request;
    // The credential's header for this send, and which token it carries.
    QByteArray authName;
    QByteArray authValue;
    quint64 tokenSerial = 0;
    // Sent once more after a 401 refused a stale token: a second 401 stands.
    bool sentWithRenewedToken = false;
    // Its permits came while the database was unreachable or the machine was going to
    // sleep: sent once the database is back, or the machine awake.
    bool waitingToSend = false;
    bool interrupted = false; // in flight when the machine slept (docs/offline.md)
};

Scheduler::Scheduler(WorkspaceConfig config, Store &store, Transport &transport, const Clock &clock,
                     RandomSource &random, WakeTimer &timer, SchedulerOptions options,
                     QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_store(store), m_transport(transport),
      m_clock(clock), m_random(random), m_timer(timer), m_options(std::move(options)),
      m_global(std::make_unique<AsyncSemaphore>(m_config.concurrency.maxInFlight))
{
    qRegisterMetaType<AttemptRecord>();
    qRegisterMetaType<OperationRecord>();
    qRegisterMetaType<SnoozeHold>();
    qRegisterMetaType<PolicyDrift>();
    qRegisterMetaType<CredentialState>();
    qRegisterMetaType<IncidentRecord>();
    qRegisterMetaType<QList<IncidentRecord>>();
    if (m_options.workerId.isEmpty())
        m_options.workerId = QStringLiteral("%1:%2:%3")
                                 .arg(QHostInfo::localHostName())
                                 .arg(QCoreApplication::applicationPid())
                                 .arg(m_random.next() % 100000, 5, 10, QLatin1Char('0'));
    for (const EndpointConfig &e : std::as_const(m_config.endpoints))
        m_endpointById.insert(e.id, &e);
    for (const AlertConfig &a : std::as_const(m_config.alerts))
        m_endpointById.insert(a.target.id, &a.target);
    for (const EndpointConfig *e : std::as_const(m_endpointById)) {
        if (auto connection = ConnectionSettings::make(
                e->tls.isEmpty() ? nullptr : m_config.tlsConfig(e->tls), e->proxy))
            m_connections.insert(e->id, std::move(connection));
    }
    m_credentials = std::make_unique<CredentialBroker>(m_config.credentials, m_config.tls,
                                                       m_transport, m_clock, m_random);
    connect(m_credentials.get(), &CredentialBroker::changed, this, &Scheduler::onCredentialChanged);
    connect(m_credentials.get(), &CredentialBroker::refused, this, &Scheduler::onCredentialRefused);
    connect(m_credentials.get(), &CredentialBroker::stateChanged, this, [this](const QString &id) {
        const CredentialState state = m_credentials->state(id);
        saveCredentialState(state);
        emit credentialChanged(state);
    });
    connect(&m_timer, &WakeTimer::fired, this, &Scheduler::wake);
    connect(&m_reachProbe, &ReachProbe::finished, this, &Scheduler::probeFinished);
    connect(&m_snooze, &PartitionSnooze::held, this, &Scheduler::partitionHeld);
    connect(&m_snooze, &PartitionSnooze::lifted, this, &Scheduler::partitionReleased);
    connect(&m_snooze, &PartitionSnooze::expired, this, &Scheduler::partitionReleased);
    connect(&m_drift, &PolicyDriftMonitor::driftDetected, this, &Scheduler::policyDrift);
    connect(&m_drift, &PolicyDriftMonitor::driftDetected, this, [this](const PolicyDrift &d) {
        raiseAlert(
            AlertEvent::PolicyDrift,
            QStringLiteral("Policy %1 (partition %2) differs from what the server advertises: %3")
                .arg(d.policyId, d.partitionKey, d.differences.join(QStringLiteral("; "))),
            {{QStringLiteral("policy_id"), d.policyId},
             {QStringLiteral("partition_key"), d.partitionKey}});
    });
}

Scheduler::~Scheduler()
{
    // Attempts that ended are written even now; nobody is left to hear about them.
    if (!m_finishing.isEmpty())
        m_store.finishAttempts(std::exchange(m_finishing, {}), m_options.workerId,
                               m_inFlightPeaks.take(nowMs()));
    // Calls in flight belong to the transport; make sure none calls back into us.
    // No permit given back below may start another exchange: leave every queue first.
    for (auto &[id, held] : m_held) {
        if (held->call)
            held->call->disconnect(this);
        if (held->hostTicket)
            hostSemaphore(held->endpoint->url.host()).cancel(held->hostTicket);
        if (held->globalTicket)
            m_global->cancel(held->globalTicket);
        held->hostTicket = held->globalTicket = 0;
    }
    m_held.clear();
}

qint64 Scheduler::nowMs() const
{
    // The wall clock may be stepped back (NTP, an operator): the schedule then goes on
    // from where the monotonic clock says it is, so no wait is stretched by the step.
    // Otherwise the wall clock is followed as it is, forward steps and slewing
    // included; the monotonic guard on this worker's own retries keeps them from
    // firing early after a step forward.
    const qint64 wall = m_clock.nowMs();
    const qint64 mono = m_clock.monotonicMs();
    const qint64 continued = mono + m_monotonicToWallMs;
    if (continued - wall > kWallStepBackMs)
        return continued;
    m_monotonicToWallMs = wall - mono;
    return wall;
}

namespace {

// Endpoints written to the store in one transaction at start.
constexpr int kStartBatch = 500;

bool commitBatch(std::unique_ptr<SqlBatch> batch, QString *error)
{
    if (batch->commit())
        return true;
    *error = batch->error();
    return false;
}

} // namespace

bool Scheduler::start(QString *error)
{
    m_monotonicToWallMs = m_clock.nowMs() - m_clock.monotonicMs();
    for (const RateLimitPolicy &policy : std::as_const(m_config.policies)) {
        m_policies.insert(policy.policyId, policy);
        m_store.upsertPolicy(
            policy.policyId, int(policy.policyVersion),
            QString::fromUtf8(QJsonDocument(policy.toJson()).toJson(QJsonDocument::Compact)));
    }
    const qint64 now = nowMs();
    // The workspace goes into the store in batches: one transaction for many endpoints
    // rather than a few each, and no write lock held for long.
    std::unique_ptr<SqlBatch> batch;
    int batched = 0;
    for (const EndpointConfig &e : std::as_const(m_config.endpoints)) {
        if (!batch && m_store.backend() == Store::Backend::Sqlite &&
            !(batch = m_store.beginBatch())) {
            *error = m_store.lastError();
            return false;
        }
        const QString partitionPolicy = partitionPolicyOf(e);
        if (!m_store.upsertEndpoint(e.id, e.name, now) || !ensurePartition(e)) {
            *error = m_store.lastError();
            return false;
        }
        if (e.isPeriodic()) {
            // The first tick of an endpoint new to the database is now; a known one
            // keeps the tick the fleet has reached.
            const qint64 periodMs = qint64(e.everySeconds) * 1000;
            const auto latest = m_store.latestOperation(e.id);
            if (!m_store.ensureTick(e.id, periodMs,
                                    latest ? latest->createdAtMs + periodMs : now)) {
                *error = m_store.lastError();
                return false;
            }
            m_ticks.insert(e.id, {e.id, partitionPolicy, e.partitionKey, costOf(e), e.url.host(),
                                  periodMs, e.catchUp});
        } else if (!e.enqueueOnly && !m_store.ensureOneShotOperation(
                                         e.id, newIdempotencyKey(), now, partitionPolicy,
                                         e.partitionKey, nullptr, costOf(e), e.url.host())) {
            *error = m_store.lastError();
            return false;
        }
        if (++batched % kStartBatch == 0 && batch && !commitBatch(std::move(batch), error))
            return false;
    }
    if (batch && !commitBatch(std::move(batch), error))
        return false;
    if (batched >= kStartBatch)
        m_store.requestCheckpoint(); // bulk work: the log goes back to the database
    for (const AlertConfig &a : std::as_const(m_config.alerts)) {
        if (!m_store.upsertEndpoint(a.target.id, a.target.name, now) ||
            !ensurePartition(a.target)) {
            *error = m_store.lastError();
            return false;
        }
    }
    for (const CredentialConfig &c : std::as_const(m_config.credentials)) {
        if (c.isOAuth())
            saveCredentialState(m_credentials->state(c.id));
    }
    m_started = true;
    qCDebug(lcEngine) << "worker" << m_options.workerId << "started with"
                      << m_config.endpoints.size() << "endpoints";
    wake();
    return true;
}

void Scheduler::stop()
{
    if (m_stopping)
        return;
    // One last try, so that what was kept can be written before the end.
    if (m_databaseDown)
        tryReconnect();
    m_stopping = true;
    m_timer.disarm();
    if (!m_config.credentials.isEmpty() &&
        !m_store.workerStates().forgetCredentials(m_options.workerId))
        qCWarning(lcEngine) << "could not forget the state of credentials" << m_store.lastError();
    if (m_connectivity.isOffline() &&
        !m_store.workerStates().saveOffline(m_options.workerId, -1, nowMs()))
        qCWarning(lcEngine) << "could not forget being offline" << m_store.lastError();
    // Records held back for a batch go now.
    if (!m_finishing.isEmpty() && !m_flushQueued) {
        m_flushQueued = true;
        QMetaObject::invokeMethod(this, &Scheduler::flushFinished, Qt::QueuedConnection);
    }
    // Operations not yet sent are handed back; exchanges in flight finish.
    std::vector<qint64> unsent;
    for (const auto &[id, held] : m_held) {
        if (held->stage != Held::Stage::InFlight)
            unsent.push_back(id);
    }
    for (qint64 id : unsent) {
        Held &held = *m_held.at(id);
        // With the database away they stay leased, and go to the lease rules.
        if (!m_databaseDown || m_recordWhileDown)
            m_store.claims().releaseClaim(id, m_options.workerId, held.op.version);
        release(id);
    }
    checkIdle();
}

int Scheduler::maxInFlight() const
{
    return m_global->permits();
}

QString Scheduler::newIdempotencyKey()
{
    // The random source is the system's in production.
    return cooldown::newIdempotencyKey(m_random);
}

void Scheduler::wake()
{
    if (!m_started || m_waking)
        return;
    // One reading of the clocks for the whole wake: whether records are written first
    // and whether the store is asked for work must agree.
    const qint64 now = nowMs();
    const qint64 mono = m_clock.monotonicMs();
    if (const std::optional<qint64> slept = m_sleepWatch.note(m_clock.bootMs(), mono))
        wakeFromSleep(*slept, mono);
    if (m_databaseDown) {
        wakeWhileDatabaseDown(mono);
        return;
    }
    // Records held back for a batch are written first, when their time has come or
    // before the store is asked for work (a claim counts the permits they give back,
    // a tick looks for the endpoint's unfinished operation); writing them wakes us
    // again. A wake that only sends what was claimed ahead leaves them to wait.
    if (!m_finishing.isEmpty() && !m_flushQueued &&
        (m_flushByMonotonicMs < 0 || mono >= m_flushByMonotonicMs || m_stopping ||
         storeWorkDue(now, mono))) {
        flushFinished();
        return;
    }
    if (m_stopping) {
        checkIdle();
        return;
    }
    if (m_goingToSleep && !wakeWhileGoingToSleep(mono))
        return;
    m_waking = true;
    m_snooze.expire(now);
    keepHolds(now, mono);
    lookAtIncidents(mono);
    createPeriodicOperations(now, mono);
    renewLeases(now);
    if (databaseFault()) {
        m_waking = false;
        armTimer(StoreDue::Unknown);
        return;
    }
    advanceDue(mono);
    const StoreDue storeDue = claimMore(now, mono);
    m_waking = false;
    probeIfIdle(mono);
    armTimer(storeDue);
    checkIdle();
}

void Scheduler::wakeWhileDatabaseDown(qint64 mono)
{
    // Nothing is claimed, ticked or sent: the database is tried again at its time.
    if (m_stopping)
        checkIdle();
    else if (mono >= m_reconnectAtMonotonicMs)
        tryReconnect();
    else
        armTimer(StoreDue::Unknown);
}

void Scheduler::advanceDue(qint64 mono)
{
    // By id, looked up again for each: advance() may finish one operation and, by the
    // permit it hands over, advance and finish another.
    const auto due = [mono](const Held &held) {
        return held.stage == Held::Stage::Guard || held.stage == Held::Stage::Bucket ||
               (held.stage == Held::Stage::Credentials && mono >= held.readyAtMonotonicMs);
    };
    std::vector<qint64> toAdvance;
    for (const auto &[id, held] : m_held) {
        if (due(*held))
            toAdvance.push_back(id);
    }
    for (const qint64 id : toAdvance) {
        const auto it = m_held.find(id);
        if (it != m_held.end() && due(*it->second))
            advance(*it->second);
    }
}

Scheduler::StoreDue Scheduler::claimMore(qint64 now, qint64 mono)
{
    // Claim only what can go out soon: the free global permits, and as many again
    // queued behind them, so that a permit coming back sends at once instead of
    // waiting for the next claim. While half a round is still queued for permits, the
    // next claim waits and then takes several at once. Operations waiting for their
    // partition's token do not count as queued: they must not keep other partitions'
    // due work from being claimed.
    const int permits = m_global->permits();
    const qsizetype queued = queuedForPermits();
    int room = queued * 2 > permits ? 0 : 2 * permits - int(m_held.size());
    // Offline, one exchange at a time looks whether the network is back; back online,
    // the share of permits ramps up (docs/offline.md).
    const int allowed = m_connectivity.allowed(permits, mono);
    if (allowed < permits)
        room = std::min(room, allowed - int(m_held.size()));
    if (room <= 0)
        return StoreDue::Unknown;
    // Records of ended attempts are about to be written, and that wakes us again: a
    // claim now would count their leases as permits still taken.
    if (m_flushQueued && !m_finishing.isEmpty())
        return StoreDue::Unknown;
    // The store said when its next due work is; until then (and for no longer than a
    // poll) a wake after an attempt ends claims nothing, which saves a transaction per
    // request where requests are few and far apart (periodic checks). What this worker
    // changes moves that time (noteStoreDue); another worker's work is found at the
    // poll, or by claims that run anyway.
    if (!claimMayFindWork(now, mono))
        return StoreDue::Remembered;
    return claim(now, mono, room) ? StoreDue::Read : StoreDue::Unknown;
}

bool Scheduler::claim(qint64 now, qint64 mono, int room)
{
    const StoreResult<ClaimResult> taken = m_store.claims().claim(
        m_options.workerId, now, m_options.leaseMs, room, m_claimState,
        {m_config.concurrency.maxInFlight, m_config.concurrency.perHost,
         2 * std::min(m_config.concurrency.perHost, kConnectionsPerHost),
         m_options.standbyClaims && mono >= m_standbyPausedUntilMonotonicMs ? kConnectionsPerHost
                                                                            : 0},
        m_options.claimAheadMs);
    if (!taken)
        reportStoreFailure();
    const ClaimResult result = taken ? *taken : ClaimResult();
    const QList<OperationRecord> &claimed = result.operations;
    for (const OperationRecord &op : claimed)
        admit(op, result.onStandby.contains(op.id));
    // A full claim: there may be more due, but nothing more fits until an
    // attempt ends, and that wakes us again.
    // Due work left behind for want of a fleet-wide permit is looked at again soon:
    // other workers' attempts end without waking this one.
    m_fleetCapped = result.capped || result.contended;
    m_claimContended = result.contended;
    m_lastClaimEmpty = claimed.isEmpty();
    const bool storeMayHaveDue = claimed.size() < room && !m_fleetCapped;
    if (!storeMayHaveDue)
        noteStoreDue(std::numeric_limits<qint64>::min()); // more may be due: look again
    return storeMayHaveDue;
}

void Scheduler::workAdded(qint64 dueAtMs)
{
    noteStoreDue(dueAtMs);
    wake();
}

void Scheduler::noteStoreDue(qint64 atMs)
{
    m_claimAtMs = std::min(m_claimAtMs, atMs);
}

bool Scheduler::claimMayFindWork(qint64 nowMs, qint64 mono) const
{
    return nowMs >= m_claimAtMs || mono >= m_storeDueReadMonotonicMs + m_options.pollMs;
}

qint64 Scheduler::tickBatchMs() const
{
    return std::max(kTickBatchMs, m_options.claimAheadMs);
}

bool Scheduler::storeWorkDue(qint64 nowMs, qint64 mono) const
{
    const bool ticks = !m_ticks.isEmpty() && mono >= m_ticksLookedAtMonotonicMs + tickBatchMs();
    return ticks || claimMayFindWork(nowMs, mono);
}

void Scheduler::createPeriodicOperations(qint64 nowMs, qint64 mono)
{
    if (m_ticks.isEmpty() || mono < m_ticksLookedAtMonotonicMs + tickBatchMs())
        return;
    m_ticksLookedAtMonotonicMs = mono;
    m_nextTickKnown = false;
    // Each tick is won by one worker of the fleet, in the store; those of the time a
    // claim looks ahead are made now, due at their tick.
    if (!m_store
             .runDueTicks(
                 nowMs, m_ticks, [this] { return newIdempotencyKey(); }, m_options.claimAheadMs)
             .isEmpty())
        noteStoreDue(nowMs);
    if (!m_store.lastError().isEmpty())
        reportStoreFailure();
}

void Scheduler::keepHolds(qint64 nowMs, qint64 mono)
{
    if (mono < m_holdsLookAtMonotonicMs)
        return;
    // Another process may hold an endpoint at any time (`cooldown pause --for`): its end
    // is learnt at the next look, a poll later at most. A look that fails is not
    // repeated before then either.
    qint64 nextMs = nowMs + m_options.pollMs;
    m_holdsLookAtMonotonicMs = mono + m_options.pollMs;
    const std::optional<qint64> window = holdMaintenance(nowMs);
    if (!window)
        return reportStoreFailure();
    nextMs = std::min(nextMs, *window);
    const std::optional<QList<EndpointHold>> holds = m_store.endpointHolds();
    if (!holds)
        return reportStoreFailure();
    bool anyEnded = false;
    for (const EndpointHold &hold : *holds) {
        anyEnded = anyEnded || hold.untilMs <= nowMs;
        if (hold.untilMs > nowMs)
            nextMs = std::min(nextMs, hold.untilMs);
    }
    if (anyEnded) {
        const std::optional<QStringList> lifted = m_store.liftEndedHolds(nowMs);
        if (!lifted)
            return reportStoreFailure();
        if (!lifted->isEmpty()) {
            noteStoreDue(std::numeric_limits<qint64>::min()); // their work is due again
            emit endpointsReleased(*lifted);
        }
    }
    m_holdsLookAtMonotonicMs = mono + std::max<qint64>(0, nextMs - nowMs);
}

std::optional<qint64> Scheduler::holdMaintenance(qint64 nowMs)
{
    // Every worker of the fleet holds the same endpoints until the same end: the
    // windows are the workspace's, so whichever looks first writes the hold, and the
    // others find it written (holdEndpoints only ever extends).
    qint64 nextMs = std::numeric_limits<qint64>::max();
    for (const MaintenanceConfig &m : std::as_const(m_config.maintenance)) {
        const std::optional<qint64> until = m.window.until(nowMs);
        if (!until) {
            if (const std::optional<qint64> start = m.window.nextStart(nowMs))
                nextMs = std::min(nextMs, *start);
            continue;
        }
        nextMs = std::min(nextMs, *until);
        if (m_maintenanceHeldUntil.value(m.id) == *until || m.endpointIds.isEmpty())
            continue;
        const std::optional<QStringList> held =
            m_store.holdEndpoints(m.endpointIds, *until, m.holdReason(), nowMs);
        if (!held)
            return std::nullopt;
        m_maintenanceHeldUntil.insert(m.id, *until);
        handBackHeldEndpoints(m.endpointIds);
        if (!held->isEmpty())
            emit endpointsHeld(*held, *until, m.holdReason());
    }
    return nextMs;
}

void Scheduler::handBackHeldEndpoints(const QStringList &endpointIds)
{
    // What was claimed but not sent waits in the store with the rest of the endpoint's
    // work; what is in flight ends as it would.
    QList<qint64> back;
    for (const auto &[id, held] : m_held) {
        if (held->endpoint && endpointIds.contains(held->endpoint->id) &&
            held->stage != Held::Stage::InFlight && !held->waitingToSend)
            back.append(id);
    }
    for (const qint64 id : std::as_const(back)) {
        const OperationRecord &op = m_held.at(id)->op;
        if (!m_store.claims().releaseClaim(id, m_options.workerId, op.version, op.nextAttemptAtMs))
            qCWarning(lcEngine) << "could not hand back operation" << id << m_store.lastError();
        release(id);
    }
}

qint64 Scheduler::costOf(const EndpointConfig &endpoint) const
{
    const auto policy = m_policies.constFind(endpoint.policy);
    if (policy == m_policies.constEnd() || policy->quotaUnit != QuotaUnit::Byte)
        return 1;
    return std::max<qint64>(0, endpoint.body.size());
}

QString Scheduler::partitionPolicyOf(const EndpointConfig &endpoint) const
{
    return endpoint.policy.isEmpty() ? learnedPolicyId(endpoint.url.host()) : endpoint.policy;
}

bool Scheduler::ensurePartition(const EndpointConfig &endpoint)
{
    if (endpoint.policy.isEmpty())
        return m_store.ensureLearnedPartition(partitionPolicyOf(endpoint));
    const auto policy = m_policies.constFind(endpoint.policy);
    // A partition key filled per job names the partitions of its jobs: each is made
    // when a job is handed in.
    if (policy == m_policies.constEnd() ||
        !jobtemplate::placeholders(endpoint.partitionKey).isEmpty())
        return true;
    return ensurePolicyPartition(m_store, *policy, endpoint.partitionKey);
}

void Scheduler::admit(const OperationRecord &op, bool onStandby)
{
    auto held = std::make_unique<Held>();
    held->op = op;
    held->endpoint = m_endpointById.value(op.endpointId);
    held->fleetPermit = !onStandby && !op.rescued;
    if (held->onStandby())
        ++m_onStandby;
    const qint64 id = op.id;
    Held &h = *held;
    m_held[id] = std::move(held);
    emit operationChanged(op);

    if (!h.endpoint) {
        // The endpoint left the config: the operation cannot run any more.
        RetryDecision gone;
        gone.action = RetryDecision::Action::Fail;
        gone.reason = QStringLiteral("endpoint_not_configured");
        AttemptFacts facts;
        facts.startedAtMs = nowMs();
        facts.error = gone.reason;
        facts.workerId = m_options.workerId;
        const AttemptRecord a = bookkeeping::attemptRecord(op, facts, gone, false);
        const OperationRecord next = bookkeeping::nextState(op, a, gone, op.firstAttemptAtMs);
        finish(h, a, next);
        return;
    }
    QString unfilled;
    if (const auto filled = fillRequest(*h.endpoint, op.jobValues, op.requestBody, &unfilled)) {
        h.filled = *filled;
    } else {
        // The workspace changed since the job was handed in: it cannot be sent.
        RetryDecision refused;
        refused.action = RetryDecision::Action::Fail;
        refused.reason = QStringLiteral("job_values_missing");
        AttemptFacts facts = factsOf(h);
        facts.startedAtMs = nowMs();
        facts.error = unfilled;
        const AttemptRecord a = bookkeeping::attemptRecord(op, facts, refused, false);
        finish(h, a, bookkeeping::nextState(op, a, refused, op.firstAttemptAtMs));
        return;
    }
    if (op.rescued) {
        recordRescue(h);
        return;
    }
    // The wall clock may have jumped forward; a retry this worker scheduled never
    // starts before its monotonic time. One claimed ahead waits for its time, and a
    // millisecond more: the two clocks are read in whole milliseconds.
    h.readyAtMonotonicMs = m_notBeforeMonotonicMs.value(id, 0);
    const qint64 now = nowMs();
    if (op.nextAttemptAtMs > now)
        h.readyAtMonotonicMs =
            std::max(h.readyAtMonotonicMs, m_clock.monotonicMs() + (op.nextAttemptAtMs - now) + 1);
    advance(h);
}

Scheduler::Partition *Scheduler::partitionOf(const Held &held)
{
    const EndpointConfig &e = *held.endpoint;
    const auto policy = m_policies.constFind(e.policy);
    if (policy == m_policies.constEnd())
        return nullptr;
    const auto key = std::make_pair(e.policy, held.op.partitionKey);
    auto it = m_partitions.find(key);
    if (it == m_partitions.end()) {
        auto p = std::make_unique<Partition>();
        p->policy = &policy.value();
        p->partitionKey = held.op.partitionKey;
        p->bucket = std::make_unique<TokenBucket>(*p->policy, m_clock.monotonicMs());
        it = m_partitions.emplace(key, std::move(p)).first;
    }
    return it->second.get();
}

void Scheduler::advance(Held &held)
{
    const qint64 mono = m_clock.monotonicMs();
    if (held.stage == Held::Stage::Guard) {
        if (mono < held.readyAtMonotonicMs)
            return; // the timer is armed for it
        held.stage = Held::Stage::Standby;
    }
    if (held.stage == Held::Stage::Standby) {
        // Until an attempt of this worker to its host ends and hands its permit over
        // (finish()), holding nothing of this process's own; one whose host has no
        // permit of this worker left goes back.
        if (!held.fleetPermit) {
            if (!m_standbyCheckQueued) {
                m_standbyCheckQueued = true;
                QMetaObject::invokeMethod(this, &Scheduler::handBackOrphanedStandby,
                                          Qt::QueuedConnection);
            }
            return;
        }
        held.stage = Held::Stage::Credentials;
    }
    if (held.stage == Held::Stage::Credentials) {
        if (!takeCredential(held))
            return;
        held.stage = Held::Stage::Bucket;
    }
    if (held.stage == Held::Stage::Bucket) {
        if (Partition *p = partitionOf(held)) {
            const qint64 now = nowMs();
            held.bucketCost = p->bucket->costOf(held.filled.body.size());
            if (held.op.forceNext) {
                p->bucket->takeForced(held.bucketCost, mono);
            } else {
                const qint64 heldUntil =
                    m_snooze.heldUntilMs(held.endpoint->policy, held.op.partitionKey, now);
                if (heldUntil > now)
                    return deferOrWait(held, heldUntil - now);
                // The claim took the unit from the fleet's bucket and the server's window;
                // this process's own bucket counts permits of a concurrency quota, and
                // slows the partition while the server asks for less.
                const bool paceHere = p->bucket->unit() == QuotaUnit::Concurrency ||
                                      p->bucket->rateFactor(mono) < 1.0;
                if (paceHere && !p->bucket->tryTake(held.bucketCost, mono)) {
                    const qint64 at = p->bucket->availableAtMs(held.bucketCost, mono);
                    return deferOrWait(held, at == TokenBucket::kWaitForRelease
                                                 ? kConcurrencyRecheckMs
                                                 : at - mono);
                }
            }
            held.tookConcurrencyPermit = p->bucket->unit() == QuotaUnit::Concurrency;
        } else if (held.endpoint->policy.isEmpty() && !held.op.forceNext) {
            // The host's learned partition: a 429 that arrived since the claim holds
            // it here too.
            const qint64 now = nowMs();
            const qint64 heldUntil =
                m_snooze.heldUntilMs(partitionPolicyOf(*held.endpoint), held.op.partitionKey, now);
            if (heldUntil > now)
                return deferOrWait(held, heldUntil - now);
        }
        held.stage = Held::Stage::Permits;
        // Host permit first, then the global one: a saturated host never sits on
        // global permits that other hosts could use.
        const qint64 id = held.op.id;
        held.hostTicket =
            hostSemaphore(held.endpoint->url.host()).acquire([this, id](Permit permit) {
                const auto it = m_held.find(id);
                if (it == m_held.end())
                    return;
                Held &h = *it->second;
                h.hostTicket = 0;
                h.hostPermit = std::move(permit);
                h.globalTicket = m_global->acquire([this, id](Permit global) {
                    const auto found = m_held.find(id);
                    if (found == m_held.end())
                        return;
                    found->second->globalTicket = 0;
                    found->second->globalPermit = std::move(global);
                    send(*found->second);
                });
            });
    }
}

bool Scheduler::takeCredential(Held &held)
{
    const QString &credential = held.endpoint->credentials;
    if (credential.isEmpty())
        return true;
    const CredentialGrant grant = m_credentials->acquire(credential);
    switch (grant.kind) {
    case CredentialGrant::Kind::Ready:
        held.authName = grant.headerName;
        held.authValue = grant.headerValue;
        held.tokenSerial = grant.serial;
        return true;
    case CredentialGrant::Kind::Pending:
        if (grant.retryInMs >= 0) {
            // The token endpoint failed and is asked again then: a long wait goes back
            // to the store, a short one waits here for the timer, and then asks again.
            held.stage = Held::Stage::Guard;
            held.readyAtMonotonicMs = m_clock.monotonicMs() + grant.retryInMs;
            deferOrWait(held, grant.retryInMs);
            return false;
        }
        if (grant.inFlightForMs > kKeepClaimMs) {
            // A token request that takes this long may take its whole timeout: the
            // claim, and the fleet's permit it holds, go back to the store meanwhile.
            deferOrWait(held, kKeepClaimMs + 1);
            return false;
        }
        // The request in flight ends in onCredentialChanged(); looked at again within a
        // second all the same, in case it does not.
        held.stage = Held::Stage::Credentials;
        held.readyAtMonotonicMs = m_clock.monotonicMs() + kKeepClaimMs + 1;
        return false;
    case CredentialGrant::Kind::Refused: {
        // The client itself was refused: no retry can fix it, an operator must.
        RetryDecision parked;
        parked.action = RetryDecision::Action::Park;
        parked.reason = QStringLiteral("credentials_refused");
        AttemptFacts facts = factsOf(held);
        facts.startedAtMs = nowMs();
        facts.error = QStringLiteral("credentials %1 refused: %2").arg(credential, grant.reason);
        const AttemptRecord a = bookkeeping::attemptRecord(held.op, facts, parked, false);
        finish(held, a,
               bookkeeping::nextState(held.op, a, parked,
                                      held.op.firstAttemptAtMs >= 0 ? held.op.firstAttemptAtMs
                                                                    : facts.startedAtMs));
        return false;
    }
    }
    return false;
}

void Scheduler::saveCredentialState(const CredentialState &state)
{
    // A stopping worker has removed its rows, and does not write them again.
    if (m_stopping)
        return;
    CredentialStateRow row;
    row.workerId = m_options.workerId;
    row.credentialId = state.id;
    row.phase = QLatin1String(textOf(state.phase));
    row.validUntilMs = state.validUntilMs;
    row.failingSinceMs = state.failingSinceMs;
    row.nextTryAtMs = state.nextTryAtMs;
    row.lastError = state.lastError;
    row.tokenRequests = state.tokenRequests;
    row.updatedAtMs = nowMs();
    if (!m_store.workerStates().saveCredential(row))
        qCWarning(lcEngine) << "could not save the state of credentials" << state.id
                            << m_store.lastError();
}

void Scheduler::onCredentialChanged(const QString &credentialId)
{
    const CredentialState state = m_credentials->state(credentialId);
    saveCredentialState(state);
    noteTokenEndpoint(state);
    emit credentialChanged(state);
    QList<qint64> waiting;
    for (const auto &[id, held] : m_held) {
        if (held->stage == Held::Stage::Credentials && held->endpoint->credentials == credentialId)
            waiting.append(id);
    }
    for (const qint64 id : std::as_const(waiting)) {
        const auto it = m_held.find(id);
        if (it != m_held.end())
            advance(*it->second);
    }
    if (!waiting.isEmpty() && !m_waking)
        armTimer(StoreDue::Unknown);
}

void Scheduler::onCredentialRefused(const QString &credentialId, const QString &reason)
{
    raiseAlert(AlertEvent::CredentialsRefused,
               QStringLiteral("The token endpoint refused credentials %1: %2. Operations that "
                              "need them are parked.")
                   .arg(credentialId, reason),
               {{QStringLiteral("credentials"), credentialId}, {QStringLiteral("reason"), reason}});
}

bool Scheduler::renewAfterRefusedToken(Held &held, const TransportResult &result)
{
    const QString &credential = held.endpoint->credentials;
    if (result.status != 401 || credential.isEmpty() || held.sentWithRenewedToken ||
        !m_credentials->isOAuth(credential) ||
        m_credentials->isDistrusted(credential, held.tokenSerial))
        return false;
    // RFC 6750, 3.1: invalid_token is the server's word that the token is expired or
    // revoked. Without it, a 401 to a token that is no longer the newest, or that has
    // expired by our clock, is read the same way.
    const auto challenge = AuthChallenge::bearer(result.headers);
    const bool invalidToken =
        challenge && challenge->param("error") == QStringLiteral("invalid_token");
    if (!invalidToken && held.tokenSerial == m_credentials->currentSerial(credential) &&
        !m_credentials->hadExpired(credential, held.tokenSerial))
        return false;
    m_credentials->rejected(credential, held.tokenSerial);
    if (m_stopping) {
        // Not sent again now, and not failed either: the server did not execute it. It
        // goes back to the store as it was, for the next start.
        if (!m_store.claims().releaseClaim(held.op.id, m_options.workerId, held.op.version,
                                           nowMs()))
            qCWarning(lcEngine) << "could not hand back operation" << held.op.id
                                << m_store.lastError();
        release(held.op.id);
        checkIdle();
        return true;
    }
    held.sentWithRenewedToken = true;
    held.authName.clear();
    held.authValue.clear();
    held.tokenSerial = 0;
    // The exchange is not an attempt: the server refused it before executing it. Its
    // permits go back; it keeps its claim and its place, and waits for a token.
    if (held.tookConcurrencyPermit) {
        if (Partition *p = partitionOf(held))
            p->bucket->release(held.bucketCost);
        held.tookConcurrencyPermit = false;
    }
    held.hostPermit = Permit();
    held.globalPermit = Permit();
    held.stage = Held::Stage::Credentials;
    qCInfo(lcEngine).noquote()
        << QStringLiteral("operation %1: 401 to a stale token of credentials %2; sending it "
                          "again with a new one")
               .arg(held.op.id)
               .arg(credential);
    advance(held);
    if (!m_waking)
        armTimer(StoreDue::Unknown);
    return true;
}

void Scheduler::deferOrWait(Held &held, qint64 waitMs)
{
    // A short wait is kept here, under the one timer. A long one goes back to the
    // store, due when the partition can send again, so that it neither holds a lease
    // nor keeps other partitions' due work from being claimed.
    if (waitMs <= kKeepClaimMs || m_stopping)
        return;
    const qint64 id = held.op.id;
    if (!m_store.claims().releaseClaim(id, m_options.workerId, held.op.version, nowMs() + waitMs))
        qCWarning(lcEngine) << "could not hand back operation" << id << m_store.lastError();
    noteStoreDue(nowMs() + waitMs);
    release(id);
}

AsyncSemaphore &Scheduler::hostSemaphore(const QString &host)
{
    auto it = m_hosts.find(host);
    if (it == m_hosts.end())
        it = m_hosts
                 .emplace(host, std::make_unique<AsyncSemaphore>(
                                    std::min(m_config.concurrency.perHost, kConnectionsPerHost)))
                 .first;
    return *it->second;
}

void Scheduler::send(Held &held)
{
    if (m_databaseDown || m_goingToSleep) {
        // Nothing goes out that might not be recorded, or that a sleep would cut off:
        // it keeps its permits and goes once the database is back, or the machine
        // awake, and its lease renewed.
        held.waitingToSend = true;
        return;
    }
    held.waitingToSend = false;
    const EndpointConfig &e = *held.endpoint;
    TransportRequest &r = held.request;
    r.method = e.method;
    r.url = held.filled.url;
    r.headers = held.filled.headers;
    if (!e.idempotencyHeader.isEmpty()) {
        // An RFC 9651 sf-string, escaped: a key handed in with a job may hold a quote
        // or a backslash. Keys are visible ASCII (generated, or checked at intake),
        // which an sf-string always carries.
        if (const auto key = StructuredFields::serializeString(held.op.idempotencyKey))
            r.headers.append(e.idempotencyHeader, *key);
        else
            qCWarning(lcEngine) << "operation" << held.op.id
                                << "has an idempotency key an sf-string cannot carry";
    }
    if (!e.credentials.isEmpty()) {
        // Permits may have taken a while: a token renewed meanwhile goes instead of the
        // one taken before them. One no longer held goes as it is; a 401 renews it.
        const CredentialGrant grant = m_credentials->acquire(e.credentials);
        if (grant.kind == CredentialGrant::Kind::Ready) {
            held.authName = grant.headerName;
            held.authValue = grant.headerValue;
            held.tokenSerial = grant.serial;
        }
    }
    if (!held.authName.isEmpty())
        r.headers.append(held.authName, held.authValue);
    r.redirectsSameOriginOnly = !held.authName.isEmpty();
    r.connection = m_connections.value(e.id);
    r.body = held.filled.body;
    r.timeoutMs = int(e.timeoutSeconds * 1000);
    r.maxRedirects = m_options.maxRedirects;
    r.maxResponseBytes = m_options.maxResponseBytes;
    // An expectation on the body's size reads one byte past its bound, to tell.
    if (e.expect && e.expect->maxBodyBytes >= 0)
        r.maxResponseBytes = std::max(r.maxResponseBytes, e.expect->maxBodyBytes + 1);
    held.stage = Held::Stage::InFlight;
    ++m_inFlight;
    m_inFlightPeaks.set(nowMs(), m_inFlight);
    const qint64 id = held.op.id;
    held.call = m_transport.send(r);
    connect(held.call, &TransportCall::finished, this,
            [this, id](const TransportResult &result) { onFinished(id, result); });
}

void Scheduler::onFinished(qint64 operationId, const TransportResult &answer)
{
    const auto it = m_held.find(operationId);
    if (it == m_held.end())
        return;
    Held &held = *it->second;
    TransportResult result = answer;
    if (held.interrupted && result.status == 0) {
        result.error = TransportError::Interrupted;
        result.errorText = QStringLiteral("in flight when the machine slept");
    }
    held.call = nullptr;
    --m_inFlight;
    const EndpointConfig &e = *held.endpoint;
    const OperationRecord &op = held.op;
    const qint64 now = nowMs();
    m_inFlightPeaks.set(now, m_inFlight);
    if (renewAfterRefusedToken(held, result))
        return;

    AttemptOutcome outcome = outcomeOf(e, result);
    outcome.machineOffline = noteNameFailure(hostOf(held), result, now);
    if (result.error == TransportError::NetworkUnreachable || outcome.machineOffline)
        aimProbeAt(e);
    // An exchange that found no network says nothing of its host or proxy.
    ExchangeCauses causes = isAlert(e.id) || outcome.machineOffline
                                ? ExchangeCauses()
                                : incidentCausesOf(hostOf(held), e.proxy, outcome.status,
                                                   result.error, result.requestLeft);
    outcome.causeInIncident = !causes.failed.isEmpty() && m_openIncidents.contains(causes.failed);
    if (!causes.failed.isEmpty() || !causes.cleared.isEmpty())
        m_exchangeCauses.insert(op.id, std::move(causes));
    const AttemptHistory history = historyOf(op, result);
    Partition *partition = partitionOf(held);
    ServerWaitOptions hints;
    if (partition) {
        hints.xRateLimitReset = partition->policy->xRateLimitReset;
        hints.policyWindowMs = partition->policy->windowMs;
    }
    const RetryProfile profile = m_config.retryProfile(e.retry);
    RetryDecision d = RetryDecision::decide(profile, outcome, history, now, m_random, hints);

    const AttemptFacts facts = factsOfAnswer(held, result, d);
    AttemptRecord a = bookkeeping::attemptRecord(op, facts, d, outcome.idempotencyKeySent);
    noteCheck(held, result, d, a);
    watchLatency(e, d, now);
    noteConnectivity(result, now);
    const OperationRecord next = bookkeeping::nextState(op, a, d, history.firstAttemptAtMs);
    if (d.action == RetryDecision::Action::Retry)
        m_notBeforeMonotonicMs.insert(op.id, m_clock.monotonicMs() + d.delayMs);

    if (partition)
        paceAfterAnswer(*partition, held, d, now);
    // A server wait on a throttle holds the whole partition until that time: the
    // configured one, or the host's for an endpoint without a policy (a 429 only: a
    // 503 may be one service's maintenance, not the host's limit).
    const QString partitionPolicy = partitionPolicyOf(e);
    if ((partition || (e.policy.isEmpty() && result.status == 429)) &&
        d.action == RetryDecision::Action::Retry)
        holdPartitionForServer(partitionPolicy, held, result.status, d.serverWait, now);
    // What the server says about its quota paces every worker's claims of the
    // partition (a configured one too: a server stricter than the policy wins).
    std::optional<QuotaStatement> quota;
    if (partition || e.policy.isEmpty())
        quota = QuotaStatement::fromHeaders(result.headers, now, hints.xRateLimitReset);
    const QString partitionKey = op.partitionKey; // held ends with finish()
    // A refusal hands its permit to nobody: what waits on standby in its lane was
    // claimed before it, and goes back to be claimed at the pace it teaches.
    const bool refused = result.status == 429 || result.status == 503;
    // Nor does an answer whose stated quota has no unit left beyond what this worker
    // still has under way in the lane: the next request must wait for a claim that
    // counts the statement, not go out on the permit before the statement is written.
    const bool spent =
        quota && quota->remaining <= inFlightInLane(partitionPolicy, partitionKey, op.id);
    finish(held, a, next, quota ? &*quota : nullptr, !refused && !spent);
    if (quota || refused)
        handBackClaimedAhead(partitionPolicy, partitionKey, refused || spent);
}

AttemptFacts Scheduler::factsOfAnswer(const Held &held, const TransportResult &result,
                                      RetryDecision &d)
{
    const EndpointConfig &e = *held.endpoint;
    AttemptFacts facts = factsOf(held);
    facts.startedAtMs = result.startedAtMs;
    facts.durationMs = result.durationMs;
    facts.status = result.status;
    facts.error =
        result.error == TransportError::None ? QString() : QLatin1String(textOf(result.error));
    if (result.status == 401 && !e.credentials.isEmpty() &&
        d.action == RetryDecision::Action::Fail) {
        // A fresh token (or a static credential) refused: a real authentication failure,
        // with the server's own words where it gave them (RFC 6750, 3). Its other 401s
        // are read the same way: no token request per job for a server refusing them all.
        d.reason = QStringLiteral("auth_failed");
        m_credentials->distrust(e.credentials, held.tokenSerial);
        facts.error = authFailedText(result.headers);
    }
    if (result.bodyTruncated)
        facts.error = facts.error.isEmpty() ? QStringLiteral("body_truncated")
                                            : facts.error + QStringLiteral(",body_truncated");
    facts.requestHeaders = headerLines(withoutCredential(held.request.headers, held.authName));
    facts.responseHeaders = headerLines(result.headers);
    return facts;
}

void Scheduler::noteCheck(const Held &held, const TransportResult &result, const RetryDecision &d,
                          AttemptRecord &a) const
{
    // An exchange that found no network proves nothing of the endpoint, and a machine
    // offline makes one every few seconds: kept, they would push out the failures that
    // do. (One held by an open incident is kept: it is what the host answered.)
    const bool failed = d.action != RetryDecision::Action::Success && !d.throttled && !d.offline;
    const int keep = m_config.retention.keptExchanges;
    if (!d.check && !((failed || d.degraded) && keep > 0))
        return;
    QStringList secrets = m_config.secretValues();
    secrets += redaction::secretValues(held.request.headers);
    if (d.check)
        a.checkFailure = redaction::scrub(d.check->text(), secrets);
    if (!(failed || d.degraded) || keep <= 0)
        return;
    const int bytes = m_config.retention.keptBodyBytes;
    auto kept = std::make_shared<KeptExchange>();
    kept->requestBody = redaction::redactBody(
        held.request.body, held.request.headers.value("Content-Type").value_or(QByteArray()), bytes,
        secrets);
    kept->responseBody = redaction::redactBody(
        result.body, result.headers.value("Content-Type").value_or(QByteArray()), bytes, secrets);
    kept->requestBytes = held.request.body.size();
    kept->responseBytes = result.body.size();
    kept->responseTruncated = result.bodyTruncated;
    kept->keepLast = keep;
    a.kept = std::move(kept);
}

qsizetype Scheduler::interruptInFlight()
{
    // A connection held across a suspend is gone, or lingers until its timeout: the
    // exchange ends now, interrupted, and the retry contract decides as for a lost
    // connection (a POST without a key is not sent again).
    // Aborted once the caller is done: an abort ends the exchange at once, and its end
    // changes m_held.
    QList<qint64> inFlight;
    for (const auto &[id, held] : m_held) {
        if (held->stage == Held::Stage::InFlight && held->call) {
            held->interrupted = true;
            inFlight.append(id);
        }
    }
    QMetaObject::invokeMethod(
        this,
        [this, inFlight] {
            for (const qint64 id : inFlight) {
                const auto it = m_held.find(id);
                if (it != m_held.end() && it->second->call)
                    it->second->call->abort();
            }
            if (m_goingToSleep)
                emit readyForSleep();
        },
        Qt::QueuedConnection);
    return inFlight.size();
}

void Scheduler::prepareForSleep()
{
    if (m_goingToSleep || !m_started)
        return;
    m_goingToSleep = true;
    m_goingToSleepAtMonotonicMs = m_clock.monotonicMs();
    const qsizetype interrupted = interruptInFlight();
    qCInfo(lcEngine).noquote()
        << QStringLiteral("the machine is going to sleep: %1 exchanges in flight interrupted; "
                          "nothing is sent until it wakes")
               .arg(interrupted);
    armUntilAwake(m_goingToSleepAtMonotonicMs);
}

void Scheduler::armUntilAwake(qint64 mono)
{
    // One wake when the engine would believe itself awake; records to write arm an
    // earlier one (flushFinished), which compares against m_wakeAtMonotonicMs.
    const qint64 at = m_goingToSleepAtMonotonicMs + kGoingToSleepForMs;
    m_timer.arm(std::max<qint64>(0, at - mono));
    m_wakeAtMonotonicMs = at;
}

void Scheduler::resumeFromSleep()
{
    if (!m_goingToSleep)
        return;
    m_goingToSleep = false;
    qCInfo(lcEngine) << "the machine is awake";
    // The sleep first, as the boot clock tells it: what came due meanwhile is due now.
    // (A send before this would count as in flight across the sleep.)
    const qint64 mono = m_clock.monotonicMs();
    if (const std::optional<qint64> slept = m_sleepWatch.note(m_clock.bootMs(), mono))
        wakeFromSleep(*slept, mono);
    lookAgainAtEverything(mono);
    // Then the leases, before anything held is sent: what another worker rescued
    // meanwhile is let go. Then what waited with its permits, then the usual wake.
    if (!m_databaseDown && keepLeasesOfHeld("while the machine slept"))
        sendWhatWaited();
    wake();
}

bool Scheduler::wakeWhileGoingToSleep(qint64 mono)
{
    // A machine asleep runs no monotonic clock: this one has been awake for a while
    // since it said it would sleep, and the word that it woke was lost (logind
    // restarted, the bus went away). It goes on, rather than hold the work for ever.
    if (mono - m_goingToSleepAtMonotonicMs < kGoingToSleepForMs) {
        armUntilAwake(mono);
        return false;
    }
    qCWarning(lcEngine) << "the machine said it would sleep" << kGoingToSleepForMs / 1000
                        << "s ago and is still awake: sending again";
    m_goingToSleep = false;
    lookAgainAtEverything(mono);
    if (keepLeasesOfHeld("while the machine was said to sleep"))
        sendWhatWaited();
    return true;
}

void Scheduler::lookAgainAtEverything(qint64 mono)
{
    // What the engine remembers of the store (its next due work, the next tick, the
    // holds) is from before: it reads them again now.
    m_holdsLookAtMonotonicMs = mono;
    m_ticksLookedAtMonotonicMs = std::numeric_limits<qint64>::min() / 2;
    noteStoreDue(std::numeric_limits<qint64>::min());
}

void Scheduler::wakeFromSleep(qint64 sleptMs, qint64 mono)
{
    qCInfo(lcEngine) << "the machine slept for about" << sleptMs / 1000 << "s";
    interruptInFlight();
    // Waits kept on the monotonic clock did not run while asleep; their wall-clock time
    // did. What came due meanwhile is due now, not a sleep later.
    for (auto it = m_notBeforeMonotonicMs.begin(); it != m_notBeforeMonotonicMs.end(); ++it)
        it.value() -= sleptMs;
    lookAgainAtEverything(mono);
    emit wokeFromSleep(sleptMs);
}

void Scheduler::announceConnectivity(Connectivity::Change change, qint64 nowMs, const char *why)
{
    if (change == Connectivity::Change::None)
        return;
    // For `cooldown status` (docs/offline.md): only this worker knows it is offline.
    if (!m_store.workerStates().saveOffline(m_options.workerId, m_connectivity.offlineSinceMs(),
                                            nowMs) &&
        !databaseFault())
        qCWarning(lcEngine) << "could not note whether this worker is offline:"
                            << m_store.lastError();
    switch (change) {
    case Connectivity::Change::WentOffline:
        qCInfo(lcEngine).noquote() << QStringLiteral("offline: %1; work is held, one exchange "
                                                     "every %2 ms looks whether it is back")
                                          .arg(QLatin1String(why))
                                          .arg(Connectivity::kProbeMs);
        emit wentOffline(nowMs);
        break;
    case Connectivity::Change::CameOnline:
        qCInfo(lcEngine).noquote()
            << QStringLiteral("back online after %1 ms (%2); sending ramps up over %3 ms")
                   .arg(m_connectivity.lastSpellMs())
                   .arg(QLatin1String(why))
                   .arg(Connectivity::kRampMs);
        emit cameOnline(m_connectivity.lastSpellMs());
        noteStoreDue(std::numeric_limits<qint64>::min());
        break;
    case Connectivity::Change::None:
        break;
    }
}

void Scheduler::noteSystemReachable(bool reachable)
{
    const Connectivity::Change change =
        m_connectivity.noteSystemReachable(reachable, nowMs(), m_clock.monotonicMs());
    if (change == Connectivity::Change::None)
        return;
    announceConnectivity(change, nowMs(),
                         reachable ? "the system says the network is there"
                                   : "the system says the network is disconnected");
    // Back online the work goes out (announceConnectivity made it due); offline what
    // was claimed waits for the probe.
    QMetaObject::invokeMethod(this, &Scheduler::wake, Qt::QueuedConnection);
}

bool Scheduler::noteNameFailure(const QString &host, const TransportResult &result, qint64 nowMs)
{
    if (result.error != TransportError::HostNotFound)
        return false;
    const Connectivity::Change change =
        m_connectivity.noteNameFailure(host, nowMs, m_clock.monotonicMs());
    announceConnectivity(change, nowMs,
                         change == Connectivity::Change::WentOffline
                             ? "the names of several hosts do not resolve"
                             : "only one host's name does not resolve");
    return m_connectivity.isOffline();
}

void Scheduler::aimProbeAt(const EndpointConfig &e)
{
    const QUrl &target = e.proxy.kind == ProxyConfig::Kind::Explicit ? e.proxy.url : e.url;
    m_probeHost = target.host();
    m_probePort = quint16(target.port(target.scheme() == QLatin1String("http") ? 80 : 443));
}

void Scheduler::probeIfIdle(qint64 mono)
{
    // Exchanges are the probes while there is work; the engine's own is for a worker
    // with none, whose next due work may be an hour away.
    if (!m_connectivity.isOffline() || !m_held.empty() || m_inFlight > 0 ||
        m_reachProbe.isRunning() || m_stopping || m_goingToSleep ||
        m_connectivity.allowed(1, mono) < 1)
        return;
    if (m_probeHost.isEmpty()) {
        if (m_config.endpoints.isEmpty())
            return;
        aimProbeAt(m_config.endpoints.first());
    }
    m_reachProbe.start(m_probeHost, m_probePort, int(Connectivity::kProbeMs));
}

void Scheduler::probeFinished(ReachProbe::Outcome outcome)
{
    const qint64 now = nowMs();
    const qint64 mono = m_clock.monotonicMs();
    switch (outcome) {
    case ReachProbe::Outcome::Reached:
        if (m_connectivity.noteReached(mono))
            announceConnectivity(Connectivity::Change::CameOnline, now, "a probe reached a host");
        break;
    case ReachProbe::Outcome::NameFailed:
        announceConnectivity(m_connectivity.noteNameFailure(m_reachProbe.host(), now, mono), now,
                             "only one host's name does not resolve");
        break;
    case ReachProbe::Outcome::NoRoute:
    case ReachProbe::Outcome::NoAnswer:
        // Still offline; the next probe in kProbeMs.
        m_connectivity.noteUnreachable(now, mono);
        break;
    }
    wake();
}

void Scheduler::noteConnectivity(const TransportResult &result, qint64 nowMs)
{
    const qint64 mono = m_clock.monotonicMs();
    if (result.error == TransportError::NetworkUnreachable) {
        if (m_connectivity.noteUnreachable(nowMs, mono))
            announceConnectivity(Connectivity::Change::WentOffline, nowMs,
                                 "no route to the network");
        return;
    }
    // Any answer, or a failure that only a reachable network gives (refused, reset, a
    // timeout after connecting), says the network is there.
    const bool reached = result.status != 0 || result.error == TransportError::ConnectionRefused ||
                         result.error == TransportError::ConnectionClosed ||
                         result.error == TransportError::Timeout ||
                         result.error == TransportError::Tls;
    if (reached && m_connectivity.noteReached(mono))
        announceConnectivity(Connectivity::Change::CameOnline, nowMs,
                             "an exchange reached a server");
}

void Scheduler::watchLatency(const EndpointConfig &e, const RetryDecision &d, qint64 nowMs)
{
    // Successes only, as the budget judges them: a throttle, an error or a refused
    // answer is a failure counted elsewhere.
    if (e.latencyBudgetMs <= 0 || d.action != RetryDecision::Action::Success)
        return;
    const LatencyWatch::Reading r = m_latency.note(e.id, nowMs, d.degraded, e.latencyWindowMs);
    if (r.change == LatencyWatch::Change::None)
        return;
    const bool degraded = r.change == LatencyWatch::Change::Degraded;
    const QString text =
        degraded ? QStringLiteral("%1 is degraded: %2 of its last %3 answers (in 5 minutes) took "
                                  "longer than its latency budget of %4 ms")
                       .arg(e.id)
                       .arg(r.overBudget)
                       .arg(r.answers)
                       .arg(e.latencyBudgetMs)
                 : QStringLiteral("%1 is back within its latency budget of %2 ms")
                       .arg(e.id)
                       .arg(e.latencyBudgetMs);
    qCInfo(lcEngine).noquote() << text;
    raiseAlert(AlertEvent::LatencyDegraded, text,
               {{QStringLiteral("endpoint_id"), e.id},
                {QStringLiteral("recovered"), !degraded},
                {QStringLiteral("latency_budget_ms"), double(e.latencyBudgetMs)},
                {QStringLiteral("answers"), r.answers},
                {QStringLiteral("over_budget"), r.overBudget}});
}

void Scheduler::paceAfterAnswer(Partition &partition, const Held &held, const RetryDecision &d,
                                qint64 nowMs)
{
    if (held.tookConcurrencyPermit)
        partition.bucket->release(held.bucketCost);
    const qint64 mono = m_clock.monotonicMs();
    if (d.serverWait.problemAction == ProblemAction::SlowDown)
        partition.bucket->slowDown(TokenBucket::kReducedCapacityFactor,
                                   mono + partition.policy->windowMs, mono);
    m_drift.observe(*partition.policy, held.op.partitionKey, d.serverWait.rateLimit, nowMs);
}

void Scheduler::holdPartitionForServer(const QString &partitionPolicy, const Held &held, int status,
                                       const ServerWait &serverWait, qint64 nowMs)
{
    const QString &partitionKey = held.op.partitionKey;
    if (!m_snooze.holdForResponse(partitionPolicy, partitionKey, status, serverWait, nowMs))
        return;
    const auto hold = m_snooze.activeHold(partitionPolicy, partitionKey, nowMs);
    const qint64 until = m_snooze.heldUntilMs(partitionPolicy, partitionKey, nowMs);
    m_store.snoozePartition(partitionPolicy, partitionKey, until, hold ? hold->why : QString());
    if (isAlert(held.endpoint->id))
        return;
    raiseAlert(AlertEvent::PartitionHeld,
               QStringLiteral("Partition %1 %2 is held by the server for %3 s: %4")
                   .arg(partitionPolicy, partitionKey)
                   .arg(double(until - nowMs) / 1000.0)
                   .arg(hold ? hold->why : QString()),
               {{QStringLiteral("policy_id"), partitionPolicy},
                {QStringLiteral("partition_key"), partitionKey},
                {QStringLiteral("held_seconds"), double(until - nowMs) / 1000.0}},
               until - nowMs);
}

int Scheduler::inFlightInLane(const QString &policyId, const QString &partitionKey,
                              qint64 exceptOperationId) const
{
    int n = 0;
    for (const auto &[id, held] : m_held) {
        n += id != exceptOperationId && held->stage == Held::Stage::InFlight && held->endpoint &&
             held->op.partitionKey == partitionKey &&
             partitionPolicyOf(*held->endpoint) == policyId;
    }
    return n;
}

void Scheduler::handBackClaimedAhead(const QString &policyId, const QString &partitionKey,
                                     bool standbyToo)
{
    const auto aheadInLane = [&](qint64 now) {
        QList<qint64> ahead;
        for (const auto &[id, held] : m_held) {
            const bool early = held->stage == Held::Stage::Guard && !held->op.forceNext &&
                               held->op.nextAttemptAtMs > now;
            if ((early || (standbyToo && held->onStandby())) && held->endpoint &&
                held->op.partitionKey == partitionKey &&
                partitionPolicyOf(*held->endpoint) == policyId)
                ahead.append(id);
        }
        return ahead;
    };
    if (aheadInLane(nowMs()).isEmpty())
        return;
    // The statement is written first: until it is, another worker's claim would still
    // find the lane unpaced and could take the work ahead again.
    flushFinished();
    const QList<qint64> ahead = aheadInLane(nowMs());
    for (const qint64 id : ahead) {
        const OperationRecord &op = m_held.at(id)->op;
        if (!m_store.claims().releaseClaim(id, m_options.workerId, op.version, op.nextAttemptAtMs))
            qCWarning(lcEngine) << "could not hand back operation" << id << m_store.lastError();
        noteStoreDue(op.nextAttemptAtMs);
        release(id);
    }
}

AttemptFacts Scheduler::factsOf(const Held &held)
{
    const EndpointConfig &e = *held.endpoint;
    AttemptFacts facts;
    facts.method = QString::fromLatin1(e.method);
    facts.url = (held.filled.url.isEmpty() ? e.url : held.filled.url).toString();
    facts.workerId = m_options.workerId;
    facts.policyId = e.policy;
    const Partition *partition = partitionOf(held);
    facts.policyVersion = partition ? int(partition->policy->policyVersion) : 0;
    return facts;
}

void Scheduler::recordRescue(Held &held)
{
    // The previous worker died with this attempt in flight: nobody knows whether
    // the server executed it. The contract decides, as for a connection lost.
    const EndpointConfig &e = *held.endpoint;
    const OperationRecord &op = held.op;
    const qint64 now = nowMs();
    AttemptOutcome outcome;
    outcome.method = e.method;
    outcome.error = TransportError::WorkerDied;
    outcome.idempotencyKeySent = !e.idempotencyHeader.isEmpty();
    outcome.keyValidMs = qint64(e.keyValidSeconds * 1000);
    AttemptHistory history;
    history.attempt = op.attempt + 1;
    history.throttledBefore = op.throttledAttempts;
    history.firstAttemptAtMs = op.firstAttemptAtMs >= 0 ? op.firstAttemptAtMs : op.leaseExpiresAtMs;
    history.previousBackoffMs = op.previousBackoffMs;
    const RetryDecision d =
        RetryDecision::decide(m_config.retryProfile(e.retry), outcome, history, now, m_random);

    AttemptFacts facts = factsOf(held);
    facts.startedAtMs = now;
    facts.error = QLatin1String(textOf(TransportError::WorkerDied));
    const AttemptRecord a = bookkeeping::attemptRecord(op, facts, d, outcome.idempotencyKeySent);
    const OperationRecord next = bookkeeping::nextState(op, a, d, history.firstAttemptAtMs);
    finish(held, a, next);
}

void Scheduler::finish(Held &held, const AttemptRecord &attempt, const OperationRecord &next,
                       const QuotaStatement *quota, bool handOver)
{
    // The permits go back now; the record goes with the others that end in this pass
    // of the event loop, in one transaction.
    Store::FinishRequest request{attempt, next, held.op.version};
    if (quota && held.endpoint) {
        request.quota = *quota;
        request.quotaPolicyId = partitionPolicyOf(*held.endpoint);
        request.quotaPartitionKey = held.op.partitionKey;
        request.quotaObservedAtMs = attempt.finishedAtMs;
    }
    // The attempt's fleet-wide permit passes to the first operation on standby for
    // its host, which goes out now, in its place; the record says so.
    Held *heir = held.fleetPermit && handOver ? standbyHeir(hostOf(held)) : nullptr;
    if (heir) {
        heir->fleetPermit = true;
        held.permitPassed = true;
        --m_onStandby;
        request.permitTo = heir->op.id;
        request.permitToVersion = heir->op.version;
    }
    m_finishing.append(std::move(request));
    release(held.op.id);
    if (heir)
        advance(*heir);
    if (m_databaseDown && !m_recordWhileDown) {
        // Kept until the database is back; a worker stopping meanwhile ends without it.
        if (m_stopping)
            checkIdle();
        return;
    }
    if (m_flushQueued)
        return;
    if (m_databaseDown) {
        m_flushQueued = true;
        QMetaObject::invokeMethod(this, &Scheduler::flushFinished, Qt::QueuedConnection);
        return;
    }
    // While the store has nothing due before then, the record waits for the next wake
    // (a periodic check's next batch of ticks, say) so that several are written in one
    // transaction; so it does while work on standby keeps the permits busy and the
    // claim after the record would take nothing yet. Otherwise, busy, it goes at the
    // end of this pass: held-back records would hold back the claims that follow them.
    const qint64 mono = m_clock.monotonicMs();
    const bool claimWaits = m_onStandby >= kStandbyToHoldRecords;
    const bool quiet = m_options.commitDelayMs > 0 && !m_stopping &&
                       (claimWaits || m_claimAtMs > nowMs() + m_options.commitDelayMs) &&
                       m_finishing.size() < kLargestHeldBackBatch;
    if (quiet) {
        if (m_flushByMonotonicMs < 0) {
            m_flushByMonotonicMs = mono + m_options.commitDelayMs;
            if (!m_timer.isArmed() || m_flushByMonotonicMs < m_wakeAtMonotonicMs) {
                m_timer.arm(m_options.commitDelayMs);
                m_wakeAtMonotonicMs = m_flushByMonotonicMs;
            }
        }
        return;
    }
    m_flushQueued = true;
    QMetaObject::invokeMethod(this, &Scheduler::flushFinished, Qt::QueuedConnection);
}

void Scheduler::flushFinished()
{
    m_flushQueued = false;
    m_flushByMonotonicMs = -1;
    if (m_finishing.isEmpty() || (m_databaseDown && !m_recordWhileDown))
        return;
    if (writeFinished() && !m_databaseDown)
        wake();
    else if (m_stopping)
        checkIdle();
}

bool Scheduler::writeFinished()
{
    if (m_finishing.isEmpty())
        return true;
    const QList<Store::FinishRequest> batch = std::exchange(m_finishing, {});
    QElapsedTimer writing; // a measurement for the metrics, not a decision: real time
    writing.start();
    const QList<Store::FinishOutcome> outcomes =
        m_store.finishAttempts(batch, m_options.workerId, m_inFlightPeaks.take(nowMs()));
    QSet<QString> endedFailed;
    QList<Store::FinishRequest> kept;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        const AttemptRecord &attempt = batch.at(i).attempt;
        const Store::FinishOutcome &outcome = outcomes.at(i);
        const qint64 id = attempt.operationId;
        switch (outcome.result) {
        case Store::FinishResult::Committed:
            if (isFinal(outcome.operation.state) ||
                outcome.operation.state == OperationState::Parked)
                m_notBeforeMonotonicMs.remove(id);
            else
                noteStoreDue(outcome.operation.nextAttemptAtMs);
            if (outcome.operation.state == OperationState::Failed && !isAlert(attempt.endpointId) &&
                isBlocked(attempt.endpointId)) {
                // The incident's one alert speaks for it, and its failure is the
                // cause's, not the endpoint's: no alert of its own, no automatic pause.
                qCInfo(lcEngine) << "operation" << id << "of" << attempt.endpointId
                                 << "failed while blocked by an incident";
            } else if (outcome.operation.state == OperationState::Failed &&
                       !isAlert(attempt.endpointId)) {
                endedFailed.insert(attempt.endpointId);
                raiseAlert(
                    AlertEvent::OperationFailed,
                    QStringLiteral("Operation %1 of %2 failed: %3 (attempt %4, last status %5)")
                        .arg(id)
                        .arg(attempt.endpointId, outcome.operation.finalReason)
                        .arg(attempt.attempt)
                        .arg(attempt.status),
                    {{QStringLiteral("endpoint_id"), attempt.endpointId},
                     {QStringLiteral("operation_id"), double(id)},
                     {QStringLiteral("reason"), outcome.operation.finalReason},
                     {QStringLiteral("status"), attempt.status}});
            }
            emit attemptRecorded(attempt, outcome.operation);
            emit operationChanged(outcome.operation);
            break;
        case Store::FinishResult::LeaseConflict:
            qCWarning(lcEngine) << "operation" << id
                                << "lost its lease; attempt kept, state unchanged";
            m_notBeforeMonotonicMs.remove(id);
            emit attemptRecorded(attempt, outcome.operation);
            break;
        case Store::FinishResult::Failed:
            if (m_store.fault() != Store::Fault::None) {
                // The database is away: the record waits for it, first in line.
                kept.append(batch.at(i));
                break;
            }
            qCWarning(lcEngine) << "could not record attempt of operation" << id << outcome.error;
            emit storeFailed(outcome.error);
            break;
        }
    }
    if (kept.size() < batch.size())
        emit attemptsWritten(int(batch.size() - kept.size()), double(writing.nsecsElapsed()) / 1e9);
    if (!kept.isEmpty()) {
        m_finishing = kept + m_finishing;
        m_recordWhileDown = false; // a reserve given back is used up
        databaseFault();
        return false;
    }
    noteIncidents(batch, outcomes);
    pauseAfterFailures(endedFailed);
    return true;
}

bool Scheduler::databaseFault()
{
    if (m_databaseDown)
        return true;
    if (m_store.fault() == Store::Fault::None)
        return false;
    enterDatabaseDown();
    return true;
}

void Scheduler::reportStoreFailure()
{
    if (!databaseFault())
        emit storeFailed(m_store.lastError());
}

void Scheduler::enterDatabaseDown()
{
    m_databaseDown = true;
    m_downWhy = m_store.lastError().simplified(); // one line, whatever the driver said
    m_downSinceMs = nowMs();
    m_downSinceMonotonicMs = m_clock.monotonicMs();
    m_reconnectTries = 0;
    const bool diskFull = m_store.fault() == Store::Fault::DiskFull;
    qCWarning(lcEngine).noquote()
        << QStringLiteral("database unreachable (%1): %2; nothing is claimed or sent until it "
                          "answers; %3 answered and %4 in flight are kept to be recorded")
               .arg(QLatin1String(textOf(m_store.fault())), m_downWhy)
               .arg(m_finishing.size())
               .arg(m_inFlight);
    // A full disk: the reserve kept beside the database makes room for the answers
    // already received, and for handing back what was not sent.
    m_recordWhileDown = diskFull && m_store.releaseReserve();
    if (m_recordWhileDown && !m_finishing.isEmpty() && !m_flushQueued) {
        m_flushQueued = true;
        QMetaObject::invokeMethod(this, &Scheduler::flushFinished, Qt::QueuedConnection);
    }
    scheduleReconnect();
    emit databaseLost(m_downWhy);
}

void Scheduler::scheduleReconnect()
{
    const qint64 ceiling =
        std::min(kReconnectCapMs, kReconnectFirstMs << std::min(m_reconnectTries, 8));
    const qint64 delay = std::max(kReconnectFloorMs, m_random.uniformInt(0, ceiling));
    const qint64 mono = m_clock.monotonicMs();
    m_reconnectAtMonotonicMs = mono + delay;
    if (m_stopping)
        return;
    m_timer.arm(delay);
    m_wakeAtMonotonicMs = mono + delay;
}

void Scheduler::tryReconnect()
{
    ++m_reconnectTries;
    QString why;
    if (!m_store.reconnect(&why) || !resumeAfterOutage()) {
        qCDebug(lcEngine).noquote() << QStringLiteral("database still unreachable (try %1): %2")
                                           .arg(m_reconnectTries)
                                           .arg(why.isEmpty() ? m_store.lastError() : why);
        scheduleReconnect();
        return;
    }
    const qint64 downMs = m_clock.monotonicMs() - m_downSinceMonotonicMs;
    m_databaseDown = false;
    m_recordWhileDown = false;
    m_downWhy.clear();
    qCInfo(lcEngine).noquote()
        << QStringLiteral("database back after %1 s").arg(double(downMs) / 1000.0, 0, 'f', 1);
    emit databaseBack(downMs);
    if (m_stopping)
        return;
    // What waited with its permits goes now, then the usual wake.
    sendWhatWaited();
    noteStoreDue(std::numeric_limits<qint64>::min());
    m_nextTickKnown = false;
    wake();
}

bool Scheduler::resumeAfterOutage()
{
    // Leases first: one lost while away must not be sent. Then what was answered
    // meanwhile, in the order it came.
    if (!keepLeasesOfHeld("while the database was away"))
        return false;
    m_flushByMonotonicMs = -1;
    return writeFinished() && m_store.fault() == Store::Fault::None;
}

bool Scheduler::keepLeasesOfHeld(const char *meanwhile)
{
    // One lost meanwhile (another worker rescued the operation after its expiry) is let
    // go, not sent; an exchange in flight keeps its record, which the fence then marks
    // as a lease conflict.
    const qint64 now = nowMs();
    QList<qint64> lost;
    for (auto &[id, held] : m_held) {
        const qint64 until = now + m_options.leaseMs;
        if (m_store.claims().renewLease(id, m_options.workerId, held->op.version, until)) {
            held->op.leaseExpiresAtMs = until;
            continue;
        }
        if (m_store.fault() != Store::Fault::None)
            return false;
        if (held->stage != Held::Stage::InFlight)
            lost.append(id);
    }
    for (const qint64 id : std::as_const(lost)) {
        qCWarning(lcEngine).noquote() << QStringLiteral("operation %1 lost its lease %2; not sent")
                                             .arg(id)
                                             .arg(QLatin1String(meanwhile));
        m_notBeforeMonotonicMs.remove(id);
        release(id);
    }
    return true;
}

void Scheduler::sendWhatWaited()
{
    QList<qint64> waiting;
    for (const auto &[id, held] : m_held) {
        if (held->waitingToSend)
            waiting.append(id);
    }
    for (const qint64 id : std::as_const(waiting)) {
        const auto it = m_held.find(id);
        if (it != m_held.end() && it->second->waitingToSend)
            send(*it->second);
    }
}

void Scheduler::pauseAfterFailures(const QSet<QString> &endpointIds)
{
    for (const QString &endpointId : endpointIds) {
        const EndpointConfig *endpoint = m_endpointById.value(endpointId);
        if (!endpoint || endpoint->pauseAfterFailures < 1)
            continue;
        // Counted in the store, not here: the failures of other workers and of earlier
        // runs count too, and only one worker pauses it.
        const int failures = endpoint->pauseAfterFailures;
        const auto paused = m_store.pauseAfterFailures(endpointId, failures, nowMs(), workerId());
        if (!paused) {
            if (databaseFault())
                return;
            qCWarning(lcEngine) << "could not check endpoint" << endpointId
                                << "for its automatic pause:" << m_store.lastError();
            emit storeFailed(m_store.lastError());
            continue;
        }
        if (!*paused)
            continue;
        qCWarning(lcEngine) << "endpoint" << endpointId << "paused after" << failures
                            << "failed operations in a row";
        raiseAlert(AlertEvent::EndpointPaused,
                   QStringLiteral("Endpoint %1 was paused after %2 failed operations in a row")
                       .arg(endpointId)
                       .arg(failures),
                   {{QStringLiteral("endpoint_id"), endpointId},
                    {QStringLiteral("reason"), QStringLiteral("pause_after_failures")},
                    {QStringLiteral("failures"), failures}});
        emit endpointAutoPaused(endpointId, failures);
    }
}

void Scheduler::release(qint64 operationId)
{
    const auto it = m_held.find(operationId);
    if (it == m_held.end())
        return;
    Held &held = *it->second;
    if (held.onStandby()) {
        --m_onStandby;
    } else if (held.fleetPermit && m_onStandby > 0 && !held.permitPassed && !m_stopping &&
               !m_standbyCheckQueued) {
        // Its host may have no permit left for those on standby.
        m_standbyCheckQueued = true;
        QMetaObject::invokeMethod(this, &Scheduler::handBackOrphanedStandby, Qt::QueuedConnection);
    }
    if (held.hostTicket)
        hostSemaphore(held.endpoint->url.host()).cancel(held.hostTicket);
    if (held.globalTicket)
        m_global->cancel(held.globalTicket);
    // Permits go back as the Held is destroyed.
    m_held.erase(it);
}

QString Scheduler::hostOf(const Held &held)
{
    return held.endpoint ? held.endpoint->url.host() : QString();
}

Scheduler::Held *Scheduler::standbyHeir(const QString &host)
{
    if (m_onStandby == 0)
        return nullptr;
    for (const auto &[id, held] : m_held) {
        if (held->stage == Held::Stage::Standby && hostOf(*held) == host)
            return held.get();
    }
    return nullptr;
}

qsizetype Scheduler::queuedForPermits() const
{
    return std::count_if(m_held.cbegin(), m_held.cend(), [](const auto &entry) {
        return entry.second->stage == Held::Stage::Permits ||
               entry.second->stage == Held::Stage::Standby;
    });
}

void Scheduler::handBackOrphanedStandby()
{
    m_standbyCheckQueued = false;
    if (m_onStandby == 0 || m_stopping)
        return;
    QSet<QString> permitted;
    for (const auto &[id, held] : m_held) {
        if (held->fleetPermit)
            permitted.insert(hostOf(*held));
    }
    QList<qint64> orphans;
    for (const auto &[id, held] : m_held) {
        if (held->stage == Held::Stage::Standby && !permitted.contains(hostOf(*held)))
            orphans.append(id);
    }
    if (orphans.isEmpty())
        return;
    // The store may count permits of this worker's id that this process does not hold
    // (another process ran with it until lately): until their leases expire, claims
    // would take these on standby again at once. Claims take none for a while.
    m_standbyPausedUntilMonotonicMs = m_clock.monotonicMs() + kStandbyPauseMs;
    for (const qint64 id : std::as_const(orphans)) {
        if (!m_store.claims().releaseClaim(id, m_options.workerId, m_held.at(id)->op.version))
            qCWarning(lcEngine) << "could not hand back operation" << id << m_store.lastError();
        release(id);
    }
    noteStoreDue(std::numeric_limits<qint64>::min()); // claimable again at once
    wake();
}

void Scheduler::renewLeases(qint64 nowMs)
{
    for (auto &[id, held] : m_held) {
        if (held->op.leaseExpiresAtMs - nowMs > m_options.leaseMs / 2)
            continue;
        const qint64 until = nowMs + m_options.leaseMs;
        if (m_store.claims().renewLease(id, m_options.workerId, held->op.version, until))
            held->op.leaseExpiresAtMs = until;
        else if (m_store.fault() != Store::Fault::None)
            return; // the database is away: renewed once it is back
    }
}

void Scheduler::armTimer(StoreDue storeDue)
{
    if (m_stopping) {
        m_timer.disarm();
        return;
    }
    const qint64 now = nowMs();
    const qint64 mono = m_clock.monotonicMs();
    const auto armForReconnect = [&] {
        const qint64 delay = std::max<qint64>(0, m_reconnectAtMonotonicMs - mono);
        m_timer.arm(delay);
        m_wakeAtMonotonicMs = mono + delay;
    };
    if (m_databaseDown || databaseFault())
        return armForReconnect();
    qint64 delay =
        m_fleetCapped ? std::min(m_options.pollMs, kFleetPermitRecheckMs) : m_options.pollMs;
    if (m_claimContended)
        delay = std::min(delay, kContendedClaimRecheckMs);
    if (storeDue == StoreDue::Read) {
        // A claim that found nothing due leaves at least a moment before the next
        // look, whatever the store says: a time it cannot yet correct (a partition
        // another worker has locked, clocks that disagree) must not make us spin.
        const auto due = m_store.claims().nextDueAtMs(now);
        if (databaseFault())
            return armForReconnect();
        m_claimAtMs = due.value_or(std::numeric_limits<qint64>::max());
        m_storeDueReadMonotonicMs = mono;
        if (due)
            delay = std::min(delay,
                             *due <= now && m_lastClaimEmpty ? kEmptyClaimRecheckMs : *due - now);
    } else if (storeDue == StoreDue::Remembered) {
        // The claim was left out (the store's next due work is later): wake for it, or
        // to look again after a poll. Never when a claim was left out for want of
        // room: an ending exchange wakes us then, and a due time already past would
        // make the timer fire again at once.
        delay = std::min(
            {delay, m_claimAtMs - now, m_storeDueReadMonotonicMs + m_options.pollMs - mono});
    }
    if (!m_ticks.isEmpty()) {
        // Read again only after this worker looked for ticks: others only move ticks
        // later, so a time kept since then is early at worst (a wake that finds none).
        if (!m_nextTickKnown) {
            m_nextTickAtMs = m_store.nextTickAtMs();
            m_nextTickKnown = m_store.lastError().isEmpty();
        }
        if (databaseFault())
            return armForReconnect();
        if (const auto tick = m_nextTickAtMs)
            delay = std::min(delay, std::max(*tick - m_options.claimAheadMs - now,
                                             m_ticksLookedAtMonotonicMs + tickBatchMs() - mono));
    }
    for (const auto &[id, held] : m_held) {
        delay = std::min(delay, held->op.leaseExpiresAtMs - m_options.leaseMs / 2 - now);
        if (held->stage == Held::Stage::Guard) {
            continue; // below, all of them together
        } else if (held->stage == Held::Stage::Credentials) {
            delay = std::min(delay, held->readyAtMonotonicMs - mono);
        } else if (held->stage == Held::Stage::Bucket) {
            const qint64 heldUntil = m_snooze.heldUntilMs(partitionPolicyOf(*held->endpoint),
                                                          held->op.partitionKey, now);
            if (heldUntil > now)
                delay = std::min(delay, heldUntil - now);
            if (Partition *p = partitionOf(*held)) {
                const qint64 at =
                    p->bucket->availableAtMs(p->bucket->costOf(held->filled.body.size()), mono);
                if (at != TokenBucket::kWaitForRelease)
                    delay = std::min(delay, at - mono);
            }
        }
    }
    if (const auto send = heldSendAtMonotonicMs())
        delay = std::min(delay, *send - mono);
    delay = std::min(delay, m_holdsLookAtMonotonicMs - mono);
    if (m_flushByMonotonicMs >= 0)
        delay = std::min(delay, m_flushByMonotonicMs - mono);
    if (const qint64 change = m_connectivity.nextChangeAt(mono); change >= 0)
        delay = std::min(delay, change - mono);
    delay = std::max<qint64>(0, delay);
    m_timer.arm(delay);
    m_wakeAtMonotonicMs = mono + delay;
}

std::optional<qint64> Scheduler::heldSendAtMonotonicMs() const
{
    // The first held operation's time; and if others come within sendGatherMs of it,
    // the last of those, so that one wake sends them all. Alone, it goes at its time.
    std::optional<qint64> first;
    for (const auto &[id, held] : m_held) {
        if (held->stage == Held::Stage::Guard)
            first = std::min(first.value_or(held->readyAtMonotonicMs), held->readyAtMonotonicMs);
    }
    if (!first || m_options.sendGatherMs <= 0)
        return first;
    const qint64 until = *first + m_options.sendGatherMs;
    qint64 last = *first;
    for (const auto &[id, held] : m_held) {
        if (held->stage == Held::Stage::Guard && held->readyAtMonotonicMs <= until)
            last = std::max(last, held->readyAtMonotonicMs);
    }
    return last;
}

bool Scheduler::isIdle()
{
    if (!m_held.empty() || m_inFlight > 0 || !m_finishing.isEmpty() || m_databaseDown)
        return false;
    // As before: a store that cannot answer has nothing to wait for (storeFailed said
    // why), unless it is away for now: then what it holds is not known.
    const std::optional<bool> unfinished = m_store.hasUnfinishedOperations();
    if (!unfinished && databaseFault())
        return false;
    return !unfinished.value_or(false);
}

void Scheduler::checkIdle()
{
    if (m_stopping) {
        if (m_inFlight == 0 && m_held.empty() && !m_finishing.isEmpty() && m_databaseDown) {
            // Stopping with the database away: these answers cannot be recorded. Their
            // operations stay leased to this worker, and the lease rules decide
            // (docs/database-outages.md).
            qCWarning(lcEngine).noquote()
                << QStringLiteral("%1 answered attempts could not be recorded: the database "
                                  "is unreachable; their operations are left to the lease rules")
                       .arg(m_finishing.size());
            m_finishing.clear();
        }
        if (m_inFlight == 0 && m_held.empty() && m_finishing.isEmpty()) {
            m_stopping = false;
            m_started = false;
            emit stopped();
        }
        return;
    }
    const bool idleNow = isIdle();
    if (idleNow && !m_wasIdle)
        emit idle();
    m_wasIdle = idleNow;
}

QList<PartitionHold> Scheduler::holds() const
{
    return m_snooze.activeHolds(nowMs());
}

QList<CredentialState> Scheduler::credentialStates() const
{
    return m_credentials->states();
}

int Scheduler::waitingForCredentials() const
{
    return int(std::count_if(m_held.begin(), m_held.end(), [](const auto &entry) {
        return entry.second->stage == Held::Stage::Credentials;
    }));
}

QList<PolicyDrift> Scheduler::drifts() const
{
    return m_drift.drifts();
}

Store::OperatorResult Scheduler::retryNow(qint64 operationId, bool force, AuditRecord *audit)
{
    const Store::OperatorResult r = m_store.retryNow(operationId, nowMs(), force, audit);
    if (r == Store::OperatorResult::Done) {
        m_notBeforeMonotonicMs.remove(operationId);
        if (const auto op = m_store.operation(operationId))
            emit operationChanged(*op);
        noteStoreDue(std::numeric_limits<qint64>::min());
        wake();
    }
    return r;
}

Store::OperatorResult Scheduler::cancel(qint64 operationId, AuditRecord *audit)
{
    Store::OperatorResult r = m_store.cancel(operationId, nowMs(), audit);
    const auto held = m_held.find(operationId);
    if (r == Store::OperatorResult::Pending && held != m_held.end() &&
        held->second->stage != Held::Stage::InFlight) {
        // Claimed here but not sent yet: it never goes out. Handing the claim back
        // applies the pending cancel.
        if (m_store.claims().releaseClaim(operationId, m_options.workerId,
                                          held->second->op.version))
            r = Store::OperatorResult::Done;
        release(operationId);
    }
    if (r == Store::OperatorResult::Done || r == Store::OperatorResult::Pending) {
        if (const auto op = m_store.operation(operationId))
            emit operationChanged(*op);
        wake();
    }
    return r;
}

void Scheduler::forgetRetryDelays(const QList<qint64> &operationIds)
{
    for (const qint64 id : operationIds)
        m_notBeforeMonotonicMs.remove(id);
    noteStoreDue(std::numeric_limits<qint64>::min());
}

bool Scheduler::setEndpointPaused(const QString &endpointId, bool paused, AuditRecord *audit)
{
    const bool ok = m_store.setEndpointPaused(endpointId, paused, nowMs(), audit);
    if (ok && paused && !isAlert(endpointId))
        raiseAlert(AlertEvent::EndpointPaused,
                   QStringLiteral("Endpoint %1 was paused").arg(endpointId),
                   {{QStringLiteral("endpoint_id"), endpointId}});
    if (ok) {
        noteStoreDue(std::numeric_limits<qint64>::min());
        wake();
    }
    return ok;
}

std::optional<QStringList> Scheduler::holdEndpoints(const QStringList &endpointIds, qint64 forMs,
                                                    const QString &reason, AuditRecord *audit)
{
    const qint64 now = nowMs();
    const std::optional<QStringList> held =
        m_store.holdEndpoints(endpointIds, now + forMs, reason, now, audit);
    if (!held) {
        reportStoreFailure();
        return held;
    }
    handBackHeldEndpoints(endpointIds);
    if (!held->isEmpty())
        emit endpointsHeld(*held, now + forMs, reason);
    m_holdsLookAtMonotonicMs = std::min(m_holdsLookAtMonotonicMs, m_clock.monotonicMs() + forMs);
    wake();
    return held;
}

void Scheduler::noteIncidents(const QList<Store::FinishRequest> &batch,
                              const QList<Store::FinishOutcome> &outcomes)
{
    QList<IncidentSignal> failures;
    QStringList cleared;
    for (qsizetype i = 0; i < batch.size(); ++i) {
        const AttemptRecord &attempt = batch.at(i).attempt;
        // What onFinished read of the exchange; a rescue or a refused token has none.
        const ExchangeCauses causes = m_exchangeCauses.take(attempt.operationId);
        if (outcomes.at(i).result != Store::FinishResult::Committed)
            continue;
        if (!causes.failed.isEmpty() && attempt.decision != Decision::Success)
            failures.append({causes.failed, attempt.endpointId, attempt.finishedAtMs});
        for (const QString &cause : causes.cleared) {
            if (!cleared.contains(cause))
                cleared.append(cause);
        }
    }
    recordIncidents(failures, cleared);
}

void Scheduler::noteTokenEndpoint(const CredentialState &state)
{
    // docs/incidents.md: a token endpoint that cannot be reached (or answers an error
    // that may pass) fails every integration that needs its tokens, though none spends
    // an attempt: they wait for credentials. One incident says so, once.
    const CredentialConfig *credential = m_config.credential(state.id);
    if (!credential || !credential->isOAuth() ||
        (state.phase != CredentialState::Phase::Failing &&
         state.phase != CredentialState::Phase::Valid))
        return;
    const QString cause = tokenCauseOf(credential->tokenUrl);
    if (state.phase == CredentialState::Phase::Valid) {
        recordIncidents({}, {cause});
        return;
    }
    QList<IncidentSignal> failures;
    const qint64 now = nowMs();
    for (const EndpointConfig &e : std::as_const(m_config.endpoints)) {
        if (e.credentials == state.id && !isAlert(e.id))
            failures.append({cause, e.id, now});
    }
    recordIncidents(failures, {});
}

void Scheduler::recordIncidents(const QList<IncidentSignal> &failures, QStringList cleared)
{
    // Only a cause with failures noted, or an open incident, has anything to clear: the
    // success of a host that never failed costs no write.
    cleared.erase(std::remove_if(cleared.begin(), cleared.end(),
                                 [this](const QString &cause) {
                                     return !m_openIncidents.contains(cause) &&
                                            !m_signalledCauses.contains(cause);
                                 }),
                  cleared.end());
    if (failures.isEmpty() && cleared.isEmpty())
        return;
    IncidentRule rule;
    rule.minIntegrations = m_config.incidents.minIntegrations;
    rule.windowMs = qint64(m_config.incidents.windowSeconds * 1000);
    const std::optional<IncidentChanges> changes =
        m_store.incidents().note(failures, cleared, rule, nowMs(), workerId());
    if (!changes) {
        if (!databaseFault())
            qCWarning(lcEngine) << "could not note incidents:" << m_store.lastError();
        return;
    }
    for (const IncidentRecord &incident : changes->opened)
        qCWarning(lcEngine).noquote()
            << "incident" << incident.id << "opened:" << incidentCauseText(incident.cause)
            << "fails for" << incident.endpointIds.join(QStringLiteral(", "));
    for (const IncidentRecord &incident : changes->closed) {
        qCInfo(lcEngine).noquote() << "incident" << incident.id
                                   << "cleared:" << incidentCauseText(incident.cause) << "works";
        // An incident over before its alert went was a blip: it says nothing at all.
        if (incident.alertedAtMs >= 0)
            alertIncident(incident, true);
    }
    m_signalledCauses = QSet<QString>(changes->signalled.cbegin(), changes->signalled.cend());
    setOpenIncidents(changes->open);
    alertGatheredIncidents();
}

void Scheduler::alertGatheredIncidents()
{
    // The alert waits kIncidentGatherMs after the incident opened, so that it lists the
    // endpoints that fail for the cause at about the same time, not the first few.
    const qint64 now = nowMs();
    for (IncidentRecord &incident : m_openIncidents) {
        if (incident.alertedAtMs >= 0 || now < incident.openedAtMs + kIncidentGatherMs)
            continue;
        const std::optional<bool> mine = m_store.incidents().markAlerted(incident.id, now);
        if (!mine) {
            if (!databaseFault())
                qCWarning(lcEngine) << "could not note incident's alert:" << m_store.lastError();
            return;
        }
        incident.alertedAtMs = now; // by this worker or another
        if (*mine)
            alertIncident(incident, false);
    }
}

void Scheduler::lookAtIncidents(qint64 mono)
{
    if (mono < m_incidentsLookedAtMonotonicMs + m_options.pollMs)
        return;
    m_incidentsLookedAtMonotonicMs = mono;
    const std::optional<QList<IncidentRecord>> open = m_store.incidents().list(true);
    if (!open)
        return reportStoreFailure();
    const std::optional<QStringList> signalled =
        m_store.incidents().signalCauses(nowMs() - qint64(m_config.incidents.windowSeconds * 1000));
    if (!signalled)
        return reportStoreFailure();
    m_signalledCauses = QSet<QString>(signalled->cbegin(), signalled->cend());
    setOpenIncidents(*open);
    alertGatheredIncidents();
}

void Scheduler::setOpenIncidents(const QList<IncidentRecord> &open)
{
    QHash<QString, IncidentRecord> byCause;
    for (const IncidentRecord &incident : open)
        byCause.insert(incident.cause, incident);
    if (byCause.size() == m_openIncidents.size()) {
        bool same = true;
        for (auto it = byCause.cbegin(); same && it != byCause.cend(); ++it) {
            const auto known = m_openIncidents.constFind(it.key());
            same = known != m_openIncidents.cend() && known->id == it->id &&
                   known->endpointIds == it->endpointIds;
        }
        if (same)
            return;
    }
    m_openIncidents = std::move(byCause);
    emit incidentsChanged(m_openIncidents.values());
}

void Scheduler::alertIncident(const IncidentRecord &incident, bool recovered)
{
    const QString cause = incidentCauseText(incident.cause);
    const QString endpoints = incident.endpointIds.join(QStringLiteral(", "));
    QJsonArray ids;
    for (const QString &id : incident.endpointIds)
        ids.append(id);
    QJsonObject details{{QStringLiteral("incident_id"), double(incident.id)},
                        {QStringLiteral("cause"), incident.cause},
                        {QStringLiteral("endpoints"), ids}};
    QString text;
    if (recovered) {
        details.insert(QStringLiteral("recovered"), true);
        details.insert(QStringLiteral("blocked_seconds"),
                       double(incident.closedAtMs - incident.openedAtMs) / 1000.0);
        text = QStringLiteral("Incident %1 is over: %2 works again (%3 integrations were blocked "
                              "for %4 s: %5)")
                   .arg(incident.id)
                   .arg(cause)
                   .arg(incident.endpointIds.size())
                   .arg((incident.closedAtMs - incident.openedAtMs) / 1000)
                   .arg(endpoints);
    } else {
        text = QStringLiteral("Incident %1: %2 is failing for %3 integrations: %4")
                   .arg(incident.id)
                   .arg(cause)
                   .arg(incident.endpointIds.size())
                   .arg(endpoints);
    }
    raiseAlert(AlertEvent::Incident, text, details);
}

bool Scheduler::isBlocked(const QString &endpointId) const
{
    for (const IncidentRecord &incident : m_openIncidents) {
        if (std::binary_search(incident.endpointIds.cbegin(), incident.endpointIds.cend(),
                               endpointId))
            return true;
    }
    return false;
}

bool Scheduler::isAlert(const QString &endpointId)
{
    return endpointId.startsWith(QLatin1String("alert:"));
}

int Scheduler::raiseAlert(AlertEvent event, const QString &text, const QJsonObject &details,
                          qint64 heldMs)
{
    const qint64 now = nowMs();
    int queued = 0;
    for (const AlertConfig &a : std::as_const(m_config.alerts)) {
        if (!a.events.contains(event))
            continue;
        if (event == AlertEvent::PartitionHeld && double(heldMs) < a.heldLongerThanSeconds * 1000.0)
            continue;
        // An incident's messages are of its cause: two hosts down are two incidents.
        QString kind = QLatin1String(textOf(event));
        if (const QString cause = details.value(QStringLiteral("cause")).toString();
            !cause.isEmpty())
            kind += QLatin1Char('\n') + cause;
        if (details.value(QStringLiteral("recovered")).toBool())
            kind += QStringLiteral("\nrecovered");
        const qint64 intervalMs = qint64(a.minIntervalSeconds * 1000.0);
        const QString localKind = a.id + QLatin1Char('\n') + kind;
        const auto last = m_lastAlertAtMs.constFind(localKind);
        if (last != m_lastAlertAtMs.constEnd() && now - *last < intervalMs)
            continue;
        // The interval is the fleet's: a worker that sent one lately speaks for all. A
        // store that cannot say lets the message go, as one worker alone would.
        if (const std::optional<bool> turn =
                m_store.incidents().takeAlertTurn(a.id, kind, now, intervalMs);
            turn && !*turn)
            continue;
        // Slack-compatible: "text" is what a chat shows; the rest is for machines.
        QJsonObject body = details;
        body.insert(QStringLiteral("text"), QStringLiteral("Cooldown: ") + text);
        body.insert(QStringLiteral("event"), QLatin1String(textOf(event)));
        body.insert(QStringLiteral("worker_id"), m_options.workerId);
        body.insert(QStringLiteral("at"),
                    QDateTime::fromMSecsSinceEpoch(now, Qt::UTC).toString(Qt::ISODateWithMs));
        const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact);
        const auto id = m_store.createOperation(a.target.id, newIdempotencyKey(), now,
                                                partitionPolicyOf(a.target), a.target.partitionKey,
                                                1, a.target.url.host(), json);
        if (!id) {
            qCWarning(lcEngine) << "could not queue alert" << a.id << m_store.lastError();
            continue;
        }
        m_lastAlertAtMs.insert(localKind, now);
        ++queued;
    }
    if (queued > 0) {
        noteStoreDue(now);
        // Not from inside the pass that raised it: a wake may be running.
        QMetaObject::invokeMethod(this, &Scheduler::wake, Qt::QueuedConnection);
    }
    return queued;
}

void Scheduler::liftHold(const QString &policyId, const QString &partitionKey, AuditRecord *audit)
{
    const qint64 now = nowMs();
    const qint64 until = m_snooze.heldUntilMs(policyId, partitionKey, now);
    const bool heldHere = m_snooze.lift(policyId, partitionKey) && until > now;
    // A hold another worker placed is on the partition's row only; it is lifted there
    // all the same.
    m_store.liftPartitionSnooze(policyId, partitionKey, heldHere ? until : -1, now, audit);
    noteStoreDue(std::numeric_limits<qint64>::min());
    wake();
}

} // namespace cooldown
