// SPDX-License-Identifier: Apache-2.0
#include "app/LocalListener.h"

#include "app/CommandLine.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace cooldown {

namespace {

// A request line and headers longer than this are not a request this listener serves.
constexpr qint64 kMaxHeadBytes = 16 * 1024;
// A connection with no request, or a request not whole, for this long is dropped.
constexpr int kIdleTimeoutMs = 10'000;
// Requests answered on one connection before it is closed, so that one client cannot
// hold a connection for ever.
constexpr int kMaxRequestsPerConnection = 100'000;

// What one connection has read of its next request.
struct Connection
{
    QByteArray buffer;
    int answered = 0;
};

QByteArray serialize(const LocalResponse &r, bool close, bool headOnly)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(r.status) + ' ' +
                     LocalListener::reasonPhrase(r.status) + "\r\n";
    if (!r.contentType.isEmpty())
        out += "Content-Type: " + r.contentType + "\r\n";
    for (const auto &[name, value] : r.headers)
        out += name + ": " + value + "\r\n";
    out += "Content-Length: " + QByteArray::number(r.body.size()) + "\r\n";
    if (close)
        out += "Connection: close\r\n";
    out += "\r\n";
    if (!headOnly)
        out += r.body;
    return out;
}

} // namespace

QByteArray LocalRequest::header(const QByteArray &lowerName) const
{
    for (const auto &[name, value] : headers) {
        if (name == lowerName)
            return value;
    }
    return {};
}

LocalResponse LocalResponse::text(int status, const QByteArray &body)
{
    LocalResponse r;
    r.status = status;
    r.body = body;
    return r;
}

LocalListener::LocalListener(Handler handler, qint64 maxBodyBytes, QObject *parent)
    : QObject(parent), m_handler(std::move(handler)), m_maxBodyBytes(maxBodyBytes),
      m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, [this] {
        while (QTcpSocket *socket = m_server->nextPendingConnection())
            serve(socket);
    });
}

LocalListener::~LocalListener() = default;

bool LocalListener::listen(const QHostAddress &address, quint16 port, QString *error)
{
    if (m_server->listen(address, port))
        return true;
    *error = m_server->errorString();
    return false;
}

quint16 LocalListener::port() const
{
    return m_server->serverPort();
}

bool LocalListener::parseAddress(const QString &text, QHostAddress *address, quint16 *port,
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

QByteArray LocalListener::reasonPhrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 411:
        return "Length Required";
    case 413:
        return "Content Too Large";
    case 415:
        return "Unsupported Media Type";
    case 422:
        return "Unprocessable Content";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    default:
        return "Status";
    }
}

void LocalListener::serve(QTcpSocket *socket)
{
    socket->setParent(this);
    auto *connection = new Connection;
    auto *idle = new QTimer(socket);
    idle->setSingleShot(true);
    connect(idle, &QTimer::timeout, socket, &QTcpSocket::abort);
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QTcpSocket::errorOccurred, socket, &QObject::deleteLater);
    connect(socket, &QObject::destroyed, socket, [connection] { delete connection; });
    idle->start(kIdleTimeoutMs);
    socket->setProperty("cooldownConnection", QVariant::fromValue<void *>(connection));
    connect(socket, &QTcpSocket::readyRead, socket, [this, socket, idle] {
        idle->start(kIdleTimeoutMs);
        answerBuffered(socket);
    });
}

bool LocalListener::answerBuffered(QTcpSocket *socket)
{
    auto *connection =
        static_cast<Connection *>(socket->property("cooldownConnection").value<void *>());
    if (!connection || socket->state() != QAbstractSocket::ConnectedState)
        return false;
    const auto refuse = [socket](int status, const QByteArray &why) {
        socket->write(serialize(LocalResponse::text(status, why + '\n'), true, false));
        socket->disconnectFromHost();
        return false;
    };
    for (;;) {
        // Read the head only as far as needed: a body is never read beyond its length.
        QByteArray &buffer = connection->buffer;
        qsizetype headEnd = buffer.indexOf("\r\n\r\n");
        while (headEnd < 0) {
            if (buffer.size() >= kMaxHeadBytes + 4)
                return refuse(431, "request head too large");
            if (socket->bytesAvailable() <= 0)
                return true;
            buffer += socket->read(kMaxHeadBytes + 4 - buffer.size());
            headEnd = buffer.indexOf("\r\n\r\n");
        }

        LocalRequest request;
        const QList<QByteArray> lines = buffer.left(headEnd).split('\n');
        const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
        if (requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1."))
            return refuse(400, "malformed request line");
        request.method = requestLine.at(0);
        const QByteArray target = requestLine.at(1);
        const qsizetype question = target.indexOf('?');
        request.path = question >= 0 ? target.left(question) : target;
        request.query = question >= 0 ? target.mid(question + 1) : QByteArray();
        bool close = requestLine.at(2) == "HTTP/1.0";
        qint64 contentLength = 0;
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines.at(i).trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon <= 0)
                return refuse(400, "malformed header line");
            const QByteArray name = line.left(colon).trimmed().toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (name == "content-length") {
                bool ok = false;
                contentLength = value.toLongLong(&ok);
                if (!ok || contentLength < 0)
                    return refuse(400, "malformed Content-Length");
            } else if (name == "transfer-encoding") {
                return refuse(411, "send the body with a Content-Length");
            } else if (name == "connection") {
                close = close || value.toLower().contains("close");
            }
            request.headers.append({name, value});
        }
        if (contentLength > m_maxBodyBytes)
            return refuse(413, "request body larger than " + QByteArray::number(m_maxBodyBytes) +
                                   " bytes");
        const qint64 have = buffer.size() - (headEnd + 4);
        if (have < contentLength) {
            if (socket->bytesAvailable() > 0)
                buffer += socket->read(contentLength - have);
            if (buffer.size() - (headEnd + 4) < contentLength)
                return true;
        }
        request.body = buffer.mid(headEnd + 4, contentLength);
        buffer.remove(0, headEnd + 4 + contentLength);

        ++connection->answered;
        close = close || connection->answered >= kMaxRequestsPerConnection;
        const LocalResponse response = m_handler(request);
        socket->write(serialize(response, close, request.method == "HEAD"));
        if (close) {
            socket->disconnectFromHost();
            return false;
        }
        if (buffer.isEmpty() && socket->bytesAvailable() == 0)
            return true;
    }
}

} // namespace cooldown
