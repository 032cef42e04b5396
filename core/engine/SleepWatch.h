// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

#include <optional>

namespace cooldown {

// Whether the machine slept since the engine last looked (docs/offline.md): the boot
// clock (Clock::bootMs, CLOCK_BOOTTIME) runs on through a suspend, the monotonic clock
// does not, so between two looks the boot clock moved further than the monotonic one
// by the time asleep. A gap of kThresholdMs or more counts. A wall clock stepped by an
// operator or NTP moves neither, and is no sleep.
class SleepWatch
{
public:
    static constexpr qint64 kThresholdMs = 30'000;

    // The time asleep since the last call, when it reaches the threshold.
    std::optional<qint64> note(qint64 bootMs, qint64 mono);

private:
    qint64 m_lastBootMs = 0;
    qint64 m_lastMono = 0;
    bool m_started = false;
};

} // namespace cooldown
