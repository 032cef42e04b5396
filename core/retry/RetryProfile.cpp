// SPDX-License-Identifier: Apache-2.0
#include "core/retry/RetryProfile.h"

#include "core/NumberText.h"

#include <QCoreApplication>
#include <QStringList>

#include <cmath>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::retry)
};

// The largest wait a profile may name: a year. Beyond it a value is a typo, and
// milliseconds stay far from overflow.
constexpr double kMaxProfileSeconds = 366.0 * 24 * 3600;

bool readSeconds(const QJsonValue &value, double *out, bool allowZero, QString *error)
{
    if (!value.isDouble()) {
        *error = Text::tr("expected a number of seconds");
        return false;
    }
    const double v = value.toDouble();
    if (!std::isfinite(v) || v < 0 || (!allowZero && v == 0) || v > kMaxProfileSeconds) {
        // In seconds and in days: "31622400 (366 days)", not 3.16224e+07.
        const QString most =
            Text::tr("%1 (%2 days)")
                .arg(numberText(kMaxProfileSeconds), numberText(kMaxProfileSeconds / 86400));
        *error = allowZero ? Text::tr("expected seconds between 0 and %1").arg(most)
                           : Text::tr("expected seconds above 0 and at most %1").arg(most);
        return false;
    }
    *out = v;
    return true;
}

template <typename Enum, size_t N>
bool readChoice(const QJsonValue &value, const std::pair<const char *, Enum> (&choices)[N],
                Enum *out, QString *error)
{
    QStringList names;
    for (const auto &choice : choices) {
        if (value.isString() && value.toString() == QLatin1String(choice.first)) {
            *out = choice.second;
            return true;
        }
        names << QLatin1String(choice.first);
    }
    *error = Text::tr("expected one of %1").arg(names.join(QStringLiteral(", ")));
    return false;
}

constexpr std::pair<const char *, Jitter> kJitters[] = {{"full", Jitter::Full},
                                                        {"equal", Jitter::Equal},
                                                        {"decorrelated", Jitter::Decorrelated},
                                                        {"none", Jitter::None}};
constexpr std::pair<const char *, OnDeadline> kOnDeadline[] = {{"fail", OnDeadline::Fail},
                                                               {"park", OnDeadline::Park}};
constexpr std::pair<const char *, RetryNonIdempotent> kNonIdempotent[] = {
    {"never", RetryNonIdempotent::Never},
    {"with_key", RetryNonIdempotent::WithKey},
    {"always", RetryNonIdempotent::Always}};

template <typename Enum, size_t N>
const char *nameOf(Enum value, const std::pair<const char *, Enum> (&choices)[N])
{
    for (const auto &choice : choices) {
        if (choice.second == value)
            return choice.first;
    }
    return "";
}

} // namespace

bool RetryProfile::setField(const QString &name, const QJsonValue &value, QString *error)
{
    if (name == QLatin1String("max_attempts")) {
        const double v = value.toDouble(-1);
        if (!value.isDouble() || v != std::floor(v) || v < 1 || v > 1000) {
            *error = Text::tr("expected a whole number from 1 to 1000");
            return false;
        }
        maxAttempts = int(v);
        return true;
    }
    if (name == QLatin1String("base_seconds"))
        return readSeconds(value, &baseSeconds, false, error);
    if (name == QLatin1String("cap_seconds"))
        return readSeconds(value, &capSeconds, false, error);
    if (name == QLatin1String("deadline_seconds"))
        return readSeconds(value, &deadlineSeconds, true, error);
    if (name == QLatin1String("spread_seconds"))
        return readSeconds(value, &spreadSeconds, true, error);
    if (name == QLatin1String("max_retry_after_seconds"))
        return readSeconds(value, &maxRetryAfterSeconds, false, error);
    if (name == QLatin1String("jitter"))
        return readChoice(value, kJitters, &jitter, error);
    if (name == QLatin1String("on_deadline"))
        return readChoice(value, kOnDeadline, &onDeadline, error);
    if (name == QLatin1String("retry_non_idempotent"))
        return readChoice(value, kNonIdempotent, &retryNonIdempotent, error);
    if (name == QLatin1String("throttle_counts_as_attempt")) {
        if (!value.isBool()) {
            *error = Text::tr("expected true or false");
            return false;
        }
        throttleCountsAsAttempt = value.toBool();
        return true;
    }
    *error = Text::tr("unknown retry profile field '%1' (known: %2)")
                 .arg(name, fieldNames().join(QStringLiteral(", ")));
    return false;
}

bool RetryProfile::setFieldFromText(const QString &assignment, QString *error)
{
    const qsizetype eq = assignment.indexOf(QLatin1Char('='));
    if (eq <= 0) {
        *error = Text::tr("expected name=value, got '%1'").arg(assignment);
        return false;
    }
    const QString name = assignment.left(eq).trimmed();
    const QString text = assignment.mid(eq + 1).trimmed();
    QJsonValue value(text);
    bool isNumber = false;
    const double number = text.toDouble(&isNumber);
    if (isNumber)
        value = QJsonValue(number);
    else if (text == QLatin1String("true") || text == QLatin1String("false"))
        value = QJsonValue(text == QLatin1String("true"));
    QString why;
    if (!setField(name, value, &why)) {
        *error = name.isEmpty() || why.startsWith(QLatin1String("unknown"))
                     ? why
                     : QStringLiteral("%1: %2").arg(name, why);
        return false;
    }
    return true;
}

QJsonObject RetryProfile::toJson() const
{
    return QJsonObject{
        {QStringLiteral("max_attempts"), maxAttempts},
        {QStringLiteral("base_seconds"), baseSeconds},
        {QStringLiteral("cap_seconds"), capSeconds},
        {QStringLiteral("deadline_seconds"), deadlineSeconds},
        {QStringLiteral("jitter"), QLatin1String(textOf(jitter))},
        {QStringLiteral("spread_seconds"), spreadSeconds},
        {QStringLiteral("max_retry_after_seconds"), maxRetryAfterSeconds},
        {QStringLiteral("on_deadline"), QLatin1String(textOf(onDeadline))},
        {QStringLiteral("retry_non_idempotent"), QLatin1String(textOf(retryNonIdempotent))},
        {QStringLiteral("throttle_counts_as_attempt"), throttleCountsAsAttempt},
    };
}

QStringList RetryProfile::fieldNames()
{
    return RetryProfile().toJson().keys();
}

bool operator==(const RetryProfile &a, const RetryProfile &b)
{
    return a.toJson() == b.toJson();
}

const char *textOf(Jitter jitter)
{
    return nameOf(jitter, kJitters);
}

const char *textOf(OnDeadline onDeadline)
{
    return nameOf(onDeadline, kOnDeadline);
}

const char *textOf(RetryNonIdempotent policy)
{
    return nameOf(policy, kNonIdempotent);
}

} // namespace cooldown
