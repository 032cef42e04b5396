// SPDX-License-Identifier: Apache-2.0
// The store: jobs handed in from outside (docs/intake.md).

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/store/SqlTransaction.h"

#include <QSet>
#include <QSqlQuery>

namespace cooldown {

using namespace storesql;

namespace {

// A batch is one transaction, and each insert in it keeps a statement journal (the
// pages it changed, to undo that insert alone). Beyond 64 KiB SQLite writes those
// journals to a temporary file: 1.3 million small writes for 100,000 jobs. While a
// batch is written they are kept in memory; each holds one insert's pages.
class StatementJournalsInMemory
{
public:
    StatementJournalsInMemory(const QSqlDatabase &database, bool sqlite) : m_database(database)
    {
        m_set = sqlite && QSqlQuery(m_database).exec(QStringLiteral("PRAGMA temp_store=MEMORY"));
    }
    ~StatementJournalsInMemory()
    {
        if (m_set)
            QSqlQuery(m_database).exec(QStringLiteral("PRAGMA temp_store=DEFAULT"));
    }
    StatementJournalsInMemory(const StatementJournalsInMemory &) = delete;
    StatementJournalsInMemory &operator=(const StatementJournalsInMemory &) = delete;

private:
    QSqlDatabase m_database;
    bool m_set = false;
};

} // namespace

std::optional<std::pair<qint64, QString>> Store::handedInWithKey(const QString &idempotencyKey,
                                                                 bool *failed)
{
    *failed = false;
    SqlStatement *query =
        m_db->cached(QStringLiteral("SELECT id, request_hash FROM operations"
                                    " WHERE idempotency_key = :key AND request_hash <> ''"));
    if (!query ||
        (query->bindValue(QStringLiteral(":key"), text(idempotencyKey)), !m_db->exec(*query))) {
        *failed = true;
        return std::nullopt;
    }
    std::optional<std::pair<qint64, QString>> found;
    if (query->next())
        found = std::make_pair(query->value(0).toLongLong(), query->value(1).toString());
    query->finish();
    return found;
}

std::optional<QList<Store::Intake>> Store::enqueue(const QList<NewOperation> &jobs, qint64 nowMs,
                                                   IntakeMode mode)
{
    // Declared first, so the setting goes back after the transaction has ended.
    const StatementJournalsInMemory journals(m_db->connection(), !m_db->isPostgres());
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        m_db->fail(QStringLiteral("enqueue"), transaction.error());
        return std::nullopt;
    }
    QList<Intake> outcomes;
    outcomes.reserve(jobs.size());
    // The rows every operation needs, once per endpoint and partition of the batch.
    QSet<QString> endpoints;
    QSet<std::pair<QString, QString>> partitions;
    for (const NewOperation &job : jobs) {
        if (job.requestHash.isEmpty() || job.idempotencyKey.isEmpty()) {
            m_db->fail(QStringLiteral("enqueue"),
                       QStringLiteral("a job needs an idempotency key and a request hash"));
            return std::nullopt;
        }
        if (!endpoints.contains(job.endpointId)) {
            if (!ensureEndpointRow(job.endpointId, nowMs))
                return std::nullopt;
            endpoints.insert(job.endpointId);
        }
        const auto partition = std::make_pair(job.policyId, job.partitionKey);
        if (!job.policyId.isEmpty() && !partitions.contains(partition)) {
            SqlStatement *row = m_db->cached(
                QStringLiteral("INSERT INTO rate_partitions (policy_id, partition_key)"
                               " VALUES (:policy, :partition) ON CONFLICT DO NOTHING"));
            if (!row)
                return std::nullopt;
            row->bindValue(QStringLiteral(":policy"), text(job.policyId));
            row->bindValue(QStringLiteral(":partition"), text(job.partitionKey));
            if (!m_db->exec(*row))
                return std::nullopt;
            partitions.insert(partition);
        }
    }
    bool conflicts = false;
    for (const NewOperation &job : jobs) {
        // Inserted first: a new key is the common case. A key that is taken (handed in
        // before, earlier in this batch, or by another process just now) inserts
        // nothing, and the operation that has it answers.
        const std::optional<qint64> id = insertOperation(job, nowMs, true);
        if (!id)
            return std::nullopt;
        if (*id > 0) {
            outcomes.append({Intake::Result::Created, *id});
            continue;
        }
        bool failed = false;
        const auto existing = handedInWithKey(job.idempotencyKey, &failed);
        if (failed)
            return std::nullopt;
        if (!existing) {
            m_db->fail(
                QStringLiteral("enqueue"),
                QStringLiteral("idempotency key '%1' is taken but its operation cannot be read")
                    .arg(job.idempotencyKey));
            return std::nullopt;
        }
        const bool same = existing->second == job.requestHash;
        outcomes.append(
            {same ? Intake::Result::Existing : Intake::Result::Conflict, existing->first});
        conflicts = conflicts || !same;
    }
    if (conflicts && mode == IntakeMode::AllOrNothing) {
        transaction.rollback();
        m_db->clearError();
        return outcomes;
    }
    if (!transaction.commit()) {
        m_db->fail(QStringLiteral("enqueue"), transaction.error());
        return std::nullopt;
    }
    m_db->clearError();
    return outcomes;
}

} // namespace cooldown
