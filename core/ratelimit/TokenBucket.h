// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/ratelimit/RateLimitPolicy.h"

#include <QtGlobal>

namespace cooldown {

// The client-side pace of one (policy, partition key): `limit` units per window refill
// continuously, and up to max(burst, 1) units may be taken at once. So no window of
// the policy's length ever sees more than limit + burst units sent.
//
// Time is passed in as milliseconds (a Clock's monotonicMs() is the natural source);
// the bucket never reads a clock. Arithmetic is exact integers in the normal case, so
// that availableAtMs() is the first millisecond at which tryTake() succeeds and the
// scheduler can sleep until then instead of polling.
//
// A cost larger than the bucket (a big body under a byte quota) is let through when
// the bucket is full and leaves a debt that later refills pay back.
//
// A concurrency quota has no refill: limit permits, given back by release() when
// the exchange ends; availableAtMs() then answers kWaitForRelease.
class TokenBucket
{
public:
    static constexpr qint64 kWaitForRelease = -1;
    // What temporary-reduced-capacity does to a bucket, for lack of a figure from the server.
    static constexpr double kReducedCapacityFactor = 0.5;

    TokenBucket(const RateLimitPolicy &policy, qint64 nowMs);
    // windowMs is ignored for Concurrency. The bucket starts full.
    TokenBucket(QuotaUnit unit, qint64 limit, qint64 windowMs, qint64 burst, qint64 nowMs);

    QuotaUnit unit() const { return m_unit; }
    qint64 limit() const { return m_limit; }
    qint64 windowMs() const { return m_windowMs; }
    qint64 capacity() const { return m_capacity; } // units, or permits for Concurrency

    // The cost of one send: 1, or the request body's bytes under a byte quota.
    qint64 costOf(qint64 bodyBytes) const;

    // Takes cost units (or permits) if they are there at nowMs.
    bool tryTake(qint64 cost, qint64 nowMs);
    // An operator's "Force now": taken whatever the level, which may go into debt.
    void takeForced(qint64 cost, qint64 nowMs);
    // The earliest ms >= nowMs at which tryTake(cost, ·) will succeed, if nothing else
    // takes meanwhile; kWaitForRelease when only a release() can make room.
    qint64 availableAtMs(qint64 cost, qint64 nowMs) const;
    // Concurrency: gives permits back when an exchange ends. Ignored for other units.
    void release(qint64 cost = 1);
    qint64 permitsInUse() const { return m_inUse; }

    // Units available at nowMs (negative while in debt). Permits free, for Concurrency.
    double available(qint64 nowMs) const;

    // Refill at factor × the normal rate (0..1) until untilMs; for Concurrency, only
    // max(1, limit × factor) permits. The latest call replaces any earlier slow-down,
    // so fresher server information can also relax it.
    void slowDown(double factor, qint64 untilMs, qint64 nowMs);
    double rateFactor(qint64 nowMs) const { return nowMs < m_slowUntilMs ? m_factor : 1.0; }
    qint64 slowedUntilMs() const { return m_slowUntilMs; }

private:
    qint64 levelAt(qint64 atMs) const;
    qint64 refill(qint64 level, qint64 elapsedMs, double factor) const;
    qint64 scaled(qint64 units) const;
    qint64 permitLimit(qint64 nowMs) const;
    void advance(qint64 nowMs);

    QuotaUnit m_unit = QuotaUnit::Request;
    qint64 m_limit = 1;
    qint64 m_windowMs = 1000;
    qint64 m_capacity = 1;
    // The level in units × windowMs: one ms refills exactly m_limit of them.
    qint64 m_level = 0;
    qint64 m_updatedMs = 0;
    qint64 m_inUse = 0;
    double m_factor = 1.0;
    qint64 m_slowUntilMs = 0;
};

} // namespace cooldown
