// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QSslConfiguration>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace cooldown {

// How requests reach a host: directly, through the proxy the environment names
// (http_proxy, https_proxy, no_proxy), or through one given in the workspace
// (docs/credentials.md, "Proxies").
struct ProxyConfig
{
    enum class Kind
    {
        Inherit, // not given here: the workspace's (for an endpoint), or none
        None,    // "none": always direct
        System,  // "system": what the environment says
        Explicit // a URL: http:// or socks5://
    };
    Kind kind = Kind::Inherit;
    QUrl url; // Explicit: scheme, host and port; user and password resolved from env
    // Hosts reached directly: "example.com" (and its subdomains), ".example.com"
    // (subdomains only), "127.0.0.1", or "*" for all.
    QStringList noProxy;

    bool operator==(const ProxyConfig &other) const
    {
        return kind == other.kind && url == other.url && noProxy == other.noProxy;
    }
    // What identifies it for a connection pool, without its password.
    QString key() const;
    // Whether a request to host goes direct by noProxy.
    bool bypasses(const QString &host) const;
};

// A "tls" entry: what to trust and what to present for the endpoints (and token
// requests) that name it. Key material is read from files when the workspace is
// loaded, so a bad file is an error of the workspace, named with its path.
struct TlsConfig
{
    QString id;
    QString caFile;             // PEM bundle, trusted for these endpoints only
    QString clientCertificate;  // PEM
    QString clientKey;          // PEM
    QString clientPkcs12;       // instead of the two above
    QString passphraseVariable; // the env var holding the key's or PKCS#12 passphrase
    bool verifyHostname = true;
    bool verifyCertificate = true; // false: curl -k, any certificate (warned)
    // Built from the files above: the CA certificates in place of the system's, the
    // local certificate, its chain and its key.
    QSslConfiguration ssl;
};

// A "credentials" entry: how a request proves who sends it.
struct CredentialConfig
{
    enum class Type
    {
        OAuth2ClientCredentials,
        Bearer, // Authorization: Bearer <token>
        Basic,  // Authorization: Basic base64(user:password)
        Header  // any header and value
    };
    enum class ClientAuth
    {
        SecretBasic,   // client_secret_basic (the default): HTTP Basic with id and secret
        SecretPost,    // client_secret_post: both in the form
        PrivateKeyJwt, // private_key_jwt: a JWT signed with the client's key (RFC 7523)
    };

    QString id;
    Type type = Type::Bearer;

    // oauth2_client_credentials (RFC 6749, 4.4)
    QUrl tokenUrl;
    QString clientId;
    QByteArray clientSecret; // resolved from ${env:NAME}, in memory only
    ClientAuth clientAuth = ClientAuth::SecretBasic;
    QString scope;
    QString audience;
    QList<QPair<QString, QString>> extraParameters; // sent in the token request's form
    // private_key_jwt: the key read (and decrypted) at load, in memory only, and the
    // algorithm it signs with (RS256 or ES256); key_id goes in the JWT header as kid.
    QByteArray assertionKeyPem;
    QString assertionAlgorithm;
    QString assertionKeyId;
    // A token whose answer gives no expires_in is taken to live this long.
    double defaultLifetimeSeconds = 3600;
    double tokenTimeoutSeconds = 30;
    // The token request goes through these, resolved at load: the credential's own
    // "tls" and "proxy" when it names them, else those of the first endpoint that uses
    // it (a token request takes the road of the API it serves).
    QString tls; // a TlsConfig id, or empty
    ProxyConfig proxy;

    // bearer, basic and header: the header sent, its value resolved in memory only.
    QByteArray headerName;
    QByteArray headerValue;

    // The environment variables this credential reads, for messages and check-config.
    QStringList variables;

    bool isOAuth() const { return type == Type::OAuth2ClientCredentials; }
};

const char *textOf(CredentialConfig::Type type);

} // namespace cooldown
