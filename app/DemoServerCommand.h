// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown demo-server [--port P]`: the demo API on 127.0.0.1 (port 8089 unless told,
// where the demo workspace looks for it; 0 picks a free port) until SIGINT or SIGTERM.
// Prints one line with the base URL once it listens. Exit 0 when stopped by a signal,
// 2 for a bad port, 1 when the port cannot be bound.
int runDemoServer(const QStringList &arguments);

} // namespace cooldown::cli
