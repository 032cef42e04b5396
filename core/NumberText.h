// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>

namespace cooldown {

// A number as people write it in a message: 31622400, 0.5, 1000000000000; never
// 3.16224e+07. Whole numbers have no decimals; others at most six, without
// trailing zeros.
QString numberText(double value);

// A whole number as people type one (on a command line, in a query string) within
// [min, max]; nullopt for anything else: a fraction, a word, a number out of range.
std::optional<qint64> parseInteger(const QString &text, qint64 min, qint64 max);

} // namespace cooldown
