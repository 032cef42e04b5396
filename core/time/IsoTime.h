// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <optional>

namespace cooldown {

// An ISO 8601 time (with or without milliseconds) as milliseconds since the epoch, or
// nullopt when the text is not one. A time without an offset is UTC, not local time:
// operators paste server and log times, which are in UTC. The command line, the filter
// of bulk actions and handed-in jobs (`not_before`) all read times this way.
std::optional<qint64> parseIsoTimeMs(const QString &text);

} // namespace cooldown
