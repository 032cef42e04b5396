// SPDX-License-Identifier: Apache-2.0
#include "app/DemoServerCommand.h"

#include "app/CommandLine.h"
#include "app/StopOnSignal.h"
#include "app/demo/DemoServer.h"

#include <QCoreApplication>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("demo-server");

} // namespace

int runDemoServer(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Runs the Cooldown demo API on 127.0.0.1 until SIGINT or SIGTERM."));
    parser.addHelpOption();
    // 8089 is where the demo workspace looks when nothing else is said.
    const QCommandLineOption portOption(QStringLiteral("port"),
                                        Text::tr("TCP port (default 8089); 0 picks a free one."),
                                        QStringLiteral("P"), QStringLiteral("8089"));
    parser.addOption(portOption);
    if (const auto error = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *error);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    const QString portText = parser.value(portOption);
    const std::optional<qint64> port = parseInteger(portText, 0, 65535);
    if (!port)
        return usageError(kCommand,
                          Text::tr("--port '%1' is not a port number (0 to 65535)").arg(portText));

    QString error;
    StopOnSignal stop;
    if (!stop.install([](int) { QCoreApplication::quit(); }, &error))
        return runtimeError(kCommand, error);

    DemoServer server;
    if (!server.listen(quint16(*port)))
        return runtimeError(kCommand, server.errorString());
    printOut(Text::tr("Cooldown demo API listening on %1\n").arg(server.baseUrl().toString()));
    QCoreApplication::exec();
    server.close();
    return ExitOk;
}

} // namespace cooldown::cli
