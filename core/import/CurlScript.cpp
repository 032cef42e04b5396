// SPDX-License-Identifier: Apache-2.0
#include "core/import/CurlScript.h"

#include "core/import/CurlCommand.h"
#include "core/import/ShellWords.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

} // namespace

QList<CurlScriptCommand> curlCommandsOf(const QString &text, QStringList *skipped)
{
    QList<CurlScriptCommand> out;
    const QStringList lines = text.split(QLatin1Char('\n'));
    CurlScriptCommand current;
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
        current = CurlScriptCommand();
    }
    return out;
}

std::optional<QList<ImportedEndpoint>> importCurlCommands(const QList<CurlScriptCommand> &commands,
                                                          const CurlImportOptions &options,
                                                          const QString &sourceName,
                                                          const QString &baseDir, QString *error)
{
    QList<ImportedEndpoint> out;
    for (const CurlScriptCommand &command : commands) {
        const QString where = sourceName.isEmpty()
                                  ? QString()
                                  : Text::tr("%1: line %2: ").arg(sourceName).arg(command.line);
        QString problem;
        // Lines before it, so that where a quote opened is counted in the whole file.
        const std::optional<ShellWords> words =
            splitShellWords(QString(command.line - 1, QLatin1Char('\n')) + command.text, &problem);
        const std::optional<CurlRequest> request =
            words ? parseCurl(words->words, baseDir, &problem) : std::nullopt;
        ImportedEndpoint endpoint =
            request ? endpointFromCurl(*request, options, &problem) : ImportedEndpoint();
        if (!problem.isEmpty()) {
            *error = where + problem;
            return std::nullopt;
        }
        out.append(endpoint);
    }
    return out;
}

} // namespace cooldown
