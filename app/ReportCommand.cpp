// SPDX-License-Identifier: Apache-2.0
#include "app/ReportCommand.h"

#include "app/CommandLine.h"
#include "core/config/WorkspaceConfig.h"
#include "core/query/QueryStore.h"
#include "core/query/SlaReport.h"
#include "core/query/SlaReportFormat.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QDate>
#include <QDateTime>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTimeZone>

#include <cstdio>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("report");

struct ReportOptions
{
    QCommandLineOption config{QStringLiteral("config"),
                              Text::tr("Workspace file: endpoint names, SLA targets and "
                                       "maintenance windows."),
                              QStringLiteral("F")};
    QCommandLineOption db{QStringLiteral("db"), Text::tr("SQLite path or postgresql:// URL."),
                          QStringLiteral("URL")};
    QCommandLineOption from{QStringLiteral("from"),
                            Text::tr("Start of the range: a date (local midnight) or an ISO "
                                     "8601 time (default: the first day of last month)."),
                            QStringLiteral("D")};
    QCommandLineOption to{QStringLiteral("to"),
                          Text::tr("End of the range, not included: a date or an ISO 8601 "
                                   "time (default: the first day of this month)."),
                          QStringLiteral("D")};
    QCommandLineOption endpoint{QStringLiteral("endpoint"),
                                Text::tr("Only this endpoint (may be given more than once)."),
                                QStringLiteral("ID")};
    QCommandLineOption format{QStringLiteral("format"), Text::tr("text, csv or json."),
                              QStringLiteral("FORMAT"), QStringLiteral("text")};
    QCommandLineOption throttled{QStringLiteral("count-throttled"),
                                 Text::tr("What an operation that succeeded after a 429 or 503 "
                                          "counts as: as-success, as-failure or exclude."),
                                 QStringLiteral("RULE"), QStringLiteral("as-success")};
    QCommandLineOption maintenance{QStringLiteral("maintenance"),
                                   Text::tr("Whether time in maintenance windows counts: "
                                            "exclude or include."),
                                   QStringLiteral("RULE"), QStringLiteral("exclude")};
};

// A date is local midnight; anything else a time as the other commands read it.
std::optional<qint64> parseReportTime(const QString &text)
{
    static const QRegularExpression dateOnly(QStringLiteral("^\\d{4}-\\d{2}-\\d{2}$"));
    if (dateOnly.match(text).hasMatch()) {
        const QDate date = QDate::fromString(text, Qt::ISODate);
        if (!date.isValid())
            return std::nullopt;
        return QDateTime(date, QTime(0, 0), QTimeZone::systemTimeZone()).toMSecsSinceEpoch();
    }
    return parseTimeMs(text);
}

// The request the options describe; nullopt with *problem for a usage error.
std::optional<SlaRequest> requestFrom(const QCommandLineParser &parser, const ReportOptions &o,
                                      QString *problem)
{
    SlaRequest request;
    const SlaInterval month =
        previousCalendarMonth(SystemClock::instance().nowMs(), QTimeZone::systemTimeZone());
    request.fromMs = month.startMs;
    request.toMs = month.endMs;
    for (const auto &[option, target] :
         {std::pair{&o.from, &request.fromMs}, std::pair{&o.to, &request.toMs}}) {
        if (!parser.isSet(*option))
            continue;
        const std::optional<qint64> at = parseReportTime(parser.value(*option));
        if (!at) {
            *problem = Text::tr("--%1: expected a date (2026-11-01) or an ISO 8601 time, got '%2'")
                           .arg(option->names().constFirst(), parser.value(*option));
            return std::nullopt;
        }
        *target = *at;
    }
    if (request.toMs <= request.fromMs) {
        *problem = Text::tr("--to must be later than --from");
        return std::nullopt;
    }
    const std::optional<ThrottledRule> throttled = throttledRuleFromName(parser.value(o.throttled));
    const std::optional<MaintenanceRule> maintenance =
        maintenanceRuleFromName(parser.value(o.maintenance));
    if (!throttled || !maintenance) {
        *problem = !throttled ? Text::tr("--count-throttled: expected as-success, as-failure or "
                                         "exclude, got '%1'")
                                    .arg(parser.value(o.throttled))
                              : Text::tr("--maintenance: expected exclude or include, got '%1'")
                                    .arg(parser.value(o.maintenance));
        return std::nullopt;
    }
    request.throttled = *throttled;
    request.maintenanceRule = *maintenance;
    request.only = parser.values(o.endpoint);
    return request;
}

// The workspace's endpoints and maintenance windows, when --config names one.
bool addWorkspace(const QCommandLineParser &parser, const ReportOptions &o, SlaRequest *request,
                  QString *problem)
{
    if (!parser.isSet(o.config))
        return true;
    const std::optional<WorkspaceConfig> workspace =
        WorkspaceConfig::load(parser.value(o.config), problem, WorkspaceConfig::demoVariables());
    if (!workspace)
        return false;
    for (const EndpointConfig &e : workspace->endpoints)
        request->endpoints.append({e.id, e.name, e.slaTarget});
    request->maintenance = workspace->maintenance;
    return true;
}

} // namespace

int runReport(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Reports each endpoint's availability, downtime, latency, 429 share and "
                 "failures over a range, read from the rollups (docs/report.md)."));
    parser.addHelpOption();
    const ReportOptions o;
    parser.addOptions(
        {o.config, o.db, o.from, o.to, o.endpoint, o.format, o.throttled, o.maintenance});
    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    const QString format = parser.value(o.format);
    if (format != QLatin1String("text") && format != QLatin1String("csv") &&
        format != QLatin1String("json"))
        return usageError(kCommand,
                          Text::tr("--format: expected text, csv or json, got '%1'").arg(format));
    QString problem;
    std::optional<SlaRequest> request = requestFrom(parser, o, &problem);
    if (!request || !addWorkspace(parser, o, &*request, &problem))
        return usageError(kCommand, problem);

    const QString url = databaseUrl(parser, o.db);
    int openFailed = ExitOk;
    if (!openStoreFor(kCommand, url, Create::Never, &openFailed))
        return openFailed;
    QueryStore store(url, QueryStore::IfMissing::Refuse);
    if (!store.ensureOpen([&](const QString &why) { problem = why; }))
        return runtimeError(kCommand, problem);
    const std::optional<SlaReport> report = buildSlaReport(store, *request, &problem);
    if (!report)
        return runtimeError(kCommand, problem);
    if (format == QLatin1String("csv")) {
        const QByteArray csv = slareport::toCsv(*report);
        std::fwrite(csv.constData(), 1, std::size_t(csv.size()), stdout);
        std::fflush(stdout);
    } else if (format == QLatin1String("json")) {
        printOut(QString::fromUtf8(QJsonDocument(slareport::toJson(*report)).toJson()));
    } else {
        printOut(slareport::toText(*report));
    }
    return ExitOk;
}

} // namespace cooldown::cli
