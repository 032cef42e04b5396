// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown explain`: prints, as one JSON object, the decision the engine makes
// for the response described by the arguments.
int runExplain(const QStringList &arguments);

} // namespace cooldown::cli
