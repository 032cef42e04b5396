#include "core/store/Store.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/ratelimit/MeasuredPace.h"
#include "core/store/Schema.h"
#include "core/store/SqlTransaction.h"
#include "core/store/WalCheckpointer.h"

#include <QAtomicInteger>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStringList>
#include <QThread>
#include <QUrl>
#include <QVariant>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <initializer_list>
#include <limits>
#include <thread>
#include <utility>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace cooldown {

namespace {

// SQLite: the write-ahead log is cut back to this size after a checkpoint.
constexpr qint64 kJournalSizeLimitBytes = qint64(16) * 1024 * 1024;

const QString kSqliteDriver = QStringLiteral("QSQLITE");
const QString kPostgresDriver = QStringLiteral("QPSQL");

// The order readOperation() expects.
const char kOperationColumns[] =
    "id, endpoint_id, state, attempt, throttled_attempts, created_at, first_attempt_at,"
    " next_attempt_at, last_status, last_error, idempotency_key, response_instance,"
    " lease_owner, lease_expires_at, version, final_reason, wait_source,"
    " previous_backoff_ms, policy_id, partition_key, force_next, rescued, cancel_requested,"
    " request_body";

QString columns(const QString &list, const char *prefix = "")
{
    if (!*prefix)
        return list;
    QStringList out;
    for (const QString &name : list.split(u','))
        out.append(QLatin1String(prefix) + name.trimmed());
    return out.join(QStringLiteral(", "));
}

QString columns(const char *list, const char *prefix = "")
{
    return columns(QString::fromLatin1(list), prefix);
}

// A null QString binds as SQL NULL; the schema wants empty text instead.
QString text(const QString &value)
{
    return value.isNull() ? QStringLiteral("") : value;
}

// Names for the values of a statement run on every attempt. QtSql binds a named value
// with one lookup, but formats a ":N" name for every positional one, which costs more
// than SQLite's own work for such a row.
class Placeholders
{
public:
    Placeholders(std::initializer_list<const char *> names)
    {
        for (const char *name : names)
            m_names.append(QLatin1Char(':') + QLatin1String(name));
    }
    // ":a, :b, …" in declaration order, for a VALUES list.
    QString list() const { return m_names.join(QStringLiteral(", ")); }
    // "a, b, …": the names without their colons, for a column list.
    QString names() const { return list().remove(u':'); }
    template <size_t N> void bind(QSqlQuery &query, const QVariant (&values)[N]) const
    {
        Q_ASSERT(qsizetype(N) == m_names.size());
        for (size_t i = 0; i < N; ++i)
            query.bindValue(m_names.at(qsizetype(i)), values[i]);
    }

private:
    QStringList m_names;
};

const Placeholders &attemptInsert()
{
    static const Placeholders columns{"operation_id",
                                      "endpoint_id",
                                      "attempt",
                                      "started_at",
                                      "finished_at",
                                      "method",
                                      "url",
                                      "status",
                                      "error",
                                      "decision",
                                      "reason",
                                      "wait_ms",
                                      "wait_source",
                                      "retry_after_raw",
                                      "problem_type",
                                      "problem_instance",
                                      "rate_limit_remaining",
                                      "idempotency_key",
                                      "duration_ms",
                                      "worker_id",
                                      "policy_id",
                                      "policy_version",
                                      "forced",
                                      "request_headers",
                                      "response_headers",
                                      "lease_conflict"};
    return columns;
}

// The order of AttemptColumn: the id, the columns an attempt is written with, and the
// operation's state.
const QString &attemptColumns()
{
    static const QString list =
        QStringLiteral("a.id, %1, o.state").arg(columns(attemptInsert().names(), "a."));
    Q_ASSERT(list.count(u',') + 1 == kAttemptColumnCount);
    return list;
}

const Placeholders &finishUpdate()
{
    static const Placeholders values{"cancelled_state",
                                     "state",
                                     "attempt",
                                     "throttled_attempts",
                                     "first_attempt_at",
                                     "cancelled_next",
                                     "next",
                                     "last_status",
                                     "last_error",
                                     "response_instance",
                                     "cancelled_reason",
                                     "reason",
                                     "wait_source",
                                     "previous_backoff_ms",
                                     "force_next",
                                     "cancelled_owner",
                                     "owner",
                                     "cancelled_expires",
                                     "expires",
                                     "id",
                                     "version",
                                     "worker"};
    return values;
}

OperationRecord readOperation(const QSqlQuery &query)
{
    OperationRecord r;
    r.id = query.value(0).toLongLong();
    r.endpointId = query.value(1).toString();
    r.state = operationStateFromString(query.value(2).toString()).value_or(OperationState::Failed);
    r.attempt = query.value(3).toInt();
    r.throttledAttempts = query.value(4).toInt();
    r.createdAtMs = query.value(5).toLongLong();
    r.firstAttemptAtMs = query.value(6).toLongLong();
    r.nextAttemptAtMs = query.value(7).toLongLong();
    r.lastStatus = query.value(8).toInt();
    r.lastError = query.value(9).toString();
    r.idempotencyKey = query.value(10).toString();
    r.responseInstance = query.value(11).toString();
    r.leaseOwner = query.value(12).toString();
    r.leaseExpiresAtMs = query.value(13).toLongLong();
    r.version = query.value(14).toLongLong();
    r.finalReason = query.value(15).toString();
    r.waitSource = query.value(16).toString();
    r.previousBackoffMs = query.value(17).toLongLong();
    r.policyId = query.value(18).toString();
    r.partitionKey = query.value(19).toString();
    r.forceNext = query.value(20).toInt() != 0;
    r.rescued = query.value(21).toInt() != 0;
    r.cancelRequested = query.value(22).toInt() != 0;
    r.requestBody = query.value(23).toString().toUtf8();
    return r;
}

// A row's cells by column, whatever reads them: integer(i) and string(i).
template <typename Cells> void readAttempt(const Cells &cells, AttemptRecord *r)
{
    using C = AttemptColumn;
    r->id = cells.integer(C::Id);
    r->operationId = cells.integer(C::OperationId);
    r->endpointId = cells.string(C::EndpointId);
    r->attempt = int(cells.integer(C::Attempt));
    r->startedAtMs = cells.integer(C::StartedAt);
    r->finishedAtMs = cells.integer(C::FinishedAt);
    r->method = cells.string(C::Method);
    r->url = cells.string(C::Url);
    r->status = int(cells.integer(C::Status));
    r->error = cells.string(C::Error);
    r->decision = cells.string(C::Decision);
    r->reason = cells.string(C::Reason);
    r->waitMs = cells.integer(C::WaitMs);
    r->waitSource = cells.string(C::WaitSource);
    r->retryAfterRaw = cells.string(C::RetryAfterRaw);
    r->problemType = cells.string(C::ProblemType);
    r->problemInstance = cells.string(C::ProblemInstance);
    r->rateLimitRemaining = int(cells.integer(C::RateLimitRemaining));
    r->idempotencyKey = cells.string(C::IdempotencyKey);
    r->durationMs = cells.integer(C::DurationMs);
    r->workerId = cells.string(C::WorkerId);
    r->policyId = cells.string(C::PolicyId);
    r->policyVersion = int(cells.integer(C::PolicyVersion));
    r->forced = cells.integer(C::Forced) != 0;
    r->requestHeaders = cells.string(C::RequestHeaders);
    r->responseHeaders = cells.string(C::ResponseHeaders);
    r->leaseConflict = cells.integer(C::LeaseConflict) != 0;
}

// The cells of a QSqlQuery's current row.
struct QueryCells
{
    const QSqlQuery &query;
    qint64 integer(AttemptColumn column) const { return query.value(int(column)).toLongLong(); }
    QString string(AttemptColumn column) const { return query.value(int(column)).toString(); }
};

// The cells of a SQLite statement's current row.
struct SqliteCells
{
    sqlite3_stmt *statement;
    QByteArrayView text(AttemptColumn column) const
    {
        const int i = int(column);
        const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(statement, i));
        return data ? QByteArrayView(data, sqlite3_column_bytes(statement, i)) : QByteArrayView();
    }
    qint64 integer(AttemptColumn column) const
    {
        return sqlite3_column_int64(statement, int(column));
    }
    QString string(AttemptColumn column) const
    {
        const QByteArrayView utf8 = text(column);
        return utf8.isEmpty() ? QStringLiteral("") : QString::fromUtf8(utf8);
    }
};

QString stateText(OperationState state)
{
    return toString(state);
}

struct ParsedUrl
{
    Store::Backend backend = Store::Backend::Sqlite;
    QString path;
    QString host;
    int port = 5432;
    QString user;
    QString password;
    QString database;
};

std::optional<ParsedUrl> parseUrl(const QString &url, QString *error)
{
    ParsedUrl parsed;
    if (url.trimmed().isEmpty()) {
        *error = QStringLiteral("no database given");
        return std::nullopt;
    }
    if (!url.startsWith(QLatin1String("postgresql://")) &&
        !url.startsWith(QLatin1String("postgres://"))) {
        parsed.path = url;
        return parsed;
    }
    const QUrl u(url, QUrl::StrictMode);
    if (!u.isValid() || u.host().isEmpty()) {
        *error = QStringLiteral("'%1' is not a valid postgresql:// URL (expected "
                                "postgresql://user@host:port/database)")
                     .arg(Store::displayUrl(url));
        return std::nullopt;
    }
    parsed.backend = Store::Backend::Postgres;
    parsed.host = u.host();
    parsed.port = u.port(5432);
    parsed.user = u.userName();
    parsed.password = u.password();
    parsed.database = u.path().mid(1);
    if (parsed.database.isEmpty() || parsed.database.contains(u'/')) {
        *error =
            QStringLiteral("'%1' names no database (expected postgresql://user@host:port/database)")
                .arg(Store::displayUrl(url));
        return std::nullopt;
    }
    return parsed;
}

QAtomicInteger<quint64> g_connectionCounter;

// SQLite's own busy handler backs off to sleeps of 25 to 100 ms: a worker waiting for
// another process's write lock then misses the short gaps between that process's
// transactions, and can wait while the other claims everything. Trying again every
// millisecond, up to the busy timeout, gives each waiting worker its turn.
int pollWhileBusy(void *timeoutMs, int attempts)
{
    if (attempts >= *static_cast<const int *>(timeoutMs))
        return 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return 1;
}

// The driver's own words; Qt's text() appends a generic "Unable to execute statement".
QString errorText(const QSqlError &error)
{
    const QString database = error.databaseText().trimmed();
    return database.isEmpty() ? error.text().trimmed() : database;
}

} // namespace

// ---------------------------------------------------------------------------------------

AttemptCursor::AttemptCursor(std::unique_ptr<QSqlQuery> query) : m_query(std::move(query)) {}

AttemptCursor::AttemptCursor(sqlite3_stmt *statement) : m_statement(statement) {}

AttemptCursor::~AttemptCursor()
{
    sqlite3_finalize(m_statement);
}

bool AttemptCursor::next()
{
    if (m_statement) {
        const int rc = sqlite3_step(m_statement);
        if (rc == SQLITE_ROW)
            return true;
        if (rc != SQLITE_DONE)
            m_error = QString::fromUtf8(sqlite3_errmsg(sqlite3_db_handle(m_statement)));
        return false;
    }
    if (!m_query->next()) {
        if (m_query->lastError().isValid())
            m_error = errorText(m_query->lastError());
        return false;
    }
    return true;
}

bool AttemptCursor::next(AttemptRecord *record)
{
    if (!next())
        return false;
    read(record);
    return true;
}

void AttemptCursor::read(AttemptRecord *record) const
{
    if (m_statement)
        readAttempt(SqliteCells{m_statement}, record);
    else
        readAttempt(QueryCells{*m_query}, record);
}

qint64 AttemptCursor::integer(AttemptColumn column) const
{
    return m_statement ? SqliteCells{m_statement}.integer(column)
                       : QueryCells{*m_query}.integer(column);
}

QByteArrayView AttemptCursor::text(AttemptColumn column) const
{
    if (m_statement)
        return SqliteCells{m_statement}.text(column);
    QByteArray &cell = m_text[int(column)];
    cell = QueryCells{*m_query}.string(column).toUtf8();
    return cell;
}

OperationState AttemptCursor::operationState() const
{
    const QByteArrayView state = text(AttemptColumn::OperationState);
    return operationStateFromString(QString::fromUtf8(state)).value_or(OperationState::Failed);
}

// ---------------------------------------------------------------------------------------

Store::Store(Backend backend, const QString &connectionName)
    : m_backend(backend), m_connectionName(connectionName)
{}

Store::~Store()
{
    m_checkpointer.reset();
    m_statements.clear(); // statements go before their connection
    m_database.close();
    m_database = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connectionName);
}

int Store::latestSchemaVersion()
{
    return schema::latestVersion();
}

QString Store::displayUrl(const QString &url)
{
    return redaction::redactUrl(url);
}

