// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/Gcra.h"

#include <algorithm>
#include <limits>

namespace cooldown {

namespace {

// TATs and their sums stay far below the end of qint64 (about 292,000 years in µs).
constexpr qint64 kMaxUs = qint64(1) << 61;

qint64 saturatedProduct(qint64 a, qint64 b)
{
    if (a <= 0 || b <= 0)
        return 0;
    if (a > kMaxUs / b)
        return kMaxUs;
    return a * b;
}

} // namespace

Gcra Gcra::forPolicy(const RateLimitPolicy &policy)
{
    if (policy.quotaUnit == QuotaUnit::Concurrency)
        return {};
    return forLimit(policy.limit, policy.windowMs, policy.burst);
}

Gcra Gcra::forLimit(qint64 limit, qint64 windowMs, qint64 burst)
{
    Gcra g;
    if (limit <= 0 || windowMs <= 0)
        return g;
    const qint64 windowUs = saturatedProduct(windowMs, 1000);
    // Rounded up, and one microsecond at least: never faster than the policy.
    g.intervalUs = std::max<qint64>(1, windowUs / limit + (windowUs % limit != 0 ? 1 : 0));
    g.capacity = std::max<qint64>(1, burst);
    return g;
}

qint64 Gcra::available(qint64 tatUs, qint64 nowUs) const
{
    if (isUnlimited())
        return capacity;
    // The bucket is full when the TAT is in the past; each interval the TAT lies
    // ahead of now is one unit spent.
    const qint64 ahead = std::max<qint64>(0, tatUs - nowUs);
    const qint64 room = saturatedProduct(capacity, intervalUs) - ahead;
    return room <= 0 ? 0 : std::min(capacity, room / intervalUs);
}

qint64 Gcra::take(qint64 tatUs, qint64 cost, qint64 nowUs) const
{
    if (isUnlimited())
        return tatUs;
    return std::min(kMaxUs, std::max(tatUs, nowUs) + saturatedProduct(cost, intervalUs));
}

qint64 Gcra::availableAtUs(qint64 tatUs, qint64 cost, qint64 nowUs) const
{
    if (isUnlimited())
        return nowUs;
    // cost units fit once the TAT is no more than (capacity - cost) intervals ahead; a
    // cost above the capacity waits for a full bucket.
    const qint64 fits = std::max<qint64>(0, capacity - std::max<qint64>(0, cost));
    return std::max(nowUs, tatUs - saturatedProduct(fits, intervalUs));
}

qint64 Gcra::availableAtMs(qint64 tatUs, qint64 cost, qint64 nowMs) const
{
    const qint64 at = availableAtUs(tatUs, cost, saturatedProduct(nowMs, 1000));
    return at / 1000 + (at % 1000 != 0 ? 1 : 0);
}

} // namespace cooldown
