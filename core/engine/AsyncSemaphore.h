// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QPointer>

#include <deque>
#include <functional>

namespace cooldown {

class AsyncSemaphore;

// A held permit. Moving it transfers the permit; destroying it releases it, so a
// reply that errors or is aborted can never lose one.
class Permit
{
public:
    Permit() = default;
    Permit(Permit &&other) noexcept;
    Permit &operator=(Permit &&other) noexcept;
    Permit(const Permit &) = delete;
    Permit &operator=(const Permit &) = delete;
    ~Permit() { release(); }

    bool isHeld() const { return !m_owner.isNull(); }
    void release();

private:
    friend class AsyncSemaphore;
    explicit Permit(AsyncSemaphore *owner) : m_owner(owner) {}
    QPointer<AsyncSemaphore> m_owner;
};

// A non-blocking FIFO permit pool. acquire() never blocks: the callback runs when a
// permit is free, immediately if one is free now, in the order callers asked.
class AsyncSemaphore final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AsyncSemaphore)

public:
    using Ticket = quint64;
    using Granted = std::function<void(Permit)>;

    explicit AsyncSemaphore(int permits, QObject *parent = nullptr);
    ~AsyncSemaphore() override;

    // Returns a ticket that cancel() accepts while the request still waits.
    Ticket acquire(Granted granted);
    // A permit now, or an empty Permit when none is free (nobody queues).
    Permit tryAcquire();
    bool cancel(Ticket ticket);

    // Changing the size never revokes held permits; it takes effect as they return.
    void setPermits(int permits);

    int permits() const { return m_permits; }
    int inUse() const { return m_inUse; }
    int waiting() const { return int(m_waiters.size()); }

signals:
    void changed();

private:
    friend class Permit;
    void releaseOne();
    void grantWaiting();

    struct Waiter
    {
        Ticket ticket;
        Granted granted;
    };

    int m_permits = 1;
    int m_inUse = 0;
    Ticket m_nextTicket = 1;
    std::deque<Waiter> m_waiters;
    bool m_granting = false;
};

} // namespace cooldown
