// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown show-attempt ID`: one attempt as recorded, with the assertion it failed and,
// when it was kept (docs/checks.md), the request and the answer whole.
int runShowAttempt(const QStringList &arguments);

} // namespace cooldown::cli
