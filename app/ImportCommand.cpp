// SPDX-License-Identifier: Apache-2.0
#include "app/ImportCommand.h"

#include "app/CommandLine.h"
#include "core/config/WorkspaceDocument.h"
#include "core/import/CurlCommand.h"
#include "core/import/EndpointImport.h"
#include "core/import/ShellWords.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>

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
    QCommandLineOption every{QStringLiteral("every"),
                             Text::tr("Run the endpoints every S seconds (default: GET and HEAD "
                                      "once, others for each job handed in)."),
                             QStringLiteral("S")};
};

// One command of a script: its text and the line it starts on.
struct SourceCommand
{
    QString text;
    int line = 0;
};

// The commands of a file: lines joined where they continue (\ or ^ at the end), blank
// lines and comments left out, and only what starts with curl taken.
QList<SourceCommand> commandsOf(const QString &text, QStringList *skipped)
{
    QList<SourceCommand> out;
    const QStringList lines = text.split(QLatin1Char('\n'));
    SourceCommand current;
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines.at(i);
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (current.text.isEmpty()) {
            const QString trimmed = line.trimmed();
            if (trimmed.isEmpty() || trimmed.startsWith(QLatin1Char('#')))
                continue;
            current.line = i + 1;
        }
        current.text += line + QLatin1Char('\n');
        const bool continues = line.endsWith(QLatin1Char('\\')) || line.endsWith(QLatin1Char('^'));
        // A quoted body may go on over lines, as documentation writes JSON (-d '{ ...
        // }'): the command ends where its quotes are closed.
        QString unclosed;
        if ((continues || !splitShellWords(current.text, &unclosed)) && i + 1 < lines.size())
            continue;
        static const QRegularExpression curl(QStringLiteral("^\\s*(curl|curl\\.exe)\\s"),
                                             QRegularExpression::CaseInsensitiveOption);
        if (curl.match(current.text).hasMatch())
            out.append(current);
        else
            skipped->append(Text::tr("line %1: not a curl command, left out").arg(current.line));
        current = SourceCommand();
    }
    return out;
}

QString changeWord(ImportChange::Kind kind)
{
    switch (kind) {
    case ImportChange::Kind::Added:
        return Text::tr("add");
    case ImportChange::Kind::Updated:
        return Text::tr("update");
    case ImportChange::Kind::Unchanged:
        return Text::tr("unchanged");
    }
    return QString();
}

// The process environment, with a stand-in for each variable the workspace names and
// the environment lacks: it is checked as it will load once they are set. *unset gets
// those the import did not name itself (the workspace's own, not set here).
QHash<QString, QString> environmentWith(const WorkspaceDocument &document,
                                        const QList<ImportedEndpoint> &imported, QStringList *unset)
{
    QHash<QString, QString> env;
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    for (const QString &name : system.keys())
        env.insert(name, system.value(name));
    QSet<QString> named;
    for (const ImportedEndpoint &e : imported) {
        for (const ImportVariable &v : e.variables)
            named.insert(v.name);
    }
    static const QRegularExpression ref(QStringLiteral("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}"));
    for (auto it = ref.globalMatch(QString::fromUtf8(document.toJson())); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (env.contains(name))
            continue;
        env.insert(name, QStringLiteral("set-me"));
        if (!named.contains(name))
            unset->append(name);
    }
    return env;
}

std::optional<QList<ImportedEndpoint>> importAll(const QList<SourceCommand> &commands,
                                                 const QCommandLineParser &parser,
                                                 const ImportOptions &o, const QString &source,
                                                 const QString &baseDir, QString *problem)
{
    CurlImportOptions options;
    options.id = parser.value(o.id);
    options.envPrefix = parser.value(o.envPrefix);
    options.everySeconds = parser.value(o.every).toInt();
    QList<ImportedEndpoint> out;
    for (const SourceCommand &command : commands) {
        const QString where = commands.size() > 1 || parser.isSet(o.file)
                                  ? Text::tr("%1: line %2: ").arg(source).arg(command.line)
                                  : QString();
        QString error;
        // Lines before it, so that where a quote opened is counted in the whole file.
        const std::optional<ShellWords> words =
            splitShellWords(QString(command.line - 1, QLatin1Char('\n')) + command.text, &error);
        const std::optional<CurlRequest> request =
            words ? parseCurl(words->words, baseDir, &error) : std::nullopt;
        ImportedEndpoint endpoint =
            request ? endpointFromCurl(*request, options, &error) : ImportedEndpoint();
        if (!error.isEmpty()) {
            *problem = where + error;
            return std::nullopt;
        }
        out.append(endpoint);
    }
    return out;
}

