// SPDX-License-Identifier: Apache-2.0
#include "core/store/SqlDialect.h"

namespace cooldown {

QString SqlDialect::greatest() const
{
    return isPostgres() ? QStringLiteral("GREATEST") : QStringLiteral("MAX");
}

QString SqlDialect::least() const
{
    return isPostgres() ? QStringLiteral("LEAST") : QStringLiteral("MIN");
}

QString SqlDialect::indexedBy(const char *index) const
{
    return isPostgres() ? QString() : QStringLiteral(" INDEXED BY ") + QLatin1String(index);
}

QString SqlDialect::forUpdate(bool skipLocked) const
{
    if (!isPostgres())
        return {};
    return skipLocked ? QStringLiteral(" FOR UPDATE SKIP LOCKED") : QStringLiteral(" FOR UPDATE");
}

QString SqlDialect::returningId() const
{
    return isPostgres() ? QStringLiteral(" RETURNING id") : QString();
}

} // namespace cooldown
