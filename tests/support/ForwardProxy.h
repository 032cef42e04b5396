// SPDX-License-Identifier: Apache-2.0
#pragma once

// A forward HTTP proxy on loopback that counts what passes through it: Debian's
// tinyproxy (scripts/setup installs it), started in the foreground by the test with a
// config of its own in a temporary folder, and stopped with it. Plain requests arrive
// as "GET http://host:port/path", HTTPS as "CONNECT host:port"; both are read back from
// tinyproxy's log. No ConnectPort line: CONNECT is allowed to any port (tinyproxy's
// default when none is given), since the test servers sit on free ports.

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QList>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QString>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QUrl>

#include <memory>
#include <unistd.h>

class ForwardProxy final
{
public:
    struct Request
    {
        QString method; // GET, POST, …, or CONNECT
        QString host;
        int port = -1;
        QString target; // as the client sent it: an absolute URL, or host:port
    };

    ForwardProxy() = default;
    ~ForwardProxy() { stop(); }
    ForwardProxy(const ForwardProxy &) = delete;
    ForwardProxy &operator=(const ForwardProxy &) = delete;

    static QString binary()
    {
        QString bin = QStandardPaths::findExecutable(QStringLiteral("tinyproxy"));
        if (bin.isEmpty())
            bin = QStandardPaths::findExecutable(
                QStringLiteral("tinyproxy"),
                {QStringLiteral("/usr/bin"), QStringLiteral("/usr/sbin")});
        return bin;
    }

    // Why it cannot run here, or empty.
    static QString missingTools()
    {
        return binary().isEmpty()
                   ? QStringLiteral("tinyproxy is not installed (scripts/setup installs it)")
                   : QString();
    }

    // user and password (letters and digits: tinyproxy's config takes them unquoted):
    // only a client that gives them is let through (BasicAuth); others get 407.
    bool start(QString *error, const QByteArray &user = {}, const QByteArray &password = {})
    {
        m_user = user;
        m_password = password;
        if (!m_dir.isValid())
            return fail(error, QStringLiteral("no temporary folder"));
        // As root tinyproxy drops to nobody before it opens its log: the log's folder
        // must be writable by that user, and the way to it passable.
        const QString logDir = m_dir.filePath(QStringLiteral("log"));
        if (!QDir(m_dir.path()).mkpath(QStringLiteral("log")))
            return fail(error, QStringLiteral("cannot make the log folder"));
        QFile::setPermissions(m_dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                                QFile::ExeGroup | QFile::ExeOther);
        QFile::setPermissions(logDir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                          QFile::ReadGroup | QFile::WriteGroup | QFile::ExeGroup |
                                          QFile::ReadOther | QFile::WriteOther | QFile::ExeOther);
        QString lastError;
        // A port found free can be taken before tinyproxy binds it: try a few.
        for (int attempt = 0; attempt < 5; ++attempt) {
            m_port = freePort();
            if (m_port == 0)
                continue;
            if (!writeConfig(error))
                return false;
            m_process = std::make_unique<QProcess>();
            m_process->setProcessChannelMode(QProcess::MergedChannels);
            m_process->start(binary(), {QStringLiteral("-d"), QStringLiteral("-c"),
                                        m_dir.filePath(QStringLiteral("tinyproxy.conf"))});
            if (!m_process->waitForStarted(10000))
                return fail(error,
                            QStringLiteral("tinyproxy did not start: ") + m_process->errorString());
            if (waitUntilListening())
                return true;
            lastError = QString::fromLocal8Bit(m_process->readAll());
            QFile log(logPath());
            if (log.open(QIODevice::ReadOnly))
                lastError += QString::fromLocal8Bit(log.readAll().right(2000));
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
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_port); }
    QString logPath() const { return m_dir.filePath(QStringLiteral("log/tinyproxy.log")); }
    // The whole log so far.
    QByteArray log() const
    {
        QFile file(logPath());
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }
    // What tinyproxy printed itself (it logs to the file; this holds start-up errors).
    QByteArray output() const { return m_process ? m_process->readAll() : QByteArray(); }

    // Every request that reached the proxy so far, in order.
    QList<Request> requests() const
    {
        static const QRegularExpression line(
            QStringLiteral(R"(Request \(file descriptor \d+\): (\S+) (\S+) HTTP/)"));
        QList<Request> found;
        QFile file(logPath());
        if (!file.open(QIODevice::ReadOnly))
            return found;
        while (!file.atEnd()) {
            const QRegularExpressionMatch m = line.match(QString::fromUtf8(file.readLine()));
            if (!m.hasMatch())
                continue;
            Request r;
            r.method = m.captured(1);
            r.target = m.captured(2);
            if (r.method == QLatin1String("CONNECT")) {
                const QUrl authority(QStringLiteral("//") + r.target);
                r.host = authority.host();
                r.port = authority.port();
            } else {
                const QUrl url(r.target);
                r.host = url.host();
                r.port = url.port(url.scheme() == QLatin1String("https") ? 443 : 80);
            }
            found.append(r);
        }
        return found;
    }

    // Requests to host (and port, unless -1); CONNECT tunnels count once each.
    int count(const QString &host, int port = -1) const
    {
        int n = 0;
        const QList<Request> all = requests();
        for (const Request &r : all)
            n += r.host == host && (port < 0 || r.port == port);
        return n;
    }

    // Plain requests whose target contains text (a path, a marker).
    int countContaining(const QString &text) const
    {
        int n = 0;
        const QList<Request> all = requests();
        for (const Request &r : all)
            n += r.target.contains(text);
        return n;
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

    bool writeConfig(QString *error)
    {
        QByteArray config = "Port " + QByteArray::number(m_port) +
                            "\n"
                            "Listen 127.0.0.1\n"
                            "Timeout 60\n"
                            "MaxClients 200\n"
                            "Allow 127.0.0.1\n"
                            "DisableViaHeader Yes\n"
                            // Info names each request with its target: what is counted.
                            "LogLevel Info\n"
                            "LogFile \"" +
                            QFile::encodeName(logPath()) + "\"\n";
        if (!m_user.isEmpty())
            config += "BasicAuth " + m_user + ' ' + m_password + '\n';
        if (::geteuid() == 0)
            config += "User nobody\nGroup nogroup\n";
        QFile file(m_dir.filePath(QStringLiteral("tinyproxy.conf")));
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            file.write(config) != config.size())
            return fail(error, QStringLiteral("cannot write ") + file.fileName());
        return true;
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
    QByteArray m_user;
    QByteArray m_password;
};
