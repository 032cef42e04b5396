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

// Version 3: limits that hold for the fleet. A (policy, partition key) is a row whose
// GCRA state every worker advances in the transaction that claims an operation;
// a server's hold lives there too. look_at is a lower bound of the first
// next_attempt_at among the partition's pending operations (kept by the triggers
// below and corrected by each claim), ready_at when its next unit is there and no
// hold stands, next_at the later of the two: when a claim may find work there.
// Periodic endpoints tick through one row each, advanced atomically.
const char *const kVersion3[] = {
    "CREATE TABLE rate_partitions ("
    " policy_id TEXT NOT NULL,"
    " partition_key TEXT NOT NULL,"
    " policy_version INTEGER NOT NULL DEFAULT 0,"
    " definition TEXT NOT NULL DEFAULT '',"
    " interval_us BIGINT NOT NULL DEFAULT 0,"
    " capacity BIGINT NOT NULL DEFAULT 1,"
    " tat_us BIGINT NOT NULL DEFAULT 0,"
    " held_until BIGINT NOT NULL DEFAULT 0,"
    " hold_reason TEXT NOT NULL DEFAULT '',"
    " look_at BIGINT NOT NULL DEFAULT 0,"
    " ready_at BIGINT NOT NULL DEFAULT 0,"
    " next_at BIGINT NOT NULL DEFAULT 0,"
    " conflict TEXT NOT NULL DEFAULT '',"
    " PRIMARY KEY (policy_id, partition_key))",
    "CREATE INDEX rate_partitions_next ON rate_partitions (next_at)",
    "INSERT INTO rate_partitions (policy_id, partition_key)"
    " SELECT DISTINCT policy_id, partition_key FROM operations"
    " WHERE state IN ('scheduled', 'waiting', 'running') AND policy_id <> ''",
    "ALTER TABLE operations ADD COLUMN cost BIGINT NOT NULL DEFAULT 1",
    // The host an operation's requests go to: fleet-wide per-host permits count it.
    "ALTER TABLE operations ADD COLUMN host TEXT NOT NULL DEFAULT ''",
    "DROP INDEX operations_pending_by_partition",
    "CREATE INDEX operations_due_by_partition ON operations"
    " (policy_id, partition_key, next_attempt_at) WHERE state IN ('scheduled', 'waiting')",
    "CREATE INDEX operations_due_unpartitioned ON operations (next_attempt_at)"
    " WHERE state IN ('scheduled', 'waiting') AND policy_id = ''",
    "CREATE INDEX operations_forced ON operations (next_attempt_at)"
    " WHERE state IN ('scheduled', 'waiting') AND force_next = 1",
    "CREATE TABLE periodic_ticks ("
    " endpoint_id TEXT PRIMARY KEY,"
    " every_ms BIGINT NOT NULL,"
    " next_tick_at BIGINT NOT NULL)",
    "CREATE INDEX periodic_ticks_next ON periodic_ticks (next_tick_at)",
    // Workers that went without a fleet-wide permit lately: the others make room.
    "CREATE TABLE workers ("
    " worker_id TEXT PRIMARY KEY,"
    " wants_until BIGINT NOT NULL DEFAULT 0)",
    "%PENDING_TRIGGERS%",
};

// An operation that becomes pending, or due earlier, lowers its partition's look_at.
const char *const kSqlitePendingTriggers[] = {
    "CREATE TRIGGER operations_pending_insert AFTER INSERT ON operations"
    " WHEN NEW.state IN ('scheduled', 'waiting') AND NEW.policy_id <> ''"
    " BEGIN UPDATE rate_partitions SET look_at = MIN(look_at, NEW.next_attempt_at),"
    " next_at = MAX(ready_at, MIN(look_at, NEW.next_attempt_at))"
    " WHERE policy_id = NEW.policy_id AND partition_key = NEW.partition_key"
    " AND look_at > NEW.next_attempt_at; END",
    "CREATE TRIGGER operations_pending_update AFTER UPDATE OF state, next_attempt_at ON operations"
    " WHEN NEW.state IN ('scheduled', 'waiting') AND NEW.policy_id <> ''"
    " AND (OLD.state NOT IN ('scheduled', 'waiting') OR NEW.next_attempt_at < OLD.next_attempt_at)"
    " BEGIN UPDATE rate_partitions SET look_at = MIN(look_at, NEW.next_attempt_at),"
    " next_at = MAX(ready_at, MIN(look_at, NEW.next_attempt_at))"
    " WHERE policy_id = NEW.policy_id AND partition_key = NEW.partition_key"
    " AND look_at > NEW.next_attempt_at; END",
};

