// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

namespace cooldown {

// Every piece of scheduling and retry logic asks a Clock for the time, so that tests
// can drive hours of schedule in microseconds and the wall clock can be made to jump.
class Clock
{
public:
    virtual ~Clock() = default;

    // Wall-clock time in UTC milliseconds since the Unix epoch. It may jump.
    virtual qint64 nowMs() const = 0;
    // Milliseconds from an arbitrary origin; never goes backwards. Use it to guard
    // "not before" times against wall-clock jumps. It stops while the machine sleeps.
    virtual qint64 monotonicMs() const = 0;
    // Milliseconds from an arbitrary origin that run on while the machine sleeps
    // (CLOCK_BOOTTIME): beside monotonicMs() it tells a suspend from a wall-clock
    // step. By default the monotonic clock: a clock whose machine never sleeps.
    virtual qint64 bootMs() const { return monotonicMs(); }
};

// The real clocks of the machine.
class SystemClock final : public Clock
{
public:
    SystemClock();
    qint64 nowMs() const override;
    qint64 monotonicMs() const override;
    qint64 bootMs() const override;

    // A process-wide instance, for code that has no clock handed to it (the CLI).
    static SystemClock &instance();

private:
    qint64 m_monotonicOrigin = 0;
    qint64 m_bootOrigin = 0;
};

// Another clock's wall time moved by a fixed offset; its monotonic time unchanged. For
// trying out a fleet whose machines' clocks disagree (`cooldown run --clock-skew`).
class SkewedClock final : public Clock
{
public:
    SkewedClock(const Clock &base, qint64 offsetMs) : m_base(base), m_offsetMs(offsetMs) {}
    qint64 nowMs() const override { return m_base.nowMs() + m_offsetMs; }
    qint64 monotonicMs() const override { return m_base.monotonicMs(); }
    qint64 bootMs() const override { return m_base.bootMs(); }

private:
    const Clock &m_base;
    qint64 m_offsetMs = 0;
};

// A clock that moves only when told to. advance() moves all three clocks;
// jumpWall() moves the wall clock alone, as an NTP step or an operator would; sleep()
// moves the wall and boot clocks, not the monotonic one, as a suspend does.
class ManualClock final : public Clock
{
public:
    explicit ManualClock(qint64 wallMs = 0) : m_wallMs(wallMs) {}

    qint64 nowMs() const override { return m_wallMs; }
    qint64 monotonicMs() const override { return m_monotonicMs; }
    qint64 bootMs() const override { return m_bootMs; }

    void advance(qint64 ms);
    void jumpWall(qint64 deltaMs) { m_wallMs += deltaMs; }
    void setWallMs(qint64 wallMs) { m_wallMs = wallMs; }
    void sleep(qint64 ms)
    {
        m_wallMs += ms;
        m_bootMs += ms;
    }

private:
    qint64 m_wallMs = 0;
    qint64 m_monotonicMs = 0;
    qint64 m_bootMs = 0;
};

} // namespace cooldown
