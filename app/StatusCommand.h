// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown status [--db URL] [--json]`: what the fleet sharing a database is doing —
// workers (from their live leases), each partition's bucket, hold and queue, and the
// due backlog. Reads only.
int runStatus(const QStringList &arguments);

} // namespace cooldown::cli
