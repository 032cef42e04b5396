// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryRecords.h"

#include <QMetaType>
#include <QString>

namespace cooldown {

// Which operations the Jobs view lists.
enum class JobsScope
{
    Active, // scheduled, running, waiting, parked
    Failed, // the latest failed ones
    Recent, // the latest operations, whatever their state
};

// What the Jobs view lists: a scope, and optionally one endpoint's operations only.
// Rows are always ordered by operation id, the key the store pages by.
struct JobsQuery
{
    // How many operations the Failed and Recent scopes keep: the latest ones.
    static constexpr int kLatestOperations = 300;

    JobsScope scope = JobsScope::Active;
    QString endpointId; // empty: every endpoint

    // Whether an operation in this state, of this endpoint, is one of the rows. The
    // latest-only scopes also bound their rows by id, which the reader decides.
    bool accepts(const OperationRecord &operation) const;

    friend bool operator==(const JobsQuery &a, const JobsQuery &b)
    {
        return a.scope == b.scope && a.endpointId == b.endpointId;
    }
    friend bool operator!=(const JobsQuery &a, const JobsQuery &b) { return !(a == b); }
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::JobsScope)
Q_DECLARE_METATYPE(cooldown::JobsQuery)
