// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryRecords.h"

#include <QMetaType>
#include <QString>

namespace cooldown {

// What the History view shows, and what its CSV export writes: the store answers
// every part of it.
struct HistoryQuery
{
    enum class StatusClass
    {
        Any,
        Success,         // 2xx
        TooManyRequests, // 429
        Unavailable,     // 503
        ClientError,     // other 4xx
        ServerError,     // other 5xx
        NoResponse,      // a transport error
    };

    QString endpointId; // empty: every endpoint
    qint64 fromMs = -1; // started at or after; -1: no lower bound
    qint64 toMs = -1;   // started before; -1: no upper bound (new attempts appear)
    StatusClass status = StatusClass::Any;
    std::optional<Decision> decision; // empty: any

    // The part of the query the store answers.
    AttemptFilter storeFilter() const;

    friend bool operator==(const HistoryQuery &a, const HistoryQuery &b)
    {
        return a.endpointId == b.endpointId && a.fromMs == b.fromMs && a.toMs == b.toMs &&
               a.status == b.status && a.decision == b.decision;
    }
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::HistoryQuery)
