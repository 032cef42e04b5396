// SPDX-License-Identifier: Apache-2.0
#include "core/engine/Intake.h"

#include "core/Logging.h"
#include "core/config/WorkspaceConfig.h"
#include "core/ratelimit/Gcra.h"
#include "core/ratelimit/RateLimitPolicy.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/time/RandomSource.h"

#include <QJsonDocument>
#include <QSet>

#include <algorithm>

namespace cooldown {

QString newIdempotencyKey(RandomSource &random)
{
    const quint64 a = random.next();
    const quint64 b = random.next();
    const QString hex =
        QStringLiteral("%1%2").arg(a, 16, 16, QLatin1Char('0')).arg(b, 16, 16, QLatin1Char('0'));
    return hex.mid(0, 8) + QLatin1Char('-') + hex.mid(8, 4) + QLatin1Char('-') + hex.mid(12, 4) +
           QLatin1Char('-') + hex.mid(16, 4) + QLatin1Char('-') + hex.mid(20, 12);
}

bool ensurePolicyPartition(Store &store, const RateLimitPolicy &policy, const QString &partitionKey)
{
    const QString definition =
        QString::fromUtf8(QJsonDocument(policy.toJson()).toJson(QJsonDocument::Compact));
    QString stored;
    switch (store.ensurePartition(policy.policyId, partitionKey, int(policy.policyVersion),
                                  definition, Gcra::forPolicy(policy), &stored)) {
    case Store::PaceResult::Written:
        return true;
    case Store::PaceResult::KeptNewer:
        qCWarning(lcEngine).noquote()
            << "policy" << policy.policyId << "version" << policy.policyVersion
            << "is older than the one the database holds; the fleet keeps" << stored;
        return true;
    case Store::PaceResult::Conflict:
        qCWarning(lcEngine).noquote()
            << "policy" << policy.policyId << "version" << policy.policyVersion
            << "differs from what another worker configured under the same version:" << definition
            << "here," << stored << "in the database; the database's is kept";
        return true;
    case Store::PaceResult::Failed:
        return false;
    }
    return false;
}

int IntakeReport::created() const
{
    int n = 0;
    for (qsizetype i = 0; i < operationIds.size(); ++i)
        n += operationIds.at(i) > 0 && !existed.at(i) ? 1 : 0;
    return n;
}

IntakeReport enqueueJobs(Store &store, const WorkspaceConfig &config, const QList<JobRequest> &jobs,
                         const QStringList &paths, qint64 nowMs, RandomSource &random,
                         bool keepGoing)
{
    IntakeReport report;
    report.operationIds.fill(0, jobs.size());
    report.existed.fill(false, jobs.size());
    QList<Store::NewOperation> rows;
    QList<int> rowJob; // the job index of each row
    rows.reserve(jobs.size());
    rowJob.reserve(jobs.size());
    QSet<std::pair<QString, QString>> partitions;
    for (qsizetype i = 0; i < jobs.size(); ++i) {
        const JobRequest &job = jobs.at(i);
        const QString path = paths.value(i, QStringLiteral("$"));
        FilledRequest filled;
        if (const auto problem = checkJob(config, job, path, &filled)) {
            report.refusals.append({int(i), *problem});
            continue;
        }
        const EndpointConfig &e = *config.endpoint(job.endpointId);
        Store::NewOperation row;
        row.endpointId = e.id;
        row.idempotencyKey =
            job.idempotencyKey.isEmpty() ? newIdempotencyKey(random) : job.idempotencyKey;
        row.policyId = e.policy.isEmpty() ? learnedPolicyId(e.url.host()) : e.policy;
        row.partitionKey = job.partitionKey.isEmpty() ? filled.partitionKey : job.partitionKey;
        row.host = e.url.host();
        const RateLimitPolicy *policy = config.policy(e.policy);
        row.cost = policy && policy->quotaUnit == QuotaUnit::Byte
                       ? std::max<qint64>(0, filled.body.size())
                       : 1;
        row.dueAtMs = job.notBeforeMs;
        row.body = job.body.value_or(QByteArray());
        row.jobValues = job.values;
        row.requestHash = requestHash(e, job);
        partitions.insert({row.policyId, policy ? row.partitionKey : QString()});
        rows.append(row);
        rowJob.append(int(i));
    }
    if (!report.refusals.isEmpty() && !keepGoing)
        return report;

    // Partitions first, each paced as its policy says: claims find work through them.
    for (const auto &[policyId, key] : std::as_const(partitions)) {
        const RateLimitPolicy *policy = config.policy(policyId);
        const bool ok = policy ? ensurePolicyPartition(store, *policy, key)
                               : store.ensureLearnedPartition(policyId);
        if (!ok) {
            report.databaseError = store.lastError();
            return report;
        }
    }
    const auto outcomes = store.enqueue(
        rows, nowMs, keepGoing ? Store::IntakeMode::KeepGoing : Store::IntakeMode::AllOrNothing);
    if (!outcomes) {
        report.databaseError = store.lastError();
        return report;
    }
    bool conflict = false;
    for (qsizetype r = 0; r < outcomes->size(); ++r) {
        const int i = rowJob.at(r);
        const Store::Intake &outcome = outcomes->at(r);
        if (outcome.result == Store::Intake::Result::Conflict) {
            conflict = true;
            report.keyConflicts.append(i);
            report.refusals.append(
                {i, QStringLiteral("%1: %2").arg(
                        paths.value(i, QStringLiteral("$")) + QStringLiteral(".idempotency_key"),
                        idempotencyConflict(rows.at(r).idempotencyKey, outcome.id))});
            continue;
        }
        report.operationIds[i] = outcome.id;
        report.existed[i] = outcome.result == Store::Intake::Result::Existing;
    }
    if (conflict && !keepGoing) {
        report.operationIds.fill(0);
        report.existed.fill(false);
    }
    std::sort(report.refusals.begin(), report.refusals.end());
    return report;
}

} // namespace cooldown
