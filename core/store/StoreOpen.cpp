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
#include <QSet>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QStorageInfo>
#include <QStringList>
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

Store::Store(std::unique_ptr<Database> database)
    : m_db(std::move(database)), m_incidents(*m_db), m_workerStates(*m_db), m_reportSums(*m_db),
      m_endpointReads(*m_db), m_clock(*m_db), m_claims(*m_db, m_clock)
{}

Store::~Store() = default;

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
    auto failed = [&](const QString &why, OpenFailure whose) {
        if (error)
            *error = why;
        if (failure)
            *failure = whose;
        qCDebug(lcStore).noquote() << why;
        return std::unique_ptr<Store>();
    };
    if (failure)
        *failure = OpenFailure::None;
    OpenFailure kind = OpenFailure::None;
    std::unique_ptr<Database> database = Database::connect(url, options, &message, &kind);
    if (!database)
        return failed(message, kind);
    std::unique_ptr<Store> store(new Store(std::move(database)));
    bool newerSchema = false;
    if (!store->initialise(options, displayUrl(url), &message, &newerSchema))
        return failed(message, newerSchema ? OpenFailure::Input : OpenFailure::Runtime);
    store->m_db->makeReserve();
    return store;
}

bool Store::createAtVersion(const QString &url, int version, QString *error,
                            const StoreOptions &options)
{
    if (version <= 0 || version > schema::latestVersion()) {
        *error = QStringLiteral("schema version %1 does not exist (1 to %2)")
                     .arg(version)
                     .arg(schema::latestVersion());
        return false;
    }
    OpenFailure failure = OpenFailure::None;
    std::unique_ptr<Database> database = Database::connect(url, options, error, &failure);
    if (!database)
        return false;
    Store store(std::move(database));
    bool newerSchema = false;
    return store.initialise(options, displayUrl(url), error, &newerSchema, version);
}

std::optional<int> Store::schemaVersion()
{
    QString error;
    const std::optional<int> version = readSchemaVersion(&error);
    if (!version)
        m_db->fail(QStringLiteral("schema version"), error);
    return version;
}

bool Store::initialise(const StoreOptions &options, const QString &displayName, QString *error,
                       bool *newerSchema, int targetVersion)
{
    const bool postgres = m_db->isPostgres();
    auto problem = [&](const QString &detail) {
        QString why = detail;
        if (!postgres && detail.contains(QLatin1String("locked")))
            why = QStringLiteral("%1 (another process holds the database; waited %2 ms)")
                      .arg(detail)
                      .arg(options.busyTimeoutMs);
        *error = QStringLiteral("cannot open '%1': %2").arg(displayName, why);
        return false;
    };

    // Opened by several processes at once, a new SQLite file's first locks may be
    // refused: the version read and the set-up are tried again within one busy timeout.
    QElapsedTimer waited;
    waited.start();

    // Read before writing anything: a database from a newer version must stay untouched.
    QString detail;
    std::optional<int> found;
    while (!(found = readSchemaVersion(&detail))) {
        if (!m_db->mayRetryFirstLock(detail, waited))
            return problem(detail);
    }
    const int latest = schema::latestVersion();
    *newerSchema = *found > latest;
    if (*newerSchema)
        return problem(QStringLiteral("its schema version %1 is newer than this Cooldown supports "
                                      "(%2); use a newer Cooldown")
                           .arg(*found)
                           .arg(latest));

    if (!postgres && !m_db->setUpSqlite(*found == 0, waited, &detail))
        return problem(detail);

    const int target = targetVersion > 0 ? std::min(targetVersion, latest) : latest;
    if (*found < target && !migrate(*found, target, &detail))
        return problem(detail);
    return true;
}

std::optional<int> Store::readSchemaVersion(QString *error)
{
    QSqlQuery query(m_db->connection());
    const QString tables =
        m_db->isPostgres() ? QStringLiteral("SELECT table_name FROM information_schema.tables"
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
    const bool postgres = m_db->isPostgres();
    SqlTransaction transaction = m_db->begin();
    if (!transaction.isActive()) {
        *error = transaction.error();
        return false;
    }
    QSqlQuery query(m_db->connection());
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
    return true;
}

} // namespace cooldown
