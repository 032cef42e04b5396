// SPDX-License-Identifier: Apache-2.0
// One connection to the store's database: opening it, its statements, its errors and
// faults, reconnecting.

#include "core/store/Database.h"

#include "core/Logging.h"
#include "core/http/Redaction.h"
#include "core/store/SqlStatement.h"
#include "core/store/StoreSql.h"
#include "core/store/WalCheckpointer.h"

#include <QAtomicInteger>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSqlDriver>
#include <QSqlError>
#include <QStorageInfo>
#include <QThread>
#include <QUrl>
#include <QVariant>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace cooldown {

using storesql::errorText;

namespace {

// SQLite: the write-ahead log is cut back to this size after a checkpoint.
constexpr qint64 kJournalSizeLimitBytes = qint64(16) * 1024 * 1024;
// Room enough for a full disk to count as having room again, besides the reserve.
constexpr qint64 kFreeBytesForBack = qint64(1) << 20;

const QString kSqliteDriver = QStringLiteral("QSQLITE");
const QString kPostgresDriver = QStringLiteral("QPSQL");

struct ParsedUrl
{
    Database::Backend backend = Database::Backend::Sqlite;
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
                     .arg(redaction::redactUrl(url));
        return std::nullopt;
    }
    parsed.backend = Database::Backend::Postgres;
    parsed.host = u.host();
    parsed.port = u.port(5432);
    parsed.user = u.userName();
    parsed.password = u.password();
    parsed.database = u.path().mid(1);
    if (parsed.database.isEmpty() || parsed.database.contains(u'/')) {
        *error =
            QStringLiteral("'%1' names no database (expected postgresql://user@host:port/database)")
                .arg(redaction::redactUrl(url));
        return std::nullopt;
    }
    return parsed;
}

// Why a SQLite path cannot hold a database, or nothing; on Unix, a new file is made
// its owner's alone first.
QString unfitSqlitePath(const QString &path, const QString &shown, const StoreOptions &options)
{
    const QFileInfo info(path);
    if (info.isDir())
        return QStringLiteral("cannot open '%1': it is a folder, not a database file").arg(shown);
    if (!options.createIfMissing && !info.exists())
        return QStringLiteral("cannot open '%1': there is no database there").arg(shown);
    if (!info.absoluteDir().exists())
        return QStringLiteral("cannot open '%1': the folder '%2' does not exist")
            .arg(shown, QDir::toNativeSeparators(info.absolutePath()));
#ifdef Q_OS_UNIX
    // The attempt history holds URLs, headers and keys: a new database is its owner's
    // alone, whatever the umask. SQLite gives the -wal and -shm files the database
    // file's mode.
    if (!info.exists()) {
        const int fd = ::open(QFile::encodeName(path).constData(),
                              O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd >= 0) {
            ::fchmod(fd, 0600);
            ::close(fd);
        }
    }
#endif
    return QString();
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

bool sqliteLibrariesAgree(const QString &driverSourceId, const char *linkedSourceId)
{
    return linkedSourceId && !driverSourceId.isEmpty() &&
           driverSourceId == QLatin1String(linkedSourceId);
}

Database::Database(Backend backend, const QString &connectionName, const StoreOptions &options)
    : m_backend(backend), m_dialect(backend == Backend::Postgres ? SqlDialect::Kind::Postgres
                                                                 : SqlDialect::Kind::Sqlite),
      m_connectionName(connectionName), m_options(options)
{}

Database::~Database()
{
    m_checkpointer.reset();
    m_statements.clear(); // statements go before their connection
    m_database.close();
    m_database = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connectionName);
}

std::unique_ptr<Database> Database::connect(const QString &url, const StoreOptions &options,
                                            QString *error, OpenFailure *failure)
{
    QString message;
    const std::optional<ParsedUrl> parsed = parseUrl(url, &message);
    const QString shown = redaction::redactUrl(url);
    // What the caller gave is wrong until the database is asked; after that, what
    // fails is the environment (a server, a file, a lock).
    OpenFailure kind = OpenFailure::Input;
    auto failed = [&](const QString &why) {
        if (error)
            *error = why;
        if (failure)
            *failure = kind;
        return std::unique_ptr<Database>();
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
        const QString unfit = unfitSqlitePath(parsed->path, shown, options);
        if (!unfit.isEmpty())
            return failed(unfit);
    }

    const QString connectionName = QStringLiteral("cooldown-store-%1").arg(++g_connectionCounter);
    std::unique_ptr<Database> database(new Database(parsed->backend, connectionName, options));
    database->m_database = QSqlDatabase::addDatabase(driver, connectionName);
    QSqlDatabase &db = database->m_database;
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
        if (options.reserveBytes > 0 && parsed->path != QLatin1String(":memory:"))
            database->m_reservePath = parsed->path + QStringLiteral("-reserve");
    }
    kind = OpenFailure::Runtime;
    if (!db.open()) {
        const QString detail = redaction::redactText(errorText(db.lastError()).trimmed());
        return failed(
            postgres ? QStringLiteral("cannot connect to PostgreSQL at '%1': %2").arg(shown, detail)
                     : QStringLiteral("cannot open '%1': %2").arg(shown, detail));
    }
    return database;
}

bool Database::mayRetryFirstLock(const QString &why, const QElapsedTimer &waited) const
{
    if (isPostgres() || !why.contains(QLatin1String("locked")) ||
        waited.elapsed() >= m_options.busyTimeoutMs)
        return false;
    QThread::msleep(5 + QRandomGenerator::global()->bounded(20));
    return true;
}