std::unique_ptr<Store> Store::open(const QString &url, QString *error, const StoreOptions &options,
                                   OpenFailure *failure)
{
    QString message;
    const std::optional<ParsedUrl> parsed = parseUrl(url, &message);
    const QString shown = displayUrl(url);
    // What the caller gave is wrong until the database is asked; after that, what
    // fails is the environment (a server, a file, a lock), unless initialise says so.
    OpenFailure kind = OpenFailure::Input;
    auto failed = [&](const QString &why) {
        if (error)
            *error = why;
        if (failure)
            *failure = kind;
        qCDebug(lcStore).noquote() << why;
        return std::unique_ptr<Store>();
    };
    if (failure)
        *failure = OpenFailure::None;
    if (!parsed)
        return failed(message);

    const bool postgres = parsed->backend == Backend::Postgres;
    const QString driver = postgres ? kPostgresDriver : kSqliteDriver;
    if (!QSqlDatabase::isDriverAvailable(driver)) {
        kind = OpenFailure::Runtime; // an installation without the driver
        return failed(QStringLiteral("cannot open '%1': the Qt SQL driver %2 is not installed")
                          .arg(shown, driver));
    }

    if (!postgres) {
        const QFileInfo info(parsed->path);
        if (info.isDir())
            return failed(
                QStringLiteral("cannot open '%1': it is a folder, not a database file").arg(shown));
        if (!options.createIfMissing && !info.exists())
            return failed(
                QStringLiteral("cannot open '%1': there is no database there").arg(shown));
        if (!info.absoluteDir().exists())
            return failed(QStringLiteral("cannot open '%1': the folder '%2' does not exist")
                              .arg(shown, QDir::toNativeSeparators(info.absolutePath())));
#ifdef Q_OS_UNIX
        // The attempt history holds URLs, headers and keys: a new database is its
        // owner's alone, whatever the umask. SQLite gives the -wal and -shm files the
        // database file's mode.
        if (!info.exists()) {
            const int fd = ::open(QFile::encodeName(parsed->path).constData(),
                                  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd >= 0) {
                ::fchmod(fd, 0600);
                ::close(fd);
            }
        }
#endif
    }

    const QString connectionName = QStringLiteral("cooldown-store-%1").arg(++g_connectionCounter);
    std::unique_ptr<Store> store(new Store(parsed->backend, connectionName));
    store->m_database = QSqlDatabase::addDatabase(driver, connectionName);
    QSqlDatabase &db = store->m_database;
    if (postgres) {
        db.setHostName(parsed->host);
        db.setPort(parsed->port);
        db.setUserName(parsed->user);
        db.setPassword(parsed->password);
        db.setDatabaseName(parsed->database);
        db.setConnectOptions(
            QStringLiteral("connect_timeout=%1").arg(std::max(1, options.connectTimeoutSeconds)));
    } else {
        db.setDatabaseName(parsed->path);
        db.setConnectOptions(
            QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(std::max(0, options.busyTimeoutMs)));
    }
    kind = OpenFailure::Runtime;
    if (!db.open()) {
        const QString detail = redaction::redactText(errorText(db.lastError()).trimmed());
        return failed(
            postgres ? QStringLiteral("cannot connect to PostgreSQL at '%1': %2").arg(shown, detail)
                     : QStringLiteral("cannot open '%1': %2").arg(shown, detail));
    }
    bool newerSchema = false;
    if (!store->initialise(options, shown, &message, &newerSchema)) {
        if (newerSchema)
            kind = OpenFailure::Input;
        return failed(message);
    }
    return store;
}

bool Store::initialise(const StoreOptions &options, const QString &displayName, QString *error,
                       bool *newerSchema)
{
    const bool postgres = m_backend == Backend::Postgres;
    auto problem = [&](const QString &detail) {
        QString why = detail;
        if (!postgres && detail.contains(QLatin1String("locked")))
            why = QStringLiteral("%1 (another process holds the database; waited %2 ms)")
                      .arg(detail)
                      .arg(options.busyTimeoutMs);
        *error = QStringLiteral("cannot open '%1': %2").arg(displayName, why);
        return false;
    };

    // Processes that open a new SQLite file at the same moment race for its first locks
    // (creating it, switching it to WAL), and SQLite refuses some of those at once,
    // without its busy handler, where waiting could deadlock: they are tried again until
    // the busy timeout.
    QElapsedTimer waited;
    waited.start();
    auto mayRetry = [&](const QString &why) {
        if (postgres || !why.contains(QLatin1String("locked")) ||
            waited.elapsed() >= options.busyTimeoutMs)
            return false;
        QThread::msleep(5 + QRandomGenerator::global()->bounded(20));
        return true;
    };

    // Read before writing anything: a database from a newer version must stay untouched.
    QString detail;
    std::optional<int> found;
    while (!(found = readSchemaVersion(&detail))) {
        if (!mayRetry(detail))
            return problem(detail);
    }
    const int latest = schema::latestVersion();
    *newerSchema = *found > latest;
    if (*newerSchema)
        return problem(QStringLiteral("its schema version %1 is newer than this Cooldown supports "
                                      "(%2); use a newer Cooldown")
                           .arg(*found)
                           .arg(latest));

    if (!postgres) {
        QSqlQuery pragma(m_database);
        // A new file gives the pages that retention frees back to the file system
        // (Store::incrementalVacuum); the mode can only be chosen before the first table.
        if (*found == 0 && !pragma.exec(QStringLiteral("PRAGMA auto_vacuum=INCREMENTAL")))
            return problem(errorText(pragma.lastError()));
        while (!pragma.exec(QStringLiteral("PRAGMA journal_mode=WAL"))) {
            if (!mayRetry(errorText(pragma.lastError())))
                return problem(errorText(pragma.lastError()));
        }
        pragma.next();
        const QString mode = pragma.value(0).toString();
        pragma.finish();
        if (mode != QLatin1String("wal") && mode != QLatin1String("memory"))
            return problem(
                QStringLiteral("the file cannot be written (journal mode stays '%1')").arg(mode));
        const QString pragmas[] = {
            options.fullSync ? QStringLiteral("PRAGMA synchronous=FULL")
                             : QStringLiteral("PRAGMA synchronous=NORMAL"),
            QStringLiteral("PRAGMA foreign_keys=ON"),
            QStringLiteral("PRAGMA busy_timeout=%1").arg(std::max(0, options.busyTimeoutMs)),
            // After a checkpoint the log is cut back to this size, whatever bulk work
            // made it grow to.
            QStringLiteral("PRAGMA journal_size_limit=%1").arg(kJournalSizeLimitBytes),
        };
        for (const QString &statement : pragmas) {
            if (!pragma.exec(statement))
                return problem(errorText(pragma.lastError()));
        }
        // The linked library is called on Qt's connection only if it is Qt's too.
        if (options.useLinkedSqlite) {
            if (!pragma.exec(QStringLiteral("SELECT sqlite_source_id()")) || !pragma.next())
                return problem(errorText(pragma.lastError()));
            const QString driverSource = pragma.value(0).toString();
            pragma.finish();
            m_linkedSqlite = sqliteLibrariesAgree(driverSource, sqlite3_sourceid());
            if (!m_linkedSqlite)
                qCWarning(lcStore).noquote()
                    << "Qt's SQLite driver uses SQLite" << driverSource << "and this program"
                    << sqlite3_sourceid() << "- the store uses the driver alone";
        }
        if (sqlite3 *connection = sqliteHandle()) {
            m_busyTimeoutMs = std::max(0, options.busyTimeoutMs);
            sqlite3_busy_handler(connection, &pollWhileBusy, &m_busyTimeoutMs);
        }
        if (mode == QLatin1String("wal")) {
            if (sqlite3 *connection = sqliteHandle())
                m_checkpointer = std::make_unique<WalCheckpointer>(
                    connection, m_database.databaseName(), WalCheckpointer::kDefaultThreshold);
        }
    }

    m_paceByDatabaseClock = postgres && options.paceByDatabaseClock;
    const int target = options.schemaVersion > 0 ? std::min(options.schemaVersion, latest) : latest;
    m_schemaVersion = *found;
    if (*found < target && !migrate(*found, target, &detail))
        return problem(detail);
    return true;
}

std::optional<int> Store::readSchemaVersion(QString *error)
{
    QSqlQuery query(m_database);
    const QString tables =
        m_backend == Backend::Postgres
            ? QStringLiteral("SELECT table_name FROM information_schema.tables"
                             " WHERE table_schema = current_schema()")
            : QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table'");
    if (!query.exec(tables)) {
        *error = errorText(query.lastError());
        return std::nullopt;
    }
    bool hasMeta = false;
    bool hasOwnTables = false;
    while (query.next()) {
        const QString name = query.value(0).toString();
        hasMeta = hasMeta || name == QLatin1String("schema_meta");
        hasOwnTables = hasOwnTables || name == QLatin1String("operations") ||
                       name == QLatin1String("attempts");
    }
    query.finish();
    if (!hasMeta) {
        if (hasOwnTables) {
            *error = QStringLiteral("it holds tables named like Cooldown's but no schema version;"
                                    " it belongs to another application");
            return std::nullopt;
        }
        return 0;
    }
    if (!query.exec(
            QStringLiteral("SELECT value FROM schema_meta WHERE name = 'schema_version'"))) {
        *error = errorText(query.lastError());
        return std::nullopt;
    }
    bool ok = false;
    const int version = query.next() ? query.value(0).toString().toInt(&ok) : 0;
    if (!ok || version <= 0) {
        *error = QStringLiteral("its schema version is missing or unreadable");
        return std::nullopt;
    }
    return version;
}

bool Store::migrate(int from, int to, QString *error)
{
    const bool postgres = m_backend == Backend::Postgres;
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        *error = transaction.error();
        return false;
    }
    QSqlQuery query(m_database);
    // Two workers starting together against a new PostgreSQL database must not both
    // create the schema; SQLite's BEGIN IMMEDIATE already serialises them.
    if (postgres && !query.exec(QStringLiteral("SELECT pg_advisory_xact_lock(4242001)"))) {
        *error = errorText(query.lastError());
        return false;
    }
    query.finish();
    const std::optional<int> current = readSchemaVersion(error);
    if (!current)
        return false;
    from = std::max(from, *current);
    for (int version = from + 1; version <= to; ++version) {
        const QStringList statements = schema::migrationStep(version, postgres);
        for (const QString &statement : statements) {
            if (!query.exec(statement)) {
                *error = QStringLiteral("migration to schema version %1 failed: %2")
                             .arg(version)
                             .arg(errorText(query.lastError()));
                return false;
            }
        }
        if (from > 0)
            qCInfo(lcStore) << "migrated the database to schema version" << version;
    }
    if (to > from) {
        query.prepare(
            QStringLiteral("INSERT INTO schema_meta (name, value) VALUES ('schema_version', :v)"
                           " ON CONFLICT (name) DO UPDATE SET value = excluded.value"));
        query.bindValue(QStringLiteral(":v"), QString::number(to));
        if (!query.exec()) {
            *error = errorText(query.lastError());
            return false;
        }
    }
    if (!transaction.commit()) {
        *error = transaction.error();
        return false;
    }
    m_schemaVersion = std::max(from, to);
    return true;
}

// ---------------------------------------------------------------------------------------

QSqlQuery Store::prepare(const QString &sql)
{
    QSqlQuery query(m_database);
    if (!query.prepare(sql))
        fail(QStringLiteral("prepare"), errorText(query.lastError()));
    return query;
}

QSqlQuery *Store::cached(const QString &sql)
{
    auto it = m_statements.find(sql);
    if (it == m_statements.end()) {
        auto query = std::make_unique<QSqlQuery>(m_database);
        if (!query->prepare(sql)) {
            fail(QStringLiteral("prepare"), errorText(query->lastError()));
            return nullptr;
        }
        it = m_statements.emplace(sql, std::move(query)).first;
    }
    return it->second.get();
}

bool Store::exec(QSqlQuery &query)
{
    if (query.exec())
        return true;
    return fail(QStringLiteral("query"), errorText(query.lastError()));
}

bool Store::fail(const QString &context, const QString &detail)
{
    m_lastError = QStringLiteral("%1: %2").arg(context, detail);
    qCWarning(lcStore).noquote() << m_lastError;
    return false;
}

bool Store::ensureEndpointRow(const QString &endpointId, qint64 nowMs)
{
    QSqlQuery *query = cached(QStringLiteral(
        "INSERT INTO endpoints (id, name, created_at, updated_at) VALUES (:id, '', :now, :now2)"
        " ON CONFLICT (id) DO NOTHING"));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":id"), text(endpointId));
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":now2"), nowMs);
    return exec(*query);
}

std::unique_ptr<SqlBatch> Store::beginBatch()
{
    if (m_backend != Backend::Sqlite)
        return nullptr;
    auto batch = std::make_unique<SqlBatch>(m_database);
    if (!batch->isActive()) {
        fail(QStringLiteral("batch"), batch->error());
        return nullptr;
    }
    return batch;
}

void Store::requestCheckpoint()
{
    if (m_checkpointer) {
        m_checkpointer->request();
    } else if (m_backend == Backend::Sqlite) {
        QSqlQuery query(m_database);
        if (!query.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)")))
            qCWarning(lcStore) << "checkpoint failed:" << errorText(query.lastError());
    }
}

bool Store::upsertEndpoint(const QString &endpointId, const QString &name, qint64 nowMs)
{
    QSqlQuery *query = cached(QStringLiteral(
        "INSERT INTO endpoints (id, name, created_at, updated_at) VALUES (:id, :name, :now, :now2)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name, updated_at = excluded.updated_at"));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":id"), text(endpointId));
    query->bindValue(QStringLiteral(":name"), text(name));
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":now2"), nowMs);
    return exec(*query);
}

bool Store::setEndpointPaused(const QString &endpointId, bool paused, qint64 nowMs)
{
    QSqlQuery query =
        prepare(QStringLiteral("INSERT INTO endpoints (id, name, created_at, updated_at, paused)"
                               " VALUES (:id, '', :now, :now2, :paused)"
                               " ON CONFLICT (id) DO UPDATE SET paused = excluded.paused, "
                               "updated_at = excluded.updated_at"));
    query.bindValue(QStringLiteral(":id"), text(endpointId));
    query.bindValue(QStringLiteral(":now"), nowMs);
    query.bindValue(QStringLiteral(":now2"), nowMs);
    query.bindValue(QStringLiteral(":paused"), paused ? 1 : 0);
    if (!exec(query))
        return false;
    if (paused)
        return true;
    // Claims took the paused operations for absent; every partition looks again.
    QSqlQuery again = prepare(QStringLiteral(
        "UPDATE rate_partitions SET look_at = 0, next_at = ready_at WHERE look_at > 0"));
    return exec(again);
}

std::optional<bool> Store::isEndpointPaused(const QString &endpointId)
{
    QSqlQuery query = prepare(QStringLiteral("SELECT paused FROM endpoints WHERE id = :id"));
    query.bindValue(QStringLiteral(":id"), text(endpointId));
    if (!exec(query))
        return std::nullopt;
    return query.next() && query.value(0).toInt() != 0;
}

