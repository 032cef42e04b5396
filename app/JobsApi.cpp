// SPDX-License-Identifier: Apache-2.0
#include "app/JobsApi.h"

#include "app/CommandLine.h"
#include "core/config/JobRequest.h"
#include "core/engine/EngineSession.h"
#include "core/engine/Intake.h"
#include "core/time/Clock.h"
#include "core/time/DurationText.h"

#include <QCryptographicHash>
#include <QJsonDocument>
#include <QUrl>
#include <QUrlQuery>

#include <algorithm>
#include <cmath>
#include <limits>

namespace cooldown {

namespace {

constexpr qint64 kDrainWindowMs = 60'000;
// A full queue that drained nothing in the last minute: ask again in a minute.
constexpr qint64 kUnknownDrainSeconds = 60;
constexpr qint64 kMaxRetryAfterSeconds = 3600;
// The problem type of the IETF RateLimit draft, which clients that follow it (and
// Cooldown itself) read as "wait for the window named in RateLimit".
const QString kQuotaExceeded =
    QStringLiteral("https://iana.org/assignments/http-problem-types#quota-exceeded");

QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
}

LocalResponse jsonResponse(int status, const QJsonObject &object)
{
    LocalResponse r;
    r.status = status;
    r.contentType = "application/json";
    r.body = json(object);
    return r;
}

// SHA-256 of both, compared byte by byte without an early exit: the time taken says
// nothing of how much of the token a guess got right, nor of its length.
bool sameSecret(const QByteArray &given, const QByteArray &expected)
{
    const QByteArray a = QCryptographicHash::hash(given, QCryptographicHash::Sha256);
    const QByteArray b = QCryptographicHash::hash(expected, QCryptographicHash::Sha256);
    unsigned char difference = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        difference |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    return difference == 0;
}

QString pointerToken(QString key)
{
    key.replace(QLatin1Char('~'), QLatin1String("~0"));
    key.replace(QLatin1Char('/'), QLatin1String("~1"));
    return key;
}

std::optional<qint64> idFrom(const QByteArray &text)
{
    bool ok = false;
    const qint64 id = text.toLongLong(&ok);
    if (!ok || id <= 0)
        return std::nullopt;
    return id;
}

LocalResponse methodNotAllowed(const QByteArray &allow)
{
    LocalResponse r =
        JobsApi::problem(405, QStringLiteral("use %1 here").arg(QString::fromLatin1(allow)));
    r.headers.append({"Allow", allow});
    return r;
}

} // namespace

JobsApi::JobsApi(EngineSession &engine, RandomSource &random) : m_engine(engine), m_random(random)
{}

bool JobsApi::handles(const LocalRequest &request)
{
    return request.path == "/v1" || request.path.startsWith("/v1/");
}

LocalResponse JobsApi::problem(int status, const QString &detail, const QJsonArray &errors,
                               const QString &type)
{
    QJsonObject o;
    o.insert(QStringLiteral("type"), type.isEmpty() ? QStringLiteral("about:blank") : type);
    o.insert(QStringLiteral("title"), QString::fromLatin1(LocalListener::reasonPhrase(status)));
    o.insert(QStringLiteral("status"), status);
    o.insert(QStringLiteral("detail"), detail);
    if (!errors.isEmpty())
        o.insert(QStringLiteral("errors"), errors);
    LocalResponse r = jsonResponse(status, o);
    r.contentType = "application/problem+json";
    return r;
}

QJsonObject JobsApi::pointerError(const QString &pathError)
{
    // JsonReader's paths: $, $[2], $.vars.rev, $[0].vars.rev
    QString pointer;
    QString detail = pathError;
    if (pathError.startsWith(QLatin1Char('$'))) {
        const qsizetype colon = pathError.indexOf(QLatin1String(": "));
        const QString path = colon < 0 ? pathError : pathError.left(colon);
        detail = colon < 0 ? QString() : pathError.mid(colon + 2);
        qsizetype i = 1;
        while (i < path.size()) {
            if (path.at(i) == QLatin1Char('[')) {
                const qsizetype close = path.indexOf(QLatin1Char(']'), i);
                pointer += QLatin1Char('/') + path.mid(i + 1, close - i - 1);
                i = close < 0 ? path.size() : close + 1;
            } else {
                // '.' then a key up to the next '.' or '['
                qsizetype end = i + 1;
                while (end < path.size() && path.at(end) != QLatin1Char('.') &&
                       path.at(end) != QLatin1Char('['))
                    ++end;
                pointer += QLatin1Char('/') + pointerToken(path.mid(i + 1, end - i - 1));
                i = end;
            }
        }
    }
    return QJsonObject{{QStringLiteral("pointer"), pointer}, {QStringLiteral("detail"), detail}};
}

