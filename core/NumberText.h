#pragma once

#include <QString>

namespace cooldown {

// A number as people write it in a message: 31622400, 0.5, 1000000000000; never
// 3.16224e+07. Whole numbers have no decimals; others at most six, without
// trailing zeros.
QString numberText(double value);

} // namespace cooldown
