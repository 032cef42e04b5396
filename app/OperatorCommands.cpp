#include "app/OperatorCommands.h"

#include "app/CommandLine.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

namespace cooldown::cli {

namespace {

enum class Action { Retry, Cancel };

int runOperatorAction(Action action, const QStringList &arguments)
{
    const QString command = action == Action::Retry ? QStringLiteral("retry") : QStringLiteral("cancel");
    QCommandLineParser parser;
    parser.setApplicationDescription(
        action == Action::Retry ? Text::tr("Makes an operation due now (it still takes a token "
                                           "from its partition's bucket unless --force).")
                                : Text::tr("Cancels an operation that has not ended."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("OPERATION_ID"), Text::tr("The operation."));
    const QCommandLineOption db(QStringLiteral("db"), Text::tr("SQLite path or postgresql:// URL."),
                                QStringLiteral("URL"));
    const QCommandLineOption force(
        QStringLiteral("force"),
        Text::tr("Bypass the partition's token bucket (recorded as forced)."));
    parser.addOption(db);
    if (action == Action::Retry)
        parser.addOption(force);
    if (const auto problem = parseStrict(parser, command, arguments, 1))
        return usageError(command, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, command));
        return ExitOk;
    }
    if (parser.positionalArguments().isEmpty())
        return usageError(command, Text::tr("expected an OPERATION_ID"));
    const auto id = parseInteger(parser.positionalArguments().constFirst(), 1,
                                 std::numeric_limits<qint64>::max());
    if (!id)
        return usageError(command,
                          Text::tr("OPERATION_ID: expected a positive whole number, got '%1'")
                              .arg(parser.positionalArguments().constFirst()));

    const QString url = databaseUrl(parser, db);
    int openFailed = ExitOk;
    const std::unique_ptr<Store> store = openStoreFor(command, url, Create::Never, &openFailed);
    if (!store)
        return openFailed;

    const qint64 now = SystemClock::instance().nowMs();
    const bool forced = action == Action::Retry && parser.isSet(force);
    const auto before = store->operation(*id);
    const bool keyExpired = action == Action::Retry && before &&
                            before->finalReason == QLatin1String("idempotency_key_expired");
    const Store::OperatorResult result = action == Action::Retry ? store->retryNow(*id, now, forced)
                                                                  : store->cancel(*id, now);
    switch (result) {
    case Store::OperatorResult::Done: {
        const auto op = store->operation(*id);
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
        return usageError(command, store->lastError());
    case Store::OperatorResult::Failed:
        break;
    }
    return runtimeError(command, store->lastError());
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
