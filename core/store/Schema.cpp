#include "core/store/Schema.h"

namespace cooldown::schema {

namespace {

// Version 1: operations and their attempts.
const char *const kVersion1[] = {
    "CREATE TABLE schema_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE endpoints ("
    " id TEXT PRIMARY KEY,"
    " name TEXT NOT NULL DEFAULT '',"
    " created_at BIGINT NOT NULL)",
    "CREATE TABLE policies ("
    " policy_id TEXT NOT NULL,"
    " policy_version INTEGER NOT NULL,"
    " definition TEXT NOT NULL,"
    " PRIMARY KEY (policy_id, policy_version))",
    "CREATE TABLE operations ("
    " id %PRIMARY_KEY%,"
    " endpoint_id TEXT NOT NULL,"
    " state TEXT NOT NULL,"
    " attempt INTEGER NOT NULL DEFAULT 0,"
    " throttled_attempts INTEGER NOT NULL DEFAULT 0,"
    " created_at BIGINT NOT NULL,"
    " first_attempt_at BIGINT NOT NULL DEFAULT -1,"
    " next_attempt_at BIGINT NOT NULL DEFAULT -1,"
    " last_status INTEGER NOT NULL DEFAULT 0,"
    " last_error TEXT NOT NULL DEFAULT '',"
    " idempotency_key TEXT NOT NULL DEFAULT '',"
    " response_instance TEXT NOT NULL DEFAULT '',"
    " lease_owner TEXT NOT NULL DEFAULT '',"
    " lease_expires_at BIGINT NOT NULL DEFAULT -1,"
    " version BIGINT NOT NULL DEFAULT 0,"
    " final_reason TEXT NOT NULL DEFAULT '',"
    " wait_source TEXT NOT NULL DEFAULT '',"
    " previous_backoff_ms BIGINT NOT NULL DEFAULT 0,"
    " policy_id TEXT NOT NULL DEFAULT '',"
    " partition_key TEXT NOT NULL DEFAULT '')",
    "CREATE INDEX operations_by_endpoint ON operations (endpoint_id, id)",
    "CREATE INDEX operations_by_state ON operations (state, next_attempt_at)",
    "CREATE TABLE attempts ("
    " id %PRIMARY_KEY%,"
    " operation_id BIGINT NOT NULL REFERENCES operations (id),"
    " endpoint_id TEXT NOT NULL,"
    " attempt INTEGER NOT NULL,"
    " started_at BIGINT NOT NULL,"
    " finished_at BIGINT NOT NULL,"
    " method TEXT NOT NULL,"
    " url TEXT NOT NULL,"
    " status INTEGER NOT NULL,"
    " error TEXT NOT NULL,"
    " decision TEXT NOT NULL,"
    " reason TEXT NOT NULL,"
    " wait_ms BIGINT NOT NULL,"
    " wait_source TEXT NOT NULL,"
    " retry_after_raw TEXT NOT NULL,"
    " problem_type TEXT NOT NULL,"
    " problem_instance TEXT NOT NULL,"
    " rate_limit_remaining INTEGER NOT NULL,"
    " idempotency_key TEXT NOT NULL,"
    " duration_ms BIGINT NOT NULL,"
    " worker_id TEXT NOT NULL,"
    " policy_id TEXT NOT NULL,"
    " policy_version INTEGER NOT NULL)",
    "CREATE INDEX attempts_by_time ON attempts (started_at)",
    "CREATE INDEX attempts_by_operation ON attempts (operation_id, attempt)",
    "CREATE INDEX attempts_by_endpoint ON attempts (endpoint_id, started_at)",
};

// Version 2: leases that can be rescued, operator actions, one-shot endpoints,
// stored headers, lease conflicts, and indexes shaped for the claim.
const char *const kVersion2[] = {
    "ALTER TABLE operations ADD COLUMN force_next INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE operations ADD COLUMN rescued INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE operations ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE endpoints ADD COLUMN paused INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE endpoints ADD COLUMN updated_at BIGINT NOT NULL DEFAULT -1",
    "ALTER TABLE attempts ADD COLUMN forced INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE attempts ADD COLUMN lease_conflict INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE attempts ADD COLUMN request_headers TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE attempts ADD COLUMN response_headers TEXT NOT NULL DEFAULT ''",
    "CREATE TABLE one_shot_runs (endpoint_id TEXT PRIMARY KEY, operation_id BIGINT)",
    "DROP INDEX operations_by_state",
    // The claim walks these in order and stops after its limit: partial indexes keep
    // the finished operations, nearly all of them in a long-lived database, out of it.
    "CREATE INDEX operations_due ON operations (next_attempt_at)"
    " WHERE state IN ('scheduled', 'waiting')",
    "CREATE INDEX operations_leased ON operations (lease_expires_at) WHERE state = 'running'",
    "CREATE INDEX operations_pending_by_partition ON operations (policy_id, partition_key)"
    " WHERE state IN ('scheduled', 'waiting')",
    "CREATE INDEX operations_by_state ON operations (state, id)",
    "CREATE INDEX attempts_conflicts ON attempts (operation_id) WHERE lease_conflict = 1",
};

template <std::size_t N> QStringList statements(const char *const (&list)[N], bool postgres)
{
    const QString primaryKey =
        postgres ? QStringLiteral("BIGSERIAL PRIMARY KEY") : QStringLiteral("INTEGER PRIMARY KEY");
    QStringList out;
    for (const char *statement : list)
        out.append(
            QString::fromLatin1(statement).replace(QLatin1String("%PRIMARY_KEY%"), primaryKey));
    return out;
}

} // namespace

int latestVersion()
{
    return 2;
}

QStringList migrationStep(int version, bool postgres)
{
    switch (version) {
    case 1:
        return statements(kVersion1, postgres);
    case 2:
        return statements(kVersion2, postgres);
    default:
        return {};
    }
}

} // namespace cooldown::schema
