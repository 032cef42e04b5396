// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/TokenBucket.h"

#include "core/Logging.h"

#include <algorithm>
#include <cmath>

namespace cooldown {

namespace {

// Matches the validation in RateLimitPolicy: levels and debts stay within ±2^61.
constexpr qint64 kMaxScaled = qint64(1) << 61;

} // namespace

TokenBucket::TokenBucket(const RateLimitPolicy &policy, qint64 nowMs)
    : TokenBucket(policy.quotaUnit, policy.limit, policy.windowMs, policy.burst, nowMs)
{}

TokenBucket::TokenBucket(QuotaUnit unit, qint64 limit, qint64 windowMs, qint64 burst, qint64 nowMs)
    : m_unit(unit), m_limit(std::max<qint64>(1, limit)),
      m_windowMs(unit == QuotaUnit::Concurrency ? 1 : std::max<qint64>(1, windowMs)),
      m_updatedMs(nowMs)
{
    if (m_unit == QuotaUnit::Concurrency) {
        m_capacity = m_limit;
        return;
    }
    // Refilling at limit per window, a bucket of `burst` lets at most limit + burst
    // through in any window; one unit at least, or nothing could ever be sent.
    m_capacity = std::max<qint64>(1, burst);
    m_limit = std::min(m_limit, kMaxScaled / m_windowMs);
    m_capacity = std::min(m_capacity, kMaxScaled / m_windowMs);
    m_level = m_capacity * m_windowMs;
}

qint64 TokenBucket::costOf(qint64 bodyBytes) const
{
    return m_unit == QuotaUnit::Byte ? std::max<qint64>(0, bodyBytes) : 1;
}

qint64 TokenBucket::scaled(qint64 units) const
{
    if (units <= 0)
        return 0;
    if (units > kMaxScaled / m_windowMs)
        return kMaxScaled;
    return units * m_windowMs;
}

qint64 TokenBucket::refill(qint64 level, qint64 elapsedMs, double factor) const
{
    const qint64 full = m_capacity * m_windowMs;
    if (elapsedMs <= 0 || level >= full || factor <= 0)
        return level;
    const qint64 room = full - level; // at most 2^62: fits
    if (factor >= 1.0) {
        const qint64 fillMs = room / m_limit + (room % m_limit != 0 ? 1 : 0);
        if (elapsedMs >= fillMs)
            return full;
        return level + m_limit * elapsedMs; // below room + m_limit: fits
    }
    // A slowed refill needs no exactness, only monotony: floor(x) of a product that
    // grows with elapsedMs.
    const long double add = static_cast<long double>(m_limit) * elapsedMs * factor;
    if (add >= static_cast<long double>(room))
        return full;
    return level + static_cast<qint64>(add);
}

qint64 TokenBucket::levelAt(qint64 atMs) const
{
    if (atMs <= m_updatedMs)
        return m_level;
    qint64 level = m_level;
    qint64 from = m_updatedMs;
    if (from < m_slowUntilMs) {
        const qint64 slowEnd = std::min(atMs, m_slowUntilMs);
        level = refill(level, slowEnd - from, m_factor);
        from = slowEnd;
    }
    return refill(level, atMs - from, 1.0);
}

void TokenBucket::advance(qint64 nowMs)
{
    // Time that runs backwards is treated as standing still.
    if (nowMs <= m_updatedMs)
        return;
    if (m_unit != QuotaUnit::Concurrency)
        m_level = levelAt(nowMs);
    m_updatedMs = nowMs;
    if (m_updatedMs >= m_slowUntilMs)
        m_factor = 1.0;
}

qint64 TokenBucket::permitLimit(qint64 nowMs) const
{
    if (nowMs < m_slowUntilMs)
        return std::max<qint64>(1, qint64(std::floor(double(m_limit) * m_factor)));
    return m_limit;
}

bool TokenBucket::tryTake(qint64 cost, qint64 nowMs)
{
    advance(nowMs);
    const qint64 at = std::max(nowMs, m_updatedMs);
    if (m_unit == QuotaUnit::Concurrency) {
        if (m_inUse + cost > permitLimit(at))
            return false;
        m_inUse += cost;
        return true;
    }
    const qint64 need = scaled(std::min(cost, m_capacity));
    if (m_level < need)
        return false;
    m_level = std::max(-kMaxScaled, m_level - scaled(cost));
    return true;
}

void TokenBucket::takeForced(qint64 cost, qint64 nowMs)
{
    advance(nowMs);
    if (m_unit == QuotaUnit::Concurrency)
        m_inUse += std::max<qint64>(0, cost);
    else
        m_level = std::max(-kMaxScaled, m_level - scaled(cost));
}

qint64 TokenBucket::availableAtMs(qint64 cost, qint64 nowMs) const
{
    const qint64 from = std::max(nowMs, m_updatedMs);
    if (m_unit == QuotaUnit::Concurrency) {
        if (m_inUse + cost <= permitLimit(from))
            return from;
        if (m_inUse + cost <= m_limit && from < m_slowUntilMs)
            return m_slowUntilMs;
        return kWaitForRelease;
    }
    const qint64 need = scaled(std::min(cost, m_capacity));
    if (levelAt(from) >= need)
        return from;

    // An estimate from the rates, then an exact search over levelAt(), which is
    // monotone in time: the answer is the first ms at which tryTake() succeeds.
    qint64 estimate = from;
    qint64 deficit = need - levelAt(from);
    if (from < m_slowUntilMs) {
        const qint64 slowEnd = m_slowUntilMs;
        const long double slowRate = static_cast<long double>(m_limit) * m_factor;
        if (slowRate > 0 && static_cast<long double>(deficit) <= slowRate * (slowEnd - from)) {
            estimate = from + static_cast<qint64>(std::ceil(deficit / slowRate));
            deficit = 0;
        } else {
            deficit = need - levelAt(slowEnd);
            estimate = slowEnd;
        }
    }
    if (deficit > 0)
        estimate += deficit / m_limit + 1;

    qint64 low = from;      // levelAt(low) < need
    qint64 high = estimate; // grown until levelAt(high) >= need
    qint64 step = 1;
    while (levelAt(high) < need) {
        low = high;
        high += step;
        step *= 2;
    }
    while (high - low > 1) {
        const qint64 middle = low + (high - low) / 2;
        if (levelAt(middle) >= need)
            high = middle;
        else
            low = middle;
    }
    return high;
}

void TokenBucket::release(qint64 cost)
{
    if (m_unit == QuotaUnit::Concurrency)
        m_inUse = std::max<qint64>(0, m_inUse - cost);
}

double TokenBucket::available(qint64 nowMs) const
{
    if (m_unit == QuotaUnit::Concurrency)
        return double(permitLimit(std::max(nowMs, m_updatedMs)) - m_inUse);
    return double(levelAt(nowMs)) / double(m_windowMs);
}

void TokenBucket::slowDown(double factor, qint64 untilMs, qint64 nowMs)
{
    advance(nowMs);
    if (!std::isfinite(factor))
        factor = 1.0;
    m_factor = std::clamp(factor, 0.0, 1.0);
    m_slowUntilMs = untilMs;
    if (m_slowUntilMs <= m_updatedMs)
        m_factor = 1.0;
    qCDebug(lcRateLimit) << "bucket slowed to" << m_factor << "until" << m_slowUntilMs;
}

} // namespace cooldown