std::optional<LocalResponse> JobsApi::refuseUnauthorized(const LocalRequest &request) const
{
    const QByteArray expected = m_engine.config().api.token;
    if (expected.isEmpty())
        return problem(404, QStringLiteral("the local API is off: the workspace sets no "
                                           "api.token (docs/local-api.md)"));
    const QByteArray authorization = request.header("authorization");
    const qsizetype space = authorization.indexOf(' ');
    const bool bearer =
        space > 0 && authorization.left(space).compare("Bearer", Qt::CaseInsensitive) == 0;
    if (bearer && sameSecret(authorization.mid(space + 1).trimmed(), expected))
        return std::nullopt;
    LocalResponse r =
        problem(401, authorization.isEmpty()
                         ? QStringLiteral("send the token as Authorization: Bearer TOKEN")
                         : QStringLiteral("the token is not the one in %1")
                               .arg(m_engine.config().api.tokenVariable));
    r.headers.append({"WWW-Authenticate", authorization.isEmpty()
                                              ? QByteArray("Bearer realm=\"cooldown\"")
                                              : QByteArray("Bearer realm=\"cooldown\", "
                                                           "error=\"invalid_token\"")});
    return r;
}

LocalResponse JobsApi::handle(const LocalRequest &request)
{
    if (auto refusal = refuseUnauthorized(request))
        return *refusal;
    const QList<QByteArray> parts = request.path.mid(1).split('/'); // v1, jobs, ...
    if (parts.size() == 4 && parts.at(1) == "endpoints") {
        if (parts.at(3) != "pause" && parts.at(3) != "resume")
            return problem(404, QStringLiteral("no such action; an endpoint has pause and resume"));
        if (request.method != "POST")
            return methodNotAllowed("POST");
        return endpointAction(QUrl::fromPercentEncoding(parts.at(2)), parts.at(3), request);
    }
    if (parts.size() < 2 || parts.at(1) != "jobs" || parts.size() > 4)
        return problem(
            404,
            QStringLiteral("no such resource; the API has /v1/jobs and /v1/endpoints/ID/pause"));
    if (parts.size() == 2) {
        if (request.method != "POST")
            return methodNotAllowed("POST");
        return postJobs(request);
    }
    const std::optional<qint64> id = idFrom(parts.at(2));
    if (!id)
        return problem(
            404, QStringLiteral("'%1' is not an operation id").arg(QString::fromUtf8(parts.at(2))));
    if (parts.size() == 3) {
        if (request.method != "GET" && request.method != "HEAD")
            return methodNotAllowed("GET");
        return getJob(*id);
    }
    if (parts.at(3) != "retry" && parts.at(3) != "cancel")
        return problem(404, QStringLiteral("no such action; an operation has retry and cancel"));
    if (request.method != "POST")
        return methodNotAllowed("POST");
    return operatorAction(*id, parts.at(3), request);
}

void JobsApi::noteLeftQueue(qint64 atMs)
{
    m_leftQueueAtMs.push_back(atMs);
    while (!m_leftQueueAtMs.empty() && m_leftQueueAtMs.front() < atMs - kDrainWindowMs)
        m_leftQueueAtMs.pop_front();
}

qint64 JobsApi::secondsUntilRoom(qint64 excess)
{
    const qint64 now = m_engine.clock().nowMs();
    while (!m_leftQueueAtMs.empty() && m_leftQueueAtMs.front() < now - kDrainWindowMs)
        m_leftQueueAtMs.pop_front();
    if (m_leftQueueAtMs.empty())
        return kUnknownDrainSeconds;
    const double perSecond = double(m_leftQueueAtMs.size()) / (kDrainWindowMs / 1000.0);
    return std::clamp<qint64>(qint64(std::ceil(double(excess) / perSecond)), 1,
                              kMaxRetryAfterSeconds);
}

