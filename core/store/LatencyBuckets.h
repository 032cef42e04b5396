// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QString>
#include <QtGlobal>

#include <optional>

// The buckets of the latency histogram (attempt_latency_rollups, docs/report.md): the
// one place their bounds are defined. Bucket i holds the exchanges whose duration d
// (milliseconds) is above the bound of bucket i - 1 and at most its own; bucket 0 holds
// d <= 1 (and a negative duration, as 0); the last bucket holds everything above an
// hour. Above 10 ms neighbouring bounds are at most 25 % apart (1, 1.2, 1.5, 2, 2.5, 3,
// 4, 5, 6, 8 per decade).
namespace cooldown::latency {

// The number of buckets, the open last one included.
int bucketCount();

// The upper bound of bucket `bucket`, in ms; empty for the last bucket (over an hour).
std::optional<qint64> upperBoundMs(int bucket);

// The bucket a duration falls in.
int bucketOf(qint64 durationMs);

// The same as an SQL expression over a duration column or expression.
QString bucketSql(const QString &durationExpression);

// The p-th percentile (0 < p <= 100) of the exchanges counted per bucket (counts[i]:
// how many in bucket i), by nearest rank: the bucket of the ceil(p·N/100)-th shortest
// exchange. Empty when counts holds nothing.
std::optional<int> percentileBucket(const QList<qint64> &counts, int percent);

} // namespace cooldown::latency
