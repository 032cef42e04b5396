// SPDX-License-Identifier: Apache-2.0
#include "core/http/RateLimitHeaders.h"

#include "core/http/StructuredFields.h"

#include <QJsonArray>

namespace cooldown {

namespace sf = StructuredFields;

namespace {

// The draft names policies with sf-strings; earlier revisions used tokens, and
// accepting those costs nothing and loses no information.
std::optional<QString> policyName(const sf::Member &member)
{
    if (member.isInnerList)
        return std::nullopt;
    if (member.value.isString() || member.value.isToken())
        return QString::fromLatin1(member.value.toBytes());
    return std::nullopt;
}

// A parameter that must be a non-negative Integer. Absent: nullopt with ok = true.
std::optional<qint64> nonNegativeInteger(const sf::Parameters &params, const char *key, bool *ok)
{
    const sf::BareItem *value = params.find(key);
    if (!value)
        return std::nullopt;
    if (!value->isInteger() || value->toInteger() < 0) {
        *ok = false;
        return std::nullopt;
    }
    return value->toInteger();
}

std::optional<QByteArray> partitionKey(const sf::Parameters &params, bool *ok)
{
    const sf::BareItem *value = params.find("pk");
    if (!value)
        return std::nullopt;
    if (!value->isByteSequence()) {
        *ok = false;
        return std::nullopt;
    }
    return value->toBytes();
}

QJsonValue optionalNumber(const std::optional<qint64> &value)
{
    return value ? QJsonValue(double(*value)) : QJsonValue(QJsonValue::Null);
}

QJsonValue optionalBytes(const std::optional<QByteArray> &value)
{
    // Partition keys are opaque bytes; base64 keeps them printable and exact.
    return value ? QJsonValue(QString::fromLatin1(value->toBase64()))
                 : QJsonValue(QJsonValue::Null);
}

QJsonValue rawOrNull(const std::optional<QByteArray> &raw)
{
    return raw ? QJsonValue(QString::fromLatin1(*raw)) : QJsonValue(QJsonValue::Null);
}

QJsonValue textOrNull(const QString &text)
{
    return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
}

} // namespace

QJsonObject RateLimitPolicyItem::toJson() const
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("q"), double(quota)},
        {QStringLiteral("qu"), quotaUnit},
        {QStringLiteral("w"), optionalNumber(windowSeconds)},
        {QStringLiteral("pk"), optionalBytes(partitionKey)},
    };
}

QJsonObject RateLimitItem::toJson() const
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("r"), double(remaining)},
        {QStringLiteral("t"), optionalNumber(resetSeconds)},
        {QStringLiteral("pk"), optionalBytes(partitionKey)},
    };
}

std::optional<qint64> RateLimitHeaders::exhaustedWaitSeconds() const
{
    std::optional<qint64> wait;
    for (const RateLimitItem &item : limits) {
        if (item.remaining == 0 && item.resetSeconds)
            wait = std::max(wait.value_or(0), *item.resetSeconds);
    }
    return wait;
}

const RateLimitPolicyItem *RateLimitHeaders::policyNamed(const QString &name) const
{
    for (const RateLimitPolicyItem &item : policies) {
        if (item.name == name)
            return &item;
    }
    return nullptr;
}

QJsonObject RateLimitHeaders::toJson() const
{
    QJsonArray policyArray;
    for (const RateLimitPolicyItem &item : policies)
        policyArray.append(item.toJson());
    QJsonArray limitArray;
    for (const RateLimitItem &item : limits)
        limitArray.append(item.toJson());
    QJsonObject json{
        {QStringLiteral("policy_raw"), rawOrNull(policyRaw)},
        {QStringLiteral("policy_error"), textOrNull(policyError)},
        {QStringLiteral("policies"), policyArray},
        {QStringLiteral("raw"), rawOrNull(limitRaw)},
        {QStringLiteral("error"), textOrNull(limitError)},
        {QStringLiteral("limits"), limitArray},
    };
    if (!skipped.isEmpty())
        json.insert(QStringLiteral("skipped"), QJsonArray::fromStringList(skipped));
    return json;
}

RateLimitHeaders RateLimitHeaders::parse(const HttpHeaders &headers)
{
    RateLimitHeaders result;
    result.policyRaw = headers.value("RateLimit-Policy");
    result.limitRaw = headers.value("RateLimit");

    if (result.policyRaw) {
        QString error;
        const auto list = sf::parseList(*result.policyRaw, &error);
        if (!list)
            result.policyError = QStringLiteral("RateLimit-Policy: %1").arg(error);
        for (qsizetype i = 0; list && i < list->size(); ++i) {
            const sf::Member &member = list->at(i);
            const auto name = policyName(member);
            bool ok = name.has_value();
            RateLimitPolicyItem item;
            const auto quota = nonNegativeInteger(member.parameters, "q", &ok);
            item.windowSeconds = nonNegativeInteger(member.parameters, "w", &ok);
            item.partitionKey = partitionKey(member.parameters, &ok);
            item.quotaUnit = QStringLiteral("request");
            if (const sf::BareItem *unit = member.parameters.find("qu")) {
                if (unit->isString() || unit->isToken())
                    item.quotaUnit = QString::fromLatin1(unit->toBytes());
                else
                    ok = false;
            }
            if (!ok || !quota) {
                result.skipped.append(
                    QStringLiteral("RateLimit-Policy member %1: needs a string name and "
                                   "q as a non-negative integer (w too when given; pk bytes)")
                        .arg(i));
                continue;
            }
            item.name = *name;
            item.quota = *quota;
            result.policies.append(item);
        }
    }

    if (result.limitRaw) {
        QString error;
        const auto list = sf::parseList(*result.limitRaw, &error);
        if (!list)
            result.limitError = QStringLiteral("RateLimit: %1").arg(error);
        for (qsizetype i = 0; list && i < list->size(); ++i) {
            const sf::Member &member = list->at(i);
            const auto name = policyName(member);
            bool ok = name.has_value();
            RateLimitItem item;
            const auto remaining = nonNegativeInteger(member.parameters, "r", &ok);
            item.resetSeconds = nonNegativeInteger(member.parameters, "t", &ok);
            item.partitionKey = partitionKey(member.parameters, &ok);
            if (!ok || !remaining) {
                result.skipped.append(
                    QStringLiteral("RateLimit member %1: needs a string name and r as a "
                                   "non-negative integer (t too when given; pk bytes)")
                        .arg(i));
                continue;
            }
            item.name = *name;
            item.remaining = *remaining;
            result.limits.append(item);
        }
    }
    return result;
}

} // namespace cooldown
