// The store: jobs handed in from outside (docs/intake.md).

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/store/SqlTransaction.h"

#include <QSqlQuery>

namespace cooldown {

using namespace storesql;

std::optional<std::pair<qint64, QString>> Store::handedInWithKey(const QString &idempotencyKey,
                                                                 bool *failed)
{
    *failed = false;
    QSqlQuery *query =
        cached(QStringLiteral("SELECT id, request_hash FROM operations"
                              " WHERE idempotency_key = :key AND request_hash <> ''"));
    if (!query || (query->bindValue(QStringLiteral(":key"), text(idempotencyKey)), !exec(*query))) {
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
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("enqueue"), transaction.error());
        return std::nullopt;
    }
    QList<Intake> outcomes;
    outcomes.reserve(jobs.size());
    bool conflicts = false;
    for (const NewOperation &job : jobs) {
        if (job.requestHash.isEmpty() || job.idempotencyKey.isEmpty()) {
            fail(QStringLiteral("enqueue"),
                 QStringLiteral("a job needs an idempotency key and a request hash"));
            return std::nullopt;
        }
        // Looked up first: a key handed in again is the common case of a retried
        // hand-in, and needs no insert. The insert itself settles a race.
        for (int round = 0; round < 2; ++round) {
            bool failed = false;
            const auto existing = handedInWithKey(job.idempotencyKey, &failed);
            if (failed)
                return std::nullopt;
            if (existing) {
                const bool same = existing->second == job.requestHash;
                outcomes.append(
                    {same ? Intake::Result::Existing : Intake::Result::Conflict, existing->first});
                conflicts = conflicts || !same;
                break;
            }
            const std::optional<qint64> id = insertOperation(job, nowMs);
            if (!id)
                return std::nullopt;
            if (*id > 0) {
                outcomes.append({Intake::Result::Created, *id});
                break;
            }
            if (round == 1) {
                fail(QStringLiteral("enqueue"),
                     QStringLiteral("idempotency key '%1' is taken but its operation cannot be"
                                    " read")
                         .arg(job.idempotencyKey));
                return std::nullopt;
            }
        }
    }
    if (conflicts && mode == IntakeMode::AllOrNothing) {
        transaction.rollback();
        m_lastError.clear();
        return outcomes;
    }
    if (!transaction.commit()) {
        fail(QStringLiteral("enqueue"), transaction.error());
        return std::nullopt;
    }
    m_lastError.clear();
    return outcomes;
}

} // namespace cooldown
