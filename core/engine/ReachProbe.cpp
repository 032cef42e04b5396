// SPDX-License-Identifier: Apache-2.0
#include "core/engine/ReachProbe.h"

#include <QNetworkProxy>
#include <QTcpSocket>

namespace cooldown {

ReachProbe::ReachProbe(QObject *parent) : QObject(parent)
{
    m_timeout.setSingleShot(true);
    connect(&m_timeout, &QTimer::timeout, this, [this] { end(Outcome::NoAnswer); });
}

ReachProbe::~ReachProbe()
{
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
        delete m_socket;
    }
}

void ReachProbe::start(const QString &host, quint16 port, int timeoutMs)
{
    if (m_socket)
        return;
    m_host = host;
    m_socket = new QTcpSocket(this);
    // Straight to where the exchanges go: the caller passes a proxy's address when
    // they go through one.
    m_socket->setProxy(QNetworkProxy::NoProxy);
    connect(m_socket, &QTcpSocket::connected, this, [this] { end(Outcome::Reached); });
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError e) {
        switch (e) {
        case QAbstractSocket::ConnectionRefusedError:
        case QAbstractSocket::RemoteHostClosedError:
            end(Outcome::Reached);
            return;
        case QAbstractSocket::HostNotFoundError:
            end(Outcome::NameFailed);
            return;
        case QAbstractSocket::SocketTimeoutError:
            end(Outcome::NoAnswer);
            return;
        default:
            // ENETUNREACH and EHOSTUNREACH come as NetworkError; anything else that
            // fails before connecting says no more.
            end(Outcome::NoRoute);
            return;
        }
    });
    m_timeout.start(timeoutMs);
    m_socket->connectToHost(host, port);
}

void ReachProbe::end(Outcome outcome)
{
    if (!m_socket)
        return;
    m_timeout.stop();
    QTcpSocket *socket = m_socket;
    m_socket = nullptr;
    socket->disconnect(this);
    socket->abort();
    socket->deleteLater();
    // Never from inside start(): a caller that starts a probe finishes its own work first.
    QMetaObject::invokeMethod(
        this, [this, outcome] { emit finished(outcome); }, Qt::QueuedConnection);
}

} // namespace cooldown
