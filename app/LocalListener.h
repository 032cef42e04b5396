// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

#include <functional>

class QTcpServer;
class QTcpSocket;

namespace cooldown {

// One request as the listener read it: the body is whole, within the listener's cap.
struct LocalRequest
{
    QByteArray method;
    QByteArray path;                              // the target without its query
    QByteArray query;                             // after '?', undecoded
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;

    QByteArray header(const QByteArray &lowerName) const;
};

struct LocalResponse
{
    int status = 200;
    QByteArray contentType = "text/plain; charset=utf-8";
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;

    static LocalResponse text(int status, const QByteArray &body);
};

// The HTTP/1.1 listener of `cooldown run --listen`: Prometheus' /metrics and the local
// API (docs/local-api.md) share it. Connections are kept alive and their requests
// answered in order, on the thread that owns the listener, between the engine's events.
//
// It reads no more than it must: a request head beyond 16 KiB is answered 431, a body
// longer than the cap 413 from its Content-Length alone, before a byte of it is read;
// a body without Content-Length (chunked) 411. Each is answered and the connection
// closed, so nothing of a refused request is buffered.
class LocalListener final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LocalListener)

public:
    using Handler = std::function<LocalResponse(const LocalRequest &)>;

    explicit LocalListener(Handler handler, qint64 maxBodyBytes, QObject *parent = nullptr);
    ~LocalListener() override;

    // Port 0 picks a free one; port() tells which.
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    quint16 port() const;
    void setMaxBodyBytes(qint64 bytes) { m_maxBodyBytes = bytes; }

    // "HOST:PORT" (an IPv6 host in brackets) into its parts; false with the reason in
    // *error.
    static bool parseAddress(const QString &text, QHostAddress *address, quint16 *port,
                             QString *error);
    static QByteArray reasonPhrase(int status);

private:
    void serve(QTcpSocket *socket);
    // Answers every whole request buffered on the socket; false once it is closing.
    bool answerBuffered(QTcpSocket *socket);

    Handler m_handler;
    qint64 m_maxBodyBytes;
    QTcpServer *m_server = nullptr;
};

} // namespace cooldown
