// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace cooldown {

// A JWT client assertion (RFC 7523, 2.2; OpenID Connect's private_key_jwt): the client
// proves who it is by signing a short-lived token with its private key instead of
// sending a secret. RS256 for an RSA key, ES256 for an EC key on P-256.
struct ClientAssertion
{
    // The signing algorithm for a PEM private key (unencrypted), or nullopt with why
    // in *error: "RS256" or "ES256".
    static std::optional<QString> algorithmFor(const QByteArray &keyPem, QString *error);

    // header.payload.signature, base64url without padding. The claims: iss and sub the
    // client id, aud the token endpoint, jti unique, iat now, exp a minute later.
    // nullopt with why in *error when the key cannot sign.
    static std::optional<QByteArray> sign(const QByteArray &keyPem, const QString &keyId,
                                          const QString &clientId, const QString &audience,
                                          const QString &jti, qint64 nowMs, QString *error);

    // What the token request's form carries beside it.
    static constexpr const char *kAssertionType =
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
    static constexpr qint64 kLifetimeSeconds = 60;
};

} // namespace cooldown
