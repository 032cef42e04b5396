// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Transport.h"

#include "core/Logging.h"
#include "core/time/Clock.h"

#include <QNetworkAccessManager>
#include <QNetworkProxyFactory>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslError>
#include <QTimer>

#include <algorithm>

namespace cooldown {

namespace {

// A request body that can be read once and never rewound. QNAM, given a body it
// cannot rewind and told not to buffer it, reports ContentReSendError instead of
// silently sending a POST again after the server closed the connection: the engine
// then knows the request may have been executed.
class OneShotBody final : public QIODevice
{
public:
    OneShotBody(const QByteArray &data, QObject *parent) : QIODevice(parent), m_data(data)
    {
        open(QIODevice::ReadOnly);
    }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override
    {
        return m_data.size() - m_pos + QIODevice::bytesAvailable();
    }
    bool reset() override { return false; }
    bool atEnd() const override { return m_pos >= m_data.size() && QIODevice::atEnd(); }

protected:
    qint64 readData(char *out, qint64 max) override
    {
        const qint64 n = std::min<qint64>(max, m_data.size() - m_pos);
        if (n <= 0)
            return m_pos >= m_data.size() ? -1 : 0;
        memcpy(out, m_data.constData() + m_pos, size_t(n));
        m_pos += n;
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    QByteArray m_data;
    qint64 m_pos = 0;
};

// Chooses the proxy of one ConnectionSettings for each connection Qt opens.
class ProxyChooser final : public QNetworkProxyFactory
{
public:
    explicit ProxyChooser(ProxyConfig proxy) : m_config(std::move(proxy))
    {
        if (m_config.kind != ProxyConfig::Kind::Explicit)
            return;
        const QString scheme = m_config.url.scheme();
        m_proxy.setType(scheme == QLatin1String("socks5") ? QNetworkProxy::Socks5Proxy
                                                          : QNetworkProxy::HttpProxy);
        m_proxy.setHostName(m_config.url.host());
        // The workspace refuses a proxy URL without a port, and https:// ones.
        m_proxy.setPort(quint16(m_config.url.port(scheme == QLatin1String("socks5") ? 1080 : 80)));
        m_proxy.setUser(m_config.url.userName(QUrl::FullyDecoded));
        m_proxy.setPassword(m_config.url.password(QUrl::FullyDecoded));
    }

