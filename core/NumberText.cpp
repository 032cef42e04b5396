// SPDX-License-Identifier: Apache-2.0
#include "core/NumberText.h"

#include <cmath>

namespace cooldown {

std::optional<qint64> parseInteger(const QString &text, qint64 min, qint64 max)
{
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < min || value > max)
        return std::nullopt;
    return value;
}

QString numberText(double value)
{
    if (!std::isfinite(value))
        return QString::number(value);
    // Every whole number a double holds exactly (below 2^53) is written out whole.
    if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0)
        return QString::number(qint64(value));
    QString text = QString::number(value, 'f', 6);
    while (text.endsWith(QLatin1Char('0')))
        text.chop(1);
    if (text.endsWith(QLatin1Char('.')))
        text.chop(1);
    return text;
}

} // namespace cooldown
