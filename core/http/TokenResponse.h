// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace cooldown {

// The answer of an OAuth 2.0 token endpoint (RFC 6749, 5.1 and 5.2), read without
// trusting it: a body that is not what the RFC describes is an error with a reason,
// never a token.
struct TokenResponse
{
    enum class Kind
    {
        Token,   // 2xx with an access_token
        Refused, // an error the client must fix (invalid_client, unauthorized_client, ...)
        Error,   // anything else: an error code that may pass, or an unreadable body
    };

    Kind kind = Kind::Error;
    QByteArray accessToken; // Token only; in memory only, never logged
    QString tokenType;      // "Bearer" when the server says nothing
    std::optional<qint64> expiresInSeconds;
    QString scope;
    QString error;            // RFC 6749 error code, or a word of our own
    QString errorDescription; // as the server gave it, cut to a line

    // status: the HTTP status; body: what the server sent.
    static TokenResponse parse(int status, const QByteArray &body);
};

} // namespace cooldown
