// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace cooldown {

// HTTP-date as RFC 9110 §5.6.7 defines it. Parsing is case-sensitive and accepts
// GMT only; every field is range-checked and the day name must match the date.
struct HttpDate
{
    enum class Form
    {
        ImfFixdate,
        Rfc850,
        Asctime,
        Invalid
    };

    Form form = Form::Invalid;
    qint64 msSinceEpoch = 0; // UTC
    QString error;           // why it is invalid; empty when valid

    bool isValid() const { return form != Form::Invalid; }

    // referenceMs is "now": an RFC 850 two-digit year that would lie more than
    // 50 years after it means the most recent past year with those digits.
    static HttpDate parse(QByteArrayView text, qint64 referenceMs);

    // The date in the given form: IMF-fixdate, the one a sender must generate, unless
    // told otherwise (the obsolete forms are for servers that imitate old ones, as the
    // demo API does). Empty for Form::Invalid.
    static QByteArray format(qint64 msSinceEpoch, Form form = Form::ImfFixdate);
};

const char *textOf(HttpDate::Form form);

// Days since 1970-01-01 of a proleptic Gregorian date (no range checks).
qint64 daysFromCivil(int year, int month, int day);

} // namespace cooldown
