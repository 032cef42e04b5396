// SPDX-License-Identifier: Apache-2.0
#include "app/OperatorCommands.h"

#include "app/CommandLine.h"
#include "app/StopOnSignal.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/DrainEstimate.h"
#include "core/store/OperationSelection.h"
#include "core/store/OperatorAudit.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QLocale>
#include <QTextStream>

#include <cstdio>
#include <limits>

namespace cooldown::cli {

namespace {

enum class Action
{
    Retry,
    Cancel
};

void printErr(const QString &text)
{
    QTextStream err(stderr);
    err << text;
    err.flush();
}

// 1,234: counts an operator reads at a glance, whatever the language of the words.
QString count(qint64 n)
{
    return QLocale(QLocale::English, QLocale::UnitedStates).toString(n);
}

// "4 min 10 s", "2 h 5 min", "3 d 4 h": two units at most, rounded up to a second.
QString durationText(qint64 ms)
{
    const qint64 s = (ms + 999) / 1000;
    if (s < 1)
        return Text::tr("less than a second");
    if (s < 60)
        return Text::tr("%1 s").arg(s);
    if (s < 3600)
        return s % 60 ? Text::tr("%1 min %2 s").arg(s / 60).arg(s % 60)
                      : Text::tr("%1 min").arg(s / 60);
    if (s < 86400) {
        const qint64 minutes = (s % 3600) / 60;
        return minutes ? Text::tr("%1 h %2 min").arg(s / 3600).arg(minutes)
                       : Text::tr("%1 h").arg(s / 3600);
    }
    const qint64 hours = (s % 86400) / 3600;
    return hours ? Text::tr("%1 d %2 h").arg(s / 86400).arg(hours)
                 : Text::tr("%1 d").arg(s / 86400);
}

QString boundText(const DrainEstimate &estimate)
{
    switch (estimate.bound) {
    case DrainEstimate::Bound::Rate:
        return Text::tr(" (paced by partition %1)").arg(estimate.boundPartition);
    case DrainEstimate::Bound::Hold:
        return Text::tr(" (partition %1 is held by its server first)").arg(estimate.boundPartition);
    case DrainEstimate::Bound::Concurrency:
        return Text::tr(" (limited by the in-flight limit)");
    case DrainEstimate::Bound::None:
        break;
    }
    return {};
}

OperatorAction auditAction(Action action, bool forced)
{
    if (action == Action::Cancel)
        return OperatorAction::Cancel;
    return forced ? OperatorAction::Force : OperatorAction::Retry;
}

int runById(Action action, const QString &command, Store &store, const QString &url,
            const QString &idText, bool forced, const QString &actor)
{
    const auto id = parseInteger(idText, 1, std::numeric_limits<qint64>::max());
    if (!id)
        return usageError(
            command,
            Text::tr("OPERATION_ID: expected a positive whole number, got '%1'").arg(idText));

    const qint64 now = SystemClock::instance().nowMs();
    AuditRecord audit;
    audit.atMs = now;
    audit.actor = actor;
    audit.action = auditAction(action, forced);
    audit.target = idListTarget({*id});
    audit.asked = 1;
    const auto before = store.operation(*id);
    const bool keyExpired = action == Action::Retry && before &&
                            before->finalReason == QLatin1String("idempotency_key_expired");
    const Store::OperatorResult result = action == Action::Retry
                                             ? store.retryNow(*id, now, forced, &audit)
                                             : store.cancel(*id, now, &audit);
    switch (result) {
    case Store::OperatorResult::Done: {
        const auto op = store.operation(*id);
        printOut(Text::tr("operation %1 (%2): %3%4\n")
                     .arg(*id)
                     .arg(op ? op->endpointId : QString(), op ? toString(op->state) : QString(),
                          forced                    ? Text::tr(", due now, forced")
                          : action == Action::Retry ? Text::tr(", due now")
                                                    : QString()));
        if (keyExpired)
            printOut(Text::tr("operation %1 is sent with the same idempotency key, which the "
                              "server may have forgotten: it may run the request again\n")
                         .arg(*id));
        return ExitOk;
    }
    case Store::OperatorResult::Pending:
        printOut(Text::tr("operation %1: an attempt is running; it becomes cancelled when that "
                          "attempt ends\n")
                     .arg(*id));
        return ExitOk;
    case Store::OperatorResult::NotFound:
        return usageError(command,
                          Text::tr("no operation %1 in %2").arg(*id).arg(Store::displayUrl(url)));
    case Store::OperatorResult::Refused:
        return usageError(command, store.lastError());
    case Store::OperatorResult::Failed:
        break;
    }
    return runtimeError(command, store.lastError());
}

int runByFilter(Action action, const QString &command, Store &store,
                const OperationSelection &selection, bool forced, bool dryRun, int maxInFlight,
                const QString &actor)
{
    const qint64 now = SystemClock::instance().nowMs();
    const OperatorAction what = auditAction(action, forced);
    const qint64 matched = store.countMatching(selection);
    QString error;
    const auto input = matched >= 0
                           ? readDrainInput(store, selection, what, now, maxInFlight, &error)
                           : std::nullopt;
    if (!input)
        return runtimeError(command, matched < 0 ? store.lastError() : error);
    const DrainEstimate estimate = estimateDrain(*input);
    qint64 actionable = 0;
    for (const SelectionGroup &g : input->groups)
        actionable += g.operations;

    // The count and the estimate come first, so that a dry run and the real one start
    // with the same lines.
    QString head = matched == actionable
                       ? Text::tr("%1 operations match").arg(count(matched))
                       : (action == Action::Retry
                              ? Text::tr("%1 operations match, %2 of which can be retried")
                              : Text::tr("%1 operations match, %2 of which can be cancelled"))
                             .arg(count(matched), count(actionable));
    if (estimate.operations > 0) {
        head += action == Action::Retry
                    ? Text::tr("; at the current limits they drain in about %1%2")
                          .arg(durationText(estimate.drainMs), boundText(estimate))
                    : Text::tr("; left alone, at the current limits they would drain in about "
                               "%1%2")
                          .arg(durationText(estimate.drainMs), boundText(estimate));
    }
    printOut(head + QLatin1Char('\n'));
    if (estimate.pausedOperations > 0)
        printOut(Text::tr("%1 of them belong to paused endpoints (%2) and are not sent until "
                          "those are resumed\n")
                     .arg(count(estimate.pausedOperations),
                          estimate.pausedEndpoints.join(QStringLiteral(", "))));
    if (action == Action::Retry &&
        (selection.reasons.isEmpty() ||
         selection.reasons.contains(QStringLiteral("idempotency_key_expired")))) {
        OperationSelection expired = selection;
        expired.reasons = {QStringLiteral("idempotency_key_expired")};
        const qint64 n = store.countMatching(expired);
        if (n > 0)
            printOut(Text::tr("%1 of them are parked because their idempotency key has expired: "
                              "they are sent with the same key, which the server may have "
                              "forgotten, and may run again\n")
                         .arg(count(n)));
    }
    if (dryRun) {
        printOut(Text::tr("dry run: nothing was changed\n"));
        return ExitOk;
    }

    AuditRecord audit;
    audit.atMs = now;
    audit.actor = actor;
    audit.action = what;
    audit.target = selection.toText();
    bool interrupted = false;
    StopOnSignal stopSignals;
    if (!stopSignals.install([&interrupted](int) { interrupted = true; }, &error))
        return runtimeError(command, error);
    BulkOptions options;
    options.progress = [&](const BulkProgress &p) {
        printErr(Text::tr("%1: %2 of %3 looked at, %4 changed\n")
                     .arg(command, count(p.done), count(p.matched), count(p.changed)));
        QCoreApplication::processEvents();
        return !interrupted;
    };
    const BulkOutcome outcome = store.applyToMatching(selection, what, now, &audit, options);
    const BulkProgress &p = outcome.progress;
    if (outcome.result == BulkOutcome::Result::Failed)
        return runtimeError(command, Text::tr("%1 (%2 operations were changed before)")
                                         .arg(store.lastError(), count(p.changed)));
    if (outcome.result == BulkOutcome::Result::Stopped)
        return runtimeError(command, Text::tr("interrupted after %1 of %2 operations; %3 were "
                                              "changed")
                                         .arg(count(p.done), count(p.matched), count(p.changed)));
    const qint64 unchanged = p.matched - p.changed;
    if (action == Action::Retry)
        printOut((forced ? Text::tr("%1 operations are due now, forced")
                         : Text::tr("%1 operations are due now"))
                     .arg(count(p.changed)) +
                 (unchanged > 0 ? Text::tr("; %1 were left as they are (running, ended, or no "
                                           "longer matching)")
                                      .arg(count(unchanged))
                                : QString()) +
                 QLatin1Char('\n'));
    else
        printOut(Text::tr("%1 operations cancelled").arg(count(p.changed - p.pending)) +
                 (p.pending > 0 ? Text::tr("; %1 have an attempt running and become cancelled "
                                           "when it ends")
                                      .arg(count(p.pending))
                                : QString()) +
                 (unchanged > 0 ? Text::tr("; %1 were left as they are (ended, or no longer "
                                           "matching)")
                                      .arg(count(unchanged))
                                : QString()) +
                 QLatin1Char('\n'));
    return ExitOk;
}

int runOperatorAction(Action action, const QStringList &arguments)
{
    const QString command =
        action == Action::Retry ? QStringLiteral("retry") : QStringLiteral("cancel");
    QCommandLineParser parser;
    parser.setApplicationDescription(
        action == Action::Retry
            ? Text::tr("Makes an operation due now (it still takes a token from its partition's "
                       "bucket unless --force), or every operation a --filter selects.")
            : Text::tr("Cancels an operation that has not ended, or every operation a --filter "
                       "selects."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("OPERATION_ID"),
                                 Text::tr("The operation (or use --filter)."));
    const QCommandLineOption db(QStringLiteral("db"), Text::tr("SQLite path or postgresql:// URL."),
                                QStringLiteral("URL"));
    const QCommandLineOption force(
        QStringLiteral("force"),
        Text::tr("Bypass the partition's token bucket (recorded as forced)."));
    const QCommandLineOption filter(
        QStringLiteral("filter"),
        Text::tr("The operations to act on, such as \"endpoint=upload state=waiting,parked "
                 "status=429 since=2h\" (keys: endpoint, state, partition, status, reason, "
                 "since, until; see docs/bulk-actions.md)."),
        QStringLiteral("EXPR"));
    const QCommandLineOption dryRun(
        QStringLiteral("dry-run"),
        Text::tr("With --filter: print the count and the drain estimate, change nothing."));
    const QCommandLineOption as(
        QStringLiteral("as"),
        Text::tr("The operator the audit table names (default: the user running this)."),
        QStringLiteral("NAME"));
    const QCommandLineOption config(
        QStringLiteral("config"),
        Text::tr("The workspace whose in-flight limit the drain estimate uses (default: 8)."),
        QStringLiteral("F"));
    parser.addOption(db);
    if (action == Action::Retry)
        parser.addOption(force);
    parser.addOptions({filter, dryRun, as, config});
    if (const auto problem = parseStrict(parser, command, arguments, 1))
        return usageError(command, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, command));
        return ExitOk;
    }
    const bool byFilter = parser.isSet(filter);
    if (byFilter && !parser.positionalArguments().isEmpty())
        return usageError(command, Text::tr("give an OPERATION_ID or --filter, not both"));
    if (!byFilter && parser.positionalArguments().isEmpty())
        return usageError(command, Text::tr("expected an OPERATION_ID or --filter EXPR"));
    if (!byFilter && (parser.isSet(dryRun) || parser.isSet(config)))
        return usageError(command, Text::tr("--%1 applies to --filter only")
                                       .arg(parser.isSet(dryRun) ? QStringLiteral("dry-run")
                                                                 : QStringLiteral("config")));
    const QString actor = parser.isSet(as) ? parser.value(as) : currentUserName();
    if (actor.trimmed().isEmpty())
        return usageError(command, Text::tr("--as: expected a name"));

