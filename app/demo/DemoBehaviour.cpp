// SPDX-License-Identifier: Apache-2.0
#include "app/demo/DemoBehaviour.h"

#include "core/NumberText.h"

#include <QMap>
#include <QSet>

#include <cmath>
#include <utility>

namespace cooldown::demo {

namespace {

constexpr qint64 kMaxDelayMs = 600'000;
constexpr qint64 kMaxBodyBytes = 64LL * 1024 * 1024;
constexpr qint64 kMaxSeconds = 10LL * 365 * 24 * 3600;
constexpr qint64 kMaxUnixSeconds = 253402300799; // 9999-12-31T23:59:59Z
constexpr qint64 kMaxCount = 1'000'000'000;

const Route kRoutes[] = {
    {"/ok", "", false},
    {"/limited/fixed", "limit=5&window=10", false},
    {"/limited/bucket", "capacity=5&rate=1", false},
    {"/limited/ratelimit", "limit=5&window=10&retry_after=none&headers=draft", false},
    {"/flaky", "fail_first=2&fail_status=502", false},
    {"/maintenance", "maintenance_for=30&retry_after=date", false},
    {"/slow", "delay_ms=200", false},
    {"/hang", "hang=1", false},
    {"/uploads", "require_key=1", true},
    {"/answers/error", "answer=error", false},
    {"/answers/empty", "answer=empty", false},
    {"/answers/items", "answer=items", false},
    {"/answers/text", "body_bytes=64", false},
};

QString reasonFor(const QString &name, const QString &value, const QString &expected)
{
    return QStringLiteral("query parameter '%1' is '%2'; expected %3").arg(name, value, expected);
}

std::optional<double> toFraction(const QString &text, double min, double max)
{
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !std::isfinite(value) || value < min || value > max)
        return std::nullopt;
    return value;
}

bool isPolicyName(const QString &name)
{
    if (name.isEmpty() || name.size() > 64)
        return false;
    for (const QChar c : name) {
        const char16_t u = c.unicode();
        const bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                        (u >= '0' && u <= '9') || u == '-' || u == '_' || u == '.';
        if (!ok)
            return false;
    }
    return true;
}

// Returns the error text when a parameter is unknown or its value is bad.
std::optional<QString> applyParameter(Behaviour &b, const QString &name, const QString &value)
{
    const auto integer = [&](qint64 min, qint64 max, qint64 &out) -> std::optional<QString> {
        const auto parsed = parseInteger(value, min, max);
        if (!parsed)
            return reasonFor(name, value,
                             QStringLiteral("a whole number from %1 to %2").arg(min).arg(max));
        out = *parsed;
        return std::nullopt;
    };
    // Whole seconds, kept in ms.
    const auto seconds = [&](qint64 min, qint64 max, qint64 &outMs) -> std::optional<QString> {
        qint64 parsed = 0;
        if (auto error = integer(min, max, parsed))
            return error;
        outMs = parsed * 1000;
        return std::nullopt;
    };
    const auto fraction = [&](double min, double max, const QString &expected,
                              double &out) -> std::optional<QString> {
        const auto parsed = toFraction(value, min, max);
        if (!parsed)
            return reasonFor(name, value, expected);
        out = *parsed;
        return std::nullopt;
    };
    const auto flag = [&](bool &out) -> std::optional<QString> {
        if (value != QLatin1String("0") && value != QLatin1String("1"))
            return reasonFor(name, value, QStringLiteral("0 or 1"));
        out = value == QLatin1String("1");
        return std::nullopt;
    };

    if (name == QLatin1String("key")) {
        if (value.isEmpty() || value.size() > 200)
            return reasonFor(name, value, QStringLiteral("1 to 200 characters"));
        b.key = value;
        return std::nullopt;
    }
    if (name == QLatin1String("limit")) {
        b.limiter = LimiterKind::FixedWindow;
        return integer(0, kMaxCount, b.limit);
    }
    if (name == QLatin1String("window"))
        return seconds(1, kMaxSeconds, b.windowMs);
    if (name == QLatin1String("capacity")) {
        if (b.limiter != LimiterKind::FixedWindow)
            b.limiter = LimiterKind::TokenBucket;
        return integer(1, kMaxCount, b.capacity);
    }
    if (name == QLatin1String("rate"))
        return fraction(0.001, 1e6, QStringLiteral("tokens per second from 0.001 to 1e6"), b.rate);
    if (name == QLatin1String("retry_after")) {
        static const std::pair<const char *, RetryAfterForm> kForms[] = {
            {"seconds", RetryAfterForm::Seconds}, {"date", RetryAfterForm::ImfFixdate},
            {"rfc850", RetryAfterForm::Rfc850},   {"asctime", RetryAfterForm::Asctime},
            {"none", RetryAfterForm::None},       {"malformed", RetryAfterForm::Malformed},
        };
        for (const auto &[text, form] : kForms) {
            if (value == QLatin1String(text)) {
                b.retryAfter = form;
                return std::nullopt;
            }
        }
        return reasonFor(name, value,
                         QStringLiteral("seconds, date, rfc850, asctime, none or malformed"));
    }
    if (name == QLatin1String("headers")) {
        if (value == QLatin1String("both") || value == QLatin1String("draft") ||
            value == QLatin1String("x") || value == QLatin1String("none")) {
            b.draftHeaders = value == QLatin1String("both") || value == QLatin1String("draft");
            b.xHeaders = value == QLatin1String("both") || value == QLatin1String("x");
            return std::nullopt;
        }
        return reasonFor(name, value, QStringLiteral("both, draft, x or none"));
    }
    if (name == QLatin1String("x_reset")) {
        if (value != QLatin1String("epoch") && value != QLatin1String("delta"))
            return reasonFor(name, value, QStringLiteral("epoch or delta"));
        b.xResetEpoch = value == QLatin1String("epoch");
        return std::nullopt;
    }
    if (name == QLatin1String("policy")) {
        if (!isPolicyName(value))
            return reasonFor(name, value, QStringLiteral("1 to 64 of A-Z a-z 0-9 - _ ."));
        b.policy = value;
        return std::nullopt;
    }
    if (name == QLatin1String("problem")) {
        if (value != QLatin1String("quota-exceeded") &&
            value != QLatin1String("temporary-reduced-capacity") &&
            value != QLatin1String("abnormal-usage-detected") && value != QLatin1String("none"))
            return reasonFor(name, value,
                             QStringLiteral("quota-exceeded, temporary-reduced-capacity, "
                                            "abnormal-usage-detected or none"));
        b.problem = value == QLatin1String("none") ? QString() : value;
        return std::nullopt;
    }
    if (name == QLatin1String("maintenance_for"))
        return seconds(0, kMaxSeconds, b.maintenanceForMs);
    if (name == QLatin1String("maintenance_until"))
        return seconds(0, kMaxUnixSeconds, b.maintenanceUntilMs);
    if (name == QLatin1String("fail_first"))
        return integer(0, kMaxCount, b.failFirst);
    if (name == QLatin1String("fail_rate"))
        return fraction(0.0, 1.0, QStringLiteral("a share from 0 to 1"), b.failRate);
    if (name == QLatin1String("seed")) {
        bool ok = false;
        b.seed = value.toULongLong(&ok);
        return ok ? std::nullopt
                  : std::optional<QString>(
                        reasonFor(name, value, QStringLiteral("a whole number")));
    }
    if (name == QLatin1String("fail_status")) {
        qint64 status = 0;
        if (auto error = integer(500, 504, status))
            return error;
        if (status == 501)
            return reasonFor(name, value, QStringLiteral("500, 502, 503 or 504"));
        b.failStatus = int(status);
        return std::nullopt;
    }
    if (name == QLatin1String("delay_ms"))
        return integer(0, kMaxDelayMs, b.delayMs);
    if (name == QLatin1String("hang"))
        return flag(b.hang);
    if (name == QLatin1String("drop_first"))
        return integer(0, kMaxCount, b.dropFirst);
    if (name == QLatin1String("require_key"))
        return flag(b.requireKey);
    if (name == QLatin1String("body_bytes"))
        return integer(0, kMaxBodyBytes, b.bodyBytes);
    if (name == QLatin1String("answer")) {
        static const QStringList kAnswers = {QStringLiteral("request"), QStringLiteral("error"),
                                             QStringLiteral("empty"), QStringLiteral("items")};
        if (!kAnswers.contains(value))
            return reasonFor(name, value, QStringLiteral("request, error, empty or items"));
        b.answer = value;
        return std::nullopt;
    }
    return QStringLiteral("unknown query parameter '%1'").arg(name);
}

} // namespace