QList<QPair<QByteArray, QByteArray>> JobsApi::queueHeaders(qint64 remaining,
                                                           qint64 resetSeconds) const
{
    QByteArray limit = "\"queue\";r=" + QByteArray::number(std::max<qint64>(0, remaining));
    if (resetSeconds > 0)
        limit += ";t=" + QByteArray::number(resetSeconds);
    return {
        {"RateLimit-Policy", "\"queue\";q=" + QByteArray::number(m_engine.config().api.maxQueued)},
        {"RateLimit", limit}};
}

LocalResponse JobsApi::postJobs(const LocalRequest &request)
{
    const ApiConfig &api = m_engine.config().api;
    const QByteArray contentType = request.header("content-type");
    if (!contentType.split(';').value(0).trimmed().toLower().endsWith("json"))
        return problem(415, QStringLiteral("send the jobs as application/json"));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return problem(400, QStringLiteral("the body is not JSON: %1 at byte %2")
                                .arg(parseError.errorString())
                                .arg(parseError.offset));
    const bool single = doc.isObject();
    if (!single && !doc.isArray())
        return problem(400, QStringLiteral("expected a job object or an array of them"));
    QList<JobRequest> jobs;
    QStringList paths;
    QJsonArray errors;
    const QJsonArray array = single ? QJsonArray{doc.object()} : doc.array();
    if (array.isEmpty())
        return problem(422, QStringLiteral("the array holds no job"),
                       {QJsonObject{{QStringLiteral("pointer"), QString()},
                                    {QStringLiteral("detail"), QStringLiteral("empty")}}});
    if (array.size() > api.maxJobsPerRequest)
        return problem(413, QStringLiteral("%1 jobs in one request; this workspace takes at "
                                           "most %2 (api.max_jobs_per_request)")
                                .arg(array.size())
                                .arg(api.maxJobsPerRequest));
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = single ? QStringLiteral("$") : QStringLiteral("$[%1]").arg(i);
        if (!array.at(i).isObject()) {
            errors.append(
                pointerError(path + QLatin1String(": ") + QStringLiteral("expected a job object")));
            continue;
        }
        QString error;
        auto job = JobRequest::fromJson(array.at(i).toObject(), path, &error);
        if (!job) {
            errors.append(pointerError(error));
            continue;
        }
        if (single && job->idempotencyKey.isEmpty())
            job->idempotencyKey = QString::fromUtf8(request.header("idempotency-key"));
        // Checked here as well as at intake, so that every bad job is named at once.
        if (const auto problem = checkJob(m_engine.config(), *job, path)) {
            errors.append(pointerError(*problem));
            continue;
        }
        jobs.append(*job);
        paths.append(path);
    }
    if (!errors.isEmpty())
        return problem(422,
                       QStringLiteral("%1 of %2 jobs refused; nothing was written")
                           .arg(errors.size())
                           .arg(array.size()),
                       errors);

    const EnqueueOutcome outcome =
        m_engine.enqueue(jobs, paths, api.maxQueued, m_random, m_queueCount);
    const qint64 queued = outcome.queued;
    const bool full = outcome.full;
    const IntakeReport &report = outcome.report;
    if (full) {
        const qint64 excess = queued + jobs.size() - api.maxQueued;
        const qint64 wait = secondsUntilRoom(excess);
        LocalResponse r =
            problem(429,
                    QStringLiteral("the queue holds %1 operations and takes at most %2 "
                                   "(api.max_queued); %3 more not taken, try again in %4 s")
                        .arg(queued)
                        .arg(api.maxQueued)
                        .arg(jobs.size())
                        .arg(wait),
                    {}, kQuotaExceeded);
        QJsonObject body = QJsonDocument::fromJson(r.body).object();
        body.insert(QStringLiteral("violated-policies"), QJsonArray{QStringLiteral("queue")});
        r.body = json(body);
        r.headers = queueHeaders(api.maxQueued - queued, wait);
        r.headers.append({"Retry-After", QByteArray::number(wait)});
        return r;
    }
    if (!report.databaseError.isEmpty()) {
        LocalResponse r = problem(503, QStringLiteral("the database failed, nothing was "
                                                      "written: %1")
                                           .arg(report.databaseError));
        r.headers.append({QByteArray("Retry-After"), QByteArray("5")});
        return r;
    }
    if (!report.refusals.isEmpty()) {
        for (const auto &[index, why] : std::as_const(report.refusals))
            errors.append(pointerError(why));
        return problem(report.keyConflicts.isEmpty() ? 422 : 409,
                       QStringLiteral("%1 of %2 jobs refused; nothing was written")
                           .arg(report.refusals.size())
                           .arg(jobs.size()),
                       errors);
    }
    QJsonArray accepted;
    for (qsizetype i = 0; i < jobs.size(); ++i) {
        const qint64 id = report.operationIds.at(i);
        accepted.append(
            QJsonObject{{QStringLiteral("id"), id},
                        {QStringLiteral("existed"), report.existed.at(i)},
                        {QStringLiteral("href"), QStringLiteral("/v1/jobs/%1").arg(id)}});
    }
    const int created = report.created();
    LocalResponse r = jsonResponse(created > 0 ? 201 : 200,
                                   single ? accepted.first().toObject()
                                          : QJsonObject{{QStringLiteral("jobs"), accepted}});
    if (single)
        r.headers.append(
            {"Location", "/v1/jobs/" + QByteArray::number(report.operationIds.first())});
    r.headers += queueHeaders(api.maxQueued - queued - created, 0);
    return r;
}

