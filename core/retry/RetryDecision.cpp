// SPDX-License-Identifier: Apache-2.0
#include "core/retry/RetryDecision.h"

#include "core/Logging.h"
#include "core/retry/Backoff.h"
#include "core/time/RandomSource.h"

#include <QDateTime>
#include <QJsonValue>

#include <algorithm>
#include <cmath>

namespace cooldown {

namespace {

// How the table in docs/retry-contract.md classifies an outcome before the method is considered.
enum class Kind
{
    Success,
    Throttle,    // 429, 503: wait for the server's time
    Transient,   // 408, 500, 502, 504: backoff, or the server's time if given
    KeyInUse,    // 409 for a keyed request: the first one is still running
    NotSent,     // refused, DNS: safe to send again whatever the method
    Ambiguous,   // timeout, closed, worker died: may have been executed
    Offline,     // no network: nothing was sent, nor can be until it is back
    Final,       // fail without retrying
    CheckFailed, // an answer the endpoint's expectation refuses (docs/checks.md)
};

constexpr const char kCheckFailed[] = "assertion_failed";

// While the network is unreachable an operation looks again every few seconds, spread
// so that a fleet cut off together does not come back as a herd; it does not back off,
// since what it waits for is the network, not the server (docs/offline.md).
constexpr qint64 kOfflineRecheckMs = 5000;
constexpr qint64 kOfflineSpreadMs = 2000;

qint64 offlineRecheckMs(RandomSource &random)
{
    return kOfflineRecheckMs + random.uniformInt(0, kOfflineSpreadMs);
}

// An operation blocked by an incident looks again after this long, spread: the
// incident clears with the first exchange that works, whoever sends it.
constexpr qint64 kBlockedRecheckMs = 30000;
constexpr qint64 kBlockedSpreadMs = 10000;

struct Classified
{
    Kind kind;
    const char *reason;
};

Classified classify(const AttemptOutcome &o, bool idempotent)
{
    switch (o.error) {
    case TransportError::None:
        break;
    case TransportError::ConnectionRefused:
        return {Kind::NotSent, "connection_refused"};
    case TransportError::HostNotFound:
        if (o.machineOffline)
            return {Kind::Offline, "offline"};
        return {Kind::NotSent, "dns_failure"};
    case TransportError::Timeout:
        return {Kind::Ambiguous, "timeout"};
    case TransportError::ConnectionClosed:
        return {Kind::Ambiguous, "connection_closed"};
    case TransportError::WorkerDied:
        return {Kind::Ambiguous, "worker_died"};
    case TransportError::NetworkUnreachable:
        return {Kind::Offline, "offline"};
    case TransportError::Interrupted:
        return {Kind::Ambiguous, "interrupted"};
    case TransportError::Tls:
        return {Kind::Final, "tls_error"};
    case TransportError::BadUrl:
        return {Kind::Final, "bad_url"};
    case TransportError::UnsupportedScheme:
        return {Kind::Final, "unsupported_scheme"};
    }
    const int s = o.status;
    // A throttle is the server asking to wait, whatever the expectation allows.
    if (s == 429 || s == 503)
        return {Kind::Throttle, "throttled"};
    if (o.expect && o.expect->allowsStatus(s))
        return {Kind::Success, "ok"};
    if (s >= 200 && s < 300)
        return {o.expect ? Kind::CheckFailed : Kind::Success, o.expect ? kCheckFailed : "ok"};
    if (s == 408)
        return {Kind::Transient, "request_timeout"};
    if (s == 500 || s == 502 || s == 504)
        return {Kind::Transient, "server_error"};
    if (!idempotent && o.idempotencyKeySent && s == 409)
        return {Kind::KeyInUse, "key_in_use"};
    if (!idempotent && o.idempotencyKeySent && s == 422)
        return {Kind::Final, "key_reused"};
    if (s >= 300 && s < 400)
        return {Kind::Final, "unexpected_redirect"};
    if (s < 100 || s > 599)
        return {Kind::Final, "invalid_status"};
    return {Kind::Final, "not_retryable"};
}

RetryDecision endWith(RetryDecision d, RetryDecision::Action action, const char *reason)
{
    d.action = action;
    d.reason = QLatin1String(reason);
    d.delayMs = -1;
    d.notBeforeMs = -1;
    d.source = WaitSource::None;
    return d;
}

QJsonValue isoOrNull(qint64 ms)
{
    if (ms < 0)
        return QJsonValue::Null;
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

QJsonValue secondsOrNull(qint64 ms)
{
    if (ms < 0)
        return QJsonValue::Null;
    return double(ms) / 1000.0;
}

// The problem as read, and what it made the engine do; null without a problem body.
QJsonValue problemJson(const ServerWait &wait)
{
    const ProblemDetails &problem = wait.problem;
    if (!problem.present && problem.error.isEmpty())
        return QJsonValue::Null;
    QJsonObject json = problem.toJson();
    json.insert(QStringLiteral("action"), QLatin1String(textOf(wait.problemAction)));
    return json;
}

// An answer the status let through is held to the endpoint's expectation; one that
// fails it is retried like a server error only when the expectation says so (a POST
// that executed must not run again because its answer looked odd).
Classified checkAnswer(Classified c, const AttemptOutcome &o, RetryDecision &d)
{
    if (!o.expect)
        return c;
    if (c.kind == Kind::Success)
        d.check = o.expect->check(o.headers, o.body, o.bodyTruncated);
    else if (c.kind == Kind::CheckFailed)
        d.check = CheckFailure{QStringLiteral("status is ") + o.expect->statusText(),
                               QString::number(o.status)};
    if (!d.check)
        return c;
    return {o.expect->retryOnFailure ? Kind::Transient : Kind::Final, kCheckFailed};
}

// Whether a non-idempotent request that may have reached the server can be sent again:
// only as the operator's profile allows (by default: only with a key).
bool mayResend(const RetryProfile &profile, const AttemptOutcome &outcome, bool idempotent)
{
    if (idempotent)
        return true;
    switch (profile.retryNonIdempotent) {
    case RetryNonIdempotent::Never:
        return false;
    case RetryNonIdempotent::WithKey:
        return outcome.idempotencyKeySent;
    case RetryNonIdempotent::Always:
        return true;
    }
    return false;
}

} // namespace

bool isIdempotentMethod(QByteArrayView method)
{
    // RFC 9110 §9.2.2; TRACE is left out on purpose: nobody schedules it.
    return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" ||
           method == "OPTIONS";
}

RetryDecision RetryDecision::decide(const RetryProfile &profile, const AttemptOutcome &outcome,
                                    const AttemptHistory &history, qint64 nowMs,
                                    RandomSource &random, const ServerWaitOptions &hints)
{
    using Action = RetryDecision::Action;
    RetryDecision d;
    if (outcome.error == TransportError::None)
        d.serverWait = ServerWait::resolve(outcome.headers, outcome.body, nowMs, hints);
    if (profile.deadlineSeconds > 0)
        d.deadlineMs =
            history.firstAttemptAtMs + qint64(std::llround(profile.deadlineSeconds * 1000));

    const bool idempotent = isIdempotentMethod(outcome.method);
    const Classified c = checkAnswer(classify(outcome, idempotent), outcome, d);
    d.throttled = c.kind == Kind::Throttle;
    d.offline = c.kind == Kind::Offline;
    // A failure whose cause is an open incident would be a retry: it is held, and no
    // more an attempt than one that found no network (docs/incidents.md). What the
    // method allows decides first: a POST that may have executed is still parked.
    d.blocked =
        outcome.causeInIncident &&
        (c.kind == Kind::NotSent || ((c.kind == Kind::Transient || c.kind == Kind::Ambiguous) &&
                                     mayResend(profile, outcome, idempotent)));
    // An attempt that found no network is not one: it keeps the operation's attempt
    // number, and the count is that of the attempts before it (docs/offline.md).
    const int attempt = d.offline || d.blocked ? history.attempt - 1 : history.attempt;
    const int throttles = history.throttledBefore + (d.throttled ? 1 : 0);
    d.countedAttempts =
        profile.throttleCountsAsAttempt ? attempt : std::max(0, attempt - throttles);

    if (c.kind == Kind::Success) {
        d.degraded = outcome.latencyBudgetMs > 0 && outcome.durationMs > outcome.latencyBudgetMs;
        return endWith(d, Action::Success, d.degraded ? "degraded" : c.reason);
    }
    // The server suspects abuse: sending again, whatever the status, would make it
    // worse. Only an operator can tell what is going on.
    if (d.serverWait.problemAction == ProblemAction::Park)
        return endWith(d, Action::Park, "abnormal_usage");
    if (c.kind == Kind::Final)
        return endWith(d, Action::Fail, c.reason);

    // Sending a non-idempotent request again is allowed only when nothing was sent,
    // or when the operator's profile says so (by default: only with a key).
    if (!idempotent && c.kind != Kind::NotSent && c.kind != Kind::Offline &&
        !mayResend(profile, outcome, idempotent))
        return endWith(d, Action::Park,
                       c.kind == Kind::Ambiguous ? "ambiguous_send" : "not_idempotent");

    if (!d.offline && !d.blocked && d.countedAttempts >= profile.maxAttempts)
        return endWith(d, Action::Fail, "max_attempts");

    const Action onDeadline = profile.onDeadline == OnDeadline::Park ? Action::Park : Action::Fail;
    const bool serverTimed =
        (c.kind == Kind::Throttle || c.kind == Kind::Transient) && d.serverWait.hasWait();
    if (serverTimed) {
        const qint64 waitMs = d.serverWait.waitMs;
        // Never shortened: a wait the profile cannot honour ends the operation.
        if (double(waitMs) > profile.maxRetryAfterSeconds * 1000)
            return endWith(d, onDeadline, "retry_after_too_long");
        const qint64 serverTimeMs = nowMs + waitMs;
        if (d.deadlineMs >= 0 && serverTimeMs > d.deadlineMs)
            return endWith(d, onDeadline, "deadline_unreachable");
        // A small spread after the server's time keeps many clients from resuming
        // together; it never pushes the retry past the deadline.
        qint64 spreadMs = qint64(std::llround(profile.spreadSeconds * 1000));
        if (d.deadlineMs >= 0)
            spreadMs = std::min(spreadMs, d.deadlineMs - serverTimeMs);
        d.delayMs = waitMs + (spreadMs > 0 ? random.uniformInt(0, spreadMs) : 0);
        d.source = d.serverWait.source;
    } else if (d.blocked) {
        d.delayMs = kBlockedRecheckMs + random.uniformInt(0, kBlockedSpreadMs);
        d.source = WaitSource::Backoff;
        if (d.deadlineMs >= 0 && nowMs + d.delayMs > d.deadlineMs)
            return endWith(d, onDeadline, "deadline_unreachable");
    } else {
        d.delayMs = c.kind == Kind::Offline ? offlineRecheckMs(random)
                                            : Backoff::delayMs(profile, history.attempt - 1,
                                                               history.previousBackoffMs, random);
        d.source = WaitSource::Backoff;
        if (d.deadlineMs >= 0 && nowMs + d.delayMs > d.deadlineMs)
            return endWith(d, onDeadline, "deadline_unreachable");
    }
    // A server keeps a key only as long as it documents: a request sent again after
    // that is a new request to it, and would run twice. Only an operator may send it.
    if (!idempotent && outcome.idempotencyKeySent && outcome.keyValidMs > 0) {
        d.keyValidUntilMs = history.firstAttemptAtMs + outcome.keyValidMs;
        if (nowMs + d.delayMs >= d.keyValidUntilMs)
            return endWith(d, Action::Park, "idempotency_key_expired");
    }
    d.action = Action::Retry;
    d.reason = d.blocked ? QStringLiteral("blocked_by_incident") : QLatin1String(c.reason);
    d.notBeforeMs = nowMs + d.delayMs;
    qCDebug(lcRetry) << "retry" << d.reason << "in" << d.delayMs << "ms from" << textOf(d.source);
    return d;
}

QJsonObject RetryDecision::toJson() const
{
    const RetryAfter &ra = serverWait.retryAfter;
    QJsonObject retryAfter{
        {QStringLiteral("raw"),
         ra.isPresent() ? QJsonValue(QString::fromLatin1(ra.raw)) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("form"), QLatin1String(cooldown::textOf(ra.form))},
        {QStringLiteral("seconds"), ra.isValid() ? secondsOrNull(ra.waitMs) : QJsonValue::Null},
        {QStringLiteral("error"),
         ra.error.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(ra.error)},
    };
    if (ra.saturated)
        retryAfter.insert(QStringLiteral("saturated"), true);
    if (ra.measuredAgainstDate)
        retryAfter.insert(QStringLiteral("measured_against"), QStringLiteral("date"));
    return QJsonObject{
        {QStringLiteral("action"), QLatin1String(cooldown::textOf(action))},
        {QStringLiteral("delay_seconds"), secondsOrNull(delayMs)},
        {QStringLiteral("not_before"), isoOrNull(notBeforeMs)},
        {QStringLiteral("source"), QLatin1String(cooldown::textOf(source))},
        {QStringLiteral("reason"), reason},
        {QStringLiteral("throttled"), throttled},
        {QStringLiteral("counted_attempts"), countedAttempts},
        {QStringLiteral("deadline"), isoOrNull(deadlineMs)},
        {QStringLiteral("key_valid_until"), isoOrNull(keyValidUntilMs)},
        {QStringLiteral("retry_after"), retryAfter},
        {QStringLiteral("ratelimit"), serverWait.rateLimit.toJson()},
        {QStringLiteral("x_ratelimit"), serverWait.xRateLimit.isPresent()
                                            ? QJsonValue(serverWait.xRateLimit.toJson())
                                            : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("problem"), problemJson(serverWait)},
        {QStringLiteral("hints"), serverWait.hintsToJson()},
        {QStringLiteral("check"),
         check ? QJsonValue(QJsonObject{{QStringLiteral("assertion"), check->assertion},
                                        {QStringLiteral("found"), check->found}})
               : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("degraded"), degraded},
    };
}

const char *textOf(TransportError error)
{
    switch (error) {
    case TransportError::None:
        return "none";
    case TransportError::ConnectionRefused:
        return "refused";
    case TransportError::HostNotFound:
        return "dns";
    case TransportError::Timeout:
        return "timeout";
    case TransportError::ConnectionClosed:
        return "closed";
    case TransportError::Tls:
        return "tls";
    case TransportError::BadUrl:
        return "bad_url";
    case TransportError::UnsupportedScheme:
        return "unsupported_scheme";
    case TransportError::WorkerDied:
        return "worker_died";
    case TransportError::NetworkUnreachable:
        return "unreachable";
    case TransportError::Interrupted:
        return "interrupted";
    }
    return "none";
}

std::optional<TransportError> transportErrorFromString(QStringView name)
{
    for (int value = int(TransportError::None); value <= int(TransportError::Interrupted);
         ++value) {
        const auto error = TransportError(value);
        if (name == QLatin1String(textOf(error)))
            return error;
    }
    return std::nullopt;
}

} // namespace cooldown
