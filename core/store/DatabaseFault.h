// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringView>

class QSqlError;

namespace cooldown {

// Why the database cannot be used for now, as opposed to a statement that failed on
// its own (a constraint, a lock held too long). A fault ends by itself: the server
// comes back, space is freed. The store keeps the first one it meets (Store::fault())
// until Store::reconnect() finds the database usable again; the scheduler holds its
// work meanwhile (docs/database-outages.md).
enum class DatabaseFault
{
    None,
    // The connection to the server is gone: a restart, a failover, a terminated
    // backend, a network drop. PostgreSQL only; a SQLite file has no connection.
    ConnectionLost,
    // Nothing more can be written: SQLite's "database or disk is full" and "disk I/O
    // error", PostgreSQL's disk_full (53100).
    DiskFull,
};

const char *textOf(DatabaseFault fault);

// The fault a failed statement's error says, or None.
DatabaseFault faultOf(const QSqlError &error);
// The fault a driver's text says (SQLite's and libpq's words), or None: for the
// errors the store only has as text (a transaction's, SQLite's own API's).
DatabaseFault faultOfText(QStringView text);

} // namespace cooldown
