#include "app/CheckConfigCommand.h"

#include "app/CommandLine.h"
#include "core/config/WorkspaceConfig.h"

namespace cooldown::cli {

int runCheckConfig(const QStringList &arguments)
{
    const QString command = QStringLiteral("check-config");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Validates a workspace config file."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("The config file."));
    if (const auto problem = parseStrict(parser, command, arguments, 1))
        return usageError(command, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, command));
        return ExitOk;
    }
    if (parser.positionalArguments().isEmpty())
        return usageError(command, QStringLiteral("expected a config file"));

    QString error;
    const auto config = WorkspaceConfig::load(parser.positionalArguments().constFirst(), &error,
                                              WorkspaceConfig::demoVariables());
    if (!config)
        return usageError(command, error);
    printOut(QStringLiteral("%1: ok, %2 endpoint(s), %3 polic%4, %5 retry profile(s)\n")
                 .arg(config->sourceName)
                 .arg(config->endpoints.size())
                 .arg(config->policies.size())
                 .arg(config->policies.size() == 1 ? QStringLiteral("y") : QStringLiteral("ies"))
                 .arg(config->retryProfiles.size()));
    return ExitOk;
}

} // namespace cooldown::cli
