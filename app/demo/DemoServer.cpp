#include "app/demo/DemoServer.h"

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
#include <QMap>
#include <QPointer>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrlQuery>

#include <cmath>
#include <map>
#include <optional>

namespace cooldown {

namespace {

// Arrival times kept per client key in the stats.
constexpr qsizetype kMaxArrivalsPerKey = 10000;

using Header = QPair<QByteArray, QByteArray>;
using HeaderList = QList<Header>;
using demo::IdempotencyLedger;
using demo::LimitResult;
using Method = QHttpServerRequest::Method;

constexpr qint64 kMaxDelayMs = 600'000;
constexpr qint64 kMaxBodyBytes = 64LL * 1024 * 1024;
constexpr qint64 kMaxSeconds = 10LL * 365 * 24 * 3600;
constexpr qint64 kMaxCount = 1'000'000'000;

enum class RetryAfterForm
{
    Seconds,
    ImfFixdate,
    Rfc850,
    Asctime,
    None,
    Malformed
};
enum class LimiterKind
{
    None,
    FixedWindow,
    TokenBucket
};

struct RouteSpec
{
    const char *path;
    const char *defaults; // a query string
    bool writeOnly;       // POST and PATCH only
};

const RouteSpec kRoutes[] = {
    {"/ok", "", false},
    {"/limited/fixed", "limit=5&window=10", false},
    {"/limited/bucket", "capacity=5&rate=1", false},
    {"/limited/ratelimit", "limit=5&window=10&retry_after=none&headers=draft", false},
    {"/flaky", "fail_first=2&fail_status=502", false},
    {"/maintenance", "maintenance_for=30&retry_after=date", false},
    {"/slow", "delay_ms=200", false},
    {"/hang", "hang=1", false},
    {"/uploads", "require_key=1", true},
};

// The behaviour one request asks for: its route's defaults overlaid by its query.
struct Behaviour
{
    QString key = QStringLiteral("anonymous");
    LimiterKind limiter = LimiterKind::None;
    qint64 limit = 0;
    qint64 windowMs = 60'000;
    qint64 capacity = 0;
    double rate = 1.0;
    RetryAfterForm retryAfter = RetryAfterForm::Seconds;
    bool draftHeaders = true;
    bool xHeaders = true;
    bool xResetEpoch = true;
    QString policy = QStringLiteral("default");
    QString problem = QStringLiteral("quota-exceeded");
    qint64 maintenanceForMs = 0;
    qint64 maintenanceUntilMs = 0;
    qint64 failFirst = 0;
    double failRate = 0;
    quint64 seed = 0;
    int failStatus = 502;
    qint64 delayMs = 0;
    bool hang = false;
    qint64 dropFirst = 0;
    bool requireKey = false;
    qint64 bodyBytes = -1;
};

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

QString reasonFor(const QString &name, const QString &value, const QString &expected)
{
    return QStringLiteral("query parameter '%1' is '%2'; expected %3").arg(name, value, expected);
}

std::optional<qint64> toInteger(const QString &text, qint64 min, qint64 max)
{
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < min || value > max)
        return std::nullopt;
    return value;
}

std::optional<double> toFraction(const QString &text, double min, double max)
{
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < min || value > max)
        return std::nullopt;
    return value;
}

bool isPolicyName(const QString &name)
{
    if (name.isEmpty() || name.size() > 64)
        return false;
    for (const QChar c : name) {
        const char16_t u = c.unicode();
        const bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                        (u >= '0' && u <= '9') || u == '-' || u == '_' || u == '.';
        if (!ok)
            return false;
    }
    return true;
}

