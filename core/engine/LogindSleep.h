// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDBusConnection>
#include <QDBusUnixFileDescriptor>
#include <QObject>

namespace cooldown {

// What logind says before the machine sleeps and after it wakes (docs/offline.md):
// org.freedesktop.login1.Manager's PrepareForSleep(true) and PrepareForSleep(false) on
// the system bus. The engine holds a delay inhibitor lock ("sleep", mode "delay") for as
// long as it is awake, so that logind waits (up to its InhibitDelayMaxSec, 5 s by
// default) until the exchanges in flight are marked interrupted; readyForSleep() lets it
// go, and it is taken again at the wake. Where there is no system bus or no logind, it
// says nothing: the boot clock still tells of a sleep, after the fact (SleepWatch).
class LogindSleep final : public QObject
{
    Q_OBJECT

public:
    // On the system bus.
    explicit LogindSleep(QObject *parent = nullptr);
    // On the given bus (a private one in the tests).
    explicit LogindSleep(const QDBusConnection &bus, QObject *parent = nullptr);
    ~LogindSleep() override;

    // Whether the bus is connected and the signal subscribed.
    bool isListening() const { return m_listening; }
    // Whether a delay lock is held now.
    bool holdsDelayLock() const { return m_lock.isValid(); }

public slots:
    // The engine has done what it does before a sleep: the lock goes, so the system
    // sleeps now rather than at logind's timeout.
    void readyForSleep();

signals:
    void goingToSleep();
    void wokeUp();
    // The lock was taken (true) or refused, or could not be (false): for the tests and
    // the run log.
    void delayLockChanged(bool held);

private slots:
    void prepareForSleep(bool start);

private:
    void takeDelayLock();

    QDBusConnection m_bus;
    QDBusUnixFileDescriptor m_lock;
    bool m_listening = false;
    bool m_sleeping = false;
    int m_lockRequest = 0; // which request's answer counts: the latest
};

} // namespace cooldown
