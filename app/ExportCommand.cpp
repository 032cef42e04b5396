// SPDX-License-Identifier: Apache-2.0
#include "app/ExportCommand.h"

#include "app/CommandLine.h"
#include "app/StopOnSignal.h"
#include "core/config/WorkspaceConfig.h"
#include "core/store/CsvExporter.h"
#include "core/store/RetentionPruner.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QSaveFile>

#include <cstdio>

#include <algorithm>

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

// `export --audit`: the audit table, small enough to read whole.
int exportAudit(const QString &url, qint64 fromMs, qint64 toMs, const QString &fileName)
{
    int openFailed = ExitOk;
    std::unique_ptr<Store> store = openStoreFor(kCommand, url, Create::Never, &openFailed);
    if (!store)
        return openFailed;
    const auto rows = store->operatorActions(fromMs, toMs);
    if (!rows)
        return runtimeError(kCommand, store->lastError());
    const QByteArray csv = CsvExporter::auditCsv(*rows);
    if (fileName.isEmpty()) {
        QFile standardOutput;
        if (!standardOutput.open(stdout, QIODevice::WriteOnly) ||
            standardOutput.write(csv) != csv.size())
            return runtimeError(kCommand, Text::tr("cannot write to standard output"));
        return ExitOk;
    }
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() || !file.commit())
        return runtimeError(kCommand,
                            Text::tr("cannot write '%1': %2").arg(fileName, file.errorString()));
    printOut(Text::tr("exported %1 audit rows to %2").arg(rows->size()).arg(fileName) +
             QLatin1Char('\n'));
    return ExitOk;
}

// --from or --to as a time; nullopt with the usage error printed in *exit.
std::optional<qint64> timeOption(const QCommandLineParser &parser, const QCommandLineOption &option,
                                 int *exit)
{
    const auto ms = parseTimeMs(parser.value(option));
    if (!ms)
        *exit = usageError(kCommand, Text::tr("--%1: not a time: '%2' (expected ISO 8601 such as "
                                              "2026-11-29T12:00:00Z, or an HTTP-date)")
                                         .arg(option.names().constFirst(), parser.value(option)));
    return ms;
}

// The cut a retention pass would make now (RetentionPeriods, as the pruner takes it),
// applied to *filter; what it is, in a sentence. A period that keeps everything
// leaves the file with its header alone.
QString selectPrunable(const RetentionConfig &retention, bool ofRollups, const QString &configPath,
                       AttemptFilter *filter)
{
    const RetentionPeriods periods =
        RetentionPeriods::fromDays(retention.rawDays, retention.rollupDays);
    const qint64 nowMs = SystemClock::instance().nowMs();
    const qint64 cutoff = ofRollups ? periods.rollupCutoffMs(nowMs) : periods.rawCutoffMs(nowMs);
    if (ofRollups)
        filter->toMs = std::max<qint64>(0, cutoff); // the minutes before it; [0, 0): none
    else if (cutoff >= 0)
        filter->prunableBeforeMs = cutoff;
    else
        filter->limit = 0; // nothing
    if (cutoff < 0)
        return Text::tr("%1 is 0 in %2: retention keeps everything and prunes nothing")
            .arg(ofRollups ? QStringLiteral("retention.rollup_days")
                           : QStringLiteral("retention.raw_days"),
                 configPath);
    if (ofRollups)
        return Text::tr("as of now, retention prunes the rollups of the minutes before "
                        "%1 (retention.rollup_days: %2)")
            .arg(isoTime(cutoff))
            .arg(retention.rollupDays);
    return Text::tr("as of now, retention prunes the attempts that started before "
                    "%1 (retention.raw_days: %2) whose operation has ended")
        .arg(isoTime(cutoff))
        .arg(retention.rawDays);
}

// Whatever was written, and then the note on what retention prunes, if any.
int done(const QString &written, const QString &prunedNote)
{
    printOut(written + QLatin1Char('\n'));
    if (!prunedNote.isEmpty())
        printOut(prunedNote + QLatin1Char('\n'));
    return ExitOk;
}

int writeRollups(Store *store, const AttemptFilter &filter, const QString &fileName,
                 const QString &prunedNote)
{
    bool interrupted = false;
    StopOnSignal stopSignals;
    QString error;
    if (!stopSignals.install([&interrupted](int) { interrupted = true; }, &error))
        return runtimeError(kCommand, error);
    const qint64 rows = CsvExporter::writeRollups(
        store, filter.fromMs, filter.toMs, filter.endpointId, fileName, &error, [&interrupted] {
            QCoreApplication::processEvents();
            return interrupted;
        });
    if (rows < 0)
        return runtimeError(kCommand, error);
    return done(Text::tr("exported %1 rollup rows to %2").arg(rows).arg(fileName), prunedNote);
}