QString preview(const QList<ImportChange> &changes, const QList<ImportedEndpoint> &imported,
                const QStringList &skipped)
{
    QString text;
    for (qsizetype i = 0; i < changes.size(); ++i) {
        const QJsonObject &e = imported.at(i).endpoint;
        text += QStringLiteral("%1 %2: %3 %4\n")
                    .arg(changeWord(changes.at(i).kind), changes.at(i).id,
                         e.value(QStringLiteral("method")).toString(),
                         e.value(QStringLiteral("url")).toString());
        for (const QJsonObject &c : imported.at(i).credentials)
            text += Text::tr("  credentials %1 (%2)\n")
                        .arg(c.value(QStringLiteral("id")).toString(),
                             c.value(QStringLiteral("type")).toString());
        for (const QString &note : imported.at(i).notes)
            text += QStringLiteral("  %1\n").arg(note);
    }
    for (const QString &s : skipped)
        text += s + QLatin1Char('\n');
    return text;
}

QString variablesText(const QList<ImportedEndpoint> &imported)
{
    QString text;
    QStringList seen;
    for (const ImportedEndpoint &e : imported) {
        for (const ImportVariable &v : e.variables) {
            if (seen.contains(v.name))
                continue;
            seen.append(v.name);
            text += QStringLiteral("export %1=  # %2\n").arg(v.name, v.stands);
        }
    }
    if (text.isEmpty())
        return text;
    return Text::tr("Set these before the workspace runs (the secrets were not written into "
                    "it):\n") +
           text;
}

} // namespace

int runImport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Adds endpoints to a workspace from curl command lines (docs/import.md). "
                 "Secrets in them become ${env:NAME} references; the names to set are "
                 "printed."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("curl"), Text::tr("What to import from: curl."));
    parser.addPositionalArgument(QStringLiteral("COMMAND"),
                                 Text::tr("The curl command, quoted as one argument (or --file)."),
                                 QStringLiteral("['curl …']"));
    const ImportOptions o;
    parser.addOptions({o.config, o.file, o.dryRun, o.id, o.envPrefix, o.every});
    if (const auto problem = parseStrict(parser, kCommand, arguments, 2))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.value(0) != QLatin1String("curl"))
        return usageError(
            kCommand,
            Text::tr("expected what to import from: curl, got '%1'").arg(positional.value(0)));
    if (!parser.isSet(o.config))
        return usageError(kCommand, Text::tr("--config F: the workspace file to add to"));
    if ((positional.size() == 2) == parser.isSet(o.file))
        return usageError(kCommand, Text::tr("give the curl command or --file F, one of them"));
    if (parser.isSet(o.every) && !parseInteger(parser.value(o.every), 1, 366 * 24 * 3600))
        return usageError(kCommand, Text::tr("--every: expected whole seconds from 1 to a year, "
                                             "got '%1'")
                                        .arg(parser.value(o.every)));

    QString source = QStringLiteral("curl");
    QString baseDir = QDir::currentPath();
    QList<SourceCommand> commands;
    QStringList skipped;
    if (parser.isSet(o.file)) {
        source = parser.value(o.file);
        QFile file(source);
        if (!file.open(QIODevice::ReadOnly))
            return usageError(
                kCommand, Text::tr("--file: cannot read %1: %2").arg(source, file.errorString()));
        commands = commandsOf(QString::fromUtf8(file.readAll()), &skipped);
        for (QString &s : skipped)
            s.prepend(source + QStringLiteral(": "));
        baseDir = QFileInfo(source).absolutePath();
        if (commands.isEmpty())
            return usageError(kCommand, Text::tr("--file: no curl command in %1").arg(source));
    } else {
        commands.append({positional.at(1), 1});
    }
    if (parser.isSet(o.id) && commands.size() > 1)
        return usageError(kCommand, Text::tr("--id names one endpoint; %1 has %2 commands")
                                        .arg(source)
                                        .arg(commands.size()));
    QString problem;
    std::optional<QList<ImportedEndpoint>> imported =
        importAll(commands, parser, o, source, baseDir, &problem);
    if (!imported)
        return usageError(kCommand, problem);

    const QString path = parser.value(o.config);
    std::optional<WorkspaceDocument> document =
        QFileInfo::exists(path)
            ? WorkspaceDocument::load(path, &problem)
            : WorkspaceDocument(QJsonObject{{QStringLiteral("version"), 1}}, path);
    if (!document)
        return usageError(kCommand, problem);
    const QList<ImportChange> changes = mergeImport(*document, *imported);
    QString text = preview(changes, *imported, skipped);
    QStringList unset;
    const QHash<QString, QString> env = environmentWith(*document, *imported, &unset);
    const bool loads =
        document->validate(&problem, WorkspaceConfig::demoVariables(), env).has_value();
    text += loads ? Text::tr("check-config: the workspace loads\n")
                  : Text::tr("check-config: %1\n").arg(problem);
    text += variablesText(*imported);
    if (!unset.isEmpty())
        text += Text::tr("Not set here either, named by the workspace already: %1\n")
                    .arg(unset.join(QStringLiteral(", ")));
    printOut(text);
    if (!loads)
        return ExitUsage;
    if (parser.isSet(o.dryRun)) {
        printOut(Text::tr("--dry-run: %1 was not changed\n").arg(path));
        return ExitOk;
    }
    if (!document->save(path, &problem, WorkspaceConfig::demoVariables(), env))
        return runtimeError(kCommand, problem);
    printOut(Text::tr("written: %1\n").arg(path));
    return ExitOk;
}

} // namespace cooldown::cli
