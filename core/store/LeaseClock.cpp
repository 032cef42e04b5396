// SPDX-License-Identifier: Apache-2.0
#include "core/store/LeaseClock.h"

#include "core/store/Database.h"
#include "core/store/SqlStatement.h"

#include <QVariant>

namespace cooldown {

LeaseClock::LeaseClock(Database &database)
    : m_db(database), m_byDatabase(database.isPostgres() && database.options().paceByDatabaseClock)
{}

std::optional<qint64> LeaseClock::nowUs(qint64 callerNowMs)
{
    if (!m_byDatabase)
        return callerNowMs * 1000;
    SqlStatement *query = m_db.cached(
        QStringLiteral("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"));
    if (!query || !m_db.exec(*query))
        return std::nullopt;
    if (!query->next()) {
        m_db.fail(QStringLiteral("clock"), QStringLiteral("the server returned no time"));
        return std::nullopt;
    }
    const qint64 us = query->value(0).toLongLong();
    query->finish();
    return us;
}

} // namespace cooldown
