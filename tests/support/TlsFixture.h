// SPDX-License-Identifier: Apache-2.0
#pragma once

// A private CA and a throw-away nginx that demands a client certificate signed by it,
// for the end-to-end tests of TLS settings. Everything is made in a temporary folder
// by the openssl command line, as an operator would make it:
//   ca.pem / ca.key             the private CA
//   server.pem / server.key     127.0.0.1 and localhost (subjectAltName), signed by it
//   client.pem / client.key     a client certificate and its key, signed by it
//   client.p12                  the same client as PKCS#12, passphrase pkcs12Passphrase()
//                               (OpenSSL 3's default: AES-256 and PBKDF2)
//   client-legacy.p12           the same with RC2/3DES (`-legacy`), which Qt on
//                               OpenSSL 3 cannot read: for the message that says so
//   other-ca.pem                a CA that signed none of these
// nginx listens on two loopback ports with the server certificate:
//   port()          ssl_verify_client on: without a certificate of the CA, 400
//   optionalPort()  no client certificate asked for (trusting the CA is enough)
// Both answer 200 "ok\n" to any GET or POST, and log each request on a line of
// access.log: "$server_port $msec $status $request_method \"$request_uri\"
// $ssl_client_verify $connection $connection_requests".
// nginx runs in the foreground as a child of the test and is stopped with it.

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QHostAddress>
#include <QList>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <memory>
#include <unistd.h>

class TlsFixture final
{
public:
    struct LogLine
    {
        qint64 port = 0;
        int status = 0;
        QString method;
        QString uri;
        QString clientVerify;       // SUCCESS, NONE, or FAILED:<reason>
        qint64 connection = 0;      // nginx's serial number of the connection
        int connectionRequests = 0; // 1 for a connection's first request
    };

    TlsFixture() = default;
    ~TlsFixture() { stop(); }
    TlsFixture(const TlsFixture &) = delete;
    TlsFixture &operator=(const TlsFixture &) = delete;

    // What is missing to run it ("openssl is not installed…"), or empty.
    static QString missingTools()
    {
        QStringList missing;
        if (opensslBinary().isEmpty())
            missing.append(QStringLiteral("openssl"));
        if (nginxBinary().isEmpty())
            missing.append(QStringLiteral("nginx"));
        if (missing.isEmpty())
            return {};
        return missing.join(QStringLiteral(" and ")) +
               QStringLiteral(" not installed (scripts/setup installs them)");
    }

    // Makes the CA and certificates, then starts nginx; false with a message on failure.
    bool start(QString *error)
    {
        if (!m_dir.isValid())
            return fail(error, QStringLiteral("no temporary folder"));
        if (!makeCertificates(error))
            return false;
        return startNginx(error);
    }

    void stop()
    {
        if (!m_nginx)
            return;
        // SIGTERM is nginx's fast shutdown: the master ends its workers and exits.
        m_nginx->terminate();
        if (!m_nginx->waitForFinished(10000)) {
            m_nginx->kill();
            m_nginx->waitForFinished(5000);
        }
        m_nginx.reset();
    }

    QString path(const QString &name) const { return m_dir.filePath(name); }
    QString caFile() const { return path(QStringLiteral("ca.pem")); }
    QString otherCaFile() const { return path(QStringLiteral("other-ca.pem")); }
    QString serverCertificate() const { return path(QStringLiteral("server.pem")); }
    QString clientCertificate() const { return path(QStringLiteral("client.pem")); }
    QString clientKey() const { return path(QStringLiteral("client.key")); }
    QString clientPkcs12() const { return path(QStringLiteral("client.p12")); }
    QString clientLegacyPkcs12() const { return path(QStringLiteral("client-legacy.p12")); }
    static QByteArray pkcs12Passphrase() { return QByteArrayLiteral("p12Passphrase4Tests"); }
    QString accessLog() const { return path(QStringLiteral("access.log")); }