// Returns the error text when a parameter is unknown or its value is bad.
std::optional<QString> applyParameter(Behaviour &b, const QString &name, const QString &value)
{
    const auto integer = [&](qint64 min, qint64 max, qint64 &out) -> std::optional<QString> {
        const auto parsed = toInteger(value, min, max);
        if (!parsed)
            return reasonFor(name, value,
                             QStringLiteral("a whole number from %1 to %2").arg(min).arg(max));
        out = *parsed;
        return std::nullopt;
    };
    const auto flag = [&](bool &out) -> std::optional<QString> {
        if (value != QLatin1String("0") && value != QLatin1String("1"))
            return reasonFor(name, value, QStringLiteral("0 or 1"));
        out = value == QLatin1String("1");
        return std::nullopt;
    };

    if (name == QLatin1String("key")) {
        if (value.isEmpty() || value.size() > 200)
            return reasonFor(name, value, QStringLiteral("1 to 200 characters"));
        b.key = value;
        return std::nullopt;
    }
    if (name == QLatin1String("limit")) {
        b.limiter = LimiterKind::FixedWindow;
        return integer(0, kMaxCount, b.limit);
    }
    if (name == QLatin1String("window")) {
        qint64 seconds = 0;
        if (auto error = integer(1, kMaxSeconds, seconds))
            return error;
        b.windowMs = seconds * 1000;
        return std::nullopt;
    }
    if (name == QLatin1String("capacity")) {
        if (b.limiter != LimiterKind::FixedWindow)
            b.limiter = LimiterKind::TokenBucket;
        return integer(1, kMaxCount, b.capacity);
    }
    if (name == QLatin1String("rate")) {
        const auto rate = toFraction(value, 0.001, 1e6);
        if (!rate)
            return reasonFor(name, value, QStringLiteral("tokens per second from 0.001 to 1e6"));
        b.rate = *rate;
        return std::nullopt;
    }
    if (name == QLatin1String("retry_after")) {
        static const std::pair<const char *, RetryAfterForm> kForms[] = {
            {"seconds", RetryAfterForm::Seconds}, {"date", RetryAfterForm::ImfFixdate},
            {"rfc850", RetryAfterForm::Rfc850},   {"asctime", RetryAfterForm::Asctime},
            {"none", RetryAfterForm::None},       {"malformed", RetryAfterForm::Malformed},
        };
        for (const auto &[text, form] : kForms) {
            if (value == QLatin1String(text)) {
                b.retryAfter = form;
                return std::nullopt;
            }
        }
        return reasonFor(name, value,
                         QStringLiteral("seconds, date, rfc850, asctime, none or malformed"));
    }
    if (name == QLatin1String("headers")) {
        if (value == QLatin1String("both") || value == QLatin1String("draft") ||
            value == QLatin1String("x") || value == QLatin1String("none")) {
            b.draftHeaders = value == QLatin1String("both") || value == QLatin1String("draft");
            b.xHeaders = value == QLatin1String("both") || value == QLatin1String("x");
            return std::nullopt;
        }
        return reasonFor(name, value, QStringLiteral("both, draft, x or none"));
    }
    if (name == QLatin1String("x_reset")) {
        if (value != QLatin1String("epoch") && value != QLatin1String("delta"))
            return reasonFor(name, value, QStringLiteral("epoch or delta"));
        b.xResetEpoch = value == QLatin1String("epoch");
        return std::nullopt;
    }
    if (name == QLatin1String("policy")) {
        if (!isPolicyName(value))
            return reasonFor(name, value, QStringLiteral("1 to 64 of A-Z a-z 0-9 - _ ."));
        b.policy = value;
        return std::nullopt;
    }
    if (name == QLatin1String("problem")) {
        if (value != QLatin1String("quota-exceeded") &&
            value != QLatin1String("temporary-reduced-capacity") &&
            value != QLatin1String("abnormal-usage-detected") && value != QLatin1String("none"))
            return reasonFor(name, value,
                             QStringLiteral("quota-exceeded, temporary-reduced-capacity, "
                                            "abnormal-usage-detected or none"));
        b.problem = value == QLatin1String("none") ? QString() : value;
        return std::nullopt;
    }
    if (name == QLatin1String("maintenance_for")) {
        qint64 seconds = 0;
        if (auto error = integer(0, kMaxSeconds, seconds))
            return error;
        b.maintenanceForMs = seconds * 1000;
        return std::nullopt;
    }
    if (name == QLatin1String("maintenance_until")) {
        qint64 seconds = 0;
        if (auto error = integer(0, 253402300799, seconds))
            return error;
        b.maintenanceUntilMs = seconds * 1000;
        return std::nullopt;
    }
    if (name == QLatin1String("fail_first"))
        return integer(0, kMaxCount, b.failFirst);
    if (name == QLatin1String("fail_rate")) {
        const auto rate = toFraction(value, 0.0, 1.0);
        if (!rate)
            return reasonFor(name, value, QStringLiteral("a share from 0 to 1"));
        b.failRate = *rate;
        return std::nullopt;
    }
    if (name == QLatin1String("seed")) {
        bool ok = false;
        b.seed = value.toULongLong(&ok);
        return ok ? std::nullopt
                  : std::optional<QString>(
                        reasonFor(name, value, QStringLiteral("a whole number")));
    }
    if (name == QLatin1String("fail_status")) {
        qint64 status = 0;
        if (auto error = integer(500, 504, status))
            return error;
        if (status == 501)
            return reasonFor(name, value, QStringLiteral("500, 502, 503 or 504"));
        b.failStatus = int(status);
        return std::nullopt;
    }
    if (name == QLatin1String("delay_ms"))
        return integer(0, kMaxDelayMs, b.delayMs);
    if (name == QLatin1String("hang"))
        return flag(b.hang);
    if (name == QLatin1String("drop_first"))
        return integer(0, kMaxCount, b.dropFirst);
    if (name == QLatin1String("require_key"))
        return flag(b.requireKey);
    if (name == QLatin1String("body_bytes"))
        return integer(0, kMaxBodyBytes, b.bodyBytes);
    return QStringLiteral("unknown query parameter '%1'").arg(name);
}

