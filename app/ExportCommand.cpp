#include "app/ExportCommand.h"

#include "app/CommandLine.h"
#include "app/StopOnSignal.h"
#include "core/store/CsvExporter.h"
#include "core/store/Store.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("export");

QString stateNames()
{
    QStringList names;
    for (const OperationState state : allOperationStates())
        names.append(toString(state));
    return names.join(QStringLiteral(", "));
}

} // namespace

int runExport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Writes the attempt history as CSV, one row per attempt."));
    parser.addHelpOption();
    const QCommandLineOption db(
        QStringLiteral("db"),
        Text::tr("SQLite path or postgresql:// URL (default: %1).").arg(defaultDatabaseUrl()),
        QStringLiteral("URL"));
    const QCommandLineOption out(QStringLiteral("out"), Text::tr("The CSV file to write."),
                                 QStringLiteral("F.csv"));
    const QCommandLineOption from(QStringLiteral("from"),
                                  Text::tr("Attempts started at or after T (ISO 8601 or HTTP-date; "
                                           "UTC unless an offset is given)."),
                                  QStringLiteral("T"));
    const QCommandLineOption to(QStringLiteral("to"), Text::tr("Attempts started before T."),
                                QStringLiteral("T"));
    const QCommandLineOption endpoint(QStringLiteral("endpoint"),
                                      Text::tr("Only this endpoint's attempts."),
                                      QStringLiteral("ID"));
    const QCommandLineOption state(
        QStringLiteral("state"),
        Text::tr("Only attempts of operations now in state S (%1).").arg(stateNames()),
        QStringLiteral("S"));
    const QCommandLineOption rollups(
        QStringLiteral("rollups"),
        Text::tr("Writes the per-minute rollups instead, one row per minute and key; "
                 "--from and --to select minutes."));
    parser.addOptions({db, out, from, to, endpoint, state, rollups});
    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    if (!parser.isSet(out) || parser.value(out).isEmpty())
        return usageError(kCommand, Text::tr("--out is required"));

    AttemptFilter filter;
    if (parser.isSet(from)) {
        const auto ms = parseTimeMs(parser.value(from));
        if (!ms)
            return usageError(kCommand,
                              Text::tr("--from: not a time: '%1' (expected ISO 8601 such as "
                                       "2026-11-29T12:00:00Z, or an HTTP-date)")
                                  .arg(parser.value(from)));
        filter.fromMs = *ms;
    }
    if (parser.isSet(to)) {
        const auto ms = parseTimeMs(parser.value(to));
        if (!ms)
            return usageError(kCommand,
                              Text::tr("--to: not a time: '%1' (expected ISO 8601 such as "
                                       "2026-11-29T12:00:00Z, or an HTTP-date)")
                                  .arg(parser.value(to)));
        filter.toMs = *ms;
    }
    if (filter.fromMs >= 0 && filter.toMs >= 0 && filter.toMs <= filter.fromMs)
        return usageError(kCommand, Text::tr("--to must be later than --from"));
    if (parser.isSet(endpoint))
        filter.endpointId = parser.value(endpoint);
    if (parser.isSet(state)) {
        filter.operationState = operationStateFromString(parser.value(state));
        if (!filter.operationState)
            return usageError(kCommand, Text::tr("--state: unknown state '%1' (expected one of %2)")
                                            .arg(parser.value(state), stateNames()));
    }

    if (parser.isSet(rollups) && parser.isSet(state))
        return usageError(kCommand, Text::tr("--state does not apply to --rollups"));

    int openFailed = ExitOk;
    std::unique_ptr<Store> store =
        openStoreFor(kCommand, databaseUrl(parser, db), Create::Never, &openFailed);
    if (!store)
        return openFailed;

    if (parser.isSet(rollups)) {
        bool interrupted = false;
        StopOnSignal stopSignals;
        QString error;
        if (!stopSignals.install([&interrupted](int) { interrupted = true; }, &error))
            return runtimeError(kCommand, error);
        const qint64 rows =
            CsvExporter::writeRollups(store.get(), filter.fromMs, filter.toMs, filter.endpointId,
                                      parser.value(out), &error, [&interrupted] {
                                          QCoreApplication::processEvents();
                                          return interrupted;
                                      });
        if (rows < 0)
            return runtimeError(kCommand, error);
        printOut(Text::tr("exported %1 rollup rows to %2").arg(rows).arg(parser.value(out)) +
                 QLatin1Char('\n'));
        return ExitOk;
    }

    CsvExporter exporter;
    QEventLoop loop;
    int exitCode = ExitRuntimeFailure;
    QString message;
    QObject::connect(&exporter, &CsvExporter::finished, &loop, [&](int code, const QString &text) {
        exitCode = code == CsvExporter::NoError ? ExitOk : ExitRuntimeFailure;
        message = text;
        loop.quit();
    });
    // Interrupted: stop cleanly so that no half-written file is left behind.
    StopOnSignal stopSignals;
    QString error;
    if (!stopSignals.install([&exporter](int) { exporter.cancel(); }, &error))
        return runtimeError(kCommand, error);
    exporter.start(store.get(), filter, parser.value(out));
    loop.exec();
    if (exitCode != ExitOk)
        return runtimeError(kCommand, message);
    printOut(message + QLatin1Char('\n'));
    return ExitOk;
}

} // namespace cooldown::cli
