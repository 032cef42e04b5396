// SPDX-License-Identifier: Apache-2.0
#include "core/http/XRateLimit.h"

#include "core/http/HttpDate.h"
#include "core/http/RetryAfter.h"

#include <QDateTime>

#include <algorithm>

namespace cooldown {

namespace {

constexpr qint64 kEpochSecondsAbove = 1'000'000'000LL;          // 2001-09-09 as Unix seconds
constexpr qint64 kEpochMillisecondsAbove = 1'000'000'000'000LL; // ~33658 AD as seconds
constexpr int kMaxDigits = 15;

// Whole ASCII digits, at most 15 of them (no sign, no spaces).
std::optional<qint64> wholeNumber(QByteArrayView text)
{
    if (text.isEmpty() || text.size() > kMaxDigits)
        return std::nullopt;
    qint64 value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

// Seconds with up to three fraction digits, as milliseconds.
std::optional<qint64> secondsAsMs(QByteArrayView text)
{
    const qsizetype dot = text.indexOf('.');
    if (dot < 0) {
        const auto whole = wholeNumber(text);
        return whole ? std::optional<qint64>(*whole * 1000) : std::nullopt;
    }
    const auto whole = wholeNumber(text.first(dot));
    const QByteArrayView fraction = text.sliced(dot + 1);
    if (!whole || fraction.isEmpty() || fraction.size() > 3)
        return std::nullopt;
    const auto fractionValue = wholeNumber(fraction);
    if (!fractionValue)
        return std::nullopt;
    qint64 ms = *fractionValue;
    for (qsizetype i = fraction.size(); i < 3; ++i)
        ms *= 10;
    return *whole * 1000 + ms;
}

// A count field's value: a field that is there but not whole digits is an error, not
// a zero.
std::optional<qint64> countField(const std::optional<QByteArray> &raw, const char *name,
                                 QStringList *errors)
{
    if (!raw)
        return std::nullopt;
    const auto value = wholeNumber(*raw);
    if (!value)
        errors->append(QStringLiteral("%1: expected whole digits").arg(QLatin1String(name)));
    return value;
}

// What an Auto reset means, told by its look: no server says, so the size of its
// digits tells Unix milliseconds, Unix seconds and a delta apart.
XRateLimitResetMeaning resetMeaningByLook(const QByteArray &raw)
{
    const bool numeric = !raw.isEmpty() && raw.front() >= '0' && raw.front() <= '9';
    if (!numeric)
        return XRateLimitResetMeaning::HttpDate;
    const qsizetype dot = raw.indexOf('.');
    const QByteArrayView integral = dot < 0 ? QByteArrayView(raw) : QByteArrayView(raw).first(dot);
    const bool allDigits =
        std::all_of(integral.begin(), integral.end(), [](char c) { return c >= '0' && c <= '9'; });
    // Too long to parse is still recognisably milliseconds; the parse that follows
    // then says what is wrong with it.
    const auto whole = wholeNumber(integral);
    if (allDigits && (integral.size() > kMaxDigits || (whole && *whole > kEpochMillisecondsAbove)))
        return XRateLimitResetMeaning::EpochMs;
    if (whole && *whole > kEpochSecondsAbove)
        return XRateLimitResetMeaning::Epoch;
    return XRateLimitResetMeaning::Delta;
}

// An absolute reset is the server's clock: it is measured against a sane Date, as
// Retry-After is, and against nowMs without one. *dateSane: the Date was used.
qint64 resetReferenceMs(const HttpHeaders &headers, qint64 nowMs, bool *dateSane)
{
    if (const auto date = headers.value("Date")) {
        const HttpDate parsed = HttpDate::parse(*date, nowMs);
        if (parsed.isValid() &&
            std::abs(parsed.msSinceEpoch - nowMs) <= RetryAfter::kMaxDateSkewMs) {
            *dateSane = true;
            return parsed.msSinceEpoch;
        }
    }
    return nowMs;
}

// A delta counts from the response; the others are times on the server's clock.
bool isAbsolute(XRateLimitResetMeaning used)
{
    return used != XRateLimitResetMeaning::Auto && used != XRateLimitResetMeaning::Delta;
}

// The wait until the reset, which may be negative (a reset already past); nothing,
// and why in *errors, when the reset does not read as the meaning used.
std::optional<qint64> waitUntilReset(const QByteArray &raw, XRateLimitResetMeaning used,
                                     qint64 referenceMs, qint64 nowMs, QStringList *errors)
{
    std::optional<qint64> waitMs;
    switch (used) {
    case XRateLimitResetMeaning::Auto:
    case XRateLimitResetMeaning::Delta:
        waitMs = secondsAsMs(raw);
        if (!waitMs)
            errors->append(QStringLiteral("X-RateLimit-Reset: expected seconds (delta)"));
        break;
    case XRateLimitResetMeaning::Epoch:
        if (const auto at = secondsAsMs(raw))
            waitMs = *at - referenceMs;
        else
            errors->append(QStringLiteral("X-RateLimit-Reset: expected Unix seconds (epoch)"));
        break;
    case XRateLimitResetMeaning::EpochMs:
        if (const auto at = wholeNumber(raw))
            waitMs = *at - referenceMs;
        else
            errors->append(
                QStringLiteral("X-RateLimit-Reset: expected Unix milliseconds (epoch-ms)"));
        break;
    case XRateLimitResetMeaning::HttpDate: {
        const HttpDate date = HttpDate::parse(raw, nowMs);
        if (date.isValid())
            waitMs = date.msSinceEpoch - referenceMs;
        else
            errors->append(
                QStringLiteral("X-RateLimit-Reset: expected an HTTP-date (%1)").arg(date.error));
        break;
    }
    }
    return waitMs;
}

QJsonValue numberOrNull(const std::optional<qint64> &value)
{
    return value ? QJsonValue(double(*value)) : QJsonValue(QJsonValue::Null);
}

QJsonValue rawOrNull(const std::optional<QByteArray> &raw)
{
    return raw ? QJsonValue(QString::fromLatin1(*raw)) : QJsonValue(QJsonValue::Null);
}

} // namespace

const char *textOf(XRateLimitResetMeaning meaning)
{
    switch (meaning) {
    case XRateLimitResetMeaning::Auto:
        return "auto";
    case XRateLimitResetMeaning::Delta:
        return "delta";
    case XRateLimitResetMeaning::Epoch:
        return "epoch";
    case XRateLimitResetMeaning::EpochMs:
        return "epoch-ms";
    case XRateLimitResetMeaning::HttpDate:
        return "http-date";
    }
    return "auto";
}

std::optional<XRateLimitResetMeaning> xRateLimitResetMeaningFromString(QStringView text)
{
    for (const auto meaning : {XRateLimitResetMeaning::Auto, XRateLimitResetMeaning::Delta,
                               XRateLimitResetMeaning::Epoch, XRateLimitResetMeaning::EpochMs,
                               XRateLimitResetMeaning::HttpDate}) {
        if (text == QLatin1String(textOf(meaning)))
            return meaning;
    }
    return std::nullopt;
}

QJsonObject XRateLimit::toJson() const
{
    QJsonObject json{
        {QStringLiteral("limit"), numberOrNull(limit)},
        {QStringLiteral("remaining"), numberOrNull(remaining)},
        {QStringLiteral("reset_raw"), rawOrNull(rawReset)},
        {QStringLiteral("reset_meaning"), QLatin1String(textOf(used))},
        {QStringLiteral("configured_meaning"), QLatin1String(textOf(configured))},
        {QStringLiteral("reset_at"),
         resetAtMs
             ? QJsonValue(
                   QDateTime::fromMSecsSinceEpoch(*resetAtMs, Qt::UTC).toString(Qt::ISODateWithMs))
             : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("seconds"),
         resetAtMs ? QJsonValue(double(waitMs) / 1000.0) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("error"),
         error.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(error)},
    };
    if (measuredAgainstDate)
        json.insert(QStringLiteral("measured_against"), QStringLiteral("date"));
    return json;
}

XRateLimit XRateLimit::parse(const HttpHeaders &headers, XRateLimitResetMeaning meaning,
                             qint64 nowMs)
{
    XRateLimit result;
    result.configured = meaning;
    result.used = meaning;
    result.rawLimit = headers.value("X-RateLimit-Limit");
    result.rawRemaining = headers.value("X-RateLimit-Remaining");
    result.rawReset = headers.value("X-RateLimit-Reset");
    QStringList errors;
    result.limit = countField(result.rawLimit, "X-RateLimit-Limit", &errors);
    result.remaining = countField(result.rawRemaining, "X-RateLimit-Remaining", &errors);

    if (result.rawReset) {
        const QByteArray &raw = *result.rawReset;
        if (meaning == XRateLimitResetMeaning::Auto)
            result.used = resetMeaningByLook(raw);
        bool dateSane = false;
        const qint64 referenceMs = resetReferenceMs(headers, nowMs, &dateSane);
        if (const auto waitMs = waitUntilReset(raw, result.used, referenceMs, nowMs, &errors)) {
            // A reset in the past means the quota is back already.
            result.waitMs = std::max<qint64>(0, *waitMs);
            result.resetAtMs = nowMs + result.waitMs;
            result.measuredAgainstDate = isAbsolute(result.used) && dateSane;
        }
    }
    result.error = errors.join(QStringLiteral("; "));
    return result;
}

} // namespace cooldown
