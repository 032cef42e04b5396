// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/JobRequest.h"
#include "core/store/Store.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace cooldown {

class RandomSource;
struct EndpointConfig;
struct RateLimitPolicy;
struct WorkspaceConfig;

// 128 random bits in UUID form: the idempotency key of an operation nobody named one
// for.
QString newIdempotencyKey(RandomSource &random);

// The fleet's row of a policy's partition, paced as the policy says (a newer version
// in the database wins; a conflicting definition is kept and logged). False with the
// store's lastError() when the database failed.
bool ensurePolicyPartition(Store &store, const RateLimitPolicy &policy,
                           const QString &partitionKey);

// What became of jobs handed in together (docs/intake.md).
struct IntakeReport
{
    // Per job, in the order given: its operation (new or the one that already had its
    // idempotency key), or 0 when it was refused.
    QList<qint64> operationIds;
    QList<bool> existed;                     // per job: the key's operation was there
    QList<std::pair<int, QString>> refusals; // (job index, why), in order
    // Of the refusals, the jobs whose idempotency key stands for another request.
    QList<int> keyConflicts;
    QString databaseError; // the database failed: nothing written

    int created() const;
    bool ok() const { return databaseError.isEmpty() && refusals.isEmpty(); }
};

// Checks each job against the workspace (JobRequest.h's checkJob), gives it its
// policy, partition, host, cost and idempotency key, and writes all of them in one
// transaction. A job that fails its check or whose key stands for another request is
// refused with the JSON path under paths[i]; then nothing is written unless
// keepGoing, which writes the others.
IntakeReport enqueueJobs(Store &store, const WorkspaceConfig &config, const QList<JobRequest> &jobs,
                         const QStringList &paths, qint64 nowMs, RandomSource &random,
                         bool keepGoing);

} // namespace cooldown
