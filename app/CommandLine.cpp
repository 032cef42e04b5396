// SPDX-License-Identifier: Apache-2.0
#include "app/CommandLine.h"

#include "core/http/HttpDate.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/IsoTime.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTextStream>

#include <cstdio>

namespace cooldown::cli {

int usageError(const QString &command, const QString &message)
{
    QTextStream err(stderr);
    err << "cooldown " << command << ": " << message << '\n';
    return ExitUsage;
}

int runtimeError(const QString &command, const QString &message)
{
    QTextStream err(stderr);
    err << "cooldown " << command << ": " << message << '\n';
    return ExitRuntimeFailure;
}

void printOut(const QString &text)
{
    QTextStream out(stdout);
    out << text;
    out.flush();
}

QString helpText(const QCommandLineParser &parser, const QString &command)
{
    QString text = parser.helpText();
    const qsizetype end = text.indexOf(QLatin1Char('\n'));
    const QString program = QCoreApplication::arguments().value(0);
    const qsizetype at = program.isEmpty() ? -1 : text.left(end).indexOf(program);
    if (at >= 0)
        text.replace(at, program.size(), QStringLiteral("cooldown ") + command);
    return text;
}

std::optional<QString> parseStrict(QCommandLineParser &parser, const QString &command,
                                   const QStringList &arguments, int maxPositional)
{
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    QStringList argv = arguments;
    argv.prepend(QStringLiteral("cooldown ") + command);
    if (!parser.parse(argv))
        return parser.errorText();
    if (parser.positionalArguments().size() > maxPositional)
        return Text::tr("unexpected argument '%1'")
            .arg(parser.positionalArguments().value(maxPositional));
    return std::nullopt;
}

std::optional<qint64> parseTimeMs(const QString &text)
{
    const HttpDate httpDate = HttpDate::parse(text.toLatin1(), SystemClock::instance().nowMs());
    if (httpDate.isValid() && text.isSimpleText())
        return httpDate.msSinceEpoch;
    return parseIsoTimeMs(text);
}

QString isoTime(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC).toString(Qt::ISODateWithMs);
}

QCommandLineOption demoUrlOption()
{
    return QCommandLineOption(
        QStringLiteral("demo-url"),
        Text::tr("Where ${demo:base_url} points (default: http://127.0.0.1:8089)."),
        QStringLiteral("URL"));
}

std::optional<QUrl> demoUrl(const QCommandLineParser &parser, const QCommandLineOption &option,
                            QString *problem)
{
    if (!parser.isSet(option))
        return QUrl(QStringLiteral("http://127.0.0.1:8089"));
    const QUrl url(parser.value(option), QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()) {
        *problem = Text::tr("--demo-url: not a URL: '%1'").arg(parser.value(option));
        return std::nullopt;
    }
    return url;
}

QString databaseUrl(const QCommandLineParser &parser, const QCommandLineOption &db)
{
    return parser.isSet(db) ? parser.value(db) : defaultDatabaseUrl();
}

std::unique_ptr<Store> openStoreFor(const QString &command, const QString &url, Create create,
                                    int *exitCode)
{
    StoreOptions options;
    options.createIfMissing = create == Create::IfMissing;
    QString error;
    Store::OpenFailure failure = Store::OpenFailure::None;
    std::unique_ptr<Store> store = Store::open(url, &error, options, &failure);
    if (!store)
        *exitCode = failure == Store::OpenFailure::Runtime ? runtimeError(command, error)
                                                           : usageError(command, error);
    return store;
}

namespace {

// Creates folder and any missing parents, each new one for its owner alone (0700,
// whatever the umask): the data folder holds the attempt history. Folders that
// exist are left as they are.
void makePrivateFolder(const QString &folder)
{
    const QString parent = QFileInfo(folder).absolutePath();
    if (QFileInfo::exists(folder) || parent == folder)
        return;
    makePrivateFolder(parent);
    if (QDir().mkdir(folder))
        QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner);
}

} // namespace

QString defaultDatabaseUrl()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    makePrivateFolder(folder);
    return QDir(folder).filePath(QStringLiteral("cooldown.db"));
}

} // namespace cooldown::cli
