// SPDX-License-Identifier: Apache-2.0
#pragma once

// For tests that run a Scheduler on a manual clock against real loopback servers: the
// schedule moves only when the test moves the clock, but the exchanges are real I/O
// and finish in real time.

#include "core/engine/Scheduler.h"
#include "core/time/Clock.h"
#include "core/time/WakeTimer.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>

#include <algorithm>

// Processes events until nothing is in flight (exchanges, and token requests that
// operations wait for) and the records of what ended are written (they are written one
// pass of the event loop later, together). False when exchanges are still in flight
// after timeoutMs.
inline bool settleScheduler(const cooldown::Scheduler &scheduler, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    do {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        // A token request is in flight too while operations wait for it.
        const auto quiet = [&scheduler] {
            return scheduler.inFlight() == 0 && scheduler.waitingForCredentials() == 0;
        };
        if (quiet()) {
            QCoreApplication::processEvents();
            if (quiet())
                return true;
        }
    } while (t.elapsed() < timeoutMs);
    return false;
}

// Moves the manual clock by ms, stopping at every time the scheduler's one timer is
// armed for, firing it and settling what that sent. False when a settle timed out or
// the timer kept firing without time passing.
inline bool runSchedulerFor(const cooldown::Scheduler &scheduler, cooldown::ManualClock &clock,
                            cooldown::ManualWakeTimer &timer, qint64 ms)
{
    const qint64 end = clock.monotonicMs() + ms;
    for (int turns = 0; turns < 100000; ++turns) {
        const qint64 due = timer.dueMonotonicMs();
        if (due < 0 || due > end) {
            clock.advance(end - clock.monotonicMs());
            return true;
        }
        if (due > clock.monotonicMs())
            clock.advance(due - clock.monotonicMs());
        if (timer.fireIfDue() && !settleScheduler(scheduler, 10000))
            return false;
    }
    return false;
}

// Moves the manual clock by ms in steps of stepMs, firing the scheduler's one timer
// whenever it is due and settling what that sent. False when a settle timed out.
inline bool advanceScheduler(const cooldown::Scheduler &scheduler, cooldown::ManualClock &clock,
                             cooldown::ManualWakeTimer &timer, qint64 ms, qint64 stepMs)
{
    for (qint64 done = 0; done < ms;) {
        const qint64 step = std::min(stepMs, ms - done);
        clock.advance(step);
        done += step;
        if (timer.fireIfDue() && !settleScheduler(scheduler, 10000))
            return false;
    }
    return true;
}
