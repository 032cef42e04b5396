#include "app/CheckConfigCommand.h"
#include "app/CommandLine.h"
#include "app/ExplainCommand.h"
#include "app/ExportCommand.h"
#include "app/OperatorCommands.h"
#include "app/RunCommand.h"
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

namespace {

using Command = std::function<int(const QStringList &)>;

struct CommandEntry
{
    const char *name;
    const char *summary;
    Command run;
};

const CommandEntry kCommands[] = {
    {"explain", "print, as JSON, the decision the engine makes for a response",
     cooldown::cli::runExplain},
    {"run", "run the engine without a window", cooldown::cli::runRun},
    {"check-config", "validate a workspace config file", cooldown::cli::runCheckConfig},
    {"export", "write the attempt history as CSV", cooldown::cli::runExport},
    {"retry", "make a waiting, parked or failed operation due now", cooldown::cli::runRetry},
    {"cancel", "cancel an operation that has not ended", cooldown::cli::runCancel},
    {"status", "show the workers, partitions and backlog of a database", cooldown::cli::runStatus},
#ifdef COOLDOWN_HAVE_DEMO
    {"demo-server", "run the demo API on 127.0.0.1 until interrupted",
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
    QString text = QStringLiteral("Usage: cooldown [COMMAND] [OPTIONS]\n\n"
                                  "Without a command, opens the dashboard.\n\nCommands:\n");
    for (const CommandEntry &entry : kCommands)
        text += QStringLiteral("  %1  %2\n").arg(QLatin1String(entry.name), -12).arg(QLatin1String(entry.summary));
    text += QStringLiteral("\n'cooldown COMMAND --help' describes a command's options.\n");
    return text;
}

void describeApplication()
{
    QCoreApplication::setOrganizationName(QStringLiteral("Cooldown"));
    QCoreApplication::setApplicationName(QStringLiteral("cooldown"));
    QCoreApplication::setApplicationVersion(QStringLiteral(COOLDOWN_VERSION));
}

} // namespace

int main(int argc, char *argv[])
{
    if (argc > 1 && argv[1][0] != '-') {
        QCoreApplication app(argc, argv);
        describeApplication();
        const CommandEntry *command = findCommand(argv[1]);
        if (!command)
            return cooldown::cli::usageError(QString::fromLocal8Bit(argv[1]),
                                             QStringLiteral("unknown command (try 'cooldown --help')"));
        return command->run(app.arguments().mid(2));
    }
    if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        QCoreApplication app(argc, argv);
        cooldown::cli::printOut(usage());
        return cooldown::cli::ExitOk;
    }
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        QCoreApplication app(argc, argv);
        cooldown::cli::printOut(QStringLiteral("cooldown %1\n").arg(QLatin1String(COOLDOWN_VERSION)));
        return cooldown::cli::ExitOk;
    }
#ifdef COOLDOWN_HAVE_UI
    QApplication app(argc, argv);
    describeApplication();
    QApplication::setApplicationDisplayName(QStringLiteral("Cooldown"));
    return cooldown::runDashboard(app);
#else
    QCoreApplication app(argc, argv);
    return cooldown::cli::usageError(QStringLiteral("dashboard"),
                                     QStringLiteral("this build has no dashboard; see 'cooldown --help'"));
#endif
}
