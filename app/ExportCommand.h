// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown export`: writes the attempt history as CSV (columns in README.md).
int runExport(const QStringList &arguments);

} // namespace cooldown::cli
