// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace cooldown {

enum class Jitter
{
    Full,
    Equal,
    Decorrelated,
    None
};
enum class OnDeadline
{
    Fail,
    Park
};
enum class RetryNonIdempotent
{
    Never,
    WithKey,
    Always
};

// A named retry profile of the workspace config ("retry_profiles" in the README's workspace
// format). Field names and defaults are the config's; seconds may be fractional.
struct RetryProfile
{
    int maxAttempts = 6;
    double baseSeconds = 1;
    double capSeconds = 60;
    double deadlineSeconds = 900; // 0: no deadline
    Jitter jitter = Jitter::Full;
    double spreadSeconds = 1;
    double maxRetryAfterSeconds = 21600;
    OnDeadline onDeadline = OnDeadline::Fail;
    RetryNonIdempotent retryNonIdempotent = RetryNonIdempotent::WithKey;
    bool throttleCountsAsAttempt = true;

    // Sets one field by its config name. On a bad name or value returns false and
    // says what was expected in *error (without the location, which the caller knows).
    bool setField(const QString &name, const QJsonValue &value, QString *error);
    // The same from "name=value" text, as `--set` takes it.
    bool setFieldFromText(const QString &assignment, QString *error);

    // Every field, as the config writes them.
    QJsonObject toJson() const;
    static QStringList fieldNames();

    friend bool operator==(const RetryProfile &a, const RetryProfile &b);
};

const char *textOf(Jitter jitter);
const char *textOf(OnDeadline onDeadline);
const char *textOf(RetryNonIdempotent policy);

} // namespace cooldown
