// SPDX-License-Identifier: Apache-2.0
#include "app/ImportCommand.h"

#include "app/CommandLine.h"
#include "core/config/WorkspaceDocument.h"
#include "core/import/ApiDocument.h"
#include "core/import/CurlScript.h"
#include "core/import/ImportPreview.h"
#include "core/import/OpenApiImport.h"
#include "core/import/PostmanImport.h"
#include "core/import/SourceFetch.h"

#include <QCommandLineParser>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QUrl>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("import");

struct ImportOptions
{
    QCommandLineOption config{QStringLiteral("config"),
                              Text::tr("The workspace file to add the endpoints to (made when it "
                                       "does not exist)."),
                              QStringLiteral("F")};
    QCommandLineOption file{QStringLiteral("file"),
                            Text::tr("Read the curl commands from this file: one per line, or a "
                                     "shell script of them."),
                            QStringLiteral("F")};
    QCommandLineOption dryRun{QStringLiteral("dry-run"),
                              Text::tr("Print what would change; write nothing.")};
    QCommandLineOption id{QStringLiteral("id"),
                          Text::tr("The endpoint's id (one command only; default: made from the "
                                   "method and the path)."),
                          QStringLiteral("ID")};
    QCommandLineOption envPrefix{QStringLiteral("env-prefix"),
                                 Text::tr("How the environment variables that stand for secrets "
                                          "begin (default: the endpoint's id)."),
                                 QStringLiteral("P")};
    QCommandLineOption server{QStringLiteral("server"),
                              Text::tr("OpenAPI: which of the document's servers to call, by "
                                       "number from 1, or a URL to call instead (default: the "
                                       "first)."),
                              QStringLiteral("N|URL")};
    QCommandLineOption environment{QStringLiteral("environment"),
                                   Text::tr("Postman: the environment file whose variables the "
                                            "collection uses."),
                                   QStringLiteral("F")};
    QCommandLineOption every{QStringLiteral("every"),
                             Text::tr("Run the endpoints every S seconds (default: GET and HEAD "
                                      "once, others for each job handed in)."),
                             QStringLiteral("S")};
};

// What a source comes to before it meets the workspace: the endpoints, and what the
// source said as a whole (the server picked, what was left out).
struct Source
{
    QList<ImportedEndpoint> endpoints;
    QStringList notes;
};

std::optional<Source> curlSource(const QCommandLineParser &parser, const ImportOptions &o,
                                 QString *problem)
{
    const QStringList positional = parser.positionalArguments();
    if ((positional.size() == 2) == parser.isSet(o.file)) {
        *problem = Text::tr("give the curl command or --file F, one of them");
        return std::nullopt;
    }
    if (parser.isSet(o.every) && !parseInteger(parser.value(o.every), 1, 366 * 24 * 3600)) {
        *problem = Text::tr("--every: expected whole seconds from 1 to a year, got '%1'")
                       .arg(parser.value(o.every));
        return std::nullopt;
    }
    QString source;
    QString baseDir = QDir::currentPath();
    QList<CurlScriptCommand> commands;
    Source out;
    if (parser.isSet(o.file)) {
        source = parser.value(o.file);
        QFile file(source);
        if (!file.open(QIODevice::ReadOnly)) {
            *problem = Text::tr("--file: cannot read %1: %2").arg(source, file.errorString());
            return std::nullopt;
        }
        commands = curlCommandsOf(QString::fromUtf8(file.readAll()), &out.notes);
        for (QString &s : out.notes)
            s.prepend(source + QStringLiteral(": "));
        baseDir = QFileInfo(source).absolutePath();
        if (commands.isEmpty()) {
            *problem = Text::tr("--file: no curl command in %1").arg(source);
            return std::nullopt;
        }
    } else {
        commands.append({positional.at(1), 1});
    }
    if (parser.isSet(o.id) && commands.size() > 1) {
        *problem = Text::tr("--id names one endpoint; %1 has %2 commands")
                       .arg(source)
                       .arg(commands.size());
        return std::nullopt;
    }
    CurlImportOptions options;
    options.id = parser.value(o.id);
    options.envPrefix = parser.value(o.envPrefix);
    options.everySeconds = parser.value(o.every).toInt();
    std::optional<QList<ImportedEndpoint>> endpoints =
        importCurlCommands(commands, options, source, baseDir, problem);
    if (!endpoints)
        return std::nullopt;
    out.endpoints = *endpoints;
    return out;
}

// The document SOURCE names: a file, or a URL on this machine.
std::optional<QJsonValue> readDocument(const QString &source, QString *problem)
{
    QByteArray bytes;
    const QUrl url(source);
    if (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https")) {
        QEventLoop loop;
        QString fetchError;
        auto *fetch = new SourceFetch;
        QObject::connect(fetch, &SourceFetch::finished, &loop,
                         [&](const QByteArray &body, const QString &error) {
                             bytes = body;
                             fetchError = error;
                             loop.quit();
                         });
        fetch->start(url);
        loop.exec();
        if (!fetchError.isEmpty()) {
            *problem = fetchError;
            return std::nullopt;
        }
    } else {
        QFile file(source);
        if (!file.open(QIODevice::ReadOnly)) {
            *problem = Text::tr("cannot read %1: %2").arg(source, file.errorString());
            return std::nullopt;
        }
        bytes = file.readAll();
    }
    return readApiDocument(bytes, source, problem);
}