bool Store::upsertPolicy(const QString &policyId, int policyVersion, const QString &definitionJson)
{
    QSqlQuery query = prepare(QStringLiteral(
        "INSERT INTO policies (policy_id, policy_version, definition) VALUES (:id, :version, "
        ":definition)"
        " ON CONFLICT (policy_id, policy_version) DO UPDATE SET definition = excluded.definition"));
    query.bindValue(QStringLiteral(":id"), text(policyId));
    query.bindValue(QStringLiteral(":version"), policyVersion);
    query.bindValue(QStringLiteral(":definition"), text(definitionJson));
    return exec(query);
}

Store::PaceResult Store::ensurePartition(const QString &policyId, const QString &partitionKey,
                                         int policyVersion, const QString &definitionJson,
                                         const Gcra &pace, QString *storedDefinition)
{
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("partition"), transaction.error());
        return PaceResult::Failed;
    }
    const QString pacing = QJsonDocument::fromJson(definitionJson.toUtf8())
                               .object()
                               .value(QLatin1String("pacing"))
                               .toString();
    QSqlQuery insert = prepare(QStringLiteral(
        "INSERT INTO rate_partitions (policy_id, partition_key, policy_version,"
        " definition, interval_us, capacity, pacing) VALUES (:policy, :partition, :version,"
        " :definition, :interval, :capacity, :pacing) ON CONFLICT DO NOTHING"));
    insert.bindValue(QStringLiteral(":pacing"), text(pacing));
    insert.bindValue(QStringLiteral(":policy"), text(policyId));
    insert.bindValue(QStringLiteral(":partition"), text(partitionKey));
    insert.bindValue(QStringLiteral(":version"), policyVersion);
    insert.bindValue(QStringLiteral(":definition"), text(definitionJson));
    insert.bindValue(QStringLiteral(":interval"), pace.intervalUs);
    insert.bindValue(QStringLiteral(":capacity"), pace.capacity);
    if (!exec(insert))
        return PaceResult::Failed;
    PaceResult result = PaceResult::Written;
    if (insert.numRowsAffected() != 1) {
        QSqlQuery row =
            prepare(QStringLiteral("SELECT policy_version, definition FROM rate_partitions"
                                   " WHERE policy_id = :policy AND partition_key = :partition") +
                    (m_backend == Backend::Postgres ? QStringLiteral(" FOR UPDATE") : QString()));
        row.bindValue(QStringLiteral(":policy"), text(policyId));
        row.bindValue(QStringLiteral(":partition"), text(partitionKey));
        if (!exec(row) || !row.next()) {
            fail(QStringLiteral("partition"), QStringLiteral("the row vanished"));
            return PaceResult::Failed;
        }
        const int storedVersion = row.value(0).toInt();
        const QString stored = row.value(1).toString();
        row.finish();
        if (storedDefinition)
            *storedDefinition = stored;
        // A row made before any worker knew the policy (version 0) takes any pace.
        if (storedVersion > policyVersion) {
            result = PaceResult::KeptNewer;
        } else if (storedVersion == policyVersion && !stored.isEmpty() &&
                   stored != definitionJson) {
            result = PaceResult::Conflict;
        } else if (storedVersion < policyVersion || stored.isEmpty()) {
            QSqlQuery update = prepare(QStringLiteral(
                "UPDATE rate_partitions SET policy_version = :version, definition = :definition,"
                " interval_us = :interval, capacity = :capacity, pacing = :pacing, ready_at = 0,"
                " conflict = '', next_at = look_at"
                " WHERE policy_id = :policy AND partition_key = :partition"));
            update.bindValue(QStringLiteral(":pacing"), text(pacing));
            update.bindValue(QStringLiteral(":version"), policyVersion);
            update.bindValue(QStringLiteral(":definition"), text(definitionJson));
            update.bindValue(QStringLiteral(":interval"), pace.intervalUs);
            update.bindValue(QStringLiteral(":capacity"), pace.capacity);
            update.bindValue(QStringLiteral(":policy"), text(policyId));
            update.bindValue(QStringLiteral(":partition"), text(partitionKey));
            if (!exec(update))
                return PaceResult::Failed;
        }
        if (result != PaceResult::Written) {
            // Kept on the row, so that `cooldown status` and the dashboard can say so.
            QSqlQuery note = prepare(
                QStringLiteral("UPDATE rate_partitions SET conflict = :conflict"
                               " WHERE policy_id = :policy AND partition_key = :partition"));
            note.bindValue(QStringLiteral(":conflict"),
                           QStringLiteral("a worker configures version %1 as %2")
                               .arg(policyVersion)
                               .arg(definitionJson));
            note.bindValue(QStringLiteral(":policy"), text(policyId));
            note.bindValue(QStringLiteral(":partition"), text(partitionKey));
            if (!exec(note))
                return PaceResult::Failed;
        }
    }
    if (!transaction.commit()) {
        fail(QStringLiteral("partition"), transaction.error());
        return PaceResult::Failed;
    }
    return result;
}

bool Store::ensureLearnedPartition(const QString &policyId)
{
    QSqlQuery *insert = cached(
        QStringLiteral("INSERT INTO rate_partitions (policy_id, partition_key) VALUES (:policy, '')"
                       " ON CONFLICT DO NOTHING"));
    if (!insert)
        return false;
    insert->bindValue(QStringLiteral(":policy"), text(policyId));
    return exec(*insert);
}

QList<PartitionState> Store::partitions(qint64 nowMs)
{
    QList<PartitionState> out;
    const std::optional<qint64> paceNow = paceNowUs(nowMs);
    if (!paceNow)
        return out;
    QSqlQuery query = prepare(QStringLiteral(
        "SELECT p.policy_id, p.partition_key, p.policy_version, p.interval_us, p.capacity,"
        " p.tat_us, p.held_until, p.hold_reason, p.definition, p.conflict,"
        " (SELECT COUNT(*) FROM operations o WHERE o.policy_id = p.policy_id"
        "  AND o.partition_key = p.partition_key AND o.state IN ('scheduled', 'waiting')),"
        " (SELECT COUNT(*) FROM operations o WHERE o.policy_id = p.policy_id"
        "  AND o.partition_key = p.partition_key AND o.state IN ('scheduled', 'waiting')"
        "  AND o.next_attempt_at <= :now),"
        " p.pacing, p.server_quota, p.server_window_ms, p.server_remaining, p.server_reset_at,"
        " p.server_known_until, p.learned_from, p.learned_at"
        " FROM rate_partitions p ORDER BY p.policy_id, p.partition_key"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    if (!exec(query))
        return out;
    while (query.next()) {
        PartitionState p;
        p.policyId = query.value(0).toString();
        p.partitionKey = query.value(1).toString();
        p.policyVersion = query.value(2).toInt();
        p.pace.intervalUs = query.value(3).toLongLong();
        p.pace.capacity = query.value(4).toLongLong();
        p.tatUs = query.value(5).toLongLong();
        p.heldUntilMs = query.value(6).toLongLong();
        p.holdReason = query.value(7).toString();
        p.definition = query.value(8).toString();
        p.conflict = query.value(9).toString();
        p.pending = query.value(10).toLongLong();
        p.due = query.value(11).toLongLong();
        p.pacing = query.value(12).toString();
        p.server.quota = query.value(13).toLongLong();
        p.server.windowMs = query.value(14).toLongLong();
        p.server.remaining = query.value(15).toLongLong();
        p.server.resetAtMs = query.value(16).toLongLong();
        p.server.knownUntilMs = query.value(17).toLongLong();
        p.learnedFrom = query.value(18).toString();
        p.learnedAtMs = query.value(19).toLongLong();
        const bool windowKnown = p.server.isKnown(nowMs);
        const bool paced = !p.pace.isUnlimited() && !(windowKnown && p.pacing != u"smooth");
        p.availableUnits =
            paced ? p.pace.available(p.tatUs, *paceNow) : std::numeric_limits<qint64>::max();
        p.nextTokenAtMs = paced ? p.pace.availableAtMs(p.tatUs, 1, *paceNow / 1000) : nowMs;
        if (windowKnown) {
            p.availableUnits =
                std::min(p.availableUnits, p.server.available(p.pace.intervalUs, nowMs));
            p.nextTokenAtMs =
                std::max(p.nextTokenAtMs, p.server.availableAtMs(p.pace.intervalUs, nowMs));
        }
        if (p.availableUnits == std::numeric_limits<qint64>::max())
            p.availableUnits = -1; // no limit known
        out.append(p);
    }
    return out;
}

QList<WorkerLeases> Store::workers()
{
    QList<WorkerLeases> out;
    QSqlQuery query = prepare(QStringLiteral(
        "SELECT lease_owner, COUNT(*), MAX(lease_expires_at) FROM operations"
        " WHERE state = 'running' AND lease_owner <> '' GROUP BY lease_owner ORDER BY 3 DESC"));
    if (!exec(query))
        return out;
    while (query.next())
        out.append(
            {query.value(0).toString(), query.value(1).toLongLong(), query.value(2).toLongLong()});
    return out;
}

qint64 Store::dueCount(qint64 nowMs)
{
    QSqlQuery query = prepare(
        QStringLiteral("SELECT COUNT(*) FROM operations WHERE state IN ('scheduled', 'waiting')"
                       " AND next_attempt_at <= :now"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    if (!exec(query) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}

bool Store::ensureTick(const QString &endpointId, qint64 everyMs, qint64 firstTickAtMs)
{
    QSqlQuery query = prepare(
        QStringLiteral("INSERT INTO periodic_ticks (endpoint_id, every_ms, next_tick_at)"
                       " VALUES (:endpoint, :every, :first)"
                       " ON CONFLICT (endpoint_id) DO UPDATE SET every_ms = excluded.every_ms"));
    query.bindValue(QStringLiteral(":endpoint"), text(endpointId));
    query.bindValue(QStringLiteral(":every"), std::max<qint64>(1, everyMs));
    query.bindValue(QStringLiteral(":first"), firstTickAtMs);
    return exec(query);
}

QList<qint64> Store::runDueTicks(qint64 nowMs, const QHash<QString, TickEndpoint> &endpoints,
                                 const std::function<QString()> &newIdempotencyKey)
{
    QList<qint64> created;
    QSqlQuery *due = cached(QStringLiteral(
        "SELECT endpoint_id FROM periodic_ticks WHERE next_tick_at <= :now ORDER BY next_tick_at"));
    if (!due)
        return created;
    due->bindValue(QStringLiteral(":now"), nowMs);
    if (!exec(*due))
        return created;
    QStringList candidates;
    while (due->next())
        candidates.append(due->value(0).toString());
    due->finish();
    m_lastError.clear();
    if (candidates.isEmpty())
        return created;

    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("tick"), transaction.error());
        return created;
    }
    // The conditional update decides which worker owns a tick: on PostgreSQL a second
    // worker waits for the first one's row lock and then finds the tick moved on.
    // Ticks missed while no worker ran collapse into this one.
    QSqlQuery *advance =
        cached(QStringLiteral("UPDATE periodic_ticks SET next_tick_at = next_tick_at"
                              " + ((:now - next_tick_at) / every_ms + 1) * every_ms"
                              " WHERE endpoint_id = :endpoint AND next_tick_at <= :now2"));
    QSqlQuery *latest = cached(QStringLiteral(
        "SELECT o.state, e.paused FROM endpoints e LEFT JOIN operations o ON o.id ="
        " (SELECT MAX(id) FROM operations WHERE endpoint_id = e.id) WHERE e.id = :endpoint"));
    if (!advance || !latest)
        return created;
    for (const QString &endpointId : std::as_const(candidates)) {
        const auto endpoint = endpoints.constFind(endpointId);
        if (endpoint == endpoints.constEnd())
            continue;
        advance->bindValue(QStringLiteral(":now"), nowMs);
        advance->bindValue(QStringLiteral(":endpoint"), text(endpointId));
        advance->bindValue(QStringLiteral(":now2"), nowMs);
        if (!exec(*advance))
            return {};
        if (advance->numRowsAffected() != 1)
            continue; // another worker took this tick
        latest->bindValue(QStringLiteral(":endpoint"), text(endpointId));
        if (!exec(*latest))
            return {};
        const bool known = latest->next();
        const bool paused = known && latest->value(1).toInt() != 0;
        const bool unfinished = known && !latest->value(0).isNull() &&
                                !isFinal(operationStateFromString(latest->value(0).toString())
                                             .value_or(OperationState::Failed));
        latest->finish();
        if (paused)
            continue;
        if (unfinished) {
            qCDebug(lcStore) << endpointId << "tick skipped: its last operation is unfinished";
            continue;
        }
        const std::optional<qint64> id =
            insertOperation(endpointId, newIdempotencyKey(), nowMs, endpoint->policyId,
                            endpoint->partitionKey, endpoint->cost, endpoint->host);
        if (!id)
            return {};
        created.append(*id);
    }
    if (!transaction.commit()) {
        fail(QStringLiteral("tick"), transaction.error());
        return {};
    }
    return created;
}

std::optional<qint64> Store::nextTickAtMs()
{
    QSqlQuery *query = cached(
        QStringLiteral("SELECT next_tick_at FROM periodic_ticks ORDER BY next_tick_at LIMIT 1"));
    if (!query || !exec(*query))
        return std::nullopt;
    std::optional<qint64> at;
    if (query->next())
        at = query->value(0).toLongLong();
    query->finish();
    m_lastError.clear();
    return at;
}

// ---------------------------------------------------------------------------------------

std::optional<qint64> Store::insertOperation(const QString &endpointId,
                                             const QString &idempotencyKey, qint64 nowMs,
                                             const QString &policyId, const QString &partitionKey,
                                             qint64 cost, const QString &host,
                                             const QByteArray &body)
{
    if (!ensureEndpointRow(endpointId, nowMs))
        return std::nullopt;
    if (!policyId.isEmpty()) {
        // Claims find work through the partition's row: it must exist before the
        // operation does (the pending trigger then lowers its look_at).
        QSqlQuery *partition =
            cached(QStringLiteral("INSERT INTO rate_partitions (policy_id, partition_key)"
                                  " VALUES (:policy, :partition) ON CONFLICT DO NOTHING"));
        if (!partition)
            return std::nullopt;
        partition->bindValue(QStringLiteral(":policy"), text(policyId));
        partition->bindValue(QStringLiteral(":partition"), text(partitionKey));
        if (!exec(*partition))
            return std::nullopt;
    }
    // Prepared once: periodic endpoints make one for every tick. SQLite hands out the
    // new row's id without RETURNING's temporary table.
    const bool postgres = m_backend == Backend::Postgres;
    QSqlQuery *query = cached(
        QStringLiteral("INSERT INTO operations (endpoint_id, state, created_at, next_attempt_at,"
                       " idempotency_key, policy_id, partition_key, cost, host, request_body)"
                       " VALUES (:endpoint, 'scheduled', :now, :due, :key, :policy, :partition,"
                       " :cost, :host, :body)") +
        (postgres ? QStringLiteral(" RETURNING id") : QString()));
    if (!query)
        return std::nullopt;
    query->bindValue(QStringLiteral(":host"), text(host));
    query->bindValue(QStringLiteral(":body"), text(QString::fromUtf8(body)));
    query->bindValue(QStringLiteral(":cost"), std::max<qint64>(0, cost));
    query->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    query->bindValue(QStringLiteral(":now"), nowMs);
    query->bindValue(QStringLiteral(":due"), nowMs);
    query->bindValue(QStringLiteral(":key"), text(idempotencyKey));
    query->bindValue(QStringLiteral(":policy"), text(policyId));
    query->bindValue(QStringLiteral(":partition"), text(partitionKey));
    if (!exec(*query))
        return std::nullopt;
    const QVariant id =
        postgres ? (query->next() ? query->value(0) : QVariant()) : query->lastInsertId();
    query->finish();
    if (!id.isValid()) {
        fail(QStringLiteral("create operation"), QStringLiteral("no id returned"));
        return std::nullopt;
    }
    return id.toLongLong();
}

std::optional<qint64> Store::createOperation(const QString &endpointId,
                                             const QString &idempotencyKey, qint64 nowMs,
                                             const QString &policyId, const QString &partitionKey,
                                             qint64 cost, const QString &host,
                                             const QByteArray &body)
{
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("create operation"), transaction.error());
        return std::nullopt;
    }
    const std::optional<qint64> id = insertOperation(endpointId, idempotencyKey, nowMs, policyId,
                                                     partitionKey, cost, host, body);
    if (!id)
        return std::nullopt;
    if (!transaction.commit()) {
        fail(QStringLiteral("create operation"), transaction.error());
        return std::nullopt;
    }
    return id;
}

std::optional<qint64> Store::ensureOneShotOperation(const QString &endpointId,
                                                    const QString &idempotencyKey, qint64 nowMs,
                                                    const QString &policyId,
                                                    const QString &partitionKey, bool *created,
                                                    qint64 cost, const QString &host)
{
    if (created)
        *created = false;
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("one-shot operation"), transaction.error());
        return std::nullopt;
    }
    // The primary key decides the race between workers: on PostgreSQL the second
    // insert waits for the first transaction and then does nothing.
    QSqlQuery *claim = cached(QStringLiteral(
        "INSERT INTO one_shot_runs (endpoint_id, operation_id) VALUES (:endpoint, NULL)"
        " ON CONFLICT (endpoint_id) DO NOTHING"));
    QSqlQuery *link = cached(QStringLiteral(
        "UPDATE one_shot_runs SET operation_id = :id WHERE endpoint_id = :endpoint"));
    if (!claim || !link)
        return std::nullopt;
    claim->bindValue(QStringLiteral(":endpoint"), text(endpointId));
    if (!exec(*claim))
        return std::nullopt;
    if (claim->numRowsAffected() == 1) {
        const std::optional<qint64> id =
            insertOperation(endpointId, idempotencyKey, nowMs, policyId, partitionKey, cost, host);
        if (!id)
            return std::nullopt;
        link->bindValue(QStringLiteral(":id"), *id);
        link->bindValue(QStringLiteral(":endpoint"), text(endpointId));
        if (!exec(*link))
            return std::nullopt;
        if (!transaction.commit()) {
            fail(QStringLiteral("one-shot operation"), transaction.error());
            return std::nullopt;
        }
        if (created)
            *created = true;
        return id;
    }
    QSqlQuery existing = prepare(
        QStringLiteral("SELECT operation_id FROM one_shot_runs WHERE endpoint_id = :endpoint"));
    existing.bindValue(QStringLiteral(":endpoint"), text(endpointId));
    if (!exec(existing))
        return std::nullopt;
    if (!existing.next() || existing.value(0).isNull()) {
        fail(QStringLiteral("one-shot operation"),
             QStringLiteral("endpoint '%1' is marked as run but has no operation").arg(endpointId));
        return std::nullopt;
    }
    return existing.value(0).toLongLong();
}

