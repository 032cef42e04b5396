// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/Credentials.h"
#include "core/http/HttpHeaders.h"
#include "core/retry/RetryDecision.h"

#include <QObject>
#include <QPointer>
#include <QSslConfiguration>
#include <QUrl>

#include <map>
#include <memory>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace cooldown {

class Clock;
struct TlsConfig;

// How exchanges reach their host (docs/credentials.md): what TLS trusts and presents,
// and which proxy they take. Exchanges with different settings never share a
// connection: Qt keys its connection pool by scheme, host, port and proxy alone, so a
// connection opened with one endpoint's client certificate or private CA would
// otherwise carry another endpoint's requests.
struct ConnectionSettings
{
    QString key;                          // equal keys, equal settings
    std::optional<QSslConfiguration> ssl; // none: Qt's default (the system's CAs)
    bool verifyHostname = true;
    ProxyConfig proxy; // Kind::Inherit and Kind::None: direct

    // The settings of tls (may be null) and proxy; null when they are the default (no
    // TLS settings of its own, direct), which shares the one default pool.
    static std::shared_ptr<const ConnectionSettings> make(const TlsConfig *tls,
                                                          const ProxyConfig &proxy);
};

struct TransportRequest
{
    QByteArray method = "GET";
    QUrl url;
    HttpHeaders headers;
    QByteArray body;
    int timeoutMs = 30000;
    int maxRedirects = 5;
    qint64 maxResponseBytes = 1 << 20;
    std::shared_ptr<const ConnectionSettings> connection; // null: direct, system CAs
    // The request carries a credential: a redirect is followed only to the same scheme,
    // host and port. Qt would copy every header to wherever the server points, and a
    // download's 302 to a storage host would hand it the token.
    bool redirectsSameOriginOnly = false;
};

struct TransportResult
{
    int status = 0; // 0 when there was no HTTP response
    TransportError error = TransportError::None;
    QString errorText;
    HttpHeaders headers;
    QByteArray body; // at most maxResponseBytes
    bool bodyTruncated = false;
    bool sent = false; // bytes of the request left this process
    // Qt wrote the whole request to a connection the server had accepted (requestSent):
    // a timeout or a close after that is of the exchange, not of a host that is away.
    bool requestLeft = false;
    qint64 startedAtMs = 0;
    qint64 durationMs = 0;
};

// Whether an answer that Qt reports complete came with fewer body bytes than its
// Content-Length promised: the connection closed mid-body, whatever Qt says. Not for
// HEAD, 1xx, 204 or 304 (no body), nor where a Content-Encoding makes the length that
// of other bytes, nor beside a Transfer-Encoding, which overrides the length
// (RFC 9112, 6.3).
bool bodyCutShort(const QByteArray &method, const TransportResult &result);

// One HTTP exchange in flight. It finishes exactly once (finished() is emitted once,
// also after abort()), then deletes itself later.
class TransportCall final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TransportCall)

public:
    ~TransportCall() override;
    void abort();
    bool isFinished() const { return m_finished; }

signals:
    void finished(const cooldown::TransportResult &result);

private:
    friend class Transport;
    TransportCall(QNetworkReply *reply, const TransportRequest &request, const Clock &clock,
                  QObject *parent);
    void onReadyRead();
    void onFinished();
    void finish(TransportResult result);

    QPointer<QNetworkReply> m_reply;
    const Clock &m_clock;
    qint64 m_maxResponseBytes = 0;
    qint64 m_startedMonotonicMs = 0;
    TransportResult m_result;
    bool m_aborted = false;
    bool m_finished = false;
    bool m_https = false;
    bool m_tlsFailed = false;       // the handshake reported certificate errors
    bool m_redirectRefused = false; // to another origin, with a credential
    QByteArray m_method;
    bool m_requestSent = false; // QNAM wrote the whole request at least once
};

// Owns the process's one QNetworkAccessManager. Every request gets a transfer
// timeout, a redirect cap and a response-size cap, and a body that QNAM cannot
// silently send a second time.
class Transport final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Transport)

public:
    explicit Transport(const Clock &clock, QObject *parent = nullptr);
    ~Transport() override;

    // The returned call is owned by the Transport until it finishes.
    TransportCall *send(const TransportRequest &request);

    int inFlight() const { return m_inFlight; }

private:
    QNetworkAccessManager *managerFor(const ConnectionSettings *connection);

    const Clock &m_clock;
    QNetworkAccessManager *m_manager = nullptr;
    // One more per distinct ConnectionSettings: each is a connection pool of its own.
    std::map<QString, QNetworkAccessManager *> m_managers;
    int m_inFlight = 0;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::TransportResult)
