// SPDX-License-Identifier: Apache-2.0
#pragma once

// A loopback HTTP/1.1 server that answers 200 to everything and counts what it was
// sent: each request by its path and by its Idempotency-Key header. It can hold its
// answers back (hold()) and give them all at once (answerHeld()), so that a test can
// act while exchanges are in flight. It runs in the test's event loop: tests that
// run `cooldown` processes against it wait with that loop turning.

#include <QHash>
#include <QHostAddress>
#include <QList>
#include <QSet>
#include <QTcpServer>
#include <QTcpSocket>

class CountingHttpServer final : public QTcpServer
{
    Q_OBJECT

public:
    explicit CountingHttpServer(QObject *parent = nullptr) : QTcpServer(parent)
    {
        listen(QHostAddress::LocalHost, 0);
    }

    QString url(const QString &path = QStringLiteral("/")) const
    {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(serverPort()).arg(path);
    }

    // Requests received, in all.
    int requests = 0;
    QHash<QByteArray, int> byPath;
    QHash<QByteArray, int> byKey;

    // Paths or keys received more than once.
    QList<QByteArray> repeatedPaths() const { return repeated(byPath); }
    QList<QByteArray> repeatedKeys() const { return repeated(byKey); }

    // From now on, requests are kept unanswered until answerHeld() or hold(false).
    void hold(bool holding)
    {
        m_holding = holding;
        if (!holding)
            answerHeld();
    }
    int heldCount() const { return int(m_held.size()); }
    void answerHeld()
    {
        const QList<QTcpSocket *> held = std::exchange(m_held, {});
        for (QTcpSocket *socket : held) {
            if (m_sockets.contains(socket))
                answer(socket);
        }
    }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto *socket = new QTcpSocket(this);
        socket->setSocketDescriptor(descriptor);
        m_sockets.insert(socket);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onRead(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_sockets.remove(socket);
            m_held.removeAll(socket);
            m_buffers.remove(socket);
            socket->deleteLater();
        });
    }

private:
    static QList<QByteArray> repeated(const QHash<QByteArray, int> &counts)
    {
        QList<QByteArray> twice;
        for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
            if (it.value() > 1)
                twice.append(it.key());
        }
        return twice;
    }

    void onRead(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QList<QByteArray> lines = buffer.left(end).split('\n');
            const QByteArray path = lines.value(0).trimmed().split(' ').value(1);
            QByteArray key;
            qsizetype length = 0;
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QByteArray line = lines[i].trimmed();
                const qsizetype colon = line.indexOf(':');
                if (colon <= 0)
                    continue;
                const QByteArray name = line.left(colon).trimmed();
                if (name.compare("Content-Length", Qt::CaseInsensitive) == 0)
                    length = line.mid(colon + 1).trimmed().toLongLong();
                if (name.compare("Idempotency-Key", Qt::CaseInsensitive) == 0)
                    key = line.mid(colon + 1).trimmed();
            }
            if (buffer.size() < end + 4 + length)
                return;
            buffer.remove(0, end + 4 + length);
            ++requests;
            ++byPath[path];
            if (!key.isEmpty())
                ++byKey[key];
            if (m_holding)
                m_held.append(socket);
            else
                answer(socket);
        }
    }

    static void answer(QTcpSocket *socket)
    {
        socket->write(
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n");
    }

    bool m_holding = false;
    QList<QTcpSocket *> m_held;
    QSet<QTcpSocket *> m_sockets;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};
