// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// An RFC 9457 problem object from an `application/problem+json` body. Members of the
// wrong JSON type are ignored, as §3.1 says; a body that is not a JSON object is not a
// problem object and never an error of the operation.
struct ProblemDetails
{
    // The problem types of the IETF RateLimit draft that change what Cooldown does.
    enum class Kind
    {
        None,
        QuotaExceeded,
        TemporaryReducedCapacity,
        AbnormalUsageDetected,
        Other
    };

    bool present = false;                         // a problem object was read
    QString type = QStringLiteral("about:blank"); // absent or not a string: about:blank
    QString title;
    std::optional<int> status;
    QString detail;
    QString instance;           // stored as response_instance
    QJsonObject extensions;     // every other member, as sent
    QStringList ignoredMembers; // standard members of the wrong type
    QString error;              // why a problem+json body could not be read (recorded, not fatal)

    Kind kind() const;
    // quota-exceeded's "violated-policies": the names of RateLimit-Policy items.
    QStringList violatedPolicies() const;

    QJsonObject toJson() const;

    // contentType: the response's Content-Type; only application/problem+json is read.
    static ProblemDetails parse(const std::optional<QByteArray> &contentType,
                                const QByteArray &body);
    static ProblemDetails parse(const HttpHeaders &headers, const QByteArray &body);
};

const char *textOf(ProblemDetails::Kind kind);

} // namespace cooldown
