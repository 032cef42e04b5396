// SPDX-License-Identifier: Apache-2.0
#include "core/store/Schema.h"

#include "core/store/LatencyBuckets.h"

namespace cooldown::schema {

const char kBuildRollupsStep[] = "%BUILD_ROLLUPS%";

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

// Version 8: per-minute rollups of the attempts, written with them, so that figures
// over days or months are read from a few rows per minute instead of every attempt.
// One row per (minute, endpoint, policy, partition key, status class, decision, wait
// source, final reason), the minute being that of the attempt's end (its start when
// it has none). status_class: "429", "503", "none" (no response) or "2xx", "4xx", ...
// decision: that of the attempt, or "conflict" for one that lost its lease (it
// counts as a response, not as a decision). wait_source: the source of a retry's
// wait ("backoff" when none was recorded), empty for other decisions. reason: the
// reason of a final failure ("unknown" when none), empty otherwise. wait_ms sums the
// retries' waits, queue_ms how long retries started after they were due (measured
// from the previous attempt of the same operation), duration_ms the exchanges.
// attempt_rollups_hourly holds the same sums per hour (hour_at), for long ranges: a
// 90-day chart reads a few rows per hour instead of per minute.
// The store builds the rollups of the attempts already there (kBuildRollupsStep).
const char *const kVersion8[] = {
    "CREATE TABLE attempt_rollups ("
    " minute_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " policy_id TEXT NOT NULL,"
    " partition_key TEXT NOT NULL,"
    " status_class TEXT NOT NULL,"
    " decision TEXT NOT NULL,"
    " wait_source TEXT NOT NULL,"
    " reason TEXT NOT NULL,"
    " attempts BIGINT NOT NULL DEFAULT 0,"
    " wait_ms BIGINT NOT NULL DEFAULT 0,"
    " queue_ms BIGINT NOT NULL DEFAULT 0,"
    " duration_ms BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (minute_at, endpoint_id, policy_id, partition_key, status_class, decision,"
    " wait_source, reason))%WITHOUT_ROWID%",
    "CREATE TABLE attempt_rollups_hourly ("
    " hour_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " policy_id TEXT NOT NULL,"
    " partition_key TEXT NOT NULL,"
    " status_class TEXT NOT NULL,"
    " decision TEXT NOT NULL,"
    " wait_source TEXT NOT NULL,"
    " reason TEXT NOT NULL,"
    " attempts BIGINT NOT NULL DEFAULT 0,"
    " wait_ms BIGINT NOT NULL DEFAULT 0,"
    " queue_ms BIGINT NOT NULL DEFAULT 0,"
    " duration_ms BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (hour_at, endpoint_id, policy_id, partition_key, status_class, decision,"
    " wait_source, reason))%WITHOUT_ROWID%",
    kBuildRollupsStep,
    "%HOURLY_FROM_MINUTES%",
};

// Version 9: jobs handed in from outside (docs/intake.md). job_values fill the
// endpoint's ${job:NAME} placeholders; request_hash is what the job's idempotency key
// stands for (method, filled URL, header fields as written, body), set only for jobs
// handed in, whose keys are unique: the same key again finds the same operation.
const char *const kVersion9[] = {
    "ALTER TABLE operations ADD COLUMN job_values TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE operations ADD COLUMN request_hash TEXT NOT NULL DEFAULT ''",
    "CREATE UNIQUE INDEX operations_handed_in_key ON operations (idempotency_key)"
    " WHERE request_hash <> ''",
};

// Version 10: one row per operator action, single or bulk (docs/bulk-actions.md): when
// it was asked for, by whom, on which worker, what it was (retry, force, cancel,
// pause, resume, lift-hold), what it was applied to (a filter's text or a list), how
// many it was asked for and how many it changed. Written in the transaction that
// applies the action.
const char *const kVersion10[] = {
    "CREATE TABLE operator_audit ("
    " id %PRIMARY_KEY%,"
    " at BIGINT NOT NULL,"
    " actor TEXT NOT NULL,"
    " worker_id TEXT NOT NULL DEFAULT '',"
    " action TEXT NOT NULL,"
    " target TEXT NOT NULL,"
    " asked BIGINT NOT NULL DEFAULT 0,"
    " changed BIGINT NOT NULL DEFAULT 0)",
    "CREATE INDEX operator_audit_by_time ON operator_audit (at)",
};

// Version 11: how many exchanges each worker had in flight at most in each minute, and
// in each hour (docs/rollups.md), written with its attempts. The fleet's figure for a
// minute is the sum of its workers' peaks.
const char *const kVersion11[] = {
    "CREATE TABLE inflight_peaks ("
    " minute_at BIGINT NOT NULL,"
    " worker_id TEXT NOT NULL,"
    " peak INTEGER NOT NULL,"
    " PRIMARY KEY (minute_at, worker_id))%WITHOUT_ROWID%",
    "CREATE TABLE inflight_peaks_hourly ("
    " hour_at BIGINT NOT NULL,"
    " worker_id TEXT NOT NULL,"
    " peak INTEGER NOT NULL,"
    " PRIMARY KEY (hour_at, worker_id))%WITHOUT_ROWID%",
};

// Operations claimed on standby: leased to a worker but holding no fleet-wide permit
// until one of that worker's attempts to their host ends and hands its permit over
// (docs/fleet.md, "Standby claims").
const char *const kVersion12[] = {
    "ALTER TABLE operations ADD COLUMN holds_permit INTEGER NOT NULL DEFAULT 1",
};

// Where each worker's credentials stand (docs/credentials.md): `cooldown status` and
// the window read them. A row per worker and credential, written when its state
// changes; never a secret or a token.
const char *const kVersion13[] = {
    "CREATE TABLE credential_states ("
    " worker_id TEXT NOT NULL,"
    " credential_id TEXT NOT NULL,"
    " phase TEXT NOT NULL,"
    " valid_until BIGINT NOT NULL DEFAULT -1,"
    " failing_since BIGINT NOT NULL DEFAULT -1,"
    " next_try_at BIGINT NOT NULL DEFAULT -1,"
    " last_error TEXT NOT NULL DEFAULT '',"
    " token_requests BIGINT NOT NULL DEFAULT 0,"
    " updated_at BIGINT NOT NULL,"
    " PRIMARY KEY (worker_id, credential_id))%WITHOUT_ROWID%",
};

// Endpoints held for a while (docs/maintenance.md): paused = 2 is a hold that ends by
// itself at held_until, for held_reason (a maintenance window, or an operator's
// `cooldown pause --for`); paused = 1 stays an operator's pause until resumed. Claims
// leave out both, so the partial index covers both.
const char *const kVersion14[] = {
    "ALTER TABLE endpoints ADD COLUMN held_until BIGINT NOT NULL DEFAULT 0",
    "ALTER TABLE endpoints ADD COLUMN held_reason TEXT NOT NULL DEFAULT ''",
    "DROP INDEX endpoints_paused",
    "CREATE INDEX endpoints_paused ON endpoints (id) WHERE paused <> 0",
};

// Version 15: what the SLA report reads besides the rollups (docs/report.md). A latency
// histogram per hour and endpoint: how many answered attempts (status <> 0, by the hour
// they ended in, as the rollups place them) took a duration in each bucket of
// core/store/LatencyBuckets.h. And per minute and per hour the operations that
// succeeded after a 429 or 503 (an attempt of theirs answered one), counted at their
// successful attempt. Both are built from the raw attempts still there.
const char *const kVersion15[] = {
    "CREATE TABLE attempt_latency_rollups ("
    " hour_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " bucket INTEGER NOT NULL,"
    " attempts BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (hour_at, endpoint_id, bucket))%WITHOUT_ROWID%",
    "CREATE TABLE throttled_successes ("
    " minute_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " operations BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (minute_at, endpoint_id))%WITHOUT_ROWID%",
    "CREATE TABLE throttled_successes_hourly ("
    " hour_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " operations BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (hour_at, endpoint_id))%WITHOUT_ROWID%",
    "INSERT INTO attempt_latency_rollups (hour_at, endpoint_id, bucket, attempts)"
    " SELECT e - e % 3600000, endpoint_id, b, COUNT(*) FROM (SELECT endpoint_id,"
    " CASE WHEN finished_at >= 0 THEN finished_at WHEN started_at >= 0 THEN started_at"
    " ELSE 0 END AS e, %LATENCY_BUCKET% AS b FROM attempts WHERE status <> 0) x"
    " GROUP BY e - e % 3600000, endpoint_id, b",
    "INSERT INTO throttled_successes (minute_at, endpoint_id, operations)"
    " SELECT e - e % 60000, endpoint_id, COUNT(*) FROM (SELECT a.endpoint_id,"
    " CASE WHEN a.finished_at >= 0 THEN a.finished_at WHEN a.started_at >= 0"
    " THEN a.started_at ELSE 0 END AS e FROM attempts a"
    " WHERE a.decision = 'success' AND a.lease_conflict = 0 AND EXISTS (SELECT 1"
    " FROM attempts t WHERE t.operation_id = a.operation_id AND t.status IN (429, 503))) x"
    " GROUP BY e - e % 60000, endpoint_id",
    "INSERT INTO throttled_successes_hourly (hour_at, endpoint_id, operations)"
    " SELECT minute_at - minute_at % 3600000, endpoint_id, SUM(operations)"
    " FROM throttled_successes GROUP BY minute_at - minute_at % 3600000, endpoint_id",
};

