// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"
#include "core/http/XRateLimit.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cooldown {

// What one response says about the client's quota, in whichever of the fields in use
// the server speaks: the IETF draft's `RateLimit` / `RateLimit-Policy` (revision 8
// and later: named items with r, t, q, w, pk; revision 7: `RateLimit: limit=5,
// remaining=4, reset=10` with `RateLimit-Policy: 5;w=10`; revision 6: separate
// `RateLimit-Limit`, `-Remaining`, `-Reset`), or the de-facto `X-RateLimit-*`. The
// first of those that states a remaining count is taken, in that order. A statement
// is what the engine learns a server's limit from (core/ratelimit/ServerWindow.h).
struct QuotaStatement
{
    QString format;          // "draft-8", "draft-7", "draft-6" or "x-ratelimit"
    QString name;            // the server's name for the policy, when it gives one
    QByteArray partitionKey; // the server's pk, when it gives one
    qint64 quota = 0;        // units per window; 0 when not stated
    qint64 windowMs = 0;     // the window; 0 when not stated
    qint64 remaining = 0;    // units left in the current window
    qint64 resetAtMs = -1;   // when the current window ends, on the caller's clock; -1: not stated
    QString fields;          // the header lines it was read from, as received

    QJsonObject toJson() const;

    // nowMs: the caller's clock, for the relative resets. xRateLimitReset: how the
    // X-RateLimit-Reset of this partition is read (see XRateLimit).
    static std::optional<QuotaStatement>
    fromHeaders(const HttpHeaders &headers, qint64 nowMs,
                XRateLimitResetMeaning xRateLimitReset = XRateLimitResetMeaning::Auto);
};

} // namespace cooldown
