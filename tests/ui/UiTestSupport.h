#pragma once

// Databases with history in them, for the dashboard's tests.

#include "core/store/Store.h"

#include <QTest>

namespace cooldown::test {

// Records one operation with one finished attempt started at startedAt.
inline qint64 recordAttempt(Store &store, const QString &endpoint, qint64 startedAt, int status,
                            const QString &decision,
                            OperationState finalState = OperationState::Succeeded)
{
    const auto id = store.createOperation(endpoint, QString(), startedAt);
    if (!id)
        return 0;
    const QList<OperationRecord> claimed =
        store.claimDue(QStringLiteral("w1"), startedAt, 60000, 1);
    if (claimed.size() != 1 || claimed.first().id != *id)
        return 0;
    OperationRecord op = claimed.first();
    AttemptRecord a;
    a.operationId = *id;
    a.endpointId = endpoint;
    a.attempt = 1;
    a.startedAtMs = startedAt;
    a.finishedAtMs = startedAt + 40;
    a.durationMs = 40;
    a.method = QStringLiteral("GET");
    a.url = QStringLiteral("http://127.0.0.1/%1").arg(endpoint);
    a.status = status;
    a.decision = decision;
    a.reason =
        decision == QLatin1String("retry") ? QStringLiteral("throttled") : QStringLiteral("ok");
    a.workerId = QStringLiteral("w1");
    a.responseHeaders =
        status == 429 ? QStringLiteral("Retry-After: 30\nSet-Cookie: s=secret\n") : QString();
    a.retryAfterRaw = status == 429 ? QStringLiteral("30") : QString();
    op.state = finalState;
    op.attempt = 1;
    op.lastStatus = status;
    op.nextAttemptAtMs = finalState == OperationState::Waiting ? startedAt + 3600000 : -1;
    if (store.finishAttempt(a, op, op.version, QStringLiteral("w1")) !=
        Store::FinishResult::Committed)
        return 0;
    return *id;
}

} // namespace cooldown::test