std::optional<Source> documentSource(const QString &kind, const QCommandLineParser &parser,
                                     const ImportOptions &o, QString *problem)
{
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 2) {
        *problem = Text::tr("give the %1 file (or URL) to import").arg(kind);
        return std::nullopt;
    }
    for (const QCommandLineOption *option : {&o.file, &o.id})
        if (parser.isSet(*option)) {
            *problem = Text::tr("--%1 is for curl commands").arg(option->names().constFirst());
            return std::nullopt;
        }
    if (parser.isSet(o.every) && !parseInteger(parser.value(o.every), 1, 366 * 24 * 3600)) {
        *problem = Text::tr("--every: expected whole seconds from 1 to a year, got '%1'")
                       .arg(parser.value(o.every));
        return std::nullopt;
    }
    const QString source = positional.at(1);
    const std::optional<QJsonValue> document = readDocument(source, problem);
    if (!document)
        return std::nullopt;
    std::optional<ImportedSource> imported;
    QString error;
    if (kind == QLatin1String("openapi")) {
        if (parser.isSet(o.environment)) {
            *problem = Text::tr("--environment is for Postman collections");
            return std::nullopt;
        }
        OpenApiImportOptions options;
        options.envPrefix = parser.value(o.envPrefix);
        options.server = parser.value(o.server);
        options.everySeconds = parser.value(o.every).toInt();
        const QUrl url(source);
        if (url.scheme().startsWith(QLatin1String("http")))
            options.documentUrl = url;
        imported = importOpenApi(*document, options, &error);
    } else {
        if (parser.isSet(o.server)) {
            *problem = Text::tr("--server is for OpenAPI documents");
            return std::nullopt;
        }
        PostmanImportOptions options;
        options.envPrefix = parser.value(o.envPrefix);
        options.everySeconds = parser.value(o.every).toInt();
        if (parser.isSet(o.environment)) {
            options.environmentName = parser.value(o.environment);
            const std::optional<QJsonValue> environment =
                readDocument(options.environmentName, problem);
            if (!environment)
                return std::nullopt;
            options.environment = *environment;
        }
        imported = importPostman(*document, options, &error);
    }
    if (!imported) {
        *problem = QStringLiteral("%1: %2").arg(source, error);
        return std::nullopt;
    }
    return Source{imported->endpoints, imported->notes};
}

} // namespace

int runImport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Adds endpoints to a workspace from curl command lines, an OpenAPI document "
                 "or a Postman collection (docs/import.md). Secrets in them become ${env:NAME} "
                 "references; the names to set are printed."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("curl|openapi|postman"),
                                 Text::tr("What to import from."));
    parser.addPositionalArgument(
        QStringLiteral("SOURCE"),
        Text::tr("The curl command, quoted as one argument (or --file); the OpenAPI document "
                 "(JSON or YAML, a file or a URL on this machine); the Postman collection."),
        QStringLiteral("[SOURCE]"));
    const ImportOptions o;
    parser.addOptions(
        {o.config, o.file, o.dryRun, o.id, o.envPrefix, o.every, o.server, o.environment});
    if (const auto problem = parseStrict(parser, kCommand, arguments, 2))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    const QString kind = parser.positionalArguments().value(0);
    if (kind != QLatin1String("curl") && kind != QLatin1String("openapi") &&
        kind != QLatin1String("postman"))
        return usageError(kCommand,
                          Text::tr("expected what to import from: curl, openapi or postman, got "
                                   "'%1'")
                              .arg(kind));
    if (!parser.isSet(o.config))
        return usageError(kCommand, Text::tr("--config F: the workspace file to add to"));

    QString problem;
    std::optional<Source> source = kind == QLatin1String("curl")
                                       ? curlSource(parser, o, &problem)
                                       : documentSource(kind, parser, o, &problem);
    if (!source)
        return usageError(kCommand, problem);

    const QString path = parser.value(o.config);
    std::optional<WorkspaceDocument> document =
        QFileInfo::exists(path)
            ? WorkspaceDocument::load(path, &problem)
            : WorkspaceDocument(QJsonObject{{QStringLiteral("version"), 1}}, path);
    if (!document)
        return usageError(kCommand, problem);
    const ImportPreview preview = previewImport(*document, source->endpoints, source->notes);
    printOut(preview.text);
    if (!preview.loads)
        return ExitUsage;
    if (parser.isSet(o.dryRun)) {
        printOut(Text::tr("--dry-run: %1 was not changed\n").arg(path));
        return ExitOk;
    }
    if (!preview.document.save(path, &problem, WorkspaceConfig::demoVariables(),
                               preview.environment))
        return runtimeError(kCommand, problem);
    printOut(Text::tr("written: %1\n").arg(path));
    return ExitOk;
}

} // namespace cooldown::cli