std::optional<QString> parseBehaviour(const char *defaults, const QUrlQuery &query, Behaviour &b)
{
    QMap<QString, QString> parameters;
    const QUrlQuery routeDefaults(QString::fromLatin1(defaults));
    for (const auto &[name, value] : routeDefaults.queryItems(QUrl::FullyDecoded))
        parameters.insert(name, value);
    QSet<QString> seen;
    for (const auto &[name, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (seen.contains(name))
            return QStringLiteral("query parameter '%1' is given twice").arg(name);
        seen.insert(name);
        parameters.insert(name, value);
    }
    // "limit" before "capacity": a route that names both is a fixed window.
    for (const char *first : {"limit", "capacity"}) {
        const QString name = QLatin1String(first);
        if (parameters.contains(name)) {
            if (auto error = applyParameter(b, name, parameters.value(name)))
                return error;
        }
    }
    for (auto it = parameters.constBegin(); it != parameters.constEnd(); ++it) {
        if (it.key() == QLatin1String("limit") || it.key() == QLatin1String("capacity"))
            continue;
        if (auto error = applyParameter(b, it.key(), it.value()))
            return error;
    }
    return std::nullopt;
}

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
        // isPolicyName let only letters, digits and "-_." in: an sf-string holds them all.
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

} // namespace

struct DemoServer::Impl
{
    Impl(DemoServer *owner, Clock &c) : q(owner), clock(c) { uptime.start(); }

    void handle(const QHttpServerRequest &request, QHttpServerResponder &&responder);
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
    const QString path = request.url().path();
    if (path.startsWith(QLatin1String("/_"))) {
        handleControl(request, responder);
        return;
    }

    const qint64 requestId = ++lastRequestId;
    const qint64 nowMs = clock.nowMs();
    const Method method = request.method();
    const bool writeMethod = method == Method::Post || method == Method::Patch;

    const std::optional<QByteArray> rawKey = requestHeader(request, "Idempotency-Key");
    QString keyError;
    const std::optional<QString> idempotencyKey =
        rawKey ? demo::parseIdempotencyKey(*rawKey, &keyError) : std::nullopt;

    const RouteSpec *route = nullptr;
    for (const RouteSpec &spec : kRoutes) {
        if (path == QLatin1String(spec.path))
            route = &spec;
    }
    Behaviour behaviour;
    const std::optional<QString> parameterError =
        route || path.startsWith(QLatin1String("/api/"))
            ? parseBehaviour(route ? route->defaults : "", QUrlQuery(request.url()), behaviour)
            : std::nullopt;

    ++stats.totalRequests;
    ++stats.requestsByPath[path];
    ++stats.requestsByKey[behaviour.key];
    QList<qint64> &arrivals = stats.arrivalsMsByKey[behaviour.key];
    arrivals.append(uptime.elapsed());
    if (arrivals.size() > kMaxArrivalsPerKey) // a long-running demo keeps the recent ones
        arrivals.removeFirst();
    if (rawKey)
        ++stats.requestsByIdempotencyKey[idempotencyKey.value_or(QString::fromLatin1(*rawKey))];
    emit q->requestReceived(path, requestId);

