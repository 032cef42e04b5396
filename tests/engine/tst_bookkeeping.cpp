// SPDX-License-Identifier: Apache-2.0
// The one path from an attempt's facts and its decision to the records the store
// keeps (core/engine/Bookkeeping): no event loop, no store.

#include "core/engine/Bookkeeping.h"
#include "support/ReadableEnums.h"

#include <QTest>

using namespace cooldown;

class tst_Bookkeeping : public QObject
{
    Q_OBJECT

private slots:
    void successEndsTheOperation();
    void serverWaitIsRecordedAndCounted();
    void backoffIsRemembered();
    void parkAndFailKeepTheReason_data();
    void parkAndFailKeepTheReason();
    void attemptWithoutAResponseForgetsTheLastStatus();
    void idempotencyKeyOnlyWhenSent();
};

namespace {

constexpr qint64 kNow = 1'800'000'000'000LL;

OperationRecord operation()
{
    OperationRecord op;
    op.id = 7;
    op.endpointId = QStringLiteral("upload");
    op.idempotencyKey = QStringLiteral("key-7");
    op.attempt = 2;
    op.throttledAttempts = 1;
    op.firstAttemptAtMs = kNow - 60'000;
    op.lastStatus = 429;
    op.previousBackoffMs = 800;
    op.forceNext = true;
    op.state = OperationState::Running;
    return op;
}

AttemptFacts facts(int status)
{
    AttemptFacts f;
    f.method = QStringLiteral("POST");
    f.url = QStringLiteral("https://api.example.com/v1/upload");
    f.startedAtMs = kNow;
    f.durationMs = 120;
    f.status = status;
    f.workerId = QStringLiteral("worker-1");
    f.policyId = QStringLiteral("api");
    f.policyVersion = 3;
    f.requestHeaders = QStringLiteral("Idempotency-Key: key-7\n");
    f.responseHeaders = QStringLiteral("Retry-After: 30\n");
    return f;
}

RetryDecision decision(RetryDecision::Action action, const char *reason)
{
    RetryDecision d;
    d.action = action;
    d.reason = QLatin1String(reason);
    return d;
}

} // namespace

