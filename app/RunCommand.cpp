// SPDX-License-Identifier: Apache-2.0
#include "app/RunCommand.h"

#include "app/CommandLine.h"
#include "app/RunService.h"
#include "app/StopOnSignal.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/EngineSession.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QScopeGuard>
#include <QSet>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <cmath>
#include <functional>

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

    void add(const AttemptRecord &a, const OperationRecord &op)
    {
        ++attempts;
        if (a.status == 429 || a.status == 503)
            ++throttles;
        if (a.waitMs > 0 && a.waitSource != WaitSource::Backoff && a.waitSource != WaitSource::None)
            serverWaitMs += a.waitMs;
        if (op.state == OperationState::Failed && !a.leaseConflict)
            ++failedFinally;
    }
};

// What the command line asked for, checked.
struct RunArguments
{
    QString configPath;
    QString dbUrl;
    QUrl demo;
    std::optional<qint64> runForMs;
    bool untilIdle = false;
    // How long the database may stay away before the run gives up; none: for ever.
    std::optional<qint64> dbRetryForMs;
    SchedulerOptions options = SchedulerOptions::batched();
    qint64 skewMs = 0;
    QString listenText; // as given; empty: no listener
    QHostAddress listenAddress;
    quint16 listenPort = 0;
    bool listenAny = false;
};

// Seconds from an option, within [low, high] (low excluded when lowOpen); nullopt with
// the usage error's text in *problem.
std::optional<qint64> secondsOption(const QCommandLineParser &parser,
                                    const QCommandLineOption &option, double low, double high,
                                    bool lowOpen, const QString &expected, QString *problem)
{
    bool ok = false;
    const double s = parser.value(option).toDouble(&ok);
    if (!ok || !std::isfinite(s) || s < low || (lowOpen && s == low) || s > high) {
        *problem = expected.arg(parser.value(option));
        return std::nullopt;
    }
    return qint64(s * 1000);
}

// The command line into *args; an exit code when the run is not to start (help, or a
// usage error already printed).
std::optional<int> parseArguments(const QStringList &arguments, RunArguments *args)
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
    QString problem;
    if (parser.isSet(forSeconds)) {
        args->runForMs =
            secondsOption(parser, forSeconds, 0, 1e8, true,
                          Text::tr("--for: expected seconds above 0, got '%1'"), &problem);
        if (!args->runForMs)
            return usageError(kCommand, problem);
    }
    args->untilIdle = parser.isSet(untilIdle);
    if (args->untilIdle)
        args->dbRetryForMs = kUntilIdleDbRetryMs;
    if (parser.isSet(dbRetryFor)) {
        args->dbRetryForMs =
            secondsOption(parser, dbRetryFor, 0, 1e8, false,
                          Text::tr("--db-retry-for: expected seconds from 0, got '%1'"), &problem);
        if (!args->dbRetryForMs)
            return usageError(kCommand, problem);
    }
    if (parser.isSet(lease)) {
        const std::optional<qint64> ms = secondsOption(
            parser, lease, 1, 86400, false,
            Text::tr("--lease: expected seconds from 1 to 86400, got '%1'"), &problem);
        if (!ms)
            return usageError(kCommand, problem);
        args->options.leaseMs = *ms;
    }
    args->options.workerId = parser.value(workerId);
    if (parser.isSet(clockSkew)) {
        const std::optional<qint64> ms = secondsOption(
            parser, clockSkew, -86400, 86400, false,
            Text::tr("--clock-skew: expected seconds from -86400 to 86400, got '%1'"), &problem);
        if (!ms)
            return usageError(kCommand, problem);
        args->skewMs = *ms;
    }
    if (parser.isSet(listen)) {
        args->listenText = parser.value(listen);
        if (!LocalListener::parseAddress(args->listenText, &args->listenAddress, &args->listenPort,
                                         &problem))
            return usageError(kCommand, QStringLiteral("--listen: %1").arg(problem));
    }
    args->listenAny = parser.isSet(listenAny);
    if (args->listenAny && !parser.isSet(listen))
        return usageError(kCommand, Text::tr("--listen-any goes with --listen"));
    const std::optional<QUrl> demo = demoUrl(parser, demoUrlOpt, &problem);
    if (!demo)
        return usageError(kCommand, problem);
    args->demo = *demo;
    args->configPath = parser.value(config);
    args->dbUrl = databaseUrl(parser, db);
    return std::nullopt;
}

