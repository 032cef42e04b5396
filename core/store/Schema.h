// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QStringList>

namespace cooldown::schema {

// The version a new database gets. Each version's step turns the previous version
// into it; a database is migrated by running the steps after its version in order.
int latestVersion();

// The statements of the step that brings a database from version - 1 to version.
// The dialects differ only in how a table gets its generated primary key.
QStringList migrationStep(int version, bool postgres);

// The versions that added what the migration tests check; the store's reads and writes
// know the latest schema only.
// The version that added attempt_rollups.
int rollupsVersion();

// The version that added operator_audit.
int auditVersion();

// The version that added inflight_peaks.
int inFlightPeaksVersion();

// The version that added operations.holds_permit (standby claims).
int standbyVersion();

// The version that added credential_states.
int credentialsVersion();
// The version that added endpoint holds (held_until, held_reason; paused = 2).
int endpointHoldsVersion();
// The version that added the SLA report's tables: attempt_latency_rollups and
// throttled_successes(_hourly).
int latencyRollupsVersion();
// The version that added the SLA report's daily tables and the index of the minutes by
// endpoint (attempt_rollups_by_endpoint).
int dailyReportVersion();
// The version that added attempts.check_failure and kept_exchanges.
int keptExchangesVersion();
// The version that added incidents, their endpoints and signals, and alert_turns.
int incidentsVersion();
// The version that added worker_states (a worker offline since when).
int workerStatesVersion();

// A SELECT of attempt_rollups' columns, in table order, counted afresh from the raw
// attempts that end in [fromMs, toMs) (-1: unbounded): what the rollups written with
// the attempts must equal. The migration that adds the rollups fills them with it,
// one step of operations at a time: given, only the attempts of operations with ids in
// [firstOperation, endOperation) count.
QString rollupRecount(qint64 fromMs = -1, qint64 toMs = -1, qint64 firstOperation = -1,
                      qint64 endOperation = -1);

// The statement of a migration that the store runs itself instead of executing it:
// the rollups of the attempts already there, built in steps with progress
// (Store::migrate).
extern const char kBuildRollupsStep[];

// An INSERT that fills the empty attempt_rollups_hourly from attempt_rollups.
QString hourlyRollupsFill();

// The states of an operation that has ended, as an SQL list:
// ('succeeded', 'failed', 'cancelled').
QString endedStates();

// The raw attempts retention deletes, as a condition on attempts `a` joined to their
// operations `o`: those that started before `before` (an SQL expression: a number, or
// a parameter to bind) and whose operation has ended. Store::pruneAttempts deletes by
// it and AttemptFilter::prunableBeforeMs selects by it, so that `cooldown export
// --prunable` writes exactly what the pruner deletes at that cut.
QString prunableAttempt(const QString &before);

} // namespace cooldown::schema