int writeAttempts(Store *store, const AttemptFilter &filter, const QString &fileName,
                  const QString &prunedNote)
{
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
    exporter.start(store, filter, fileName);
    loop.exec();
    if (exitCode != ExitOk)
        return runtimeError(kCommand, message);
    return done(message, prunedNote);
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
    const QCommandLineOption prunable(
        QStringLiteral("prunable"),
        Text::tr("Writes only what retention prunes now: the attempts that started more than "
                 "the workspace's retention.raw_days ago and whose operation has ended; with "
                 "--rollups, the minutes older than retention.rollup_days. Needs --config."));
    const QCommandLineOption config(
        QStringLiteral("config"),
        Text::tr("The workspace config file whose retention --prunable follows."),
        QStringLiteral("F"));
    const QCommandLineOption audit(
        QStringLiteral("audit"),
        Text::tr("Writes the operator audit table instead, one row per operator action (who, "
                 "when, what, on which filter or ids, how many); --from and --to select by "
                 "time; without --out the CSV goes to standard output."));
    parser.addOptions({db, out, from, to, endpoint, state, rollups, prunable, config, audit});
    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    if (parser.isSet(audit)) {
        for (const QCommandLineOption *option : {&endpoint, &state, &rollups, &prunable, &config}) {
            if (parser.isSet(*option))
                return usageError(
                    kCommand,
                    Text::tr("--%1 does not apply to --audit").arg(option->names().constFirst()));
        }
        if (parser.isSet(out) && parser.value(out).isEmpty())
            return usageError(kCommand, Text::tr("--out: expected a file name"));
    } else if (!parser.isSet(out) || parser.value(out).isEmpty()) {
        return usageError(kCommand, Text::tr("--out is required"));
    }
    if (parser.isSet(prunable)) {
        if (!parser.isSet(config) || parser.value(config).isEmpty())
            return usageError(kCommand, Text::tr("--prunable needs --config F: the workspace's "
                                                 "retention says what is pruned"));
        // The file is what the pruner deletes, no more and no less: a narrower one would
        // read as a record of the pass and miss rows.
        for (const QCommandLineOption *option : {&from, &to, &endpoint, &state}) {
            if (parser.isSet(*option))
                return usageError(kCommand,
                                  Text::tr("--%1 does not apply to --prunable, which writes "
                                           "exactly what retention prunes")
                                      .arg(option->names().constFirst()));
        }
    } else if (parser.isSet(config)) {
        return usageError(kCommand, Text::tr("--config is used only with --prunable"));
    }

    AttemptFilter filter;
    int badTime = ExitOk;
    if (parser.isSet(from)) {
        const auto ms = timeOption(parser, from, &badTime);
        if (!ms)
            return badTime;
        filter.fromMs = *ms;
    }
    if (parser.isSet(to)) {
        const auto ms = timeOption(parser, to, &badTime);
        if (!ms)
            return badTime;
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

    if (parser.isSet(audit))
        return exportAudit(databaseUrl(parser, db), filter.fromMs, filter.toMs,
                           parser.isSet(out) ? parser.value(out) : QString());

    if (parser.isSet(rollups) && parser.isSet(state))
        return usageError(kCommand, Text::tr("--state does not apply to --rollups"));

    // --prunable reads the retention the way `cooldown run` does: from the workspace,
    // checked whole (a bad file is refused, naming it and the JSON path).
    RetentionConfig retention;
    if (parser.isSet(prunable)) {
        QString error;
        const auto workspace =
            WorkspaceConfig::load(parser.value(config), &error, WorkspaceConfig::demoVariables());
        if (!workspace)
            return usageError(kCommand, error);
        retention = workspace->retention;
    }

    int openFailed = ExitOk;
    std::unique_ptr<Store> store =
        openStoreFor(kCommand, databaseUrl(parser, db), Create::Never, &openFailed);
    if (!store)
        return openFailed;

    QString prunedNote;
    if (parser.isSet(prunable))
        prunedNote =
            selectPrunable(retention, parser.isSet(rollups), parser.value(config), &filter);
    if (parser.isSet(rollups))
        return writeRollups(store.get(), filter, parser.value(out), prunedNote);
    return writeAttempts(store.get(), filter, parser.value(out), prunedNote);
}

} // namespace cooldown::cli
