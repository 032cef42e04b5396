// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/DatabaseFault.h"
#include "core/store/SqlDialect.h"
#include "core/store/SqlTransaction.h"

#include <QElapsedTimer>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

#include <map>
#include <memory>

struct sqlite3;

namespace cooldown {

class SqlStatement;
class WalCheckpointer;

struct StoreOptions
{
    // SQLite: synchronous=FULL makes every commit survive a power cut; NORMAL (the
    // default, with WAL) survives a crash of the process and may lose the last commits
    // on power loss.
    bool fullSync = false;
    // SQLite: how long a statement waits for another connection's lock.
    int busyTimeoutMs = 5000;
    // PostgreSQL: how long to wait for the server to answer.
    int connectTimeoutSeconds = 5;
    // SQLite: false refuses a path where no database exists yet, instead of creating
    // one there (readers such as the export must not leave empty databases behind).
    bool createIfMissing = true;
    // PostgreSQL: partition buckets are paced by the server's clock, so that workers
    // whose clocks disagree still agree on them. False paces them by the nowMs the
    // caller passes, as SQLite always does (one machine, one clock): for tests that
    // drive a manual clock.
    bool paceByDatabaseClock = true;
    // SQLite: the store calls the SQLite library it was linked with on the connection
    // Qt's driver opened (a busy handler that polls, the WAL checkpointer, streamed
    // reads), which is only sound when the driver uses that same library. The store
    // checks (sqliteLibrariesAgree) and uses QtSql alone when they differ; false makes
    // it do so anyway: for tests of that path.
    bool useLinkedSqlite = true;
    // SQLite: a file of this many bytes kept beside the database (its name and
    // "-reserve"), given back when the disk fills so that answers already received can
    // still be recorded (releaseReserve()), and made again once space is back. 0: none.
    // The engine's store keeps one; readers do not.
    qint64 reserveBytes = 0;
};

// Whether Qt's SQLite driver and this program use one SQLite library: the driver's
// `SELECT sqlite_source_id()` beside the linked library's sqlite3_sourceid(). A Qt
// built with its bundled SQLite has its own copy, and a connection of one must not be
// handed to the other.
bool sqliteLibrariesAgree(const QString &driverSourceId, const char *linkedSourceId);

// One connection to the store's database, and what every part of the store runs its
// statements through: the connection opened from a URL with its settings, the
// statements prepared once, transactions, the SqlDialect of its backend, the last
// error, and the fault a failure showed (the connection lost, the disk full) with the
// reconnect that ends it (docs/database-outages.md). It knows nothing of the schema:
// Store reads the version and migrates (Schema.h). Private to core/store; one thread
// uses it, as QtSql requires.
class Database final
{
public:
    enum class Backend
    {
        Sqlite,
        Postgres
    };
    // Whose a failure to open is: Input (a malformed URL, a folder, no database where
    // one must exist, a schema newer than this build) or Runtime (a server that cannot
    // be reached, a file that cannot be opened or written, a missing driver): the
    // command line's exit codes 2 and 1.
    enum class OpenFailure
    {
        None,
        Input,
        Runtime,
    };

    // url: a SQLite file path, or postgresql://user[:password]@host[:port]/database.
    // Opens the connection and runs nothing on it (a database of a newer version must
    // stay untouched until its version is read). nullptr, why in *error (the password
    // never in it) and whose it is in *failure when it does not open.
    static std::unique_ptr<Database> connect(const QString &url, const StoreOptions &options,
                                             QString *error, OpenFailure *failure);
    ~Database();
    Q_DISABLE_COPY_MOVE(Database)

    Backend backend() const { return m_backend; }
    bool isPostgres() const { return m_backend == Backend::Postgres; }
    const SqlDialect &dialect() const { return m_dialect; }
    const StoreOptions &options() const { return m_options; }
    QSqlDatabase connection() const { return m_database; }
    // The SQLite connection under QtSql, or null on PostgreSQL and where Qt's driver
    // uses another SQLite library than this program (StoreOptions::useLinkedSqlite).
    sqlite3 *sqliteHandle() const;
    bool usesLinkedSqlite() const { return m_linkedSqlite; }

