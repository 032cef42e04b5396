// SPDX-License-Identifier: Apache-2.0
#include "core/engine/DrainEstimate.h"

#include "core/store/OperationSelection.h"

#include <QHash>
#include <QPair>

#include <algorithm>

namespace cooldown {

namespace {

using PartitionKey = QPair<QString, QString>;

// When the last of `units` can leave a bucket, from nowMs.
qint64 bucketDrainMs(const DrainBucket &bucket, qint64 units, qint64 nowMs, bool *held)
{
    const qint64 start = std::max(nowMs, bucket.heldUntilMs);
    *held = bucket.heldUntilMs > nowMs;
    if (units <= 0)
        return start - nowMs;
    if (bucket.pace.isUnlimited())
        return start - nowMs;
    const qint64 intervalUs = bucket.pace.intervalUs;
    const qint64 capacity = std::max<qint64>(1, bucket.pace.capacity);
    // A hold lets the bucket fill meanwhile, up to its capacity.
    qint64 available = std::clamp<qint64>(bucket.availableUnits, 0, capacity);
    qint64 firstAtMs = start;
    if (available == 0) {
        const qint64 nextAt = std::max(bucket.nextTokenAtMs, nowMs);
        if (nextAt <= start) {
            available = std::min(capacity, 1 + (start - nextAt) * 1000 / intervalUs);
        } else {
            firstAtMs = nextAt;
            available = 1;
        }
    } else if (start > nowMs) {
        available = std::min(capacity, available + (start - nowMs) * 1000 / intervalUs);
    }
    if (units <= available)
        return firstAtMs - nowMs;
    // Then one unit per interval after the first burst.
    const qint64 restUs = (units - available) * intervalUs;
    return firstAtMs - nowMs + (restUs + 999) / 1000;
}

qint64 median(QList<qint64> values)
{
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

} // namespace

DrainEstimate estimateDrain(const DrainInput &input)
{
    DrainEstimate out;
    QHash<PartitionKey, DrainBucket> buckets;
    for (const DrainBucket &b : input.buckets)
        buckets.insert({b.policyId, b.partitionKey}, b);

    QHash<PartitionKey, qint64> unitsByPartition;
    QHash<PartitionKey, qint64> opsByPartition;
    QList<PartitionKey> order;
    double permitMs = 0; // the exchanges' total time, which the in-flight limit shares out
    for (const SelectionGroup &g : input.groups) {
        if (input.pausedEndpoints.contains(g.endpointId)) {
            out.pausedOperations += g.operations;
            if (!out.pausedEndpoints.contains(g.endpointId))
                out.pausedEndpoints.append(g.endpointId);
            continue;
        }
        out.operations += g.operations;
        permitMs += double(g.operations) *
                    double(input.typicalDurationMs.value(g.endpointId, input.defaultDurationMs));
        const PartitionKey key{g.policyId, g.partitionKey};
        if (!unitsByPartition.contains(key))
            order.append(key);
        unitsByPartition[key] += std::max<qint64>(g.cost, g.operations);
        opsByPartition[key] += g.operations;
    }
    out.pausedEndpoints.sort();

    for (const PartitionKey &key : std::as_const(order)) {
        DrainPartitionEstimate p;
        p.policyId = key.first;
        p.partitionKey = key.second;
        p.operations = opsByPartition.value(key);
        const auto bucket = buckets.constFind(key);
        if (bucket != buckets.constEnd() && !input.forced) {
            p.drainMs = bucketDrainMs(*bucket, unitsByPartition.value(key) + bucket->aheadUnits,
                                      input.nowMs, &p.heldFirst);
        }
        out.partitions.append(p);
    }
    std::stable_sort(out.partitions.begin(), out.partitions.end(),
                     [](const DrainPartitionEstimate &a, const DrainPartitionEstimate &b) {
                         return a.drainMs > b.drainMs;
                     });
    if (!out.partitions.isEmpty() && out.partitions.constFirst().drainMs > 0) {
        const DrainPartitionEstimate &slowest = out.partitions.constFirst();
        out.drainMs = slowest.drainMs;
        out.bound = slowest.heldFirst ? DrainEstimate::Bound::Hold : DrainEstimate::Bound::Rate;
        out.boundPartition = slowest.policyId + QLatin1Char('/') + slowest.partitionKey;
    }
    // maxInFlight exchanges at a time: the last one starts about one typical exchange
    // before all of them would have ended back to back.
    if (input.maxInFlight > 0 && out.operations > input.maxInFlight) {
        const double meanMs = permitMs / double(out.operations);
        const qint64 concurrencyMs = qint64(permitMs / input.maxInFlight - meanMs);
        if (concurrencyMs > out.drainMs) {
            out.drainMs = concurrencyMs;
            out.bound = DrainEstimate::Bound::Concurrency;
            out.boundPartition.clear();
        }
    }
    return out;
}

std::optional<DrainInput> readDrainInput(Store &store, const OperationSelection &selection,
                                         OperatorAction action, qint64 nowMs, int maxInFlight,
                                         QString *error)
{
    DrainInput input;
    input.nowMs = nowMs;
    input.maxInFlight = maxInFlight;
    input.forced = action == OperatorAction::Force;
    const auto groups = store.matchingGroups(selection, action, nowMs);
    const auto paused = groups ? store.endpointReads().paused() : std::nullopt;
    if (!groups || !paused) {
        *error = store.lastError();
        return std::nullopt;
    }
    input.groups = *groups;
    input.pausedEndpoints = *paused;

    // A retried operation is due at once; one of the selection already due is counted
    // in its partition's `due` too, and must not be counted ahead of itself.
    QHash<PartitionKey, qint64> selectedDue;
    QSet<QString> endpoints;
    for (const SelectionGroup &g : std::as_const(input.groups)) {
        selectedDue[{g.policyId, g.partitionKey}] += g.dueNow;
        endpoints.insert(g.endpointId);
    }
    const std::optional<QList<PartitionState>> partitions = store.partitions(nowMs);
    if (!partitions) {
        *error = store.lastError();
        return std::nullopt;
    }
    for (const PartitionState &p : *partitions) {
        const PartitionKey key{p.policyId, p.partitionKey};
        if (!selectedDue.contains(key))
            continue;
        DrainBucket b;
        b.policyId = p.policyId;
        b.partitionKey = p.partitionKey;
        b.pace = p.pace;
        b.availableUnits = p.availableUnits;
        b.nextTokenAtMs = p.nextTokenAtMs;
        b.heldUntilMs = p.heldUntilMs;
        b.aheadUnits = std::max<qint64>(0, p.due - selectedDue.value(key));
        input.buckets.append(b);
    }
    for (const QString &endpoint : std::as_const(endpoints)) {
        const auto durations =
            store.endpointReads().exchangeDurations(endpoint, nowMs - 3'600'000, nowMs + 1, 200);
        if (durations && !durations->isEmpty())
            input.typicalDurationMs.insert(endpoint, std::max<qint64>(1, median(*durations)));
    }
    return input;
}

} // namespace cooldown
