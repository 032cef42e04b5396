// SPDX-License-Identifier: Apache-2.0
#include "app/PauseCommand.h"

#include "app/CommandLine.h"
#include "core/config/WorkspaceConfig.h"
#include "core/store/OperatorAudit.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/DurationText.h"

#include <QCommandLineParser>
#include <QSet>

namespace cooldown::cli {

namespace {

enum class Verb
{
    Pause,
    Resume
};

struct PauseOptions
{
    QCommandLineOption db{QStringLiteral("db"), Text::tr("SQLite path or postgresql:// URL."),
                          QStringLiteral("URL")};
    QCommandLineOption host{QStringLiteral("host"),
                            Text::tr("Every endpoint of the workspace whose URL has this host "
                                     "(needs --config; may be given more than once)."),
                            QStringLiteral("H")};
    QCommandLineOption config{
        QStringLiteral("config"),
        Text::tr("The workspace whose endpoints are meant (default: those the database knows)."),
        QStringLiteral("F")};
    QCommandLineOption forSpan{QStringLiteral("for"),
                               Text::tr("Pause for this long, then resume by itself: 90m, 2h, "
                                        "1d12h (default: until resumed)."),
                               QStringLiteral("D")};
    QCommandLineOption reason{QStringLiteral("reason"),
                              Text::tr("Why, shown with the pause and kept in the audit table."),
                              QStringLiteral("R")};
    QCommandLineOption as{
        QStringLiteral("as"),
        Text::tr("The operator the audit table names (default: the user running this)."),
        QStringLiteral("NAME")};
};

// The endpoints the arguments name, checked against the workspace (with --config) or
// the database: a name that matches nothing is an error, so that a typo never pauses
// nothing in silence, nor makes a row for an endpoint that does not exist.
std::optional<QStringList> chosenEndpoints(const QCommandLineParser &parser, const PauseOptions &o,
                                           Store &store, QString *problem)
{
    QStringList known;
    std::optional<WorkspaceConfig> workspace;
    if (parser.isSet(o.config)) {
        workspace = WorkspaceConfig::load(parser.value(o.config), problem,
                                          WorkspaceConfig::demoVariables());
        if (!workspace)
            return std::nullopt;
        for (const EndpointConfig &e : workspace->endpoints)
            known.append(e.id);
    } else if (const std::optional<QStringList> stored = store.endpointReads().ids()) {
        known = *stored;
    } else {
        *problem = store.lastError();
        return std::nullopt;
    }
    QStringList chosen;
    for (const QString &id : parser.positionalArguments()) {
        if (!known.contains(id)) {
            *problem = parser.isSet(o.config)
                           ? Text::tr("no endpoint '%1' in %2").arg(id, parser.value(o.config))
                           : Text::tr("no endpoint '%1' in the database (give --config F to "
                                      "name endpoints no worker has run yet)")
                                 .arg(id);
            return std::nullopt;
        }
        if (!chosen.contains(id))
            chosen.append(id);
    }
    for (const QString &host : parser.values(o.host)) {
        if (!workspace) {
            *problem = Text::tr("--host needs --config F: the workspace says which endpoints "
                                "call which host");
            return std::nullopt;
        }
        bool any = false;
        for (const EndpointConfig &e : workspace->endpoints) {
            if (e.url.host().compare(host, Qt::CaseInsensitive) != 0)
                continue;
            any = true;
            if (!chosen.contains(e.id))
                chosen.append(e.id);
        }
        if (!any) {
            *problem =
                Text::tr("--host: no endpoint of %1 calls '%2'").arg(parser.value(o.config), host);
            return std::nullopt;
        }
    }
    return chosen;
}

QString audited(const QStringList &endpoints, std::optional<qint64> untilMs)
{
    QString target = endpointListTarget(endpoints);
    if (untilMs)
        target += QStringLiteral(" until=%1").arg(isoTime(*untilMs));
    return target;
}

int hold(const QString &command, Store &store, const QStringList &endpoints, qint64 forMs,
         const QString &reason, AuditRecord &audit)
{
    const qint64 now = audit.atMs;
    const qint64 until = now + forMs;
    audit.target = audited(endpoints, until);
    const std::optional<QStringList> held =
        store.holdEndpoints(endpoints, until, reason, now, &audit);
    if (!held)
        return runtimeError(command, store.lastError());
    if (!held->isEmpty())
        printOut(
            Text::tr("held until %1: %2\n").arg(isoTime(until), held->join(QStringLiteral(", "))));
    QStringList kept;
    for (const QString &id : endpoints) {
        if (!held->contains(id))
            kept.append(id);
    }
    if (!kept.isEmpty())
        printOut(Text::tr("left as they are (paused until resumed, or held until later): %1\n")
                     .arg(kept.join(QStringLiteral(", "))));
    return ExitOk;
}

int setPaused(const QString &command, Store &store, const QStringList &endpoints, bool paused,
              AuditRecord &audit)
{
    audit.target = audited(endpoints, std::nullopt);
    const std::optional<QList<EndpointHold>> holds = store.endpointHolds();
    if (!holds)
        return runtimeError(command, store.lastError());
    QSet<QString> held;
    for (const EndpointHold &h : *holds)
        held.insert(h.endpointId);
    QStringList changed;
    QStringList unchanged;
    for (const QString &id : endpoints) {
        // True for a hold as well: a pause until resumed replaces a hold, and a resume
        // lifts either.
        const std::optional<bool> stopped = store.isEndpointPaused(id);
        if (!stopped)
            return runtimeError(command, store.lastError());
        const bool already = paused ? *stopped && !held.contains(id) : !*stopped;
        if (already) {
            unchanged.append(id);
            continue;
        }
        if (!store.setEndpointPaused(id, paused, audit.atMs, &audit))
            return runtimeError(command, store.lastError());
        changed.append(id);
    }
    if (changed.isEmpty() && !store.recordOperatorAction(&audit))
        return runtimeError(command, store.lastError());
    if (!changed.isEmpty())
        printOut((paused ? Text::tr("paused until resumed: %1\n") : Text::tr("resumed: %1\n"))
                     .arg(changed.join(QStringLiteral(", "))));
    if (!unchanged.isEmpty())
        printOut((paused ? Text::tr("already paused: %1\n") : Text::tr("not paused: %1\n"))
                     .arg(unchanged.join(QStringLiteral(", "))));
    return ExitOk;
}

int run(Verb verb, const QStringList &arguments)
{
    const QString command =
        verb == Verb::Pause ? QStringLiteral("pause") : QStringLiteral("resume");
    QCommandLineParser parser;
    parser.setApplicationDescription(
        verb == Verb::Pause
            ? Text::tr("Pauses endpoints: their waiting work is not sent and their periodic "
                       "checks are skipped until they are resumed, or for --for.")
            : Text::tr("Resumes paused or held endpoints: their waiting work is sent again."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("ENDPOINT"),
                                 Text::tr("Endpoint ids (or use --host)."),
                                 QStringLiteral("[ENDPOINT...]"));
    const PauseOptions o;
    parser.addOptions({o.db, o.host, o.config, o.as});
    if (verb == Verb::Pause)
        parser.addOptions({o.forSpan, o.reason});
    if (const auto problem = parseStrict(parser, command, arguments, 1000))
        return usageError(command, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, command));
        return ExitOk;
    }
    if (parser.positionalArguments().isEmpty() && !parser.isSet(o.host))
        return usageError(command, Text::tr("expected ENDPOINT ids or --host H"));
    std::optional<qint64> forMs;
    if (verb == Verb::Pause && parser.isSet(o.forSpan)) {
        forMs = parseDurationMs(parser.value(o.forSpan));
        if (!forMs)
            return usageError(command, Text::tr("--for: expected a span such as 90m, 2h or "
                                                "1d12h, got '%1'")
                                           .arg(parser.value(o.forSpan)));
    }
    if (verb == Verb::Pause && parser.isSet(o.reason) && !forMs)
        return usageError(command, Text::tr("--reason applies to --for only"));
    AuditRecord audit;
    audit.actor = parser.isSet(o.as) ? parser.value(o.as) : currentUserName();
    if (audit.actor.trimmed().isEmpty())
        return usageError(command, Text::tr("--as: expected a name"));

    int openFailed = ExitOk;
    const std::unique_ptr<Store> store =
        openStoreFor(command, databaseUrl(parser, o.db), Create::Never, &openFailed);
    if (!store)
        return openFailed;
    QString problem;
    const std::optional<QStringList> endpoints = chosenEndpoints(parser, o, *store, &problem);
    if (!endpoints)
        return usageError(command, problem);
    audit.atMs = SystemClock::instance().nowMs();
    audit.action = verb == Verb::Pause ? OperatorAction::Pause : OperatorAction::Resume;
    audit.asked = endpoints->size();
    if (forMs) {
        const QString reason =
            parser.isSet(o.reason)
                ? parser.value(o.reason)
                : QStringLiteral("paused by %1 for %2").arg(audit.actor, durationText(*forMs));
        return hold(command, *store, *endpoints, *forMs, reason, audit);
    }
    return setPaused(command, *store, *endpoints, verb == Verb::Pause, audit);
}

} // namespace

int runPause(const QStringList &arguments)
{
    return run(Verb::Pause, arguments);
}

int runResume(const QStringList &arguments)
{
    return run(Verb::Resume, arguments);
}

} // namespace cooldown::cli
