// SPDX-License-Identifier: Apache-2.0
#include "core/store/LatencyBuckets.h"

#include <algorithm>
#include <array>
#include <iterator>

namespace cooldown::latency {

namespace {

// Upper bounds in ms, inclusive; past the last comes the open bucket.
constexpr std::array<qint64, 64> kBounds = {
    1,      2,      3,       4,       5,       6,       8,       10,      12,     15,     20,
    25,     30,     40,      50,      60,      80,      100,     120,     150,    200,    250,
    300,    400,    500,     600,     800,     1000,    1200,    1500,    2000,   2500,   3000,
    4000,   5000,   6000,    8000,    10000,   12000,   15000,   20000,   25000,  30000,  40000,
    50000,  60000,  80000,   100000,  120000,  150000,  200000,  250000,  300000, 400000, 500000,
    600000, 800000, 1000000, 1200000, 1500000, 2000000, 2500000, 3000000, 3600000};

} // namespace

int bucketCount()
{
    return int(kBounds.size()) + 1;
}

std::optional<qint64> upperBoundMs(int bucket)
{
    if (bucket < 0 || bucket >= int(kBounds.size()))
        return std::nullopt;
    return kBounds[std::size_t(bucket)];
}

int bucketOf(qint64 durationMs)
{
    return int(std::lower_bound(kBounds.begin(), kBounds.end(), durationMs) - kBounds.begin());
}

QString bucketSql(const QString &durationExpression)
{
    QString sql = QStringLiteral("CASE");
    for (std::size_t i = 0; i < kBounds.size(); ++i)
        sql +=
            QStringLiteral(" WHEN %1 <= %2 THEN %3").arg(durationExpression).arg(kBounds[i]).arg(i);
    return sql + QStringLiteral(" ELSE %1 END").arg(kBounds.size());
}

std::optional<int> percentileBucket(const QList<qint64> &counts, int percent)
{
    qint64 total = 0;
    for (const qint64 count : counts)
        total += count;
    if (total <= 0)
        return std::nullopt;
    const qint64 rank = std::max<qint64>(1, (total * percent + 99) / 100);
    qint64 seen = 0;
    for (qsizetype i = 0; i < counts.size(); ++i) {
        seen += counts.at(i);
        if (seen >= rank)
            return int(i);
    }
    return int(counts.size() - 1);
}

} // namespace cooldown::latency
