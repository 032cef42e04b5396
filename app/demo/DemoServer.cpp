// SPDX-License-Identifier: Apache-2.0
#include "app/demo/DemoServer.h"

#include "app/demo/DemoBehaviour.h"
#include "app/demo/DemoLimiter.h"
#include "app/demo/IdempotencyLedger.h"
#include "core/http/HttpDate.h"
#include "core/http/StructuredFields.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QElapsedTimer>
#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrlQuery>

#include <map>
#include <optional>

namespace cooldown {

namespace {

// Arrival times kept per client key in the stats.
constexpr qsizetype kMaxArrivalsPerKey = 10000;

using Header = QPair<QByteArray, QByteArray>;
using HeaderList = QList<Header>;
using demo::Behaviour;
using demo::IdempotencyLedger;
using demo::LimiterKind;
using demo::LimitResult;
using demo::RetryAfterForm;
using demo::Route;
using Method = QHttpServerRequest::Method;

// Everything decided when a request is admitted, carried out when its answer is due.
struct Outcome
{
    qint64 requestId = 0;
    QString path;
    QByteArray method;
    bool head = false;
    bool created = false; // POST answers 201
    QString key;
    QString idempotencyKey; // empty when the request has none
    bool ledgered = false;  // the key is in flight in the ledger
    int failStatus = 0;     // 0: the payload runs
    bool drop = false;
    qint64 bodyBytes = -1;
    QString answer;
    qint64 receivedBytes = 0;
    QByteArray receivedSha256;
    HeaderList limitHeaders;
};

struct Pending
{
    std::unique_ptr<QHttpServerResponder> responder;
    QPointer<QTcpSocket> socket;
    Outcome outcome;
    bool hung = false;
};

// A data request as it arrives, counted and read, before anything is decided.
struct Arrival
{
    qint64 requestId = 0;
    qint64 nowMs = 0;
    QString path;
    Method method = Method::Unknown;
    const Route *route = nullptr; // nullptr for /api/<anything> and unknown paths
    bool routed = false;          // a route of its own, or /api/<anything>
    Behaviour behaviour;
    std::optional<QString> parameterError; // why the query was refused
    std::optional<QByteArray> rawKey;      // the Idempotency-Key field as sent
    std::optional<QString> idempotencyKey; // as read; nullopt when absent or malformed
    QString keyError;                      // why it is malformed
    QString counterKey;                    // path and key: limits and maintenance are kept per it