Store::OperationLookup Store::singleOperation(const QString &where, const QVariant &value)
{
    QSqlQuery query = prepare(QStringLiteral("SELECT %1 FROM operations WHERE %2")
                                  .arg(columns(kOperationColumns), where));
    query.bindValue(0, value);
    if (!exec(query))
        return {OperationLookup::Result::Failed, {}};
    if (!query.next())
        return {OperationLookup::Result::Missing, {}};
    return {OperationLookup::Result::Found, readOperation(query)};
}

std::optional<OperationRecord> Store::recordOf(OperationLookup lookup)
{
    switch (lookup.result) {
    case OperationLookup::Result::Found:
        return std::move(lookup.record);
    case OperationLookup::Result::Missing:
        m_lastError = QStringLiteral("no such operation");
        return std::nullopt;
    case OperationLookup::Result::Failed:
        break;
    }
    return std::nullopt;
}

Store::OperationLookup Store::lookUpOperation(qint64 operationId)
{
    return singleOperation(QStringLiteral("id = :id"), operationId);
}

std::optional<OperationRecord> Store::operation(qint64 operationId)
{
    return recordOf(lookUpOperation(operationId));
}

std::optional<OperationRecord> Store::latestOperation(const QString &endpointId)
{
    return recordOf(singleOperation(
        QStringLiteral("endpoint_id = :endpoint ORDER BY id DESC LIMIT 1"), text(endpointId)));
}

// ---------------------------------------------------------------------------------------

QString Store::greatest() const
{
    return m_backend == Backend::Postgres ? QStringLiteral("GREATEST") : QStringLiteral("MAX");
}

QString Store::least() const
{
    return m_backend == Backend::Postgres ? QStringLiteral("LEAST") : QStringLiteral("MIN");
}

std::optional<qint64> Store::paceNowUs(qint64 nowMs)
{
    if (!m_paceByDatabaseClock)
        return nowMs * 1000;
    QSqlQuery *query = cached(
        QStringLiteral("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)"));
    if (!query || !exec(*query))
        return std::nullopt;
    if (!query->next()) {
        fail(QStringLiteral("clock"), QStringLiteral("the server returned no time"));
        return std::nullopt;
    }
    const qint64 us = query->value(0).toLongLong();
    query->finish();
    return us;
}

namespace {

// look_at and next_at of a partition with nothing pending.
constexpr qint64 kNever = qint64(1) << 62;
// How long a worker that went without permits counts as wanting some: a few of its
// claims, which come every 100 ms while it waits.
constexpr qint64 kWantingMs = 1000;
// A caller's clock this far from the database's is moved onto it part by part.
constexpr qint64 kSkewedClockMs = 1000;

// An operation a claim may take.
struct Candidate
{
    qint64 id = 0;
    qint64 cost = 1;
    QString host;
};

// A partition a claim looked at (or the operations without one), and what it found.
struct Lane
{
    QString policyId;
    QString partitionKey;
    Gcra pace;
    qint64 tatUs = 0;
    qint64 heldUntilMs = 0;
    qint64 lookAtMs = 0;
    ServerWindow server;
    bool smooth = false;
    bool partitioned = true;
    bool held = false;
    qint64 wanted = 0;           // candidates asked for; -1: not looked at in this claim
    QList<Candidate> candidates; // in due order
    qsizetype taken = 0;

    // Whether the stated window paces the lane at nowMs, and whether its own pace does.
    bool windowPaced(qint64 nowMs) const { return partitioned && server.isKnown(nowMs); }
    bool gcraPaced(qint64 nowMs) const
    {
        return partitioned && !pace.isUnlimited() && (smooth || !windowPaced(nowMs));
    }
    // Units the lane can give at nowMs (paceNowUs on the pacing clock), within room.
    qint64 units(qint64 nowMs, qint64 paceNowUs, qint64 room) const
    {
        qint64 units = room;
        if (gcraPaced(nowMs))
            units = std::min(units, pace.available(tatUs, paceNowUs));
        if (windowPaced(nowMs))
            units = std::min(units, server.available(pace.intervalUs, nowMs));
        return units;
    }
};

// The fleet's permits as a claim sees them: live leases of running operations.
struct Permits
{
    FleetConcurrency limits;
    qint64 running = 0;
    QHash<QString, qint64> runningByHost;

    qint64 mine = 0;    // held by the claiming worker
    QHash<QString, qint64> mineByHost;
    int contenders = 1; // workers holding permits or wanting some, the claimer included

    bool limited() const { return limits.maxInFlight > 0 || limits.perHost > 0; }
    // The permits the claiming worker may still take.
    qint64 free() const
    {
        if (limits.maxInFlight <= 0)
            return std::numeric_limits<qint64>::max();
        const qint64 share = (limits.maxInFlight + contenders - 1) / contenders;
        return std::max<qint64>(0, std::min(limits.maxInFlight - running, share - mine));
    }
    bool hostFull(const QString &host) const
    {
        if (limits.perHost <= 0)
            return false;
        if (runningByHost.value(host) >= limits.perHost)
            return true;
        qint64 cap = (limits.perHost + contenders - 1) / contenders;
        if (limits.perHostForWorker > 0)
            cap = std::min<qint64>(cap, limits.perHostForWorker);
        return mineByHost.value(host) >= cap;
    }
    void take(const QString &host)
    {
        ++running;
        ++mine;
        ++runningByHost[host];
        ++mineByHost[host];
    }
};

} // namespace

