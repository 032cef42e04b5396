// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/XRateLimit.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace cooldown {

// What one unit of a policy's quota counts.
enum class QuotaUnit
{
    Request,     // each send costs 1
    Byte,        // each send costs its request body's bytes
    Concurrency, // each send holds a permit until its exchange ends
};
const char *textOf(QuotaUnit unit);
std::optional<QuotaUnit> quotaUnitFromString(QStringView text);

// How a partition spends a quota whose window the server states (RateLimit's `t`,
// X-RateLimit-Reset): `burst` sends the window's whole quota as soon as the window
// opens, as a fixed-window server allows; `smooth` keeps to the policy's even pace
// and never goes beyond what the server says remains. Without a stated window both
// keep the even pace.
enum class Pacing
{
    Burst,
    Smooth,
};
const char *textOf(Pacing pacing);
std::optional<Pacing> pacingFromString(QStringView text);

// A client-side rate-limit policy of the workspace config ("policies" in the README's workspace
// format): `limit` units per `window_seconds`, with `burst` more allowed at once. One token bucket
// exists per (policy, partition key).
struct RateLimitPolicy
{
    // Limits that keep the bucket's integer arithmetic exact and far from overflow.
    static constexpr qint64 kMaxLimit = 1'000'000'000'000LL;       // units per window
    static constexpr qint64 kMaxWindowSeconds = 366LL * 24 * 3600; // one year

    QString policyId;
    QString partition; // the name of the partitioning dimension, e.g. "project_id"
    QString resource;  // a path or prefix the policy covers; empty: any
    QByteArray method; // upper case; empty: any
    QuotaUnit quotaUnit = QuotaUnit::Request;
    qint64 limit = 0;    // units per window; for concurrency, the permits
    qint64 windowMs = 0; // window_seconds in ms; 0 for concurrency without a window
    qint64 burst = 0;    // extra units available at once
    qint64 policyVersion = 1;
    XRateLimitResetMeaning xRateLimitReset = XRateLimitResetMeaning::Auto;
    Pacing pacing = Pacing::Burst;

    double windowSeconds() const { return double(windowMs) / 1000.0; }

    // Reads and validates one policy object. path is where it sits in the config
    // ("policies[0]"); every refusal names the member's path and what was expected.
    static std::optional<RateLimitPolicy> fromJson(const QJsonObject &object, const QString &path,
                                                   QString *error);
    // The whole "policies" array: each entry, and policy_id unique.
    static std::optional<QList<RateLimitPolicy>> listFromJson(const QJsonArray &array,
                                                              const QString &path, QString *error);
    static QStringList fieldNames();
    QJsonObject toJson() const;

    friend bool operator==(const RateLimitPolicy &a, const RateLimitPolicy &b);
};

} // namespace cooldown
