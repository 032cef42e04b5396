// SPDX-License-Identifier: Apache-2.0
#pragma once

// A private D-Bus bus (dbus-daemon, started for the test) and on it a stand-in for
// logind's org.freedesktop.login1.Manager: the Inhibit method that hands out delay
// locks, and the PrepareForSleep signal, sent when the test says. For the tests of
// core/engine/LogindSleep (docs/offline.md); nothing talks to the machine's own bus.

#include <QDBusConnection>
#include <QDBusUnixFileDescriptor>
#include <QObject>
#include <QProcess>
#include <QStandardPaths>
#include <QString>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <vector>

// dbus-daemon with the session configuration, on a socket of its own, for as long as
// this object lives.
class PrivateBus
{
public:
    PrivateBus()
    {
        const QString daemon = QStandardPaths::findExecutable(QStringLiteral("dbus-daemon"));
        if (daemon.isEmpty()) {
            m_error = QStringLiteral("dbus-daemon not found (scripts/setup installs it)");
            return;
        }
        m_process.start(daemon, {QStringLiteral("--session"), QStringLiteral("--nofork"),
                                 QStringLiteral("--print-address=1")});
        // The address is the first line it prints, once it listens.
        if (!m_process.waitForStarted(5000)) {
            m_error = QStringLiteral("dbus-daemon did not start: ") + m_process.errorString();
            return;
        }
        while (!m_process.canReadLine() && m_process.waitForReadyRead(5000)) {
        }
        m_address = QString::fromUtf8(m_process.readLine()).trimmed();
        if (m_address.isEmpty())
            m_error = QStringLiteral("dbus-daemon printed no address: ") +
                      QString::fromUtf8(m_process.readAllStandardError());
    }
    ~PrivateBus()
    {
        for (const QString &name : std::as_const(m_names))
            QDBusConnection::disconnectFromBus(name);
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    PrivateBus(const PrivateBus &) = delete;
    PrivateBus &operator=(const PrivateBus &) = delete;

    QString address() const { return m_address; }
    QString error() const { return m_error; }

    // A connection of its own to the bus. Qt keeps connections by name for the whole
    // process: the name is made this bus's own, so that a later test's bus never gets
    // an earlier one's connection.
    QDBusConnection connect(const QString &name)
    {
        const QString unique = name + QLatin1Char('@') + m_address;
        m_names.append(unique);
        return QDBusConnection::connectToBus(m_address, unique);
    }

private:
    QProcess m_process;
    QStringList m_names;
    QString m_address;
    QString m_error;
};

class FakeLogind final : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.login1.Manager")

public:
    ~FakeLogind() override
    {
        for (const int fd : m_locks)
            ::close(fd);
    }

    // Takes the name and the path on the bus; false when either is refused.
    bool serve(QDBusConnection bus)
    {
        return bus.registerService(QStringLiteral("org.freedesktop.login1")) &&
               bus.registerObject(QStringLiteral("/org/freedesktop/login1"), this,
                                  QDBusConnection::ExportAllSlots |
                                      QDBusConnection::ExportAllSignals);
    }

    // How many locks were handed out, and how many are still held by someone: a lock
    // is held while any copy of its descriptor is open.
    int locksGiven() const { return int(m_locks.size()); }
    int locksHeld() const
    {
        int held = 0;
        for (const int fd : m_locks) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 0) == 0)
                ++held; // no hang-up yet: the other end is open
        }
        return held;
    }
    QStringList modes() const { return m_modes; }

    void sendPrepareForSleep(bool start) { emit PrepareForSleep(start); }

public slots:
    QDBusUnixFileDescriptor Inhibit(const QString &what, const QString &who, const QString &why,
                                    const QString &mode)
    {
        Q_UNUSED(who);
        Q_UNUSED(why);
        m_modes.append(what + QLatin1Char(':') + mode);
        int ends[2];
        if (::pipe2(ends, O_CLOEXEC) != 0)
            return {};
        m_locks.push_back(ends[0]);
        QDBusUnixFileDescriptor handed(ends[1]); // a copy, for the reply
        ::close(ends[1]);
        return handed;
    }

signals:
    void PrepareForSleep(bool start);

private:
    std::vector<int> m_locks; // our ends of the locks' pipes
    QStringList m_modes;
};