QList<OperationRecord> Store::claimDue(const QString &workerId, qint64 nowMs, qint64 leaseMs,
                                       int limit, const FleetConcurrency &concurrency)
{
    QList<OperationRecord> claimed;
    m_claimCapped = false;
    m_claimContended = false;
    if (limit <= 0)
        return claimed;
    const bool postgres = m_backend == Backend::Postgres;
    const QString lock = postgres ? QStringLiteral(" FOR UPDATE SKIP LOCKED") : QString();
    const QString notPaused =
        QStringLiteral(" AND endpoint_id NOT IN (SELECT id FROM endpoints WHERE paused = 1)");
    auto hint = [&](const char *index) {
        return postgres ? QString() : QStringLiteral(" INDEXED BY ") + QLatin1String(index);
    };
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("claim"), transaction.error());
        return claimed;
    }
    // Fleet-wide permits are counted by one claim at a time on PostgreSQL (SQLite's
    // write lock does it there), so that two cannot both take the last one. A claim
    // that finds another counting takes nothing rather than wait: first, so that it
    // costs one statement.
    if (postgres && (concurrency.maxInFlight > 0 || concurrency.perHost > 0)) {
        QSqlQuery *turn = cached(QStringLiteral("SELECT pg_try_advisory_xact_lock(4242002)"));
        if (!turn || !exec(*turn))
            return claimed;
        const bool mine = turn->next() && turn->value(0).toBool();
        turn->finish();
        if (!mine) {
            m_claimContended = true;
            m_lastError.clear(); // not a failure
            return claimed;      // rolled back: nothing was changed
        }
    }
    // Buckets and leases run on one clock: the database's on PostgreSQL, so that a
    // worker whose clock runs ahead neither refills a bucket early nor takes a live
    // lease for an expired one. Lease times go back to the caller on its own clock.
    const std::optional<qint64> paceNow = paceNowUs(nowMs);
    if (!paceNow)
        return claimed;
    const qint64 leaseNow = *paceNow / 1000;
    m_clockOffsetMs = leaseNow - nowMs;

    QSqlQuery *cancelled = cached(QStringLiteral(
        "UPDATE operations SET state = 'cancelled', final_reason = 'cancelled_by_operator',"
        " lease_owner = '', lease_expires_at = -1, next_attempt_at = -1, version = version + 1"
        " WHERE state = 'running' AND cancel_requested = 1 AND lease_expires_at <= :now"));
    if (!cancelled)
        return claimed;
    cancelled->bindValue(QStringLiteral(":now"), leaseNow);
    if (!exec(*cancelled))
        return claimed;

    // Fleet-wide permits: the running operations whose leases are live.
    Permits permits;
    permits.limits = concurrency;
    qint64 wantedAtMs = -1; // the time the workers table is kept in
    if (permits.limited()) {
        QSqlQuery *running = cached(QStringLiteral(
            "SELECT host, lease_owner, COUNT(*) FROM operations WHERE state = 'running'"
            " AND lease_expires_at > :now GROUP BY host, lease_owner"));
        if (!running)
            return claimed;
        running->bindValue(QStringLiteral(":now"), leaseNow);
        if (!exec(*running))
            return claimed;
        QSet<QString> contenders{workerId};
        while (running->next()) {
            const qint64 count = running->value(2).toLongLong();
            const QString owner = running->value(1).toString();
            const QString host = running->value(0).toString();
            permits.runningByHost[host] += count;
            permits.running += count;
            if (owner == workerId) {
                permits.mine += count;
                permits.mineByHost[host] += count;
            }
            contenders.insert(owner);
        }
        running->finish();
        // Workers that hold permits or lately went without share the fleet's permits
        // evenly; one alone may take them all.
        wantedAtMs = leaseNow;
        QSqlQuery *wanting =
            cached(QStringLiteral("SELECT worker_id FROM workers WHERE wants_until > :now"));
        if (!wanting)
            return claimed;
        wanting->bindValue(QStringLiteral(":now"), wantedAtMs);
        if (!exec(*wanting))
            return claimed;
        while (wanting->next())
            contenders.insert(wanting->value(0).toString());
        wanting->finish();
        permits.contenders = int(contenders.size());
    }

    QList<qint64> picked;
    // Runs a cached SELECT of operation id, cost and host, and collects them.
    auto collect = [&](QSqlQuery *query, QList<Candidate> *out) {
        if (!query || !exec(*query))
            return false;
        while (query->next())
            out->append({query->value(0).toLongLong(), query->value(1).toLongLong(),
                         query->value(2).toString()});
        const bool ok = !query->lastError().isValid();
        query->finish();
        return ok || fail(QStringLiteral("claim"), errorText(query->lastError()));
    };

    // Rescues first: their operations have waited longest, and they send nothing, so
    // they need no permit.
    QSqlQuery *rescue =
        cached(QStringLiteral("SELECT id, cost, host FROM operations"
                              " WHERE state = 'running' AND lease_expires_at <= :now"
                              " AND cancel_requested = 0"
                              " ORDER BY lease_expires_at LIMIT :limit") +
               lock);
    if (!rescue)
        return claimed;
    rescue->bindValue(QStringLiteral(":now"), leaseNow);
    rescue->bindValue(QStringLiteral(":limit"), limit);
    QList<Candidate> rescued;
    if (!collect(rescue, &rescued))
        return claimed;
    for (const Candidate &row : std::as_const(rescued))
        picked.append(row.id);

    // Forced operations bypass their bucket, not the permits; what they send is still
    // counted in the bucket.
    QList<std::tuple<QString, QString, qint64>> forced; // policy, partition, cost
    if (picked.size() < limit) {
        QSqlQuery *query = cached(
            QStringLiteral("SELECT id, policy_id, partition_key, cost, host FROM operations%1"
                           " WHERE state IN ('scheduled', 'waiting') AND force_next = 1"
                           " AND next_attempt_at <= :now%2 ORDER BY next_attempt_at"
                           " LIMIT :limit%3")
                .arg(hint("operations_forced"), notPaused, lock));
        if (!query)
            return claimed;
        query->bindValue(QStringLiteral(":now"), nowMs);
        query->bindValue(QStringLiteral(":limit"), limit - int(picked.size()));
        if (!exec(*query))
            return claimed;
        while (query->next()) {
            const QString host = query->value(4).toString();
            if (permits.free() <= 0 || permits.hostFull(host)) {
                m_claimCapped = true;
                continue;
            }
            permits.take(host);
            picked.append(query->value(0).toLongLong());
            forced.append({query->value(1).toString(), query->value(2).toString(),
                           query->value(3).toLongLong()});
        }
        query->finish();
    }

    // The lanes: partitions whose next_at has come, in that order (the least recently
    // served first), and the operations without a partition as one lane more. Each
    // lane offers the due operations its bucket has units for; a round takes one from
    // each, until the claim or the fleet's permits are full.
    std::vector<Lane> lanes;
    const int room = limit - int(picked.size());
    // What the fleet's permits leave of it: the lanes are read for the whole room, so
    // that the claim knows whether work was left behind for want of permits.
    int permitted = room;
    if (permits.limits.maxInFlight > 0)
        permitted = int(std::min<qint64>(permits.free(), room));
    if (room > 0 && permitted == 0) {
        QSqlQuery *anyDue = cached(
            QStringLiteral("SELECT id FROM operations%1 WHERE state IN ('scheduled', 'waiting')"
                           " AND next_attempt_at <= :now%2 LIMIT 1")
                .arg(hint("operations_due"), notPaused));
        if (!anyDue)
            return claimed;
        anyDue->bindValue(QStringLiteral(":now"), nowMs);
        if (!exec(*anyDue))
            return claimed;
        m_claimCapped = anyDue->next();
        anyDue->finish();
    } else if (room > 0) {
        const qint64 paceNowMs = leaseNow;
        QSqlQuery *partitions =
            cached(QStringLiteral("SELECT policy_id, partition_key, interval_us, capacity, tat_us,"
                                  " held_until, look_at, pacing, server_quota, server_window_ms,"
                                  " server_remaining, server_reset_at, server_known_until,"
                                  " server_opened_at FROM rate_partitions WHERE next_at <= :now"
                                  " ORDER BY next_at LIMIT :limit") +
                   lock);
        QSqlQuery *dueInPartition = cached(
            QStringLiteral("SELECT id, cost, host FROM operations%1 WHERE policy_id = :policy"
                           " AND partition_key = :partition"
                           " AND state IN ('scheduled', 'waiting') AND next_attempt_at <= :now"
                           " AND force_next = 0%2 ORDER BY next_attempt_at LIMIT :limit%3")
                .arg(hint("operations_due_by_partition"), notPaused, lock));
        if (!partitions || !dueInPartition)
            return claimed;
        partitions->bindValue(QStringLiteral(":now"), std::max(nowMs, paceNowMs));
        // Partitions found empty are put right as they are read, so a few more than
        // the room are read; the rest wait for the next claim.
        partitions->bindValue(QStringLiteral(":limit"), 4 * room + 16);
        if (!exec(*partitions))
            return claimed;
        while (partitions->next()) {
            Lane lane;
            lane.policyId = partitions->value(0).toString();
            lane.partitionKey = partitions->value(1).toString();
            lane.pace.intervalUs = partitions->value(2).toLongLong();
            lane.pace.capacity = partitions->value(3).toLongLong();
            lane.tatUs = partitions->value(4).toLongLong();
            lane.heldUntilMs = partitions->value(5).toLongLong();
            lane.lookAtMs = partitions->value(6).toLongLong();
            lane.smooth = partitions->value(7).toString() == u"smooth";
            lane.server.quota = partitions->value(8).toLongLong();
            lane.server.windowMs = partitions->value(9).toLongLong();
            lane.server.remaining = partitions->value(10).toLongLong();
            lane.server.resetAtMs = partitions->value(11).toLongLong();
            lane.server.knownUntilMs = partitions->value(12).toLongLong();
            lane.server.openedAtMs = partitions->value(13).toLongLong();
            lanes.push_back(std::move(lane));
        }
        partitions->finish();
        int offering = 0; // lanes that offer something
        for (Lane &lane : lanes) {
            if (offering >= room) {
                lane.wanted = -1;
                continue;
            }
            lane.held = lane.heldUntilMs > nowMs;
            lane.wanted = lane.held ? 0 : lane.units(nowMs, *paceNow, room);
            if (lane.wanted <= 0)
                continue;
            dueInPartition->bindValue(QStringLiteral(":policy"), text(lane.policyId));
            dueInPartition->bindValue(QStringLiteral(":partition"), text(lane.partitionKey));
            dueInPartition->bindValue(QStringLiteral(":now"), nowMs);
            dueInPartition->bindValue(QStringLiteral(":limit"), lane.wanted);
            if (!collect(dueInPartition, &lane.candidates))
                return claimed;
            if (!lane.candidates.isEmpty())
                ++offering;
        }
        Lane free;
        free.partitioned = false;
        free.wanted = room;
        QSqlQuery *unpartitioned = cached(
            QStringLiteral("SELECT id, cost, host FROM operations%1 WHERE state IN ('scheduled',"
                           " 'waiting') AND policy_id = '' AND next_attempt_at <= :now"
                           " AND force_next = 0%2 ORDER BY next_attempt_at LIMIT :limit%3")
                .arg(hint("operations_due_unpartitioned"), notPaused, lock));
        if (!unpartitioned)
            return claimed;
        unpartitioned->bindValue(QStringLiteral(":now"), nowMs);
        unpartitioned->bindValue(QStringLiteral(":limit"), room);
        if (!collect(unpartitioned, &free.candidates))
            return claimed;
        lanes.push_back(std::move(free));

        // Round-robin. Under a byte quota a lane stops offering when its next cost no
        // longer fits; a candidate whose host has no fleet-wide permit left is passed
        // over, and keeps its token.
        const qsizetype full = picked.size() + permitted;
        bool progress = true;
        while (progress && picked.size() < full) {
            progress = false;
            for (Lane &lane : lanes) {
                if (picked.size() >= full)
                    break;
                while (lane.taken < lane.candidates.size() &&
                       permits.hostFull(lane.candidates.at(lane.taken).host)) {
                    lane.candidates.removeAt(lane.taken);
                    m_claimCapped = true;
                }
                if (lane.taken >= lane.candidates.size())
                    continue;
                const Candidate &candidate = lane.candidates.at(lane.taken);
                const bool gcra = lane.gcraPaced(nowMs);
                const bool window = lane.windowPaced(nowMs);
                if ((gcra && lane.pace.available(lane.tatUs, *paceNow) <
                                 std::min(candidate.cost, lane.pace.capacity)) ||
                    (window && lane.server.available(lane.pace.intervalUs, nowMs) <= 0)) {
                    lane.candidates.resize(lane.taken); // offers no more
                    continue;
                }
                if (gcra)
                    lane.tatUs = lane.pace.take(lane.tatUs, candidate.cost, *paceNow);
                if (window)
                    lane.server.take(candidate.cost, lane.pace.intervalUs, nowMs);
                permits.take(candidate.host);
                picked.append(candidate.id);
                ++lane.taken;
                progress = true;
            }
        }
        if (permitted < room && picked.size() >= full) {
            for (const Lane &lane : lanes)
                m_claimCapped = m_claimCapped || lane.taken < lane.candidates.size();
        }
    }

    // A worker that left work behind for want of permits says so, so that the others
    // make room for it; one that no longer wants clears it.
    if (wantedAtMs >= 0 && (m_claimCapped || m_wantingPermits)) {
        QSqlQuery *want = cached(QStringLiteral(
            "INSERT INTO workers (worker_id, wants_until) VALUES (:worker, :until)"
            " ON CONFLICT (worker_id) DO UPDATE SET wants_until = excluded.wants_until"));
        if (!want)
            return {};
        want->bindValue(QStringLiteral(":worker"), text(workerId));
        want->bindValue(QStringLiteral(":until"), m_claimCapped ? wantedAtMs + kWantingMs : 0);
        if (!exec(*want))
            return {};
        m_wantingPermits = m_claimCapped;
    }

    if (!picked.isEmpty()) {
        const QString set = QStringLiteral(
            "rescued = CASE WHEN state = 'running' THEN 1 ELSE 0 END, state = 'running',"
            " lease_owner = :owner, lease_expires_at = :expires, version = version + 1");
        if (postgres) {
            // One round trip for the claim.
            QStringList ids;
            ids.reserve(picked.size());
            for (qint64 id : std::as_const(picked))
                ids.append(QString::number(id));
            QSqlQuery query =
                prepare(QStringLiteral("UPDATE operations SET %1 WHERE id IN (%2) RETURNING %3")
                            .arg(set, ids.join(u','), columns(kOperationColumns)));
            query.bindValue(QStringLiteral(":owner"), text(workerId));
            query.bindValue(QStringLiteral(":expires"), leaseNow + leaseMs);
            if (!exec(query))
                return {};
            while (query.next())
                claimed.append(readOperation(query));
            if (query.lastError().isValid()) {
                fail(QStringLiteral("claim"), errorText(query.lastError()));
                return {};
            }
            query.finish();
        } else {
            // SQLite is in this process: statements prepared once, per operation, cost
            // less than parsing a new statement for each claim (most claims take one or
            // two) and RETURNING's temporary table.
            QSqlQuery *update =
                cached(QStringLiteral("UPDATE operations SET %1 WHERE id = :id").arg(set));
            QSqlQuery *read = cached(QStringLiteral("SELECT %1 FROM operations WHERE id = :id")
                                         .arg(columns(kOperationColumns)));
            if (!update || !read)
                return {};
            for (qint64 id : std::as_const(picked)) {
                update->bindValue(QStringLiteral(":owner"), text(workerId));
                update->bindValue(QStringLiteral(":expires"), leaseNow + leaseMs);
                update->bindValue(QStringLiteral(":id"), id);
                if (!exec(*update))
                    return {};
                read->bindValue(QStringLiteral(":id"), id);
                if (!exec(*read))
                    return {};
                if (!read->next()) {
                    fail(QStringLiteral("claim"), QStringLiteral("operation %1 vanished").arg(id));
                    return {};
                }
                claimed.append(readOperation(*read));
                read->finish();
            }
        }
        for (OperationRecord &op : claimed)
            op.leaseExpiresAtMs -= m_clockOffsetMs;
    }

    // Each partition looked at learns when a claim may find work there next: when its
    // bucket has a unit and no hold stands, and not before its first pending
    // operation is due; one just served goes behind those still waiting.
    if (paceNow) {
        const qint64 paceNowMs = *paceNow / 1000;
        QSqlQuery *update = cached(QStringLiteral(
            "UPDATE rate_partitions SET tat_us = :tat, look_at = :look, ready_at = :ready,"
            " next_at = :next, server_remaining = :remaining, server_reset_at = :reset,"
            " server_opened_at = :opened WHERE policy_id = :policy AND partition_key = "
            ":partition"));
        QSqlQuery *firstPending = cached(
            QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE policy_id = :policy"
                           " AND partition_key = :partition AND state IN ('scheduled', 'waiting')%2"
                           " ORDER BY next_attempt_at LIMIT 1")
                .arg(hint("operations_due_by_partition"), notPaused));
        if (!update || !firstPending)
            return {};
        for (const Lane &lane : lanes) {
            if (!lane.partitioned || lane.wanted < 0)
                continue;
            qint64 lookAt = lane.lookAtMs;
            if (lane.wanted > 0 && lane.candidates.size() < lane.wanted &&
                lane.taken == lane.candidates.size()) {
                // It ran out of due work: its next is its first pending operation.
                firstPending->bindValue(QStringLiteral(":policy"), text(lane.policyId));
                firstPending->bindValue(QStringLiteral(":partition"), text(lane.partitionKey));
                if (!exec(*firstPending))
                    return {};
                lookAt = firstPending->next() ? firstPending->value(0).toLongLong() : kNever;
                firstPending->finish();
            }
            qint64 ready = lane.gcraPaced(nowMs) ? lane.pace.availableAtMs(lane.tatUs, 1, paceNowMs)
                                                 : paceNowMs;
            if (lane.windowPaced(nowMs))
                ready = std::max(ready, lane.server.availableAtMs(lane.pace.intervalUs, nowMs));
            if (lane.held)
                ready = std::max(ready, lane.heldUntilMs);
            qint64 next = std::max(ready, lookAt);
            if (lane.taken > 0)
                next = std::max(next, paceNowMs);
            update->bindValue(QStringLiteral(":tat"), lane.tatUs);
            update->bindValue(QStringLiteral(":look"), lookAt);
            update->bindValue(QStringLiteral(":ready"), ready);
            update->bindValue(QStringLiteral(":next"), next);
            update->bindValue(QStringLiteral(":remaining"), lane.server.remaining);
            update->bindValue(QStringLiteral(":reset"), lane.server.resetAtMs);
            update->bindValue(QStringLiteral(":opened"), lane.server.openedAtMs);
            update->bindValue(QStringLiteral(":policy"), text(lane.policyId));
            update->bindValue(QStringLiteral(":partition"), text(lane.partitionKey));
            if (!exec(*update))
                return {};
        }
    }
    if (!forced.isEmpty()) {
        const std::optional<qint64> now = paceNow ? paceNow : paceNowUs(nowMs);
        if (!now)
            return {};
        QSqlQuery *charge =
            cached(QStringLiteral(
                       "UPDATE rate_partitions SET tat_us = CASE WHEN interval_us = 0 THEN tat_us"
                       " ELSE %1(tat_us, :now) + interval_us * :cost END"
                       " WHERE policy_id = :policy AND partition_key = :partition")
                       .arg(greatest()));
        if (!charge)
            return {};
        for (const auto &[policyId, partitionKey, cost] : std::as_const(forced)) {
            if (policyId.isEmpty())
                continue;
            charge->bindValue(QStringLiteral(":now"), *now);
            charge->bindValue(QStringLiteral(":cost"), cost);
            charge->bindValue(QStringLiteral(":policy"), text(policyId));
            charge->bindValue(QStringLiteral(":partition"), text(partitionKey));
            if (!exec(*charge))
                return {};
        }
    }
    if (!transaction.commit()) {
        fail(QStringLiteral("claim"), transaction.error());
        return {};
    }
    // In the order picked: rescues, forced, then round by round.
    QHash<qint64, qsizetype> order;
    for (qsizetype i = 0; i < picked.size(); ++i)
        order.insert(picked.at(i), i);
    std::sort(claimed.begin(), claimed.end(),
              [&order](const OperationRecord &a, const OperationRecord &b) {
                  return order.value(a.id) < order.value(b.id);
              });
    return claimed;
}

