// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown pause ENDPOINT... | --host H --config F [--for 2h] [--reason R]` and
// `cooldown resume ENDPOINT... | --host H --config F`: an operator pauses endpoints
// from a shell (docs/maintenance.md). With --for the pause is a hold that ends by
// itself; without, it lasts until resumed, as the dashboard's Pause does. They act on
// the store, so running workers see the change at their next claim; each writes one
// row of the audit table.
int runPause(const QStringList &arguments);
int runResume(const QStringList &arguments);

} // namespace cooldown::cli
