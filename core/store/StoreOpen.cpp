// SPDX-License-Identifier: Apache-2.0
// The store: opening a database, its schema and migrations, and the statements every part runs
// through.

#include "core/store/Store.h"
#include "core/store/StoreSql.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/ratelimit/MeasuredPace.h"
#include "core/store/DatabaseFault.h"
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
#include <QStorageInfo>
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

using namespace storesql;

namespace {

// SQLite: the write-ahead log is cut back to this size after a checkpoint.
constexpr qint64 kJournalSizeLimitBytes = qint64(16) * 1024 * 1024;

const QString kSqliteDriver = QStringLiteral("QSQLITE");
const QString kPostgresDriver = QStringLiteral("QPSQL");

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

} // namespace

Store::Store(Backend backend, const QString &connectionName)
    : m_backend(backend),
      m_sql(backend == Backend::Postgres ? SqlDialect::Kind::Postgres : SqlDialect::Kind::Sqlite),
      m_connectionName(connectionName)
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
    store->m_options = options;
    if (!store->initialise(options, shown, &message, &newerSchema)) {
        if (newerSchema)
            kind = OpenFailure::Input;
        return failed(message);
    }
    if (!postgres && options.reserveBytes > 0 && parsed->path != QLatin1String(":memory:")) {
        store->m_reservePath = parsed->path + QStringLiteral("-reserve");
        store->makeReserve();
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
        if (!setUpSqliteConnection(options, mode, &detail))
            return problem(detail);
    }

    m_paceByDatabaseClock = postgres && options.paceByDatabaseClock;
    const int target = options.schemaVersion > 0 ? std::min(options.schemaVersion, latest) : latest;
    m_schemaVersion = *found;
    if (*found < target && !migrate(*found, target, &detail))
        return problem(detail);
    return true;
}

