// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/ratelimit/Gcra.h"
#include "core/store/OperatorAudit.h"
#include "core/store/Store.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>

#include <optional>

namespace cooldown {

// One partition's bucket as a drain estimate sees it (from Store::partitions()).
struct DrainBucket
{
    QString policyId;
    QString partitionKey;
    Gcra pace;
    qint64 availableUnits = 0; // at nowMs
    qint64 nextTokenAtMs = 0;  // when a unit is there again, when none is now
    qint64 heldUntilMs = 0;    // a server's hold; nothing is sent before it
    // Units of other operations already due in the partition: claimed before the
    // selection's, so they take tokens first.
    qint64 aheadUnits = 0;
};

// What estimateDrain() starts from: everything it needs, read before, so that the
// estimate itself does no I/O.
struct DrainInput
{
    qint64 nowMs = 0;
    QList<SelectionGroup> groups; // the operations to send, per endpoint and partition
    QList<DrainBucket> buckets;
    QSet<QString> pausedEndpoints;
    int maxInFlight = 8; // the worker's concurrency limit; 0: none
    // A typical exchange per endpoint (the median of its recent ones): how long an
    // operation holds a permit.
    QHash<QString, qint64> typicalDurationMs;
    qint64 defaultDurationMs = 1000; // for an endpoint with no recent exchange
    // A forced retry: its sends bypass the buckets and holds (Store::retryNow), so
    // only the in-flight limit bounds them.
    bool forced = false;
};

struct DrainPartitionEstimate
{
    QString policyId;
    QString partitionKey;
    qint64 operations = 0;
    qint64 drainMs = 0;     // from now until its last operation can be sent
    bool heldFirst = false; // a hold delays its start
};

// How long until the selected operations have all been sent (docs/bulk-actions.md).
struct DrainEstimate
{
    enum class Bound
    {
        None,        // nothing waits: everything goes at once
        Rate,        // a partition's bucket
        Hold,        // a partition's hold, then its bucket
        Concurrency, // the worker's in-flight limit
    };
    qint64 operations = 0; // that drain (of endpoints not paused)
    qint64 drainMs = 0;    // from now until the last of them can be sent
    Bound bound = Bound::None;
    QString boundPartition; // "policy/key" when bound is Rate or Hold
    // Operations of paused endpoints: not sent until they are resumed, so not in drainMs.
    qint64 pausedOperations = 0;
    QStringList pausedEndpoints;
    QList<DrainPartitionEstimate> partitions; // slowest first
};

// The drain time of input.groups under their buckets, holds and the concurrency
// limit. The model: each partition sends the units it has now (or when its hold ends)
// at once, then one every pace interval, after the units already due there; the
// worker runs at most maxInFlight exchanges of their typical duration at a time; the
// slower of the two bounds the drain. It does not know of other workers, of
// per-host limits, of server answers still to come (a 429 adds a hold), nor of
// operations that become due meanwhile. A pure function.
DrainEstimate estimateDrain(const DrainInput &input);

// Reads what estimateDrain() needs for the operations of `selection` that `action`
// would change, from the store: their groups, the buckets and holds of their
// partitions, the paused endpoints, and each endpoint's median exchange over the hour
// before nowMs. Empty with the store's error in *error.
std::optional<DrainInput> readDrainInput(Store &store, const OperationSelection &selection,
                                         OperatorAction action, qint64 nowMs, int maxInFlight,
                                         QString *error);

} // namespace cooldown
