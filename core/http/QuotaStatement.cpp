// SPDX-License-Identifier: Apache-2.0
#include "core/http/QuotaStatement.h"

#include "core/http/RateLimitHeaders.h"
#include "core/http/StructuredFields.h"

#include <limits>

namespace cooldown {

namespace sf = StructuredFields;

namespace {

constexpr qint64 kMaxSeconds = qint64(10) * 366 * 24 * 3600; // a reset further off is nonsense

std::optional<qint64> count(const std::optional<QByteArray> &field)
{
    if (!field)
        return std::nullopt;
    const auto item = sf::parseItem(*field);
    if (!item || !item->value.isInteger() || item->value.toInteger() < 0)
        return std::nullopt;
    return item->value.toInteger();
}

qint64 resetAt(qint64 nowMs, qint64 seconds)
{
    return seconds > kMaxSeconds ? -1 : nowMs + seconds * 1000;
}

QString fieldLine(const char *name, const std::optional<QByteArray> &value)
{
    return value ? QString::fromLatin1(name) + QStringLiteral(": ") + QString::fromLatin1(*value) +
                       QLatin1Char('\n')
                 : QString();
}

// Revision 7's and 6's `RateLimit-Policy: 5;w=10` (a quota with a window), for the
// statement's quota and window when the server gave no other.
void policyOfRevision7(const std::optional<QByteArray> &field, QuotaStatement *statement)
{
    if (!field)
        return;
    const auto list = sf::parseList(*field);
    if (!list)
        return;
    for (const sf::Member &member : *list) {
        if (member.isInnerList || !member.value.isInteger() || member.value.toInteger() <= 0)
            continue;
        if (statement->quota > 0 && member.value.toInteger() != statement->quota)
            continue;
        statement->quota = member.value.toInteger();
        if (const sf::BareItem *w = member.parameters.find("w");
            w && w->isInteger() && w->toInteger() > 0 && w->toInteger() <= kMaxSeconds)
            statement->windowMs = w->toInteger() * 1000;
        return;
    }
}

std::optional<QuotaStatement> revision8(const HttpHeaders &headers, qint64 nowMs)
{
    const RateLimitHeaders parsed = RateLimitHeaders::parse(headers);
    const RateLimitItem *tightest = nullptr;
    for (const RateLimitItem &item : parsed.limits) {
        if (!tightest || item.remaining < tightest->remaining)
            tightest = &item;
    }
    if (!tightest)
        return std::nullopt;
    QuotaStatement s;
    s.format = QStringLiteral("draft-8");
    s.name = tightest->name;
    s.partitionKey = tightest->partitionKey.value_or(QByteArray());
    s.remaining = tightest->remaining;
    if (tightest->resetSeconds)
        s.resetAtMs = resetAt(nowMs, *tightest->resetSeconds);
    if (const RateLimitPolicyItem *policy = parsed.policyNamed(tightest->name)) {
        s.quota = policy->quota;
        s.windowMs = policy->windowSeconds && *policy->windowSeconds <= kMaxSeconds
                         ? *policy->windowSeconds * 1000
                         : 0;
        if (s.partitionKey.isEmpty())
            s.partitionKey = policy->partitionKey.value_or(QByteArray());
    }
    s.fields =
        fieldLine("RateLimit-Policy", parsed.policyRaw) + fieldLine("RateLimit", parsed.limitRaw);
    return s;
}

std::optional<QuotaStatement> revision7(const HttpHeaders &headers, qint64 nowMs)
{
    const auto field = headers.value("RateLimit");
    if (!field)
        return std::nullopt;
    const auto dictionary = sf::parseDictionary(*field);
    if (!dictionary)
        return std::nullopt;
    auto integer = [&](const char *key) -> std::optional<qint64> {
        const sf::Member *member = dictionary->find(key);
        if (!member || member->isInnerList || !member->value.isInteger() ||
            member->value.toInteger() < 0)
            return std::nullopt;
        return member->value.toInteger();
    };
    const auto remaining = integer("remaining");
    if (!remaining)
        return std::nullopt;
    QuotaStatement s;
    s.format = QStringLiteral("draft-7");
    s.remaining = *remaining;
    s.quota = integer("limit").value_or(0);
    if (const auto reset = integer("reset"))
        s.resetAtMs = resetAt(nowMs, *reset);
    const auto policy = headers.value("RateLimit-Policy");
    policyOfRevision7(policy, &s);
    s.fields = fieldLine("RateLimit-Policy", policy) + fieldLine("RateLimit", field);
    return s;
}

std::optional<QuotaStatement> revision6(const HttpHeaders &headers, qint64 nowMs)
{
    const auto remainingField = headers.value("RateLimit-Remaining");
    const auto remaining = count(remainingField);
    if (!remaining)
        return std::nullopt;
    const auto limitField = headers.value("RateLimit-Limit");
    const auto resetField = headers.value("RateLimit-Reset");
    const auto policy = headers.value("RateLimit-Policy");
    QuotaStatement s;
    s.format = QStringLiteral("draft-6");
    s.remaining = *remaining;
    s.quota = count(limitField).value_or(0);
    if (const auto reset = count(resetField))
        s.resetAtMs = resetAt(nowMs, *reset);
    policyOfRevision7(policy, &s);
    s.fields = fieldLine("RateLimit-Policy", policy) + fieldLine("RateLimit-Limit", limitField) +
               fieldLine("RateLimit-Remaining", remainingField) +
               fieldLine("RateLimit-Reset", resetField);
    return s;
}

std::optional<QuotaStatement> xRateLimit(const HttpHeaders &headers, qint64 nowMs,
                                         XRateLimitResetMeaning meaning)
{
    const XRateLimit x = XRateLimit::parse(headers, meaning, nowMs);
    if (!x.remaining)
        return std::nullopt;
    QuotaStatement s;
    s.format = QStringLiteral("x-ratelimit");
    s.remaining = *x.remaining;
    s.quota = x.limit.value_or(0);
    if (x.resetAtMs && x.waitMs <= kMaxSeconds * 1000)
        s.resetAtMs = nowMs + x.waitMs;
    s.fields = fieldLine("X-RateLimit-Limit", x.rawLimit) +
               fieldLine("X-RateLimit-Remaining", x.rawRemaining) +
               fieldLine("X-RateLimit-Reset", x.rawReset);
    return s;
}

} // namespace

QJsonObject QuotaStatement::toJson() const
{
    QJsonObject o{{QStringLiteral("format"), format},
                  {QStringLiteral("remaining"), double(remaining)}};
    if (!name.isEmpty())
        o.insert(QStringLiteral("name"), name);
    if (!partitionKey.isEmpty())
        o.insert(QStringLiteral("partition_key"), QString::fromLatin1(partitionKey.toBase64()));
    if (quota > 0)
        o.insert(QStringLiteral("quota"), double(quota));
    if (windowMs > 0)
        o.insert(QStringLiteral("window_seconds"), double(windowMs) / 1000);
    if (resetAtMs >= 0)
        o.insert(QStringLiteral("reset_at_ms"), double(resetAtMs));
    return o;
}

std::optional<QuotaStatement> QuotaStatement::fromHeaders(const HttpHeaders &headers, qint64 nowMs,
                                                          XRateLimitResetMeaning xRateLimitReset)
{
    if (auto s = revision8(headers, nowMs))
        return s;
    if (auto s = revision7(headers, nowMs))
        return s;
    if (auto s = revision6(headers, nowMs))
        return s;
    return xRateLimit(headers, nowMs, xRateLimitReset);
}

} // namespace cooldown
