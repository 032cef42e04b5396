#include "core/retry/ServerWait.h"

namespace cooldown {

const char *toString(WaitSource source)
{
    switch (source) {
    case WaitSource::None:
        return "none";
    case WaitSource::RetryAfter:
        return "retry-after";
    case WaitSource::RateLimit:
        return "ratelimit";
    case WaitSource::XRateLimit:
        return "x-ratelimit";
    case WaitSource::Problem:
        return "problem";
    case WaitSource::Backoff:
        return "backoff";
    }
    return "none";
}

ServerWait ServerWait::resolve(const HttpHeaders &headers, const QByteArray &body, qint64 nowMs)
{
    Q_UNUSED(body);
    ServerWait result;
    result.retryAfter =
        RetryAfter::parse(headers.value("Retry-After"), nowMs, headers.value("Date"));
    if (result.retryAfter.isValid()) {
        result.source = WaitSource::RetryAfter;
        result.waitMs = result.retryAfter.waitMs;
    }
    return result;
}

} // namespace cooldown