    quint16 port() const { return m_port; }
    quint16 optionalPort() const { return m_optionalPort; }
    QString url(const QString &pathAndQuery = QStringLiteral("/")) const
    {
        return QStringLiteral("https://127.0.0.1:%1%2").arg(m_port).arg(pathAndQuery);
    }
    QString optionalUrl(const QString &pathAndQuery = QStringLiteral("/")) const
    {
        return QStringLiteral("https://127.0.0.1:%1%2").arg(m_optionalPort).arg(pathAndQuery);
    }
    // The optional port on 127.0.0.2, an address the server certificate does not name:
    // the chain is trusted with the CA, the host name does not match.
    QString mismatchedNameUrl(const QString &pathAndQuery = QStringLiteral("/")) const
    {
        return QStringLiteral("https://127.0.0.2:%1%2").arg(m_optionalPort).arg(pathAndQuery);
    }

    // The access log so far. nginx writes a line once its answer went out.
    QList<LogLine> logLines() const
    {
        QList<LogLine> lines;
        QFile file(accessLog());
        if (!file.open(QIODevice::ReadOnly))
            return lines;
        while (!file.atEnd()) {
            const QStringList f =
                QString::fromUtf8(file.readLine()).trimmed().split(QLatin1Char(' '));
            // $server_port $msec $status $request_method "$request_uri" $ssl_client_verify
            // $connection $connection_requests
            if (f.size() < 8)
                continue;
            LogLine line;
            line.port = f.at(0).toLongLong();
            line.status = f.at(2).toInt();
            line.method = f.at(3);
            line.uri = f.at(4).mid(1).chopped(1);
            line.clientVerify = f.at(5);
            line.connection = f.at(6).toLongLong();
            line.connectionRequests = f.at(7).toInt();
            lines.append(line);
        }
        return lines;
    }

    // Log lines whose URI contains marker.
    QList<LogLine> logLinesWith(const QString &marker) const
    {
        QList<LogLine> found;
        const QList<LogLine> all = logLines();
        for (const LogLine &line : all) {
            if (line.uri.contains(marker))
                found.append(line);
        }
        return found;
    }

    static QString opensslBinary()
    {
        return QStandardPaths::findExecutable(QStringLiteral("openssl"));
    }
    static QString nginxBinary()
    {
        QString bin = QStandardPaths::findExecutable(QStringLiteral("nginx"));
        if (bin.isEmpty())
            bin = QStandardPaths::findExecutable(
                QStringLiteral("nginx"), {QStringLiteral("/usr/sbin"), QStringLiteral("/sbin")});
        return bin;
    }

private:
    static bool fail(QString *error, const QString &message)
    {
        if (error)
            *error = message;
        return false;
    }

