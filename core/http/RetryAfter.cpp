// SPDX-License-Identifier: Apache-2.0
#include "core/http/RetryAfter.h"

#include <algorithm>
#include <cstdlib>

namespace cooldown {

namespace {

bool isOws(char c)
{
    return c == ' ' || c == '\t';
}

QByteArrayView trimmed(QByteArrayView v)
{
    while (!v.isEmpty() && isOws(v.front()))
        v = v.sliced(1);
    while (!v.isEmpty() && isOws(v.back()))
        v.chop(1);
    return v;
}

RetryAfter::Form formOf(HttpDate::Form form)
{
    switch (form) {
    case HttpDate::Form::ImfFixdate:
        return RetryAfter::Form::ImfFixdate;
    case HttpDate::Form::Rfc850:
        return RetryAfter::Form::Rfc850;
    case HttpDate::Form::Asctime:
        return RetryAfter::Form::Asctime;
    case HttpDate::Form::Invalid:
        break;
    }
    return RetryAfter::Form::Invalid;
}

} // namespace

RetryAfter RetryAfter::parse(const std::optional<QByteArray> &raw, qint64 nowMs,
                             const std::optional<QByteArray> &responseDate)
{
    RetryAfter result;
    if (!raw)
        return result;
    result.raw = *raw;
    const QByteArrayView value = trimmed(*raw);
    if (value.isEmpty()) {
        result.form = Form::Invalid;
        result.error = QStringLiteral("empty value");
        return result;
    }

    const char first = value.front();
    if (first >= '0' && first <= '9') {
        qint64 seconds = 0;
        for (const char c : value) {
            if (c < '0' || c > '9') {
                result.form = Form::Invalid;
                result.saturated = false; // an invalid value has no size to report
                result.error = QStringLiteral("delay-seconds must be ASCII digits only, found '%1'")
                                   .arg(QLatin1Char(c));
                return result;
            }
            if (!result.saturated) {
                seconds = seconds * 10 + (c - '0');
                if (seconds > kMaxSeconds) {
                    seconds = kMaxSeconds;
                    result.saturated = true;
                }
            }
        }
        result.form = Form::Delta;
        result.waitMs = seconds * 1000;
        return result;
    }

    const HttpDate date = HttpDate::parse(value, nowMs);
    if (!date.isValid()) {
        result.form = Form::Invalid;
        if (first == '+' || first == '-' || first == '.')
            result.error = QStringLiteral("delay-seconds must be ASCII digits only");
        else
            result.error = date.error;
        return result;
    }
    result.form = formOf(date.form);

    qint64 reference = nowMs;
    if (responseDate) {
        const HttpDate serverNow = HttpDate::parse(trimmed(*responseDate), nowMs);
        if (serverNow.isValid() && std::llabs(serverNow.msSinceEpoch - nowMs) <= kMaxDateSkewMs) {
            reference = serverNow.msSinceEpoch;
            result.measuredAgainstDate = true;
        }
    }
    // A date in the past means "now".
    result.waitMs = std::max<qint64>(0, date.msSinceEpoch - reference);
    return result;
}

const char *textOf(RetryAfter::Form form)
{
    switch (form) {
    case RetryAfter::Form::Absent:
        return "absent";
    case RetryAfter::Form::Delta:
        return "delta";
    case RetryAfter::Form::ImfFixdate:
        return "imf-fixdate";
    case RetryAfter::Form::Rfc850:
        return "rfc850";
    case RetryAfter::Form::Asctime:
        return "asctime";
    case RetryAfter::Form::Invalid:
        break;
    }
    return "invalid";
}

} // namespace cooldown