    // Processes that open a new SQLite file at the same moment race for its first locks
    // (creating it, switching it to WAL), and SQLite refuses some of those at once,
    // without its busy handler, where waiting could deadlock. True, after a short
    // random pause, when why is such a refusal and less than the busy timeout has
    // passed since waited started: try again. Always false on PostgreSQL.
    bool mayRetryFirstLock(const QString &why, const QElapsedTimer &waited) const;
    // SQLite: what a connection needs before the first write (the write-ahead log,
    // pragmas, the busy handler, the checkpointer). newDatabase: no table exists yet,
    // so the file can still be given incremental vacuum. A first lock refused is tried
    // again (mayRetryFirstLock) within the busy timeout counted from waited.
    bool setUpSqlite(bool newDatabase, const QElapsedTimer &waited, QString *error);
    // SQLite with StoreOptions::reserveBytes: the reserve file beside the database,
    // made when missing and the disk has room for it. Once the schema is in place.
    void makeReserve();
    // Deletes the reserve, so that what must still be written after the disk filled
    // has room. True when there was one.
    bool releaseReserve();

    // A transaction on this connection (SQLite's own BEGIN where it may; see
    // SqlTransaction).
    SqlTransaction begin(SqlTransaction::Kind kind = SqlTransaction::Kind::Write) const
    {
        return SqlTransaction(m_database, kind, sqliteHandle());
    }
    // One write transaction around many writes (SqlBatch), SQLite only: there BEGIN
    // IMMEDIATE serialises writers, while on PostgreSQL several workers starting together
    // would lock the same rows in different orders. Null on PostgreSQL (no error) and
    // when it could not begin (lastError()).
    std::unique_ptr<SqlBatch> beginBatch();
    // SQLite: copies the write-ahead log back into the database, off this thread where
    // it can.
    void requestCheckpoint();
    int completedCheckpoints() const;

    // A query prepared for one use; a failure to prepare is noted as by fail().
    QSqlQuery prepare(const QString &sql);
    // A statement prepared once and kept for the connection's life, for the paths taken
    // on every attempt: SQLite's own statement on SQLite (SqlStatement.h). Bind every
    // value on each use; finish() it after reading so that it holds no read snapshot.
    // nullptr when it does not prepare (see lastError()).
    SqlStatement *cached(const QString &sql);
    // Runs the statement; a failure is noted (its fault too) and false returned.
    bool exec(QSqlQuery &query);
    bool exec(SqlStatement &statement);

    // The last failure, as "context: detail"; empty after clearError().
    QString lastError() const { return m_lastError; }
    // Notes a failure and logs it (at debug level while there is a fault: the
    // scheduler says a fault once); returns false, for `return fail(...)`.
    bool fail(const QString &context, const QString &detail);
    // A refusal that is no failure of the database (an operation in the wrong state):
    // kept as the last error, not logged.
    void setError(const QString &message) { m_lastError = message; }
    void clearError() { m_lastError.clear(); }

    // The fault the first failure since the last reconnect() showed, or None while
    // statements fail only for reasons of their own. Further failures of the same kind
    // are logged at debug level only.
    DatabaseFault fault() const { return m_fault; }
    // Makes the database usable again after a fault; true when it is (and the fault is
    // cleared), false with why in *error. A lost connection: every prepared statement
    // goes, the connection is closed and opened again with the same settings, and
    // SQLite's set-up is done again (not the migrations). A full disk: true once there
    // is room again (SQLite: free space on the database's file system for the reserve
    // and as much again, and the reserve is made again; PostgreSQL: the server
    // answers). No fault: true at once.
    bool reconnect(QString *error);

private:
    Database(Backend backend, const QString &connectionName, const StoreOptions &options);
    // SQLite: the pragmas, busy handler and checkpointer of a connection in the given
    // journal mode; at open and after a reconnect.
    bool setUpSqliteConnection(const QString &mode, QString *error);
    // Notes the fault a failure shows, if any; returns whether it is a fault.
    bool noteFault(DatabaseFault fault);
    // After a lost connection: the statements prepared on it, without a word for each.
    void dropStatementsOfLostConnection();

    Backend m_backend;
    SqlDialect m_dialect;
    QString m_connectionName;
    StoreOptions m_options; // as opened: a reconnect sets the new connection up the same
    QSqlDatabase m_database;
    std::map<QString, std::unique_ptr<SqlStatement>> m_statements;
    std::unique_ptr<WalCheckpointer> m_checkpointer; // SQLite in WAL mode
    int m_busyTimeoutMs = 0;                         // SQLite: how long pollWhileBusy keeps trying
    bool m_linkedSqlite = false;
    QString m_lastError;
    DatabaseFault m_fault = DatabaseFault::None;
    QString m_reservePath; // SQLite with a reserve: its file
};

} // namespace cooldown