// Version 16: checks on what an answer says (docs/checks.md). The assertion an attempt
// failed, and the last exchanges of each endpoint that failed or were degraded, kept
// with their bodies (redacted, bounded) and pruned with their attempts.
const char *const kVersion16[] = {
    "ALTER TABLE attempts ADD COLUMN check_failure TEXT NOT NULL DEFAULT ''",
    "CREATE TABLE kept_exchanges ("
    " attempt_id BIGINT PRIMARY KEY,"
    " endpoint_id TEXT NOT NULL,"
    " request_body TEXT NOT NULL,"
    " response_body TEXT NOT NULL,"
    " request_bytes BIGINT NOT NULL DEFAULT 0,"
    " response_bytes BIGINT NOT NULL DEFAULT 0,"
    " response_truncated INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX kept_exchanges_by_endpoint ON kept_exchanges (endpoint_id, attempt_id)",
};

// Version 17: the SLA report over long ranges (docs/report.md). Its sums per day (UTC)
// beside the hourly ones, so that a quarter of a hundred endpoints is thousands of rows
// rather than hundreds of thousands; and the minutes by endpoint and decision, so that
// downtime finds an endpoint's failed minutes, and the successes between them, without
// reading every endpoint's minutes. The days are built from the hours already there.
const char *const kVersion17[] = {
    "CREATE TABLE attempt_rollups_daily ("
    " day_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " status_class TEXT NOT NULL,"
    " decision TEXT NOT NULL,"
    " reason TEXT NOT NULL,"
    " attempts BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (day_at, endpoint_id, status_class, decision, reason))%WITHOUT_ROWID%",
    "CREATE TABLE attempt_latency_rollups_daily ("
    " day_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " bucket INTEGER NOT NULL,"
    " attempts BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (day_at, endpoint_id, bucket))%WITHOUT_ROWID%",
    "CREATE TABLE throttled_successes_daily ("
    " day_at BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " operations BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (day_at, endpoint_id))%WITHOUT_ROWID%",
    "CREATE INDEX attempt_rollups_by_endpoint ON attempt_rollups (endpoint_id, decision, "
    "minute_at)",
    "INSERT INTO attempt_rollups_daily (day_at, endpoint_id, status_class, decision, reason,"
    " attempts) SELECT hour_at - hour_at % 86400000, endpoint_id, status_class, decision, reason,"
    " SUM(attempts) FROM attempt_rollups_hourly GROUP BY hour_at - hour_at % 86400000,"
    " endpoint_id, status_class, decision, reason",
    "INSERT INTO attempt_latency_rollups_daily (day_at, endpoint_id, bucket, attempts)"
    " SELECT hour_at - hour_at % 86400000, endpoint_id, bucket, SUM(attempts)"
    " FROM attempt_latency_rollups GROUP BY hour_at - hour_at % 86400000, endpoint_id, bucket",
    "INSERT INTO throttled_successes_daily (day_at, endpoint_id, operations)"
    " SELECT hour_at - hour_at % 86400000, endpoint_id, SUM(operations)"
    " FROM throttled_successes_hourly GROUP BY hour_at - hour_at % 86400000, endpoint_id",
};

