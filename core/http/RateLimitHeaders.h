// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// One quota policy the server advertises in `RateLimit-Policy` (IETF httpapi draft):
// "name";q=quota;qu="unit";w=window;pk=:partition-key:
struct RateLimitPolicyItem
{
    QString name;
    qint64 quota = 0;                       // q, required
    QString quotaUnit;                      // qu; "request" when absent
    std::optional<qint64> windowSeconds;    // w
    std::optional<QByteArray> partitionKey; // pk

    QJsonObject toJson() const;
};

// The current state of one policy in `RateLimit`: "name";r=remaining;t=reset;pk=:key:
struct RateLimitItem
{
    QString name;
    qint64 remaining = 0;               // r, required
    std::optional<qint64> resetSeconds; // t: seconds until the quota is restored
    std::optional<QByteArray> partitionKey;

    QJsonObject toJson() const;
};

// Both fields of the draft, parsed as RFC 9651 Lists. A field that is not a valid
// List is ignored whole and its error kept; a member that lacks a required parameter
// or has one of the wrong type is skipped and noted. Unknown parameters are ignored.
struct RateLimitHeaders
{
    QList<RateLimitPolicyItem> policies;
    QList<RateLimitItem> limits;
    std::optional<QByteArray> policyRaw; // nullopt when the response had no such field
    std::optional<QByteArray> limitRaw;
    QString policyError; // the whole RateLimit-Policy field was malformed
    QString limitError;  // the whole RateLimit field was malformed
    QStringList skipped; // members left out, with why

    bool isPresent() const { return policyRaw.has_value() || limitRaw.has_value(); }

    // The server's wait: the longest `t` among the policies with no quota left
    // (r=0), since all of them must have recovered. nullopt without such a policy.
    std::optional<qint64> exhaustedWaitSeconds() const;
    // The advertised policy of that name, if any.
    const RateLimitPolicyItem *policyNamed(const QString &name) const;

    QJsonObject toJson() const;

    static RateLimitHeaders parse(const HttpHeaders &headers);
};

} // namespace cooldown