bool Store::setUpSqliteConnection(const StoreOptions &options, const QString &mode, QString *error)
{
    QSqlQuery pragma(m_database);
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
        if (!pragma.exec(statement)) {
            *error = errorText(pragma.lastError());
            return false;
        }
    }
    // The linked library is called on Qt's connection only if it is Qt's too.
    if (options.useLinkedSqlite) {
        if (!pragma.exec(QStringLiteral("SELECT sqlite_source_id()")) || !pragma.next()) {
            *error = errorText(pragma.lastError());
            return false;
        }
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

namespace {

// The rollups of the attempts a database holds when it reaches the version that adds
// them. One statement over ten million attempts runs for minutes without a word; this
// takes the operations in about a hundred steps of consecutive ids (an operation's
// attempts are never split: the recount needs each attempt's previous one), each
// adding its sums to the rows of the steps before, and says how far it is at most
// every two seconds. It runs inside the migration's transaction: all or nothing.
bool buildRollupsInSteps(QSqlQuery &query, QString *error)
{
    if (!query.exec(QStringLiteral("SELECT MIN(operation_id), MAX(operation_id), COUNT(*)"
                                   " FROM attempts")) ||
        !query.next()) {
        *error = errorText(query.lastError());
        return false;
    }
    const qint64 first = query.value(0).toLongLong();
    const qint64 last = query.value(1).toLongLong();
    const qint64 attempts = query.value(2).toLongLong();
    query.finish();
    if (attempts == 0)
        return true;
    constexpr int kSteps = 100;
    const qint64 step = std::max<qint64>(1, (last - first + kSteps) / kSteps);
    const QString insert = QStringLiteral(
        "INSERT INTO attempt_rollups (minute_at, endpoint_id, policy_id, partition_key,"
        " status_class, decision, wait_source, reason, attempts, wait_ms, queue_ms,"
        " duration_ms) SELECT * FROM (%1) counted WHERE 1 = 1"
        " ON CONFLICT (minute_at, endpoint_id, policy_id, partition_key, status_class,"
        " decision, wait_source, reason) DO UPDATE SET"
        " attempts = attempt_rollups.attempts + excluded.attempts,"
        " wait_ms = attempt_rollups.wait_ms + excluded.wait_ms,"
        " queue_ms = attempt_rollups.queue_ms + excluded.queue_ms,"
        " duration_ms = attempt_rollups.duration_ms + excluded.duration_ms");
    QElapsedTimer sinceSaid;
    sinceSaid.start();
    qCInfo(lcStore).noquote()
        << QStringLiteral("building per-minute rollups of %1 attempts").arg(attempts);
    for (qint64 from = first; from <= last; from += step) {
        if (!query.exec(insert.arg(schema::rollupRecount(-1, -1, from, from + step)))) {
            *error = errorText(query.lastError());
            return false;
        }
        query.finish();
        if (sinceSaid.elapsed() >= 2000 && from + step <= last) {
            sinceSaid.restart();
            qCInfo(lcStore).noquote() << QStringLiteral("building per-minute rollups: %1 %")
                                             .arg((from + step - first) * 100 / (last - first + 1));
        }
    }
    return true;
}

} // namespace

bool Store::migrate(int from, int to, QString *error)
{
    const bool postgres = m_backend == Backend::Postgres;
    SqlTransaction transaction(m_database, SqlTransaction::Kind::Write, sqliteHandle());
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
            if (statement == QLatin1String(schema::kBuildRollupsStep)) {
                QString why;
                if (!buildRollupsInSteps(query, &why)) {
                    *error = QStringLiteral("migration to schema version %1 failed: %2")
                                 .arg(version)
                                 .arg(why);
                    return false;
                }
                continue;
            }
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

SqlStatement *Store::cached(const QString &sql)
{
    auto it = m_statements.find(sql);
    if (it == m_statements.end()) {
        auto query = std::make_unique<SqlStatement>(m_database, sqliteHandle(), sql);
        if (!query->isValid()) {
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
    noteFault(faultOf(query.lastError()));
    return fail(QStringLiteral("query"), errorText(query.lastError()));
}

bool Store::exec(SqlStatement &statement)
{
    if (statement.exec())
        return true;
    noteFault(faultOf(statement.lastError()));
    return fail(QStringLiteral("query"), errorText(statement.lastError()));
}

bool Store::fail(const QString &context, const QString &detail)
{
    m_lastError = QStringLiteral("%1: %2").arg(context, detail);
    // A fault (the database away, the disk full) is said once by whoever holds the
    // work (the scheduler); every statement fails until it ends, so its failures are
    // for debugging only.
    if (noteFault(faultOfText(detail)) || m_fault != DatabaseFault::None)
        qCDebug(lcStore).noquote() << m_lastError;
    else
        qCWarning(lcStore).noquote() << m_lastError;
    return false;
}

bool Store::noteFault(DatabaseFault fault)
{
    if (fault == DatabaseFault::None)
        return false;
    if (m_fault == DatabaseFault::None)
        m_fault = fault;
    return true;
}

namespace {

// Room enough for a full disk to count as having room again, besides the reserve.
constexpr qint64 kFreeBytesForBack = qint64(1) << 20;

} // namespace

bool Store::reconnect(QString *error)
{
    if (m_fault == DatabaseFault::None)
        return true;
    QString why;
    if (m_fault == DatabaseFault::DiskFull) {
        if (m_backend == Backend::Sqlite) {
            const QStorageInfo volume(QFileInfo(m_database.databaseName()).absolutePath());
            const qint64 wanted = std::max(kFreeBytesForBack, 2 * m_options.reserveBytes);
            if (volume.isValid() && volume.bytesAvailable() < wanted) {
                if (error)
                    *error = QStringLiteral("%1 bytes free, %2 wanted")
                                 .arg(volume.bytesAvailable())
                                 .arg(wanted);
                return false;
            }
            makeReserve();
        } else {
            QSqlQuery probe(m_database);
            if (!probe.exec(QStringLiteral("SELECT 1"))) {
                if (error)
                    *error = errorText(probe.lastError());
                if (faultOf(probe.lastError()) == DatabaseFault::ConnectionLost)
                    m_fault = DatabaseFault::ConnectionLost;
                return false;
            }
        }
        m_fault = DatabaseFault::None;
        m_lastError.clear();
        return true;
    }
    // The connection is gone: statements prepared on it go first, then it is opened
    // again with the settings it was opened with.
    m_checkpointer.reset();
    dropStatementsOfLostConnection();
    m_database.close();
    if (!m_database.open()) {
        if (error)
            *error = redaction::redactText(errorText(m_database.lastError()).trimmed());
        return false;
    }
    if (m_backend == Backend::Sqlite) {
        QSqlQuery mode(m_database);
        if (!mode.exec(QStringLiteral("PRAGMA journal_mode")) || !mode.next()) {
            if (error)
                *error = errorText(mode.lastError());
            m_database.close();
            return false;
        }
        const QString journal = mode.value(0).toString();
        mode.finish();
        if (!setUpSqliteConnection(m_options, journal, &why)) {
            if (error)
                *error = why;
            m_database.close();
            return false;
        }
    }
    m_fault = DatabaseFault::None;
    m_lastError.clear();
    return true;
}

namespace {

QtMessageHandler g_outerHandler = nullptr;

// QPSQL tries to DEALLOCATE each prepared statement as it goes, and warns that it
// cannot for each one on a connection that is gone: that says nothing the outage did
// not say once already.
void dropUnfreedStatementWarnings(QtMsgType type, const QMessageLogContext &context,
                                  const QString &message)
{
    if (type == QtWarningMsg && message.startsWith(QLatin1String("Unable to free statement")))
        return;
    g_outerHandler(type, context, message);
}

} // namespace

void Store::dropStatementsOfLostConnection()
{
    if (m_backend != Backend::Postgres || m_statements.empty()) {
        m_statements.clear();
        return;
    }
    g_outerHandler = qInstallMessageHandler(&dropUnfreedStatementWarnings);
    m_statements.clear();
    qInstallMessageHandler(g_outerHandler);
}

void Store::makeReserve()
{
    if (m_reservePath.isEmpty() || QFileInfo::exists(m_reservePath))
        return;
    QFile reserve(m_reservePath);
    if (!reserve.open(QIODevice::WriteOnly | QIODevice::NewOnly))
        return;
    // Written out, not a sparse file: its blocks are what it keeps.
    const QByteArray block(64 * 1024, '\0');
    bool written = true;
    for (qint64 left = m_options.reserveBytes; left > 0 && written; left -= block.size())
        written = reserve.write(block.constData(), std::min<qint64>(left, block.size())) > 0;
    written = written && reserve.flush();
    reserve.close();
    if (!written) {
        reserve.remove(); // no room for it now; made once there is
        return;
    }
#ifdef Q_OS_UNIX
    ::chmod(QFile::encodeName(m_reservePath).constData(), 0600);
#endif
}

bool Store::releaseReserve()
{
    if (m_reservePath.isEmpty() || !QFile::exists(m_reservePath))
        return false;
    return QFile::remove(m_reservePath);
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
