// SPDX-License-Identifier: Apache-2.0
#include "app/CheckConfigCommand.h"

#include "app/CommandLine.h"
#include "app/EnqueueCommand.h"
#include "core/config/WorkspaceConfig.h"

namespace cooldown::cli {

int runCheckConfig(const QStringList &arguments)
{
    const QString command = QStringLiteral("check-config");
    QCommandLineParser parser;
    parser.setApplicationDescription(Text::tr("Validates a workspace config file."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("file"), Text::tr("The config file."));
    const QCommandLineOption jobs(
        QStringLiteral("jobs"),
        Text::tr("Also check the jobs of a JSON Lines file ('-': standard input) against "
                 "the workspace, as cooldown enqueue would, without writing anything."),
        QStringLiteral("FILE"));
    parser.addOption(jobs);
    if (const auto problem = parseStrict(parser, command, arguments, 1))
        return usageError(command, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, command));
        return ExitOk;
    }
    if (parser.positionalArguments().isEmpty())
        return usageError(command, Text::tr("expected a config file"));

    QString error;
    const auto config = WorkspaceConfig::load(parser.positionalArguments().constFirst(), &error,
                                              WorkspaceConfig::demoVariables());
    if (!config)
        return usageError(command, error);
    // One count per message, so that each has its own singular and plural.
    printOut(Text::tr("%1: ok, %2, %3, %4\n")
                 .arg(config->sourceName,
                      Text::tr("%n endpoint(s)", nullptr, int(config->endpoints.size())),
                      Text::tr("%n policy(-ies)", nullptr, int(config->policies.size())),
                      Text::tr("%n retry profile(s)", nullptr, int(config->retryProfiles.size()))));
    // Names only: the values are secrets, and this output ends up in CI logs.
    for (const CredentialConfig &c : config->credentials) {
        printOut(Text::tr("%1: credentials '%2' (%3) read %4 from the environment\n")
                     .arg(config->sourceName, c.id, QString::fromLatin1(textOf(c.type)),
                          c.variables.isEmpty() ? Text::tr("nothing")
                                                : c.variables.join(QStringLiteral(", "))));
    }
    for (const QString &warning : config->warnings)
        usageError(command, Text::tr("%1: warning: %2").arg(config->sourceName, warning));
    if (!parser.isSet(jobs))
        return ExitOk;
    QString problem;
    const auto lines = readJobLines(parser.value(jobs), true, &problem);
    if (!lines)
        return usageError(command, problem);
    QStringList problems = lines->skipped;
    for (qsizetype i = 0; i < lines->jobs.size(); ++i) {
        if (const auto why = checkJob(*config, lines->jobs.at(i), lines->paths.at(i)))
            problems.append(*why);
    }
    for (const QString &line : std::as_const(problems))
        usageError(command, line);
    if (!problems.isEmpty())
        return ExitUsage;
    printOut(
        Text::tr("%1: ok, %n job(s)\n", nullptr, int(lines->jobs.size())).arg(parser.value(jobs)));
    return ExitOk;
}

} // namespace cooldown::cli
