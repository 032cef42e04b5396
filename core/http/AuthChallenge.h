// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace cooldown {

// One challenge of a WWW-Authenticate field (RFC 9110, 11.6.1): an auth scheme and its
// parameters, or a token68.
struct AuthChallenge
{
    QByteArray scheme;                        // as sent; compare case-insensitively
    QList<QPair<QByteArray, QString>> params; // names lowercased, quoted values unescaped
    QByteArray token68;

    // The value of a parameter, or an empty optional.
    std::optional<QString> param(QByteArrayView name) const;
    bool isBearer() const;

    // Every challenge of every WWW-Authenticate field, in order. What cannot be read is
    // skipped up to the next challenge: a server's odd field never hides a Bearer one.
    static QList<AuthChallenge> parse(const HttpHeaders &headers);
    static QList<AuthChallenge> parse(QByteArrayView field);
    // The first Bearer challenge, if any.
    static std::optional<AuthChallenge> bearer(const HttpHeaders &headers);
};

} // namespace cooldown
