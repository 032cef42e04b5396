// SPDX-License-Identifier: Apache-2.0
#include "core/retry/Backoff.h"

#include "core/time/RandomSource.h"

#include <algorithm>
#include <cmath>

namespace cooldown::Backoff {

qint64 ceilingMs(double baseSeconds, double capSeconds, int n)
{
    const qint64 baseMs = qint64(std::llround(baseSeconds * 1000));
    const qint64 capMs = qint64(std::llround(capSeconds * 1000));
    // Doubling past the cap only risks overflow; stop as soon as it is reached.
    qint64 d = baseMs;
    for (int i = 0; i < n && d < capMs; ++i)
        d *= 2;
    return std::min(d, capMs);
}

qint64 delayMs(const RetryProfile &profile, int n, qint64 previousMs, RandomSource &random)
{
    const qint64 d = ceilingMs(profile.baseSeconds, profile.capSeconds, std::max(n, 0));
    switch (profile.jitter) {
    case Jitter::None:
        return d;
    case Jitter::Full:
        return random.uniformInt(0, d);
    case Jitter::Equal:
        return d / 2 + random.uniformInt(0, d - d / 2);
    case Jitter::Decorrelated: {
        const qint64 baseMs = qint64(std::llround(profile.baseSeconds * 1000));
        const qint64 capMs = qint64(std::llround(profile.capSeconds * 1000));
        const qint64 previous = previousMs > 0 ? previousMs : baseMs;
        const qint64 upper = std::max(baseMs, std::min(capMs, previous * 3));
        return std::min(capMs, random.uniformInt(std::min(baseMs, capMs), upper));
    }
    }
    return d;
}

} // namespace cooldown::Backoff