    if (!route && !path.startsWith(QLatin1String("/api/"))) {
        answerProblem(responder, 404, QStringLiteral("about:blank"), QStringLiteral("Not Found"),
                      QStringLiteral("no route '%1'; see GET /_stats for what was seen").arg(path),
                      requestId);
        return;
    }
    if (parameterError) {
        answerProblem(responder, 400, QStringLiteral("/problems/bad-query-parameter"),
                      QStringLiteral("Bad query parameter"), *parameterError, requestId);
        return;
    }
    if (route && route->writeOnly && !writeMethod) {
        answerProblem(responder, 405, QStringLiteral("about:blank"),
                      QStringLiteral("Method Not Allowed"),
                      QStringLiteral("%1 takes POST or PATCH").arg(path), requestId,
                      {{QByteArrayLiteral("Allow"), QByteArrayLiteral("POST, PATCH")}});
        return;
    }

    // Maintenance: the whole API first, then this route's own window.
    const QString counterKey = path + QLatin1Char('\n') + behaviour.key;
    qint64 maintenanceEndMs = maintenanceUntilMs > nowMs ? maintenanceUntilMs : 0;
    if (maintenanceEndMs == 0 && behaviour.maintenanceForMs > 0) {
        const qint64 startMs = maintenanceStarts.value(counterKey, nowMs);
        maintenanceStarts.insert(counterKey, startMs);
        if (nowMs < startMs + behaviour.maintenanceForMs)
            maintenanceEndMs = startMs + behaviour.maintenanceForMs;
    }
    if (maintenanceEndMs == 0 && behaviour.maintenanceUntilMs > nowMs)
        maintenanceEndMs = behaviour.maintenanceUntilMs;
    if (maintenanceEndMs > 0) {
        const RetryAfterForm form = behaviour.retryAfter;
        HeaderList headers;
        if (const auto value = retryAfterValue(form, nowMs, maintenanceEndMs - nowMs))
            headers.append({QByteArrayLiteral("Retry-After"), *value});
        answerProblem(responder, 503, QStringLiteral("/problems/maintenance"),
                      QStringLiteral("Down for maintenance"),
                      QStringLiteral("back at %1")
                          .arg(QDateTime::fromMSecsSinceEpoch(maintenanceEndMs, Qt::UTC)
                                   .toString(Qt::ISODateWithMs)),
                      requestId, headers);
        return;
    }

    HeaderList rateHeaders;
    if (behaviour.limiter != LimiterKind::None) {
        const LimitResult limit =
            behaviour.limiter == LimiterKind::FixedWindow
                ? limiter.fixedWindow(counterKey, nowMs, behaviour.limit, behaviour.windowMs)
                : limiter.tokenBucket(counterKey, nowMs, behaviour.capacity, behaviour.rate);
        rateHeaders = limitHeaders(behaviour, limit, nowMs);
        if (!limit.allowed) {
            HeaderList headers = rateHeaders;
            if (const auto value = retryAfterValue(behaviour.retryAfter, nowMs, limit.retryAfterMs))
                headers.prepend({QByteArrayLiteral("Retry-After"), *value});
            const QString detail =
                QStringLiteral("the quota of %1 for key '%2' on %3 is used up; it is back in %4 s")
                    .arg(limit.limit)
                    .arg(behaviour.key, path)
                    .arg(ceilDiv1000(limit.retryAfterMs));
            if (behaviour.problem.isEmpty()) {
                answer(responder, 429, QByteArrayLiteral("text/plain"),
                       QByteArrayLiteral("Too Many Requests\n"), headers, requestId);
            } else {
                answerProblem(
                    responder, 429,
                    QStringLiteral("https://iana.org/assignments/http-problem-types#") +
                        behaviour.problem,
                    problemTitle(behaviour.problem), detail, requestId, headers,
                    {{QStringLiteral("violated-policies"), QJsonArray{behaviour.policy}}});
            }
            return;
        }
    }

