// SPDX-License-Identifier: Apache-2.0
#pragma once

// Debian's tinyproxy on loopback that lets through only a client that gives a user and
// password (BasicAuth): without them it answers 407 Proxy Authentication Required, so a
// request that reached the server behind it carried the password. Started in the
// foreground with a config of its own in a temporary folder and stopped with the test,
// as tests/support/ForwardProxy.h does; its log names each request and each connection
// it opened for one.

#include "support/ForwardProxy.h"

#include <QByteArray>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QProcess>
#include <QString>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <memory>
#include <unistd.h>

class AuthenticatingProxy final
{
public:
    AuthenticatingProxy() = default;
    ~AuthenticatingProxy() { stop(); }
    AuthenticatingProxy(const AuthenticatingProxy &) = delete;
    AuthenticatingProxy &operator=(const AuthenticatingProxy &) = delete;

    // Why it cannot run here, or empty.
    static QString missingTools() { return ForwardProxy::missingTools(); }

    // user and password: letters and digits, as tinyproxy's config takes them unquoted.
    bool start(const QByteArray &user, const QByteArray &password, QString *error)
    {
        if (!m_dir.isValid())
            return fail(error, QStringLiteral("no temporary folder"));
        // As root tinyproxy drops to nobody before it opens its log: the log's folder
        // must be writable by that user, and the way to it passable.
        if (!QDir(m_dir.path()).mkpath(QStringLiteral("log")))
            return fail(error, QStringLiteral("cannot make the log folder"));
        QFile::setPermissions(m_dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                                QFile::ExeGroup | QFile::ExeOther);
        QFile::setPermissions(m_dir.filePath(QStringLiteral("log")),
                              QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                  QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup |
                                  QFile::ReadOther | QFile::WriteOther | QFile::ExeOther);
        QString lastError;
        // A port found free can be taken before tinyproxy binds it: try a few.
        for (int attempt = 0; attempt < 5; ++attempt) {
            m_port = freePort();
            if (m_port == 0)
                continue;
            QByteArray config = "Port " + QByteArray::number(m_port) +
                                "\nListen 127.0.0.1\nTimeout 60\nAllow 127.0.0.1\n"
                                "DisableViaHeader Yes\nLogLevel Info\nLogFile \"" +
                                QFile::encodeName(logPath()) + "\"\nBasicAuth " + user + ' ' +
                                password + '\n';
            if (::geteuid() == 0)
                config += "User nobody\nGroup nogroup\n";
            QFile file(m_dir.filePath(QStringLiteral("tinyproxy.conf")));
            if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
                file.write(config) != config.size())
                return fail(error, QStringLiteral("cannot write ") + file.fileName());
            file.close();
            m_process = std::make_unique<QProcess>();
            m_process->setProcessChannelMode(QProcess::MergedChannels);
            m_process->start(ForwardProxy::binary(),
                             {QStringLiteral("-d"), QStringLiteral("-c"), file.fileName()});
            if (!m_process->waitForStarted(10000))
                return fail(error,
                            QStringLiteral("tinyproxy did not start: ") + m_process->errorString());
            if (waitUntilListening())
                return true;
            lastError = QString::fromLocal8Bit(m_process->readAll() + log().right(2000));
            stop();
        }
        return fail(error, QStringLiteral("tinyproxy did not start: ") + lastError);
    }

    void stop()
    {
        if (!m_process)
            return;
        m_process->terminate();
        if (!m_process->waitForFinished(10000)) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
        m_process.reset();
    }

    quint16 port() const { return m_port; }
    QString logPath() const { return m_dir.filePath(QStringLiteral("log/tinyproxy.log")); }
    QByteArray log() const
    {
        QFile file(logPath());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

private:
    static bool fail(QString *error, const QString &message)
    {
        if (error)
            *error = message;
        return false;
    }

    static quint16 freePort()
    {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        return probe.serverPort();
    }

    // The port accepts a connection, or tinyproxy exited, within 10 s.
    bool waitUntilListening()
    {
        QDeadlineTimer deadline(10000);
        for (;;) {
            if (m_process->state() != QProcess::Running || deadline.hasExpired())
                return false;
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, m_port);
            if (socket.waitForConnected(1000)) {
                socket.abort();
                return m_process->state() == QProcess::Running;
            }
            // Nothing listens yet: give it a moment, or see it exit.
            m_process->waitForFinished(50);
        }
    }

    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_process;
    quint16 m_port = 0;
};
