// SPDX-License-Identifier: Apache-2.0
#include "app/RunService.h"

#include "core/config/WorkspaceConfig.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"

#include <QSet>

namespace cooldown {

namespace {

// The gauges of a scrape, read on the engine's thread.
ScrapeState scrape(EngineSession &engine, const Clock &clock)
{
    ScrapeState state;
    state.maxInFlight = engine.config().concurrency.maxInFlight;
    state.perHost = engine.config().concurrency.perHost;
    const EngineFigures f = engine.figures();
    state.inFlight = f.inFlight;
    state.databaseUp = f.databaseUp;
    state.operationsByState = f.openCounts;
    state.credentials = f.credentials;
    state.waitingForCredentials = f.waitingForCredentials;
    const qint64 now = clock.nowMs();
    state.nowMs = now;
    for (const PartitionState &p : f.partitions) {
        ++state.partitionsByPolicy[p.policyId];
        state.availableUnitsByPolicy[p.policyId] += p.availableUnits;
        state.heldPartitions += p.heldUntilMs > now ? 1 : 0;
    }
    for (const EndpointHold &h : f.endpointHolds)
        state.heldEndpoints += h.untilMs > now ? 1 : 0;
    state.offlineSinceMs = f.offlineSinceMs;
    state.openIncidents = int(f.openIncidents.size());
    QSet<QString> blocked;
    for (const IncidentRecord &incident : f.openIncidents)
        blocked.unite(QSet<QString>(incident.endpointIds.cbegin(), incident.endpointIds.cend()));
    state.blockedEndpoints = int(blocked.size());
    for (const EndpointConfig &e : engine.config().endpoints) {
        if (e.latencyBudgetMs > 0)
            state.latencyDegraded.insert(e.id, f.latencyDegraded.contains(e.id));
    }
    return state;
}

bool leftTheQueue(OperationState state)
{
    return state != OperationState::Scheduled && state != OperationState::Waiting &&
           state != OperationState::Running;
}

} // namespace

std::unique_ptr<RunService> RunService::open(WorkspaceConfig workspace, const QString &databaseUrl,
                                             const EngineOptions &options, QString *error)
{
    const Clock &clock = options.clock ? *options.clock : SystemClock::instance();
    RandomSource &random = options.random ? *options.random : SystemRandom::instance();
    auto engine = EngineSession::open(std::move(workspace), databaseUrl, error, options);
    if (!engine)
        return nullptr;
    return std::unique_ptr<RunService>(
        new RunService(std::move(engine), clock, random, databaseUrl));
}

RunService::RunService(std::unique_ptr<EngineSession> engine, const Clock &clock,
                       RandomSource &random, const QString &databaseUrl)
    : m_clock(clock), m_engine(std::move(engine)),
      m_pruning(databaseUrl, SystemClock::instance(), m_engine->config().retention),
      m_api(*m_engine, random),
      m_listener([this](const LocalRequest &request) { return handle(request); },
                 m_engine->config().api.maxBodyBytes)
{
    EngineSession *session = m_engine.get();
    // Prometheus: counters fed by the engine, gauges read at each scrape.
    QObject::connect(session, &EngineSession::attemptRecorded, session,
                     [this](const AttemptRecord &a, const OperationRecord &op) {
                         m_prometheus.record(a);
                         if (leftTheQueue(op.state))
                             m_api.noteLeftQueue(m_clock.nowMs());
                     });
    QObject::connect(session, &EngineSession::attemptsWritten, session,
                     [this](int, double seconds) { m_prometheus.recordStoreWrite(seconds); });
    // A workspace applied while running: retention and the body limit follow it.
    QObject::connect(session, &EngineSession::configApplied, session, [this](bool applied) {
        if (!applied)
            return;
        m_pruning.follow(m_engine->config().retention);
        m_listener.setMaxBodyBytes(m_engine->config().api.maxBodyBytes);
    });
}

RunService::~RunService() = default;

bool RunService::listen(const QHostAddress &address, quint16 port, QString *error)
{
    return m_listener.listen(address, port, error);
}

LocalResponse RunService::handle(const LocalRequest &request)
{
    if (JobsApi::handles(request))
        return m_api.handle(request);
    if (request.path != "/metrics")
        return LocalResponse::text(404, "here are /metrics and /v1/jobs\n");
    if (request.method != "GET" && request.method != "HEAD") {
        LocalResponse r = LocalResponse::text(405, "GET only\n");
        r.headers.append({QByteArray("Allow"), QByteArray("GET, HEAD")});
        return r;
    }
    LocalResponse r = LocalResponse::text(200, metrics());
    r.contentType = "text/plain; version=0.0.4; charset=utf-8";
    return r;
}

QByteArray RunService::metrics()
{
    return m_prometheus.render(scrape(*m_engine, m_clock));
}

} // namespace cooldown