bool Store::insertAttempt(const AttemptRecord &a, bool leaseConflict, qint64 *id)
{
    // SQLite gathers a RETURNING clause's rows in a temporary table of their own, which
    // costs more than the insert: there the id comes from the connection instead.
    static const QString sql = QStringLiteral("INSERT INTO attempts (%1) VALUES (%2)")
                                   .arg(attemptInsert().names(), attemptInsert().list());
    static const QString returning = sql + QStringLiteral(" RETURNING id");
    const bool postgres = m_backend == Backend::Postgres;
    QSqlQuery *statement = cached(postgres ? returning : sql);
    if (!statement)
        return false;
    QSqlQuery &query = *statement;
    // Redaction happens here, whatever the caller did.
    const QVariant values[] = {
        a.operationId,
        text(a.endpointId),
        a.attempt,
        a.startedAtMs,
        a.finishedAtMs,
        text(a.method),
        text(redaction::redactUrl(a.url)),
        a.status,
        text(redaction::redactText(a.error)),
        text(a.decision),
        text(redaction::redactText(a.reason)),
        a.waitMs,
        text(a.waitSource),
        text(a.retryAfterRaw),
        text(redaction::redactText(a.problemType)),
        text(redaction::redactText(a.problemInstance)),
        a.rateLimitRemaining,
        text(a.idempotencyKey),
        a.durationMs,
        text(a.workerId),
        text(a.policyId),
        a.policyVersion,
        a.forced ? 1 : 0,
        text(redaction::redactHeaderLines(a.requestHeaders)),
        text(redaction::redactHeaderLines(a.responseHeaders)),
        leaseConflict ? 1 : 0,
    };
    attemptInsert().bind(query, values);
    if (!exec(query))
        return false;
    if (!postgres) {
        if (id)
            *id = query.lastInsertId().toLongLong();
        return true;
    }
    const bool returned = query.next();
    if (returned && id)
        *id = query.value(0).toLongLong();
    query.finish();
    return returned || fail(QStringLiteral("record attempt"), QStringLiteral("no id returned"));
}

Store::FinishResult Store::finishAttempt(const AttemptRecord &attempt,
                                         const OperationRecord &newState, qint64 claimedVersion,
                                         const QString &workerId)
{
    const FinishOutcome outcome =
        finishAttempts({{attempt, newState, claimedVersion}}, workerId).value(0);
    if (outcome.result != FinishResult::Committed)
        m_lastError = outcome.error;
    return outcome.result;
}

