// SPDX-License-Identifier: Apache-2.0
#include "core/config/Credentials.h"

#include <QCryptographicHash>
#include <QHostAddress>

namespace cooldown {

namespace {

// A host as a URL gives it, in the form no_proxy entries are compared with:
// lower case, without the brackets of an IPv6 literal or a final dot.
QString comparableHost(QString host)
{
    host = host.trimmed().toLower();
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    while (host.endsWith(QLatin1Char('.')))
        host.chop(1);
    return host;
}

} // namespace

QString ProxyConfig::key() const
{
    switch (kind) {
    case Kind::Inherit:
        return QStringLiteral("inherit");
    case Kind::None:
        return QStringLiteral("none");
    case Kind::System:
        return QStringLiteral("system");
    case Kind::Explicit:
        break;
    }
    // Two users of one proxy are two sets of connections, so the user counts; but it may
    // come from the environment as a secret does, and a key may end up in a log: only a
    // digest of it is kept. no_proxy stays, since two configs that differ in it send a
    // host different ways.
    QString text = url.toString(QUrl::RemoveUserInfo | QUrl::RemovePath | QUrl::RemoveQuery |
                                QUrl::RemoveFragment | QUrl::FullyEncoded);
    // The password too: two that differ only in it must not share a pool whose proxy
    // authenticates with one of them.
    const QString user = url.userName(QUrl::FullyDecoded);
    const QString password = url.password(QUrl::FullyDecoded);
    if (!user.isEmpty() || !password.isEmpty())
        text +=
            QStringLiteral(" user#") +
            QString::fromLatin1(QCryptographicHash::hash(user.toUtf8() + '\0' + password.toUtf8(),
                                                         QCryptographicHash::Sha256)
                                    .toHex()
                                    .left(16));
    if (!noProxy.isEmpty())
        text += QStringLiteral(" no_proxy=") + noProxy.join(QLatin1Char(','));
    return text;
}

bool ProxyConfig::bypasses(const QString &host) const
{
    const QString name = comparableHost(host);
    if (name.isEmpty())
        return false;
    const QHostAddress address(name);
    for (const QString &written : noProxy) {
        const QString entry = comparableHost(written);
        if (entry == QLatin1String("*"))
            return true;
        if (entry.isEmpty())
            continue;
        // An address matches only itself ("::1" and "0:0::1" being one), never as the
        // end of a name: "10.0.0.1" says nothing of "1.10.0.0.1".
        const QHostAddress entryAddress(entry);
        if (!entryAddress.isNull() || !address.isNull()) {
            if (entryAddress.isEqual(address) && !address.isNull())
                return true;
            continue;
        }
        if (entry.startsWith(QLatin1Char('.'))) {
            if (name.endsWith(entry))
                return true;
        } else if (name == entry || name.endsWith(QLatin1Char('.') + entry)) {
            return true;
        }
    }
    return false;
}

const char *textOf(CredentialConfig::Type type)
{
    switch (type) {
    case CredentialConfig::Type::OAuth2ClientCredentials:
        return "oauth2_client_credentials";
    case CredentialConfig::Type::Bearer:
        return "bearer";
    case CredentialConfig::Type::Basic:
        return "basic";
    case CredentialConfig::Type::Header:
        return "header";
    }
    return "bearer";
}

} // namespace cooldown
