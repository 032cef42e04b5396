// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Metrics.h"
#include "core/time/Clock.h"

#include <QTest>

using namespace cooldown;

namespace {

// 2026-11-29T12:00:00Z, on a minute boundary.
constexpr qint64 kNoon = 1795953600000;
constexpr qint64 kMinute = 60000;

AttemptRecord attempt(qint64 operationId, qint64 finishedAtMs, int status, Decision decision,
                      const char *endpoint = "measurements")
{
    AttemptRecord a;
    a.operationId = operationId;
    a.endpointId = QString::fromLatin1(endpoint);
    a.startedAtMs = finishedAtMs - 100;
    a.finishedAtMs = finishedAtMs;
    a.status = status;
    a.decision = decision;
    return a;
}

} // namespace

class tst_Metrics : public QObject
{
    Q_OBJECT

private slots:
    void countsThrottlesPerMinute();
    void bucketsAggregateMinutes_data();
    void bucketsAggregateMinutes();
    void throttlesByPartitionAndEndpoint();
    void waitBySource();
    void localQueueWaitIsMeasuredFromDueTime();
    void finalFailuresByReason();
    void attemptsPerSuccess();
    void leaseConflictCountsResponseNotDecision();
    void forgetsMinutesPastRetention();
    void peakInFlight();
    void finalFailuresSince();
};

void tst_Metrics::countsThrottlesPerMinute()
{
    ManualClock clock(kNoon + 10 * kMinute);
    Metrics metrics(clock);
    metrics.record(attempt(1, kNoon + 1000, 429, Decision::Retry));
    metrics.record(attempt(2, kNoon + 59000, 429, Decision::Retry));
    metrics.record(attempt(3, kNoon + kMinute, 503, Decision::Retry));
    metrics.record(attempt(4, kNoon + 2 * kMinute + 5, 200, Decision::Success));

    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + 3 * kMinute);
    QCOMPARE(s.bucketCount, 3);
    QCOMPARE(s.fromMs, kNoon);
    QCOMPARE(s.tooManyRequests, (QList<qint64>{2, 0, 0}));
    QCOMPARE(s.unavailable, (QList<qint64>{0, 1, 0}));
    QCOMPARE(s.attempts, qint64(4));
    QCOMPARE(s.successes, qint64(1));
    QCOMPARE(s.bucketStartMs(2), kNoon + 2 * kMinute);
}

void tst_Metrics::bucketsAggregateMinutes_data()
{
    QTest::addColumn<qint64>("bucketMs");
    QTest::addColumn<QList<qint64>>("expected");
    // One 429 in each of the minutes 0, 1, 4 and 9 after noon.
    QTest::newRow("1 min") << kMinute << QList<qint64>{1, 1, 0, 0, 1, 0, 0, 0, 0, 1};
    QTest::newRow("5 min") << 5 * kMinute << QList<qint64>{3, 1};
    QTest::newRow("10 min") << 10 * kMinute << QList<qint64>{4};
    QTest::newRow("rounded up to 2 min") << 90000LL << QList<qint64>{2, 0, 1, 0, 1};
}

void tst_Metrics::bucketsAggregateMinutes()
{
    QFETCH(qint64, bucketMs);
    QFETCH(QList<qint64>, expected);
    ManualClock clock(kNoon + 10 * kMinute);
    Metrics metrics(clock);
    for (const int m : {0, 1, 4, 9})
        metrics.record(attempt(m + 1, kNoon + m * kMinute + 30000, 429, Decision::Retry));
    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + 10 * kMinute, bucketMs);
    QCOMPARE(s.tooManyRequests, expected);
}

