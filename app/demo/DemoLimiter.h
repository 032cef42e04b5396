// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QString>

namespace cooldown::demo {

// What a limiter says about one request, in whole seconds as the headers carry them.
struct LimitResult
{
    bool allowed = true;
    qint64 limit = 0;         // requests per window, or the bucket's capacity
    qint64 windowSeconds = 0; // the window, or the time a bucket takes to fill
    qint64 remaining = 0;     // after this request
    qint64 resetMs = 0;       // until the quota is back (RateLimit t=, X-RateLimit-Reset)
    qint64 resetSeconds = 0;  // the same, rounded up
    qint64 retryAfterMs = 0;  // when refused: until a request would be allowed
};

// Fixed windows aligned to the server clock (a new quota at every multiple of the
// window) and token buckets, each kept per key. Refused requests use no quota.
class DemoLimiter
{
public:
    LimitResult fixedWindow(const QString &key, qint64 nowMs, qint64 limit, qint64 windowMs);
    LimitResult tokenBucket(const QString &key, qint64 nowMs, qint64 capacity,
                            double tokensPerSecond);
    void clear();

private:
    struct Window
    {
        qint64 startMs = 0;
        qint64 used = 0;
    };
    struct Bucket
    {
        double tokens = 0;
        qint64 refilledAtMs = 0;
    };
    QHash<QString, Window> m_windows;
    QHash<QString, Bucket> m_buckets;
};

} // namespace cooldown::demo
