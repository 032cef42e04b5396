// SPDX-License-Identifier: Apache-2.0
#pragma once

// A loopback TCP server that misbehaves on purpose, one scripted behaviour at a
// time, for transport tests that a well-behaved HTTP server cannot provide.

#include <QHostAddress>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

class RawHttpServer final : public QTcpServer
{
    Q_OBJECT

public:
    enum class Behaviour
    {
        Ok,                // 200 with a small body
        Hang,              // accept, read, never answer
        HeadersThenStall,  // status line and headers, then nothing
        CloseAfterRequest, // read the request, close without answering
        CloseMidBody,      // promise 1000 bytes, send 10, close
        EndlessHeader,     // a header line that never ends
        EndlessBody,       // chunked body that never ends
        InvalidStatus,     // garbage instead of a status line
        RedirectLoop,      // 302 to itself, forever
        BigBody,           // 200 with a body of bigBodyBytes
    };

    explicit RawHttpServer(Behaviour behaviour, QObject *parent = nullptr)
        : QTcpServer(parent), m_behaviour(behaviour)
    {
        listen(QHostAddress::LocalHost, 0);
    }

    QString url(const QString &path = QStringLiteral("/")) const
    {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(serverPort()).arg(path);
    }

    int requests = 0;
    qint64 bigBodyBytes = 4 << 20;
    qint64 bytesWritten = 0;

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket(this);
        socket->setSocketDescriptor(descriptor);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onRead(socket); });
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    }

private:
    void onRead(QTcpSocket *socket)
    {
        m_buffers[socket] += socket->readAll();
        if (!m_buffers[socket].contains("\r\n\r\n"))
            return;
        m_buffers.remove(socket);
        ++requests;
        switch (m_behaviour) {
        case Behaviour::Ok:
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
            break;
        case Behaviour::Hang:
            break;
        case Behaviour::HeadersThenStall:
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
            break;
        case Behaviour::CloseAfterRequest:
            socket->disconnectFromHost();
            break;
        case Behaviour::CloseMidBody:
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789");
            socket->flush();
            socket->disconnectFromHost();
            break;
        case Behaviour::EndlessHeader:
            socket->write("HTTP/1.1 200 OK\r\nX-Endless: ");
            feed(socket, QByteArray(64 * 1024, 'a'));
            break;
        case Behaviour::EndlessBody:
            socket->write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
            feed(socket, "10000\r\n" + QByteArray(0x10000, 'b') + "\r\n");
            break;
        case Behaviour::InvalidStatus:
            socket->write("HTTX/9.9 abc\r\n\r\n");
            socket->disconnectFromHost();
            break;
        case Behaviour::RedirectLoop:
            socket->write("HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n");
            break;
        case Behaviour::BigBody:
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(bigBodyBytes) +
                          "\r\n\r\n");
            feedBounded(socket, bigBodyBytes);
            break;
        }
    }

    // Keeps writing the same block while the client reads, without ever ending.
    // Bounded by the client: once it closes, the socket is gone and so is the loop.
    void feed(QTcpSocket *socket, const QByteArray &block)
    {
        QPointer<QTcpSocket> guard(socket);
        auto *timer = new QTimer(socket);
        connect(timer, &QTimer::timeout, socket, [this, guard, block] {
            if (guard && guard->state() == QAbstractSocket::ConnectedState &&
                guard->bytesToWrite() < (1 << 20)) {
                guard->write(block);
                bytesWritten += block.size();
            }
        });
        timer->start(1);
    }

    void feedBounded(QTcpSocket *socket, qint64 total)
    {
        QPointer<QTcpSocket> guard(socket);
        auto *timer = new QTimer(socket);
        auto remaining = std::make_shared<qint64>(total);
        connect(timer, &QTimer::timeout, socket, [guard, remaining, timer] {
            if (!guard || *remaining <= 0) {
                timer->stop();
                return;
            }
            if (guard->bytesToWrite() < (1 << 20)) {
                const qint64 n = std::min<qint64>(*remaining, 64 * 1024);
                guard->write(QByteArray(int(n), 'c'));
                *remaining -= n;
            }
        });
        timer->start(1);
    }

    Behaviour m_behaviour;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};
