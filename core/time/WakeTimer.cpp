// SPDX-License-Identifier: Apache-2.0
#include "core/time/WakeTimer.h"

#include "core/time/Clock.h"

#include <QTimer>

#include <algorithm>
#include <limits>

namespace cooldown {

QtWakeTimer::QtWakeTimer(QObject *parent) : WakeTimer(parent), m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_timer->setTimerType(Qt::PreciseTimer);
    connect(m_timer, &QTimer::timeout, this, &WakeTimer::fired);
}

void QtWakeTimer::arm(qint64 delayMs)
{
    // QTimer takes an int; a wait of weeks is re-armed by the scheduler on wake-up.
    m_timer->start(int(std::clamp<qint64>(delayMs, 0, std::numeric_limits<int>::max())));
}

void QtWakeTimer::disarm()
{
    m_timer->stop();
}

bool QtWakeTimer::isArmed() const
{
    return m_timer->isActive();
}

void ManualWakeTimer::arm(qint64 delayMs)
{
    m_dueMonotonicMs = m_clock.monotonicMs() + std::max<qint64>(0, delayMs);
}

bool ManualWakeTimer::fireIfDue()
{
    if (m_dueMonotonicMs < 0 || m_clock.monotonicMs() < m_dueMonotonicMs)
        return false;
    m_dueMonotonicMs = -1;
    emit fired();
    return true;
}

} // namespace cooldown
