// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown incidents`: the incidents of a database (docs/incidents.md), the open ones
// and those opened lately, each with its cause and the endpoints it blocks.
int runIncidents(const QStringList &arguments);

} // namespace cooldown::cli
