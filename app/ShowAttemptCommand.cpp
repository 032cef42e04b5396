// SPDX-License-Identifier: Apache-2.0
#include "app/ShowAttemptCommand.h"

#include "app/CommandLine.h"
#include "core/store/Store.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("show-attempt");

QString bodyTitle(const QString &what, qint64 bytes, bool truncated, qsizetype shown)
{
    QString title = QStringLiteral("%1 (%2 bytes").arg(what).arg(bytes);
    if (truncated)
        title += QStringLiteral(", more not read");
    if (shown < bytes)
        title += QStringLiteral(", the first %1 kept").arg(shown);
    return title + QLatin1Char(')');
}

QString attemptText(const AttemptRecord &a, const std::optional<KeptExchange> &kept)
{
    QStringList lines;
    lines << QStringLiteral("attempt %1: operation %2 (endpoint %3), attempt %4")
                 .arg(a.id)
                 .arg(a.operationId)
                 .arg(a.endpointId)
                 .arg(a.attempt);
    lines << QStringLiteral("started %1, took %2 ms, worker %3")
                 .arg(isoTime(a.startedAtMs))
                 .arg(a.durationMs)
                 .arg(a.workerId);
    lines << QStringLiteral("%1 %2").arg(a.method, a.url);
    const QString answer = a.status > 0 ? QString::number(a.status) : a.error;
    lines << QStringLiteral("answer %1: %2 (%3)")
                 .arg(answer, QLatin1String(textOf(a.decision)), a.reason);
    if (!a.checkFailure.isEmpty())
        lines << QStringLiteral("check failed: %1").arg(a.checkFailure);
    lines << QString() << QStringLiteral("> request headers") << a.requestHeaders.trimmed();
    if (kept)
        lines << QStringLiteral("> ") + bodyTitle(QStringLiteral("request body"),
                                                  kept->requestBytes, false,
                                                  kept->requestBody.toUtf8().size())
              << kept->requestBody;
    lines << QString() << QStringLiteral("< response headers") << a.responseHeaders.trimmed();
    if (kept)
        lines << QStringLiteral("< ") + bodyTitle(QStringLiteral("response body"),
                                                  kept->responseBytes, kept->responseTruncated,
                                                  kept->responseBody.toUtf8().size())
              << kept->responseBody;
    else
        lines << QString()
              << QStringLiteral("(no bodies: they are kept only for the last failed or degraded "
                                "exchanges of each endpoint)");
    return lines.join(QLatin1Char('\n'));
}

QJsonObject attemptJson(const AttemptRecord &a, const std::optional<KeptExchange> &kept)
{
    QJsonObject o{
        {QStringLiteral("id"), a.id},
        {QStringLiteral("operation_id"), a.operationId},
        {QStringLiteral("endpoint_id"), a.endpointId},
        {QStringLiteral("attempt"), a.attempt},
        {QStringLiteral("started_at"), isoTime(a.startedAtMs)},
        {QStringLiteral("duration_ms"), a.durationMs},
        {QStringLiteral("method"), a.method},
        {QStringLiteral("url"), a.url},
        {QStringLiteral("status"), a.status},
        {QStringLiteral("error"), a.error},
        {QStringLiteral("decision"), QLatin1String(textOf(a.decision))},
        {QStringLiteral("reason"), a.reason},
        {QStringLiteral("check_failure"), a.checkFailure},
        {QStringLiteral("request_headers"), a.requestHeaders},
        {QStringLiteral("response_headers"), a.responseHeaders},
    };
    if (kept)
        o.insert(QStringLiteral("kept"),
                 QJsonObject{{QStringLiteral("request_body"), kept->requestBody},
                             {QStringLiteral("request_bytes"), kept->requestBytes},
                             {QStringLiteral("response_body"), kept->responseBody},
                             {QStringLiteral("response_bytes"), kept->responseBytes},
                             {QStringLiteral("response_truncated"), kept->responseTruncated}});
    else
        o.insert(QStringLiteral("kept"), QJsonValue::Null);
    return o;
}

} // namespace

int runShowAttempt(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Shows one attempt as recorded: the request, the answer, the assertion it "
                 "failed and, for the last failed or degraded exchanges of each endpoint, "
                 "both bodies."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("ID"), Text::tr("The attempt's id."));
    const QCommandLineOption db(QStringLiteral("db"), Text::tr("SQLite path or postgresql:// URL."),
                                QStringLiteral("URL"));
    const QCommandLineOption json(QStringLiteral("json"), Text::tr("Print one JSON object."));
    parser.addOptions({db, json});
    if (const auto problem = parseStrict(parser, kCommand, arguments, 1))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }
    const QStringList ids = parser.positionalArguments();
    const auto id = ids.size() == 1 ? parseInteger(ids.first(), 1, INT64_MAX) : std::nullopt;
    if (!id)
        return usageError(kCommand, Text::tr("expected one attempt id (a whole number above 0)"));

    const QString url = databaseUrl(parser, db);
    int openFailed = ExitOk;
    const std::unique_ptr<Store> store = openStoreFor(kCommand, url, Create::Never, &openFailed);
    if (!store)
        return openFailed;
    AttemptFilter filter;
    filter.afterId = *id - 1;
    filter.beforeId = *id + 1;
    filter.limit = 1;
    const QList<AttemptRecord> found = store->attempts(filter);
    if (found.isEmpty()) {
        if (!store->lastError().isEmpty())
            return runtimeError(kCommand, store->lastError());
        return usageError(kCommand, Text::tr("no attempt %1 in %2").arg(*id).arg(url));
    }
    const std::optional<KeptExchange> kept = store->keptExchange(*id);
    printOut(parser.isSet(json)
                 ? QString::fromUtf8(QJsonDocument(attemptJson(found.first(), kept)).toJson())
                 : attemptText(found.first(), kept) + QLatin1Char('\n'));
    return ExitOk;
}

} // namespace cooldown::cli
