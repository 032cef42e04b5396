// SPDX-License-Identifier: Apache-2.0
#include "core/time/Clock.h"

#include <QDateTime>
#include <QElapsedTimer>

namespace cooldown {

namespace {
qint64 monotonicNowMs()
{
    QElapsedTimer timer;
    timer.start();
    // msecsSinceReference() is the monotonic clock's reading itself, not an interval.
    return timer.msecsSinceReference();
}
} // namespace

SystemClock::SystemClock() : m_monotonicOrigin(monotonicNowMs()) {}

qint64 SystemClock::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

qint64 SystemClock::monotonicMs() const
{
    return monotonicNowMs() - m_monotonicOrigin;
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
}

} // namespace cooldown