void tst_Metrics::throttlesByPartitionAndEndpoint()
{
    ManualClock clock(kNoon + kMinute);
    Metrics metrics(clock);
    metrics.setPartitionOf(
        QStringLiteral("measurements"),
        Metrics::partitionLabel(QStringLiteral("read-v1"), QStringLiteral("p-1")));
    metrics.record(attempt(1, kNoon + 10, 429, Decision::Retry, "measurements"));
    metrics.record(attempt(2, kNoon + 20, 429, Decision::Retry, "measurements"));
    AttemptRecord search = attempt(3, kNoon + 30, 429, Decision::Retry, "search");
    metrics.record(search);
    search.policyId = QStringLiteral("search-v1");
    search.endpointId = QStringLiteral("search2");
    metrics.record(search);

    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + kMinute);
    QCOMPARE(s.tooManyRequestsByPartition.value(QStringLiteral("read-v1 / p-1")), QList<qint64>{2});
    // Without a configured partition: the policy, else the endpoint itself.
    QCOMPARE(s.tooManyRequestsByPartition.value(QStringLiteral("search")), QList<qint64>{1});
    QCOMPARE(s.tooManyRequestsByPartition.value(QStringLiteral("search-v1")), QList<qint64>{1});
    QCOMPARE(s.tooManyRequestsByEndpoint.value(QStringLiteral("measurements")), QList<qint64>{2});
    QCOMPARE(s.tooManyRequestsByEndpoint.size(), 3);
    QVERIFY(s.unavailableByPartition.isEmpty());
    QCOMPARE(Metrics::partitionLabel(QStringLiteral("p"), QString()), QStringLiteral("p"));
    QCOMPARE(Metrics::partitionLabel(QString(), QStringLiteral("k")), QString());
}

void tst_Metrics::waitBySource()
{
    ManualClock clock(kNoon + kMinute);
    Metrics metrics(clock);
    AttemptRecord a = attempt(1, kNoon + 10, 429, Decision::Retry);
    a.waitMs = 30000;
    a.waitSource = WaitSource::RetryAfter;
    metrics.record(a);
    AttemptRecord b = attempt(2, kNoon + 20, 502, Decision::Retry);
    b.waitMs = 1500;
    b.waitSource = WaitSource::Backoff;
    metrics.record(b);
    AttemptRecord c = attempt(3, kNoon + 30, 200, Decision::Success);
    c.waitMs = -1;
    metrics.record(c);

    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + kMinute);
    QCOMPARE(s.waitMsBySource.value(QStringLiteral("retry-after")), QList<qint64>{30000});
    QCOMPARE(s.waitMsBySource.value(QStringLiteral("backoff")), QList<qint64>{1500});
    QCOMPARE(s.waitMsBySource.size(), 2);
    QCOMPARE(s.waitMsTotal, qint64(31500));
}

void tst_Metrics::localQueueWaitIsMeasuredFromDueTime()
{
    ManualClock clock(kNoon + 5 * kMinute);
    Metrics metrics(clock);
    AttemptRecord first = attempt(7, kNoon + 1000, 429, Decision::Retry);
    first.waitMs = 10000; // due at noon + 11 s
    first.waitSource = WaitSource::RetryAfter;
    metrics.record(first);
    AttemptRecord second = attempt(7, kNoon + 2 * kMinute, 200, Decision::Success);
    second.startedAtMs = kNoon + 11000 + 4000; // 4 s late: a bucket or the permits
    metrics.record(second);
    // The operation is done: a later attempt of the same id is not measured against it.
    AttemptRecord third = attempt(7, kNoon + 3 * kMinute, 200, Decision::Success);
    metrics.record(third);

    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + 4 * kMinute);
    QCOMPARE(s.waitMsBySource.value(QStringLiteral("queue")), (QList<qint64>{4000, 0, 0, 0}));
}

void tst_Metrics::finalFailuresByReason()
{
    ManualClock clock(kNoon + kMinute);
    Metrics metrics(clock);
    AttemptRecord a = attempt(1, kNoon + 10, 404, Decision::Fail);
    a.reason = QStringLiteral("not_retryable");
    metrics.record(a);
    metrics.record(a);
    AttemptRecord b = attempt(2, kNoon + 20, 429, Decision::Fail);
    b.reason = QStringLiteral("retry_after_too_long");
    metrics.record(b);
    AttemptRecord parked = attempt(3, kNoon + 30, 0, Decision::Park);
    parked.reason = QStringLiteral("ambiguous_send");
    metrics.record(parked);

    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + kMinute);
    QCOMPARE(s.finalFailuresByReason.value(QStringLiteral("not_retryable")), qint64(2));
    QCOMPARE(s.finalFailuresByReason.value(QStringLiteral("retry_after_too_long")), qint64(1));
    QCOMPARE(s.finalFailuresByReason.size(), 2);
    QCOMPARE(s.finalFailures(), qint64(3));
}

