// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QUrl>

class QNetworkAccessManager;
class QNetworkReply;

namespace cooldown {

// Fetches a document to import (an OpenAPI document a local server publishes) from a URL
// on this machine: http or https to a loopback address or localhost, nothing else, so an
// import never reaches out to the network on its own. One GET with a 30 s transfer
// timeout, no redirect followed, at most 16 MiB.
//
// finished() is emitted exactly once, with the body or an error naming the URL (a URL
// refused is refused that way too, after start() has returned); the object deletes
// itself afterwards.
class SourceFetch final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SourceFetch)

public:
    explicit SourceFetch(QObject *parent = nullptr);

    static bool isLoopback(const QUrl &url);
    void start(const QUrl &url);

signals:
    void finished(const QByteArray &body, const QString &error);

private:
    void finish(const QByteArray &body, const QString &error);
    void replyFinished();

    QNetworkAccessManager *m_network = nullptr;
    QNetworkReply *m_reply = nullptr;
    QUrl m_url;
    bool m_tooLarge = false;
    bool m_done = false;
};

} // namespace cooldown