QJsonObject JobsApi::describe(const OperationRecord &op) const
{
    QJsonObject o{{QStringLiteral("id"), op.id},
                  {QStringLiteral("endpoint"), op.endpointId},
                  {QStringLiteral("state"), toString(op.state)},
                  {QStringLiteral("attempts"), op.attempt},
                  {QStringLiteral("throttled_attempts"), op.throttledAttempts},
                  {QStringLiteral("idempotency_key"), op.idempotencyKey}};
    const auto time = [&o](const char *name, qint64 ms) {
        if (ms >= 0)
            o.insert(QLatin1String(name), cli::isoTime(ms));
    };
    time("created_at", op.createdAtMs);
    time("first_attempt_at", op.firstAttemptAtMs);
    if (op.state == OperationState::Waiting || op.state == OperationState::Scheduled)
        time("next_attempt_at", op.nextAttemptAtMs);
    if (op.lastStatus > 0)
        o.insert(QStringLiteral("last_status"), op.lastStatus);
    if (!op.lastError.isEmpty())
        o.insert(QStringLiteral("last_error"), op.lastError);
    if (!op.finalReason.isEmpty())
        o.insert(QStringLiteral("reason"), op.finalReason);
    if (op.waitSource && op.state == OperationState::Waiting)
        o.insert(QStringLiteral("wait_source"), QLatin1String(textOf(*op.waitSource)));
    if (!op.partitionKey.isEmpty())
        o.insert(QStringLiteral("partition_key"), op.partitionKey);
    if (op.cancelRequested)
        o.insert(QStringLiteral("cancel_requested"), true);
    return o;
}

LocalResponse JobsApi::getJob(qint64 id)
{
    QString error;
    const Store::OperationLookup lookup = m_engine.lookUp(id, &error);
    switch (lookup.result) {
    case Store::OperationLookup::Result::Found:
        return jsonResponse(200, describe(lookup.record));
    case Store::OperationLookup::Result::Missing:
        return problem(404, QStringLiteral("no operation %1").arg(id));
    case Store::OperationLookup::Result::Failed:
        break;
    }
    return problem(503, QStringLiteral("the database failed: %1").arg(error));
}

