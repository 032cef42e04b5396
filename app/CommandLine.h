// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/NumberText.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <memory>
#include <optional>

namespace cooldown {
class Store;
}

namespace cooldown::cli {

// The command line's words for translators: Text::tr("…") in every command.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::cli::Text)
};

// Exit codes, as the README documents them.
enum ExitCode
{
    ExitOk = 0,
    ExitRuntimeFailure = 1,
    ExitUsage = 2
};

// Prints "cooldown COMMAND: message" on stderr as one line and returns ExitUsage.
int usageError(const QString &command, const QString &message);
// Prints "cooldown COMMAND: message" on stderr and returns ExitRuntimeFailure.
int runtimeError(const QString &command, const QString &message);

void printOut(const QString &text);

// The parser's help, with "cooldown COMMAND" where Qt would print the binary's path
// (in whichever language Qt's own words are).
QString helpText(const QCommandLineParser &parser, const QString &command);

// Parses arguments (without the program and command names) strictly: unknown
// options and stray positional arguments are errors. Returns the error text, if any.
std::optional<QString> parseStrict(QCommandLineParser &parser, const QString &command,
                                   const QStringList &arguments, int maxPositional = 0);

// A whole number within [min, max] from an option's text (core/NumberText.h).
using cooldown::parseInteger;

// A point in time given as an HTTP-date or ISO 8601 (UTC unless an offset is given).
std::optional<qint64> parseTimeMs(const QString &text);

// ISO 8601 UTC with milliseconds, as logs and JSON print times.
QString isoTime(qint64 msSinceEpoch);

// --demo-url, of the commands that load a workspace: where ${demo:base_url} points.
QCommandLineOption demoUrlOption();
// Its URL, or the demo API's default address; nullopt, with the usage error in
// *problem, when it is not a URL.
std::optional<QUrl> demoUrl(const QCommandLineParser &parser, const QCommandLineOption &option,
                            QString *problem);

// The --db option's URL, or the default.
QString databaseUrl(const QCommandLineParser &parser, const QCommandLineOption &db);

// Whether a command may create the database it names (`run` does; commands that read
// or change what is there do not).
enum class Create
{
    IfMissing,
    Never
};
// Opens the command's database. On failure prints "cooldown COMMAND: why" and sets
// *exitCode: ExitUsage for what the user gave (a malformed URL, no database there),
// ExitRuntimeFailure for the environment (a server that cannot be reached, a file
// that cannot be written).
std::unique_ptr<Store> openStoreFor(const QString &command, const QString &url, Create create,
                                    int *exitCode);

// The --db default: cooldown.db in the platform's data folder (created if missing).
QString defaultDatabaseUrl();

} // namespace cooldown::cli