    QList<QNetworkProxy> queryProxy(const QNetworkProxyQuery &query) override
    {
        switch (m_config.kind) {
        case ProxyConfig::Kind::System:
            return systemProxyForQuery(query);
        case ProxyConfig::Kind::Explicit:
            if (!m_config.bypasses(query.peerHostName()))
                return {m_proxy};
            break;
        case ProxyConfig::Kind::Inherit:
        case ProxyConfig::Kind::None:
            break;
        }
        return {QNetworkProxy(QNetworkProxy::NoProxy)};
    }

private:
    ProxyConfig m_config;
    QNetworkProxy m_proxy;
};

TransportError classify(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    // The proxy was not reached: nor was the server, so nothing was sent.
    case QNetworkReply::ProxyConnectionRefusedError:
        return TransportError::ConnectionRefused;
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::ProxyNotFoundError:
        return TransportError::HostNotFound;
    case QNetworkReply::TimeoutError:
    case QNetworkReply::ProxyTimeoutError:
    case QNetworkReply::OperationCanceledError: // the transfer timeout, not an abort()
        return TransportError::Timeout;
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::InsecureRedirectError:
        return TransportError::Tls;
    case QNetworkReply::ProtocolUnknownError:
        return TransportError::UnsupportedScheme;
    default:
        // Closed, reset, re-send refused, garbled status line: the request left, its
        // fate is unknown.
        return TransportError::ConnectionClosed;
    }
}

// What Qt reports when the connection could not even be attempted for want of a
// network: ENETUNREACH and its kind surface as an unknown network error.
bool isNetworkDown(QNetworkReply::NetworkError error)
{
    return error == QNetworkReply::UnknownNetworkError ||
           error == QNetworkReply::TemporaryNetworkFailureError ||
           error == QNetworkReply::NetworkSessionFailedError;
}

} // namespace

bool bodyCutShort(const QByteArray &method, const TransportResult &result)
{
    if (result.status == 0 || result.bodyTruncated ||
        method.compare("HEAD", Qt::CaseInsensitive) == 0 || result.status < 200 ||
        result.status == 204 || result.status == 304 ||
        result.headers.contains("Content-Encoding") || result.headers.contains("Transfer-Encoding"))
        return false;
    const std::optional<QByteArray> length = result.headers.value("Content-Length");
    bool ok = false;
    const qint64 promised = length ? length->trimmed().toLongLong(&ok) : -1;
    return ok && promised > result.body.size();
}

TransportCall::TransportCall(QNetworkReply *reply, const TransportRequest &request,
                             const Clock &clock, QObject *parent)
    : QObject(parent), m_reply(reply), m_clock(clock), m_maxResponseBytes(request.maxResponseBytes),
      m_startedMonotonicMs(clock.monotonicMs())
{
    m_result.startedAtMs = clock.nowMs();
    m_https = request.url.scheme() == QLatin1String("https");
    m_method = request.method;
    if (reply) {
        const bool verifyHostname = !request.connection || request.connection->verifyHostname;
        connect(reply, &QNetworkReply::sslErrors, this,
                [this, verifyHostname](const QList<QSslError> &errors) {
                    // verify_hostname off (docs/credentials.md) forgives a name that does
                    // not match, and nothing else: the chain must still be trusted.
                    const bool onlyName =
                        !verifyHostname &&
                        std::all_of(errors.begin(), errors.end(), [](const QSslError &e) {
                            return e.error() == QSslError::HostNameMismatch;
                        });
                    if (onlyName && m_reply)
                        m_reply->ignoreSslErrors(errors);
                    else
                        m_tlsFailed = true;
                });
        connect(reply, &QNetworkReply::requestSent, this, [this] { m_requestSent = true; });
        if (request.redirectsSameOriginOnly) {
            const QUrl origin = request.url;
            connect(reply, &QNetworkReply::redirected, this, [this, origin](const QUrl &to) {
                const int defaultPort = origin.scheme() == QLatin1String("https") ? 443 : 80;
                const bool sameOrigin =
                    to.scheme() == origin.scheme() &&
                    to.host().compare(origin.host(), Qt::CaseInsensitive) == 0 &&
                    to.port(defaultPort) == origin.port(defaultPort);
                if (!m_reply)
                    return;
                if (sameOrigin) {
                    emit m_reply->redirectAllowed();
                } else {
                    // The 3xx is the answer, as if redirects were not followed at all.
                    m_redirectRefused = true;
                    m_reply->abort();
                }
            });
        }
        connect(reply, &QNetworkReply::readyRead, this, &TransportCall::onReadyRead);
        connect(reply, &QNetworkReply::finished, this, &TransportCall::onFinished);
    }
}

TransportCall::~TransportCall()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void TransportCall::abort()
{
    if (m_finished || !m_reply)
        return;
    m_aborted = true;
    m_reply->abort(); // emits finished synchronously
}

namespace {

// What is there, up to room: QIODevice::read(n) allocates n bytes first, and the cap
// is a megabyte while most answers are a few hundred bytes.
QByteArray readUpTo(QIODevice *device, qint64 room)
{
    const qint64 available = device->bytesAvailable();
    return room > 0 && available > 0 ? device->read(std::min(room, available)) : QByteArray();
}

} // namespace

void TransportCall::onReadyRead()
{
    m_result.body += readUpTo(m_reply, m_maxResponseBytes - m_result.body.size());
    if (m_reply->bytesAvailable() > 0) {
        // More than the cap: cut it here and keep what the status and headers said,
        // so memory stays flat whatever the server sends.
        m_result.bodyTruncated = true;
        onFinished();
    }
}

void TransportCall::onFinished()
{
    if (m_finished)
        return;
    TransportResult result = std::move(m_result);
    QNetworkReply *reply = m_reply.data();
    const QVariant status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (status.isValid()) {
        result.status = status.toInt();
        for (const auto &pair : reply->rawHeaderPairs())
            result.headers.append(pair.first, pair.second);
    }
    if (!result.bodyTruncated && reply->isOpen()) {
        result.body += readUpTo(reply, m_maxResponseBytes - result.body.size());
        result.bodyTruncated = reply->bytesAvailable() > 0;
    }
    const QNetworkReply::NetworkError error = reply->error();
    if (m_redirectRefused && result.status != 0) {
        result.errorText = QStringLiteral("a redirect to another origin was not followed: the "
                                          "request carries credentials");
    } else if (m_aborted) {
        result.error = TransportError::ConnectionClosed;
        result.errorText = QStringLiteral("aborted");
    } else if (error != QNetworkReply::NoError && !result.bodyTruncated &&
               (result.status == 0 || error < QNetworkReply::ContentAccessDenied)) {
        // HTTP-level errors (4xx/5xx) arrive as error codes too; those are answers,
        // not transport failures. A transport failure after the headers keeps the status
        // for the record but counts as the failure it is.
        result.error = classify(error);
        result.errorText = reply->errorString();
        if (error == QNetworkReply::TooManyRedirectsError && result.status != 0)
            result.error = TransportError::None;
        // A server that breaks off the TLS handshake (a plain-HTTP port, say) shows up
        // as a closed connection; the request never left, so it is the TLS failure it is.
        if (result.error == TransportError::ConnectionClosed && m_https && !m_requestSent &&
            result.status == 0)
            result.error = TransportError::Tls;
        // A certificate Qt refused shows up as whatever the broken-off handshake looked
        // like; nothing was sent.
        if (m_tlsFailed && result.status == 0)
            result.error = TransportError::Tls;
        // No route to the host (ENETUNREACH: no network, lo down, no default route)
        // before a byte left: the machine is offline, not the server failing.
        if (isNetworkDown(error) && !m_requestSent && result.status == 0)
            result.error = TransportError::NetworkUnreachable;
    } else if (error == QNetworkReply::NoError && bodyCutShort(m_method, result)) {
        // Qt can report an answer complete when the connection closed before the
        // body's last byte arrived; the body is not the one the server meant.
        result.error = TransportError::ConnectionClosed;
        result.errorText = QStringLiteral("connection closed after %1 of %2 body bytes")
                               .arg(result.body.size())
                               .arg(QString::fromLatin1(*result.headers.value("Content-Length")));
    }
    // Whether the server may have seen the request: it answered, or the exchange broke
    // after the request could have left.
    result.sent = result.status != 0 || result.error == TransportError::Timeout ||
                  result.error == TransportError::ConnectionClosed;
    result.requestLeft = m_requestSent;
    result.durationMs = m_clock.monotonicMs() - m_startedMonotonicMs;
    reply->disconnect(this);
    if (!reply->isFinished())
        reply->abort();
    reply->deleteLater();
    m_reply.clear();
    finish(std::move(result));
}

void TransportCall::finish(TransportResult result)
{
    m_finished = true;
    qCDebug(lcEngine) << "exchange finished" << result.status << textOf(result.error)
                      << result.durationMs << "ms" << (result.requestLeft ? "(request left)" : "");
    emit finished(result);
    deleteLater();
}

Transport::Transport(const Clock &clock, QObject *parent)
    : QObject(parent), m_clock(clock), m_manager(new QNetworkAccessManager(this))
{
    qRegisterMetaType<TransportResult>();
    m_manager->setRedirectPolicy(QNetworkRequest::NoLessSafeRedirectPolicy);
}

Transport::~Transport() = default;

std::shared_ptr<const ConnectionSettings> ConnectionSettings::make(const TlsConfig *tls,
                                                                   const ProxyConfig &proxy)
{
    const bool direct =
        proxy.kind == ProxyConfig::Kind::Inherit || proxy.kind == ProxyConfig::Kind::None;
    if (!tls && direct)
        return nullptr;
    auto settings = std::make_shared<ConnectionSettings>();
    settings->proxy = proxy;
    if (tls) {
        settings->ssl = tls->ssl;
        settings->verifyHostname = tls->verifyHostname;
    }
    settings->key = QStringLiteral("tls=%1;proxy=%2")
                        .arg(tls ? tls->id : QString(), direct ? QString() : proxy.key());
    return settings;
}

QNetworkAccessManager *Transport::managerFor(const ConnectionSettings *connection)
{
    if (!connection)
        return m_manager;
    auto it = m_managers.find(connection->key);
    if (it == m_managers.end()) {
        auto *manager = new QNetworkAccessManager(this);
        manager->setRedirectPolicy(QNetworkRequest::NoLessSafeRedirectPolicy);
        manager->setProxyFactory(new ProxyChooser(connection->proxy));
        it = m_managers.emplace(connection->key, manager).first;
    }
    return it->second;
}

TransportCall *Transport::send(const TransportRequest &request)
{
    const QString scheme = request.url.scheme();
    TransportError early = TransportError::None;
    if (!request.url.isValid() || request.url.host().isEmpty())
        early = TransportError::BadUrl;
    else if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        early = TransportError::UnsupportedScheme;

    QNetworkRequest req(request.url);
    if (request.connection && request.connection->ssl)
        req.setSslConfiguration(*request.connection->ssl);
    if (request.redirectsSameOriginOnly)
        req.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::UserVerifiedRedirectPolicy);
    req.setTransferTimeout(request.timeoutMs);
    req.setMaximumRedirectsAllowed(request.maxRedirects);
    req.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    for (const auto &field : request.headers.fields())
        req.setRawHeader(field.first, field.second);