bool Database::setUpSqlite(bool newDatabase, const QElapsedTimer &waited, QString *error)
{
    QSqlQuery pragma(m_database);
    auto failed = [&] {
        *error = errorText(pragma.lastError());
        return false;
    };
    // A new file gives the pages that retention frees back to the file system
    // (Store::incrementalVacuum); the mode can only be chosen before the first table.
    if (newDatabase && !pragma.exec(QStringLiteral("PRAGMA auto_vacuum=INCREMENTAL")))
        return failed();
    while (!pragma.exec(QStringLiteral("PRAGMA journal_mode=WAL"))) {
        if (!mayRetryFirstLock(errorText(pragma.lastError()), waited))
            return failed();
    }
    pragma.next();
    const QString mode = pragma.value(0).toString();
    pragma.finish();
    if (mode != QLatin1String("wal") && mode != QLatin1String("memory")) {
        *error = QStringLiteral("the file cannot be written (journal mode stays '%1')").arg(mode);
        return false;
    }
    return setUpSqliteConnection(mode, error);
}

bool Database::setUpSqliteConnection(const QString &mode, QString *error)
{
    QSqlQuery pragma(m_database);
    const QString pragmas[] = {
        m_options.fullSync ? QStringLiteral("PRAGMA synchronous=FULL")
                           : QStringLiteral("PRAGMA synchronous=NORMAL"),
        QStringLiteral("PRAGMA foreign_keys=ON"),
        QStringLiteral("PRAGMA busy_timeout=%1").arg(std::max(0, m_options.busyTimeoutMs)),
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
    if (m_options.useLinkedSqlite) {
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
        m_busyTimeoutMs = std::max(0, m_options.busyTimeoutMs);
        sqlite3_busy_handler(connection, &pollWhileBusy, &m_busyTimeoutMs);
    }
    if (mode == QLatin1String("wal")) {
        if (sqlite3 *connection = sqliteHandle())
            m_checkpointer = std::make_unique<WalCheckpointer>(
                connection, m_database.databaseName(), WalCheckpointer::kDefaultThreshold);
    }
    return true;
}

sqlite3 *Database::sqliteHandle() const
{
    if (m_backend != Backend::Sqlite || !m_linkedSqlite || !m_database.driver())
        return nullptr;
    // Qt's SQLite driver and this library use the same libsqlite3 (checked at open).
    const QVariant handle = m_database.driver()->handle();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0)
        return nullptr;
    return *static_cast<sqlite3 *const *>(handle.constData());
}

std::unique_ptr<SqlBatch> Database::beginBatch()
{
    if (m_backend != Backend::Sqlite)
        return nullptr;
    auto batch = std::make_unique<SqlBatch>(m_database, sqliteHandle());
    if (!batch->isActive()) {
        fail(QStringLiteral("batch"), batch->error());
        return nullptr;
    }
    return batch;
}

void Database::requestCheckpoint()
{
    if (m_checkpointer) {
        m_checkpointer->request();
    } else if (m_backend == Backend::Sqlite) {
        QSqlQuery query(m_database);
        if (!query.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)")))
            qCWarning(lcStore) << "checkpoint failed:" << errorText(query.lastError());
    }
}

int Database::completedCheckpoints() const
{
    return m_checkpointer ? m_checkpointer->completedCheckpoints() : 0;
}

QSqlQuery Database::prepare(const QString &sql)
{
    QSqlQuery query(m_database);
    if (!query.prepare(sql))
        fail(QStringLiteral("prepare"), errorText(query.lastError()));
    return query;
}

SqlStatement *Database::cached(const QString &sql)
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

bool Database::exec(QSqlQuery &query)
{
    if (query.exec())
        return true;
    noteFault(faultOf(query.lastError()));
    return fail(QStringLiteral("query"), errorText(query.lastError()));
}

bool Database::exec(SqlStatement &statement)
{
    if (statement.exec())
        return true;
    noteFault(faultOf(statement.lastError()));
    return fail(QStringLiteral("query"), errorText(statement.lastError()));
}

bool Database::fail(const QString &context, const QString &detail)
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

bool Database::noteFault(DatabaseFault fault)
{
    if (fault == DatabaseFault::None)
        return false;
    if (m_fault == DatabaseFault::None)
        m_fault = fault;
    return true;
}

bool Database::reconnect(QString *error)
{
    if (m_fault == DatabaseFault::None)
        return true;
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
        QString why;
        if (!mode.exec(QStringLiteral("PRAGMA journal_mode")) || !mode.next()) {
            if (error)
                *error = errorText(mode.lastError());
            m_database.close();
            return false;
        }
        const QString journal = mode.value(0).toString();
        mode.finish();
        if (!setUpSqliteConnection(journal, &why)) {
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

void Database::dropStatementsOfLostConnection()
{
    if (m_backend != Backend::Postgres || m_statements.empty()) {
        m_statements.clear();
        return;
    }
    g_outerHandler = qInstallMessageHandler(&dropUnfreedStatementWarnings);
    m_statements.clear();
    qInstallMessageHandler(g_outerHandler);
}

void Database::makeReserve()
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

bool Database::releaseReserve()
{
    if (m_reservePath.isEmpty() || !QFile::exists(m_reservePath))
        return false;
    return QFile::remove(m_reservePath);
}

} // namespace cooldown
