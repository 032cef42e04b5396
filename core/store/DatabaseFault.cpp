// SPDX-License-Identifier: Apache-2.0
#include "core/store/DatabaseFault.h"

#include <QSqlError>

namespace cooldown {

const char *textOf(DatabaseFault fault)
{
    switch (fault) {
    case DatabaseFault::None:
        return "none";
    case DatabaseFault::ConnectionLost:
        return "connection-lost";
    case DatabaseFault::DiskFull:
        return "disk-full";
    }
    return "none";
}

DatabaseFault faultOf(const QSqlError &error)
{
    if (error.type() == QSqlError::NoError)
        return DatabaseFault::None;
    // SQLSTATE: class 08 is connection_exception; 57P01 admin_shutdown (a backend
    // terminated, a server stopping fast), 57P02 crash_shutdown, 57P03
    // cannot_connect_now (a server starting or stopping); 53100 disk_full.
    const QString code = error.nativeErrorCode();
    if (code.size() == 5) {
        if (code.startsWith(QLatin1String("08")) || code == QLatin1String("57P01") ||
            code == QLatin1String("57P02") || code == QLatin1String("57P03"))
            return DatabaseFault::ConnectionLost;
        if (code == QLatin1String("53100"))
            return DatabaseFault::DiskFull;
    }
    const DatabaseFault said = faultOfText(error.databaseText());
    if (said != DatabaseFault::None)
        return said;
    if (error.type() == QSqlError::ConnectionError)
        return DatabaseFault::ConnectionLost;
    return faultOfText(error.driverText());
}

DatabaseFault faultOfText(QStringView text)
{
    if (text.isEmpty())
        return DatabaseFault::None;
    static const char *const lost[] = {
        "no connection to the server",
        "server closed the connection unexpectedly",
        "terminating connection",
        "database not open",
        "could not receive data",
        "could not send data",
        "connection to server",
        "SSL SYSCALL",
        "the database system is shutting down",
        "the database system is starting up",
        "Unable to connect",
    };
    for (const char *words : lost) {
        if (text.contains(QLatin1String(words), Qt::CaseInsensitive))
            return DatabaseFault::ConnectionLost;
    }
    static const char *const full[] = {
        "database or disk is full",
        "disk I/O error",
        "No space left on device",
        "could not extend file",
    };
    for (const char *words : full) {
        if (text.contains(QLatin1String(words), Qt::CaseInsensitive))
            return DatabaseFault::DiskFull;
    }
    return DatabaseFault::None;
}

} // namespace cooldown
