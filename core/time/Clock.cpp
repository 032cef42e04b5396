// SPDX-License-Identifier: Apache-2.0
#include "core/time/Clock.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <ctime>

namespace cooldown {

namespace {
qint64 monotonicNowMs()
{
    QElapsedTimer timer;
    timer.start();
    // msecsSinceReference() is the monotonic clock's reading itself, not an interval.
    return timer.msecsSinceReference();
}
// CLOCK_BOOTTIME where there is one: it runs on through a suspend.
qint64 bootNowMs()
{
#ifdef CLOCK_BOOTTIME
    timespec ts{};
    if (clock_gettime(CLOCK_BOOTTIME, &ts) == 0)
        return qint64(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
#endif
    return monotonicNowMs();
}
} // namespace

SystemClock::SystemClock() : m_monotonicOrigin(monotonicNowMs()), m_bootOrigin(bootNowMs()) {}

qint64 SystemClock::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

qint64 SystemClock::monotonicMs() const
{
    return monotonicNowMs() - m_monotonicOrigin;
}

qint64 SystemClock::bootMs() const
{
    return bootNowMs() - m_bootOrigin;
}

SystemClock &SystemClock::instance()
{
    static SystemClock clock;
    return clock;
}

void ManualClock::advance(qint64 ms)
{
    Q_ASSERT(ms >= 0);
    m_wallMs += ms;
    m_monotonicMs += ms;
    m_bootMs += ms;
}

} // namespace cooldown