// Anyone who can reach a listener on another address can read the metrics and, with
// the token, hand in jobs: that is a choice made twice, never by default.
std::optional<QString> refuseListener(const RunArguments &args, const WorkspaceConfig &workspace)
{
    if (args.listenText.isEmpty() || args.listenAddress.isLoopback())
        return std::nullopt;
    if (!args.listenAny)
        return Text::tr("--listen %1 is not a loopback address; give --listen-any as well to "
                        "serve other machines")
            .arg(args.listenText);
    if (!workspace.api.enabled())
        return Text::tr("--listen-any needs api.token in the workspace, so that only clients "
                        "with the token can hand in jobs");
    return std::nullopt;
}

QString timestamp()
{
    return isoTime(SystemClock::instance().nowMs());
}

// One line for each thing the engine did that an operator reading a terminal or a log
// wants to know: attempts, holds, credentials, endpoints paused, database errors.
// Never a token. Log lines are English whatever the language (docs/translations.md).
void logEngine(EngineSession &engine, QTextStream &out, QTextStream &err, Summary &summary)
{
    QObject::connect(&engine, &EngineSession::attemptRecorded, &engine,
                     [&](const AttemptRecord &a, const OperationRecord &op) {
                         summary.add(a, op);
                         out << describe(a, op) << '\n';
                         out.flush();
                     });
    QObject::connect(&engine, &EngineSession::partitionHeld, &engine, [&](const PartitionHold &h) {
        out << timestamp() << " partition " << h.policyId << '/' << h.partitionKey << " held until "
            << isoTime(h.untilMs) << " (" << h.why << ")\n";
        out.flush();
    });
    QObject::connect(&engine, &EngineSession::credentialChanged, &engine,
                     [&](const CredentialState &c) {
                         out << timestamp() << " credentials " << c.id << ' ' << textOf(c.phase);
                         if (c.phase == CredentialState::Phase::Valid)
                             out << " until " << isoTime(c.validUntilMs);
                         if (c.phase == CredentialState::Phase::Failing)
                             out << ", next try at " << isoTime(c.nextTryAtMs);
                         if (!c.lastError.isEmpty() && c.phase != CredentialState::Phase::Valid)
                             out << " (" << c.lastError << ')';
                         out << '\n';
                         out.flush();
                     });
    QObject::connect(&engine, &EngineSession::endpointAutoPaused, &engine,
                     [&](const QString &endpointId, int failures) {
                         out << timestamp() << " endpoint " << endpointId << " paused after "
                             << failures
                             << " failed operations in a row; resume it with `cooldown resume "
                             << endpointId << "` or Resume endpoint on the dashboard's Jobs page\n";
                         out.flush();
                     });
    QObject::connect(&engine, &EngineSession::endpointsHeld, &engine,
                     [&](const QStringList &endpointIds, qint64 untilMs, const QString &reason) {
                         out << timestamp() << " endpoints " << endpointIds.join(QLatin1Char(','))
                             << " held until " << isoTime(untilMs) << " (" << reason << ")\n";
                         out.flush();
                     });
    QObject::connect(&engine, &EngineSession::endpointsReleased, &engine,
                     [&](const QStringList &endpointIds) {
                         out << timestamp() << " endpoints " << endpointIds.join(QLatin1Char(','))
                             << " no longer held\n";
                         out.flush();
                     });
    QObject::connect(&engine, &EngineSession::wentOffline, &engine, [&](qint64 sinceMs) {
        out << timestamp() << " offline since " << isoTime(sinceMs)
            << ": no route to the network; work is held (attempts made meanwhile do not count),"
               " one exchange every 5 s looks whether it is back\n";
        out.flush();
    });
    QObject::connect(&engine, &EngineSession::cameOnline, &engine, [&](qint64 offlineMs) {
        out << timestamp() << " back online after "
            << QString::number(double(offlineMs) / 1000.0, 'f', 1)
            << " s; sending ramps up from a tenth to all over a minute\n";
        out.flush();
    });
    QObject::connect(&engine, &EngineSession::incidentsChanged, &engine,
                     [&](const QList<IncidentRecord> &open) {
                         out << timestamp() << " incidents open: " << open.size();
                         for (const IncidentRecord &incident : open)
                             out << "; " << incident.id << " " << incident.cause << " blocks "
                                 << incident.endpointIds.join(QLatin1Char(','));
                         out << '\n';
                         out.flush();
                     });
    QObject::connect(&engine, &EngineSession::wokeFromSleep, &engine, [&](qint64 sleptMs) {
        out << timestamp() << " the machine slept for about " << sleptMs / 1000
            << " s: exchanges in flight were interrupted, what came due meanwhile is due now\n";
        out.flush();
    });
    QObject::connect(&engine, &EngineSession::storeFailed, &engine, [&](const QString &message) {
        err << "cooldown run: database: " << message << '\n';
        err.flush();
    });
}

