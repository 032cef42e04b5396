// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/retry/RetryDecision.h"
#include "core/store/Records.h"

#include <QString>

namespace cooldown {

// What one attempt did, apart from what the retry contract decided about it: the
// facts the attempt record keeps. Filled by the scheduler from the exchange (or, for
// an attempt that never reached the server, from what is known).
struct AttemptFacts
{
    QString method;
    QString url;
    qint64 startedAtMs = 0;
    qint64 durationMs = 0;
    int status = 0; // 0: no response
    QString error;  // the transport's failure, empty when a response came
    QString workerId;
    QString policyId; // the endpoint's configured policy, empty without one
    int policyVersion = 0;
    QString requestHeaders;  // header lines as sent
    QString responseHeaders; // header lines as received
};

// The one place an attempt becomes records, for every path that ends one (an
// exchange, a rescued lease, an endpoint that left the configuration): the attempt as
// it is recorded, and the operation's state after it. Pure: no clock, no store.
namespace bookkeeping {

// The attempt record of op's next attempt, with the decision made about it.
AttemptRecord attemptRecord(const OperationRecord &op, const AttemptFacts &facts,
                            const RetryDecision &decision, bool idempotencyKeySent);
// The operation after that attempt. firstAttemptAtMs: when its first attempt started.
OperationRecord nextState(const OperationRecord &op, const AttemptRecord &attempt,
                          const RetryDecision &decision, qint64 firstAttemptAtMs);
// The state an operation takes for a decision.
OperationState stateFor(RetryDecision::Action action);

} // namespace bookkeeping
} // namespace cooldown
