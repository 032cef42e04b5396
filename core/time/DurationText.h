// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>

namespace cooldown {

// A span of time as people write it in a workspace file or on the command line:
// whole numbers with a unit each, largest first, as in "45s", "90m", "2h", "1h30m",
// "3d12h". Units: d (24 h of elapsed time), h, m, s. Nothing else is read: no bare
// numbers (minutes or seconds?), no fractions, no spaces, no sign. nullopt when the
// text is not such a span or it is zero; at most 10 years.
std::optional<qint64> parseDurationMs(const QString &text);

// The same span written back, in that form ("1h30m", "2d", "45s").
QString durationText(qint64 ms);

} // namespace cooldown
