#pragma once

#include <QStringList>

namespace cooldown::schema {

// The version a new database gets. Each version's step turns the previous version
// into it; a database is migrated by running the steps after its version in order.
int latestVersion();

// The statements of the step that brings a database from version - 1 to version.
// The dialects differ only in how a table gets its generated primary key.
QStringList migrationStep(int version, bool postgres);

} // namespace cooldown::schema
