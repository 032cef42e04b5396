// SPDX-License-Identifier: Apache-2.0
#include "app/EnqueueCommand.h"

#include "app/CommandLine.h"
#include "core/config/JobRequest.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Intake.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QStringDecoder>
#include <QTextStream>

#include <cstdio>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("enqueue");

// A job's body is stored as text with its operation: a file that is not UTF-8, or
// larger than this, is refused rather than mangled.
constexpr qint64 kMaxBodyBytes = 4 * 1024 * 1024;
constexpr qint64 kMaxLineBytes = kMaxBodyBytes + 64 * 1024;

std::optional<QByteArray> readBody(const QString &path, QString *problem)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = Text::tr("--body-file: cannot read %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray body = file.read(kMaxBodyBytes + 1);
    if (body.size() > kMaxBodyBytes) {
        *problem =
            Text::tr("--body-file: %1 is larger than %2 MiB").arg(path).arg(kMaxBodyBytes >> 20);
        return std::nullopt;
    }
    QStringDecoder utf8(QStringDecoder::Utf8);
    const QString decoded = utf8.decode(body);
    if (utf8.hasError() || body.contains('\0')) {
        *problem = Text::tr("--body-file: %1 is not UTF-8 text").arg(path);
        return std::nullopt;
    }
    return body;
}

} // namespace

std::optional<JobLines> readJobLines(const QString &name, bool skipInvalid, QString *problem)
{
    QFile file;
    const bool stdinput = name == QLatin1String("-");
    const bool opened = stdinput ? file.open(stdin, QIODevice::ReadOnly)
                                 : (file.setFileName(name), file.open(QIODevice::ReadOnly));
    if (!opened) {
        *problem = Text::tr("--jsonl: cannot read %1: %2").arg(name, file.errorString());
        return std::nullopt;
    }
    const QString shown = stdinput ? QStringLiteral("stdin") : name;
    JobLines out;
    int number = 0;
    // One buffer for every line: QIODevice::readLine(maxSize) would allocate the
    // largest allowed line for each of them.
    QByteArray buffer(kMaxLineBytes + 1, Qt::Uninitialized);
    const auto readLine = [&file, &buffer] {
        const qint64 n = file.readLine(buffer.data(), buffer.size());
        return QByteArray::fromRawData(buffer.constData(), std::max<qint64>(0, n));
    };
    while (!file.atEnd()) {
        const QByteArray line = readLine();
        ++number;
        const QString where = Text::tr("%1 line %2").arg(shown).arg(number);
        QString why;
        if (!line.endsWith('\n') && !file.atEnd()) {
            why = Text::tr("longer than %1 MiB").arg(kMaxLineBytes >> 20);
            // The rest of an overlong line is not a line of its own.
            while (!file.atEnd() && !readLine().endsWith('\n')) {
            }
        }
        if (why.isEmpty() && line.trimmed().isEmpty())
            continue;
        std::optional<JobRequest> job;
        if (why.isEmpty()) {
            QJsonParseError parseError;
            const QJsonDocument doc = QJsonDocument::fromJson(line, &parseError);
            if (parseError.error != QJsonParseError::NoError)
                why = Text::tr("column %1: %2")
                          .arg(parseError.offset + 1)
                          .arg(parseError.errorString());
            else if (!doc.isObject())
                why = Text::tr("$: expected a JSON object");
            else
                job = JobRequest::fromJson(doc.object(), QStringLiteral("$"), &why);
        }
        if (!job) {
            const QString text = QStringLiteral("%1: %2").arg(where, why);
            if (!skipInvalid) {
                *problem = text;
                return std::nullopt;
            }
            out.skipped.append(text);
            continue;
        }
        out.jobs.append(*job);
        out.paths.append(QStringLiteral("%1: $").arg(where));
    }
    return out;
}