    QNetworkReply *reply = nullptr;
    if (early == TransportError::None) {
        if (request.body.isEmpty() && request.method == "GET") {
            reply = managerFor(request.connection.get())->get(req);
        } else if (request.body.isEmpty() && request.method == "HEAD") {
            // As a custom request Qt would wait for the body the answer's
            // Content-Length announces, which a HEAD answer never has.
            reply = managerFor(request.connection.get())->head(req);
        } else {
            req.setAttribute(QNetworkRequest::DoNotBufferUploadDataAttribute, true);
            req.setHeader(QNetworkRequest::ContentLengthHeader, request.body.size());
            auto *body = new OneShotBody(request.body, nullptr);
            reply =
                managerFor(request.connection.get())->sendCustomRequest(req, request.method, body);
            body->setParent(reply);
        }
    }
    auto *call = new TransportCall(reply, request, m_clock, this);
    ++m_inFlight;
    connect(call, &TransportCall::finished, this, [this] { --m_inFlight; });
    if (early != TransportError::None) {
        // Still an async call with one final signal, so callers have one code path.
        TransportResult result;
        result.error = early;
        result.errorText = early == TransportError::BadUrl
                               ? QStringLiteral("invalid URL")
                               : QStringLiteral("unsupported scheme '%1'").arg(scheme);
        result.startedAtMs = m_clock.nowMs();
        QMetaObject::invokeMethod(
            call, [call, result] { call->finish(result); }, Qt::QueuedConnection);
    }
    return call;
}

} // namespace cooldown
