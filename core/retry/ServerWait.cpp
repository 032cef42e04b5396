// SPDX-License-Identifier: Apache-2.0
#include "core/retry/ServerWait.h"

#include <QJsonArray>

#include <algorithm>

namespace cooldown {

namespace {

qint64 secondsToMs(qint64 seconds)
{
    return std::min(seconds, RetryAfter::kMaxSeconds) * 1000;
}

// quota-exceeded names the policies it violated; the wait is the longest window
// among them, from what the server advertised, else from the configuration.
std::optional<qint64> quotaExceededWaitMs(const ProblemDetails &problem,
                                          const RateLimitHeaders &rateLimit,
                                          const ServerWaitOptions &options)
{
    std::optional<qint64> waitMs;
    const QStringList violated = problem.violatedPolicies();
    for (const QString &name : violated) {
        // The policy's own reset is the best answer; its whole window the safe one.
        std::optional<qint64> policyWaitMs;
        for (const RateLimitItem &item : rateLimit.limits) {
            if (item.name == name && item.resetSeconds)
                policyWaitMs = secondsToMs(*item.resetSeconds);
        }
        const RateLimitPolicyItem *policy = rateLimit.policyNamed(name);
        if (!policyWaitMs && policy && policy->windowSeconds)
            policyWaitMs = secondsToMs(*policy->windowSeconds);
        if (policyWaitMs)
            waitMs = std::max(waitMs.value_or(0), *policyWaitMs);
    }
    if (!waitMs && violated.isEmpty() && rateLimit.policies.size() == 1 &&
        rateLimit.policies.front().windowSeconds) {
        waitMs = secondsToMs(*rateLimit.policies.front().windowSeconds);
    }
    if (!waitMs && options.policyWindowMs > 0)
        waitMs = options.policyWindowMs;
    return waitMs;
}

} // namespace

const char *textOf(ProblemAction action)
{
    switch (action) {
    case ProblemAction::None:
        return "none";
    case ProblemAction::WaitForWindow:
        return "wait_for_window";
    case ProblemAction::SlowDown:
        return "slow_down";
    case ProblemAction::Park:
        return "park";
    }
    return "none";
}

QJsonObject ServerWait::hintsToJson() const
{
    QJsonArray list;
    for (qsizetype i = 0; i < candidates.size(); ++i) {
        list.append(QJsonObject{
            {QStringLiteral("source"), QLatin1String(textOf(candidates[i].source))},
            {QStringLiteral("seconds"), double(candidates[i].waitMs) / 1000.0},
            {QStringLiteral("won"), i == 0},
        });
    }
    return QJsonObject{
        {QStringLiteral("candidates"), list},
        {QStringLiteral("notes"), QJsonArray::fromStringList(notes)},
    };
}

ServerWait ServerWait::resolve(const HttpHeaders &headers, const QByteArray &body, qint64 nowMs,
                               const ServerWaitOptions &options)
{
    ServerWait result;
    result.retryAfter =
        RetryAfter::parse(headers.value("Retry-After"), nowMs, headers.value("Date"));
    if (result.retryAfter.isValid())
        result.candidates.append({WaitSource::RetryAfter, result.retryAfter.waitMs});

    result.rateLimit = RateLimitHeaders::parse(headers);
    if (const auto seconds = result.rateLimit.exhaustedWaitSeconds())
        result.candidates.append({WaitSource::RateLimit, secondsToMs(*seconds)});

    result.xRateLimit = XRateLimit::parse(headers, options.xRateLimitReset, nowMs);
    if (result.xRateLimit.givesWait())
        result.candidates.append({WaitSource::XRateLimit, result.xRateLimit.waitMs});

    result.problem = ProblemDetails::parse(headers, body);
    switch (result.problem.kind()) {
    case ProblemDetails::Kind::QuotaExceeded:
        result.problemAction = ProblemAction::WaitForWindow;
        if (const auto waitMs = quotaExceededWaitMs(result.problem, result.rateLimit, options))
            result.candidates.append({WaitSource::Problem, *waitMs});
        break;
    case ProblemDetails::Kind::TemporaryReducedCapacity:
        result.problemAction = ProblemAction::SlowDown;
        break;
    case ProblemDetails::Kind::AbnormalUsageDetected:
        result.problemAction = ProblemAction::Park;
        break;
    case ProblemDetails::Kind::None:
    case ProblemDetails::Kind::Other:
        break;
    }

    if (result.candidates.isEmpty())
        return result;
    const WaitCandidate &winner = result.candidates.front();
    result.source = winner.source;
    result.waitMs = winner.waitMs;
    for (qsizetype i = 1; i < result.candidates.size(); ++i) {
        const WaitCandidate &other = result.candidates[i];
        if (other.waitMs == winner.waitMs)
            continue;
        result.notes.append(QStringLiteral("%1 says %2 s, %3 says %4 s: %1 wins by precedence")
                                .arg(QLatin1String(textOf(winner.source)))
                                .arg(double(winner.waitMs) / 1000.0)
                                .arg(QLatin1String(textOf(other.source)))
                                .arg(double(other.waitMs) / 1000.0));
    }
    return result;
}

} // namespace cooldown
