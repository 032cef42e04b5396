// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringList>

namespace cooldown::cli {

// `cooldown import curl 'curl …' | --file F --config WORKSPACE [--dry-run] [--id ID]
// [--env-prefix P] [--every S]`, `cooldown import openapi FILE|URL … [--server N|URL]`
// and `cooldown import postman COLLECTION … [--environment F]` (docs/import.md):
// endpoints from curl command lines, an OpenAPI document or a Postman collection, added
// to the workspace file (made when it does not exist) or updated where an earlier import
// of the same source made them. Prints what it adds, updates or leaves, the
// workspace's check, and the environment variables to set; writes nothing with
// --dry-run, or when the result would not load.
int runImport(const QStringList &arguments);

} // namespace cooldown::cli