// Version 18: incidents (docs/incidents.md). The failures of each shared cause (a host,
// a proxy) by endpoint, the incidents they opened with the endpoints each blocks (one
// open incident per cause for the whole fleet: the unique index) and whether their one
// alert went (alerted_at: set once, by one worker), and when each alert
// target last got a message of each kind, so that its min_interval_seconds holds for the
// fleet and not per worker.
const char *const kVersion18[] = {
    "CREATE TABLE incident_signals ("
    " cause TEXT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " failed_at BIGINT NOT NULL,"
    " PRIMARY KEY (cause, endpoint_id))%WITHOUT_ROWID%",
    "CREATE TABLE incidents ("
    " id %PRIMARY_KEY%,"
    " cause TEXT NOT NULL,"
    " opened_at BIGINT NOT NULL,"
    " closed_at BIGINT,"
    " alerted_at BIGINT,"
    " opened_by TEXT NOT NULL,"
    " closed_by TEXT NOT NULL DEFAULT '')",
    "CREATE UNIQUE INDEX incidents_open ON incidents (cause) WHERE closed_at IS NULL",
    "CREATE INDEX incidents_by_opening ON incidents (opened_at)",
    "CREATE TABLE incident_endpoints ("
    " incident_id BIGINT NOT NULL,"
    " endpoint_id TEXT NOT NULL,"
    " PRIMARY KEY (incident_id, endpoint_id))%WITHOUT_ROWID%",
    "CREATE TABLE alert_turns ("
    " alert_id TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " sent_at BIGINT NOT NULL,"
    " PRIMARY KEY (alert_id, kind))%WITHOUT_ROWID%",
};

