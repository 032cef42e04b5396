// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Bookkeeping.h"

#include "core/http/RateLimitHeaders.h"

#include <algorithm>
#include <climits>

namespace cooldown::bookkeeping {

namespace {

// The RateLimit item with the fewest units left: the one that will throttle first.
const RateLimitItem *tightestLimit(const RateLimitHeaders &headers)
{
    const RateLimitItem *tightest = nullptr;
    for (const RateLimitItem &item : headers.limits) {
        if (!tightest || item.remaining < tightest->remaining)
            tightest = &item;
    }
    return tightest;
}

} // namespace

OperationState stateFor(RetryDecision::Action action)
{
    switch (action) {
    case RetryDecision::Action::Success:
        return OperationState::Succeeded;
    case RetryDecision::Action::Retry:
        return OperationState::Waiting;
    case RetryDecision::Action::Park:
        return OperationState::Parked;
    case RetryDecision::Action::Fail:
        break;
    }
    return OperationState::Failed;
}

AttemptRecord attemptRecord(const OperationRecord &op, const AttemptFacts &facts,
                            const RetryDecision &d, bool idempotencyKeySent)
{
    AttemptRecord a;
    a.operationId = op.id;
    a.endpointId = op.endpointId;
    a.attempt = op.attempt + 1;
    a.startedAtMs = facts.startedAtMs;
    a.finishedAtMs = facts.startedAtMs + facts.durationMs;
    a.method = facts.method;
    a.url = facts.url;
    a.status = facts.status;
    a.error = facts.error;
    a.decision = d.action;
    a.reason = d.reason;
    a.waitMs = d.delayMs;
    a.waitSource = d.source;
    a.retryAfterRaw = QString::fromLatin1(d.serverWait.retryAfter.raw);
    if (d.serverWait.problem.present) {
        a.problemType = d.serverWait.problem.type;
        a.problemInstance = d.serverWait.problem.instance;
    }
    const RateLimitItem *tightest = tightestLimit(d.serverWait.rateLimit);
    a.rateLimitRemaining = tightest ? int(std::min<qint64>(tightest->remaining, INT_MAX)) : -1;
    a.idempotencyKey = idempotencyKeySent ? op.idempotencyKey : QString();
    a.durationMs = facts.durationMs;
    a.workerId = facts.workerId;
    a.policyId = facts.policyId;
    a.policyVersion = facts.policyVersion;
    a.forced = op.forceNext;
    a.requestHeaders = facts.requestHeaders;
    a.responseHeaders = facts.responseHeaders;
    return a;
}

OperationRecord nextState(const OperationRecord &op, const AttemptRecord &a, const RetryDecision &d,
                          qint64 firstAttemptAtMs)
{
    OperationRecord next = op;
    // An attempt that found no network is recorded, but is not one of the operation's:
    // the next one takes its number again (docs/offline.md).
    next.attempt = d.offline || d.blocked ? op.attempt : a.attempt;
    next.throttledAttempts = op.throttledAttempts + (d.throttled ? 1 : 0);
    next.firstAttemptAtMs = firstAttemptAtMs;
    next.lastStatus = a.status;
    next.lastError = a.error;
    next.waitSource = a.waitSource;
    next.forceNext = false;
    if (!a.problemInstance.isEmpty())
        next.responseInstance = a.problemInstance;
    if (d.source == WaitSource::Backoff)
        next.previousBackoffMs = d.delayMs;
    next.state = stateFor(d.action);
    const bool retry = d.action == RetryDecision::Action::Retry;
    next.nextAttemptAtMs = retry ? d.notBeforeMs : -1;
    next.finalReason = d.action == RetryDecision::Action::Success || retry ? QString() : d.reason;
    return next;
}

} // namespace cooldown::bookkeeping
