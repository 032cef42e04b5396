// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

class QTcpSocket;

namespace cooldown {

// An offline worker's probe of its own when it has no exchange to send (docs/offline.md):
// a TCP connection to a host the engine talks to, closed as soon as it opens. No
// request goes out, so nothing of a partner's quota is spent; a refusal counts as
// reaching the network too (a host answered).
class ReachProbe final : public QObject
{
    Q_OBJECT

public:
    enum class Outcome
    {
        Reached,    // connected, or refused, or closed: something answered
        NoRoute,    // no route to the network
        NameFailed, // the host's name did not resolve
        NoAnswer,   // nothing within the timeout
    };
    Q_ENUM(Outcome)

    explicit ReachProbe(QObject *parent = nullptr);
    ~ReachProbe() override;

    // Starts one probe unless one is under way; finished() follows, always
    // asynchronously.
    void start(const QString &host, quint16 port, int timeoutMs);
    bool isRunning() const { return m_socket != nullptr; }
    QString host() const { return m_host; }

signals:
    void finished(cooldown::ReachProbe::Outcome outcome);

private:
    void end(Outcome outcome);

    QTcpSocket *m_socket = nullptr;
    QTimer m_timeout;
    QString m_host;
};

} // namespace cooldown
