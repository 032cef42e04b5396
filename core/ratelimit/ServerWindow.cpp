// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/ServerWindow.h"

#include "core/http/QuotaStatement.h"

#include <algorithm>

namespace cooldown {

qint64 ServerWindow::perWindow(qint64 configuredIntervalUs) const
{
    if (configuredIntervalUs <= 0 || windowMs <= 0)
        return quota;
    return std::max<qint64>(1, std::min(quota, windowMs * 1000 / configuredIntervalUs));
}

qint64 ServerWindow::available(qint64 configuredIntervalUs, qint64 nowMs) const
{
    if (!isKnown(nowMs))
        return std::numeric_limits<qint64>::max();
    return nowMs >= resetAtMs ? perWindow(configuredIntervalUs) : remaining;
}

qint64 ServerWindow::availableAtMs(qint64 configuredIntervalUs, qint64 nowMs) const
{
    return available(configuredIntervalUs, nowMs) > 0 ? nowMs : resetAtMs;
}

void ServerWindow::take(qint64 cost, qint64 configuredIntervalUs, qint64 nowMs)
{
    if (!isKnown(nowMs))
        return;
    if (nowMs >= resetAtMs) {
        // A new window opens with this request, on the server's count; its end is a
        // guess until a response states it.
        remaining = perWindow(configuredIntervalUs);
        resetAtMs = nowMs + std::max<qint64>(windowMs, 1000) + kResetMarginMs;
        openedAtMs = nowMs;
    }
    remaining = std::max<qint64>(0, remaining - cost);
}

void ServerWindow::observe(const QuotaStatement &statement, qint64 othersInFlight, qint64 nowMs)
{
    if (statement.quota > 0)
        quota = statement.quota;
    if (quota <= 0)
        return; // a remaining count without a quota teaches nothing to pace by
    if (statement.windowMs > 0) {
        windowMs = statement.windowMs;
    } else if (statement.resetAtMs > nowMs) {
        // No window stated (X-RateLimit-*): at first the time to the stated reset. Then,
        // for a window this fleet opened, from its opening to the reset, the least of
        // those: a reset stated in whole seconds is up to a second late, by a fraction
        // that differs from window to window.
        const bool opened =
            openedAtMs > 0 && nowMs < resetAtMs && statement.resetAtMs <= resetAtMs + windowMs / 2;
        if (windowMs == 0)
            windowMs = statement.resetAtMs - nowMs;
        else if (opened)
            windowMs = std::min(windowMs, statement.resetAtMs - openedAtMs);
    }
    knownUntilMs = nowMs + std::max(kForgetAfterMinMs, kForgetAfterWindows * windowMs);
    const qint64 counted = std::clamp<qint64>(statement.remaining - othersInFlight, 0, quota);
    if (statement.resetAtMs < 0) {
        // No end stated: the count alone, within the window this worker assumes.
        if (nowMs >= resetAtMs)
            resetAtMs = nowMs + std::max<qint64>(windowMs, 1000);
        remaining = std::min(remaining, counted);
        return;
    }
    if (statement.resetAtMs <= nowMs)
        return; // that window is over already
    const bool newWindow = nowMs >= resetAtMs || statement.resetAtMs > resetAtMs + windowMs / 2;
    if (newWindow) {
        resetAtMs = statement.resetAtMs;
        remaining = counted;
        openedAtMs = 0; // opened by the server's count, not this fleet's knowingly
    } else {
        resetAtMs = std::min(resetAtMs, statement.resetAtMs);
        remaining = std::min(remaining, counted);
    }
}

} // namespace cooldown
