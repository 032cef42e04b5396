// SPDX-License-Identifier: Apache-2.0
#pragma once

// Databases with history in them, for the dashboard's tests.

#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <QTest>

namespace cooldown::test {

// Records one operation with one finished attempt started at startedAt.
inline qint64 recordAttempt(Store &store, const QString &endpoint, qint64 startedAt, int status,
                            Decision decision,
                            OperationState finalState = OperationState::Succeeded)
{
    const auto claimed = claimNew(store, endpoint, QString(), startedAt, QStringLiteral("w1"));
    if (!claimed)
        return 0;
    AttemptRecord a = nextAttempt(*claimed, startedAt, startedAt + 40);
    a.durationMs = 40;
    a.method = QStringLiteral("GET");
    a.url = QStringLiteral("http://127.0.0.1/%1").arg(endpoint);
    a.status = status;
    a.decision = decision;
    a.reason = decision == Decision::Retry  ? QStringLiteral("throttled")
               : decision != Decision::Fail ? QStringLiteral("ok")
               : status >= 500              ? QStringLiteral("server_error")
                                            : QStringLiteral("not_retryable");
    a.workerId = QStringLiteral("w1");
    a.responseHeaders =
        status == 429 ? QStringLiteral("Retry-After: 30\nSet-Cookie: s=secret\n") : QString();
    a.retryAfterRaw = status == 429 ? QStringLiteral("30") : QString();
    OperationRecord next = leftIn(*claimed, a, finalState, startedAt + 3600000);
    next.lastStatus = status;
    if (finishAttempt(store, a, next, QStringLiteral("w1")) != Store::FinishResult::Committed)
        return 0;
    return claimed->id;
}

} // namespace cooldown::test
