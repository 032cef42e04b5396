// SPDX-License-Identifier: Apache-2.0
#include "app/demo/DemoLimiter.h"

#include <algorithm>
#include <cmath>

namespace cooldown::demo {

namespace {

qint64 ceilSeconds(qint64 ms)
{
    return ms <= 0 ? 0 : (ms + 999) / 1000;
}

qint64 floorDiv(qint64 a, qint64 b)
{
    const qint64 q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

} // namespace

LimitResult DemoLimiter::fixedWindow(const QString &key, qint64 nowMs, qint64 limit,
                                     qint64 windowMs)
{
    Window &window = m_windows[key];
    const qint64 startMs = floorDiv(nowMs, windowMs) * windowMs;
    if (window.startMs != startMs) {
        window.startMs = startMs;
        window.used = 0;
    }
    const qint64 untilResetMs = startMs + windowMs - nowMs;

    LimitResult result;
    result.limit = limit;
    result.windowSeconds = ceilSeconds(windowMs);
    result.resetMs = untilResetMs;
    result.resetSeconds = ceilSeconds(untilResetMs);
    if (window.used >= limit) {
        result.allowed = false;
        result.retryAfterMs = untilResetMs;
    } else {
        ++window.used;
    }
    result.remaining = limit - window.used;
    return result;
}

LimitResult DemoLimiter::tokenBucket(const QString &key, qint64 nowMs, qint64 capacity,
                                     double tokensPerSecond)
{
    auto it = m_buckets.find(key);
    if (it == m_buckets.end())
        it = m_buckets.insert(key, Bucket{double(capacity), nowMs});
    Bucket &bucket = *it;
    // A clock that went backwards refills nothing rather than draining the bucket.
    const qint64 elapsedMs = std::max<qint64>(0, nowMs - bucket.refilledAtMs);
    bucket.tokens =
        std::min(double(capacity), bucket.tokens + elapsedMs * tokensPerSecond / 1000.0);
    bucket.refilledAtMs = nowMs;

    const auto msFor = [tokensPerSecond](double tokens) {
        return qint64(std::ceil(tokens * 1000.0 / tokensPerSecond));
    };

    LimitResult result;
    result.limit = capacity;
    result.windowSeconds = ceilSeconds(msFor(double(capacity)));
    if (bucket.tokens >= 1.0) {
        bucket.tokens -= 1.0;
    } else {
        result.allowed = false;
        result.retryAfterMs = msFor(1.0 - bucket.tokens);
    }
    result.remaining = qint64(std::floor(bucket.tokens));
    // With tokens left, the quota is "reset" once the bucket is full again; with none,
    // what a client needs to know is when the next one arrives.
    result.resetMs =
        result.remaining > 0 ? msFor(double(capacity) - bucket.tokens) : msFor(1.0 - bucket.tokens);
    result.resetSeconds = ceilSeconds(result.resetMs);
    return result;
}

void DemoLimiter::clear()
{
    m_windows.clear();
    m_buckets.clear();
}

} // namespace cooldown::demo
