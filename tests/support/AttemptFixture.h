// SPDX-License-Identifier: Apache-2.0
#pragma once

// Attempts recorded by hand, the way the engine records them: an operation is claimed,
// its next attempt is written with the operation's next state, fenced by the claim.
// For the tests that lay a history out in a store (or in a database the binary then
// reads). Each builder sets what every such attempt has; a test sets the rest itself.

#include "core/store/Store.h"

#include <optional>
#include <utility>

namespace cooldown::test {

// A new operation of `endpoint`, created and claimed by `worker` at `atMs`: nullopt
// unless exactly that operation was claimed.
inline std::optional<OperationRecord> claimNew(Store &store, const QString &endpoint,
                                               const QString &idempotencyKey, qint64 atMs,
                                               const QString &worker, qint64 leaseMs = 60'000)
{
    const auto id = store.createOperation(endpoint, idempotencyKey, atMs);
    if (!id)
        return std::nullopt;
    const QList<OperationRecord> claimed = store.claims().claimDue(worker, atMs, leaseMs, 1);
    if (claimed.size() != 1 || claimed.first().id != *id)
        return std::nullopt;
    return claimed.first();
}

// The next attempt of a claimed operation: its operation, endpoint and number, started
// at startedAtMs and finished at finishedAtMs (-1: no end recorded). Every other field
// is as `fields` has it.
inline AttemptRecord nextAttempt(const OperationRecord &claimed, qint64 startedAtMs,
                                 qint64 finishedAtMs = -1, AttemptRecord fields = {})
{
    AttemptRecord a = std::move(fields);
    a.operationId = claimed.id;
    a.endpointId = claimed.endpointId;
    a.attempt = claimed.attempt + 1;
    a.startedAtMs = startedAtMs;
    a.finishedAtMs = finishedAtMs;
    return a;
}

// The decision of an attempt that left its operation in `state`.
inline Decision decisionLeaving(OperationState state)
{
    switch (state) {
    case OperationState::Succeeded:
        return Decision::Success;
    case OperationState::Failed:
        return Decision::Fail;
    case OperationState::Parked:
        return Decision::Park;
    default:
        return Decision::Retry;
    }
}

// The claimed operation once `attempt` left it in `state`: the attempt counted, due
// again at dueAtMs when waiting, else not due.
inline OperationRecord leftIn(OperationRecord claimed, const AttemptRecord &attempt,
                              OperationState state, qint64 dueAtMs = -1)
{
    claimed.state = state;
    claimed.attempt = attempt.attempt;
    claimed.nextAttemptAtMs = state == OperationState::Waiting ? dueAtMs : -1;
    return claimed;
}

// Records the attempt and the operation's next state, fenced by the claim whose
// version `next` still carries.
inline Store::FinishResult finishAttempt(Store &store, const AttemptRecord &attempt,
                                         const OperationRecord &next, const QString &worker)
{
    return store.finishAttempt(attempt, next, next.version, worker);
}

} // namespace cooldown::test