// One line when the database goes away and one when it is back, not one per query;
// after retryForMs away (none: for ever), stop() is called, unless stopping already.
class DatabaseWatch final
{
public:
    DatabaseWatch(EngineSession &engine, std::optional<qint64> retryForMs, QTextStream &out,
                  QTextStream &err, const bool &stopping, std::function<void()> stop)
    {
        m_giveUp.setSingleShot(true);
        QObject::connect(&m_giveUp, &QTimer::timeout, &engine, [this, retryForMs, &err, stop] {
            m_gaveUp = true;
            err << Text::tr("cooldown run: the database has been unreachable since %1 (%2); "
                            "stopping after %3 s of trying (--db-retry-for)")
                       .arg(isoTime(m_downSinceMs), m_why)
                       .arg(double(retryForMs.value_or(0)) / 1000.0)
                << '\n';
            err.flush();
            stop();
        });
        QObject::connect(&engine, &EngineSession::databaseLost, &engine,
                         [this, retryForMs, &out, &stopping](const QString &why) {
                             m_why = why;
                             m_downSinceMs = SystemClock::instance().nowMs();
                             out << isoTime(m_downSinceMs) << ' '
                                 << QStringLiteral("database unreachable since %1 (%2); holding "
                                                   "work")
                                        .arg(isoTime(m_downSinceMs), why)
                                 << '\n';
                             out.flush();
                             if (retryForMs && !stopping)
                                 m_giveUp.start(std::chrono::milliseconds(*retryForMs));
                         });
        QObject::connect(&engine, &EngineSession::databaseBack, &engine,
                         [this, &out](qint64 downMs) {
                             m_giveUp.stop();
                             out << timestamp() << ' '
                                 << QStringLiteral("database back after %1 s")
                                        .arg(double(downMs) / 1000.0, 0, 'f', 1)
                                 << '\n';
                             out.flush();
                         });
    }
    DatabaseWatch(const DatabaseWatch &) = delete;
    DatabaseWatch &operator=(const DatabaseWatch &) = delete;

    bool gaveUp() const { return m_gaveUp; }

private:
    QTimer m_giveUp;
    QString m_why;
    qint64 m_downSinceMs = -1;
    bool m_gaveUp = false;
};

// The last line: the database's counts (or this run's alone when it is away) and what
// this run sent.
void printSummary(EngineSession &engine, const Summary &summary, QTextStream &out)
{
    // Nothing is read from a database that is away (or fails): this run's figures alone.
    const std::optional<QMap<OperationState, qint64>> counts = engine.operationCounts();
    if (!counts) {
        out << "summary (this run):";
    } else {
        out << "summary (database):";
        for (const OperationState state : allOperationStates())
            out << ' ' << toString(state) << '=' << counts->value(state);
    }
    out << " attempts=" << summary.attempts << " throttled=" << summary.throttles
        << " server_wait_s=" << QString::number(double(summary.serverWaitMs) / 1000.0, 'f', 1)
        << " failed_this_run=" << summary.failedFinally << '\n';
    out.flush();
}

} // namespace