bool Store::observeQuota(const FinishRequest &request)
{
    const QString lock = m_backend == Backend::Postgres ? QStringLiteral(" FOR UPDATE") : QString();
    QSqlQuery *row = cached(
        QStringLiteral("SELECT server_quota, server_window_ms, server_remaining, server_reset_at,"
                       " server_known_until, server_opened_at FROM rate_partitions"
                       " WHERE policy_id = :policy AND partition_key = :partition") +
        lock);
    QSqlQuery *running = cached(QStringLiteral(
        "SELECT COUNT(*) FROM operations WHERE state = 'running' AND policy_id = :policy"
        " AND partition_key = :partition"));
    QSqlQuery *update = cached(QStringLiteral(
        "UPDATE rate_partitions SET server_quota = :quota, server_window_ms = :window,"
        " server_remaining = :remaining, server_reset_at = :reset,"
        " server_known_until = :until, server_opened_at = :opened, learned_from = :from,"
        " learned_at = :at,"
        // A learned partition paced by the server's refusals is paced by what it states.
        " interval_us = CASE WHEN policy_id LIKE 'learned:%' THEN 0 ELSE interval_us END,"
        " next_at = CASE WHEN :open = 1 AND look_at < next_at THEN look_at ELSE next_at END"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    if (!row || !running || !update)
        return false;
    const QString policy = request.quotaPolicyId;
    const QString partition = request.quotaPartitionKey;
    row->bindValue(QStringLiteral(":policy"), text(policy));
    row->bindValue(QStringLiteral(":partition"), text(partition));
    if (!exec(*row))
        return false;
    if (!row->next()) {
        row->finish();
        return true; // no such partition (any more): nothing to pace
    }
    ServerWindow window;
    window.quota = row->value(0).toLongLong();
    window.windowMs = row->value(1).toLongLong();
    window.remaining = row->value(2).toLongLong();
    window.resetAtMs = row->value(3).toLongLong();
    window.knownUntilMs = row->value(4).toLongLong();
    window.openedAtMs = row->value(5).toLongLong();
    row->finish();
    running->bindValue(QStringLiteral(":policy"), text(policy));
    running->bindValue(QStringLiteral(":partition"), text(partition));
    if (!exec(*running) || !running->next())
        return fail(QStringLiteral("quota"), errorText(running->lastError()));
    const qint64 othersInFlight = running->value(0).toLongLong();
    running->finish();
    const qint64 now = request.quotaObservedAtMs;
    window.observe(*request.quota, othersInFlight, now);
    if (window.quota <= 0)
        return true;
    update->bindValue(QStringLiteral(":quota"), window.quota);
    update->bindValue(QStringLiteral(":window"), window.windowMs);
    update->bindValue(QStringLiteral(":remaining"), window.remaining);
    update->bindValue(QStringLiteral(":reset"), window.resetAtMs);
    update->bindValue(QStringLiteral(":until"), window.knownUntilMs);
    update->bindValue(QStringLiteral(":opened"), window.openedAtMs);
    update->bindValue(QStringLiteral(":from"), text(request.quota->fields));
    update->bindValue(QStringLiteral(":at"), now);
    update->bindValue(QStringLiteral(":open"), window.available(0, now) > 0 ? 1 : 0);
    update->bindValue(QStringLiteral(":policy"), text(policy));
    update->bindValue(QStringLiteral(":partition"), text(partition));
    return exec(*update);
}

bool Store::observeAnswers(const QList<FinishRequest> &requests)
{
    // The answers of each learned partition, in order. A statement of a quota paces
    // the partition by itself (observeQuota).
    QList<QPair<QString, QString>> partitions;
    QHash<QPair<QString, QString>, QList<const FinishRequest *>> answers;
    for (const FinishRequest &request : requests) {
        const OperationRecord &op = request.newState;
        if (!isLearnedPolicyId(op.policyId) || request.attempt.status <= 0 ||
            (request.quota && request.quota->quota > 0))
            continue;
        const QPair<QString, QString> key{op.policyId, op.partitionKey};
        if (!answers.contains(key))
            partitions.append(key);
        answers[key].append(&request);
    }
    if (partitions.isEmpty())
        return true;
    const QString lock = m_backend == Backend::Postgres ? QStringLiteral(" FOR UPDATE") : QString();
    QSqlQuery *row = cached(
        QStringLiteral("SELECT interval_us, measured_since, measured_accepted, measured_raised_at,"
                       " server_quota, server_known_until FROM rate_partitions"
                       " WHERE policy_id = :policy AND partition_key = :partition") +
        lock);
    QSqlQuery *update = cached(QStringLiteral(
        "UPDATE rate_partitions SET interval_us = :interval, capacity = 1,"
        " measured_since = :since, measured_accepted = :accepted, measured_raised_at = :raised,"
        " learned_from = CASE WHEN :lesson = '' THEN learned_from ELSE :lesson2 END,"
        " learned_at = CASE WHEN :lesson3 = '' THEN learned_at ELSE :at END"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    if (!row || !update)
        return false;
    for (const auto &key : std::as_const(partitions)) {
        row->bindValue(QStringLiteral(":policy"), text(key.first));
        row->bindValue(QStringLiteral(":partition"), text(key.second));
        if (!exec(*row))
            return false;
        if (!row->next()) {
            row->finish();
            continue; // no such partition (any more)
        }
        MeasuredPace pace;
        pace.intervalUs = row->value(0).toLongLong();
        pace.sinceMs = row->value(1).toLongLong();
        pace.accepted = row->value(2).toLongLong();
        pace.raisedAtMs = row->value(3).toLongLong();
        const bool stated = row->value(4).toLongLong() > 0;
        const qint64 statedUntil = row->value(5).toLongLong();
        row->finish();
        QString lesson;
        qint64 lessonAt = 0;
        for (const FinishRequest *request : answers.value(key)) {
            const AttemptRecord &a = request->attempt;
            if (stated && statedUntil > a.finishedAtMs)
                continue; // paced by what the server states
            const bool refused = a.status == 429;
            const qint64 holdMs = a.waitSource == u"retry-after" ? a.waitMs : 0;
            const MeasuredPace before = pace;
            pace.answered(refused, holdMs, a.startedAtMs, a.finishedAtMs);
            if (refused && pace.intervalUs != before.intervalUs) {
                lesson = QStringLiteral("429 after %1 accepted answers in %2 s%3")
                             .arg(before.accepted)
                             .arg(double(a.finishedAtMs - before.sinceMs) / 1000.0, 0, 'f', 1)
                             .arg(a.retryAfterRaw.isEmpty()
                                      ? QString()
                                      : QStringLiteral(", Retry-After: ") + a.retryAfterRaw);
                lessonAt = a.finishedAtMs;
            }
        }
        update->bindValue(QStringLiteral(":interval"), pace.intervalUs);
        update->bindValue(QStringLiteral(":since"), pace.sinceMs);
        update->bindValue(QStringLiteral(":accepted"), pace.accepted);
        update->bindValue(QStringLiteral(":raised"), pace.raisedAtMs);
        update->bindValue(QStringLiteral(":lesson"), text(lesson));
        update->bindValue(QStringLiteral(":lesson2"), text(lesson));
        update->bindValue(QStringLiteral(":lesson3"), text(lesson));
        update->bindValue(QStringLiteral(":at"), lessonAt);
        update->bindValue(QStringLiteral(":policy"), text(key.first));
        update->bindValue(QStringLiteral(":partition"), text(key.second));
        if (!exec(*update))
            return false;
    }
    return true;
}

bool Store::finishOne(const FinishRequest &request, const QString &workerId, FinishOutcome *outcome)
{
    // One statement applies the new state where the fence holds; a pending cancel
    // turns any state but succeeded and failed into cancelled on the way. PostgreSQL
    // returns the flag with the update; SQLite would build a temporary table for it
    // (see insertAttempt), so there the flag is read back by key.
    const bool postgres = m_backend == Backend::Postgres;
    static const QString sql = QStringLiteral(
        "UPDATE operations SET"
        " state = CASE WHEN cancel_requested = 1 THEN :cancelled_state ELSE :state END,"
        " attempt = :attempt, throttled_attempts = :throttled_attempts,"
        " first_attempt_at = :first_attempt_at,"
        " next_attempt_at = CASE WHEN cancel_requested = 1 THEN CAST(:cancelled_next AS BIGINT)"
        " ELSE CAST(:next AS BIGINT) END,"
        " last_status = :last_status, last_error = :last_error,"
        " response_instance = :response_instance,"
        " final_reason = CASE WHEN cancel_requested = 1 THEN :cancelled_reason ELSE :reason END,"
        " wait_source = :wait_source, previous_backoff_ms = :previous_backoff_ms,"
        " force_next = :force_next, rescued = 0,"
        " lease_owner = CASE WHEN cancel_requested = 1 THEN :cancelled_owner ELSE :owner END,"
        " lease_expires_at = CASE WHEN cancel_requested = 1 THEN CAST(:cancelled_expires AS BIGINT)"
        " ELSE CAST(:expires AS BIGINT) END, version = version + 1"
        " WHERE id = :id AND version = :version AND lease_owner = :worker");
    static const QString returning = sql + QStringLiteral(" RETURNING cancel_requested");
    QSqlQuery *update = cached(postgres ? returning : sql);
    if (!update)
        return false;
    const AttemptRecord &attempt = request.attempt;
    const OperationRecord &next = request.newState;

    // The operation as it will be stored, without and with a pending cancel.
    OperationRecord stored = next;
    stored.id = attempt.operationId;
    stored.version = request.claimedVersion + 1;
    stored.lastError = redaction::redactText(next.lastError);
    stored.responseInstance = redaction::redactText(next.responseInstance);
    stored.rescued = false;
    const bool keepsLease = next.state == OperationState::Running;
    stored.leaseOwner = keepsLease ? workerId : QString();
    stored.leaseExpiresAtMs = keepsLease ? next.leaseExpiresAtMs : -1;
    OperationRecord cancelled = stored;
    cancelled.cancelRequested = true;
    if (next.state != OperationState::Succeeded && next.state != OperationState::Failed) {
        cancelled.state = OperationState::Cancelled;
        cancelled.finalReason = QStringLiteral("cancelled_by_operator");
        cancelled.nextAttemptAtMs = -1;
        cancelled.leaseOwner.clear();
        cancelled.leaseExpiresAtMs = -1;
    }

    const QVariant values[] = {
        stateText(cancelled.state),
        stateText(stored.state),
        next.attempt,
        next.throttledAttempts,
        next.firstAttemptAtMs,
        cancelled.nextAttemptAtMs,
        stored.nextAttemptAtMs,
        next.lastStatus,
        text(stored.lastError),
        text(stored.responseInstance),
        text(cancelled.finalReason),
        text(stored.finalReason),
        text(next.waitSource),
        next.previousBackoffMs,
        next.forceNext ? 1 : 0,
        text(cancelled.leaseOwner),
        text(stored.leaseOwner),
        cancelled.leaseExpiresAtMs,
        stored.leaseExpiresAtMs,
        attempt.operationId,
        request.claimedVersion,
        text(workerId),
    };
    finishUpdate().bind(*update, values);
    if (!exec(*update))
        return false;
    bool applied = false;
    bool cancelRequested = false;
    if (postgres) {
        applied = update->next();
        cancelRequested = applied && update->value(0).toInt() != 0;
        update->finish();
    } else if (update->numRowsAffected() == 1) {
        QSqlQuery *flag =
            cached(QStringLiteral("SELECT cancel_requested FROM operations WHERE id = :id"));
        if (!flag)
            return false;
        flag->bindValue(QStringLiteral(":id"), attempt.operationId);
        if (!exec(*flag) || !flag->next())
            return fail(QStringLiteral("finish"), QStringLiteral("the operation vanished"));
        applied = true;
        cancelRequested = flag->value(0).toInt() != 0;
        flag->finish();
    }

    if (applied) {
        outcome->result = FinishResult::Committed;
        outcome->operation = cancelRequested ? cancelled : stored;
        return insertAttempt(attempt, false, nullptr);
    }

    // The fence did not hold. The request did leave: keep what it got, but let it
    // change nothing.
    const OperationLookup lookup = lookUpOperation(attempt.operationId);
    if (lookup.result != OperationLookup::Result::Found) {
        outcome->result = FinishResult::Failed;
        outcome->error = QStringLiteral("operation %1 does not exist").arg(attempt.operationId);
        return lookup.result == OperationLookup::Result::Missing;
    }
    const OperationRecord *current = &lookup.record;
    outcome->result = FinishResult::LeaseConflict;
    outcome->operation = *current;
    outcome->error = QStringLiteral("operation %1: worker '%2' held version %3, the store has "
                                    "version %4 leased to '%5'")
                         .arg(attempt.operationId)
                         .arg(workerId)
                         .arg(request.claimedVersion)
                         .arg(current->version)
                         .arg(current->leaseOwner);
    return insertAttempt(attempt, true, nullptr);
}

bool Store::execFenced(QSqlQuery &query, qint64 operationId, const QString &workerId,
                       qint64 claimedVersion)
{
    query.bindValue(QStringLiteral(":id"), operationId);
    query.bindValue(QStringLiteral(":version"), claimedVersion);
    query.bindValue(QStringLiteral(":owner"), text(workerId));
    if (!exec(query))
        return false;
    if (query.numRowsAffected() != 1) {
        m_lastError = QStringLiteral("operation %1 is no longer leased to '%2' at version %3")
                          .arg(operationId)
                          .arg(workerId)
                          .arg(claimedVersion);
        return false;
    }
    return true;
}

bool Store::releaseClaim(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                         qint64 dueAtMs)
{
    // A rescue keeps state running with an expired lease: the next claim rescues it again.
    QSqlQuery *query = cached(QStringLiteral(
        "UPDATE operations SET"
        " state = CASE WHEN cancel_requested = 1 THEN 'cancelled' WHEN rescued = 1 THEN 'running'"
        " WHEN attempt = 0 THEN 'scheduled' ELSE 'waiting' END,"
        " final_reason = CASE WHEN cancel_requested = 1 THEN 'cancelled_by_operator' ELSE "
        "final_reason END,"
        " lease_owner = '', lease_expires_at = CASE WHEN rescued = 1 AND cancel_requested = 0"
        " THEN 0 ELSE -1 END, version = version + 1,"
        " next_attempt_at = CASE WHEN :due >= 0 AND rescued = 0 THEN :due2 ELSE next_attempt_at END"
        " WHERE id = :id AND version = :version AND lease_owner = :owner AND state = 'running'"));
    if (!query)
        return false;
    query->bindValue(QStringLiteral(":due"), dueAtMs);
    query->bindValue(QStringLiteral(":due2"), dueAtMs);
    return execFenced(*query, operationId, workerId, claimedVersion);
}

bool Store::renewLease(qint64 operationId, const QString &workerId, qint64 claimedVersion,
                       qint64 leaseExpiresAtMs)
{
    QSqlQuery *query = cached(QStringLiteral(
        "UPDATE operations SET lease_expires_at = :expires"
        " WHERE id = :id AND version = :version AND lease_owner = :owner AND state = 'running'"));
    if (!query)
        return false;
    // On the clock leases run on, as the last claim measured it against the caller's.
    query->bindValue(QStringLiteral(":expires"), leaseExpiresAtMs + m_clockOffsetMs);
    return execFenced(*query, operationId, workerId, claimedVersion);
}

std::optional<qint64> Store::nextDueAtMs(qint64 nowMs)
{
    // Partitions and leases run on the database's clock on PostgreSQL: their times move
    // by however far the caller's clock is from it.
    qint64 paceOffsetMs = 0;
    if (nowMs >= 0 && m_paceByDatabaseClock) {
        const std::optional<qint64> paceNow = paceNowUs(nowMs);
        if (!paceNow)
            return std::nullopt;
        paceOffsetMs = nowMs - *paceNow / 1000;
    }
    // The partial indexes are in claim order; without statistics SQLite would rather
    // sort every pending operation, so it is told which to walk.
    const bool sqlite = m_backend == Backend::Sqlite;
    const QString notPaused =
        QStringLiteral(" AND endpoint_id NOT IN (SELECT id FROM endpoints WHERE paused = 1)");
    QSqlQuery *unpartitioned = cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE state IN ('scheduled',"
                       " 'waiting') AND policy_id = ''%2 ORDER BY next_attempt_at LIMIT 1")
            .arg(sqlite ? QStringLiteral(" INDEXED BY operations_due_unpartitioned") : QString(),
                 notPaused));
    QSqlQuery *forced = cached(
        QStringLiteral("SELECT next_attempt_at FROM operations%1 WHERE state IN ('scheduled',"
                       " 'waiting') AND force_next = 1%2 ORDER BY next_attempt_at LIMIT 1")
            .arg(sqlite ? QStringLiteral(" INDEXED BY operations_forced") : QString(), notPaused));
    // A partition's next_at: when its bucket has a unit, no hold stands and its first
    // pending operation is due (paced by the database's clock on PostgreSQL).
    // next_at mixes the database's clock (ready_at) with the operations' (look_at). When
    // the caller's clock is far from the database's, each part is moved on its own:
    // that reads every partition, which only a fleet with skewed clocks pays for.
    const bool skewed = qAbs(paceOffsetMs) > kSkewedClockMs;
    QSqlQuery *partitions =
        skewed ? cached(QStringLiteral("SELECT MIN(%1(ready_at + :offset, look_at)) FROM"
                                       " rate_partitions WHERE next_at < :never")
                            .arg(greatest()))
               : cached(QStringLiteral("SELECT next_at FROM rate_partitions WHERE next_at < :never"
                                       " ORDER BY next_at LIMIT 1"));
    QSqlQuery *leases =
        cached(QStringLiteral("SELECT lease_expires_at FROM operations WHERE state = 'running'"
                              " ORDER BY lease_expires_at LIMIT 1"));
    if (partitions) {
        partitions->bindValue(QStringLiteral(":never"), kNever);
        if (skewed)
            partitions->bindValue(QStringLiteral(":offset"), paceOffsetMs);
    }
    std::optional<qint64> earliest;
    for (QSqlQuery *query : {unpartitioned, forced, partitions, leases}) {
        if (!query || !exec(*query))
            return std::nullopt;
        if (query->next() && !query->value(0).isNull()) {
            const qint64 at =
                query->value(0).toLongLong() +
                (query == leases || (query == partitions && !skewed) ? paceOffsetMs : 0);
            earliest = earliest ? std::min(*earliest, at) : at;
        }
        query->finish();
    }
    m_lastError.clear();
    return earliest;
}

// ---------------------------------------------------------------------------------------

Store::OperatorResult Store::retryNow(qint64 operationId, qint64 nowMs, bool force)
{
    QSqlQuery query = prepare(QStringLiteral(
        "UPDATE operations SET state = 'waiting', next_attempt_at = :now, force_next = :force,"
        " final_reason = '', version = version + 1"
        " WHERE id = :id AND state IN ('scheduled', 'waiting', 'parked', 'failed')"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    query.bindValue(QStringLiteral(":force"), force ? 1 : 0);
    query.bindValue(QStringLiteral(":id"), operationId);
    if (!exec(query))
        return OperatorResult::Failed;
    if (query.numRowsAffected() == 1)
        return OperatorResult::Done;
    const OperationLookup lookup = lookUpOperation(operationId);
    if (lookup.result != OperationLookup::Result::Found)
        return lookup.result == OperationLookup::Result::Missing ? OperatorResult::NotFound
                                                                 : OperatorResult::Failed;
    const OperationRecord *record = &lookup.record;
    m_lastError = QStringLiteral("operation %1 is %2; only scheduled, waiting, parked or failed "
                                 "operations can be retried")
                      .arg(operationId)
                      .arg(toString(record->state));
    return OperatorResult::Refused;
}

Store::OperatorResult Store::cancel(qint64 operationId, qint64 nowMs)
{
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("cancel"), transaction.error());
        return OperatorResult::Failed;
    }
    const OperationLookup lookup = lookUpOperation(operationId);
    if (lookup.result != OperationLookup::Result::Found)
        return lookup.result == OperationLookup::Result::Missing ? OperatorResult::NotFound
                                                                 : OperatorResult::Failed;
    const OperationRecord *record = &lookup.record;
    if (isFinal(record->state)) {
        m_lastError = QStringLiteral("operation %1 has already ended (%2)")
                          .arg(operationId)
                          .arg(toString(record->state));
        return OperatorResult::Refused;
    }
    const std::optional<qint64> leaseNow = paceNowUs(nowMs);
    if (!leaseNow)
        return OperatorResult::Failed;
    const bool liveLease =
        record->state == OperationState::Running && record->leaseExpiresAtMs > *leaseNow / 1000;
    // A running attempt cannot be recalled: its result is recorded when it ends, and
    // the worker's fence stays valid so that it can record it.
    QSqlQuery query = prepare(
        liveLease ? QStringLiteral("UPDATE operations SET cancel_requested = 1 WHERE id = :id AND "
                                   "version = :version")
                  : QStringLiteral("UPDATE operations SET state = 'cancelled', final_reason = "
                                   "'cancelled_by_operator',"
                                   " next_attempt_at = -1, lease_owner = '', lease_expires_at = -1,"
                                   " version = version + 1 WHERE id = :id AND version = :version"));
    query.bindValue(QStringLiteral(":id"), operationId);
    query.bindValue(QStringLiteral(":version"), record->version);
    if (!exec(query))
        return OperatorResult::Failed;
    if (query.numRowsAffected() != 1) {
        fail(QStringLiteral("cancel"),
             QStringLiteral("operation %1 changed meanwhile").arg(operationId));
        return OperatorResult::Failed;
    }
    if (!transaction.commit()) {
        fail(QStringLiteral("cancel"), transaction.error());
        return OperatorResult::Failed;
    }
    return liveLease ? OperatorResult::Pending : OperatorResult::Done;
}

int Store::snoozePartition(const QString &policyId, const QString &partitionKey, qint64 untilMs,
                           const QString &why)
{
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("hold partition"), transaction.error());
        return -1;
    }
    // Every worker's claim reads the hold from the partition's row; a hold is only
    // ever extended.
    QSqlQuery hold =
        prepare(QStringLiteral("UPDATE rate_partitions SET held_until = :until, hold_reason = :why,"
                               " ready_at = %1(ready_at, :until2), next_at = %1(next_at, :until3)"
                               " WHERE policy_id = :policy AND partition_key = :partition"
                               " AND held_until < :until4")
                    .arg(greatest()));
    hold.bindValue(QStringLiteral(":until"), untilMs);
    hold.bindValue(QStringLiteral(":why"), text(why));
    hold.bindValue(QStringLiteral(":until2"), untilMs);
    hold.bindValue(QStringLiteral(":until3"), untilMs);
    hold.bindValue(QStringLiteral(":policy"), text(policyId));
    hold.bindValue(QStringLiteral(":partition"), text(partitionKey));
    hold.bindValue(QStringLiteral(":until4"), untilMs);
    if (!exec(hold))
        return -1;
    QSqlQuery query = prepare(QStringLiteral(
        "UPDATE operations SET next_attempt_at = :until, version = version + 1"
        " WHERE state IN ('scheduled', 'waiting') AND policy_id = :policy"
        " AND partition_key = :partition AND next_attempt_at < :until2 AND force_next = 0"));
    query.bindValue(QStringLiteral(":until"), untilMs);
    query.bindValue(QStringLiteral(":policy"), text(policyId));
    query.bindValue(QStringLiteral(":partition"), text(partitionKey));
    query.bindValue(QStringLiteral(":until2"), untilMs);
    if (!exec(query))
        return -1;
    const int moved = query.numRowsAffected();
    if (!transaction.commit()) {
        fail(QStringLiteral("hold partition"), transaction.error());
        return -1;
    }
    return moved;
}

int Store::liftPartitionSnooze(const QString &policyId, const QString &partitionKey, qint64 untilMs,
                               qint64 nowMs)
{
    SqlTransaction transaction(m_database);
    if (!transaction.isActive()) {
        fail(QStringLiteral("lift hold"), transaction.error());
        return -1;
    }
    // Operations the snooze moved sit exactly at its end, as this worker knew it or as
    // the row has it (another worker may have placed or extended it); those whose own
    // retry time is later (the throttled one among them) keep it.
    QSqlQuery query = prepare(QStringLiteral(
        "UPDATE operations SET next_attempt_at = :now, version = version + 1"
        " WHERE state IN ('scheduled', 'waiting') AND policy_id = :policy"
        " AND partition_key = :partition AND (next_attempt_at = :until OR next_attempt_at ="
        " (SELECT held_until FROM rate_partitions WHERE policy_id = :policy2"
        " AND partition_key = :partition2 AND held_until > 0))"));
    query.bindValue(QStringLiteral(":now"), nowMs);
    query.bindValue(QStringLiteral(":policy"), text(policyId));
    query.bindValue(QStringLiteral(":partition"), text(partitionKey));
    query.bindValue(QStringLiteral(":until"), untilMs);
    query.bindValue(QStringLiteral(":policy2"), text(policyId));
    query.bindValue(QStringLiteral(":partition2"), text(partitionKey));
    if (!exec(query))
        return -1;
    const int moved = query.numRowsAffected();
    QSqlQuery hold = prepare(QStringLiteral(
        "UPDATE rate_partitions SET held_until = 0, hold_reason = '', ready_at = 0, next_at = 0"
        " WHERE policy_id = :policy AND partition_key = :partition"));
    hold.bindValue(QStringLiteral(":policy"), text(policyId));
    hold.bindValue(QStringLiteral(":partition"), text(partitionKey));
    if (!exec(hold))
        return -1;
    if (!transaction.commit()) {
        fail(QStringLiteral("lift hold"), transaction.error());
        return -1;
    }
    return moved;
}

// ---------------------------------------------------------------------------------------

QList<OperationRecord> Store::operations(const OperationFilter &filter)
{
    QStringList where{QStringLiteral("id > :after")};
    if (filter.state)
        where.append(QStringLiteral("state = :state"));
    if (!filter.endpointId.isEmpty())
        where.append(QStringLiteral("endpoint_id = :endpoint"));
    QString sql = QStringLiteral("SELECT %1 FROM operations WHERE %2 ORDER BY id")
                      .arg(columns(kOperationColumns), where.join(QStringLiteral(" AND ")));
    if (filter.limit >= 0)
        sql += QStringLiteral(" LIMIT %1").arg(filter.limit);
    QSqlQuery query = prepare(sql);
    query.setForwardOnly(true);
    query.bindValue(QStringLiteral(":after"), filter.afterId);
    if (filter.state)
        query.bindValue(QStringLiteral(":state"), stateText(*filter.state));
    if (!filter.endpointId.isEmpty())
        query.bindValue(QStringLiteral(":endpoint"), filter.endpointId);
    QList<OperationRecord> out;
    if (!exec(query))
        return out;
    while (query.next())
        out.append(readOperation(query));
    return out;
}

QMap<OperationState, qint64> Store::countsByState()
{
    QMap<OperationState, qint64> counts;
    for (OperationState state : allOperationStates())
        counts.insert(state, 0);
    QSqlQuery query =
        prepare(QStringLiteral("SELECT state, COUNT(*) FROM operations GROUP BY state"));
    if (!exec(query))
        return {};
    while (query.next()) {
        if (const auto state = operationStateFromString(query.value(0).toString()))
            counts[*state] = query.value(1).toLongLong();
    }
    return counts;
}

QMap<OperationState, qint64> Store::openCountsByState()
{
    QMap<OperationState, qint64> counts;
    for (OperationState state : {OperationState::Scheduled, OperationState::Running,
                                 OperationState::Waiting, OperationState::Parked})
        counts.insert(state, 0);
    QSqlQuery *query =
        cached(QStringLiteral("SELECT state, COUNT(*) FROM operations WHERE state IN ('scheduled',"
                              " 'running', 'waiting', 'parked') GROUP BY state"));
    if (!query || !exec(*query))
        return {};
    while (query->next()) {
        if (const auto state = operationStateFromString(query->value(0).toString()))
            counts[*state] = query->value(1).toLongLong();
    }
    query->finish();
    m_lastError.clear();
    return counts;
}

std::optional<bool> Store::hasUnfinishedOperations()
{
    QSqlQuery *query = cached(QStringLiteral(
        "SELECT 1 FROM operations WHERE state IN ('scheduled', 'waiting', 'running') LIMIT 1"));
    if (!query || !exec(*query))
        return std::nullopt;
    const bool any = query->next();
    query->finish();
    m_lastError.clear();
    return any;
}

namespace {

QString attemptWhere(const AttemptFilter &filter)
{
    QStringList where{QStringLiteral("a.id > :after")};
    if (filter.beforeId > 0)
        where.append(QStringLiteral("a.id < :before"));
    if (filter.fromMs >= 0)
        where.append(QStringLiteral("a.started_at >= :from"));
    if (filter.toMs >= 0)
        where.append(QStringLiteral("a.started_at < :to"));
    if (!filter.endpointId.isEmpty())
        where.append(QStringLiteral("a.endpoint_id = :endpoint"));
    if (filter.operationId > 0)
        where.append(QStringLiteral("a.operation_id = :operation"));
    if (filter.operationState)
        where.append(QStringLiteral("o.state = :state"));
    if (filter.statusMin >= 0)
        where.append(QStringLiteral("a.status >= :status_min"));
    if (filter.statusMax >= 0)
        where.append(QStringLiteral("a.status <= :status_max"));
    if (filter.statusExcluded >= 0)
        where.append(QStringLiteral("a.status <> :status_excluded"));
    if (!filter.decision.isEmpty())
        where.append(QStringLiteral("a.decision = :decision"));
    if (filter.prunableBeforeMs >= 0)
        where.append(schema::prunableAttempt(QStringLiteral(":prunable_before")));
    return where.join(QStringLiteral(" AND "));
}

// Whether the filter's WHERE clause names the operations (o).
bool filterJoinsOperations(const AttemptFilter &filter)
{
    return filter.operationState || filter.prunableBeforeMs >= 0;
}

// Calls bind(name, value) for each value the filter's WHERE clause names.
template <typename Bind> void forEachFilterValue(const AttemptFilter &filter, Bind bind)
{
    bind(":after", QVariant(filter.afterId));
    if (filter.beforeId > 0)
        bind(":before", QVariant(filter.beforeId));
    if (filter.fromMs >= 0)
        bind(":from", QVariant(filter.fromMs));
    if (filter.toMs >= 0)
        bind(":to", QVariant(filter.toMs));
    if (!filter.endpointId.isEmpty())
        bind(":endpoint", QVariant(filter.endpointId));
    if (filter.operationId > 0)
        bind(":operation", QVariant(filter.operationId));
    if (filter.operationState)
        bind(":state", QVariant(toString(*filter.operationState)));
    if (filter.statusMin >= 0)
        bind(":status_min", QVariant(filter.statusMin));
    if (filter.statusMax >= 0)
        bind(":status_max", QVariant(filter.statusMax));
    if (filter.statusExcluded >= 0)
        bind(":status_excluded", QVariant(filter.statusExcluded));
    if (!filter.decision.isEmpty())
        bind(":decision", QVariant(filter.decision));
    if (filter.prunableBeforeMs >= 0)
        bind(":prunable_before", QVariant(filter.prunableBeforeMs));
}

void bindAttemptFilter(QSqlQuery &query, const AttemptFilter &filter)
{
    forEachFilterValue(filter, [&query](const char *name, const QVariant &value) {
        query.bindValue(QLatin1String(name), value);
    });
}

// False with SQLite's message when a value cannot be bound.
bool bindAttemptFilter(sqlite3_stmt *statement, const AttemptFilter &filter, QString *error)
{
    bool ok = true;
    forEachFilterValue(filter, [&](const char *name, const QVariant &value) {
        const int index = sqlite3_bind_parameter_index(statement, name);
        if (!ok || index == 0)
            return;
        int rc = SQLITE_OK;
        if (value.typeId() == QMetaType::QString) {
            const QByteArray utf8 = value.toString().toUtf8();
            rc = sqlite3_bind_text(statement, index, utf8.constData(), int(utf8.size()),
                                   SQLITE_TRANSIENT);
        } else {
            rc = sqlite3_bind_int64(statement, index, value.toLongLong());
        }
        if (rc != SQLITE_OK) {
            ok = false;
            *error = QString::fromUtf8(sqlite3_errstr(rc));
        }
    });
    return ok;
}

// The operations table joins in only when needed: the full rows carry its state, the
// ids alone only when the filter names it.
QString attemptSelect(const AttemptFilter &filter, const QString &columns = attemptColumns(),
                      bool joinOperations = true)
{
    QString sql =
        QStringLiteral("SELECT %1 FROM attempts AS a%2 WHERE %3 ORDER BY a.id%4")
            .arg(columns,
                 joinOperations ? QStringLiteral(" JOIN operations AS o ON o.id = a.operation_id")
                                : QString(),
                 attemptWhere(filter), filter.newestFirst ? QStringLiteral(" DESC") : QString());
    if (filter.limit >= 0)
        sql += QStringLiteral(" LIMIT %1").arg(filter.limit);
    return sql;
}

} // namespace

QList<AttemptRecord> Store::attempts(const AttemptFilter &filter)
{
    QList<AttemptRecord> out;
    const std::unique_ptr<AttemptCursor> cursor = streamAttempts(filter);
    if (!cursor)
        return out;
    AttemptRecord record;
    while (cursor->next(&record))
        out.append(record);
    if (!cursor->error().isEmpty()) {
        fail(QStringLiteral("attempts"), cursor->error());
        return {};
    }
    return out;
}

QList<qint64> Store::attemptIds(const AttemptFilter &filter)
{
    QList<qint64> out;
    QSqlQuery query(m_database);
    query.setForwardOnly(true);
    if (!query.prepare(
            attemptSelect(filter, QStringLiteral("a.id"), filterJoinsOperations(filter)))) {
        fail(QStringLiteral("attempt ids"), errorText(query.lastError()));
        return out;
    }
    bindAttemptFilter(query, filter);
    if (!exec(query))
        return out;
    if (filter.limit > 0)
        out.reserve(filter.limit);
    while (query.next())
        out.append(query.value(0).toLongLong());
    m_lastError.clear();
    return out;
}

qint64 Store::countAttempts(const AttemptFilter &filter)
{
    QString sql = QStringLiteral("SELECT COUNT(*) FROM attempts AS a%1 WHERE %2")
                      .arg(filterJoinsOperations(filter)
                               ? QStringLiteral(" JOIN operations AS o ON o.id = a.operation_id")
                               : QString(),
                           attemptWhere(filter));
    QSqlQuery query = prepare(sql);
    bindAttemptFilter(query, filter);
    if (!exec(query) || !query.next())
        return -1;
    const qint64 count = query.value(0).toLongLong();
    return filter.limit >= 0 ? std::min<qint64>(count, filter.limit) : count;
}

int Store::backgroundCheckpoints() const
{
    return m_checkpointer ? m_checkpointer->completedCheckpoints() : 0;
}

qint64 Store::leaseConflictCount()
{
    QSqlQuery query =
        prepare(QStringLiteral("SELECT COUNT(*) FROM attempts WHERE lease_conflict = 1"));
    if (!exec(query) || !query.next())
        return -1;
    return query.value(0).toLongLong();
}

std::unique_ptr<AttemptCursor> Store::streamAttempts(const AttemptFilter &filter, bool withHeaders)
{
    QString columns = attemptColumns();
    if (!withHeaders)
        columns.replace(QLatin1String("a.request_headers, a.response_headers"),
                        QLatin1String("'', ''"));
    const QString sql = attemptSelect(filter, columns);
    if (sqlite3 *connection = sqliteHandle()) {
        // SQLite's own statement: a cell is read as the UTF-8 it is stored as.
        sqlite3_stmt *statement = nullptr;
        const QByteArray utf8 = sql.toUtf8();
        if (sqlite3_prepare_v2(connection, utf8.constData(), int(utf8.size()), &statement,
                               nullptr) != SQLITE_OK) {
            fail(QStringLiteral("attempts"), QString::fromUtf8(sqlite3_errmsg(connection)));
            sqlite3_finalize(statement);
            return nullptr;
        }
        std::unique_ptr<AttemptCursor> cursor(new AttemptCursor(statement));
        QString error;
        if (!bindAttemptFilter(statement, filter, &error)) {
            fail(QStringLiteral("attempts"), error);
            return nullptr;
        }
        return cursor;
    }
    auto query = std::make_unique<QSqlQuery>(m_database);
    // A default query keeps every row it has read; this one keeps one.
    query->setForwardOnly(true);
    if (!query->prepare(sql)) {
        fail(QStringLiteral("attempts"), errorText(query->lastError()));
        return nullptr;
    }
    bindAttemptFilter(*query, filter);
    if (!exec(*query))
        return nullptr;
    return std::unique_ptr<AttemptCursor>(new AttemptCursor(std::move(query)));
}

bool sqliteLibrariesAgree(const QString &driverSourceId, const char *linkedSourceId)
{
    return linkedSourceId && !driverSourceId.isEmpty() &&
           driverSourceId == QLatin1String(linkedSourceId);
}

sqlite3 *Store::sqliteHandle() const
{
    if (m_backend != Backend::Sqlite || !m_linkedSqlite || !m_database.driver())
        return nullptr;
    // Qt's SQLite driver and this library use the same libsqlite3 (checked at open).
    const QVariant handle = m_database.driver()->handle();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return nullptr;
    return *static_cast<sqlite3 *const *>(handle.constData());
}

} // namespace cooldown