// Version 19: workers that find no network (docs/offline.md), one row each while it
// lasts, for `cooldown status`: the state is the worker's, and only it can say.
const char *const kVersion19[] = {
    "CREATE TABLE worker_states ("
    " worker_id TEXT PRIMARY KEY,"
    " offline_since BIGINT NOT NULL,"
    " updated_at BIGINT NOT NULL)",
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
        out.append(QString::fromLatin1(statement)
                       .replace(QLatin1String("%PRIMARY_KEY%"), primaryKey)
                       .replace(QLatin1String("%WITHOUT_ROWID%"),
                                postgres ? QString() : QStringLiteral(" WITHOUT ROWID"))
                       .replace(QLatin1String("%HOURLY_FROM_MINUTES%"), hourlyRollupsFill())
                       .replace(QLatin1String("%LATENCY_BUCKET%"),
                                latency::bucketSql(QStringLiteral("duration_ms"))));
    }
    return out;
}

} // namespace

int latestVersion()
{
    return 19;
}

int workerStatesVersion()
{
    return 19;
}

int incidentsVersion()
{
    return 18;
}

int dailyReportVersion()
{
    return 17;
}

int keptExchangesVersion()
{
    return 16;
}

int latencyRollupsVersion()
{
    return 15;
}

int endpointHoldsVersion()
{
    return 14;
}

int credentialsVersion()
{
    return 13;
}

int standbyVersion()
{
    return 12;
}

int inFlightPeaksVersion()
{
    return 11;
}

int auditVersion()
{
    return 10;
}

int rollupsVersion()
{
    return 8;
}

QString hourlyRollupsFill()
{
    return QStringLiteral(
        "INSERT INTO attempt_rollups_hourly (hour_at, endpoint_id, policy_id, partition_key,"
        " status_class, decision, wait_source, reason, attempts, wait_ms, queue_ms, duration_ms)"
        " SELECT minute_at - minute_at % 3600000, endpoint_id, policy_id, partition_key,"
        " status_class, decision, wait_source, reason, SUM(attempts), SUM(wait_ms),"
        " SUM(queue_ms), SUM(duration_ms) FROM attempt_rollups"
        " GROUP BY minute_at - minute_at % 3600000, endpoint_id, policy_id, partition_key,"
        " status_class, decision, wait_source, reason");
}

QString endedStates()
{
    return QStringLiteral("('succeeded', 'failed', 'cancelled')");
}

QString prunableAttempt(const QString &before)
{
    // An operation that has not ended still needs its attempts, whatever their age: its
    // next attempt's queue time is measured from the last one (docs/rollups.md), and a
    // parked one's history is what its operator reads before acting on it.
    return QStringLiteral("a.started_at < %1 AND o.state IN %2").arg(before, endedStates());
}