const char *const kPostgresPendingTriggers[] = {
    "CREATE FUNCTION cooldown_partition_pending() RETURNS trigger LANGUAGE plpgsql AS $$"
    " BEGIN"
    " IF TG_OP = 'INSERT' OR OLD.state NOT IN ('scheduled', 'waiting')"
    " OR NEW.next_attempt_at < OLD.next_attempt_at THEN"
    " UPDATE rate_partitions SET look_at = LEAST(look_at, NEW.next_attempt_at),"
    " next_at = GREATEST(ready_at, LEAST(look_at, NEW.next_attempt_at))"
    " WHERE policy_id = NEW.policy_id AND partition_key = NEW.partition_key"
    " AND look_at > NEW.next_attempt_at;"
    " END IF;"
    " RETURN NULL;"
    " END $$",
    "CREATE TRIGGER operations_pending AFTER INSERT OR UPDATE OF state, next_attempt_at"
    " ON operations FOR EACH ROW"
    " WHEN (NEW.state IN ('scheduled', 'waiting') AND NEW.policy_id <> '')"
    " EXECUTE FUNCTION cooldown_partition_pending()",
};

// Version 4: claims and due-time queries leave paused endpoints out with a subquery;
// this index keeps it to the paused ones, however many endpoints a workspace has.
const char *const kVersion4[] = {
    "CREATE INDEX endpoints_paused ON endpoints (id) WHERE paused = 1",
};

// Version 5: what servers say about their quotas, kept on the partition's row for the
// fleet (core/ratelimit/ServerWindow.h), and the pacing of the policy. Endpoints
// without a policy get a partition per host, "learned:<host>", whose pace is what the
// server states and whose hold is the server's 429: operations not yet ended move there.
const char *const kVersion5[] = {
    "ALTER TABLE rate_partitions ADD COLUMN pacing TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE rate_partitions ADD COLUMN server_quota BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN server_window_ms BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN server_remaining BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN server_reset_at BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN server_known_until BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN server_opened_at BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN learned_from TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE rate_partitions ADD COLUMN learned_at BIGINT NOT NULL DEFAULT 0",
    "INSERT INTO rate_partitions (policy_id, partition_key)"
    " SELECT DISTINCT 'learned:' || host, '' FROM operations"
    " WHERE state IN ('scheduled', 'waiting', 'running') AND policy_id = '' AND host <> ''"
    " ON CONFLICT DO NOTHING",
    "UPDATE operations SET policy_id = 'learned:' || host"
    " WHERE state IN ('scheduled', 'waiting', 'running') AND policy_id = '' AND host <> ''",
};

// Version 6: an operation may carry its own request body (an alert's message), sent
// instead of its endpoint's.
const char *const kVersion6[] = {
    "ALTER TABLE operations ADD COLUMN request_body TEXT NOT NULL DEFAULT ''",
};

// Version 7: the pace measured from the refusals of a server that states no quota
// (core/ratelimit/MeasuredPace.h), on its host's learned partition: the pace itself
// is the row's interval_us, the count behind it these columns.
const char *const kVersion7[] = {
    "ALTER TABLE rate_partitions ADD COLUMN measured_since BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN measured_accepted BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE rate_partitions ADD COLUMN measured_raised_at BIGINT NOT NULL DEFAULT 0",
};

template <std::size_t N> QStringList statements(const char *const (&list)[N], bool postgres)
{
    const QString primaryKey =
        postgres ? QStringLiteral("BIGSERIAL PRIMARY KEY") : QStringLiteral("INTEGER PRIMARY KEY");
    QStringList out;
    for (const char *statement : list) {
        if (qstrcmp(statement, "%PENDING_TRIGGERS%") == 0) {
            if (postgres)
                out += statements(kPostgresPendingTriggers, postgres);
            else
                out += statements(kSqlitePendingTriggers, postgres);
            continue;
        }
        out.append(
            QString::fromLatin1(statement).replace(QLatin1String("%PRIMARY_KEY%"), primaryKey));
    }
    return out;
}

} // namespace

int latestVersion()
{
    return 7;
}

QStringList migrationStep(int version, bool postgres)
{
    switch (version) {
    case 1:
        return statements(kVersion1, postgres);
    case 2:
        return statements(kVersion2, postgres);
    case 3:
        return statements(kVersion3, postgres);
    case 4:
        return statements(kVersion4, postgres);
    case 5:
        return statements(kVersion5, postgres);
    case 6:
        return statements(kVersion6, postgres);
    case 7:
        return statements(kVersion7, postgres);
    default:
        return {};
    }
}

} // namespace cooldown::schema
