// SPDX-License-Identifier: Apache-2.0
#include "core/import/SourceFetch.h"

#include <QCoreApplication>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

constexpr qint64 kMaxBytes = 16 * 1024 * 1024;
constexpr int kTimeoutMs = 30000;

} // namespace

SourceFetch::SourceFetch(QObject *parent)
    : QObject(parent), m_network(new QNetworkAccessManager(this))
{}

bool SourceFetch::isLoopback(const QUrl &url)
{
    const QString scheme = url.scheme();
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        return false;
    const QString host = url.host();
    if (host.compare(QStringLiteral("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

void SourceFetch::start(const QUrl &url)
{
    m_url = url;
    if (!isLoopback(url)) {
        // Said after start() returns, as every other ending is.
        QMetaObject::invokeMethod(
            this,
            [this] {
                finish({}, Text::tr("%1: only a URL on this machine (http or https to "
                                    "127.0.0.1, ::1 or localhost) is fetched; download the "
                                    "document and give its file")
                               .arg(m_url.toDisplayString()));
            },
            Qt::QueuedConnection);
        return;
    }
    QNetworkRequest request(url);
    request.setTransferTimeout(kTimeoutMs);
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    m_reply = m_network->get(request);
    connect(m_reply, &QNetworkReply::downloadProgress, this, [this](qint64 received, qint64) {
        if (received > kMaxBytes && m_reply) {
            m_tooLarge = true;
            m_reply->abort();
        }
    });
    connect(m_reply, &QNetworkReply::finished, this, &SourceFetch::replyFinished);
}

void SourceFetch::replyFinished()
{
    QNetworkReply *reply = m_reply;
    m_reply = nullptr;
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString where = m_url.toDisplayString();
    if (m_tooLarge) {
        finish({}, Text::tr("%1: larger than %2 MiB").arg(where).arg(kMaxBytes >> 20));
    } else if (reply->error() == QNetworkReply::OperationCanceledError) {
        finish({}, Text::tr("%1: no answer within %2 s").arg(where).arg(kTimeoutMs / 1000));
    } else if (status >= 300 && status < 400) {
        const QUrl location = reply->header(QNetworkRequest::LocationHeader).toUrl();
        finish({}, Text::tr("%1: redirected to %2, which is not followed; give that URL")
                       .arg(where, location.toDisplayString()));
    } else if (reply->error() != QNetworkReply::NoError && status == 0) {
        finish({}, QStringLiteral("%1: %2").arg(where, reply->errorString()));
    } else if (status != 200) {
        finish({}, Text::tr("%1: the server answered %2").arg(where).arg(status));
    } else {
        finish(reply->readAll(), {});
    }
}

void SourceFetch::finish(const QByteArray &body, const QString &error)
{
    if (m_done)
        return;
    m_done = true;
    emit finished(body, error);
    deleteLater();
}

} // namespace cooldown
