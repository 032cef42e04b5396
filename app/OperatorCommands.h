#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown retry OPERATION_ID --db URL [--force]` and `cooldown cancel OPERATION_ID --db URL`:
// the operator's actions from a shell. They act on the store, so a running worker
// picks the change up at its next look.
int runRetry(const QStringList &arguments);
int runCancel(const QStringList &arguments);

} // namespace cooldown::cli
