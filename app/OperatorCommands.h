// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown retry OPERATION_ID --db URL [--force]` and `cooldown cancel OPERATION_ID --db URL`:
// the operator's actions from a shell. They act on the store, so a running worker
// picks the change up at its next look. With `--filter EXPR [--dry-run]` instead of an
// id they act on every operation the filter selects (docs/bulk-actions.md): the count
// and a drain-time estimate first, then the change in chunks with progress on stderr.
// Each writes one row of the audit table.
int runRetry(const QStringList &arguments);
int runCancel(const QStringList &arguments);

} // namespace cooldown::cli