    Outcome outcome;
    outcome.requestId = requestId;
    outcome.path = path;
    outcome.method = methodName(method);
    outcome.head = method == Method::Head;
    outcome.created = method == Method::Post;
    outcome.key = behaviour.key;
    outcome.bodyBytes = behaviour.bodyBytes;
    outcome.receivedBytes = request.body().size();
    outcome.receivedSha256 =
        QCryptographicHash::hash(request.body(), QCryptographicHash::Sha256).toHex();
    outcome.limitHeaders = rateHeaders;

    if (writeMethod) {
        if (rawKey && !idempotencyKey) {
            answerProblem(responder, 400, QStringLiteral("/problems/idempotency-key-malformed"),
                          QStringLiteral("Malformed Idempotency-Key"),
                          QStringLiteral("Idempotency-Key: %1").arg(keyError), requestId);
            return;
        }
        if (!rawKey && behaviour.requireKey) {
            answerProblem(responder, 400, QStringLiteral("/problems/idempotency-key-missing"),
                          QStringLiteral("Idempotency-Key is missing"),
                          QStringLiteral("%1 %2 needs an Idempotency-Key header")
                              .arg(QLatin1String(outcome.method), path),
                          requestId);
            return;
        }
        if (idempotencyKey) {
            const IdempotencyLedger::Check check = ledger.begin(
                *idempotencyKey,
                IdempotencyLedger::fingerprint(outcome.method, path.toUtf8(), request.body()));
            switch (check.verdict) {
            case IdempotencyLedger::Verdict::Mismatch:
                answerProblem(responder, 422, QStringLiteral("/problems/idempotency-key-reused"),
                              QStringLiteral("Idempotency-Key reused"),
                              QStringLiteral("the key '%1' was used with another request")
                                  .arg(*idempotencyKey),
                              requestId);
                return;
            case IdempotencyLedger::Verdict::InFlight:
                answerProblem(responder, 409, QStringLiteral("/problems/idempotency-key-in-use"),
                              QStringLiteral("Idempotency-Key in use"),
                              QStringLiteral("the first request with key '%1' is still running")
                                  .arg(*idempotencyKey),
                              requestId);
                return;
            case IdempotencyLedger::Verdict::Replay: {
                ++stats.replayed;
                HeaderList headers = rateHeaders;
                headers.append(
                    {QByteArrayLiteral("Idempotent-Replayed"), QByteArrayLiteral("true")});
                answer(responder, check.stored.status, check.stored.contentType, check.stored.body,
                       headers, requestId);
                return;
            }
            case IdempotencyLedger::Verdict::Execute:
                outcome.idempotencyKey = *idempotencyKey;
                outcome.ledgered = true;
                break;
            }
        }
    } else if (idempotencyKey) {
        outcome.idempotencyKey = *idempotencyKey;
    }

    // Failures and drops are counted per operation: per Idempotency-Key when there is
    // one, so that each operation's retries see the same pattern.
    const QString failKey = outcome.idempotencyKey.isEmpty()
                                ? counterKey
                                : path + QLatin1String("\nidempotency:") + outcome.idempotencyKey;
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
        body = QJsonDocument(object).toJson(QJsonDocument::Compact);
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
    const QUrlQuery query(request.url());
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
        const bool hasFor = query.hasQueryItem(QStringLiteral("for"));
        const bool hasUntil = query.hasQueryItem(QStringLiteral("until"));
        const QString name = hasFor ? QStringLiteral("for") : QStringLiteral("until");
        const QString value = query.queryItemValue(name, QUrl::FullyDecoded);
        const std::optional<qint64> seconds =
            toInteger(value, 0, hasFor ? kMaxSeconds : qint64(253402300799));
        if (hasFor == hasUntil || !seconds) {
            return answerProblem(
                responder, 400, QStringLiteral("/problems/bad-query-parameter"),
                QStringLiteral("Bad query parameter"),
                hasFor == hasUntil
                    ? QStringLiteral(
                          "give exactly one of 'for' (seconds) or 'until' (Unix seconds)")
                    : reasonFor(name, value, QStringLiteral("a whole number of seconds")),
                0);
        }
        maintenanceUntilMs = hasFor ? clock.nowMs() + *seconds * 1000 : *seconds * 1000;
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