    bool openssl(const QStringList &arguments, QString *error)
    {
        QProcess process;
        process.setWorkingDirectory(m_dir.path());
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(opensslBinary(), arguments);
        if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit ||
            process.exitCode() != 0) {
            return fail(error, QStringLiteral("openssl %1 failed: %2")
                                   .arg(arguments.join(QLatin1Char(' ')),
                                        QString::fromLocal8Bit(process.readAll())));
        }
        return true;
    }

    bool writeFile(const QString &name, const QByteArray &text, QString *error)
    {
        QFile file(path(name));
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            file.write(text) != text.size())
            return fail(error, QStringLiteral("cannot write %1").arg(file.fileName()));
        return true;
    }

    // A self-signed CA certificate and key: name.pem, name.key.
    bool makeCa(const QString &name, const QString &commonName, QString *error)
    {
        return openssl(
            {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
             QStringLiteral("rsa:2048"), QStringLiteral("-nodes"), QStringLiteral("-keyout"),
             name + QStringLiteral(".key"), QStringLiteral("-out"), name + QStringLiteral(".pem"),
             QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
             QStringLiteral("/CN=") + commonName, QStringLiteral("-addext"),
             QStringLiteral("basicConstraints=critical,CA:TRUE"), QStringLiteral("-addext"),
             QStringLiteral("keyUsage=critical,keyCertSign,cRLSign")},
            error);
    }

    // A key and a certificate signed by ca.pem: name.key, name.pem.
    bool makeSigned(const QString &name, const QString &commonName, const QByteArray &extensions,
                    QString *error)
    {
        const QString ext = name + QStringLiteral(".ext");
        const QString csr = name + QStringLiteral(".csr");
        return writeFile(ext, extensions, error) &&
               openssl({QStringLiteral("req"), QStringLiteral("-newkey"),
                        QStringLiteral("rsa:2048"), QStringLiteral("-nodes"),
                        QStringLiteral("-keyout"), name + QStringLiteral(".key"),
                        QStringLiteral("-out"), csr, QStringLiteral("-subj"),
                        QStringLiteral("/CN=") + commonName},
                       error) &&
               openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), csr,
                        QStringLiteral("-CA"), QStringLiteral("ca.pem"), QStringLiteral("-CAkey"),
                        QStringLiteral("ca.key"), QStringLiteral("-CAcreateserial"),
                        QStringLiteral("-out"), name + QStringLiteral(".pem"),
                        QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-extfile"),
                        ext},
                       error);
    }

    bool makeCertificates(QString *error)
    {
        const QString passphrase =
            QStringLiteral("pass:") + QString::fromLatin1(pkcs12Passphrase());
        return makeCa(QStringLiteral("ca"), QStringLiteral("Cooldown Test CA"), error) &&
               makeCa(QStringLiteral("other-ca"), QStringLiteral("Unrelated Test CA"), error) &&
               makeSigned(QStringLiteral("server"), QStringLiteral("127.0.0.1"),
                          "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                          "basicConstraints=CA:FALSE\n"
                          "keyUsage=digitalSignature,keyEncipherment\n"
                          "extendedKeyUsage=serverAuth\n",
                          error) &&
               makeSigned(QStringLiteral("client"), QStringLiteral("cooldown-test-client"),
                          "basicConstraints=CA:FALSE\n"
                          "keyUsage=digitalSignature,keyEncipherment\n"
                          "extendedKeyUsage=clientAuth\n",
                          error) &&
               openssl({QStringLiteral("pkcs12"), QStringLiteral("-export"), QStringLiteral("-in"),
                        QStringLiteral("client.pem"), QStringLiteral("-inkey"),
                        QStringLiteral("client.key"), QStringLiteral("-name"),
                        QStringLiteral("cooldown-test-client"), QStringLiteral("-out"),
                        QStringLiteral("client.p12"), QStringLiteral("-passout"), passphrase},
                       error) &&
               openssl(
                   {QStringLiteral("pkcs12"), QStringLiteral("-export"), QStringLiteral("-legacy"),
                    QStringLiteral("-in"), QStringLiteral("client.pem"), QStringLiteral("-inkey"),
                    QStringLiteral("client.key"), QStringLiteral("-out"),
                    QStringLiteral("client-legacy.p12"), QStringLiteral("-passout"), passphrase},
                   error);
    }

    static quint16 freePort()
    {
        QTcpServer probe;
        probe.listen(QHostAddress::LocalHost, 0);
        return probe.serverPort();
    }

    QByteArray nginxConfig() const
    {
        const QByteArray dir = QFile::encodeName(m_dir.path());
        // As root the master keeps root and the workers drop to nobody, as scripts/nginx
        // does; the workers only write the log the master opened.
        const QByteArray user = ::geteuid() == 0 ? "user nobody nogroup;\n" : "";
        const auto server = [&dir](quint16 port, const char *verify, bool alsoSecondAddress) {
            const QByteArray listen =
                "        listen 127.0.0.1:" + QByteArray::number(port) + " ssl;\n" +
                (alsoSecondAddress
                     ? "        listen 127.0.0.2:" + QByteArray::number(port) + " ssl;\n"
                     : QByteArray());
            return "    server {\n" + listen + "        ssl_certificate " + dir +
                   "/server.pem;\n        ssl_certificate_key " + dir +
                   "/server.key;\n"
                   "        ssl_client_certificate " +
                   dir + "/ca.pem;\n        ssl_verify_client " + verify +
                   ";\n"
                   "        location / { return 200 \"ok\\n\"; }\n"
                   "    }\n";
        };
        return user + "worker_processes 1;\ndaemon off;\npid " + dir + "/nginx.pid;\nerror_log " +
               dir +
               "/error.log warn;\n"
               "events { worker_connections 256; }\n"
               "http {\n"
               "    default_type text/plain;\n"
               "    server_tokens off;\n"
               "    client_body_temp_path " +
               dir + "/temp/body;\n    proxy_temp_path " + dir +
               "/temp/proxy;\n    fastcgi_temp_path " + dir +
               "/temp/fastcgi;\n    uwsgi_temp_path " + dir + "/temp/uwsgi;\n    scgi_temp_path " +
               dir +
               "/temp/scgi;\n"
               "    log_format cooldown '$server_port $msec $status $request_method "
               "\"$request_uri\" $ssl_client_verify $connection $connection_requests';\n"
               "    access_log " +
               dir + "/access.log cooldown;\n    keepalive_requests 100000;\n" +
               server(m_port, "on", false) + server(m_optionalPort, "off", true) + "}\n";
    }

    bool startNginx(QString *error)
    {
        if (!QDir(m_dir.path()).mkpath(QStringLiteral("temp")))
            return fail(error, QStringLiteral("cannot make nginx's temp folder"));
        // The workers (nobody, as root) go through the folder to their temp files.
        QFile::setPermissions(m_dir.path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                                QFile::ExeGroup | QFile::ExeOther);
        QString lastError;
        // A port found free can be taken before nginx binds it: try a few.
        for (int attempt = 0; attempt < 5; ++attempt) {
            m_port = freePort();
            m_optionalPort = freePort();
            if (m_port == 0 || m_optionalPort == 0 || m_port == m_optionalPort)
                continue;
            if (!writeFile(QStringLiteral("nginx.conf"), nginxConfig(), error))
                return false;
            m_nginx = std::make_unique<QProcess>();
            m_nginx->setProcessChannelMode(QProcess::MergedChannels);
            m_nginx->start(nginxBinary(), {QStringLiteral("-p"), m_dir.path(), QStringLiteral("-e"),
                                           path(QStringLiteral("error.log")), QStringLiteral("-c"),
                                           path(QStringLiteral("nginx.conf"))});
            if (!m_nginx->waitForStarted(10000))
                return fail(error,
                            QStringLiteral("nginx did not start: ") + m_nginx->errorString());
            if (waitUntilListening())
                return true;
            lastError = QString::fromLocal8Bit(m_nginx->readAll());
            QFile log(path(QStringLiteral("error.log")));
            if (log.open(QIODevice::ReadOnly))
                lastError += QString::fromLocal8Bit(log.readAll().right(2000));
            stop();
        }
        return fail(error, QStringLiteral("nginx did not start: ") + lastError);
    }

    // Both ports accept a connection, or nginx exited (a port taken), within 10 s.
    bool waitUntilListening()
    {
        QDeadlineTimer deadline(10000);
        for (quint16 port : {m_port, m_optionalPort}) {
            for (;;) {
                if (m_nginx->state() != QProcess::Running || deadline.hasExpired())
                    return false;
                QTcpSocket socket;
                socket.connectToHost(QHostAddress::LocalHost, port);
                if (socket.waitForConnected(1000))
                    break;
                // Nothing listens yet: give nginx a moment, or see it exit.
                m_nginx->waitForFinished(50);
            }
        }
        return m_nginx->state() == QProcess::Running;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_nginx;
    quint16 m_port = 0;
    quint16 m_optionalPort = 0;
};
