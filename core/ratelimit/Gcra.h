// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/ratelimit/RateLimitPolicy.h"

#include <QtGlobal>

namespace cooldown {

// The pace of one (policy, partition key) as the generic cell rate algorithm keeps
// it: a single number, the theoretical arrival time (TAT), instead of a level and a
// last-refill time. That makes it a row that every worker can read and advance in
// the transaction that claims an operation (see Claims::claimDue), so a fleet of
// workers keeps one policy's limit as one worker does.
//
// One unit is emitted every `interval` = window / limit; up to `capacity` units
// (max(burst, 1), as TokenBucket) may go at once. So no window of the policy's length
// ever sees more than limit + capacity units, whatever the number of workers.
//
// Times are microseconds so that an interval such as 1000 ms / 3 stays close to
// exact; the interval is rounded up, which can only make the pace slower. A cost
// larger than the capacity (a big body under a byte quota) goes through once the
// bucket is full and leaves its debt in the TAT.
struct Gcra
{
    qint64 intervalUs = 0; // per unit; 0 means no limit
    qint64 capacity = 1;   // units that may go at once

    // The pace of a request or byte policy; a concurrency policy (and none) has no
    // pace here: intervalUs stays 0.
    static Gcra forPolicy(const RateLimitPolicy &policy);
    static Gcra forLimit(qint64 limit, qint64 windowMs, qint64 burst);

    bool isUnlimited() const { return intervalUs <= 0; }
    // Units that can be taken at nowUs, given the TAT; capped at `capacity`.
    qint64 available(qint64 tatUs, qint64 nowUs) const;
    // The TAT after taking cost units at nowUs (whether or not they were available:
    // a forced send goes into debt).
    qint64 take(qint64 tatUs, qint64 cost, qint64 nowUs) const;
    // The first microsecond >= nowUs at which cost units are available.
    qint64 availableAtUs(qint64 tatUs, qint64 cost, qint64 nowUs) const;
    // The same rounded up to a millisecond, the store's unit of time.
    qint64 availableAtMs(qint64 tatUs, qint64 cost, qint64 nowMs) const;

    friend bool operator==(const Gcra &a, const Gcra &b)
    {
        return a.intervalUs == b.intervalUs && a.capacity == b.capacity;
    }
};

} // namespace cooldown
