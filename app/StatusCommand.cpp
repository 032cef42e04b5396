// SPDX-License-Identifier: Apache-2.0
#include "app/StatusCommand.h"

#include "app/CommandLine.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace cooldown::cli {

namespace {

const QString kCommand = QStringLiteral("status");

// "10 per 5 s, burst 2" from the stored policy definition, or the pace itself.
QString describePace(const PartitionState &p)
{
    const QJsonObject policy = QJsonDocument::fromJson(p.definition.toUtf8()).object();
    if (policy.contains(QLatin1String("limit")))
        return Text::tr("%1 per %3 s (quota unit: %2), burst %4")
            .arg(policy.value(QLatin1String("limit")).toVariant().toString(),
                 policy.value(QLatin1String("quota_unit")).toString(QStringLiteral("request")),
                 policy.value(QLatin1String("window_seconds")).toVariant().toString(),
                 policy.value(QLatin1String("burst")).toVariant().toString());
    if (p.pace.isUnlimited())
        return Text::tr("no pace");
    return Text::tr("one unit every %1 ms, %2 at once")
        .arg(double(p.pace.intervalUs) / 1000.0)
        .arg(p.pace.capacity);
}

QJsonObject toJson(const PartitionState &p, qint64 nowMs)
{
    QJsonObject o;
    o[QLatin1String("policy_id")] = p.policyId;
    o[QLatin1String("partition_key")] = p.partitionKey;
    o[QLatin1String("policy_version")] = p.policyVersion;
    o[QLatin1String("policy")] = QJsonDocument::fromJson(p.definition.toUtf8()).object();
    o[QLatin1String("interval_ms")] = double(p.pace.intervalUs) / 1000.0;
    o[QLatin1String("capacity")] = double(p.pace.capacity);
    o[QLatin1String("tokens")] = double(p.availableUnits);
    o[QLatin1String("next_token_at")] =
        p.availableUnits > 0 ? QJsonValue() : QJsonValue(isoTime(p.nextTokenAtMs));
    const bool held = p.heldUntilMs > nowMs;
    o[QLatin1String("held_until")] = held ? QJsonValue(isoTime(p.heldUntilMs)) : QJsonValue();
    o[QLatin1String("hold_reason")] = held ? QJsonValue(p.holdReason) : QJsonValue();
    o[QLatin1String("pending")] = double(p.pending);
    o[QLatin1String("due")] = double(p.due);
    o[QLatin1String("conflict")] = p.conflict.isEmpty() ? QJsonValue() : QJsonValue(p.conflict);
    // What the server states about its quota, as the fleet counts it; null when nothing
    // is known (or it was forgotten).
    if (p.server.isKnown(nowMs)) {
        QJsonObject server;
        server[QLatin1String("quota")] = double(p.server.quota);
        server[QLatin1String("window_seconds")] = double(p.server.windowMs) / 1000.0;
        server[QLatin1String("remaining")] = double(p.server.available(p.pace.intervalUs, nowMs));
        server[QLatin1String("reset_at")] = isoTime(std::max(p.server.resetAtMs, nowMs));
        server[QLatin1String("forgotten_at")] = isoTime(p.server.knownUntilMs);
        server[QLatin1String("learned_from")] = p.learnedFrom;
        o[QLatin1String("server")] = server;
    } else {
        o[QLatin1String("server")] = QJsonValue();
    }
    // A pace measured from the refusals of a server that states nothing (MeasuredPace).
    const bool measured = p.isLearned() && !p.server.isKnown(nowMs) && !p.pace.isUnlimited();
    o[QLatin1String("measured_from")] = measured ? QJsonValue(p.learnedFrom) : QJsonValue();
    o[QLatin1String("tokens")] =
        p.availableUnits < 0 ? QJsonValue() : QJsonValue(double(p.availableUnits));
    return o;
}

// What `cooldown status` reads, in one go, before it prints anything.
struct StatusReading
{
    QString url;
    qint64 nowMs = 0;
    QList<WorkerLeases> workers;
    QList<PartitionState> partitions;
    QMap<OperationState, qint64> counts;
    qint64 due = 0;
    QList<CredentialStateRow> credentials;
    QList<EndpointHold> holds;
    QList<IncidentRecord> incidents; // open ones (docs/incidents.md)
    QList<WorkerOfflineRow> offline; // workers that find no network (docs/offline.md)
};

std::optional<StatusReading> readStatus(Store &store, const QString &url)
{
    StatusReading s;
    s.url = url;
    s.nowMs = SystemClock::instance().nowMs();
    s.workers = store.workers();
    const std::optional<QList<PartitionState>> partitions = store.partitions(s.nowMs);
    if (!partitions)
        return std::nullopt;
    s.partitions = *partitions;
    s.counts = store.countsByState();
    s.due = store.dueCount(s.nowMs);
    if (!store.lastError().isEmpty() && s.due < 0)
        return std::nullopt;
    const std::optional<QList<CredentialStateRow>> credentials = store.workerStates().credentials();
    if (!credentials)
        return std::nullopt;
    s.credentials = *credentials;
    const std::optional<QList<EndpointHold>> holds = store.endpointHolds();
    if (!holds)
        return std::nullopt;
    s.holds = *holds;
    const std::optional<QList<IncidentRecord>> incidents = store.incidents().list(true);
    if (!incidents)
        return std::nullopt;
    s.incidents = *incidents;
    const std::optional<QList<WorkerOfflineRow>> offline = store.workerStates().offline();
    if (!offline)
        return std::nullopt;
    s.offline = *offline;
    return s;
}

QJsonObject toJson(const CredentialStateRow &c)
{
    QJsonObject o;
    o[QLatin1String("credentials")] = c.credentialId;
    o[QLatin1String("worker_id")] = c.workerId;
    o[QLatin1String("state")] = c.phase;
    o[QLatin1String("valid_until")] =
        c.validUntilMs >= 0 ? QJsonValue(isoTime(c.validUntilMs)) : QJsonValue();
    o[QLatin1String("failing_since")] =
        c.failingSinceMs >= 0 ? QJsonValue(isoTime(c.failingSinceMs)) : QJsonValue();
    o[QLatin1String("next_try_at")] =
        c.nextTryAtMs >= 0 ? QJsonValue(isoTime(c.nextTryAtMs)) : QJsonValue();
    o[QLatin1String("last_error")] = c.lastError;
    o[QLatin1String("token_requests")] = double(c.tokenRequests);
    o[QLatin1String("updated_at")] = isoTime(c.updatedAtMs);
    return o;
}

QString statusJson(const StatusReading &s)
{
    QJsonObject out;
    out[QLatin1String("database")] = Store::displayUrl(s.url);
    out[QLatin1String("now")] = isoTime(s.nowMs);
    QJsonArray workerList;
    for (const WorkerLeases &w : s.workers) {
        QJsonObject o;
        o[QLatin1String("worker_id")] = w.workerId;
        o[QLatin1String("running")] = double(w.running);
        o[QLatin1String("on_standby")] = double(w.onStandby);
        o[QLatin1String("lease_expires_at")] = isoTime(w.leaseExpiresAtMs);
        o[QLatin1String("live")] = w.leaseExpiresAtMs > s.nowMs;
        workerList.append(o);
    }
    out[QLatin1String("workers")] = workerList;
    QJsonObject operations;
    for (const OperationState state : allOperationStates())
        operations[toString(state)] = double(s.counts.value(state));
    operations[QLatin1String("due")] = double(s.due);
    out[QLatin1String("operations")] = operations;
    QJsonArray partitionList;
    for (const PartitionState &p : s.partitions)
        partitionList.append(toJson(p, s.nowMs));
    out[QLatin1String("partitions")] = partitionList;
    QJsonArray credentialList;
    for (const CredentialStateRow &c : s.credentials)
        credentialList.append(toJson(c));
    out[QLatin1String("credentials")] = credentialList;
    // A hold whose end has passed is lifted by the next worker to look; until then it
    // is listed, marked ended, so that nobody reads it as standing.
    QJsonArray holdList;
    for (const EndpointHold &h : s.holds)
        holdList.append(QJsonObject{{QLatin1String("endpoint_id"), h.endpointId},
                                    {QLatin1String("held_until"), isoTime(h.untilMs)},
                                    {QLatin1String("reason"), h.reason},
                                    {QLatin1String("ended"), h.untilMs <= s.nowMs}});
    out[QLatin1String("endpoint_holds")] = holdList;
    QJsonArray incidentList;
    for (const IncidentRecord &i : s.incidents)
        incidentList.append(
            QJsonObject{{QLatin1String("id"), i.id},
                        {QLatin1String("cause"), i.cause},
                        {QLatin1String("opened_at"), isoTime(i.openedAtMs)},
                        {QLatin1String("endpoints"), QJsonArray::fromStringList(i.endpointIds)}});
    out[QLatin1String("incidents")] = incidentList;
    QJsonArray offlineList;
    for (const WorkerOfflineRow &w : s.offline)
        offlineList.append(
            QJsonObject{{QLatin1String("worker_id"), w.workerId},
                        {QLatin1String("offline_since"), isoTime(w.offlineSinceMs)}});
    out[QLatin1String("offline_workers")] = offlineList;
    return QString::fromUtf8(QJsonDocument(out).toJson(QJsonDocument::Indented));
}

QString partitionsText(const StatusReading &s)
{
    const qint64 now = s.nowMs;
    QString text = Text::tr("partitions: %1\n").arg(s.partitions.size());
    for (const PartitionState &p : s.partitions) {
        text += Text::tr("  %1/%2 (version %3, %4): ")
                    .arg(p.policyId, p.partitionKey)
                    .arg(p.policyVersion)
                    .arg(describePace(p));
        if (p.heldUntilMs > now)
            text += Text::tr("held until %1 (%2); ").arg(isoTime(p.heldUntilMs), p.holdReason);
        if (p.server.isKnown(now))
            text += Text::tr("the server states %1 per %2 s, %3 left until %4; ")
                        .arg(p.server.quota)
                        .arg(double(p.server.windowMs) / 1000.0)
                        .arg(p.server.available(p.pace.intervalUs, now))
                        .arg(isoTime(std::max(p.server.resetAtMs, now)));
        else if (p.isLearned() && !p.pace.isUnlimited())
            text += Text::tr("measured from the server's refusals (%1); ").arg(p.learnedFrom);
        if (p.pace.isUnlimited() && !p.server.isKnown(now))
            text += Text::tr("no token needed; ");
        else if (p.availableUnits > 0)
            text += Text::tr("tokens available: %1; ").arg(p.availableUnits);
        else
            text += Text::tr("next token at %1; ").arg(isoTime(p.nextTokenAtMs));
        text += Text::tr("%1 waiting, %2 due\n").arg(p.pending).arg(p.due);
        if (!p.conflict.isEmpty())
            text += Text::tr("    conflict: %1; the database's version is kept\n").arg(p.conflict);
    }
    return text;
}

QString credentialsText(const StatusReading &s)
{
    QString text;
    if (!s.credentials.isEmpty())
        text += Text::tr("credentials (each worker holds its own token): %1\n")
                    .arg(s.credentials.size());
    for (const CredentialStateRow &c : s.credentials) {
        text += QStringLiteral("  %1 @ %2: ").arg(c.credentialId, c.workerId);
        if (c.phase == QLatin1String("valid"))
            text += Text::tr("valid until %1").arg(isoTime(c.validUntilMs));
        else if (c.phase == QLatin1String("renewing"))
            text += Text::tr("renewing");
        else if (c.phase == QLatin1String("failing"))
            text += Text::tr("failing since %1, next try at %2 (%3)")
                        .arg(isoTime(c.failingSinceMs), isoTime(c.nextTryAtMs), c.lastError);
        else if (c.phase == QLatin1String("refused"))
            text += Text::tr("refused by the token endpoint since %1 (%2); operations that need "
                             "it are parked")
                        .arg(isoTime(c.failingSinceMs), c.lastError);
        else
            text += Text::tr("no token yet");
        text += Text::tr("; %1 token requests, as of %2\n")
                    .arg(c.tokenRequests)
                    .arg(isoTime(c.updatedAtMs));
    }
    return text;
}

QString holdsText(const StatusReading &s)
{
    QString text;
    for (const WorkerOfflineRow &w : s.offline)
        text += Text::tr("worker %1 offline since %2: no network; its work is held\n")
                    .arg(w.workerId, isoTime(w.offlineSinceMs));
    if (!s.holds.isEmpty())
        text += Text::tr("endpoints held: %1\n").arg(s.holds.size());
    for (const EndpointHold &h : s.holds)
        text += (h.untilMs > s.nowMs ? Text::tr("  %1  held until %2 (%3)\n")
                                     : Text::tr("  %1  held until %2 (%3), ended: lifted by the "
                                                "next worker to look\n"))
                    .arg(h.endpointId, isoTime(h.untilMs), h.reason);
    if (!s.incidents.isEmpty())
        text += Text::tr("incidents open: %1 (cooldown incidents)\n").arg(s.incidents.size());
    for (const IncidentRecord &i : s.incidents)
        text += Text::tr("  %1  %2 since %3 blocks %4\n")
                    .arg(QString::number(i.id), i.cause, isoTime(i.openedAtMs),
                         i.endpointIds.join(QLatin1Char(',')));
    return text;
}

// For people: in their language. Times stay ISO 8601 and counts plain, and the
// operation states keep the words of --json.
QString statusText(const StatusReading &s)
{
    QString text = Text::tr("database %1 at %2\n").arg(Store::displayUrl(s.url), isoTime(s.nowMs));
    text += Text::tr("workers (those holding a lease): %1\n").arg(s.workers.size());
    for (const WorkerLeases &w : s.workers)
        text += (w.leaseExpiresAtMs > s.nowMs ? Text::tr("  %1  running %2, lease until %3\n")
                                              : Text::tr("  %1  running %2, lease expired at %3\n"))
                    .arg(w.workerId)
                    .arg(w.running)
                    .arg(isoTime(w.leaseExpiresAtMs));
    text += Text::tr("operations:");
    for (const OperationState state : allOperationStates())
        text += QStringLiteral(" %1=%2").arg(toString(state)).arg(s.counts.value(state));
    text += Text::tr("; due now %1\n").arg(s.due);
    return text + holdsText(s) + partitionsText(s) + credentialsText(s);
}

} // namespace

int runStatus(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        Text::tr("Shows the workers sharing a database (from their live leases), each "
                 "partition's bucket, hold and queue, and the due backlog."));
    parser.addHelpOption();
    const QCommandLineOption db(QStringLiteral("db"), Text::tr("SQLite path or postgresql:// URL."),
                                QStringLiteral("URL"));
    const QCommandLineOption json(QStringLiteral("json"), Text::tr("Print one JSON object."));
    parser.addOptions({db, json});
    if (const auto problem = parseStrict(parser, kCommand, arguments))
        return usageError(kCommand, *problem);
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(helpText(parser, kCommand));
        return ExitOk;
    }

    const QString url = databaseUrl(parser, db);
    int openFailed = ExitOk;
    const std::unique_ptr<Store> store = openStoreFor(kCommand, url, Create::Never, &openFailed);
    if (!store)
        return openFailed;
    const std::optional<StatusReading> reading = readStatus(*store, url);
    if (!reading)
        return runtimeError(kCommand, store->lastError());
    printOut(parser.isSet(json) ? statusJson(*reading) : statusText(*reading));
    return ExitOk;
}

} // namespace cooldown::cli
