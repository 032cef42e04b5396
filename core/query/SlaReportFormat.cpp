// SPDX-License-Identifier: Apache-2.0
#include "core/query/SlaReportFormat.h"

#include "core/store/CsvExporter.h"
#include "core/time/DurationText.h"

#include <QCoreApplication>
#include <QJsonArray>

namespace cooldown::slareport {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::report)
};

QString iso(qint64 ms)
{
    return QString::fromLatin1(CsvExporter::isoTime(ms));
}

QString optionalText(const std::optional<qint64> &value)
{
    return value ? QString::number(*value) : QString();
}

QString optionalPercent(const std::optional<double> &value)
{
    return value ? percentText(*value) : QString();
}

QString metText(const std::optional<bool> &met)
{
    if (!met)
        return QString();
    return *met ? QStringLiteral("yes") : QStringLiteral("no");
}

QString reasonsText(const QMap<QString, qint64> &reasons)
{
    QStringList parts;
    for (auto it = reasons.cbegin(); it != reasons.cend(); ++it)
        parts.append(QStringLiteral("%1=%2").arg(it.key()).arg(it.value()));
    return parts.join(QLatin1Char(';'));
}

QString intervalsText(const QList<SlaInterval> &intervals)
{
    QStringList parts;
    for (const SlaInterval &i : intervals)
        parts.append(iso(i.startMs) + QLatin1Char('/') + iso(i.endMs));
    return parts.join(QLatin1Char(';'));
}

qint64 totalMs(const QList<SlaInterval> &intervals)
{
    qint64 total = 0;
    for (const SlaInterval &i : intervals)
        total += i.durationMs();
    return total;
}

QJsonArray intervalsJson(const QList<SlaInterval> &intervals)
{
    QJsonArray out;
    for (const SlaInterval &i : intervals)
        out.append(QJsonObject{{QStringLiteral("start"), iso(i.startMs)},
                               {QStringLiteral("end"), iso(i.endMs)},
                               {QStringLiteral("duration_ms"), double(i.durationMs())}});
    return out;
}

QJsonValue optionalJson(const std::optional<qint64> &v)
{
    return v ? QJsonValue(double(*v)) : QJsonValue();
}

QJsonObject endpointJson(const SlaEndpointReport &e)
{
    QJsonObject reasons;
    for (auto it = e.failuresByReason.cbegin(); it != e.failuresByReason.cend(); ++it)
        reasons.insert(it.key(), double(it.value()));
    QJsonArray days;
    for (const SlaDay &d : e.days)
        days.append(QJsonObject{{QStringLiteral("date"), d.date.toString(Qt::ISODate)},
                                {QStringLiteral("counted"), double(d.counted)},
                                {QStringLiteral("available"), double(d.available)}});
    const std::optional<double> availability = e.availabilityPercent();
    const std::optional<double> share = e.share429Percent();
    const std::optional<bool> met = e.targetMet();
    return QJsonObject{
        {QStringLiteral("endpoint_id"), e.endpointId},
        {QStringLiteral("name"), e.name},
        {QStringLiteral("succeeded"), double(e.succeeded)},
        {QStringLiteral("failed"), double(e.failed)},
        {QStringLiteral("throttled_succeeded"), double(e.throttledSucceeded)},
        {QStringLiteral("degraded"), double(e.degraded)},
        {QStringLiteral("counted"), double(e.counted)},
        {QStringLiteral("available"), double(e.available)},
        {QStringLiteral("availability_percent"),
         availability ? QJsonValue(*availability) : QJsonValue()},
        {QStringLiteral("sla_target"), e.slaTarget >= 0 ? QJsonValue(e.slaTarget) : QJsonValue()},
        {QStringLiteral("target_met"), met ? QJsonValue(*met) : QJsonValue()},
        {QStringLiteral("attempts"), double(e.attempts)},
        {QStringLiteral("answered_429"), double(e.answered429)},
        {QStringLiteral("share_429_percent"), share ? QJsonValue(*share) : QJsonValue()},
        {QStringLiteral("latency_samples"), double(e.latencySamples)},
        {QStringLiteral("p50_ms"), optionalJson(e.p50Ms)},
        {QStringLiteral("p95_ms"), optionalJson(e.p95Ms)},
        {QStringLiteral("failures_by_reason"), reasons},
        {QStringLiteral("downtime_ms"), double(e.downtimeMs())},
        {QStringLiteral("downtime"), intervalsJson(e.downtime)},
        {QStringLiteral("maintenance"), intervalsJson(e.maintenance)},
        {QStringLiteral("days"), days},
    };
}

} // namespace

QString percentText(double percent)
{
    return QString::number(percent, 'f', 4);
}

QStringList csvColumnNames()
{
    return {QStringLiteral("from"),
            QStringLiteral("to"),
            QStringLiteral("endpoint_id"),
            QStringLiteral("name"),
            QStringLiteral("count_throttled"),
            QStringLiteral("maintenance"),
            QStringLiteral("succeeded"),
            QStringLiteral("failed"),
            QStringLiteral("throttled_succeeded"),
            QStringLiteral("degraded"),
            QStringLiteral("available"),
            QStringLiteral("counted"),
            QStringLiteral("availability_percent"),
            QStringLiteral("sla_target"),
            QStringLiteral("target_met"),
            QStringLiteral("attempts"),
            QStringLiteral("answered_429"),
            QStringLiteral("share_429_percent"),
            QStringLiteral("latency_samples"),
            QStringLiteral("p50_ms"),
            QStringLiteral("p95_ms"),
            QStringLiteral("downtime_ms"),
            QStringLiteral("downtime"),
            QStringLiteral("maintenance_ms"),
            QStringLiteral("failures_by_reason")};
}