    std::optional<OperationSelection> selection;
    int maxInFlight = ConcurrencyConfig().maxInFlight;
    if (byFilter) {
        QString problem;
        selection = OperationSelection::parse(parser.value(filter), SystemClock::instance().nowMs(),
                                              &problem);
        if (!selection)
            return usageError(command, Text::tr("--filter: %1").arg(problem));
        if (selection->isEmpty())
            return usageError(command, Text::tr("--filter: name at least one term (an empty "
                                                "filter would select every operation)"));
        if (parser.isSet(config)) {
            const auto workspace = WorkspaceConfig::load(parser.value(config), &problem,
                                                         WorkspaceConfig::demoVariables());
            if (!workspace)
                return usageError(command, problem);
            maxInFlight = workspace->concurrency.maxInFlight;
        }
    }

    const QString url = databaseUrl(parser, db);
    int openFailed = ExitOk;
    const std::unique_ptr<Store> store = openStoreFor(command, url, Create::Never, &openFailed);
    if (!store)
        return openFailed;
    const bool forced = action == Action::Retry && parser.isSet(force);
    if (byFilter)
        return runByFilter(action, command, *store, *selection, forced, parser.isSet(dryRun),
                           maxInFlight, actor);
    return runById(action, command, *store, url, parser.positionalArguments().constFirst(), forced,
                   actor);
}

} // namespace

int runRetry(const QStringList &arguments)
{
    return runOperatorAction(Action::Retry, arguments);
}

int runCancel(const QStringList &arguments)
{
    return runOperatorAction(Action::Cancel, arguments);
}

} // namespace cooldown::cli