LocalResponse JobsApi::operatorAction(qint64 id, const QByteArray &action,
                                      const LocalRequest &request)
{
    bool force =
        QUrlQuery(QString::fromUtf8(request.query)).queryItemValue(QStringLiteral("force")) ==
        QLatin1String("true");
    if (!request.body.trimmed().isEmpty()) {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
        const QJsonObject o = doc.object();
        if (parseError.error != QJsonParseError::NoError || !doc.isObject())
            return problem(400, QStringLiteral("expected a JSON object such as {\"force\": true}"));
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.key() != QLatin1String("force") || action != "retry" || !it.value().isBool())
                return problem(
                    422, QStringLiteral("unexpected member"),
                    {pointerError(
                        QStringLiteral("$.%1: %2")
                            .arg(it.key(), action == "retry"
                                               ? QStringLiteral("expected \"force\": true or false")
                                               : QStringLiteral("cancel takes no options")))});
            force = it.value().toBool();
        }
    }
    const OperationActionOutcome outcome =
        action == "retry" ? m_engine.retryOne(id, force) : m_engine.cancelOne(id);
    const Store::OperatorResult result = outcome.result;
    const QString &why = outcome.error;
    const std::optional<OperationRecord> &after = outcome.after;
    switch (result) {
    case Store::OperatorResult::Done:
        return jsonResponse(200, after ? describe(*after) : QJsonObject{});
    case Store::OperatorResult::Pending: {
        LocalResponse r = jsonResponse(202, after ? describe(*after) : QJsonObject{});
        return r;
    }
    case Store::OperatorResult::Refused:
        return problem(409, why);
    case Store::OperatorResult::NotFound:
        return problem(404, QStringLiteral("no operation %1").arg(id));
    case Store::OperatorResult::Failed:
        break;
    }
    return problem(503, QStringLiteral("the database failed: %1").arg(why));
}

LocalResponse JobsApi::endpointAction(const QString &endpointId, const QByteArray &action,
                                      const LocalRequest &request)
{
    if (!m_engine.config().endpoint(endpointId))
        return problem(404, QStringLiteral("no endpoint '%1' in the workspace").arg(endpointId));
    std::optional<qint64> forMs;
    QString reason;
    if (!request.body.trimmed().isEmpty()) {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject())
            return problem(400, QStringLiteral("expected a JSON object such as {\"for\": \"2h\"}"));
        const QJsonObject o = doc.object();
        for (auto it = o.begin(); it != o.end(); ++it) {
            QString why;
            if (action != "pause")
                why = QStringLiteral("resume takes no options");
            else if (it.key() == QLatin1String("for") &&
                     !(forMs = parseDurationMs(it.value().toString())))
                why = QStringLiteral("expected a span such as \"90m\", \"2h\" or \"1d12h\"");
            else if (it.key() == QLatin1String("reason") && it.value().isString())
                reason = it.value().toString();
            else if (it.key() != QLatin1String("for"))
                why = QStringLiteral("unexpected member (expected for and reason)");
            if (!why.isEmpty())
                return problem(422, QStringLiteral("unexpected member"),
                               {pointerError(QStringLiteral("$.%1: %2").arg(it.key(), why))});
        }
        if (!reason.isEmpty() && !forMs)
            return problem(422, QStringLiteral("unexpected member"),
                           {pointerError(QStringLiteral("$.reason: applies to a pause with for"))});
    }
    AuditRecord audit;
    audit.atMs = m_engine.clock().nowMs();
    audit.actor = QStringLiteral("local API");
    audit.workerId = m_engine.workerId();
    audit.action = action == "pause" ? OperatorAction::Pause : OperatorAction::Resume;
    audit.target = endpointListTarget({endpointId});
    audit.asked = 1;
    if (forMs)
        audit.target += QStringLiteral(" for=") + durationText(*forMs);
    if (forMs && reason.isEmpty())
        reason = QStringLiteral("paused through the local API for %1").arg(durationText(*forMs));
    const EndpointActionOutcome outcome =
        forMs ? m_engine.holdEndpointNow(endpointId, *forMs, reason, &audit)
              : m_engine.setEndpointPausedNow(endpointId, action == "pause", &audit);
    if (!outcome.applied)
        return problem(503, QStringLiteral("the database failed: %1").arg(outcome.error));
    QJsonObject o{
        {QStringLiteral("endpoint"), endpointId},
        {QStringLiteral("paused"), outcome.paused},
        {QStringLiteral("held_until"),
         outcome.hold ? QJsonValue(cli::isoTime(outcome.hold->untilMs)) : QJsonValue()},
        {QStringLiteral("reason"), outcome.hold ? QJsonValue(outcome.hold->reason) : QJsonValue()}};
    return jsonResponse(200, o);
}

} // namespace cooldown
