// SPDX-License-Identifier: Apache-2.0
#include "core/engine/IncidentCause.h"

namespace cooldown {

namespace {

QString proxyCauseOf(const QString &host, const ProxyConfig &proxy)
{
    // Only a proxy the workspace names is a cause of its own: "system" is whatever the
    // environment says, which the engine cannot tell apart from the host.
    if (proxy.kind != ProxyConfig::Kind::Explicit || proxy.bypasses(host))
        return {};
    const int port = proxy.url.port(proxy.url.scheme() == QLatin1String("socks5") ? 1080 : 80);
    return QStringLiteral("proxy:%1:%2").arg(proxy.url.host().toLower()).arg(port);
}

bool isServerFailure(int status)
{
    // 503 is left out: it is a throttle the retry contract waits for, and the server
    // that says it is there.
    return status == 500 || status == 502 || status == 504;
}

} // namespace

ExchangeCauses incidentCausesOf(const QString &host, const ProxyConfig &proxy, int status,
                                TransportError error, bool requestLeft)
{
    ExchangeCauses causes;
    if (host.isEmpty())
        return causes;
    const QString hostCause = QStringLiteral("host:") + host.toLower();
    const QString proxyCause = proxyCauseOf(host, proxy);
    switch (error) {
    case TransportError::None:
        break;
    case TransportError::ConnectionClosed:
        // A connection was made, so the host (or the proxy) is there: one handler broke
        // or dropped the request. (A handshake broken off is a Tls failure.)
        return causes;
    case TransportError::Timeout:
        // The server took the whole request and kept it: that one endpoint hangs. A
        // host that is away, or drops packets, takes nothing.
        if (requestLeft)
            return causes;
        [[fallthrough]];
    case TransportError::ConnectionRefused:
    case TransportError::HostNotFound:
    case TransportError::Tls:
        // Through a proxy, a host that fails comes back as the proxy's 502 or 504; no
        // answer at all is the proxy's.
        causes.failed = proxyCause.isEmpty() ? hostCause : proxyCause;
        return causes;
    case TransportError::BadUrl:
    case TransportError::UnsupportedScheme:
    case TransportError::WorkerDied:
    case TransportError::NetworkUnreachable:
    case TransportError::Interrupted:
        return causes;
    }
    if (status == 0)
        return causes;
    if (isServerFailure(status))
        causes.failed = hostCause;
    else
        causes.cleared.append(hostCause);
    if (!proxyCause.isEmpty())
        causes.cleared.append(proxyCause);
    return causes;
}

QString tokenCauseOf(const QUrl &tokenUrl)
{
    const int defaultPort = tokenUrl.scheme() == QLatin1String("https") ? 443 : 80;
    QString cause = QStringLiteral("token:") + tokenUrl.host().toLower();
    if (tokenUrl.port(defaultPort) != defaultPort)
        cause += QLatin1Char(':') + QString::number(tokenUrl.port());
    return cause;
}

QString incidentCauseText(const QString &cause)
{
    const qsizetype colon = cause.indexOf(QLatin1Char(':'));
    if (colon < 0)
        return cause;
    const QString kind = cause.left(colon);
    return (kind == QLatin1String("token") ? QStringLiteral("token endpoint") : kind) +
           QLatin1Char(' ') + cause.mid(colon + 1);
}

} // namespace cooldown