QString rollupRecount(qint64 fromMs, qint64 toMs, qint64 firstOperation, qint64 endOperation)
{
    // The minute an attempt counts in, its due time as the next attempt of its
    // operation sees it, and its key, per attempt; then grouped. The window takes
    // the previous attempt that kept its lease: one that lost it changed nothing.
    static const char kEnd[] = "CASE WHEN a.finished_at >= 0 THEN a.finished_at"
                               " WHEN a.started_at >= 0 THEN a.started_at ELSE 0 END";
    QString range;
    if (fromMs >= 0)
        range += QStringLiteral(" AND %1 >= %2").arg(QLatin1String(kEnd)).arg(fromMs);
    if (toMs >= 0)
        range += QStringLiteral(" AND %1 < %2").arg(QLatin1String(kEnd)).arg(toMs);
    // Whole operations only: the window needs each attempt's previous one.
    QString operations;
    if (firstOperation >= 0 && endOperation >= 0)
        operations = QStringLiteral(" WHERE operation_id >= %1 AND operation_id < %2")
                         .arg(firstOperation)
                         .arg(endOperation);
    return QStringLiteral(
               "SELECT minute_at, endpoint_id, policy_id, partition_key, status_class, decision,"
               " wait_source, reason, COUNT(*), SUM(wait_ms), SUM(queue_ms), SUM(duration_ms)"
               " FROM (SELECT"
               " (%1) - (%1) % 60000 AS minute_at,"
               " a.endpoint_id AS endpoint_id, a.policy_id AS policy_id,"
               " COALESCE(o.partition_key, '') AS partition_key,"
               " CASE WHEN a.status = 0 THEN 'none'"
               " WHEN a.status IN (429, 503) THEN CAST(a.status AS TEXT)"
               " ELSE CAST(a.status / 100 AS TEXT) || 'xx' END AS status_class,"
               " CASE WHEN a.lease_conflict = 1 THEN 'conflict' ELSE a.decision END AS decision,"
               " CASE WHEN a.lease_conflict = 0 AND a.decision = 'retry' THEN"
               " CASE WHEN a.wait_source = '' THEN 'backoff' ELSE a.wait_source END"
               " ELSE '' END AS wait_source,"
               " CASE WHEN a.lease_conflict = 0 AND a.decision = 'fail' THEN"
               " CASE WHEN a.reason = '' THEN 'unknown' ELSE a.reason END"
               " WHEN a.lease_conflict = 0 AND a.decision = 'success' AND a.reason = 'degraded'"
               " THEN 'degraded' WHEN a.lease_conflict = 0 AND a.decision = 'retry'"
               " AND a.reason = 'offline' THEN 'offline' ELSE '' END AS reason,"
               " CASE WHEN a.lease_conflict = 0 AND a.decision = 'retry' AND a.wait_ms > 0"
               " THEN a.wait_ms ELSE 0 END AS wait_ms,"
               " CASE WHEN a.lease_conflict = 0 AND a.started_at > a.due_at"
               " THEN a.started_at - a.due_at ELSE 0 END AS queue_ms,"
               " CASE WHEN a.duration_ms > 0 THEN a.duration_ms ELSE 0 END AS duration_ms"
               " FROM (SELECT *, LAG(CASE WHEN decision = 'retry' AND wait_ms >= 0 THEN"
               " (CASE WHEN finished_at >= 0 THEN finished_at ELSE started_at END) + wait_ms"
               " END) OVER (PARTITION BY operation_id, lease_conflict ORDER BY id) AS due_at"
               " FROM attempts%3) a"
               " LEFT JOIN operations o ON o.id = a.operation_id WHERE 1 = 1%2) r"
               " GROUP BY minute_at, endpoint_id, policy_id, partition_key, status_class,"
               " decision, wait_source, reason")
        .arg(QLatin1String(kEnd), range, operations);
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
    case 8:
        return statements(kVersion8, postgres);
    case 9:
        return statements(kVersion9, postgres);
    case 10:
        return statements(kVersion10, postgres);
    case 11:
        return statements(kVersion11, postgres);
    case 12:
        return statements(kVersion12, postgres);
    case 13:
        return statements(kVersion13, postgres);
    case 14:
        return statements(kVersion14, postgres);
    case 15:
        return statements(kVersion15, postgres);
    case 16:
        return statements(kVersion16, postgres);
    case 17:
        return statements(kVersion17, postgres);
    case 18:
        return statements(kVersion18, postgres);
    case 19:
        return statements(kVersion19, postgres);
    default:
        return {};
    }
}

} // namespace cooldown::schema
