// SPDX-License-Identifier: Apache-2.0
#include "core/engine/AsyncSemaphore.h"

#include <algorithm>

namespace cooldown {

Permit::Permit(Permit &&other) noexcept : m_owner(std::move(other.m_owner))
{
    other.m_owner.clear();
}

Permit &Permit::operator=(Permit &&other) noexcept
{
    if (this != &other) {
        release();
        m_owner = std::move(other.m_owner);
        other.m_owner.clear();
    }
    return *this;
}

void Permit::release()
{
    if (AsyncSemaphore *owner = m_owner.data()) {
        m_owner.clear();
        owner->releaseOne();
    }
}

AsyncSemaphore::AsyncSemaphore(int permits, QObject *parent)
    : QObject(parent), m_permits(std::max(1, permits))
{}

AsyncSemaphore::~AsyncSemaphore() = default;

AsyncSemaphore::Ticket AsyncSemaphore::acquire(Granted granted)
{
    const Ticket ticket = m_nextTicket++;
    m_waiters.push_back({ticket, std::move(granted)});
    grantWaiting();
    emit changed();
    return ticket;
}

Permit AsyncSemaphore::tryAcquire()
{
    if (!m_waiters.empty() || m_inUse >= m_permits)
        return Permit();
    ++m_inUse;
    emit changed();
    return Permit(this);
}

bool AsyncSemaphore::cancel(Ticket ticket)
{
    const auto it = std::find_if(m_waiters.begin(), m_waiters.end(),
                                 [ticket](const Waiter &w) { return w.ticket == ticket; });
    if (it == m_waiters.end())
        return false;
    m_waiters.erase(it);
    emit changed();
    return true;
}

void AsyncSemaphore::setPermits(int permits)
{
    m_permits = std::max(1, permits);
    grantWaiting();
    emit changed();
}

void AsyncSemaphore::releaseOne()
{
    Q_ASSERT(m_inUse > 0);
    --m_inUse;
    grantWaiting();
    emit changed();
}

void AsyncSemaphore::grantWaiting()
{
    // A callback may release or acquire again; the outer loop does the granting so
    // the stack stays flat and FIFO order holds.
    if (m_granting)
        return;
    m_granting = true;
    while (!m_waiters.empty() && m_inUse < m_permits) {
        Waiter w = std::move(m_waiters.front());
        m_waiters.pop_front();
        ++m_inUse;
        w.granted(Permit(this));
    }
    m_granting = false;
}

} // namespace cooldown
