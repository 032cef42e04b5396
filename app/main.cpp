// SPDX-License-Identifier: Apache-2.0
#include "app/CheckConfigCommand.h"
#include "app/CommandLine.h"
#include "app/EnqueueCommand.h"
#include "app/ExplainCommand.h"
#include "app/ExportCommand.h"
#include "app/ImportCommand.h"
#include "app/IncidentsCommand.h"
#include "app/Language.h"
#include "app/OperatorCommands.h"
#include "app/PauseCommand.h"
#include "app/ReportCommand.h"
#include "app/RunCommand.h"
#include "app/ShowAttemptCommand.h"
#include "app/StatusCommand.h"

#include <QCoreApplication>
#include <QTextStream>

#ifdef COOLDOWN_HAVE_DEMO
#include "app/DemoServerCommand.h"
#endif
#ifdef COOLDOWN_HAVE_UI
#include "app/DashboardApp.h"
#include <QApplication>
#endif

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace {

using Command = std::function<int(const QStringList &)>;

using cooldown::cli::Text;

struct CommandEntry
{
    const char *name;
    const char *summary; // translated in the context of Text
    Command run;
};

const CommandEntry kCommands[] = {
    {"explain",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "print, as JSON, the decision the engine makes for a response"),
     cooldown::cli::runExplain},
    {"run", QT_TRANSLATE_NOOP("cooldown::cli::Text", "run the engine without a window"),
     cooldown::cli::runRun},
    {"check-config", QT_TRANSLATE_NOOP("cooldown::cli::Text", "validate a workspace config file"),
     cooldown::cli::runCheckConfig},
    {"export", QT_TRANSLATE_NOOP("cooldown::cli::Text", "write the attempt history as CSV"),
     cooldown::cli::runExport},
    {"enqueue",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "hand jobs to endpoints, each kept with its idempotency key"),
     cooldown::cli::runEnqueue},
    {"import",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "add endpoints to a workspace from curl command lines, an OpenAPI "
                       "document or a Postman collection"),
     cooldown::cli::runImport},
    {"retry",
     QT_TRANSLATE_NOOP("cooldown::cli::Text", "make a waiting, parked or failed operation due now"),
     cooldown::cli::runRetry},
    {"cancel", QT_TRANSLATE_NOOP("cooldown::cli::Text", "cancel an operation that has not ended"),
     cooldown::cli::runCancel},
    {"pause",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "pause endpoints until resumed, or for a while (--for 2h)"),
     cooldown::cli::runPause},
    {"resume", QT_TRANSLATE_NOOP("cooldown::cli::Text", "resume paused or held endpoints"),
     cooldown::cli::runResume},
    {"status",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "show the workers, partitions and backlog of a database"),
     cooldown::cli::runStatus},
    {"show-attempt",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "show one attempt, with the assertion it failed and the exchange kept"),
     cooldown::cli::runShowAttempt},
    {"incidents",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "list incidents: integrations failing for one shared cause"),
     cooldown::cli::runIncidents},
    {"report",
     QT_TRANSLATE_NOOP("cooldown::cli::Text",
                       "report each endpoint's availability and SLA over a range"),
     cooldown::cli::runReport},
#ifdef COOLDOWN_HAVE_DEMO
    {"demo-server",
     QT_TRANSLATE_NOOP("cooldown::cli::Text", "run the demo API on 127.0.0.1 until interrupted"),
     cooldown::cli::runDemoServer},
#endif
};

const CommandEntry *findCommand(const char *name)
{
    for (const CommandEntry &entry : kCommands) {
        if (std::strcmp(entry.name, name) == 0)
            return &entry;
    }
    return nullptr;
}

QString usage()
{
    QString text = Text::tr("Usage: cooldown [COMMAND] [OPTIONS]\n\n"
                            "Without a command, opens the dashboard.\n\nCommands:\n");
    for (const CommandEntry &entry : kCommands)
        text += QStringLiteral("  %1  %2\n")
                    .arg(QLatin1String(entry.name), -12)
                    .arg(Text::tr(entry.summary));
    text += Text::tr("\nOptions of every command:\n"
                     "  --lang en|ja  the language of messages and of the window "
                     "(default: the system's)\n");
    text += Text::tr("\n'cooldown COMMAND --help' describes a command's options.\n");
    return text;
}

void describeApplication()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Cooldown"));
    QCoreApplication::setApplicationName(QStringLiteral("cooldown"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COOLDOWN_VERSION));
}

// Installs the language --lang asks for, else the system's. Returns the usage error's
// exit code when --lang names no language Cooldown speaks.
std::optional<int> chooseLanguage(QCoreApplication &app, const cooldown::LanguageOption &option,
                                  const QString &command)
{
    if (option.given && !option.valid) {
        cooldown::installLanguage(app, cooldown::systemLanguage());
        return cooldown::cli::usageError(
            command, Text::tr("--lang: expected en or ja, got '%1'").arg(option.value));
    }
    QString error;
    if (!cooldown::installLanguage(app, option.given ? option.language : cooldown::systemLanguage(),
                                   &error))
        return cooldown::cli::runtimeError(command, error);
    return std::nullopt;
}

} // namespace

int main(int argc, char *argv[])
{
    // --lang is every command's option: taken out here, so that no command parses it.
    std::vector<char *> arguments(argv + 1, argv + argc);
    const cooldown::LanguageOption lang = cooldown::takeLanguageOption(arguments);
    arguments.insert(arguments.begin(), argv[0]);
    arguments.push_back(nullptr);
    argc = int(arguments.size()) - 1;
    argv = arguments.data();

    if (argc > 1 && argv[1][0] != '-') {
        QCoreApplication app(argc, argv);
        describeApplication();
        const QString name = QString::fromLocal8Bit(argv[1]);
        if (const auto failed = chooseLanguage(app, lang, name))
            return *failed;
        const CommandEntry *command = findCommand(argv[1]);
        if (!command)
            return cooldown::cli::usageError(name,
                                             Text::tr("unknown command (try 'cooldown --help')"));
        return command->run(app.arguments().mid(2));
    }
    if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        QCoreApplication app(argc, argv);
        if (const auto failed = chooseLanguage(app, lang, QStringLiteral("--help")))
            return *failed;
        cooldown::cli::printOut(usage());
        return cooldown::cli::ExitOk;
    }
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        QCoreApplication app(argc, argv);
        cooldown::cli::printOut(
            QStringLiteral("cooldown %1\n").arg(QLatin1String(COOLDOWN_VERSION)));
        return cooldown::cli::ExitOk;
    }
#ifdef COOLDOWN_HAVE_UI
    QApplication app(argc, argv);
    describeApplication();
    QApplication::setApplicationDisplayName(QStringLiteral("Cooldown"));
    if (const auto failed = chooseLanguage(app, lang, QStringLiteral("dashboard")))
        return *failed;
    return cooldown::runDashboard(app);
#else
    QCoreApplication app(argc, argv);
    if (const auto failed = chooseLanguage(app, lang, QStringLiteral("dashboard")))
        return *failed;
    return cooldown::cli::usageError(
        QStringLiteral("dashboard"),
        Text::tr("this build has no dashboard; see 'cooldown --help'"));
#endif
}
