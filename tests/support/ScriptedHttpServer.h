// SPDX-License-Identifier: Apache-2.0
#pragma once

// A loopback HTTP/1.1 server that answers each request with the next scripted
// response (the last one repeats), and keeps every request it received.

#include <QHostAddress>
#include <QList>
#include <QTcpServer>
#include <QTcpSocket>

struct ScriptedResponse
{
    int status = 200;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    bool hang = false;  // never answer
    bool close = false; // read the whole request, then close the connection unanswered
};

struct ReceivedRequest
{
    QByteArray method;
    QByteArray path;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;

    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return {};
    }
};

class ScriptedHttpServer final : public QTcpServer
{
    Q_OBJECT

public:
    // address: another loopback address (127.0.0.2, ...) stands for another host.
    explicit ScriptedHttpServer(QObject *parent = nullptr,
                                const QHostAddress &address = QHostAddress::LocalHost,
                                quint16 port = 0)
        : QTcpServer(parent)
    {
        listen(address, port);
    }

    QString url(const QString &path = QStringLiteral("/")) const
    {
        return QStringLiteral("http://%1:%2%3")
            .arg(serverAddress().toString())
            .arg(serverPort())
            .arg(path);
    }

    // Responses for a path; requests to other paths get 200.
    void script(const QByteArray &path, QList<ScriptedResponse> responses)
    {
        m_scripts[path] = std::move(responses);
    }

    QList<ReceivedRequest> received;
    int open = 0; // requests being held unanswered
    int maxOpen = 0;

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket(this);
        socket->setSocketDescriptor(descriptor);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onRead(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            if (m_hanging.remove(socket))
                --open;
            socket->deleteLater();
        });
    }

private:
    void onRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            ReceivedRequest r;
            const QList<QByteArray> lines = buffer.left(end).split('\n');
            const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
            r.method = requestLine.value(0);
            r.path = requestLine.value(1);
            qsizetype length = 0;
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QByteArray line = lines[i].trimmed();
                const qsizetype colon = line.indexOf(':');
                if (colon <= 0)
                    continue;
                r.headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
                if (line.left(colon).trimmed().compare("Content-Length", Qt::CaseInsensitive) == 0)
                    length = line.mid(colon + 1).trimmed().toLongLong();
            }
            if (buffer.size() < end + 4 + length)
                return;
            r.body = buffer.mid(end + 4, length);
            buffer.remove(0, end + 4 + length);
            received.append(r);
            answer(socket, r);
        }
    }

    void answer(QTcpSocket *socket, const ReceivedRequest &r)
    {
        const QByteArray path =
            r.path.left(r.path.indexOf('?') >= 0 ? r.path.indexOf('?') : r.path.size());
        ScriptedResponse response;
        auto it = m_scripts.find(path);
        if (it != m_scripts.end() && !it->isEmpty())
            response = it->size() > 1 ? it->takeFirst() : it->first();
        if (response.close) {
            socket->disconnectFromHost();
            return;
        }
        if (response.hang) {
            m_hanging.insert(socket);
            ++open;
            maxOpen = std::max(maxOpen, open);
            return;
        }
        QByteArray out = "HTTP/1.1 " + QByteArray::number(response.status) + " Scripted\r\n";
        for (const auto &h : response.headers)
            out += h.first + ": " + h.second + "\r\n";
        out += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n\r\n" +
               response.body;
        socket->write(out);
    }

    QHash<QByteArray, QList<ScriptedResponse>> m_scripts;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QSet<QTcpSocket *> m_hanging;
};
