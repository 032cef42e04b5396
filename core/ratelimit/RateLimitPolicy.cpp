// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/RateLimitPolicy.h"

#include "core/http/HttpToken.h"

#include <QSet>

#include <cmath>

namespace cooldown {

namespace {

// The bucket counts in units of (token × window ms); both products must stay far
// below 2^63 so that refills and debts never overflow.
constexpr qint64 kMaxScaled = qint64(1) << 61;

QString join(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

class Reader
{
public:
    Reader(const QJsonObject &object, const QString &path, QString *error)
        : m_object(object), m_path(path), m_error(error)
    {}

    bool ok() const { return m_failed == false; }

    bool fail(const QString &key, const QString &what)
    {
        if (!m_failed && m_error)
            *m_error =
                QStringLiteral("%1: %2").arg(key.isEmpty() ? m_path : join(m_path, key), what);
        m_failed = true;
        return false;
    }

    std::optional<QString> string(const QString &key, bool required)
    {
        const QJsonValue value = m_object.value(key);
        if (value.isUndefined()) {
            if (required)
                fail(key, QStringLiteral("required, expected a string"));
            return std::nullopt;
        }
        if (!value.isString()) {
            fail(key, QStringLiteral("expected a string"));
            return std::nullopt;
        }
        return value.toString();
    }

    // A JSON number that is a whole number within [min, max].
    std::optional<qint64> whole(const QString &key, qint64 min, qint64 max, const QString &expected)
    {
        const QJsonValue value = m_object.value(key);
        if (value.isUndefined())
            return std::nullopt;
        const double d = value.toDouble();
        if (!value.isDouble() || !std::isfinite(d) || d != std::floor(d) || d < double(min) ||
            d > double(max)) {
            fail(key, expected);
            return std::nullopt;
        }
        return qint64(d);
    }

    const QJsonObject &object() const { return m_object; }

private:
    const QJsonObject &m_object;
    QString m_path;
    QString *m_error;
    bool m_failed = false;
};

} // namespace

const char *textOf(QuotaUnit unit)
{
    switch (unit) {
    case QuotaUnit::Request:
        return "request";
    case QuotaUnit::Byte:
        return "byte";
    case QuotaUnit::Concurrency:
        return "concurrency";
    }
    return "request";
}

std::optional<QuotaUnit> quotaUnitFromString(QStringView text)
{
    for (const auto unit : {QuotaUnit::Request, QuotaUnit::Byte, QuotaUnit::Concurrency}) {
        if (text == QLatin1String(textOf(unit)))
            return unit;
    }
    return std::nullopt;
}

const char *textOf(Pacing pacing)
{
    return pacing == Pacing::Smooth ? "smooth" : "burst";
}

std::optional<Pacing> pacingFromString(QStringView text)
{
    if (text == u"burst")
        return Pacing::Burst;
    if (text == u"smooth")
        return Pacing::Smooth;
    return std::nullopt;
}

QStringList RateLimitPolicy::fieldNames()
{
    return {QStringLiteral("policy_id"),      QStringLiteral("partition"),
            QStringLiteral("resource"),       QStringLiteral("method"),
            QStringLiteral("quota_unit"),     QStringLiteral("limit"),
            QStringLiteral("window_seconds"), QStringLiteral("burst"),
            QStringLiteral("policy_version"), QStringLiteral("x_ratelimit_reset"),
            QStringLiteral("pacing")};
}

namespace {

// The phases of RateLimitPolicy::fromJson, in the order they run. Each returns false
// once the reader failed, so that the first error is the one reported; the window is
// read after the amounts because it bounds them.

bool checkKnownKeys(Reader &r)
{
    const QStringList known = RateLimitPolicy::fieldNames();
    for (auto it = r.object().begin(); it != r.object().end(); ++it) {
        if (!known.contains(it.key())) {
            return r.fail(it.key(), QStringLiteral("unknown key (expected one of: %1)")
                                        .arg(known.join(QStringLiteral(", "))));
        }
    }
    return true;
}

// What the policy applies to: its id, the partition, resource and method it names and
// the unit it counts.
bool readScope(Reader &r, RateLimitPolicy &policy)
{
    const auto id = r.string(QStringLiteral("policy_id"), true);
    if (!r.ok())
        return false;
    if (id->trimmed().isEmpty())
        return r.fail(QStringLiteral("policy_id"), QStringLiteral("expected a non-empty string"));
    policy.policyId = *id;
    policy.partition = r.string(QStringLiteral("partition"), false).value_or(QString());
    policy.resource = r.string(QStringLiteral("resource"), false).value_or(QString());
    if (const auto method = r.string(QStringLiteral("method"), false)) {
        if (!isToken(*method))
            return r.fail(QStringLiteral("method"), QStringLiteral("expected an HTTP method"));
        policy.method = method->toUpper().toLatin1();
    }
    if (const auto unit = r.string(QStringLiteral("quota_unit"), false)) {
        const auto parsed = quotaUnitFromString(*unit);
        if (!parsed) {
            return r.fail(
                QStringLiteral("quota_unit"),
                QStringLiteral("expected request, byte or concurrency, got '%1'").arg(*unit));
        }
        policy.quotaUnit = *parsed;
    }
    return r.ok();
}

bool readAmounts(Reader &r, RateLimitPolicy &policy)
{
    if (!r.object().contains(QStringLiteral("limit"))) {
        return r.fail(QStringLiteral("limit"),
                      QStringLiteral("required, expected a whole number above 0"));
    }
    const qint64 maxLimit = RateLimitPolicy::kMaxLimit;
    policy.limit =
        r.whole(QStringLiteral("limit"), 1, maxLimit,
                QStringLiteral("expected a whole number above 0 (at most %1)").arg(maxLimit))
            .value_or(0);
    policy.burst =
        r.whole(QStringLiteral("burst"), 0, maxLimit,
                QStringLiteral("expected a whole number, 0 or more (at most %1)").arg(maxLimit))
            .value_or(0);
    policy.policyVersion = r.whole(QStringLiteral("policy_version"), 1, maxLimit,
                                   QStringLiteral("expected a whole number above 0"))
                               .value_or(1);
    return r.ok();
}

// The window, and whether the amounts fit the bucket's arithmetic over it. A
// concurrency limit counts permits, not units per time: its window is optional.
bool readWindow(Reader &r, RateLimitPolicy &policy)
{
    const QString windowKey = QStringLiteral("window_seconds");
    const QJsonValue window = r.object().value(windowKey);
    if (window.isUndefined()) {
        if (policy.quotaUnit != QuotaUnit::Concurrency)
            return r.fail(windowKey, QStringLiteral("required, expected a number above 0"));
    } else {
        const double seconds = window.toDouble();
        const double ms = std::round(seconds * 1000.0);
        if (!window.isDouble() || !std::isfinite(seconds) || ms < 1)
            return r.fail(windowKey, QStringLiteral("expected a number above 0"));
        if (seconds > double(RateLimitPolicy::kMaxWindowSeconds)) {
            return r.fail(windowKey, QStringLiteral("expected at most %1 seconds (one year)")
                                         .arg(RateLimitPolicy::kMaxWindowSeconds));
        }
        policy.windowMs = qint64(ms);
    }
    if (policy.quotaUnit != QuotaUnit::Concurrency &&
        (std::max(policy.limit, policy.burst) + 1) > kMaxScaled / policy.windowMs) {
        return r.fail(
            QStringLiteral("limit"),
            QStringLiteral("limit or burst too large for a window of %1 s; use a shorter window")
                .arg(policy.windowSeconds()));
    }
    return true;
}

// How the X-RateLimit-Reset header is read for this policy, and how its units are spent.
bool readResetAndPacing(Reader &r, RateLimitPolicy &policy)
{
    if (const auto meaning = r.string(QStringLiteral("x_ratelimit_reset"), false)) {
        const auto parsed = xRateLimitResetMeaningFromString(*meaning);
        if (!parsed) {
            return r.fail(
                QStringLiteral("x_ratelimit_reset"),
                QStringLiteral("expected auto, delta, epoch, epoch-ms or http-date, got '%1'")
                    .arg(*meaning));
        }
        policy.xRateLimitReset = *parsed;
    }
    if (const auto pacing = r.string(QStringLiteral("pacing"), false)) {
        const auto parsed = pacingFromString(*pacing);
        if (!parsed) {
            return r.fail(QStringLiteral("pacing"),
                          QStringLiteral("expected burst or smooth, got '%1'").arg(*pacing));
        }
        policy.pacing = *parsed;
    }
    return r.ok();
}

} // namespace

std::optional<RateLimitPolicy> RateLimitPolicy::fromJson(const QJsonObject &object,
                                                         const QString &path, QString *error)
{
    Reader r(object, path, error);
    RateLimitPolicy policy;
    if (!checkKnownKeys(r) || !readScope(r, policy) || !readAmounts(r, policy) ||
        !readWindow(r, policy) || !readResetAndPacing(r, policy))
        return std::nullopt;
    return policy;
}

std::optional<QList<RateLimitPolicy>>
RateLimitPolicy::listFromJson(const QJsonArray &array, const QString &path, QString *error)
{
    QList<RateLimitPolicy> policies;
    QSet<QString> seen;
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString itemPath = QStringLiteral("%1[%2]").arg(path).arg(i);
        if (!array.at(i).isObject()) {
            if (error)
                *error = QStringLiteral("%1: expected an object").arg(itemPath);
            return std::nullopt;
        }
        const auto policy = fromJson(array.at(i).toObject(), itemPath, error);
        if (!policy)
            return std::nullopt;
        if (seen.contains(policy->policyId)) {
            if (error)
                *error = QStringLiteral("%1.policy_id: '%2' is used by an earlier policy")
                             .arg(itemPath, policy->policyId);
            return std::nullopt;
        }
        seen.insert(policy->policyId);
        policies.append(*policy);
    }
    return policies;
}

QJsonObject RateLimitPolicy::toJson() const
{
    QJsonObject json{
        {QStringLiteral("policy_id"), policyId},
        {QStringLiteral("quota_unit"), QLatin1String(textOf(quotaUnit))},
        {QStringLiteral("limit"), double(limit)},
        {QStringLiteral("burst"), double(burst)},
        {QStringLiteral("policy_version"), double(policyVersion)},
        {QStringLiteral("x_ratelimit_reset"), QLatin1String(textOf(xRateLimitReset))},
    };
    if (windowMs > 0)
        json.insert(QStringLiteral("window_seconds"), windowSeconds());
    if (!partition.isEmpty())
        json.insert(QStringLiteral("partition"), partition);
    if (!resource.isEmpty())
        json.insert(QStringLiteral("resource"), resource);
    if (!method.isEmpty())
        json.insert(QStringLiteral("method"), QString::fromLatin1(method));
    // Only when not the default, so that a definition stored before pacing existed
    // still reads as the same policy.
    if (pacing != Pacing::Burst)
        json.insert(QStringLiteral("pacing"), QLatin1String(textOf(pacing)));
    return json;
}

bool operator==(const RateLimitPolicy &a, const RateLimitPolicy &b)
{
    return a.policyId == b.policyId && a.partition == b.partition && a.resource == b.resource &&
           a.method == b.method && a.quotaUnit == b.quotaUnit && a.limit == b.limit &&
           a.windowMs == b.windowMs && a.burst == b.burst && a.policyVersion == b.policyVersion &&
           a.xRateLimitReset == b.xRateLimitReset && a.pacing == b.pacing;
}

} // namespace cooldown