int runEnqueue(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Hands jobs to endpoints of a workspace: each is durable, with its "
                 "idempotency key, before anything is sent, and a worker (cooldown run or "
                 "the window) sends it. Prints one operation id per job."));
    parser.addHelpOption();
    const QCommandLineOption config(QStringLiteral("config"), Text::tr("Workspace config file."),
                                    QStringLiteral("F"));
    const QCommandLineOption db(
        QStringLiteral("db"),
        Text::tr("SQLite path or postgresql:// URL (default: %1).").arg(defaultDatabaseUrl()),
        QStringLiteral("URL"));
    const QCommandLineOption endpoint(QStringLiteral("endpoint"),
                                      Text::tr("The endpoint that runs the job."),
                                      QStringLiteral("ID"));
    const QCommandLineOption var(QStringLiteral("var"),
                                 Text::tr("A value for the endpoint's ${job:NAME}; repeatable."),
                                 QStringLiteral("NAME=VALUE"));
    const QCommandLineOption bodyFile(QStringLiteral("body-file"),
                                      Text::tr("Send this file (UTF-8) as the body instead of "
                                               "the endpoint's."),
                                      QStringLiteral("F"));
    const QCommandLineOption partitionKey(
        QStringLiteral("partition-key"),
        Text::tr("The partition of the endpoint's policy the job is paced in."),
        QStringLiteral("K"));
    const QCommandLineOption idempotencyKey(
        QStringLiteral("idempotency-key"),
        Text::tr("The job's key (default: a new one). The same key with the same request "
                 "finds the same job; with another request it is refused."),
        QStringLiteral("K"));
    const QCommandLineOption notBefore(
        QStringLiteral("not-before"),
        Text::tr("Send no earlier than this time (ISO 8601, UTC unless an offset is given)."),
        QStringLiteral("T"));
    const QCommandLineOption jsonl(
        QStringLiteral("jsonl"),
        Text::tr("Read jobs from a JSON Lines file ('-': standard input), one object per "
                 "line with endpoint, vars, body, partition_key, idempotency_key, "
                 "not_before."),
        QStringLiteral("FILE"));
    const QCommandLineOption skipInvalid(
        QStringLiteral("skip-invalid"),
        Text::tr("Write the valid jobs of a batch and report the others (default: a batch "
                 "with a bad job writes nothing)."));
    const QCommandLineOption demoUrlOpt = demoUrlOption();
    parser.addOptions({config, db, endpoint, var, bodyFile, partitionKey, idempotencyKey, notBefore,
                       jsonl, skipInvalid, demoUrlOpt});
    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    if (!parser.isSet(config))
        return usageError(kCommand, Text::tr("--config is required"));
    const bool batch = parser.isSet(jsonl);
    if (batch == parser.isSet(endpoint))
        return usageError(kCommand, Text::tr("give --endpoint for one job or --jsonl for a "
                                             "batch"));
    if (batch) {
        for (const QCommandLineOption *single :
             {&var, &bodyFile, &partitionKey, &idempotencyKey, &notBefore}) {
            if (parser.isSet(*single))
                return usageError(kCommand,
                                  Text::tr("--%1 is for one job; a batch's lines carry their "
                                           "own fields")
                                      .arg(single->names().constFirst()));
        }
    }
    QString demoProblem;
    const std::optional<QUrl> demo = demoUrl(parser, demoUrlOpt, &demoProblem);
    if (!demo)
        return usageError(kCommand, demoProblem);

    QString error;
    const auto workspace =
        WorkspaceConfig::load(parser.value(config), &error, WorkspaceConfig::demoVariables(*demo));
    if (!workspace)
        return usageError(kCommand, error);

    QList<JobRequest> jobs;
    QStringList paths;
    QStringList skipped;
    if (batch) {
        QString problem;
        const auto lines = readJobLines(parser.value(jsonl), parser.isSet(skipInvalid), &problem);
        if (!lines)
            return usageError(kCommand, Text::tr("nothing written: %1").arg(problem));
        jobs = lines->jobs;
        paths = lines->paths;
        skipped = lines->skipped;
    } else {
        JobRequest job;
        job.endpointId = parser.value(endpoint);
        for (const QString &pair : parser.values(var)) {
            const qsizetype eq = pair.indexOf(QLatin1Char('='));
            if (eq <= 0)
                return usageError(kCommand,
                                  Text::tr("--var: expected NAME=VALUE, got '%1'").arg(pair));
            const QString name = pair.left(eq);
            if (job.values.contains(name))
                return usageError(kCommand, Text::tr("--var: %1 given twice").arg(name));
            job.values.insert(name, pair.mid(eq + 1));
        }
        if (parser.isSet(bodyFile)) {
            QString problem;
            const auto body = readBody(parser.value(bodyFile), &problem);
            if (!body)
                return usageError(kCommand, problem);
            job.body = *body;
        }
        job.partitionKey = parser.value(partitionKey);
        job.idempotencyKey = parser.value(idempotencyKey);
        if (parser.isSet(notBefore)) {
            const auto at = parseTimeMs(parser.value(notBefore));
            if (!at)
                return usageError(kCommand,
                                  Text::tr("--not-before: expected an ISO 8601 time, got '%1'")
                                      .arg(parser.value(notBefore)));
            job.notBeforeMs = *at;
        }
        jobs.append(job);
        paths.append(QStringLiteral("$"));
    }

    int openFailed = ExitOk;
    const std::unique_ptr<Store> store =
        openStoreFor(kCommand, databaseUrl(parser, db), Create::IfMissing, &openFailed);
    if (!store)
        return openFailed;
    const IntakeReport report =
        enqueueJobs(*store, *workspace, jobs, paths, SystemClock::instance().nowMs(),
                    SystemRandom::instance(), parser.isSet(skipInvalid));
    if (!report.databaseError.isEmpty())
        return runtimeError(kCommand, Text::tr("nothing written: %1").arg(report.databaseError));

    QTextStream err(stderr);
    if (!parser.isSet(skipInvalid) && !report.refusals.isEmpty()) {
        for (const auto &refusal : report.refusals)
            err << QStringLiteral("cooldown enqueue: %1\n").arg(refusal.second);
        err << Text::tr("cooldown enqueue: nothing written (%n job(s) refused)\n", nullptr,
                        int(report.refusals.size()));
        return ExitUsage;
    }
    QString out;
    int existing = 0;
    for (qsizetype i = 0; i < jobs.size(); ++i) {
        if (report.operationIds.at(i) <= 0)
            continue;
        out += QString::number(report.operationIds.at(i)) + QLatin1Char('\n');
        existing += report.existed.at(i) ? 1 : 0;
    }
    printOut(out);
    for (const QString &line : std::as_const(skipped))
        err << QStringLiteral("cooldown enqueue: skipped %1\n").arg(line);
    for (const auto &refusal : report.refusals)
        err << QStringLiteral("cooldown enqueue: skipped %1\n").arg(refusal.second);
    if (batch || existing > 0 || !skipped.isEmpty() || !report.refusals.isEmpty())
        err << Text::tr("cooldown enqueue: %1 new, %2 already there, %3 skipped\n")
                   .arg(report.created())
                   .arg(existing)
                   .arg(skipped.size() + report.refusals.size());
    err.flush();
    return skipped.isEmpty() && report.refusals.isEmpty() ? ExitOk : ExitUsage;
}

} // namespace cooldown::cli
