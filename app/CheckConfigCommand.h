// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown check-config F`: validates a workspace file; exit 2 with the error.
int runCheckConfig(const QStringList &arguments);

} // namespace cooldown::cli
