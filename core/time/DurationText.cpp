// SPDX-License-Identifier: Apache-2.0
#include "core/time/DurationText.h"

namespace cooldown {

namespace {

struct Unit
{
    char letter;
    qint64 ms;
};

constexpr Unit kUnits[] = {
    {'d', 24LL * 3600 * 1000},
    {'h', 3600LL * 1000},
    {'m', 60LL * 1000},
    {'s', 1000},
};

constexpr qint64 kMaxMs = 10LL * 366 * 24 * 3600 * 1000;

} // namespace

std::optional<qint64> parseDurationMs(const QString &text)
{
    qint64 total = 0;
    qsizetype at = 0;
    std::size_t nextUnit = 0; // units come largest first, each once
    while (at < text.size()) {
        qint64 number = 0;
        const qsizetype digitsFrom = at;
        while (at < text.size() && text.at(at) >= QLatin1Char('0') &&
               text.at(at) <= QLatin1Char('9')) {
            number = number * 10 + (text.at(at).unicode() - '0');
            if (number > kMaxMs)
                return std::nullopt;
            ++at;
        }
        if (at == digitsFrom || at == text.size())
            return std::nullopt;
        const char letter = char(text.at(at).unicode());
        ++at;
        while (nextUnit < std::size(kUnits) && kUnits[nextUnit].letter != letter)
            ++nextUnit;
        if (nextUnit == std::size(kUnits))
            return std::nullopt;
        total += number * kUnits[nextUnit].ms;
        ++nextUnit;
        if (total > kMaxMs)
            return std::nullopt;
    }
    if (total <= 0)
        return std::nullopt;
    return total;
}

QString durationText(qint64 ms)
{
    if (ms <= 0)
        return QStringLiteral("0s");
    QString out;
    qint64 left = ms;
    for (const Unit &unit : kUnits) {
        if (left >= unit.ms) {
            out += QString::number(left / unit.ms) + QLatin1Char(unit.letter);
            left %= unit.ms;
        }
    }
    if (out.isEmpty()) // under a second
        out = QStringLiteral("%1ms").arg(ms);
    return out;
}

} // namespace cooldown