const Route *findRoute(const QString &path)
{
    for (const Route &route : kRoutes) {
        if (path == QLatin1String(route.path))
            return &route;
    }
    return nullptr;
}

std::optional<QString> parseBehaviour(const char *defaults, const QUrlQuery &query, Behaviour &b)
{
    QMap<QString, QString> parameters;
    const QUrlQuery routeDefaults(QString::fromLatin1(defaults));
    for (const auto &[name, value] : routeDefaults.queryItems(QUrl::FullyDecoded))
        parameters.insert(name, value);
    QSet<QString> seen;
    for (const auto &[name, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (seen.contains(name))
            return QStringLiteral("query parameter '%1' is given twice").arg(name);
        seen.insert(name);
        parameters.insert(name, value);
    }
    // "limit" before "capacity": a route that names both is a fixed window.
    for (const char *first : {"limit", "capacity"}) {
        const QString name = QLatin1String(first);
        if (parameters.contains(name)) {
            if (auto error = applyParameter(b, name, parameters.value(name)))
                return error;
        }
    }
    for (auto it = parameters.constBegin(); it != parameters.constEnd(); ++it) {
        if (it.key() == QLatin1String("limit") || it.key() == QLatin1String("capacity"))
            continue;
        if (auto error = applyParameter(b, it.key(), it.value()))
            return error;
    }
    return std::nullopt;
}

std::optional<qint64> parseMaintenanceEnd(const QUrlQuery &query, qint64 nowMs, QString *error)
{
    const bool hasFor = query.hasQueryItem(QStringLiteral("for"));
    const bool hasUntil = query.hasQueryItem(QStringLiteral("until"));
    if (hasFor == hasUntil) {
        *error = QStringLiteral("give exactly one of 'for' (seconds) or 'until' (Unix seconds)");
        return std::nullopt;
    }
    const QString name = hasFor ? QStringLiteral("for") : QStringLiteral("until");
    const QString value = query.queryItemValue(name, QUrl::FullyDecoded);
    const std::optional<qint64> seconds =
        parseInteger(value, 0, hasFor ? kMaxSeconds : kMaxUnixSeconds);
    if (!seconds) {
        *error = reasonFor(name, value, QStringLiteral("a whole number of seconds"));
        return std::nullopt;
    }
    return hasFor ? nowMs + *seconds * 1000 : *seconds * 1000;
}

} // namespace cooldown::demo
