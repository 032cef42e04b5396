#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QString>

#include <functional>

class QTcpServer;
class QTcpSocket;

namespace cooldown {

// A minimal HTTP/1.1 listener for Prometheus: GET /metrics answers 200 with what
// render() returns (text format 0.0.4), anything else 404 or 405; one request per
// connection. Runs on the thread that owns it, between the engine's events.
class MetricsListener final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MetricsListener)

public:
    explicit MetricsListener(std::function<QByteArray()> render, QObject *parent = nullptr);
    ~MetricsListener() override;

    // Port 0 picks a free one; port() tells which.
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    quint16 port() const;

    // "HOST:PORT" (an IPv6 host in brackets) into its parts; nullopt-like false with
    // the reason in *error.
    static bool parseAddress(const QString &text, QHostAddress *address, quint16 *port,
                             QString *error);

private:
    void serve(QTcpSocket *socket);

    std::function<QByteArray()> m_render;
    QTcpServer *m_server = nullptr;
};

} // namespace cooldown
