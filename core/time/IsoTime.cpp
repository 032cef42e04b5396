// SPDX-License-Identifier: Apache-2.0
#include "core/time/IsoTime.h"

#include <QDateTime>

namespace cooldown {

std::optional<qint64> parseIsoTimeMs(const QString &text)
{
    QDateTime dt = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!dt.isValid())
        dt = QDateTime::fromString(text, Qt::ISODate);
    if (!dt.isValid())
        return std::nullopt;
    if (dt.timeSpec() == Qt::LocalTime)
        dt.setTimeSpec(Qt::UTC);
    return dt.toMSecsSinceEpoch();
}

} // namespace cooldown
