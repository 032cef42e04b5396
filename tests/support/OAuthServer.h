// SPDX-License-Identifier: Apache-2.0
#pragma once

// tests/e2e/oauth-server/server.js from a test: an OAuth 2.0 token endpoint
// (oauth2-mock-server, npm) and a resource server that verifies its JWTs (jose), in one
// node process on two loopback ports. See server.js for what each path answers.
// Needs COOLDOWN_SOURCE_DIR, the source tree, to find the script.

#include <QEventLoop>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <QUrlQuery>

#include <memory>
#include <optional>

class OAuthServer final
{
public:
    struct Options
    {
        int lifetimeSeconds = 3600;
        QString clientId;     // when set, other clients are refused (invalid_client)
        QString clientSecret; // likewise for another secret
    };

    OAuthServer() = default;
    ~OAuthServer() { stop(); }
    OAuthServer(const OAuthServer &) = delete;
    OAuthServer &operator=(const OAuthServer &) = delete;

    static QString script()
    {
        return QStringLiteral(COOLDOWN_SOURCE_DIR "/tests/e2e/oauth-server/server.js");
    }
    static QString node() { return QStandardPaths::findExecutable(QStringLiteral("node")); }

    // Why it cannot run here, or empty.
    static QString missingTools()
    {
        if (node().isEmpty())
            return QStringLiteral("node is not installed (scripts/setup installs it)");
        if (!QFile::exists(QStringLiteral(COOLDOWN_SOURCE_DIR
                                          "/tests/e2e/oauth-server/"
                                          "node_modules/oauth2-mock-server/package.json")))
            return QStringLiteral("oauth2-mock-server is not installed in tests/e2e/oauth-server "
                                  "(scripts/setup installs it with npm ci)");
        return {};
    }

    bool start(const Options &options, QString *error)
    {
        QStringList arguments{script(), QStringLiteral("--lifetime"),
                              QString::number(options.lifetimeSeconds)};
        if (!options.clientId.isEmpty())
            arguments << QStringLiteral("--client-id") << options.clientId;
        if (!options.clientSecret.isEmpty())
            arguments << QStringLiteral("--client-secret") << options.clientSecret;
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process->start(node(), arguments);
        if (!m_process->waitForStarted(10000))
            return fail(error, QStringLiteral("node did not start: ") + m_process->errorString());
        // One JSON line once both servers listen.
        while (m_process->canReadLine() || m_process->waitForReadyRead(15000)) {
            if (!m_process->canReadLine())
                continue;
            const QJsonObject ready = QJsonDocument::fromJson(m_process->readLine()).object();
            m_tokenPort = ready.value(QLatin1String("token_port")).toInt();
            m_resourcePort = ready.value(QLatin1String("resource_port")).toInt();
            if (m_tokenPort > 0 && m_resourcePort > 0)
                return true;
        }
        stop();
        return fail(error, QStringLiteral("the OAuth server did not say it was ready"));
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

    int tokenPort() const { return m_tokenPort; }
    int resourcePort() const { return m_resourcePort; }
    QString tokenUrl() const
    {
        return QStringLiteral("http://127.0.0.1:%1/token").arg(m_tokenPort);
    }
    // A URL of the resource server (paths under /api/ need a token, /hooks/ none).
    QString resourceUrl(const QString &path,
                        const QString &host = QStringLiteral("127.0.0.1")) const
    {
        return QStringLiteral("http://%1:%2%3").arg(host).arg(m_resourcePort).arg(path);
    }

    // GET /stats; nothing when the server did not answer within 10 s.
    std::optional<QJsonObject> stats() const
    {
        const auto answer = exchange("GET", QStringLiteral("/stats"));
        if (!answer)
            return std::nullopt;
        return QJsonDocument::fromJson(*answer).object();
    }

    // POST /control/token?mode=…&seconds=…&retry_after=…
    bool setTokenMode(const QString &mode, int seconds = 0, int retryAfter = 1) const
    {
        QUrlQuery query;
        query.addQueryItem(QStringLiteral("mode"), mode);
        query.addQueryItem(QStringLiteral("seconds"), QString::number(seconds));
        query.addQueryItem(QStringLiteral("retry_after"), QString::number(retryAfter));
        return exchange("POST", QStringLiteral("/control/token?") + query.toString()).has_value();
    }

    // POST /control/revoke: the tokens issued so far are refused from now on.
    bool revokeTokens() const
    {
        return exchange("POST", QStringLiteral("/control/revoke")).has_value();
    }

private:
    static bool fail(QString *error, const QString &message)
    {
        if (error)
            *error = message;
        return false;
    }

    // One request to the resource server's own paths; the body of a 200.
    std::optional<QByteArray> exchange(const QByteArray &method, const QString &path) const
    {
        QNetworkAccessManager manager;
        // Never through a proxy the environment names: this is the test's own look.
        manager.setProxy(QNetworkProxy::NoProxy);
        QNetworkRequest request(QUrl(resourceUrl(path)));
        request.setTransferTimeout(10000);
        QNetworkReply *reply = manager.sendCustomRequest(request, method, QByteArray());
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        if (!reply->isFinished())
            loop.exec();
        const bool ok = reply->error() == QNetworkReply::NoError &&
                        reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200;
        const QByteArray body = reply->readAll();
        reply->deleteLater();
        if (!ok)
            return std::nullopt;
        return body;
    }

    std::unique_ptr<QProcess> m_process;
    int m_tokenPort = 0;
    int m_resourcePort = 0;
};
