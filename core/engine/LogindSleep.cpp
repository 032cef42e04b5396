// SPDX-License-Identifier: Apache-2.0
#include "core/engine/LogindSleep.h"

#include "core/Logging.h"

#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>

namespace cooldown {

namespace {

const QString kService = QStringLiteral("org.freedesktop.login1");
const QString kPath = QStringLiteral("/org/freedesktop/login1");
const QString kManager = QStringLiteral("org.freedesktop.login1.Manager");

} // namespace

LogindSleep::LogindSleep(QObject *parent) : LogindSleep(QDBusConnection::systemBus(), parent) {}

LogindSleep::LogindSleep(const QDBusConnection &bus, QObject *parent) : QObject(parent), m_bus(bus)
{
    if (!m_bus.isConnected())
        return;
    m_listening = m_bus.connect(kService, kPath, kManager, QStringLiteral("PrepareForSleep"), this,
                                SLOT(prepareForSleep(bool)));
    if (m_listening)
        takeDelayLock();
}

LogindSleep::~LogindSleep()
{
    if (m_listening)
        m_bus.disconnect(kService, kPath, kManager, QStringLiteral("PrepareForSleep"), this,
                         SLOT(prepareForSleep(bool)));
}

void LogindSleep::takeDelayLock()
{
    // The lock is a file descriptor: a bus that cannot pass one cannot hold it.
    if (!(m_bus.connectionCapabilities() & QDBusConnection::UnixFileDescriptorPassing))
        return;
    QDBusMessage call =
        QDBusMessage::createMethodCall(kService, kPath, kManager, QStringLiteral("Inhibit"));
    call << QStringLiteral("sleep") << QStringLiteral("Cooldown")
         << QStringLiteral("Marking the exchanges in flight before the machine sleeps")
         << QStringLiteral("delay");
    // Asked without waiting: a bus that is slow to answer must not hold up the engine.
    const int request = ++m_lockRequest;
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, request](QDBusPendingCallWatcher *w) {
                w->deleteLater();
                const QDBusPendingReply<QDBusUnixFileDescriptor> reply = *w;
                // An answer that comes after the sleep began, or after a newer request,
                // is let go at once (its descriptor closes with the reply).
                if (request != m_lockRequest || m_sleeping)
                    return;
                if (reply.isError()) {
                    qCDebug(lcEngine).noquote()
                        << "logind gave no delay lock:" << reply.error().message();
                    emit delayLockChanged(false);
                    return;
                }
                m_lock = reply.value();
                emit delayLockChanged(m_lock.isValid());
            });
}

void LogindSleep::prepareForSleep(bool start)
{
    if (start == m_sleeping)
        return;
    m_sleeping = start;
    if (start) {
        emit goingToSleep();
        return;
    }
    // A sleep that never came (refused, failed) ends with the same word. A lock the
    // engine never let go is still held.
    emit wokeUp();
    if (!m_lock.isValid())
        takeDelayLock();
}

void LogindSleep::readyForSleep()
{
    if (!m_sleeping || !m_lock.isValid())
        return;
    // Closing the last copy of the descriptor is what lets logind go on.
    m_lock = QDBusUnixFileDescriptor();
    emit delayLockChanged(false);
}

} // namespace cooldown
