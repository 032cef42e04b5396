// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/JobsApi.h"
#include "app/LocalListener.h"
#include "core/engine/EngineSession.h"
#include "core/engine/PrometheusMetrics.h"
#include "core/engine/RetentionRun.h"

#include <QByteArray>
#include <QHostAddress>
#include <QString>

#include <memory>

namespace cooldown {

class Clock;
struct WorkspaceConfig;

// What `cooldown run` serves, as one piece that the command and the tests hold: the
// engine on its own thread (EngineSession), the retention pruner on its own
// (RetentionRun), the Prometheus exposition fed by the engine's records, and the local
// listener with the jobs API and /metrics (docs/local-api.md, docs/metrics.md), wired
// to one another here and nowhere else. A workspace the engine applies reaches the
// pruner's retention and the listener's body limit. The command adds what belongs to a
// terminal: its arguments, the log, signals and when to stop (app/RunCommand.cpp).
class RunService final
{
public:
    // Opens the engine on databaseUrl (not started); nullptr and why in *error when
    // it cannot. options.clock and options.random are the engine's and the API's (the
    // system's when null); the pruner keeps to the system clock.
    static std::unique_ptr<RunService> open(WorkspaceConfig workspace, const QString &databaseUrl,
                                            const EngineOptions &options, QString *error);
    ~RunService();
    Q_DISABLE_COPY_MOVE(RunService)

    EngineSession &engine() { return *m_engine; }
    // Serves /metrics and the jobs API on address:port (0 picks a free one; port()
    // tells which). Loopback unless the caller decided otherwise (`--listen-any`).
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    quint16 port() const { return m_listener.port(); }
    bool start(QString *error) { return m_engine->start(error); }

    // One request to the listener's routes, answered as the listener answers it: the
    // jobs API, GET /metrics, 404 for anything else.
    LocalResponse handle(const LocalRequest &request);
    // The exposition a scrape gets now, its gauges read on the engine's thread.
    QByteArray metrics();

private:
    RunService(std::unique_ptr<EngineSession> engine, const Clock &clock, RandomSource &random,
               const QString &databaseUrl);

    const Clock &m_clock;
    std::unique_ptr<EngineSession> m_engine;
    RetentionRun m_pruning;
    PrometheusMetrics m_prometheus;
    JobsApi m_api;
    LocalListener m_listener;
};

} // namespace cooldown
