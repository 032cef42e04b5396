// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/PolicyDrift.h"

#include "core/Logging.h"

#include <QJsonArray>

#include <algorithm>

namespace cooldown {

namespace {

// The draft's quota units, in this configuration's words.
std::optional<QuotaUnit> unitFromServer(const QString &unit)
{
    if (unit.isEmpty() || unit == QLatin1String("request"))
        return QuotaUnit::Request;
    if (unit == QLatin1String("content-bytes"))
        return QuotaUnit::Byte;
    if (unit == QLatin1String("concurrent-requests"))
        return QuotaUnit::Concurrency;
    return std::nullopt;
}

double ratePerSecond(const RateLimitPolicyItem &item)
{
    if (!item.windowSeconds || *item.windowSeconds == 0)
        return double(item.quota);
    return double(item.quota) / double(*item.windowSeconds);
}

QString keyOf(const QString &policyId, const QString &partitionKey)
{
    return policyId + QChar(0) + partitionKey;
}

} // namespace

bool PolicyDrift::serverIsStricter() const
{
    if (configuredWindowMs <= 0 || !advertised.windowSeconds || *advertised.windowSeconds == 0)
        return advertised.quota < configuredLimit;
    const double configuredRate = double(configuredLimit) * 1000.0 / double(configuredWindowMs);
    return ratePerSecond(advertised) < configuredRate;
}

QJsonObject PolicyDrift::toJson() const
{
    return QJsonObject{
        {QStringLiteral("policy_id"), policyId},
        {QStringLiteral("partition_key"), partitionKey},
        {QStringLiteral("policy_version"), double(policyVersion)},
        {QStringLiteral("configured"),
         QJsonObject{{QStringLiteral("quota_unit"), QLatin1String(textOf(configuredUnit))},
                     {QStringLiteral("limit"), double(configuredLimit)},
                     {QStringLiteral("window_seconds"), double(configuredWindowMs) / 1000.0}}},
        {QStringLiteral("advertised"), advertised.toJson()},
        {QStringLiteral("differences"), QJsonArray::fromStringList(differences)},
        {QStringLiteral("server_is_stricter"), serverIsStricter()},
    };
}

std::optional<PolicyDrift> PolicyDrift::compare(const RateLimitPolicy &configured,
                                                const QList<RateLimitPolicyItem> &advertised)
{
    if (advertised.isEmpty())
        return std::nullopt;
    const RateLimitPolicyItem *match = nullptr;
    for (const RateLimitPolicyItem &item : advertised) {
        if (item.name == configured.policyId)
            match = &item;
    }
    if (!match && advertised.size() == 1)
        match = &advertised.front();
    if (!match && configured.windowMs > 0) {
        for (const RateLimitPolicyItem &item : advertised) {
            if (item.windowSeconds && *item.windowSeconds * 1000 == configured.windowMs)
                match = &item;
        }
    }
    if (!match) {
        match = &*std::min_element(advertised.begin(), advertised.end(),
                                   [](const RateLimitPolicyItem &a, const RateLimitPolicyItem &b) {
                                       return ratePerSecond(a) < ratePerSecond(b);
                                   });
    }

    PolicyDrift drift;
    drift.policyId = configured.policyId;
    drift.policyVersion = configured.policyVersion;
    drift.configuredUnit = configured.quotaUnit;
    drift.configuredLimit = configured.limit;
    drift.configuredWindowMs = configured.windowMs;
    drift.advertised = *match;

    const auto serverUnit = unitFromServer(match->quotaUnit);
    if (!serverUnit || *serverUnit != configured.quotaUnit) {
        drift.differences.append(
            QStringLiteral("quota unit: server %1, configured %2")
                .arg(match->quotaUnit, QLatin1String(textOf(configured.quotaUnit))));
    }
    if (match->quota != configured.limit) {
        drift.differences.append(QStringLiteral("quota: server %1, configured %2")
                                     .arg(match->quota)
                                     .arg(configured.limit));
    }
    if (match->windowSeconds && configured.windowMs > 0 &&
        *match->windowSeconds * 1000 != configured.windowMs) {
        drift.differences.append(QStringLiteral("window: server %1 s, configured %2 s")
                                     .arg(*match->windowSeconds)
                                     .arg(configured.windowSeconds()));
    }
    return drift;
}

PolicyDriftMonitor::PolicyDriftMonitor(QObject *parent) : QObject(parent) {}

void PolicyDriftMonitor::observe(const RateLimitPolicy &configured, const QString &partitionKey,
                                 const RateLimitHeaders &headers, qint64 nowMs)
{
    auto compared = PolicyDrift::compare(configured, headers.policies);
    if (!compared)
        return;
    compared->partitionKey = partitionKey;
    compared->observedAtMs = nowMs;
    const QString key = keyOf(configured.policyId, partitionKey);
    const auto it = m_drifts.constFind(key);
    if (!compared->isDrift()) {
        if (it != m_drifts.constEnd()) {
            m_drifts.remove(key);
            emit driftResolved(configured.policyId, partitionKey);
        }
        return;
    }
    const bool changed = it == m_drifts.constEnd() || it->differences != compared->differences ||
                         it->policyVersion != compared->policyVersion;
    m_drifts.insert(key, *compared);
    if (changed) {
        qCWarning(lcRateLimit).noquote()
            << "policy" << configured.policyId << "partition" << partitionKey
            << "differs from the server's:" << compared->differences.join(QStringLiteral("; "));
        emit driftDetected(*compared);
    }
}

std::optional<PolicyDrift> PolicyDriftMonitor::drift(const QString &policyId,
                                                     const QString &partitionKey) const
{
    const auto it = m_drifts.constFind(keyOf(policyId, partitionKey));
    if (it == m_drifts.constEnd())
        return std::nullopt;
    return *it;
}

QList<PolicyDrift> PolicyDriftMonitor::drifts() const
{
    QList<PolicyDrift> all = m_drifts.values();
    std::sort(all.begin(), all.end(), [](const PolicyDrift &a, const PolicyDrift &b) {
        return keyOf(a.policyId, a.partitionKey) < keyOf(b.policyId, b.partitionKey);
    });
    return all;
}

} // namespace cooldown
