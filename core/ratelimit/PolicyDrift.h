// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/RateLimitHeaders.h"
#include "core/ratelimit/RateLimitPolicy.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// A difference between the policy Cooldown is configured with and the one the server
// advertises in RateLimit-Policy (e.g. the server allows 50 per 60 s, config says 120).
struct PolicyDrift
{
    QString policyId;
    QString partitionKey;
    qint64 policyVersion = 1;
    QuotaUnit configuredUnit = QuotaUnit::Request;
    qint64 configuredLimit = 0;
    qint64 configuredWindowMs = 0;
    RateLimitPolicyItem advertised; // the server's policy it was compared with
    QStringList differences;        // "quota: server 50, configured 120", ...
    qint64 observedAtMs = 0;

    bool isDrift() const { return !differences.isEmpty(); }
    // The server allows less than the configuration assumes: expect 429s.
    bool serverIsStricter() const;
    QJsonObject toJson() const;

    // Picks the advertised policy that corresponds to `configured` (same name as the
    // policy_id; else the only one; else one with the same window; else the strictest
    // rate) and compares quota unit, quota and window. nullopt without any advertised
    // policy to compare with.
    static std::optional<PolicyDrift> compare(const RateLimitPolicy &configured,
                                              const QList<RateLimitPolicyItem> &advertised);
};

// Remembers the latest comparison per (policy, partition key) and signals when a drift
// appears, changes or goes away, so that the UI can show it without polling.
class PolicyDriftMonitor final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PolicyDriftMonitor)

public:
    explicit PolicyDriftMonitor(QObject *parent = nullptr);

    // Compares what a response advertised; a response without RateLimit-Policy
    // (or with a malformed one) changes nothing.
    void observe(const RateLimitPolicy &configured, const QString &partitionKey,
                 const RateLimitHeaders &headers, qint64 nowMs);

    std::optional<PolicyDrift> drift(const QString &policyId, const QString &partitionKey) const;
    QList<PolicyDrift> drifts() const;

signals:
    void driftDetected(const cooldown::PolicyDrift &drift); // new or changed
    void driftResolved(const QString &policyId, const QString &partitionKey);

private:
    QHash<QString, PolicyDrift> m_drifts;
};

} // namespace cooldown