void tst_Metrics::attemptsPerSuccess()
{
    ManualClock clock(kNoon + kMinute);
    Metrics metrics(clock);
    QCOMPARE(metrics.snapshot(kNoon, kNoon + kMinute).attemptsPerSuccess(), -1.0);
    metrics.record(attempt(1, kNoon + 1, 429, Decision::Retry));
    metrics.record(attempt(1, kNoon + 2, 429, Decision::Retry));
    metrics.record(attempt(1, kNoon + 3, 200, Decision::Success));
    metrics.record(attempt(2, kNoon + 4, 200, Decision::Success));
    QCOMPARE(metrics.snapshot(kNoon, kNoon + kMinute).attemptsPerSuccess(), 2.0);
}

void tst_Metrics::leaseConflictCountsResponseNotDecision()
{
    ManualClock clock(kNoon + kMinute);
    Metrics metrics(clock);
    AttemptRecord a = attempt(1, kNoon + 1, 429, Decision::Fail);
    a.reason = QStringLiteral("max_attempts");
    a.leaseConflict = true;
    metrics.record(a);
    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + kMinute);
    QCOMPARE(s.tooManyRequests, QList<qint64>{1});
    QCOMPARE(s.finalFailures(), qint64(0));
}

void tst_Metrics::forgetsMinutesPastRetention()
{
    ManualClock clock(kNoon);
    Metrics metrics(clock, 10 * kMinute);
    metrics.record(attempt(1, kNoon - 5 * kMinute, 429, Decision::Retry));
    QCOMPARE(metrics.earliestMs(), kNoon - 5 * kMinute);
    // Older than the retention when it arrives: not kept at all.
    metrics.record(attempt(2, kNoon - 11 * kMinute, 429, Decision::Retry));
    QCOMPARE(metrics.earliestMs(), kNoon - 5 * kMinute);

    clock.advance(6 * kMinute);
    metrics.record(attempt(3, kNoon + 6 * kMinute, 429, Decision::Retry));
    QCOMPARE(metrics.earliestMs(), kNoon + 6 * kMinute);
    const MetricsSnapshot s = metrics.snapshot(kNoon - 20 * kMinute, kNoon + 7 * kMinute);
    qint64 total = 0;
    for (const qint64 n : s.tooManyRequests)
        total += n;
    QCOMPARE(total, qint64(1));

    metrics.clear();
    QCOMPARE(metrics.earliestMs(), qint64(-1));
}

void tst_Metrics::peakInFlight()
{
    ManualClock clock(kNoon);
    Metrics metrics(clock);
    metrics.recordInFlight(3, 8);
    metrics.recordInFlight(6, 8);
    metrics.recordInFlight(1, 8);
    clock.advance(kMinute);
    metrics.recordInFlight(2, 4);
    const MetricsSnapshot s = metrics.snapshot(kNoon, kNoon + 2 * kMinute);
    QCOMPARE(s.peakInFlight, (QList<int>{6, 2}));
    QCOMPARE(s.maxInFlight, 4);
}

void tst_Metrics::finalFailuresSince()
{
    ManualClock clock(kNoon + 10 * kMinute);
    Metrics metrics(clock);
    for (int m = 0; m < 10; ++m)
        metrics.record(attempt(m + 1, kNoon + m * kMinute, 404, Decision::Fail));
    QCOMPARE(metrics.finalFailuresSince(kNoon), qint64(10));
    QCOMPARE(metrics.finalFailuresSince(kNoon + 7 * kMinute), qint64(3));
    QCOMPARE(metrics.finalFailuresSince(kNoon + 10 * kMinute), qint64(0));
}

QTEST_GUILESS_MAIN(tst_Metrics)
#include "tst_metrics.moc"
