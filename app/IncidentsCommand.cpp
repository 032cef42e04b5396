// SPDX-License-Identifier: Apache-2.0
#include "app/IncidentsCommand.h"

#include "app/CommandLine.h"
#include "core/engine/IncidentCause.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/DurationText.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("incidents");
constexpr qint64 kDefaultSinceMs = 7LL * 24 * 3600 * 1000;

QString incidentLine(const IncidentRecord &i, qint64 nowMs)
{
    const qint64 endMs = i.isOpen() ? nowMs : i.closedAtMs;
    const QString span =
        i.isOpen() ? QStringLiteral("open since %1").arg(isoTime(i.openedAtMs))
                   : QStringLiteral("%1 to %2").arg(isoTime(i.openedAtMs), isoTime(i.closedAtMs));
    return QStringLiteral("incident %1  %2 (%3)  %4  %5 %6: %7")
        .arg(i.id)
        .arg(span, durationText(std::max<qint64>(1000, endMs - i.openedAtMs) / 1000 * 1000),
             incidentCauseText(i.cause),
             i.isOpen() ? QStringLiteral("blocks") : QStringLiteral("blocked"))
        .arg(i.endpointIds.size())
        .arg(i.endpointIds.join(QStringLiteral(", ")));
}

QJsonObject incidentJson(const IncidentRecord &i)
{
    QJsonArray endpoints;
    for (const QString &id : i.endpointIds)
        endpoints.append(id);
    return QJsonObject{
        {QStringLiteral("id"), i.id},
        {QStringLiteral("cause"), i.cause},
        {QStringLiteral("open"), i.isOpen()},
        {QStringLiteral("opened_at"), isoTime(i.openedAtMs)},
        {QStringLiteral("closed_at"),
         i.isOpen() ? QJsonValue(QJsonValue::Null) : QJsonValue(isoTime(i.closedAtMs))},
        {QStringLiteral("opened_by"), i.openedBy},
        {QStringLiteral("closed_by"), i.closedBy},
        {QStringLiteral("endpoints"), endpoints},
    };
}

} // namespace

int runIncidents(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Lists the incidents of a database: integrations that failed for one shared "
                 "cause (a host, a proxy), the open ones and those opened lately."));
    parser.addHelpOption();
    const QCommandLineOption db(QStringLiteral("db"), Text::tr("SQLite path or postgresql:// URL."),
                                QStringLiteral("URL"));
    const QCommandLineOption since(
        QStringLiteral("since"),
        Text::tr("Also the incidents opened in this last span, such as 2h or 30d (default: 7d)."),
        QStringLiteral("SPAN"));
    const QCommandLineOption open(QStringLiteral("open"), Text::tr("Only the open incidents."));
    const QCommandLineOption json(QStringLiteral("json"), Text::tr("Print one JSON object."));
    parser.addOptions({db, since, open, json});
    if (const auto problem = parseStrict(parser, kCommand, arguments, 0))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    qint64 sinceMs = kDefaultSinceMs;
    if (parser.isSet(since)) {
        const auto span = parseDurationMs(parser.value(since));
        if (!span || *span <= 0)
            return usageError(kCommand, Text::tr("--since: expected a span such as 2h or 30d, "
                                                 "not '%1'")
                                            .arg(parser.value(since)));
        sinceMs = *span;
    }

    const QString url = databaseUrl(parser, db);
    int openFailed = ExitOk;
    const std::unique_ptr<Store> store = openStoreFor(kCommand, url, Create::Never, &openFailed);
    if (!store)
        return openFailed;
    const qint64 nowMs = SystemClock().nowMs();
    const auto incidents = store->incidents().list(parser.isSet(open), nowMs - sinceMs);
    if (!incidents)
        return runtimeError(kCommand, store->lastError());

    if (parser.isSet(json)) {
        QJsonArray list;
        int openCount = 0;
        for (const IncidentRecord &i : *incidents) {
            list.append(incidentJson(i));
            openCount += i.isOpen() ? 1 : 0;
        }
        printOut(QString::fromUtf8(QJsonDocument(QJsonObject{{QStringLiteral("open"), openCount},
                                                             {QStringLiteral("incidents"), list}})
                                       .toJson()));
        return ExitOk;
    }
    QStringList lines;
    for (const IncidentRecord &i : *incidents)
        lines << incidentLine(i, nowMs);
    if (lines.isEmpty())
        lines << (parser.isSet(open)
                      ? QStringLiteral("no open incident")
                      : QStringLiteral("no incident in the last %1").arg(durationText(sinceMs)));
    printOut(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
    return ExitOk;
}

} // namespace cooldown::cli
