#pragma once

#include "core/http/HttpHeaders.h"
#include "core/http/RetryAfter.h"

#include <QByteArray>
#include <QString>

namespace cooldown {

// Where a retry's wait came from. Every attempt records it.
enum class WaitSource { None, RetryAfter, RateLimit, XRateLimit, Problem, Backoff };
const char *toString(WaitSource source);

// What the server said about when to come back, resolved by the precedence of
// DESIGN.md: Retry-After, then RateLimit, then X-RateLimit-Reset, then a Problem
// Details type. A malformed hint is kept for the record and otherwise ignored.
struct ServerWait
{
    WaitSource source = WaitSource::None; // None: the server gave no usable wait
    qint64 waitMs = 0;
    RetryAfter retryAfter; // always parsed, so a malformed value is reported

    bool hasWait() const { return source != WaitSource::None; }

    static ServerWait resolve(const HttpHeaders &headers, const QByteArray &body, qint64 nowMs);
};

} // namespace cooldown