int runRun(const QStringList &arguments)
{
    RunArguments args;
    if (const std::optional<int> exit = parseArguments(arguments, &args))
        return *exit;
    QString error;
    auto workspace =
        WorkspaceConfig::load(args.configPath, &error, WorkspaceConfig::demoVariables(args.demo));
    if (!workspace)
        return usageError(kCommand, error);
    // What weakens TLS is said at every start, not only by check-config.
    for (const QString &warning : std::as_const(workspace->warnings))
        usageError(kCommand, Text::tr("%1: warning: %2").arg(workspace->sourceName, warning));
    if (const std::optional<QString> refused = refuseListener(args, *workspace))
        return usageError(kCommand, *refused);
    // Opened here first for the command's own message and exit code when it cannot be;
    // the engine opens its own connection on its thread.
    int openFailed = ExitOk;
    if (!openStoreFor(kCommand, args.dbUrl, Create::IfMissing, &openFailed))
        return openFailed;

    StopOnSignal stopSignals;
    const SkewedClock clock(SystemClock::instance(), args.skewMs);
    EngineOptions engineOptions;
    engineOptions.clock = &clock;
    engineOptions.scheduler = args.options;
    auto service = RunService::open(std::move(*workspace), args.dbUrl, engineOptions, &error);
    if (!service)
        return runtimeError(kCommand, error);
    EngineSession *engine = &service->engine();

    QTextStream out(stdout);
    QTextStream err(stderr);
    Summary summary;
    logEngine(*engine, out, err, summary);
    bool stopRequested = false;
    const auto requestStop = [&] {
        if (stopRequested)
            return;
        stopRequested = true;
        engine->stop();
    };
    DatabaseWatch database(*engine, args.dbRetryForMs, out, err, stopRequested, requestStop);
    QObject::connect(engine, &EngineSession::stopped, qApp, &QCoreApplication::quit,
                     Qt::QueuedConnection);
    if (args.untilIdle)
        QObject::connect(engine, &EngineSession::idle, engine, requestStop, Qt::QueuedConnection);
    // SIGHUP reads the workspace file again and runs the engine on it without a
    // restart; a file that does not validate is not applied, and the run goes on.
    const auto reload = [&] {
        QString problem;
        auto next = WorkspaceConfig::load(args.configPath, &problem,
                                          WorkspaceConfig::demoVariables(args.demo));
        if (!next) {
            err << "cooldown run: SIGHUP: not applied, the running workspace stays: " << problem
                << '\n';
            err.flush();
            return;
        }
        out << timestamp() << " SIGHUP: applying " << args.configPath << '\n';
        out.flush();
        engine->apply(std::move(*next));
    };
    QObject::connect(
        engine, &EngineSession::configApplied, engine, [&](bool applied, const QString &problem) {
            if (!applied) {
                err << "cooldown run: the workspace was not applied: " << problem << '\n';
                err.flush();
                return;
            }
            // Retention and the listener follow it too (RunService).
            out << timestamp() << " workspace applied: " << engine->config().endpoints.size()
                << " endpoints\n";
            out.flush();
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
    if (args.runForMs)
        QTimer::singleShot(std::chrono::milliseconds(*args.runForMs), engine, requestStop);

    const bool listening = !args.listenText.isEmpty();
    if (listening && !service->listen(args.listenAddress, args.listenPort, &error))
        return runtimeError(kCommand,
                            QStringLiteral("--listen %1: %2").arg(args.listenText, error));
    if (!service->start(&error))
        return runtimeError(kCommand, error);
    if (listening) {
        const QString host =
            args.listenAddress.protocol() == QAbstractSocket::IPv6Protocol
                ? QLatin1Char('[') + args.listenAddress.toString() + QLatin1Char(']')
                : args.listenAddress.toString();
        out << "cooldown run: metrics at http://" << host << ':' << service->port() << "/metrics\n";
        if (engine->config().api.enabled())
            out << "cooldown run: jobs API at http://" << host << ':' << service->port()
                << "/v1/jobs\n";
    }
    out << "cooldown run: worker " << engine->workerId() << " on " << Store::displayUrl(args.dbUrl)
        << '\n';
    out.flush();
    QCoreApplication::exec();

    printSummary(*engine, summary, out);
    return summary.failedFinally > 0 || database.gaveUp() ? ExitRuntimeFailure : ExitOk;
}

} // namespace cooldown::cli
