// SPDX-License-Identifier: Apache-2.0
#include "core/config/JsonReader.h"

#include "core/NumberText.h"

#include <QCoreApplication>
#include <cmath>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

} // namespace

void JsonReader::fail(const QString &path, const QString &what)
{
    if (m_error->isEmpty())
        *m_error = path.isEmpty() ? what : QStringLiteral("%1: %2").arg(path, what);
}

void JsonReader::checkKnownKeys(const QJsonObject &object, const QString &path,
                                const QStringList &known)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!known.contains(it.key())) {
            fail(join(path, it.key()), Text::tr("unknown key (expected one of: %1)")
                                           .arg(known.join(QStringLiteral(", "))));
            return;
        }
    }
}

std::optional<QJsonObject> JsonReader::object(const QJsonValue &value, const QString &path)
{
    if (!ok())
        return std::nullopt;
    if (!value.isObject()) {
        fail(path, Text::tr("expected an object"));
        return std::nullopt;
    }
    return value.toObject();
}

std::optional<QJsonArray> JsonReader::array(const QJsonValue &value, const QString &path)
{
    if (!ok())
        return std::nullopt;
    if (!value.isArray()) {
        fail(path, Text::tr("expected an array"));
        return std::nullopt;
    }
    return value.toArray();
}

QString JsonReader::string(const QJsonObject &o, const QString &key, const QString &path,
                           bool required, const QString &fallback)
{
    if (!ok())
        return fallback;
    const QJsonValue v = o.value(key);
    if (v.isUndefined()) {
        if (required)
            fail(join(path, key), Text::tr("required, expected a string"));
        return fallback;
    }
    if (!v.isString()) {
        fail(join(path, key), Text::tr("expected a string"));
        return fallback;
    }
    return v.toString();
}

double JsonReader::number(const QJsonObject &o, const QString &key, const QString &path, double min,
                          double max, double fallback, bool wholeNumber)
{
    if (!ok())
        return fallback;
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return fallback;
    const double d = v.toDouble();
    if (!v.isDouble() || !std::isfinite(d) || d < min || d > max ||
        (wholeNumber && d != std::floor(d))) {
        fail(join(path, key), (wholeNumber ? Text::tr("expected a whole number from %1 to %2")
                                           : Text::tr("expected a number from %1 to %2"))
                                  .arg(numberText(min), numberText(max)));
        return fallback;
    }
    return d;
}

bool JsonReader::boolean(const QJsonObject &o, const QString &key, const QString &path,
                         bool fallback)
{
    if (!ok())
        return fallback;
    const QJsonValue v = o.value(key);
    if (v.isUndefined())
        return fallback;
    if (!v.isBool()) {
        fail(join(path, key), Text::tr("expected true or false"));
        return fallback;
    }
    return v.toBool();
}

QString JsonReader::join(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + QLatin1Char('.') + key;
}

QString JsonReader::index(const QString &path, qsizetype i)
{
    return QStringLiteral("%1[%2]").arg(path).arg(i);
}

} // namespace cooldown
