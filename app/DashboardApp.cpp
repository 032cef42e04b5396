// SPDX-License-Identifier: Apache-2.0
#include "app/DashboardApp.h"

#include "app/CommandLine.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/EngineSession.h"
#include "ui/MainWindow.h"

#ifdef COOLDOWN_HAVE_DEMO
#include "app/demo/DemoServer.h"
#endif

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryDir>

#include <memory>

namespace cooldown {

namespace {

const QString kCommand = QStringLiteral("dashboard");
const QString kConfigKey = QStringLiteral("workspace/config");
const QString kDatabaseKey = QStringLiteral("workspace/db");

int refuse(const QString &message)
{
    // Said on the terminal for scripts, and in a box for whoever clicked an icon.
    cli::usageError(kCommand, message);
    QMessageBox::critical(nullptr, QStringLiteral("Cooldown"), message);
    return cli::ExitUsage;
}

} // namespace

int runDashboard(QApplication &app)
{
    QCommandLineParser parser;
    const QCommandLineOption config(QStringLiteral("config"),
                                    cli::Text::tr("Workspace config file."), QStringLiteral("F"));
    const QCommandLineOption db(QStringLiteral("db"),
                                cli::Text::tr("SQLite path or postgresql:// URL."),
                                QStringLiteral("URL"));
    const QCommandLineOption demo(
        QStringLiteral("demo"),
        cli::Text::tr("Open the demo workspace against the built-in demo API."));
    parser.addOptions({config, db, demo});
    if (const auto problem = cli::parseStrict(parser, kCommand, app.arguments().mid(1)))
        return cli::usageError(kCommand, *problem);
    if (parser.isSet(config) && parser.isSet(demo))
        return cli::usageError(kCommand, cli::Text::tr("give --config or --demo, not both"));

    QSettings settings;
    QString configPath = parser.value(config);
    QString databaseUrl = parser.value(db);
    if (configPath.isEmpty() && !parser.isSet(demo)) {
        const QString last = settings.value(kConfigKey).toString();
        if (!last.isEmpty() && QFileInfo::exists(last)) {
            configPath = last;
            if (databaseUrl.isEmpty())
                databaseUrl = settings.value(kDatabaseKey).toString();
        }
    }

    QString error;
    std::optional<WorkspaceConfig> workspace;
    QString workspaceName;
    QHash<QString, QString> variables;
    std::unique_ptr<QTemporaryDir> demoFolder;
#ifdef COOLDOWN_HAVE_DEMO
    std::unique_ptr<DemoServer> demoServer;
#endif
    if (!configPath.isEmpty()) {
        variables = WorkspaceConfig::demoVariables();
        workspace = WorkspaceConfig::load(configPath, &error, variables);
        if (!workspace)
            return refuse(error);
        workspaceName = QDir::toNativeSeparators(QFileInfo(configPath).absoluteFilePath());
        if (databaseUrl.isEmpty())
            databaseUrl = cli::defaultDatabaseUrl();
    } else {
#ifdef COOLDOWN_HAVE_DEMO
        demoServer = std::make_unique<DemoServer>();
        if (!demoServer->listen(0))
            return refuse(cli::Text::tr("the demo API cannot listen on 127.0.0.1: %1")
                              .arg(demoServer->errorString()));
        QFile file(QStringLiteral(":/cooldown/demo.json"));
        if (!file.open(QIODevice::ReadOnly))
            return refuse(cli::Text::tr("the demo workspace is missing from this build"));
        variables = WorkspaceConfig::demoVariables(demoServer->baseUrl());
        workspace =
            WorkspaceConfig::parse(file.readAll(), QStringLiteral("demo.json"), &error, variables);
        if (!workspace)
            return refuse(error);
        workspaceName = cli::Text::tr("Demo workspace");
        if (databaseUrl.isEmpty()) {
            // A fresh database each time, so that the demo starts throttled and recovers.
            demoFolder = std::make_unique<QTemporaryDir>();
            if (!demoFolder->isValid())
                return refuse(cli::Text::tr("no temporary folder for the demo database: %1")
                                  .arg(demoFolder->errorString()));
            databaseUrl = demoFolder->filePath(QStringLiteral("demo.db"));
        }
#else
        return refuse(
            cli::Text::tr("this build has no demo API; open a workspace with --config F"));
#endif
    }

    EngineOptions engineOptions;
    engineOptions.scheduler = SchedulerOptions::batched();
    auto session = EngineSession::open(std::move(*workspace), databaseUrl, &error, engineOptions);
    if (!session)
        return refuse(error);
    if (!session->start(&error))
        return refuse(error);
    if (!configPath.isEmpty()) {
        settings.setValue(kConfigKey, QFileInfo(configPath).absoluteFilePath());
        settings.setValue(kDatabaseKey, databaseUrl);
    }

    MainWindow window(*session,
                      {workspaceName,
                       configPath.isEmpty() ? QString() : QFileInfo(configPath).absoluteFilePath(),
                       variables});
    window.show();
    const int code = QApplication::exec();
    return code;
}

} // namespace cooldown
