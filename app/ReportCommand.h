// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown report [--config F] [--db URL] [--from D] [--to D] [--endpoint ID]...
// [--format text|csv|json] [--count-throttled as-success|as-failure|exclude]
// [--maintenance exclude|include]`: the SLA report of each endpoint over a range
// (docs/report.md), read from the rollups. Reads only.
int runReport(const QStringList &arguments);

} // namespace cooldown::cli
