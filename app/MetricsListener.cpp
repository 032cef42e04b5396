#include "app/MetricsListener.h"

#include "app/CommandLine.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace cooldown {

namespace {

// A request line and headers longer than this are not a scrape.
constexpr qint64 kMaxRequestBytes = 16 * 1024;
// A client that has not sent its request by then is dropped.
constexpr int kRequestTimeoutMs = 10'000;

QByteArray response(const QByteArray &status, const QByteArray &contentType, const QByteArray &body)
{
    return "HTTP/1.1 " + status + "\r\nContent-Type: " + contentType +
           "\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
}

} // namespace

MetricsListener::MetricsListener(std::function<QByteArray()> render, QObject *parent)
    : QObject(parent), m_render(std::move(render)), m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_server->nextPendingConnection())
            serve(socket);
    });
}

MetricsListener::~MetricsListener() = default;

bool MetricsListener::listen(const QHostAddress &address, quint16 port, QString *error)
{
    if (m_server->listen(address, port))
        return true;
    *error = m_server->errorString();
    return false;
}

quint16 MetricsListener::port() const
{
    return m_server->serverPort();
}

bool MetricsListener::parseAddress(const QString &text, QHostAddress *address, quint16 *port,
                                   QString *error)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    QString host = colon > 0 ? text.left(colon) : QString();
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint number = colon > 0 ? text.mid(colon + 1).toUInt(&ok) : 0;
    if (host.isEmpty() || !ok || number > 65535) {
        *error = cli::Text::tr("expected HOST:PORT (e.g. 127.0.0.1:9464), got '%1'").arg(text);
        return false;
    }
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    if (!address->setAddress(host)) {
        *error = cli::Text::tr("'%1' is not an IP address").arg(host);
        return false;
    }
    *port = quint16(number);
    return true;
}

void MetricsListener::serve(QTcpSocket *socket)
{
    socket->setParent(this);
    auto *timeout = new QTimer(socket);
    timeout->setSingleShot(true);
    connect(timeout, &QTimer::timeout, socket, &QTcpSocket::abort);
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QTcpSocket::errorOccurred, socket, &QObject::deleteLater);
    timeout->start(kRequestTimeoutMs);
    connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
        if (socket->property("answered").toBool())
            return;
        const QByteArray head = socket->peek(kMaxRequestBytes);
        const qsizetype end = head.indexOf("\r\n\r\n");
        if (end < 0) {
            if (socket->bytesAvailable() >= kMaxRequestBytes) {
                socket->write(response("431 Request Header Fields Too Large", "text/plain",
                                       "request too large\n"));
                socket->setProperty("answered", true);
                socket->disconnectFromHost();
            }
            return;
        }
        socket->setProperty("answered", true);
        const QList<QByteArray> requestLine = head.left(head.indexOf("\r\n")).split(' ');
        const QByteArray method = requestLine.value(0);
        QByteArray target = requestLine.value(1);
        target = target.left(target.indexOf('?') >= 0 ? target.indexOf('?') : target.size());
        if (target != "/metrics") {
            socket->write(response("404 Not Found", "text/plain", "only /metrics is here\n"));
        } else if (method != "GET" && method != "HEAD") {
            socket->write(response("405 Method Not Allowed", "text/plain", "GET only\n"));
        } else {
            const QByteArray full =
                response("200 OK", "text/plain; version=0.0.4; charset=utf-8", m_render());
            socket->write(method == "HEAD" ? full.left(full.indexOf("\r\n\r\n") + 4) : full);
        }
        socket->disconnectFromHost();
    });
}

} // namespace cooldown