QByteArray toCsv(const SlaReport &report)
{
    QByteArray out = csvColumnNames().join(QLatin1Char(',')).toUtf8() + "\r\n";
    for (const SlaEndpointReport &e : report.endpoints) {
        const QStringList cells = {iso(report.fromMs),
                                   iso(report.toMs),
                                   e.endpointId,
                                   e.name,
                                   throttledRuleName(report.throttled),
                                   maintenanceRuleName(report.maintenanceRule),
                                   QString::number(e.succeeded),
                                   QString::number(e.failed),
                                   QString::number(e.throttledSucceeded),
                                   QString::number(e.degraded),
                                   QString::number(e.available),
                                   QString::number(e.counted),
                                   optionalPercent(e.availabilityPercent()),
                                   e.slaTarget >= 0 ? QString::number(e.slaTarget) : QString(),
                                   metText(e.targetMet()),
                                   QString::number(e.attempts),
                                   QString::number(e.answered429),
                                   optionalPercent(e.share429Percent()),
                                   QString::number(e.latencySamples),
                                   optionalText(e.p50Ms),
                                   optionalText(e.p95Ms),
                                   QString::number(e.downtimeMs()),
                                   intervalsText(e.downtime),
                                   QString::number(totalMs(e.maintenance)),
                                   reasonsText(e.failuresByReason)};
        QByteArrayList row;
        for (const QString &cell : cells)
            row.append(CsvExporter::textCell(cell));
        out += row.join(',') + "\r\n";
    }
    return out;
}

QJsonObject toJson(const SlaReport &report)
{
    QJsonArray endpoints;
    for (const SlaEndpointReport &e : report.endpoints)
        endpoints.append(endpointJson(e));
    return QJsonObject{{QStringLiteral("from"), iso(report.fromMs)},
                       {QStringLiteral("to"), iso(report.toMs)},
                       {QStringLiteral("count_throttled"), throttledRuleName(report.throttled)},
                       {QStringLiteral("maintenance"), maintenanceRuleName(report.maintenanceRule)},
                       {QStringLiteral("rule"), report.ruleText()},
                       {QStringLiteral("endpoints"), endpoints}};
}

QString toText(const SlaReport &report)
{
    QString text = Text::tr("SLA report from %1 to %2\n").arg(iso(report.fromMs), iso(report.toMs));
    text += report.ruleText() + QLatin1Char('\n');
    if (report.endpoints.isEmpty())
        text += Text::tr("No endpoint had attempts in the range.\n");
    for (const SlaEndpointReport &e : report.endpoints) {
        text += QLatin1Char('\n') +
                (e.name.isEmpty() ? e.endpointId
                                  : QStringLiteral("%1 (%2)").arg(e.name, e.endpointId)) +
                QLatin1Char('\n');
        const std::optional<double> availability = e.availabilityPercent();
        text += Text::tr("  availability: %1 % (%2 of %3 operations)\n")
                    .arg(availability ? percentText(*availability) : Text::tr("none counted"))
                    .arg(e.available)
                    .arg(e.counted);
        if (e.slaTarget >= 0) {
            const std::optional<bool> met = e.targetMet();
            text += Text::tr("  target: %1 %, %2\n")
                        .arg(e.slaTarget)
                        .arg(!met ? Text::tr("nothing counted")
                                  : (*met ? Text::tr("met") : Text::tr("missed")));
        }
        text += Text::tr("  succeeded %1 (after a 429 or 503: %2, degraded: %3), failed %4\n")
                    .arg(e.succeeded)
                    .arg(e.throttledSucceeded)
                    .arg(e.degraded)
                    .arg(e.failed);
        const std::optional<double> share = e.share429Percent();
        text += Text::tr("  attempts %1, answered 429: %2 (%3 %)\n")
                    .arg(e.attempts)
                    .arg(e.answered429)
                    .arg(share ? percentText(*share) : QStringLiteral("-"));
        text += Text::tr("  latency p50 <= %1 ms, p95 <= %2 ms (%3 answered attempts)\n")
                    .arg(e.p50Ms ? QString::number(*e.p50Ms) : QStringLiteral("-"),
                         e.p95Ms ? QString::number(*e.p95Ms) : QStringLiteral("-"))
                    .arg(e.latencySamples);
        for (auto it = e.failuresByReason.cbegin(); it != e.failuresByReason.cend(); ++it)
            text += Text::tr("  failed for %1: %2\n").arg(it.key()).arg(it.value());
        text += Text::tr("  downtime: %1 in %2 intervals\n")
                    .arg(durationText(e.downtimeMs()))
                    .arg(e.downtime.size());
        for (const SlaInterval &i : e.downtime)
            text += QStringLiteral("    %1 - %2 (%3)\n")
                        .arg(iso(i.startMs), iso(i.endMs), durationText(i.durationMs()));
        for (const SlaInterval &i : e.maintenance)
            text += Text::tr("  maintenance: %1 - %2 (%3)\n")
                        .arg(iso(i.startMs), iso(i.endMs), durationText(i.durationMs()));
    }
    return text;
}

} // namespace cooldown::slareport
