// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"
#include "core/http/ProblemDetails.h"
#include "core/http/RateLimitHeaders.h"
#include "core/http/RetryAfter.h"
#include "core/http/XRateLimit.h"
#include "core/retry/Decision.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace cooldown {

// What a problem type makes Cooldown do (the IETF RateLimit draft's problem types).
enum class ProblemAction
{
    None,          // no problem body, or a type without a meaning here
    WaitForWindow, // quota-exceeded: wait for the violated policy's window
    SlowDown,      // temporary-reduced-capacity: slow the partition's bucket
    Park,          // abnormal-usage-detected: an operator must look
};
const char *textOf(ProblemAction action);

// How to read the hints of one policy's responses.
struct ServerWaitOptions
{
    XRateLimitResetMeaning xRateLimitReset = XRateLimitResetMeaning::Auto;
    // The configured policy's window, for a quota-exceeded problem that names no
    // advertised policy with a window; -1 without a policy.
    qint64 policyWindowMs = -1;
};

// One hint that gave a wait, used or not.
struct WaitCandidate
{
    WaitSource source = WaitSource::None;
    qint64 waitMs = 0;
};

// What the server said about when to come back, resolved by the precedence of
// docs/retry-contract.md: Retry-After, then RateLimit (r=0;t=N), then X-RateLimit-Reset (when
// remaining is 0), then a Problem Details type. A malformed hint is kept for the
// record and otherwise ignored. Every hint that gave a wait is kept in candidates,
// and a note says which won when they disagree.
struct ServerWait
{
    WaitSource source = WaitSource::None; // None: the server gave no usable wait
    qint64 waitMs = 0;
    RetryAfter retryAfter; // always parsed, so a malformed value is reported
    RateLimitHeaders rateLimit;
    XRateLimit xRateLimit;
    ProblemDetails problem;
    ProblemAction problemAction = ProblemAction::None;
    QList<WaitCandidate> candidates; // in precedence order
    QStringList notes;               // contradictions between hints

    bool hasWait() const { return source != WaitSource::None; }

    // The candidates and notes, for the attempt record and `cooldown explain`.
    QJsonObject hintsToJson() const;

    static ServerWait resolve(const HttpHeaders &headers, const QByteArray &body, qint64 nowMs,
                              const ServerWaitOptions &options = {});
};

} // namespace cooldown