void tst_Bookkeeping::successEndsTheOperation()
{
    const OperationRecord op = operation();
    const RetryDecision d = decision(RetryDecision::Action::Success, "success");
    const AttemptRecord a = bookkeeping::attemptRecord(op, facts(201), d, true);
    QCOMPARE(a.operationId, 7);
    QCOMPARE(a.endpointId, QStringLiteral("upload"));
    QCOMPARE(a.attempt, 3);
    QCOMPARE(a.startedAtMs, kNow);
    QCOMPARE(a.finishedAtMs, kNow + 120);
    QCOMPARE(a.durationMs, 120);
    QCOMPARE(a.method, QStringLiteral("POST"));
    QCOMPARE(a.status, 201);
    QCOMPARE(a.decision, Decision::Success);
    QCOMPARE(a.workerId, QStringLiteral("worker-1"));
    QCOMPARE(a.policyId, QStringLiteral("api"));
    QCOMPARE(a.policyVersion, 3);
    QVERIFY(a.forced);
    QCOMPARE(a.rateLimitRemaining, -1);
    QCOMPARE(a.requestHeaders, QStringLiteral("Idempotency-Key: key-7\n"));

    const OperationRecord next = bookkeeping::nextState(op, a, d, op.firstAttemptAtMs);
    QCOMPARE(next.state, OperationState::Succeeded);
    QCOMPARE(next.attempt, 3);
    QCOMPARE(next.lastStatus, 201);
    QCOMPARE(next.nextAttemptAtMs, -1);
    QVERIFY(next.finalReason.isEmpty());
    QVERIFY(!next.forceNext); // a forced send is used up
    QCOMPARE(next.throttledAttempts, 1);
    QCOMPARE(next.firstAttemptAtMs, kNow - 60'000);
}

void tst_Bookkeeping::serverWaitIsRecordedAndCounted()
{
    const OperationRecord op = operation();
    RetryDecision d = decision(RetryDecision::Action::Retry, "throttled");
    d.throttled = true;
    d.source = WaitSource::RetryAfter;
    d.delayMs = 30'000;
    d.notBeforeMs = kNow + 120 + 30'000;
    d.serverWait.retryAfter.raw = "30";
    d.serverWait.problem.present = true;
    d.serverWait.problem.type = QStringLiteral("https://example.com/probs/quota");
    d.serverWait.problem.instance = QStringLiteral("/requests/42");
    const AttemptRecord a = bookkeeping::attemptRecord(op, facts(429), d, true);
    QCOMPARE(a.decision, Decision::Retry);
    QCOMPARE(a.waitMs, 30'000);
    QCOMPARE(a.waitSource, WaitSource::RetryAfter);
    QCOMPARE(a.retryAfterRaw, QStringLiteral("30"));
    QCOMPARE(a.problemInstance, QStringLiteral("/requests/42"));

    const OperationRecord next = bookkeeping::nextState(op, a, d, op.firstAttemptAtMs);
    QCOMPARE(next.state, OperationState::Waiting);
    QCOMPARE(next.nextAttemptAtMs, kNow + 30'120);
    QCOMPARE(next.throttledAttempts, 2);
    QCOMPARE(next.waitSource, WaitSource::RetryAfter);
    QCOMPARE(next.responseInstance, QStringLiteral("/requests/42"));
    QCOMPARE(next.previousBackoffMs, 800); // a server's wait is not a backoff
    QVERIFY(next.finalReason.isEmpty());
}

void tst_Bookkeeping::backoffIsRemembered()
{
    const OperationRecord op = operation();
    RetryDecision d = decision(RetryDecision::Action::Retry, "server_error");
    d.source = WaitSource::Backoff;
    d.delayMs = 1600;
    d.notBeforeMs = kNow + 1720;
    const AttemptRecord a = bookkeeping::attemptRecord(op, facts(502), d, true);
    const OperationRecord next = bookkeeping::nextState(op, a, d, op.firstAttemptAtMs);
    QCOMPARE(next.previousBackoffMs, 1600);
    QCOMPARE(next.throttledAttempts, 1);
    QCOMPARE(next.waitSource, WaitSource::Backoff);
}

void tst_Bookkeeping::parkAndFailKeepTheReason_data()
{
    QTest::addColumn<int>("action");
    QTest::addColumn<int>("state");
    QTest::newRow("park") << int(RetryDecision::Action::Park) << int(OperationState::Parked);
    QTest::newRow("fail") << int(RetryDecision::Action::Fail) << int(OperationState::Failed);
}

void tst_Bookkeeping::parkAndFailKeepTheReason()
{
    QFETCH(int, action);
    QFETCH(int, state);
    const OperationRecord op = operation();
    const RetryDecision d = decision(RetryDecision::Action(action), "max_attempts");
    const AttemptRecord a = bookkeeping::attemptRecord(op, facts(500), d, true);
    const OperationRecord next = bookkeeping::nextState(op, a, d, op.firstAttemptAtMs);
    QCOMPARE(int(next.state), state);
    QCOMPARE(int(bookkeeping::stateFor(RetryDecision::Action(action))), state);
    QCOMPARE(next.finalReason, QStringLiteral("max_attempts"));
    QCOMPARE(next.nextAttemptAtMs, -1);
}

void tst_Bookkeeping::attemptWithoutAResponseForgetsTheLastStatus()
{
    // A rescued lease (the worker died mid-attempt) got no response: the operation's
    // last status is that, not the 429 of the attempt before; the policy version is
    // the partition's, as for any attempt.
    const OperationRecord op = operation();
    AttemptFacts f = facts(0);
    f.error = QStringLiteral("worker_died");
    f.durationMs = 0;
    f.responseHeaders.clear();
    RetryDecision d = decision(RetryDecision::Action::Park, "unsafe_retry");
    const AttemptRecord a = bookkeeping::attemptRecord(op, f, d, true);
    QCOMPARE(a.status, 0);
    QCOMPARE(a.error, QStringLiteral("worker_died"));
    QCOMPARE(a.policyVersion, 3);
    QCOMPARE(a.finishedAtMs, a.startedAtMs);
    const OperationRecord next = bookkeeping::nextState(op, a, d, op.firstAttemptAtMs);
    QCOMPARE(next.lastStatus, 0);
    QCOMPARE(next.lastError, QStringLiteral("worker_died"));
}

void tst_Bookkeeping::idempotencyKeyOnlyWhenSent()
{
    const OperationRecord op = operation();
    const RetryDecision d = decision(RetryDecision::Action::Success, "success");
    QCOMPARE(bookkeeping::attemptRecord(op, facts(200), d, true).idempotencyKey,
             QStringLiteral("key-7"));
    QVERIFY(bookkeeping::attemptRecord(op, facts(200), d, false).idempotencyKey.isEmpty());
}

QTEST_GUILESS_MAIN(tst_Bookkeeping)
#include "tst_bookkeeping.moc"
