// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cooldown {

// What a server means by X-RateLimit-Reset. No standard exists, so the meaning is
// configured per policy and every resolution records the meaning it used.
enum class XRateLimitResetMeaning
{
    Auto,     // digits above 10^12: epoch-ms; above 10^9: epoch; else delta; a date: http-date
    Delta,    // seconds from now
    Epoch,    // Unix seconds
    EpochMs,  // Unix milliseconds
    HttpDate, // an HTTP-date
};
const char *textOf(XRateLimitResetMeaning meaning);
// "auto", "delta", "epoch", "epoch-ms", "http-date"; nullopt for anything else.
std::optional<XRateLimitResetMeaning> xRateLimitResetMeaningFromString(QStringView text);

// The de-facto X-RateLimit-Limit / -Remaining / -Reset fields.
struct XRateLimit
{
    std::optional<QByteArray> rawLimit;
    std::optional<QByteArray> rawRemaining;
    std::optional<QByteArray> rawReset;
    std::optional<qint64> limit;
    std::optional<qint64> remaining;

    XRateLimitResetMeaning configured = XRateLimitResetMeaning::Auto;
    XRateLimitResetMeaning used = XRateLimitResetMeaning::Auto; // never Auto once resolved
    std::optional<qint64> resetAtMs;  // the reset as a UTC time, when it parsed
    qint64 waitMs = 0;                // from now until resetAtMs; never negative
    bool measuredAgainstDate = false; // an absolute reset measured against the response Date
    QString error;                    // why a present field could not be used

    bool isPresent() const { return rawLimit || rawRemaining || rawReset; }
    // The server's wait: only when nothing remains and the reset parsed.
    bool givesWait() const { return remaining == 0 && resetAtMs.has_value(); }

    QJsonObject toJson() const;

    // responseDate: an absolute reset is the server's clock, so, like Retry-After,
    // it is measured against a sane response Date when there is one.
    static XRateLimit parse(const HttpHeaders &headers, XRateLimitResetMeaning meaning,
                            qint64 nowMs);
};

} // namespace cooldown
