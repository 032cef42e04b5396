// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown run`: the engine without a window.
int runRun(const QStringList &arguments);

} // namespace cooldown::cli
