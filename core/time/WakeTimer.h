// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>

class QTimer;

namespace cooldown {

class ManualClock;

// The one timer the scheduler keeps armed for its earliest due time. Injected like
// the clock, so that tests fire it by moving a ManualClock instead of waiting.
class WakeTimer : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

    // Fires once, delayMs from now (monotonic); re-arming replaces the earlier time.
    virtual void arm(qint64 delayMs) = 0;
    virtual void disarm() = 0;
    virtual bool isArmed() const = 0;

signals:
    void fired();
};

// A precise single-shot QTimer.
class QtWakeTimer final : public WakeTimer
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QtWakeTimer)

public:
    explicit QtWakeTimer(QObject *parent = nullptr);
    void arm(qint64 delayMs) override;
    void disarm() override;
    bool isArmed() const override;

private:
    QTimer *m_timer = nullptr;
};

// Fires when a test moves the ManualClock past the armed time and calls
// fireIfDue(). Nothing happens on its own.
class ManualWakeTimer final : public WakeTimer
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ManualWakeTimer)

public:
    explicit ManualWakeTimer(const ManualClock &clock, QObject *parent = nullptr)
        : WakeTimer(parent), m_clock(clock)
    {}
    void arm(qint64 delayMs) override;
    void disarm() override { m_dueMonotonicMs = -1; }
    bool isArmed() const override { return m_dueMonotonicMs >= 0; }

    // The monotonic time it is armed for, or -1.
    qint64 dueMonotonicMs() const { return m_dueMonotonicMs; }
    // Emits fired() if the clock has reached the armed time; returns whether it did.
    bool fireIfDue();

private:
    const ManualClock &m_clock;
    qint64 m_dueMonotonicMs = -1;
};

} // namespace cooldown
