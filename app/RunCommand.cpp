// SPDX-License-Identifier: Apache-2.0
#include "app/RunCommand.h"

#include "app/CommandLine.h"
#include "app/JobsApi.h"
#include "app/LocalListener.h"
#include "app/StopOnSignal.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/EngineSession.h"
#include "core/engine/PrometheusMetrics.h"
#include "core/store/RetentionPruner.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QScopeGuard>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <cmath>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("run");
// --until-idle gives the database this long to come back before it stops.
constexpr qint64 kUntilIdleDbRetryMs = 30 * 1000;

// One line per state change, for people reading a terminal or a log.
QString describe(const AttemptRecord &a, const OperationRecord &op)
{
    QString outcome = a.status ? QString::number(a.status) : a.error;
    QString line = QStringLiteral("%1 op %2 %3 attempt %4: %5 -> %6")
                       .arg(isoTime(a.finishedAtMs >= 0 ? a.finishedAtMs : a.startedAtMs))
                       .arg(op.id)
                       .arg(op.endpointId)
                       .arg(a.attempt)
                       .arg(outcome, toString(op.state));
    if (op.state == OperationState::Waiting)
        line += QStringLiteral(" (%1, retry in %2 s from %3)")
                    .arg(a.reason)
                    .arg(double(a.waitMs) / 1000.0, 0, 'f', 1)
                    .arg(QLatin1String(textOf(a.waitSource)));
    else if (!a.reason.isEmpty() && a.reason != QLatin1String("ok"))
        line += QStringLiteral(" (%1)").arg(a.reason);
    if (a.leaseConflict)
        line += QStringLiteral(" [lease conflict: result not applied]");
    return line;
}

struct Summary
{
    qint64 attempts = 0;
    qint64 throttles = 0;
    qint64 serverWaitMs = 0;
    qint64 failedFinally = 0;
};

} // namespace

