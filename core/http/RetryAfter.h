// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpDate.h"

#include <QByteArray>
#include <QString>

#include <limits>
#include <optional>

namespace cooldown {

// The server's Retry-After field (RFC 9110 §10.2.3), parsed strictly:
// delay-seconds are ASCII digits only, an HTTP-date is any of its three forms.
// A malformed value is reported with a reason and never guessed at.
struct RetryAfter
{
    enum class Form
    {
        Absent,
        Delta,
        ImfFixdate,
        Rfc850,
        Asctime,
        Invalid
    };

    // Anything above this saturates, so that arithmetic in milliseconds never overflows.
    static constexpr qint64 kMaxSeconds = std::numeric_limits<qint64>::max() / 1000 / 4;

    Form form = Form::Absent;
    QByteArray raw;    // the field value exactly as received
    qint64 waitMs = 0; // the server's wait before any spread or cap; >= 0
    bool saturated = false;
    bool measuredAgainstDate = false; // an HTTP-date measured against the response Date
    QString error;                    // why it is Invalid

    bool isPresent() const { return form != Form::Absent; }
    bool isValid() const { return form != Form::Absent && form != Form::Invalid; }

    // raw: the field value, or nullopt when the response had none.
    // nowMs: the client's clock. responseDate: the response's Date field, if any;
    // when it is sane, an HTTP-date is measured against it instead of nowMs, so that
    // the server's clock skew does not shorten or stretch the wait.
    static RetryAfter parse(const std::optional<QByteArray> &raw, qint64 nowMs,
                            const std::optional<QByteArray> &responseDate = std::nullopt);

    // A Date field is sane when it is a valid HTTP-date within this distance of
    // the client's clock; further off, one of the two clocks is broken and the
    // client's own is the safer reference.
    static constexpr qint64 kMaxDateSkewMs = 24LL * 3600 * 1000;
};

const char *textOf(RetryAfter::Form form);

} // namespace cooldown
