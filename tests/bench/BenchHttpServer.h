// SPDX-License-Identifier: Apache-2.0
#pragma once

// The smallest HTTP/1.1 server that keeps connections alive and answers every GET with
// 200 "ok": the engine benchmark's stand-in for nginx in smoke mode. It shares the
// benchmark's thread, so figures measured against it say little; scripts/bench uses
// nginx.

#include <QHash>
#include <QHostAddress>
#include <QTcpServer>
#include <QTcpSocket>

namespace cooldown::bench {

class BenchHttpServer final : public QTcpServer
{
    Q_OBJECT

public:
    explicit BenchHttpServer(QObject *parent = nullptr) : QTcpServer(parent)
    {
        listen(QHostAddress::LocalHost, 0);
    }

    ~BenchHttpServer() override
    {
        // A socket closing in its destructor must not call back into a half-destroyed server.
        const QList<QTcpSocket *> sockets = findChildren<QTcpSocket *>();
        for (QTcpSocket *socket : sockets) {
            socket->disconnect();
            delete socket;
        }
    }

    QString url() const { return QStringLiteral("http://127.0.0.1:%1/ok").arg(serverPort()); }
    qint64 requests() const { return m_requests; }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket(this);
        socket->setSocketDescriptor(descriptor);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onRead(socket); });
        connect(socket, &QTcpSocket::disconnected, socket, [this, socket] {
            m_buffers.remove(socket);
            socket->deleteLater();
        });
    }

private:
    void onRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        qsizetype end = 0;
        // Requests without bodies only: each ends at its blank line.
        while ((end = buffer.indexOf("\r\n\r\n")) >= 0) {
            // /ok.json answers what scripts/nginx serves there.
            const bool json = buffer.left(buffer.indexOf('\n')).contains(".json ");
            buffer.remove(0, end + 4);
            ++m_requests;
            socket->write(
                json ? "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                       "Content-Length: 37\r\n\r\n{\"status\": \"ok\", \"items\": [1, 2, 3]}\n"
                     : "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                       "3\r\n\r\nok\n");
        }
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
    qint64 m_requests = 0;
};

} // namespace cooldown::bench