int runRun(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(Text::tr("Runs the engine without a window."));
    parser.addHelpOption();
    const QCommandLineOption config(QStringLiteral("config"), Text::tr("Workspace config file."),
                                    QStringLiteral("F"));
    const QCommandLineOption db(
        QStringLiteral("db"),
        Text::tr("SQLite path or postgresql:// URL (default: %1).").arg(defaultDatabaseUrl()),
        QStringLiteral("URL"));
    const QCommandLineOption forSeconds(QStringLiteral("for"), Text::tr("Stop after S seconds."),
                                        QStringLiteral("S"));
    const QCommandLineOption untilIdle(
        QStringLiteral("until-idle"),
        Text::tr("Stop once nothing is running or waiting to retry."));
    const QCommandLineOption demoUrlOpt = demoUrlOption();
    const QCommandLineOption workerId(QStringLiteral("worker-id"),
                                      Text::tr("Name of this worker in leases and attempts."),
                                      QStringLiteral("ID"));
    const QCommandLineOption lease(
        QStringLiteral("lease"),
        Text::tr("Seconds a claim holds without renewal; the operations of a worker that "
                 "died are rescued after it (default 120)."),
        QStringLiteral("S"));
    QCommandLineOption clockSkew(
        QStringLiteral("clock-skew"),
        Text::tr("Run as if this machine's clock were S seconds ahead (negative: behind); "
                 "for trying out workers whose clocks disagree."),
        QStringLiteral("S"));
    clockSkew.setFlags(QCommandLineOption::HiddenFromHelp);
    const QCommandLineOption listen(
        QStringLiteral("listen"),
        Text::tr("Serve Prometheus metrics at http://HOST:PORT/metrics and, when the "
                 "workspace sets api.token, the local API at /v1/jobs (e.g. "
                 "127.0.0.1:9464; port 0 picks a free one and prints it)."),
        QStringLiteral("HOST:PORT"));
    const QCommandLineOption listenAny(
        QStringLiteral("listen-any"),
        Text::tr("Allow --listen on an address other than loopback (needs api.token)."));
    const QCommandLineOption dbRetryFor(
        QStringLiteral("db-retry-for"),
        Text::tr("While the database is unreachable or its disk full, keep trying for S "
                 "seconds, then stop with exit code 1 (default: for ever; 30 with "
                 "--until-idle)."),
        QStringLiteral("S"));
    parser.addOptions({config, db, forSeconds, untilIdle, demoUrlOpt, workerId, lease, clockSkew,
                       listen, listenAny, dbRetryFor});
    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    if (!parser.isSet(config))
        return usageError(kCommand, Text::tr("--config is required"));
    if (parser.isSet(forSeconds) && parser.isSet(untilIdle))
        return usageError(kCommand, Text::tr("give --for or --until-idle, not both"));
    std::optional<qint64> runForMs;
    if (parser.isSet(forSeconds)) {
        bool ok = false;
        const double s = parser.value(forSeconds).toDouble(&ok);
        if (!ok || !std::isfinite(s) || s <= 0 || s > 1e8)
            return usageError(kCommand, Text::tr("--for: expected seconds above 0, got '%1'")
                                            .arg(parser.value(forSeconds)));
        runForMs = qint64(s * 1000);
    }
    // How long the database may stay away before the run gives up; none: for ever.
    std::optional<qint64> dbRetryForMs;
    if (parser.isSet(untilIdle))
        dbRetryForMs = kUntilIdleDbRetryMs;
    if (parser.isSet(dbRetryFor)) {
        bool ok = false;
        const double s = parser.value(dbRetryFor).toDouble(&ok);
        if (!ok || !std::isfinite(s) || s < 0 || s > 1e8)
            return usageError(kCommand,
                              Text::tr("--db-retry-for: expected seconds from 0, got '%1'")
                                  .arg(parser.value(dbRetryFor)));
        dbRetryForMs = qint64(s * 1000);
    }
    SchedulerOptions options = SchedulerOptions::batched();
    if (parser.isSet(lease)) {
        bool ok = false;
        const double s = parser.value(lease).toDouble(&ok);
        if (!ok || !std::isfinite(s) || s < 1 || s > 86400)
            return usageError(kCommand,
                              Text::tr("--lease: expected seconds from 1 to 86400, got '%1'")
                                  .arg(parser.value(lease)));
        options.leaseMs = qint64(s * 1000);
    }
    qint64 skewMs = 0;
    if (parser.isSet(clockSkew)) {
        bool ok = false;
        const double s = parser.value(clockSkew).toDouble(&ok);
        if (!ok || !std::isfinite(s) || std::abs(s) > 86400)
            return usageError(kCommand,
                              Text::tr("--clock-skew: expected seconds from -86400 to 86400, "
                                       "got '%1'")
                                  .arg(parser.value(clockSkew)));
        skewMs = qint64(s * 1000);
    }
    QHostAddress listenAddress;
    quint16 listenPort = 0;
    if (parser.isSet(listen)) {
        QString problem;
        if (!LocalListener::parseAddress(parser.value(listen), &listenAddress, &listenPort,
                                         &problem))
            return usageError(kCommand, QStringLiteral("--listen: %1").arg(problem));
    }
    QString demoProblem;
    const std::optional<QUrl> demo = demoUrl(parser, demoUrlOpt, &demoProblem);
    if (!demo)
        return usageError(kCommand, demoProblem);

    QString error;
    auto workspace =
        WorkspaceConfig::load(parser.value(config), &error, WorkspaceConfig::demoVariables(*demo));
    if (!workspace)
        return usageError(kCommand, error);
    // Anyone who can reach a listener on another address can read the metrics and, with
    // the token, hand in jobs: that is a choice made twice, never by default.
    if (parser.isSet(listen) && !listenAddress.isLoopback()) {
        if (!parser.isSet(listenAny))
            return usageError(kCommand, Text::tr("--listen %1 is not a loopback address; give "
                                                 "--listen-any as well to serve other machines")
                                            .arg(parser.value(listen)));
        if (!workspace->api.enabled())
            return usageError(kCommand,
                              Text::tr("--listen-any needs api.token in the workspace, so that "
                                       "only clients with the token can hand in jobs"));
    } else if (parser.isSet(listenAny) && !parser.isSet(listen)) {
        return usageError(kCommand, Text::tr("--listen-any goes with --listen"));
    }
    const QString dbUrl = databaseUrl(parser, db);
    // Opened here first for the command's own message and exit code when it cannot be;
    // the engine opens its own connection on its thread.
    int openFailed = ExitOk;
    if (!openStoreFor(kCommand, dbUrl, Create::IfMissing, &openFailed))
        return openFailed;

    // History older than the workspace keeps goes in small batches, on a thread and a
    // connection of its own, a minute after the start and every hour after.
    const RetentionConfig retention = workspace->retention;
    QThread pruneThread;
    pruneThread.setObjectName(QStringLiteral("retention"));
    auto *pruner =
        new RetentionPruner(dbUrl, SystemClock::instance(),
                            RetentionPeriods::fromDays(retention.rawDays, retention.rollupDays));
    pruner->moveToThread(&pruneThread);
    QObject::connect(&pruneThread, &QThread::finished, pruner, &QObject::deleteLater);
    pruneThread.start();
    QTimer::singleShot(60 * 1000, pruner, [pruner] { pruner->start(3600 * 1000); });
    const auto stopPruning = qScopeGuard([&pruneThread] {
        pruneThread.quit();
        pruneThread.wait();
    });

    StopOnSignal stopSignals;
    const SkewedClock clock(SystemClock::instance(), skewMs);
    options.workerId = parser.value(workerId);
    EngineOptions engineOptions;
    engineOptions.clock = &clock;
    engineOptions.scheduler = options;
    auto engine = EngineSession::open(std::move(*workspace), dbUrl, &error, engineOptions);
    if (!engine)
        return runtimeError(kCommand, error);

    // Prometheus: counters fed by the engine, gauges read at each scrape.
    PrometheusMetrics prometheus;
    QObject::connect(engine.get(), &EngineSession::attemptRecorded, engine.get(),
                     [&](const AttemptRecord &a) { prometheus.record(a); });
    QObject::connect(engine.get(), &EngineSession::attemptsWritten, engine.get(),
                     [&](int, double seconds) { prometheus.recordStoreWrite(seconds); });
    const auto renderMetrics = [&] {
        ScrapeState state;
        state.maxInFlight = engine->config().concurrency.maxInFlight;
        state.perHost = engine->config().concurrency.perHost;
        engine->runOnEngine([&](Store &store, Scheduler &scheduler) {
            state.inFlight = scheduler.inFlight();
            state.databaseUp = !scheduler.isDatabaseDown();
            if (!state.databaseUp)
                return; // nothing is read from a database that is away
            state.operationsByState = store.openCountsByState();
            for (const CredentialState &c : scheduler.credentialStates()) {
                if (engine->config().credential(c.id) &&
                    engine->config().credential(c.id)->isOAuth())
                    state.credentials.append(c);
            }
            state.waitingForCredentials = scheduler.waitingForCredentials();
            const qint64 now = clock.nowMs();
            state.nowMs = now;
            for (const PartitionState &p : store.partitions(now)) {
                ++state.partitionsByPolicy[p.policyId];
                state.availableUnitsByPolicy[p.policyId] += p.availableUnits;
                state.heldPartitions += p.heldUntilMs > now ? 1 : 0;
            }
        });
        return prometheus.render(state);
    };
    SystemRandom random;
    JobsApi api(*engine, random);
    QObject::connect(engine.get(), &EngineSession::attemptRecorded, engine.get(),
                     [&](const AttemptRecord &, const OperationRecord &op) {
                         if (op.state != OperationState::Scheduled &&
                             op.state != OperationState::Waiting &&
                             op.state != OperationState::Running)
                             api.noteLeftQueue(clock.nowMs());
                     });
    LocalListener listener(
        [&](const LocalRequest &request) {
            if (JobsApi::handles(request))
                return api.handle(request);
            if (request.path != "/metrics")
                return LocalResponse::text(404, "here are /metrics and /v1/jobs\n");
            if (request.method != "GET" && request.method != "HEAD") {
                LocalResponse r = LocalResponse::text(405, "GET only\n");
                r.headers.append({QByteArray("Allow"), QByteArray("GET, HEAD")});
                return r;
            }
            LocalResponse r = LocalResponse::text(200, renderMetrics());
            r.contentType = "text/plain; version=0.0.4; charset=utf-8";
            return r;
        },
        engine->config().api.maxBodyBytes);

    QTextStream out(stdout);
    QTextStream err(stderr);
    Summary summary;
    bool stopRequested = false;
    QObject::connect(engine.get(), &EngineSession::attemptRecorded, engine.get(),
                     [&](const AttemptRecord &a, const OperationRecord &op) {
                         ++summary.attempts;
                         if (a.status == 429 || a.status == 503)
                             ++summary.throttles;
                         if (a.waitMs > 0 && a.waitSource != WaitSource::Backoff &&
                             a.waitSource != WaitSource::None)
                             summary.serverWaitMs += a.waitMs;
                         if (op.state == OperationState::Failed && !a.leaseConflict)
                             ++summary.failedFinally;
                         out << describe(a, op) << '\n';
                         out.flush();
                     });
    QObject::connect(
        engine.get(), &EngineSession::partitionHeld, engine.get(), [&](const PartitionHold &h) {
            out << isoTime(SystemClock::instance().nowMs()) << " partition " << h.policyId << '/'
                << h.partitionKey << " held until " << isoTime(h.untilMs) << " (" << h.why << ")\n";
            out.flush();
        });
    // One line each time a credential's token is obtained, fails or is refused; never
    // the token.
    QObject::connect(engine.get(), &EngineSession::credentialChanged, engine.get(),
                     [&](const CredentialState &c) {
                         out << isoTime(SystemClock::instance().nowMs()) << " credentials " << c.id
                             << ' ' << textOf(c.phase);
                         if (c.phase == CredentialState::Phase::Valid)
                             out << " until " << isoTime(c.validUntilMs);
                         if (c.phase == CredentialState::Phase::Failing)
                             out << ", next try at " << isoTime(c.nextTryAtMs);
                         if (!c.lastError.isEmpty() && c.phase != CredentialState::Phase::Valid)
                             out << " (" << c.lastError << ')';
                         out << '\n';
                         out.flush();
                     });
    // No command resumes an endpoint: the dashboard's Resume endpoint does.
    QObject::connect(engine.get(), &EngineSession::endpointAutoPaused, engine.get(),
                     [&](const QString &endpointId, int failures) {
                         out << isoTime(SystemClock::instance().nowMs()) << " endpoint "
                             << endpointId << " paused after " << failures
                             << " failed operations in a row; resume it with Resume endpoint"
                                " on the dashboard's Jobs page\n";
                         out.flush();
                     });
    QObject::connect(engine.get(), &EngineSession::storeFailed, engine.get(),
                     [&](const QString &message) {
                         err << "cooldown run: database: " << message << '\n';
                         err.flush();
                     });
    const auto requestStop = [&] {
        if (stopRequested)
            return;
        stopRequested = true;
        engine->stop();
    };
    // One line when the database goes away and one when it is back, not one per query;
    // after --db-retry-for away, the run stops with exit code 1.
    bool gaveUpOnDatabase = false;
    QTimer giveUp;
    giveUp.setSingleShot(true);
    QString downWhy;
    qint64 downSinceMs = -1;
    QObject::connect(&giveUp, &QTimer::timeout, engine.get(), [&] {
        gaveUpOnDatabase = true;
        err << Text::tr("cooldown run: the database has been unreachable since %1 (%2); "
                        "stopping after %3 s of trying (--db-retry-for)")
                   .arg(isoTime(downSinceMs), downWhy)
                   .arg(double(*dbRetryForMs) / 1000.0)
            << '\n';
        err.flush();
        requestStop();
    });
    QObject::connect(engine.get(), &EngineSession::databaseLost, engine.get(),
                     [&](const QString &why) {
                         downWhy = why;
                         downSinceMs = SystemClock::instance().nowMs();
                         // A log line: English whatever the language, as the others
                         // (docs/translations.md).
                         out << isoTime(downSinceMs) << ' '
                             << QStringLiteral("database unreachable since %1 (%2); holding work")
                                    .arg(isoTime(downSinceMs), why)
                             << '\n';
                         out.flush();
                         if (dbRetryForMs && !stopRequested)
                             giveUp.start(std::chrono::milliseconds(*dbRetryForMs));
                     });
    QObject::connect(engine.get(), &EngineSession::databaseBack, engine.get(), [&](qint64 downMs) {
        giveUp.stop();
        out << isoTime(SystemClock::instance().nowMs()) << ' '
            << QStringLiteral("database back after %1 s").arg(double(downMs) / 1000.0, 0, 'f', 1)
            << '\n';
        out.flush();
    });
    QObject::connect(engine.get(), &EngineSession::stopped, qApp, &QCoreApplication::quit,
                     Qt::QueuedConnection);
    if (parser.isSet(untilIdle))
        QObject::connect(engine.get(), &EngineSession::idle, engine.get(), requestStop,
                         Qt::QueuedConnection);
    // SIGHUP reads the workspace file again and runs the engine on it without a
    // restart; a file that does not validate is not applied, and the run goes on.
    const QString configPath = parser.value(config);
    const auto reload = [&] {
        QString problem;
        auto next =
            WorkspaceConfig::load(configPath, &problem, WorkspaceConfig::demoVariables(*demo));
        if (!next) {
            err << "cooldown run: SIGHUP: not applied, the running workspace stays: " << problem
                << '\n';
            err.flush();
            return;
        }
        out << isoTime(SystemClock::instance().nowMs()) << " SIGHUP: applying " << configPath
            << '\n';
        out.flush();
        engine->apply(std::move(*next));
    };
    QObject::connect(
        engine.get(), &EngineSession::configApplied, engine.get(),
        [&](bool applied, const QString &problem) {
            if (applied) {
                // Retention follows the workspace too, from the next pass.
                const RetentionConfig r = engine->config().retention;
                QMetaObject::invokeMethod(
                    pruner,
                    [pruner, r] {
                        pruner->setPeriods(RetentionPeriods::fromDays(r.rawDays, r.rollupDays));
                    },
                    Qt::QueuedConnection);
                listener.setMaxBodyBytes(engine->config().api.maxBodyBytes);
                out << isoTime(SystemClock::instance().nowMs())
                    << " workspace applied: " << engine->config().endpoints.size()
                    << " endpoints\n";
                out.flush();
            } else {
                err << "cooldown run: the workspace was not applied: " << problem << '\n';
                err.flush();
            }
        });
    if (!stopSignals.install(
            [&](int signal) {
                if (signal == SIGHUP)
                    reload();
                else
                    requestStop();
            },
            &error, {SIGINT, SIGTERM, SIGHUP}))
        return runtimeError(kCommand, error);
    if (runForMs)
        QTimer::singleShot(std::chrono::milliseconds(*runForMs), engine.get(), requestStop);

    if (parser.isSet(listen) && !listener.listen(listenAddress, listenPort, &error))
        return runtimeError(kCommand,
                            QStringLiteral("--listen %1: %2").arg(parser.value(listen), error));
    if (!engine->start(&error))
        return runtimeError(kCommand, error);
    if (parser.isSet(listen)) {
        const QString host = listenAddress.protocol() == QAbstractSocket::IPv6Protocol
                                 ? QLatin1Char('[') + listenAddress.toString() + QLatin1Char(']')
                                 : listenAddress.toString();
        out << "cooldown run: metrics at http://" << host << ':' << listener.port() << "/metrics\n";
        if (engine->config().api.enabled())
            out << "cooldown run: jobs API at http://" << host << ':' << listener.port()
                << "/v1/jobs\n";
    }
    out << "cooldown run: worker " << engine->workerId() << " on " << Store::displayUrl(dbUrl)
        << '\n';
    out.flush();
    QCoreApplication::exec();

    QMap<OperationState, qint64> counts;
    bool databaseDown = false;
    engine->runOnEngine([&](Store &store, Scheduler &scheduler) {
        databaseDown = scheduler.isDatabaseDown();
        if (!databaseDown)
            counts = store.countsByState();
    });
    if (databaseDown) {
        out << "summary (this run):";
    } else {
        out << "summary (database):";
        for (const OperationState state : allOperationStates())
            out << ' ' << toString(state) << '=' << counts.value(state);
    }
    out << " attempts=" << summary.attempts << " throttled=" << summary.throttles
        << " server_wait_s=" << QString::number(double(summary.serverWaitMs) / 1000.0, 'f', 1)
        << " failed_this_run=" << summary.failedFinally << '\n';
    out.flush();
    return summary.failedFinally > 0 || gaveUpOnDatabase ? ExitRuntimeFailure : ExitOk;
}

} // namespace cooldown::cli