    bool isWrite() const { return method == Method::Post || method == Method::Patch; }
};

// FNV-1a: a hash that is the same in every process (qHash is seeded per process).
quint64 stableHash(const QString &text)
{
    quint64 hash = 14695981039346656037ULL;
    for (const char c : text.toUtf8()) {
        hash ^= quint8(c);
        hash *= 1099511628211ULL;
    }
    return hash;
}

qint64 ceilDiv1000(qint64 ms)
{
    return ms <= 0 ? 0 : (ms + 999) / 1000;
}

// The Retry-After value for a wait, rounded up so that a client obeying it is never early.
std::optional<QByteArray> retryAfterValue(RetryAfterForm form, qint64 nowMs, qint64 waitMs)
{
    const qint64 atMs = ceilDiv1000(nowMs + waitMs) * 1000;
    switch (form) {
    case RetryAfterForm::Seconds:
        return QByteArray::number(ceilDiv1000(waitMs));
    case RetryAfterForm::ImfFixdate:
        return HttpDate::format(atMs);
    case RetryAfterForm::Rfc850:
        return HttpDate::format(atMs, HttpDate::Form::Rfc850);
    case RetryAfterForm::Asctime:
        return HttpDate::format(atMs, HttpDate::Form::Asctime);
    case RetryAfterForm::Malformed:
        return QByteArrayLiteral("soon");
    case RetryAfterForm::None:
        break;
    }
    return std::nullopt;
}

HeaderList limitHeaders(const Behaviour &b, const LimitResult &limit, qint64 nowMs)
{
    HeaderList headers;
    if (b.draftHeaders) {
        // The query parser lets only letters, digits and "-_." into a policy name: an
        // sf-string holds them all.
        const QByteArray name = StructuredFields::serializeString(b.policy).value_or(QByteArray());
        headers.append({QByteArrayLiteral("RateLimit-Policy"),
                        name + ";q=" + QByteArray::number(limit.limit) +
                            ";w=" + QByteArray::number(limit.windowSeconds)});
        headers.append(
            {QByteArrayLiteral("RateLimit"), name + ";r=" + QByteArray::number(limit.remaining) +
                                                 ";t=" + QByteArray::number(limit.resetSeconds)});
    }
    if (b.xHeaders) {
        headers.append({QByteArrayLiteral("X-RateLimit-Limit"), QByteArray::number(limit.limit)});
        headers.append(
            {QByteArrayLiteral("X-RateLimit-Remaining"), QByteArray::number(limit.remaining)});
        const qint64 reset =
            b.xResetEpoch ? ceilDiv1000(nowMs + limit.resetMs) : limit.resetSeconds;
        headers.append({QByteArrayLiteral("X-RateLimit-Reset"), QByteArray::number(reset)});
    }
    return headers;
}

QString problemTitle(const QString &type)
{
    if (type == QLatin1String("quota-exceeded"))
        return QStringLiteral("Request cannot be satisfied as assigned quota has been exceeded");
    if (type == QLatin1String("temporary-reduced-capacity"))
        return QStringLiteral(
            "Request cannot be satisfied due to temporary server capacity constraints");
    return QStringLiteral("Request not satisfied due to detection of abnormal request pattern");
}

QByteArray reasonPhrase(int status)
{
    switch (status) {
    case 500:
        return QByteArrayLiteral("Internal Server Error");
    case 502:
        return QByteArrayLiteral("Bad Gateway");
    case 503:
        return QByteArrayLiteral("Service Unavailable");
    case 504:
        return QByteArrayLiteral("Gateway Timeout");
    default:
        break;
    }
    return QByteArrayLiteral("Error");
}

QByteArray methodName(Method method)
{
    switch (method) {
    case Method::Get:
        return QByteArrayLiteral("GET");
    case Method::Put:
        return QByteArrayLiteral("PUT");
    case Method::Delete:
        return QByteArrayLiteral("DELETE");
    case Method::Post:
        return QByteArrayLiteral("POST");
    case Method::Head:
        return QByteArrayLiteral("HEAD");
    case Method::Options:
        return QByteArrayLiteral("OPTIONS");
    case Method::Patch:
        return QByteArrayLiteral("PATCH");
    case Method::Connect:
        return QByteArrayLiteral("CONNECT");
    case Method::Trace:
        return QByteArrayLiteral("TRACE");
    default:
        break;
    }
    return QByteArrayLiteral("UNKNOWN");
}

std::optional<QByteArray> requestHeader(const QHttpServerRequest &request, QByteArrayView name)
{
    for (const auto &[fieldName, value] : request.headers()) {
        if (fieldName.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return std::nullopt;
}

// What the answer to an admitted request will need, once the ledger has had its say.
Outcome outcomeOf(const Arrival &a, const QHttpServerRequest &request,
                  const HeaderList &rateHeaders)
{
    Outcome outcome;
    outcome.requestId = a.requestId;
    outcome.path = a.path;
    outcome.method = methodName(a.method);
    outcome.head = a.method == Method::Head;
    outcome.created = a.method == Method::Post;
    outcome.key = a.behaviour.key;
    outcome.bodyBytes = a.behaviour.bodyBytes;
    outcome.answer = a.behaviour.answer;
    outcome.receivedBytes = request.body().size();
    outcome.receivedSha256 =
        QCryptographicHash::hash(request.body(), QCryptographicHash::Sha256).toHex();
    outcome.limitHeaders = rateHeaders;
    return outcome;
}

} // namespace

struct DemoServer::Impl
{
    Impl(DemoServer *owner, Clock &c) : q(owner), clock(c) { uptime.start(); }

    void handle(const QHttpServerRequest &request, QHttpServerResponder &&responder);
    // The steps of handle(), in the order of DemoServer.h; one that answers the
    // request returns true, and handle() stops there.
    Arrival arrive(const QHttpServerRequest &request);
    bool refuseUnroutable(const Arrival &arrival, QHttpServerResponder &responder);
    bool answerMaintenance(const Arrival &arrival, QHttpServerResponder &responder);
    bool answerRateLimit(const Arrival &arrival, HeaderList &rateHeaders,
                         QHttpServerResponder &responder);
    bool answerFromLedger(const Arrival &arrival, const QHttpServerRequest &request,
                          Outcome &outcome, QHttpServerResponder &responder);
    void chooseFailure(const Arrival &arrival, Outcome &outcome);
    void dispatch(const Behaviour &behaviour, const Outcome &outcome,
                  QHttpServerResponder &&responder);
    void handleControl(const QHttpServerRequest &request, QHttpServerResponder &responder);
    void finish(quint64 pendingId);
    void execute(Pending &pending);

    void answer(QHttpServerResponder &responder, int status, const QByteArray &contentType,
                const QByteArray &body, const HeaderList &headers, qint64 requestId,
                bool head = false);
    void answerProblem(QHttpServerResponder &responder, int status, const QString &type,
                       const QString &title, const QString &detail, qint64 requestId,
                       HeaderList headers = {}, const QJsonObject &extra = {});
    void answerJson(QHttpServerResponder &responder, const QJsonObject &object);

    DemoStats snapshot() const;
    void reset();
    void dropConnections();

    DemoServer *const q;
    Clock &clock;
    QElapsedTimer uptime; // arrival times in the stats; not restarted by a reset
    QHttpServer *http = nullptr;
    QPointer<QTcpServer> tcp;
    QString error;

    DemoStats stats;
    demo::DemoLimiter limiter;
    IdempotencyLedger ledger;
    QHash<QString, qint64> failCounters;
    QHash<QString, qint64> dropCounters;
    QHash<QString, qint64> maintenanceStarts;
    qint64 maintenanceUntilMs = 0;
    qint64 lastRequestId = 0;
    quint64 lastPendingId = 0;
    std::map<quint64, Pending> pending;
};

void DemoServer::Impl::answer(QHttpServerResponder &responder, int status,
                              const QByteArray &contentType, const QByteArray &body,
                              const HeaderList &headers, qint64 requestId, bool head)
{
    QTcpSocket *socket = responder.socket();
    if (!socket || socket->state() != QAbstractSocket::ConnectedState)
        return;
    responder.writeStatusLine(QHttpServerResponder::StatusCode(status));
    responder.writeHeader(QByteArrayLiteral("Date"), HttpDate::format(clock.nowMs()));
    if (requestId > 0)
        responder.writeHeader(QByteArrayLiteral("X-Request-Id"), QByteArray::number(requestId));
    if (!contentType.isEmpty())
        responder.writeHeader(QByteArrayLiteral("Content-Type"), contentType);
    responder.writeHeader(QByteArrayLiteral("Content-Length"), QByteArray::number(body.size()));
    for (const auto &[name, value] : headers)
        responder.writeHeader(name, value);
    responder.writeBody(head ? QByteArray() : body);
    if (requestId > 0)
        ++stats.responsesByStatus[status];
}

void DemoServer::Impl::answerProblem(QHttpServerResponder &responder, int status,
                                     const QString &type, const QString &title,
                                     const QString &detail, qint64 requestId, HeaderList headers,
                                     const QJsonObject &extra)
{
    QJsonObject problem = extra;
    problem.insert(QStringLiteral("type"), type);
    problem.insert(QStringLiteral("title"), title);
    problem.insert(QStringLiteral("status"), status);
    problem.insert(QStringLiteral("detail"), detail);
    if (requestId > 0)
        problem.insert(QStringLiteral("instance"), QStringLiteral("/requests/%1").arg(requestId));
    answer(responder, status, QByteArrayLiteral("application/problem+json"),
           QJsonDocument(problem).toJson(QJsonDocument::Compact), headers, requestId);
}

void DemoServer::Impl::answerJson(QHttpServerResponder &responder, const QJsonObject &object)
{
    answer(responder, 200, QByteArrayLiteral("application/json"),
           QJsonDocument(object).toJson(QJsonDocument::Compact), {}, 0);
}

void DemoServer::Impl::handle(const QHttpServerRequest &request, QHttpServerResponder &&responder)
{
    if (request.url().path().startsWith(QLatin1String("/_"))) {
        handleControl(request, responder);
        return;
    }
    const Arrival arrival = arrive(request);
    if (refuseUnroutable(arrival, responder) || answerMaintenance(arrival, responder))
        return;
    HeaderList rateHeaders;
    if (answerRateLimit(arrival, rateHeaders, responder))
        return;
    Outcome outcome = outcomeOf(arrival, request, rateHeaders);
    if (answerFromLedger(arrival, request, outcome, responder))
        return;
    chooseFailure(arrival, outcome);
    dispatch(arrival.behaviour, outcome, std::move(responder));
}

// Reads the request's route, query and Idempotency-Key, and counts it in the stats.
Arrival DemoServer::Impl::arrive(const QHttpServerRequest &request)
{
    Arrival a;
    a.requestId = ++lastRequestId;
    a.nowMs = clock.nowMs();
    a.path = request.url().path();
    a.method = request.method();
    a.rawKey = requestHeader(request, "Idempotency-Key");
    if (a.rawKey)
        a.idempotencyKey = demo::parseIdempotencyKey(*a.rawKey, &a.keyError);
    a.route = demo::findRoute(a.path);
    a.routed = a.route || a.path.startsWith(QLatin1String("/api/"));
    if (a.routed) {
        a.parameterError = demo::parseBehaviour(a.route ? a.route->defaults : "",
                                                QUrlQuery(request.url()), a.behaviour);
    }
    a.counterKey = a.path + QLatin1Char('\n') + a.behaviour.key;

    ++stats.totalRequests;
    ++stats.requestsByPath[a.path];
    ++stats.requestsByKey[a.behaviour.key];
    QList<qint64> &arrivals = stats.arrivalsMsByKey[a.behaviour.key];
    arrivals.append(uptime.elapsed());
    if (arrivals.size() > kMaxArrivalsPerKey) // a long-running demo keeps the recent ones
        arrivals.removeFirst();
    if (a.rawKey)
        ++stats.requestsByIdempotencyKey[a.idempotencyKey.value_or(QString::fromLatin1(*a.rawKey))];
    emit q->requestReceived(a.path, a.requestId);
    return a;
}

// 404 for a path with no route, 400 for a bad query, 405 for a method the route refuses.
bool DemoServer::Impl::refuseUnroutable(const Arrival &a, QHttpServerResponder &responder)
{
    if (!a.routed) {
        answerProblem(
            responder, 404, QStringLiteral("about:blank"), QStringLiteral("Not Found"),
            QStringLiteral("no route '%1'; see GET /_stats for what was seen").arg(a.path),
            a.requestId);
        return true;
    }
    if (a.parameterError) {
        answerProblem(responder, 400, QStringLiteral("/problems/bad-query-parameter"),
                      QStringLiteral("Bad query parameter"), *a.parameterError, a.requestId);
        return true;
    }
    if (a.route && a.route->writeOnly && !a.isWrite()) {
        answerProblem(responder, 405, QStringLiteral("about:blank"),
                      QStringLiteral("Method Not Allowed"),
                      QStringLiteral("%1 takes POST or PATCH").arg(a.path), a.requestId,
                      {{QByteArrayLiteral("Allow"), QByteArrayLiteral("POST, PATCH")}});
        return true;
    }
    return false;
}

// 503: the whole API first, then this route's own window.
bool DemoServer::Impl::answerMaintenance(const Arrival &a, QHttpServerResponder &responder)
{
    const Behaviour &behaviour = a.behaviour;
    qint64 maintenanceEndMs = maintenanceUntilMs > a.nowMs ? maintenanceUntilMs : 0;
    if (maintenanceEndMs == 0 && behaviour.maintenanceForMs > 0) {
        const qint64 startMs = maintenanceStarts.value(a.counterKey, a.nowMs);
        maintenanceStarts.insert(a.counterKey, startMs);
        if (a.nowMs < startMs + behaviour.maintenanceForMs)
            maintenanceEndMs = startMs + behaviour.maintenanceForMs;
    }
    if (maintenanceEndMs == 0 && behaviour.maintenanceUntilMs > a.nowMs)
        maintenanceEndMs = behaviour.maintenanceUntilMs;
    if (maintenanceEndMs == 0)
        return false;
    HeaderList headers;
    if (const auto value =
            retryAfterValue(behaviour.retryAfter, a.nowMs, maintenanceEndMs - a.nowMs))
        headers.append({QByteArrayLiteral("Retry-After"), *value});
    answerProblem(responder, 503, QStringLiteral("/problems/maintenance"),
                  QStringLiteral("Down for maintenance"),
                  QStringLiteral("back at %1")
                      .arg(QDateTime::fromMSecsSinceEpoch(maintenanceEndMs, Qt::UTC)
                               .toString(Qt::ISODateWithMs)),
                  a.requestId, headers);
    return true;
}

// 429 when the route's limiter has no room; rateHeaders gets the quota headers every
// answer on a limited route carries.
bool DemoServer::Impl::answerRateLimit(const Arrival &a, HeaderList &rateHeaders,
                                       QHttpServerResponder &responder)
{
    const Behaviour &behaviour = a.behaviour;
    if (behaviour.limiter == LimiterKind::None)
        return false;
    const LimitResult limit =
        behaviour.limiter == LimiterKind::FixedWindow
            ? limiter.fixedWindow(a.counterKey, a.nowMs, behaviour.limit, behaviour.windowMs)
            : limiter.tokenBucket(a.counterKey, a.nowMs, behaviour.capacity, behaviour.rate);
    rateHeaders = limitHeaders(behaviour, limit, a.nowMs);
    if (limit.allowed)
        return false;
    HeaderList headers = rateHeaders;
    if (const auto value = retryAfterValue(behaviour.retryAfter, a.nowMs, limit.retryAfterMs))
        headers.prepend({QByteArrayLiteral("Retry-After"), *value});
    if (behaviour.problem.isEmpty()) {
        answer(responder, 429, QByteArrayLiteral("text/plain"),
               QByteArrayLiteral("Too Many Requests\n"), headers, a.requestId);
        return true;
    }
    const QString detail =
        QStringLiteral("the quota of %1 for key '%2' on %3 is used up; it is back in %4 s")
            .arg(limit.limit)
            .arg(behaviour.key, a.path)
            .arg(ceilDiv1000(limit.retryAfterMs));
    answerProblem(responder, 429,
                  QStringLiteral("https://iana.org/assignments/http-problem-types#") +
                      behaviour.problem,
                  problemTitle(behaviour.problem), detail, a.requestId, headers,
                  {{QStringLiteral("violated-policies"), QJsonArray{behaviour.policy}}});
    return true;
}

// POST and PATCH: 400 for a malformed or missing key, 422 for a key reused with another
// request, 409 while its first request runs, the stored answer for a repeat. A key the
// ledger lets through is taken into the outcome.
bool DemoServer::Impl::answerFromLedger(const Arrival &a, const QHttpServerRequest &request,
                                        Outcome &outcome, QHttpServerResponder &responder)
{
    if (!a.isWrite()) {
        if (a.idempotencyKey)
            outcome.idempotencyKey = *a.idempotencyKey;
        return false;
    }
    if (a.rawKey && !a.idempotencyKey) {
        answerProblem(responder, 400, QStringLiteral("/problems/idempotency-key-malformed"),
                      QStringLiteral("Malformed Idempotency-Key"),
                      QStringLiteral("Idempotency-Key: %1").arg(a.keyError), a.requestId);
        return true;
    }
    if (!a.rawKey && a.behaviour.requireKey) {
        answerProblem(responder, 400, QStringLiteral("/problems/idempotency-key-missing"),
                      QStringLiteral("Idempotency-Key is missing"),
                      QStringLiteral("%1 %2 needs an Idempotency-Key header")
                          .arg(QLatin1String(outcome.method), a.path),
                      a.requestId);
        return true;
    }
    if (!a.idempotencyKey)
        return false;
    const QString &key = *a.idempotencyKey;
    const IdempotencyLedger::Check check = ledger.begin(
        key, IdempotencyLedger::fingerprint(outcome.method, a.path.toUtf8(), request.body()));
    switch (check.verdict) {
    case IdempotencyLedger::Verdict::Mismatch:
        answerProblem(responder, 422, QStringLiteral("/problems/idempotency-key-reused"),
                      QStringLiteral("Idempotency-Key reused"),
                      QStringLiteral("the key '%1' was used with another request").arg(key),
                      a.requestId);
        return true;
    case IdempotencyLedger::Verdict::InFlight:
        answerProblem(responder, 409, QStringLiteral("/problems/idempotency-key-in-use"),
                      QStringLiteral("Idempotency-Key in use"),
                      QStringLiteral("the first request with key '%1' is still running").arg(key),
                      a.requestId);
        return true;
    case IdempotencyLedger::Verdict::Replay: {
        ++stats.replayed;
        HeaderList headers = outcome.limitHeaders;
        headers.append({QByteArrayLiteral("Idempotent-Replayed"), QByteArrayLiteral("true")});
        answer(responder, check.stored.status, check.stored.contentType, check.stored.body, headers,
               a.requestId);
        return true;
    }
    case IdempotencyLedger::Verdict::Execute:
        outcome.idempotencyKey = key;
        outcome.ledgered = true;
        break;
    }
    return false;
}

// fail_first and fail_rate, then drop_first. Failures and drops are counted per
// operation: per Idempotency-Key when there is one, so that each operation's retries
// see the same pattern.
void DemoServer::Impl::chooseFailure(const Arrival &a, Outcome &outcome)
{
    const Behaviour &behaviour = a.behaviour;
    const QString failKey = outcome.idempotencyKey.isEmpty()
                                ? a.counterKey
                                : a.path + QLatin1String("\nidempotency:") + outcome.idempotencyKey;
    const qint64 attempt = ++failCounters[failKey];
    bool fail = attempt <= behaviour.failFirst;
    if (!fail && behaviour.failRate > 0) {
        SeededRandom random(behaviour.seed ^ stableHash(failKey) ^
                            (quint64(attempt) * 0x9E3779B97F4A7C15ULL));
        fail = random.uniform01() < behaviour.failRate;
    }
    if (fail)
        outcome.failStatus = behaviour.failStatus;
    else if (behaviour.dropFirst > 0)
        outcome.drop = ++dropCounters[failKey] <= behaviour.dropFirst;
}

// hang, delay_ms or at once: the outcome waits as pending until finish() carries it out.
void DemoServer::Impl::dispatch(const Behaviour &behaviour, const Outcome &outcome,
                                QHttpServerResponder &&responder)
{
    const quint64 pendingId = ++lastPendingId;
    Pending &entry = pending[pendingId];
    entry.socket = responder.socket();
    entry.responder = std::make_unique<QHttpServerResponder>(std::move(responder));
    entry.outcome = outcome;
    entry.hung = behaviour.hang;

    if (behaviour.hang) {
        // The client gives up first; only then is the key free again.
        if (entry.socket) {
            QObject::connect(entry.socket.data(), &QAbstractSocket::disconnected, q,
                             [this, pendingId] {
                                 const auto it = pending.find(pendingId);
                                 if (it == pending.end())
                                     return;
                                 if (it->second.outcome.ledgered)
                                     ledger.release(it->second.outcome.idempotencyKey);
                                 pending.erase(it);
                             });
        }
        return;
    }
    if (behaviour.delayMs > 0) {
        QTimer::singleShot(std::chrono::milliseconds(behaviour.delayMs), Qt::PreciseTimer, q,
                           [this, pendingId] { finish(pendingId); });
        return;
    }
    finish(pendingId);
}

void DemoServer::Impl::finish(quint64 pendingId)
{
    const auto it = pending.find(pendingId);
    if (it == pending.end())
        return;
    Pending entry = std::move(it->second);
    pending.erase(it);
    // The socket may be gone (the client timed out): the payload still runs, as it
    // would on a real server, and its result is kept for a retry with the same key.
    execute(entry);
}

namespace {

// The JSON a successful answer carries: the request described, or what an `answer=`
// asked for, with the request's id and execution count beside it.
QJsonObject answerObject(const QString &answer, const QJsonObject &request)
{
    if (answer == QLatin1String("error"))
        return {{QStringLiteral("status"), QStringLiteral("error")},
                {QStringLiteral("message"), QStringLiteral("the event was dropped")},
                {QStringLiteral("request_id"), request.value(QStringLiteral("request_id"))},
                {QStringLiteral("execution"), request.value(QStringLiteral("execution"))}};
    if (answer == QLatin1String("empty") || answer == QLatin1String("items"))
        return {{QStringLiteral("status"), QStringLiteral("ok")},
                {QStringLiteral("items"),
                 answer == QLatin1String("empty") ? QJsonArray() : QJsonArray{1, 2, 3}},
                {QStringLiteral("request_id"), request.value(QStringLiteral("request_id"))},
                {QStringLiteral("execution"), request.value(QStringLiteral("execution"))}};
    return request;
}

} // namespace

void DemoServer::Impl::execute(Pending &entry)
{
    const Outcome &o = entry.outcome;
    QHttpServerResponder &responder = *entry.responder;
    const bool connected = entry.socket && entry.socket->state() == QAbstractSocket::ConnectedState;

    if (o.failStatus != 0) {
        if (o.ledgered)
            ledger.release(o.idempotencyKey);
        if (connected) {
            const QByteArray text =
                QByteArray::number(o.failStatus) + ' ' + reasonPhrase(o.failStatus) + '\n';
            answer(responder, o.failStatus, QByteArrayLiteral("text/plain"), text, {}, o.requestId,
                   o.head);
        }
        return;
    }

    ++stats.totalExecuted;
    const qint64 byKey = ++stats.executedByKey[o.key];
    const qint64 execution =
        o.idempotencyKey.isEmpty() ? byKey : ++stats.executedByIdempotencyKey[o.idempotencyKey];

    const int status = o.created ? 201 : 200;
    QByteArray contentType;
    QByteArray body;
    if (o.bodyBytes >= 0) {
        contentType = QByteArrayLiteral("text/plain");
        body = QByteArray(o.bodyBytes, 'x');
    } else {
        contentType = QByteArrayLiteral("application/json");
        const QJsonObject object{
            {QStringLiteral("ok"), true},
            {QStringLiteral("request_id"), o.requestId},
            {QStringLiteral("method"), QString::fromLatin1(o.method)},
            {QStringLiteral("path"), o.path},
            {QStringLiteral("key"), o.key},
            {QStringLiteral("idempotency_key"),
             o.idempotencyKey.isEmpty() ? QJsonValue() : QJsonValue(o.idempotencyKey)},
            {QStringLiteral("execution"), execution},
            {QStringLiteral("received_bytes"), o.receivedBytes},
            {QStringLiteral("received_sha256"), QString::fromLatin1(o.receivedSha256)},
        };
        body = QJsonDocument(answerObject(o.answer, object)).toJson(QJsonDocument::Compact);
    }
    if (o.ledgered)
        ledger.complete(o.idempotencyKey, {status, contentType, body});

    if (o.drop) {
        ++stats.dropped;
        if (connected)
            entry.socket->disconnectFromHost();
        return;
    }
    if (connected)
        answer(responder, status, contentType, body, o.limitHeaders, o.requestId, o.head);
}

void DemoServer::Impl::handleControl(const QHttpServerRequest &request,
                                     QHttpServerResponder &responder)
{
    const QString path = request.url().path();
    const Method method = request.method();
    const auto badMethod = [&](const QByteArray &allow) {
        answerProblem(responder, 405, QStringLiteral("about:blank"),
                      QStringLiteral("Method Not Allowed"),
                      QStringLiteral("%1 takes %2").arg(path, QLatin1String(allow)), 0,
                      {{QByteArrayLiteral("Allow"), allow}});
    };

    if (path == QLatin1String("/_health")) {
        if (method != Method::Get)
            return badMethod(QByteArrayLiteral("GET"));
        return answerJson(responder, {{QStringLiteral("ok"), true}});
    }
    if (path == QLatin1String("/_stats")) {
        if (method != Method::Get)
            return badMethod(QByteArrayLiteral("GET"));
        return answerJson(responder, snapshot().toJson());
    }
    if (path == QLatin1String("/_reset")) {
        if (method != Method::Post)
            return badMethod(QByteArrayLiteral("POST"));
        reset();
        return answerJson(responder, {{QStringLiteral("reset"), true}});
    }
    if (path == QLatin1String("/_maintenance")) {
        if (method == Method::Delete) {
            maintenanceUntilMs = 0;
            return answerJson(responder, {{QStringLiteral("maintenance_until_ms"), 0}});
        }
        if (method != Method::Post)
            return badMethod(QByteArrayLiteral("POST, DELETE"));
        QString why;
        const std::optional<qint64> endMs =
            demo::parseMaintenanceEnd(QUrlQuery(request.url()), clock.nowMs(), &why);
        if (!endMs) {
            return answerProblem(responder, 400, QStringLiteral("/problems/bad-query-parameter"),
                                 QStringLiteral("Bad query parameter"), why, 0);
        }
        maintenanceUntilMs = *endMs;
        return answerJson(responder,
                          {{QStringLiteral("maintenance_until_ms"), maintenanceUntilMs}});
    }
    answerProblem(responder, 404, QStringLiteral("about:blank"), QStringLiteral("Not Found"),
                  QStringLiteral("no control route '%1'").arg(path), 0);
}

DemoStats DemoServer::Impl::snapshot() const
{
    DemoStats result = stats;
    result.hungConnections = 0;
    for (const auto &[id, entry] : pending)
        result.hungConnections += entry.hung ? 1 : 0;
    result.inFlight = ledger.inFlightCount();
    return result;
}

void DemoServer::Impl::reset()
{
    stats = DemoStats();
    limiter.clear();
    failCounters.clear();
    dropCounters.clear();
    maintenanceStarts.clear();
    maintenanceUntilMs = 0;
    // Keys still running stay in flight: their requests finish after the reset and
    // must not execute twice if the client retries meanwhile.
    ledger.clearCompleted();
}

void DemoServer::Impl::dropConnections()
{
    std::map<quint64, Pending> abandoned;
    abandoned.swap(pending);
    for (auto &[id, entry] : abandoned) {
        if (entry.socket)
            entry.socket->abort();
    }
}

DemoServer::DemoServer(QObject *parent) : DemoServer(SystemClock::instance(), parent) {}

DemoServer::DemoServer(Clock &clock, QObject *parent)
    : QObject(parent), m_impl(std::make_unique<Impl>(this, clock))
{}

DemoServer::~DemoServer()
{
    close();
}

bool DemoServer::listen(quint16 port)
{
    if (isListening()) {
        m_impl->error = QStringLiteral("already listening on port %1").arg(this->port());
        return false;
    }
    auto tcp = std::make_unique<QTcpServer>();
    if (!tcp->listen(QHostAddress::LocalHost, port)) {
        m_impl->error =
            QStringLiteral("cannot listen on 127.0.0.1:%1: %2").arg(port).arg(tcp->errorString());
        return false;
    }
    m_impl->error.clear();
    m_impl->http = new QHttpServer(this);
    m_impl->http->setMissingHandler(
        [impl = m_impl.get()](const QHttpServerRequest &request, QHttpServerResponder &&responder) {
            impl->handle(request, std::move(responder));
        });
    m_impl->tcp = tcp.get();
    m_impl->http->bind(tcp.release());
    return true;
}

void DemoServer::close()
{
    m_impl->dropConnections();
    // Deleting the HTTP server deletes its TCP server and every connection with it.
    delete m_impl->http;
    m_impl->http = nullptr;
}

bool DemoServer::isListening() const
{
    return m_impl->tcp && m_impl->tcp->isListening();
}

quint16 DemoServer::port() const
{
    return isListening() ? m_impl->tcp->serverPort() : 0;
}

QUrl DemoServer::baseUrl() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(QStringLiteral("127.0.0.1"));
    url.setPort(port());
    return url;
}

QString DemoServer::errorString() const
{
    return m_impl->error;
}

DemoStats DemoServer::stats() const
{
    return m_impl->snapshot();
}

void DemoServer::reset()
{
    m_impl->reset();
}

void DemoServer::setMaintenanceUntil(qint64 untilMs)
{
    m_impl->maintenanceUntilMs = untilMs;
}

} // namespace cooldown
