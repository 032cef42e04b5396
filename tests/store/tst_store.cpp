// SPDX-License-Identifier: Apache-2.0
// The store's contract, run against SQLite and PostgreSQL alike: every test function
// runs once per backend (initTestCase_data).

#include "StoreTestSupport.h"
#include "support/ReadableEnums.h"

#include "core/store/SqlTransaction.h"
#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <sqlite3.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <functional>
#include <memory>

using namespace cooldown;

namespace cooldown {
// Readable QCOMPARE failures (found by argument-dependent lookup).
char *toString(Store::FinishResult result)
{
    const char *names[] = {"Committed", "LeaseConflict", "Failed"};
    return qstrdup(names[int(result)]);
}
char *toString(Store::OperatorResult result)
{
    const char *names[] = {"Done", "Pending", "Refused", "NotFound", "Failed"};
    return qstrdup(names[int(result)]);
}
} // namespace cooldown

namespace {

const qint64 kNow = 1'795'000'000'000; // 2026-11-18, a fixed instant: no test reads the clock
const qint64 kLeaseMs = 30'000;

AttemptRecord attemptFor(const OperationRecord &op, const QString &worker, Decision decision)
{
    AttemptRecord a = test::nextAttempt(op, kNow + 10, kNow + 250);
    a.method = QStringLiteral("POST");
    a.url = QStringLiteral("https://api.example.com/jobs?page=1");
    a.status = decision == Decision::Success ? 201 : 429;
    a.decision = decision;
    a.reason = decision == Decision::Success ? QStringLiteral("ok") : QStringLiteral("throttled");
    a.waitMs = decision == Decision::Retry ? 5000 : -1;
    a.waitSource = decision == Decision::Retry ? WaitSource::RetryAfter : WaitSource::None;
    a.retryAfterRaw = decision == Decision::Retry ? QStringLiteral("5") : QString();
    a.problemType = QStringLiteral("https://example.com/probs/rate");
    a.problemInstance = QStringLiteral("/jobs/7");
    a.rateLimitRemaining = 0;
    a.idempotencyKey = op.idempotencyKey;
    a.durationMs = 240;
    a.workerId = worker;
    a.policyId = op.policyId;
    a.policyVersion = 3;
    a.forced = op.forceNext;
    a.requestHeaders = QStringLiteral("Idempotency-Key: %1\n").arg(op.idempotencyKey);
    a.responseHeaders = QStringLiteral("Retry-After: 5\n");
    return a;
}

OperationRecord afterRetry(OperationRecord op, qint64 nextAtMs)
{
    op.state = OperationState::Waiting;
    op.attempt += 1;
    op.throttledAttempts += 1;
    if (op.firstAttemptAtMs < 0)
        op.firstAttemptAtMs = kNow + 10;
    op.nextAttemptAtMs = nextAtMs;
    op.lastStatus = 429;
    op.waitSource = WaitSource::RetryAfter;
    op.forceNext = false;
    return op;
}

OperationRecord afterOutcome(OperationRecord op, OperationState state, const QString &reason)
{
    op.state = state;
    op.attempt += 1;
    op.nextAttemptAtMs = -1;
    op.finalReason = reason;
    op.lastStatus = state == OperationState::Succeeded ? 201 : 500;
    op.forceNext = false;
    return op;
}

} // namespace

class tst_Store : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void init();
    void cleanup();

    void createClaimFinish();
    void linkedSqliteOnlyWhereItIsTheDrivers();
    void batchKeepsAllOrNothing();
    void operationIsDurableBeforeClaim();
    void claimOrderAndLimit();
    void claimNeverOverlaps();
    void versionFenceAndLeaseConflict();
    void groupCommit();
    void renewLease();
    void expiredLeaseRescue();
    void oneShot();
    void snoozePartition();
    void partitionsUnreadAreNotNone();
    void aClaimSaysItsOwnFailure();
    void operatorRetry();
    void cancel();
    void pausedEndpoint();
    void heldEndpoint();
    void incidents();
    void alertTurns();
    void workersOffline();
    void keptExchanges();
    void pauseAfterFailures();
    void nextDue();
    void queries();
    void secretsNeverStored();
    void checkpointsOffTheWritingThread();
    void migrationFromVersion1();
    void unknownWordsReadAsFallbacks();
    void newerVersionRefused();
    void unreachableOrUnusable();

private:
    std::unique_ptr<Store> openStore(const StoreOptions &options = {});
    bool rawExec(const QStringList &statements, QString *error);
    bool isSqlite() const { return m_backend.startsWith(QLatin1String("sqlite")); }
    // SQLite through Qt's driver alone, as where the driver has its own SQLite library.
    bool driverOnly() const { return m_backend == QLatin1String("sqlite-driver-only"); }

    QString m_backend;
    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void tst_Store::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("sqlite, driver only") << "sqlite-driver-only";
    QTest::newRow("postgresql") << "postgresql";
}

void tst_Store::init()
{
    QFETCH_GLOBAL(QString, backend);
    m_backend = backend;
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    if (isSqlite()) {
        m_url = m_dir->filePath(QStringLiteral("cooldown.db"));
        return;
    }
    QString why;
    m_url = test::freshPostgresDatabase(QStringLiteral("cooldown_tst_store"), &why);
    if (m_url.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
}

void tst_Store::cleanup()
{
    m_dir.reset();
}

std::unique_ptr<Store> tst_Store::openStore(const StoreOptions &options)
{
    // Every time here is the fixed kNow the test passes, PostgreSQL's clock included.
    StoreOptions fixedTime = options;
    fixedTime.paceByDatabaseClock = false;
    if (driverOnly())
        fixedTime.useLinkedSqlite = false;
    QString error;
    std::unique_ptr<Store> store = Store::open(m_url, &error, fixedTime);
    if (!store)
        qWarning("open failed: %s", qPrintable(error));
    return store;
}

bool tst_Store::rawExec(const QStringList &statements, QString *error)
{
    return test::rawExec(m_url, statements, error);
}

void tst_Store::createClaimFinish()
{
    auto store = openStore();
    QVERIFY(store);
    QCOMPARE(store->schemaVersion().value_or(-1), Store::latestSchemaVersion());

    const auto id =
        store->createOperation(QStringLiteral("upload"), QStringLiteral("key-1"), kNow,
                               QStringLiteral("project-write-v1"), QStringLiteral("p-184"));
    QVERIFY2(id, qPrintable(store->lastError()));
    auto op = store->operation(*id);
    QVERIFY(op);
    QCOMPARE(op->state, OperationState::Scheduled);
    QCOMPARE(op->nextAttemptAtMs, kNow);
    QCOMPARE(op->createdAtMs, kNow);
    QCOMPARE(op->idempotencyKey, QStringLiteral("key-1"));
    QCOMPARE(op->attempt, 0);
    QCOMPARE(op->firstAttemptAtMs, qint64(-1));

    QVERIFY(store->claims().claimDue(QStringLiteral("w1"), kNow - 1, kLeaseMs, 10).isEmpty());
    QVERIFY(store->lastError().isEmpty());
    const QList<OperationRecord> claimed =
        store->claims().claimDue(QStringLiteral("w1"), kNow, kLeaseMs, 10);
    QCOMPARE(claimed.size(), 1);
    const OperationRecord running = claimed.first();
    QCOMPARE(running.id, *id);
    QCOMPARE(running.state, OperationState::Running);
    QCOMPARE(running.leaseOwner, QStringLiteral("w1"));
    QCOMPARE(running.leaseExpiresAtMs, kNow + kLeaseMs);
    QCOMPARE(running.version, op->version + 1);
    QVERIFY(!running.rescued);
    QVERIFY(store->claims().claimDue(QStringLiteral("w2"), kNow, kLeaseMs, 10).isEmpty());

    const AttemptRecord attempt = attemptFor(running, QStringLiteral("w1"), Decision::Retry);
    QCOMPARE(store->finishAttempt(attempt, afterRetry(running, kNow + 5000), running.version,
                                  QStringLiteral("w1")),
             Store::FinishResult::Committed);
    op = store->operation(*id);
    QCOMPARE(op->state, OperationState::Waiting);
    QCOMPARE(op->attempt, 1);
    QCOMPARE(op->throttledAttempts, 1);
    QCOMPARE(op->nextAttemptAtMs, kNow + 5000);
    QCOMPARE(op->lastStatus, 429);
    QCOMPARE(op->version, running.version + 1);
    QVERIFY(op->leaseOwner.isEmpty());
    QCOMPARE(op->leaseExpiresAtMs, qint64(-1));

    const QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(attempts.size(), 1);
    const AttemptRecord &stored = attempts.first();
    QVERIFY(stored.id > 0);
    QCOMPARE(stored.operationId, *id);
    QCOMPARE(stored.endpointId, QStringLiteral("upload"));
    QCOMPARE(stored.attempt, 1);
    QCOMPARE(stored.startedAtMs, attempt.startedAtMs);
    QCOMPARE(stored.finishedAtMs, attempt.finishedAtMs);
    QCOMPARE(stored.method, QStringLiteral("POST"));
    QCOMPARE(stored.url, attempt.url);
    QCOMPARE(stored.status, 429);
    QCOMPARE(stored.decision, Decision::Retry);
    QCOMPARE(stored.reason, QStringLiteral("throttled"));
    QCOMPARE(stored.waitMs, qint64(5000));
    QCOMPARE(stored.waitSource, WaitSource::RetryAfter);
    QCOMPARE(stored.retryAfterRaw, QStringLiteral("5"));
    QCOMPARE(stored.problemType, attempt.problemType);
    QCOMPARE(stored.problemInstance, attempt.problemInstance);
    QCOMPARE(stored.rateLimitRemaining, 0);
    QCOMPARE(stored.idempotencyKey, QStringLiteral("key-1"));
    QCOMPARE(stored.durationMs, qint64(240));
    QCOMPARE(stored.workerId, QStringLiteral("w1"));
    QCOMPARE(stored.policyId, QStringLiteral("project-write-v1"));
    QCOMPARE(stored.policyVersion, 3);
    QCOMPARE(stored.requestHeaders, attempt.requestHeaders);
    QCOMPARE(stored.responseHeaders, attempt.responseHeaders);
    QVERIFY(!stored.leaseConflict);

    // Due again at its retry time, and it ends.
    QVERIFY(store->claims().claimDue(QStringLiteral("w1"), kNow + 4999, kLeaseMs, 10).isEmpty());
    const QList<OperationRecord> again =
        store->claims().claimDue(QStringLiteral("w2"), kNow + 5000, kLeaseMs, 10);
    QCOMPARE(again.size(), 1);
    QCOMPARE(
        store->finishAttempt(attemptFor(again.first(), QStringLiteral("w2"), Decision::Success),
                             afterOutcome(again.first(), OperationState::Succeeded, QString()),
                             again.first().version, QStringLiteral("w2")),
        Store::FinishResult::Committed);
    QCOMPARE(store->operation(*id)->state, OperationState::Succeeded);
    QCOMPARE(store->operation(*id)->attempt, 2);
    QVERIFY(
        store->claims().claimDue(QStringLiteral("w1"), kNow + 1'000'000, kLeaseMs, 10).isEmpty());
    QCOMPARE(store->latestOperation(QStringLiteral("upload"))->id, *id);
    QVERIFY(!store->latestOperation(QStringLiteral("nothing")));
}

// The store calls the SQLite library it was linked with on Qt's connection only where
// Qt's driver uses that library too; otherwise (or when told) it uses the driver alone,
// and a lock another connection holds is still waited for.
void tst_Store::linkedSqliteOnlyWhereItIsTheDrivers()
{
    QVERIFY(sqliteLibrariesAgree(QStringLiteral("2022-12-28 abc"), "2022-12-28 abc"));
    QVERIFY(!sqliteLibrariesAgree(QStringLiteral("2022-12-28 abc"), "2023-05-16 def"));
    QVERIFY(!sqliteLibrariesAgree(QString(), ""));
    QVERIFY(!sqliteLibrariesAgree(QStringLiteral("x"), nullptr));

    auto store = openStore();
    QVERIFY(store);
    if (!isSqlite()) {
        QVERIFY(!store->usesLinkedSqlite());
        return;
    }
    QString driverSource;
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("source"));
        db.setDatabaseName(m_url);
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(QStringLiteral("SELECT sqlite_source_id()")) && query.next());
        driverSource = query.value(0).toString();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("source"));
    QCOMPARE(store->usesLinkedSqlite(),
             !driverOnly() && driverSource == QLatin1String(sqlite3_sourceid()));

    // Another connection holds the write lock: the store's write waits for it (its busy
    // handler, or the driver's busy_timeout), fails cleanly when it is not released in
    // time, and goes through once it is.
    StoreOptions impatient;
    impatient.busyTimeoutMs = 100;
    auto waiting = openStore(impatient);
    QVERIFY(waiting);
    sqlite3 *holder = nullptr;
    QVERIFY(sqlite3_open(QFile::encodeName(m_url).constData(), &holder) == SQLITE_OK);
    QVERIFY(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
    const auto refused = waiting->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow);
    sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    QVERIFY(!refused);
    QVERIFY2(waiting->lastError().contains(QLatin1String("locked")),
             qPrintable(waiting->lastError()));
    QCOMPARE(store->operations({}).size(), 0);
    const auto created = waiting->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow);
    QVERIFY2(created, qPrintable(waiting->lastError()));
    QCOMPARE(store->operations({}).size(), 1);
}

// Writes in a batch are kept together at its commit, or not at all when it is dropped
// uncommitted; a transaction inside it is a savepoint.
void tst_Store::batchKeepsAllOrNothing()
{
    auto store = openStore();
    QVERIFY(store);
    if (!isSqlite()) {
        // Workers starting together would lock rows in different orders: no batches.
        QVERIFY(!store->beginBatch());
        return;
    }
    {
        auto batch = store->beginBatch();
        QVERIFY2(batch, qPrintable(store->lastError()));
        for (int i = 0; i < 50; ++i) {
            QVERIFY(store->upsertEndpoint(QStringLiteral("e%1").arg(i), QString(), kNow));
            QVERIFY(store->ensureOneShotOperation(QStringLiteral("e%1").arg(i),
                                                  QStringLiteral("k%1").arg(i), kNow, QString(),
                                                  QString()));
        }
        // Another connection sees none of it before the commit.
        auto other = openStore();
        QVERIFY(other);
        QCOMPARE(other->operations({}).size(), 0);
        QVERIFY(batch->commit());
    }
    QCOMPARE(store->operations({}).size(), 50);

    {
        auto dropped = store->beginBatch();
        QVERIFY(dropped);
        QVERIFY(store->createOperation(QStringLiteral("e0"), QStringLiteral("dropped"), kNow));
    }
    QCOMPARE(store->operations({}).size(), 50);

    // A transaction inside the batch is a savepoint of it: its rollback undoes its own
    // writes and nothing else. Shown on a connection of the test's own, through QtSql
    // and through SQLite's own handle of the connection (as the store does where the
    // libraries agree).
    for (const bool useNative : {false, true}) {
        if (useNative && !store->usesLinkedSqlite()) {
            qInfo("SQLite's own handle not tried: the store does not use it here");
            continue;
        }
        const QString label = useNative ? QStringLiteral("native") : QStringLiteral("QtSql");
        QSqlDatabase raw =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("batch"));
        raw.setDatabaseName(m_dir->filePath(QStringLiteral("batch-%1.db").arg(label)));
        QVERIFY(raw.open());
        sqlite3 *native = nullptr;
        if (useNative) {
            const QVariant handle = raw.driver()->handle();
            QCOMPARE(handle.typeName(), "sqlite3*");
            native = *static_cast<sqlite3 *const *>(handle.constData());
            QVERIFY(native);
        }
        QSqlQuery query(raw);
        QVERIFY(query.exec(QStringLiteral("CREATE TABLE t (x INTEGER)")));
        auto count = [&query] {
            return query.exec(QStringLiteral("SELECT group_concat(x) FROM t")) && query.next()
                       ? query.value(0).toString()
                       : QStringLiteral("?");
        };
        constexpr auto write = SqlTransaction::Kind::Write;
        {
            SqlBatch batch(raw, native);
            QVERIFY(batch.isActive());
            QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (1)")));
            {
                SqlTransaction inner(raw, write, native);
                QVERIFY(inner.isActive());
                QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (2)")));
                QVERIFY(inner.commit());
            }
            {
                SqlTransaction inner(raw, write, native);
                QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (3)")));
                {
                    SqlTransaction nested(raw, write, native);
                    QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (4)")));
                } // dropped: rolled back
                QVERIFY(inner.commit());
            }
            {
                SqlTransaction inner(raw, write, native);
                QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (5)")));
            } // dropped: rolled back
            QCOMPARE(count(), QStringLiteral("1,2,3"));
        } // the batch dropped: nothing kept
        QCOMPARE(count(), QString());
        {
            SqlBatch batch(raw, native);
            QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (6)")));
            {
                SqlTransaction inner(raw, write, native);
                QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (7)")));
                QVERIFY(inner.commit());
            }
            QVERIFY(batch.commit());
        }
        QCOMPARE(count(), QStringLiteral("6,7"));
        {
            // outside a batch: a transaction of its own again
            SqlTransaction alone(raw, write, native);
            QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (8)")));
            QVERIFY(alone.commit());
        }
        {
            SqlTransaction dropped(raw, write, native);
            QVERIFY(dropped.isActive());
            QVERIFY(query.exec(QStringLiteral("INSERT INTO t VALUES (9)")));
        } // rolled back
        QCOMPARE(count(), QStringLiteral("6,7,8"));
        {
            // A second write transaction on another connection waits for this one and
            // then gives up: the error says why.
            SqlTransaction first(raw, write, native);
            QVERIFY(first.isActive());
            QSqlDatabase other =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("batch-other"));
            other.setDatabaseName(raw.databaseName());
            other.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=0"));
            QVERIFY(other.open());
            sqlite3 *otherNative =
                native ? *static_cast<sqlite3 *const *>(other.driver()->handle().constData())
                       : nullptr;
            {
                SqlTransaction second(other, write, otherNative);
                QVERIFY(!second.isActive());
                QVERIFY2(second.error().contains(QLatin1String("locked")),
                         qPrintable(second.error()));
            }
            other.close();
            other = {};
            QSqlDatabase::removeDatabase(QStringLiteral("batch-other"));
        }
        QCOMPARE(count(), QStringLiteral("6,7,8"));
        {
            // A commit that fails says why, not why the rollback after it failed too:
            // here SQLite ended the transaction under it.
            SqlTransaction ended(raw, write, native);
            QVERIFY(ended.isActive());
            QVERIFY(query.exec(QStringLiteral("ROLLBACK")));
            QVERIFY(!ended.commit());
            QVERIFY2(ended.error().contains(QLatin1String("cannot commit")),
                     qPrintable(ended.error()));
        }
        query.finish();
        query = QSqlQuery();
        raw.close();
        raw = {};
        QSqlDatabase::removeDatabase(QStringLiteral("batch"));
    }
    // The store works on as before, one transaction a write.
    QVERIFY(store->createOperation(QStringLiteral("e0"), QStringLiteral("after"), kNow));
    QCOMPARE(store->operations({}).size(), 51);
}

void tst_Store::operationIsDurableBeforeClaim()
{
    qint64 id = 0;
    {
        auto writer = openStore();
        QVERIFY(writer);
        id = writer->createOperation(QStringLiteral("e"), QStringLiteral("k-durable"), kNow)
                 .value_or(0);
        QVERIFY(id > 0);
        // A second connection (as a second process would) sees it at once.
        auto reader = openStore();
        QVERIFY(reader);
        QCOMPARE(reader->operation(id)->idempotencyKey, QStringLiteral("k-durable"));
    }
    auto reopened = openStore();
    QVERIFY(reopened);
    QCOMPARE(reopened->operation(id)->state, OperationState::Scheduled);
}

void tst_Store::claimOrderAndLimit()
{
    auto store = openStore();
    QVERIFY(store);
    QList<qint64> ids;
    for (int i = 0; i < 5; ++i)
        ids.append(
            *store->createOperation(QStringLiteral("e"), QString::number(i), kNow + (4 - i) * 100));
    // Due in order of next_attempt_at: ids[4] first.
    QList<OperationRecord> first =
        store->claims().claimDue(QStringLiteral("w"), kNow + 1000, kLeaseMs, 2);
    QCOMPARE(first.size(), 2);
    QCOMPARE(first.at(0).id, ids.at(4));
    QCOMPARE(first.at(1).id, ids.at(3));
    QList<OperationRecord> rest =
        store->claims().claimDue(QStringLiteral("w"), kNow + 1000, kLeaseMs, 10);
    QCOMPARE(rest.size(), 3);
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 1000, kLeaseMs, 10).isEmpty());
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow, kLeaseMs, 0).isEmpty());
    const auto counts = store->countsByState();
    QCOMPARE(counts.value(OperationState::Running), qint64(5));
    QCOMPARE(counts.value(OperationState::Scheduled), qint64(0));
}

void tst_Store::claimNeverOverlaps()
{
    auto a = openStore();
    auto b = openStore();
    QVERIFY(a && b);
    for (int i = 0; i < 60; ++i)
        QVERIFY(a->createOperation(QStringLiteral("e"), QString::number(i), kNow + i));
    QSet<qint64> seen;
    int rounds = 0;
    while (seen.size() < 60 && rounds++ < 100) {
        for (Store *store : {a.get(), b.get()}) {
            const QString worker = store == a.get() ? QStringLiteral("a") : QStringLiteral("b");
            for (const OperationRecord &op :
                 store->claims().claimDue(worker, kNow + 100, kLeaseMs, 7)) {
                QVERIFY2(!seen.contains(op.id), "an operation was claimed twice");
                seen.insert(op.id);
                QCOMPARE(op.leaseOwner, worker);
            }
        }
    }
    QCOMPARE(seen.size(), 60);
}

void tst_Store::versionFenceAndLeaseConflict()
{
    auto store = openStore();
    QVERIFY(store);
    const qint64 id = *store->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow);
    const OperationRecord mine =
        store->claims().claimDue(QStringLiteral("w1"), kNow, kLeaseMs, 1).value(0);
    QCOMPARE(mine.id, id);

    // w1 stalls past its lease; w2 takes the operation over.
    const OperationRecord theirs =
        store->claims().claimDue(QStringLiteral("w2"), kNow + kLeaseMs, kLeaseMs, 1).value(0);
    QCOMPARE(theirs.id, id);
    QVERIFY(theirs.rescued);
    QVERIFY(theirs.version > mine.version);

    // w1's late result is kept as an attempt but changes nothing.
    QCOMPARE(store->finishAttempt(attemptFor(mine, QStringLiteral("w1"), Decision::Success),
                                  afterOutcome(mine, OperationState::Succeeded, QString()),
                                  mine.version, QStringLiteral("w1")),
             Store::FinishResult::LeaseConflict);
    QVERIFY(store->lastError().contains(QLatin1String("w1")));
    auto now = store->operation(id);
    QCOMPARE(now->state, OperationState::Running);
    QCOMPARE(now->leaseOwner, QStringLiteral("w2"));
    QCOMPARE(now->version, theirs.version);
    QCOMPARE(store->leaseConflictCount(), qint64(1));
    QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(attempts.size(), 1);
    QVERIFY(attempts.first().leaseConflict);

    // The right version with the wrong worker is a conflict too.
    QCOMPARE(store->finishAttempt(attemptFor(theirs, QStringLiteral("w1"), Decision::Success),
                                  afterOutcome(theirs, OperationState::Succeeded, QString()),
                                  theirs.version, QStringLiteral("w1")),
             Store::FinishResult::LeaseConflict);
    QCOMPARE(store->leaseConflictCount(), qint64(2));

    QCOMPARE(store->finishAttempt(attemptFor(theirs, QStringLiteral("w2"), Decision::Success),
                                  afterOutcome(theirs, OperationState::Succeeded, QString()),
                                  theirs.version, QStringLiteral("w2")),
             Store::FinishResult::Committed);
    QCOMPARE(store->operation(id)->state, OperationState::Succeeded);
    // Finishing twice with the same claim is stale as well.
    QCOMPARE(store->finishAttempt(attemptFor(theirs, QStringLiteral("w2"), Decision::Success),
                                  afterOutcome(theirs, OperationState::Succeeded, QString()),
                                  theirs.version, QStringLiteral("w2")),
             Store::FinishResult::LeaseConflict);
    QCOMPARE(store->attempts({}).size(), 4);

    AttemptRecord orphan = attemptFor(theirs, QStringLiteral("w2"), Decision::Success);
    orphan.operationId = id + 1000;
    QCOMPARE(store->finishAttempt(orphan, theirs, theirs.version, QStringLiteral("w2")),
             Store::FinishResult::Failed);
    QVERIFY(store->lastError().contains(QLatin1String("does not exist")));
}

// What finishAttempts says the operation now is must be what the store holds.
static void compareOperations(const OperationRecord &reported, const OperationRecord &stored)
{
    QCOMPARE(reported.id, stored.id);
    QCOMPARE(reported.endpointId, stored.endpointId);
    QCOMPARE(reported.state, stored.state);
    QCOMPARE(reported.attempt, stored.attempt);
    QCOMPARE(reported.throttledAttempts, stored.throttledAttempts);
    QCOMPARE(reported.createdAtMs, stored.createdAtMs);
    QCOMPARE(reported.firstAttemptAtMs, stored.firstAttemptAtMs);
    QCOMPARE(reported.nextAttemptAtMs, stored.nextAttemptAtMs);
    QCOMPARE(reported.lastStatus, stored.lastStatus);
    QCOMPARE(reported.lastError, stored.lastError);
    QCOMPARE(reported.idempotencyKey, stored.idempotencyKey);
    QCOMPARE(reported.responseInstance, stored.responseInstance);
    QCOMPARE(reported.leaseOwner, stored.leaseOwner);
    QCOMPARE(reported.leaseExpiresAtMs, stored.leaseExpiresAtMs);
    QCOMPARE(reported.version, stored.version);
    QCOMPARE(reported.finalReason, stored.finalReason);
    QCOMPARE(reported.waitSource, stored.waitSource);
    QCOMPARE(reported.previousBackoffMs, stored.previousBackoffMs);
    QCOMPARE(reported.policyId, stored.policyId);
    QCOMPARE(reported.partitionKey, stored.partitionKey);
    QCOMPARE(reported.forceNext, stored.forceNext);
    QCOMPARE(reported.rescued, stored.rescued);
    QCOMPARE(reported.cancelRequested, stored.cancelRequested);
}

void tst_Store::groupCommit()
{
    auto store = openStore();
    QVERIFY(store);
    for (int i = 0; i < 4; ++i)
        QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("k%1").arg(i), kNow,
                                       QStringLiteral("p"), QStringLiteral("tenant")));
    const QList<OperationRecord> claimed =
        store->claims().claimDue(QStringLiteral("w"), kNow, kLeaseMs, 4);
    QCOMPARE(claimed.size(), 4);
    const OperationRecord &succeeds = claimed[0];
    const OperationRecord &retries = claimed[1];
    const OperationRecord &cancelled = claimed[2];
    const OperationRecord &stale = claimed[3];
    QCOMPARE(store->cancel(cancelled.id, kNow + 1), Store::OperatorResult::Pending);
    // Another worker took this one over: w's claim on it is stale.
    QVERIFY(store->claims().releaseClaim(stale.id, QStringLiteral("w"), stale.version));
    const OperationRecord takenOver =
        store->claims().claimDue(QStringLiteral("w2"), kNow + 2, kLeaseMs, 1).value(0);
    QCOMPARE(takenOver.id, stale.id);

    OperationRecord succeeded = afterOutcome(succeeds, OperationState::Succeeded, QString());
    succeeded.lastError = QStringLiteral("GET https://api.example.com/x?token=abc failed once");
    AttemptRecord orphan = attemptFor(succeeds, QStringLiteral("w"), Decision::Success);
    orphan.operationId = 10'000;
    const QList<Store::FinishRequest> requests{
        {attemptFor(succeeds, QStringLiteral("w"), Decision::Success), succeeded, succeeds.version},
        {attemptFor(retries, QStringLiteral("w"), Decision::Retry),
         afterRetry(retries, kNow + 5000), retries.version},
        {attemptFor(cancelled, QStringLiteral("w"), Decision::Retry),
         afterRetry(cancelled, kNow + 5000), cancelled.version},
        {attemptFor(stale, QStringLiteral("w"), Decision::Success),
         afterOutcome(stale, OperationState::Succeeded, QString()), stale.version},
        {orphan, succeeded, succeeds.version},
    };
    const QList<Store::FinishOutcome> outcomes =
        store->finishAttempts(requests, QStringLiteral("w"));
    QCOMPARE(outcomes.size(), requests.size());
    QCOMPARE(outcomes[0].result, Store::FinishResult::Committed);
    QCOMPARE(outcomes[0].operation.state, OperationState::Succeeded);
    QVERIFY(!outcomes[0].operation.lastError.contains(QLatin1String("abc")));
    QCOMPARE(outcomes[1].result, Store::FinishResult::Committed);
    QCOMPARE(outcomes[1].operation.state, OperationState::Waiting);
    QCOMPARE(outcomes[1].operation.leaseOwner, QString());
    QCOMPARE(outcomes[2].result, Store::FinishResult::Committed);
    QCOMPARE(outcomes[2].operation.state, OperationState::Cancelled);
    QCOMPARE(outcomes[2].operation.finalReason, QStringLiteral("cancelled_by_operator"));
    QCOMPARE(outcomes[3].result, Store::FinishResult::LeaseConflict);
    QVERIFY(outcomes[3].error.contains(QLatin1String("'w2'")));
    QCOMPARE(outcomes[3].operation.leaseOwner, QStringLiteral("w2"));
    QCOMPARE(outcomes[4].result, Store::FinishResult::Failed);
    QVERIFY(outcomes[4].error.contains(QLatin1String("does not exist")));

    for (int i = 0; i < 4; ++i)
        compareOperations(outcomes[i].operation,
                          *store->operation(requests[i].attempt.operationId));
    // Four attempts kept, the stale one marked; the orphan wrote nothing.
    QCOMPARE(store->attempts({}).size(), 4);
    QCOMPARE(store->leaseConflictCount(), qint64(1));
    QCOMPARE(store->operation(stale.id)->state, OperationState::Running);
    QCOMPARE(store->finishAttempts({}, QStringLiteral("w")).size(), 0);
}

void tst_Store::renewLease()
{
    auto store = openStore();
    QVERIFY(store);
    const qint64 id = *store->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow);
    const OperationRecord mine =
        store->claims().claimDue(QStringLiteral("w1"), kNow, kLeaseMs, 1).value(0);
    QVERIFY(
        store->claims().renewLease(id, QStringLiteral("w1"), mine.version, kNow + 2 * kLeaseMs));
    QCOMPARE(store->operation(id)->leaseExpiresAtMs, kNow + 2 * kLeaseMs);
    // Renewed: not rescued at the old expiry.
    QVERIFY(store->claims().claimDue(QStringLiteral("w2"), kNow + kLeaseMs, kLeaseMs, 1).isEmpty());
    QVERIFY(
        !store->claims().renewLease(id, QStringLiteral("w2"), mine.version, kNow + 9 * kLeaseMs));
    QVERIFY(!store->claims().renewLease(id, QStringLiteral("w1"), mine.version + 1,
                                        kNow + 9 * kLeaseMs));
    QCOMPARE(
        store->claims().claimDue(QStringLiteral("w2"), kNow + 2 * kLeaseMs, kLeaseMs, 1).size(), 1);
    QVERIFY(
        !store->claims().renewLease(id, QStringLiteral("w1"), mine.version, kNow + 9 * kLeaseMs));
    QVERIFY(store->lastError().contains(QLatin1String("no longer leased")));
}

void tst_Store::expiredLeaseRescue()
{
    {
        auto crashed = openStore();
        QVERIFY(crashed);
        for (int i = 0; i < 3; ++i)
            QVERIFY(crashed->createOperation(QStringLiteral("e"), QString::number(i), kNow));
        QCOMPARE(crashed->claims().claimDue(QStringLiteral("dead"), kNow, kLeaseMs, 3).size(), 3);
        // The worker is gone without finishing anything.
    }
    auto store = openStore();
    QVERIFY(store);
    QCOMPARE(store->claims().nextDueAtMs().value_or(-1), kNow + kLeaseMs);
    QVERIFY(
        store->claims().claimDue(QStringLiteral("w"), kNow + kLeaseMs - 1, kLeaseMs, 10).isEmpty());
    const QList<OperationRecord> rescued =
        store->claims().claimDue(QStringLiteral("w"), kNow + kLeaseMs, kLeaseMs, 10);
    QCOMPARE(rescued.size(), 3);
    for (const OperationRecord &op : rescued) {
        QVERIFY(op.rescued);
        QCOMPARE(op.leaseOwner, QStringLiteral("w"));
        QCOMPARE(op.leaseExpiresAtMs, kNow + 2 * kLeaseMs);
    }
    // Finishing clears the rescue mark.
    const OperationRecord first = rescued.first();
    QCOMPARE(store->finishAttempt(attemptFor(first, QStringLiteral("w"), Decision::Retry),
                                  afterRetry(first, kNow + 3 * kLeaseMs), first.version,
                                  QStringLiteral("w")),
             Store::FinishResult::Committed);
    QVERIFY(!store->operation(first.id)->rescued);
}

void tst_Store::oneShot()
{
    auto a = openStore();
    auto b = openStore();
    QVERIFY(a && b);
    bool created = false;
    const auto first = a->ensureOneShotOperation(QStringLiteral("migrate"), QStringLiteral("k1"),
                                                 kNow, {}, {}, &created);
    QVERIFY2(first, qPrintable(a->lastError()));
    QVERIFY(created);
    const auto second = b->ensureOneShotOperation(QStringLiteral("migrate"), QStringLiteral("k2"),
                                                  kNow + 1, {}, {}, &created);
    QVERIFY(second);
    QVERIFY(!created);
    QCOMPARE(*second, *first);
    QCOMPARE(a->operation(*first)->idempotencyKey, QStringLiteral("k1"));
    // Still one after it ran to the end.
    const OperationRecord op =
        a->claims().claimDue(QStringLiteral("w"), kNow, kLeaseMs, 1).value(0);
    QCOMPARE(a->finishAttempt(attemptFor(op, QStringLiteral("w"), Decision::Success),
                              afterOutcome(op, OperationState::Succeeded, QString()), op.version,
                              QStringLiteral("w")),
             Store::FinishResult::Committed);
    QCOMPARE(*a->ensureOneShotOperation(QStringLiteral("migrate"), QStringLiteral("k3"), kNow + 9,
                                        {}, {}, &created),
             *first);
    QVERIFY(!created);
    QCOMPARE(a->operations({}).size(), 1);
    QVERIFY(a->ensureOneShotOperation(QStringLiteral("other"), QStringLiteral("k4"), kNow, {}, {},
                                      &created));
    QVERIFY(created);
}

void tst_Store::partitionsUnreadAreNotNone()
{
    auto store = openStore();
    QVERIFY(store);
    const std::optional<QList<PartitionState>> none = store->partitions(kNow);
    QVERIFY(none);
    QVERIFY(none->isEmpty());
    QVERIFY(*store->createOperation(QStringLiteral("e"), QStringLiteral("1"), kNow,
                                    QStringLiteral("read-v1"), QStringLiteral("A")) > 0);
    QCOMPARE(store->partitions(kNow).value().size(), 1);
    // A table that cannot be read is a failure with a reason, not "no partitions".
    QString error;
    QVERIFY2(
        rawExec({QStringLiteral("ALTER TABLE rate_partitions RENAME TO partitions_gone")}, &error),
        qPrintable(error));
    QCOMPARE(store->partitions(kNow), std::nullopt);
    QVERIFY(!store->lastError().isEmpty());
}

void tst_Store::aClaimSaysItsOwnFailure()
{
    auto store = openStore();
    QVERIFY(store);
    WorkerClaimState state;
    // An earlier refusal left in the store's last error does not make an empty claim
    // a failed one: the claim answers for itself.
    QVERIFY(!store->operation(424242));
    QVERIFY(!store->lastError().isEmpty());
    const StoreResult<ClaimResult> nothing =
        store->claims().claim(QStringLiteral("w"), kNow, kLeaseMs, 4, state);
    QVERIFY2(nothing, qPrintable(nothing.error()));
    QVERIFY(nothing->operations.isEmpty());
    QVERIFY(nothing.error().isEmpty());

    const qint64 id = *store->createOperation(QStringLiteral("e"), QStringLiteral("1"), kNow);
    const StoreResult<ClaimResult> one =
        store->claims().claim(QStringLiteral("w"), kNow, kLeaseMs, 4, state);
    QVERIFY2(one, qPrintable(one.error()));
    QCOMPARE(one->operations.size(), qsizetype(1));
    QCOMPARE(one->operations.first().id, id);

    // A table that cannot be read fails the claim, with why, and takes nothing.
    QVERIFY(*store->createOperation(QStringLiteral("e"), QStringLiteral("2"), kNow) > 0);
    QString error;
    QVERIFY2(
        rawExec({QStringLiteral("ALTER TABLE rate_partitions RENAME TO partitions_gone")}, &error),
        qPrintable(error));
    const StoreResult<ClaimResult> failed =
        store->claims().claim(QStringLiteral("w"), kNow, kLeaseMs, 4, state);
    QVERIFY(!failed);
    QVERIFY(failed.error().contains(QLatin1String("claim")) ||
            failed.error().contains(QLatin1String("rate_partitions")));
}

void tst_Store::snoozePartition()
{
    auto store = openStore();
    QVERIFY(store);
    const QString policy = QStringLiteral("read-v1");
    const qint64 a1 = *store->createOperation(QStringLiteral("e"), QStringLiteral("1"), kNow,
                                              policy, QStringLiteral("A"));
    const qint64 a2 = *store->createOperation(QStringLiteral("e"), QStringLiteral("2"), kNow + 500,
                                              policy, QStringLiteral("A"));
    const qint64 late = *store->createOperation(QStringLiteral("e"), QStringLiteral("3"),
                                                kNow + 90'000, policy, QStringLiteral("A"));
    const qint64 b1 = *store->createOperation(QStringLiteral("e"), QStringLiteral("4"), kNow,
                                              policy, QStringLiteral("B"));
    const qint64 forced = *store->createOperation(QStringLiteral("e"), QStringLiteral("5"), kNow,
                                                  policy, QStringLiteral("A"));
    QCOMPARE(store->retryNow(forced, kNow, true), Store::OperatorResult::Done);

    QCOMPARE(store->snoozePartition(policy, QStringLiteral("A"), kNow + 60'000), 2);
    QCOMPARE(store->operation(a1)->nextAttemptAtMs, kNow + 60'000);
    QCOMPARE(store->operation(a2)->nextAttemptAtMs, kNow + 60'000);
    QCOMPARE(store->operation(late)->nextAttemptAtMs, kNow + 90'000); // never pulled earlier
    QCOMPARE(store->operation(b1)->nextAttemptAtMs, kNow);

    QSet<qint64> claimed;
    const qint64 longLease = 10 * 60'000;
    for (const OperationRecord &op :
         store->claims().claimDue(QStringLiteral("w"), kNow + 1000, longLease, 10))
        claimed.insert(op.id);
    QCOMPARE(claimed, (QSet<qint64>{b1, forced}));
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow + 60'000, kLeaseMs, 10).size(), 2);
    QCOMPARE(store->snoozePartition(policy, QStringLiteral("nobody"), kNow), 0);
}

void tst_Store::operatorRetry()
{
    auto store = openStore();
    QVERIFY(store);
    const qint64 id = *store->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow);
    OperationRecord op = store->claims().claimDue(QStringLiteral("w"), kNow, kLeaseMs, 1).value(0);
    QCOMPARE(store->retryNow(id, kNow, false), Store::OperatorResult::Refused);
    QVERIFY(store->lastError().contains(QLatin1String("running")));
    QCOMPARE(store->finishAttempt(
                 attemptFor(op, QStringLiteral("w"), Decision::Park),
                 afterOutcome(op, OperationState::Parked, QStringLiteral("not_idempotent")),
                 op.version, QStringLiteral("w")),
             Store::FinishResult::Committed);
    QCOMPARE(store->operation(id)->state, OperationState::Parked);
    QVERIFY(
        store->claims().claimDue(QStringLiteral("w"), kNow + 10'000'000, kLeaseMs, 1).isEmpty());

    QCOMPARE(store->retryNow(id, kNow + 100, true), Store::OperatorResult::Done);
    op = *store->operation(id);
    QCOMPARE(op.state, OperationState::Waiting);
    QCOMPARE(op.nextAttemptAtMs, kNow + 100);
    QVERIFY(op.forceNext);
    QVERIFY(op.finalReason.isEmpty());
    op = store->claims().claimDue(QStringLiteral("w"), kNow + 100, kLeaseMs, 1).value(0);
    QCOMPARE(op.id, id);
    QVERIFY(op.forceNext);
    AttemptRecord forcedAttempt = attemptFor(op, QStringLiteral("w"), Decision::Fail);
    QVERIFY(forcedAttempt.forced);
    QCOMPARE(store->finishAttempt(
                 forcedAttempt,
                 afterOutcome(op, OperationState::Failed, QStringLiteral("not_retryable")),
                 op.version, QStringLiteral("w")),
             Store::FinishResult::Committed);
    QVERIFY(!store->operation(id)->forceNext);
    QVERIFY(store->attempts({}).last().forced);

    // A failed operation can be retried without force.
    QCOMPARE(store->retryNow(id, kNow + 200, false), Store::OperatorResult::Done);
    QVERIFY(!store->operation(id)->forceNext);
    op = store->claims().claimDue(QStringLiteral("w"), kNow + 200, kLeaseMs, 1).value(0);
    QCOMPARE(store->finishAttempt(attemptFor(op, QStringLiteral("w"), Decision::Success),
                                  afterOutcome(op, OperationState::Succeeded, QString()),
                                  op.version, QStringLiteral("w")),
             Store::FinishResult::Committed);
    QCOMPARE(store->retryNow(id, kNow + 300, false), Store::OperatorResult::Refused);
    QCOMPARE(store->retryNow(id + 999, kNow, false), Store::OperatorResult::NotFound);
}

void tst_Store::cancel()
{
    auto store = openStore();
    QVERIFY(store);
    const qint64 waiting =
        *store->createOperation(QStringLiteral("e"), QStringLiteral("1"), kNow + 1000);
    QCOMPARE(store->cancel(waiting, kNow), Store::OperatorResult::Done);
    QCOMPARE(store->operation(waiting)->state, OperationState::Cancelled);
    QCOMPARE(store->operation(waiting)->finalReason, QStringLiteral("cancelled_by_operator"));
    QCOMPARE(store->cancel(waiting, kNow), Store::OperatorResult::Refused);
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + 5000, kLeaseMs, 10).isEmpty());

    // Running: the attempt still records, then the operation is cancelled.
    const qint64 running = *store->createOperation(QStringLiteral("e"), QStringLiteral("2"), kNow);
    const OperationRecord op =
        store->claims().claimDue(QStringLiteral("w"), kNow, kLeaseMs, 1).value(0);
    QCOMPARE(op.id, running);
    QCOMPARE(store->cancel(running, kNow + 1), Store::OperatorResult::Pending);
    QCOMPARE(store->operation(running)->state, OperationState::Running);
    QVERIFY(store->operation(running)->cancelRequested);
    QCOMPARE(store->finishAttempt(attemptFor(op, QStringLiteral("w"), Decision::Retry),
                                  afterRetry(op, kNow + 5000), op.version, QStringLiteral("w")),
             Store::FinishResult::Committed);
    QCOMPARE(store->operation(running)->state, OperationState::Cancelled);
    QCOMPARE(store->operation(running)->attempt, 1);
    QCOMPARE(store->attempts({}).size(), 1);

    // Running but its worker died: cancelled at once.
    const qint64 orphan = *store->createOperation(QStringLiteral("e"), QStringLiteral("3"), kNow);
    QCOMPARE(store->claims().claimDue(QStringLiteral("dead"), kNow, kLeaseMs, 1).value(0).id,
             orphan);
    QCOMPARE(store->cancel(orphan, kNow + kLeaseMs), Store::OperatorResult::Done);
    QCOMPARE(store->operation(orphan)->state, OperationState::Cancelled);

    // Cancel pending when the worker then dies: the claim that would rescue it cancels it.
    const qint64 pending = *store->createOperation(QStringLiteral("e"), QStringLiteral("4"), kNow);
    QCOMPARE(store->claims().claimDue(QStringLiteral("dead"), kNow, kLeaseMs, 1).value(0).id,
             pending);
    QCOMPARE(store->cancel(pending, kNow + 1), Store::OperatorResult::Pending);
    QVERIFY(store->claims().claimDue(QStringLiteral("w"), kNow + kLeaseMs, kLeaseMs, 10).isEmpty());
    QCOMPARE(store->operation(pending)->state, OperationState::Cancelled);

    // A cancel does not undo a success that was already on its way.
    const qint64 lucky = *store->createOperation(QStringLiteral("e"), QStringLiteral("5"), kNow);
    const OperationRecord luckyOp =
        store->claims().claimDue(QStringLiteral("w"), kNow, kLeaseMs, 1).value(0);
    QCOMPARE(luckyOp.id, lucky);
    QCOMPARE(store->cancel(lucky, kNow + 1), Store::OperatorResult::Pending);
    QCOMPARE(store->finishAttempt(attemptFor(luckyOp, QStringLiteral("w"), Decision::Success),
                                  afterOutcome(luckyOp, OperationState::Succeeded, QString()),
                                  luckyOp.version, QStringLiteral("w")),
             Store::FinishResult::Committed);
    QCOMPARE(store->operation(lucky)->state, OperationState::Succeeded);
    QCOMPARE(store->cancel(lucky + 100, kNow), Store::OperatorResult::NotFound);
}

void tst_Store::pausedEndpoint()
{
    auto store = openStore();
    QVERIFY(store);
    QVERIFY(store->upsertEndpoint(QStringLiteral("slow"), QStringLiteral("Slow API"), kNow));
    const qint64 paused =
        *store->createOperation(QStringLiteral("slow"), QStringLiteral("1"), kNow);
    const qint64 other =
        *store->createOperation(QStringLiteral("fast"), QStringLiteral("2"), kNow + 10);
    QVERIFY(store->setEndpointPaused(QStringLiteral("slow"), true, kNow));
    QCOMPARE(store->isEndpointPaused(QStringLiteral("slow")).value_or(false), true);
    QCOMPARE(store->isEndpointPaused(QStringLiteral("fast")).value_or(true), false);
    QCOMPARE(store->claims().nextDueAtMs().value_or(-1), kNow + 10);
    const QList<OperationRecord> claimed =
        store->claims().claimDue(QStringLiteral("w"), kNow + 100, kLeaseMs, 10);
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(claimed.first().id, other);
    QVERIFY(store->setEndpointPaused(QStringLiteral("slow"), false, kNow));
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow + 100, kLeaseMs, 10).value(0).id,
             paused);
}

// A hold (docs/maintenance.md) keeps an endpoint's work from claims like a pause, but
// ends by itself; it only ever extends, and never replaces an operator's pause.
// docs/checks.md: the assertion a failed attempt records, and its exchange kept
// whole: only the endpoint's last few, redacted, and gone with their attempts.
void tst_Store::keptExchanges()
{
    auto store = openStore();
    QVERIFY(store);
    QList<qint64> attemptIds;
    for (int i = 0; i < 4; ++i) {
        const auto id =
            store->createOperation(QStringLiteral("search"), QStringLiteral("k-%1").arg(i), kNow);
        QVERIFY2(id, qPrintable(store->lastError()));
        const QList<OperationRecord> claimed =
            store->claims().claimDue(QStringLiteral("w1"), kNow, kLeaseMs, 10);
        QCOMPARE(claimed.size(), 1);
        AttemptRecord a = attemptFor(claimed.first(), QStringLiteral("w1"), Decision::Fail);
        a.status = 200;
        a.reason = QStringLiteral("assertion_failed");
        a.checkFailure = QStringLiteral("json[0] /status equals \"ok\"; found: \"error\"");
        auto kept = std::make_shared<KeptExchange>();
        kept->requestBody = QStringLiteral("{\"n\": %1}").arg(i);
        kept->responseBody =
            QStringLiteral("{\"status\": \"error\", \"next\": \"https://h/x?token=t-%1\"}").arg(i);
        kept->requestBytes = 8;
        kept->responseBytes = 60;
        kept->keepLast = 3;
        a.kept = kept;
        QCOMPARE(store->finishAttempt(a,
                                      afterOutcome(claimed.first(), OperationState::Failed,
                                                   QStringLiteral("assertion_failed")),
                                      claimed.first().version, QStringLiteral("w1")),
                 Store::FinishResult::Committed);
        AttemptFilter filter;
        filter.operationId = *id;
        const QList<AttemptRecord> stored = store->attempts(filter);
        QCOMPARE(stored.size(), 1);
        QCOMPARE(stored.first().checkFailure, a.checkFailure);
        attemptIds.append(stored.first().id);
    }
    QVERIFY(!store->keptExchange(attemptIds.at(0))); // beyond the last 3
    for (int i = 1; i < 4; ++i) {
        const auto kept = store->keptExchange(attemptIds.at(i));
        QVERIFY(kept);
        QCOMPARE(kept->requestBody, QStringLiteral("{\"n\": %1}").arg(i));
        QCOMPARE(
            kept->responseBody,
            QStringLiteral("{\"status\": \"error\", \"next\": \"https://h/x?token=[redacted]\"}"));
        QCOMPARE(kept->responseBytes, qint64(60));
    }
    // Retention takes them with their attempts.
    const PruneBatch pruned = store->pruneAttempts(kNow + 1000, 100);
    QVERIFY2(store->lastError().isEmpty(), qPrintable(store->lastError()));
    QCOMPARE(pruned.rows, qint64(4));
    for (const qint64 id : attemptIds)
        QVERIFY(!store->keptExchange(id));
}

void tst_Store::incidents()
{
    auto store = openStore();
    QVERIFY(store);
    auto other = openStore(); // a second worker on the same database
    QVERIFY(other);
    const IncidentRule rule{3, 60000};
    const QString host = QStringLiteral("host:api.example.com");
    const QString proxy = QStringLiteral("proxy:p:3128");
    const auto signal = [](const QString &cause, const char *endpoint, qint64 at) {
        return IncidentSignal{cause, QLatin1String(endpoint), at};
    };

    // Two endpoints failing, one twice: not yet an incident.
    auto changes = store->incidents().note(
        {signal(host, "a", kNow), signal(host, "b", kNow), signal(host, "a", kNow + 1)}, {}, rule,
        kNow + 1, QStringLiteral("w1"));
    QVERIFY2(changes, qPrintable(store->lastError()));
    QVERIFY(changes->opened.isEmpty() && changes->open.isEmpty());
    QCOMPARE(changes->signalled, QStringList{host});
    QCOMPARE(other->incidents().signalCauses(kNow), std::optional<QStringList>(QStringList{host}));
    // The host answered another endpoint, with no incident open: what was noted of it
    // is forgotten, so a third failure opens nothing.
    changes = other->incidents().note({}, {host}, rule, kNow + 2, QStringLiteral("w2"));
    QVERIFY(changes && changes->closed.isEmpty() && changes->signalled.isEmpty());
    changes = store->incidents().note({signal(host, "c", kNow + 3)}, {}, rule, kNow + 3,
                                      QStringLiteral("w1"));
    QVERIFY(changes && changes->open.isEmpty());
    QCOMPARE(store->incidents().signalCauses(kNow), std::optional<QStringList>(QStringList{host}));
    QCOMPARE(store->incidents().signalCauses(kNow + 4), std::optional<QStringList>(QStringList{}));
    // A third, long after the first two: they are out of the window.
    changes = other->incidents().note({signal(host, "c", kNow + 70000)}, {}, rule, kNow + 70000,
                                      QStringLiteral("w2"));
    QVERIFY(changes && changes->open.isEmpty());
    // Two more within the window, each from another worker: the third endpoint opens it,
    // once, for the worker whose call did.
    changes = store->incidents().note({signal(host, "d", kNow + 71000)}, {}, rule, kNow + 71000,
                                      QStringLiteral("w1"));
    QVERIFY(changes && changes->open.isEmpty());
    changes = other->incidents().note({signal(host, "a", kNow + 72000), signal(proxy, "x", kNow)},
                                      {}, rule, kNow + 72000, QStringLiteral("w2"));
    QVERIFY(changes);
    QCOMPARE(changes->opened.size(), 1);
    const IncidentRecord opened = changes->opened.first();
    QCOMPARE(opened.cause, host);
    QCOMPARE(opened.openedAtMs, kNow + 72000);
    QCOMPARE(opened.openedBy, QStringLiteral("w2"));
    QCOMPARE(opened.endpointIds, (QStringList{"a", "c", "d"}));
    QVERIFY(opened.isOpen() && opened.alertedAtMs < 0);
    QCOMPARE(changes->open.size(), 1);

    // The other worker's failures join it; it opens no second one.
    changes = store->incidents().note({signal(host, "e", kNow + 73000)}, {}, rule, kNow + 73000,
                                      QStringLiteral("w1"));
    QVERIFY(changes && changes->opened.isEmpty());
    QCOMPARE(changes->open.size(), 1);
    QCOMPARE(changes->open.first().id, opened.id);
    QCOMPARE(changes->open.first().endpointIds, (QStringList{"a", "c", "d", "e"}));

    // Its alert goes once, for the fleet.
    QCOMPARE(other->incidents().markAlerted(opened.id, kNow + 100000), std::optional<bool>(true));
    QCOMPARE(store->incidents().markAlerted(opened.id, kNow + 100001), std::optional<bool>(false));

    // Cleared: one worker closes it, and says so with when its alert went.
    changes = store->incidents().note({}, {host}, rule, kNow + 200000, QStringLiteral("w1"));
    QVERIFY(changes);
    QCOMPARE(changes->closed.size(), 1);
    QCOMPARE(changes->closed.first().id, opened.id);
    QCOMPARE(changes->closed.first().closedAtMs, kNow + 200000);
    QCOMPARE(changes->closed.first().alertedAtMs, kNow + 100000);
    QCOMPARE(changes->closed.first().endpointIds, (QStringList{"a", "c", "d", "e"}));
    QVERIFY(changes->open.isEmpty());
    changes = other->incidents().note({}, {host}, rule, kNow + 200001, QStringLiteral("w2"));
    QVERIFY(changes && changes->closed.isEmpty());
    QCOMPARE(store->incidents().markAlerted(opened.id, kNow + 200002), std::optional<bool>(false));
    // Its failures are forgotten: two new ones open nothing.
    changes = store->incidents().note(
        {signal(host, "a", kNow + 201000), signal(host, "b", kNow + 201000)}, {}, rule,
        kNow + 201000, QStringLiteral("w1"));
    QVERIFY(changes && changes->open.isEmpty());

    // The history: open and closed, newest first.
    const auto all = other->incidents().list(false, kNow);
    QVERIFY(all);
    QCOMPARE(all->size(), 1);
    QVERIFY(!all->first().isOpen());
    QCOMPARE(all->first().closedBy, QStringLiteral("w1"));
    QCOMPARE(other->incidents().list(true).value_or(QList<IncidentRecord>{IncidentRecord{}}).size(),
             0);
    QCOMPARE(other->incidents().list(false, kNow + 100000).value().size(), 0); // opened before
}

void tst_Store::alertTurns()
{
    auto store = openStore();
    QVERIFY(store);
    auto other = openStore();
    QVERIFY(other);
    const QString kind = QStringLiteral("operation_failed");
    QCOMPARE(store->incidents().takeAlertTurn(QStringLiteral("chat"), kind, kNow, 300000),
             std::optional<bool>(true));
    // Another worker, within the interval: the fleet's message went already.
    QCOMPARE(other->incidents().takeAlertTurn(QStringLiteral("chat"), kind, kNow + 1000, 300000),
             std::optional<bool>(false));
    // Another kind, another target: their own turns.
    QCOMPARE(other->incidents().takeAlertTurn(QStringLiteral("chat"), QStringLiteral("incident"),
                                              kNow + 1000, 300000),
             std::optional<bool>(true));
    QCOMPARE(other->incidents().takeAlertTurn(QStringLiteral("pager"), kind, kNow + 1000, 300000),
             std::optional<bool>(true));
    // Once the interval has passed, the next one goes, and starts it again.
    QCOMPARE(other->incidents().takeAlertTurn(QStringLiteral("chat"), kind, kNow + 300000, 300000),
             std::optional<bool>(true));
    QCOMPARE(store->incidents().takeAlertTurn(QStringLiteral("chat"), kind, kNow + 300001, 300000),
             std::optional<bool>(false));
}

// docs/offline.md: each worker's row while it finds no network, seen by the others.
void tst_Store::workersOffline()
{
    auto store = openStore();
    QVERIFY(store);
    auto other = openStore();
    QVERIFY(other);
    QCOMPARE(other->workerStates().offline().value_or(QList<WorkerOfflineRow>{{}}).size(), 0);
    QVERIFY(store->workerStates().saveOffline(QStringLiteral("w2"), kNow, kNow));
    QVERIFY(store->workerStates().saveOffline(QStringLiteral("w1"), kNow + 10, kNow + 10));
    // Offline again later: the row says the latest spell.
    QVERIFY(store->workerStates().saveOffline(QStringLiteral("w2"), kNow + 20, kNow + 20));
    auto rows = other->workerStates().offline();
    QVERIFY(rows);
    QCOMPARE(rows->size(), 2);
    QCOMPARE(rows->at(0).workerId, QStringLiteral("w1"));
    QCOMPARE(rows->at(1).offlineSinceMs, kNow + 20);
    QCOMPARE(rows->at(1).updatedAtMs, kNow + 20);
    QVERIFY(store->workerStates().saveOffline(QStringLiteral("w2"), -1, kNow + 30));
    QVERIFY(
        store->workerStates().saveOffline(QStringLiteral("nobody"), -1, kNow + 30)); // no row: fine
    rows = other->workerStates().offline();
    QVERIFY(rows);
    QCOMPARE(rows->size(), 1);
    QCOMPARE(rows->first().workerId, QStringLiteral("w1"));
}

void tst_Store::heldEndpoint()
{
    auto store = openStore();
    QVERIFY(store);
    const QString slow = QStringLiteral("slow");
    const QString fast = QStringLiteral("fast");
    const QString paused = QStringLiteral("paused");
    const qint64 held = *store->createOperation(slow, QStringLiteral("1"), kNow);
    const qint64 other = *store->createOperation(fast, QStringLiteral("2"), kNow + 10);
    QVERIFY(store->setEndpointPaused(paused, true, kNow));
    const auto holdText = [&] {
        QStringList out;
        const QList<EndpointHold> holds = store->endpointHolds().value();
        for (const EndpointHold &h : holds)
            out.append(
                QStringLiteral("%1 %2 %3").arg(h.endpointId).arg(h.untilMs - kNow).arg(h.reason));
        return out.join(QLatin1Char(';'));
    };

    AuditRecord audit;
    audit.atMs = kNow;
    audit.actor = QStringLiteral("ops");
    audit.action = OperatorAction::Pause;
    audit.target = endpointListTarget({slow, paused});
    QCOMPARE(
        store->holdEndpoints({slow, paused}, kNow + 60000, QStringLiteral("partner"), kNow, &audit)
            .value_or(QStringList{QStringLiteral("failed")}),
        QStringList{slow});
    QCOMPARE(holdText(), QStringLiteral("slow 60000 partner"));
    QCOMPARE(store->isEndpointPaused(paused).value_or(false), true);
    const auto actions = store->operatorActions();
    QVERIFY(actions);
    QCOMPARE(actions->size(), 1);
    QCOMPARE(actions->at(0).asked, 0); // as the caller set it
    QCOMPARE(actions->at(0).changed, 1);

    // Held work is not claimed, nor due; the rest is.
    QCOMPARE(store->claims().nextDueAtMs().value_or(-1), kNow + 10);
    const QList<OperationRecord> claimed =
        store->claims().claimDue(QStringLiteral("w"), kNow + 100, kLeaseMs, 10);
    QCOMPARE(claimed.size(), 1);
    QCOMPARE(claimed.first().id, other);

    // Shorter holds leave it as it is; a longer one extends it.
    QCOMPARE(store->holdEndpoints({slow}, kNow + 30000, QStringLiteral("shorter"), kNow)
                 .value_or(QStringList{QStringLiteral("failed")}),
             QStringList());
    QCOMPARE(store->holdEndpoints({slow}, kNow + 90000, QStringLiteral("longer"), kNow)
                 .value_or(QStringList()),
             QStringList{slow});
    QCOMPARE(holdText(), QStringLiteral("slow 90000 longer"));

    // Before its end nothing is lifted; at its end it is, and the work is claimed.
    QCOMPARE(store->liftEndedHolds(kNow + 89999).value_or(QStringList{QStringLiteral("failed")}),
             QStringList());
    // (The other operation's lease has expired by now: a claim may rescue it, but not
    // take the held one.)
    for (const OperationRecord &op :
         store->claims().claimDue(QStringLiteral("w"), kNow + 89999, kLeaseMs, 10))
        QVERIFY(op.id != held);
    QCOMPARE(store->liftEndedHolds(kNow + 90000).value_or(QStringList()), QStringList{slow});
    QCOMPARE(holdText(), QString());
    QCOMPARE(store->isEndpointPaused(slow).value_or(true), false);
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow + 90000, kLeaseMs, 10).value(0).id,
             held);

    // An operator lifts a hold before its end by naming the endpoint; a resume does too.
    QVERIFY(store->holdEndpoints({fast}, kNow + 200000, QStringLiteral("again"), kNow).has_value());
    QCOMPARE(store->liftEndedHolds(kNow + 100000, {fast}).value_or(QStringList()),
             QStringList{fast});
    QVERIFY(store->holdEndpoints({fast}, kNow + 200000, QStringLiteral("again"), kNow).has_value());
    QVERIFY(store->setEndpointPaused(fast, false, kNow + 100000));
    QCOMPARE(holdText(), QString());
    // An endpoint no worker ran yet gets its row, held.
    QCOMPARE(store->holdEndpoints({QStringLiteral("new")}, kNow + 1000, QStringLiteral("x"), kNow)
                 .value_or(QStringList()),
             QStringList{QStringLiteral("new")});
    QVERIFY(store->endpointReads().ids().value_or(QStringList()).contains(QStringLiteral("new")));
}

void tst_Store::pauseAfterFailures()
{
    auto store = openStore();
    QVERIFY(store);
    const QString upload = QStringLiteral("upload");
    QVERIFY(store->upsertEndpoint(upload, QStringLiteral("Upload"), kNow));
    int key = 0;
    // One operation of upload, claimed at atMs and ended in `state` by its one attempt.
    const auto end = [&](OperationState state, qint64 atMs) {
        const auto claimed =
            test::claimNew(*store, upload, QString::number(++key), atMs, QStringLiteral("w"));
        if (!claimed)
            return false;
        AttemptRecord a = test::nextAttempt(*claimed, atMs, atMs + 5);
        a.method = QStringLiteral("POST");
        a.status = state == OperationState::Succeeded ? 200 : 500;
        a.decision = test::decisionLeaving(state);
        return test::finishAttempt(*store, a, test::leftIn(*claimed, a, state),
                                   QStringLiteral("w")) == Store::FinishResult::Committed;
    };

    QCOMPARE(store->pauseAfterFailures(upload, 1, kNow, QStringLiteral("w")).value_or(true),
             false); // none ended
    QVERIFY(end(OperationState::Failed, kNow + 1000));
    QVERIFY(end(OperationState::Failed, kNow + 2000));
    QCOMPARE(store->pauseAfterFailures(upload, 3, kNow + 2100, QStringLiteral("w")).value_or(true),
             false);
    QVERIFY(end(OperationState::Succeeded, kNow + 3000));
    QVERIFY(end(OperationState::Failed, kNow + 4000));
    QVERIFY(end(OperationState::Failed, kNow + 5000));
    // Four failures, but a success between: two in a row.
    QCOMPARE(store->pauseAfterFailures(upload, 3, kNow + 5100, QStringLiteral("w")).value_or(true),
             false);
    QCOMPARE(store->isEndpointPaused(upload).value_or(true), false);
    QVERIFY(end(OperationState::Failed, kNow + 6000));
    QCOMPARE(store->pauseAfterFailures(upload, 3, kNow + 6100, QStringLiteral("w")).value_or(false),
             true);
    QCOMPARE(store->isEndpointPaused(upload).value_or(false), true);
    // Paused already: only the first caller pauses it.
    QCOMPARE(store->pauseAfterFailures(upload, 3, kNow + 6200, QStringLiteral("w")).value_or(true),
             false);

    // After a resume only what ends later counts.
    QVERIFY(store->setEndpointPaused(upload, false, kNow + 7000));
    QCOMPARE(store->pauseAfterFailures(upload, 1, kNow + 7100, QStringLiteral("w")).value_or(true),
             false);
    QVERIFY(end(OperationState::Failed, kNow + 8000));
    QCOMPARE(store->pauseAfterFailures(upload, 2, kNow + 8100, QStringLiteral("w")).value_or(true),
             false);
    QCOMPARE(store->pauseAfterFailures(upload, 1, kNow + 8200, QStringLiteral("w")).value_or(false),
             true);

    // A worker starting again registers its endpoints: that is no resume.
    QVERIFY(store->setEndpointPaused(upload, false, kNow + 9000));
    QVERIFY(end(OperationState::Failed, kNow + 10000));
    QVERIFY(store->upsertEndpoint(upload, QStringLiteral("Upload"), kNow + 11000));
    QCOMPARE(
        store->pauseAfterFailures(upload, 1, kNow + 11100, QStringLiteral("w")).value_or(false),
        true);
}

void tst_Store::nextDue()
{
    auto store = openStore();
    QVERIFY(store);
    QVERIFY(!store->claims().nextDueAtMs());
    QVERIFY(store->lastError().isEmpty());
    store->createOperation(QStringLiteral("e"), QStringLiteral("1"), kNow + 700);
    store->createOperation(QStringLiteral("e"), QStringLiteral("2"), kNow + 300);
    QCOMPARE(store->claims().nextDueAtMs().value_or(-1), kNow + 300);
    const OperationRecord op =
        store->claims().claimDue(QStringLiteral("w"), kNow + 300, 100, 1).value(0);
    QCOMPARE(store->claims().nextDueAtMs().value_or(-1), kNow + 400); // the lease runs out first
    QCOMPARE(store->finishAttempt(attemptFor(op, QStringLiteral("w"), Decision::Success),
                                  afterOutcome(op, OperationState::Succeeded, QString()),
                                  op.version, QStringLiteral("w")),
             Store::FinishResult::Committed);
    QCOMPARE(store->claims().nextDueAtMs().value_or(-1), kNow + 700);
}

void tst_Store::queries()
{
    auto store = openStore();
    QVERIFY(store);
    // Two endpoints, attempts spread over time.
    for (int i = 0; i < 6; ++i) {
        const QString endpoint = i % 2 ? QStringLiteral("odd") : QStringLiteral("even");
        const qint64 id = *store->createOperation(endpoint, QString::number(i), kNow + i * 1000);
        OperationRecord op =
            store->claims().claimDue(QStringLiteral("w"), kNow + i * 1000, kLeaseMs, 1).value(0);
        QCOMPARE(op.id, id);
        AttemptRecord a =
            attemptFor(op, QStringLiteral("w"), i < 4 ? Decision::Success : Decision::Park);
        a.startedAtMs = kNow + i * 1000;
        QCOMPARE(store->finishAttempt(
                     a,
                     afterOutcome(op, i < 4 ? OperationState::Succeeded : OperationState::Parked,
                                  QString()),
                     op.version, QStringLiteral("w")),
                 Store::FinishResult::Committed);
    }
    store->createOperation(QStringLiteral("even"), QStringLiteral("x"), kNow + 99'000);

    QCOMPARE(store->attempts({}).size(), 6);
    AttemptFilter range;
    range.fromMs = kNow + 1000;
    range.toMs = kNow + 4000;
    QCOMPARE(store->attempts(range).size(), 3);
    QCOMPARE(store->countAttempts(range), qint64(3));
    AttemptFilter byEndpoint;
    byEndpoint.endpointId = QStringLiteral("odd");
    QCOMPARE(store->countAttempts(byEndpoint), qint64(3));
    AttemptFilter parked;
    parked.operationState = OperationState::Parked;
    const QList<AttemptRecord> parkedAttempts = store->attempts(parked);
    QCOMPARE(parkedAttempts.size(), 2);
    QCOMPARE(store->countAttempts(parked), qint64(2));
    // Ids alone, newest first, below a bound: how the History view learns its rows.
    QList<qint64> allIds;
    for (const AttemptRecord &a : store->attempts({}))
        allIds.prepend(a.id);
    AttemptFilter newest;
    newest.newestFirst = true;
    newest.limit = 4;
    QCOMPARE(store->attemptIds(newest), allIds.mid(0, 4));
    newest.beforeId = allIds.at(3);
    QCOMPARE(store->attemptIds(newest), allIds.mid(4));
    parked.newestFirst = true;
    QCOMPARE(store->attemptIds(parked),
             (QList<qint64>{parkedAttempts.at(1).id, parkedAttempts.at(0).id}));
    AttemptFilter page;
    page.limit = 4;
    const QList<AttemptRecord> firstPage = store->attempts(page);
    QCOMPARE(firstPage.size(), 4);
    page.afterId = firstPage.last().id;
    QCOMPARE(store->attempts(page).size(), 2);

    const auto counts = store->countsByState();
    QCOMPARE(counts.value(OperationState::Succeeded), qint64(4));
    QCOMPARE(counts.value(OperationState::Parked), qint64(2));
    QCOMPARE(counts.value(OperationState::Scheduled), qint64(1));
    QCOMPARE(counts.value(OperationState::Cancelled), qint64(0));
    OperationFilter parkedOps;
    parkedOps.state = OperationState::Parked;
    QCOMPARE(store->operations(parkedOps).size(), 2);
    OperationFilter evenOps;
    evenOps.endpointId = QStringLiteral("even");
    QCOMPARE(store->operations(evenOps).size(), 4);
    // The ids alone, in the same order, by key range and newest first.
    QList<qint64> evenIds;
    for (const OperationRecord &op : store->operations(evenOps))
        evenIds.append(op.id);
    QCOMPARE(store->operationIds(evenOps), evenIds);
    OperationFilter evenRange = evenOps;
    evenRange.afterId = evenIds.at(0);
    evenRange.upToId = evenIds.at(2);
    QCOMPARE(store->operationIds(evenRange), evenIds.mid(1, 2));
    QCOMPARE(store->operations(evenRange).size(), 2);
    OperationFilter evenNewest = evenOps;
    evenNewest.newestFirst = true;
    evenNewest.limit = 3;
    QCOMPARE(store->operationIds(evenNewest),
             (QList<qint64>{evenIds.at(3), evenIds.at(2), evenIds.at(1)}));
    QCOMPARE(store->operationIds(parkedOps).size(), 2);

    std::unique_ptr<AttemptCursor> cursor = store->streamAttempts(byEndpoint);
    QVERIFY(cursor);
    AttemptRecord record;
    int streamed = 0;
    qint64 previous = 0;
    while (cursor->next(&record)) {
        QCOMPARE(record.endpointId, QStringLiteral("odd"));
        QVERIFY(record.id > previous);
        previous = record.id;
        ++streamed;
    }
    QVERIFY(cursor->error().isEmpty());
    QCOMPARE(streamed, 3);

    // An export reads no headers; everything else comes as it is.
    cursor.reset(); // one open cursor per connection (PostgreSQL streams its rows)
    const QList<AttemptRecord> full = store->attempts(byEndpoint);
    cursor = store->streamAttempts(byEndpoint, false);
    QVERIFY(cursor);
    for (const AttemptRecord &expected : full) {
        QVERIFY(cursor->next(&record));
        // The cells as stored, the way the export reads them.
        QCOMPARE(cursor->integer(AttemptColumn::Id), expected.id);
        QCOMPARE(cursor->integer(AttemptColumn::StartedAt), expected.startedAtMs);
        QCOMPARE(cursor->text(AttemptColumn::EndpointId), expected.endpointId.toUtf8());
        QCOMPARE(cursor->text(AttemptColumn::Url), expected.url.toUtf8());
        QCOMPARE(cursor->text(AttemptColumn::OperationState),
                 toString(cursor->operationState()).toUtf8());
        QCOMPARE(cursor->text(AttemptColumn::RequestHeaders), QByteArrayView());
        QVERIFY(!expected.requestHeaders.isEmpty());
        QCOMPARE(record.requestHeaders, QString());
        QCOMPARE(record.responseHeaders, QString());
        QCOMPARE(record.id, expected.id);
        QCOMPARE(record.retryAfterRaw, expected.retryAfterRaw);
        QCOMPARE(record.leaseConflict, expected.leaseConflict);
    }
    QVERIFY(!cursor->next(&record));
}

void tst_Store::secretsNeverStored()
{
    const QByteArray secrets[] = {"S3CRET-QUERY",    "S3CRET-BEARER", "S3CRET-COOKIE",
                                  "S3CRET-APIKEY",   "S3CRET-ERROR",  "S3CRET-SETCOOKIE",
                                  "S3CRET-INSTANCE", "S3CRET-LAST"};
    auto store = openStore();
    QVERIFY(store);
    const qint64 id = *store->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow);
    const OperationRecord op =
        store->claims().claimDue(QStringLiteral("w"), kNow, kLeaseMs, 1).value(0);
    AttemptRecord a = attemptFor(op, QStringLiteral("w"), Decision::Retry);
    a.url = QStringLiteral("https://api.example.com/x?api_key=S3CRET-QUERY&page=2");
    a.requestHeaders =
        QStringLiteral("Authorization: Bearer S3CRET-BEARER\nCookie: s=S3CRET-COOKIE\n"
                       "X-API-Key: S3CRET-APIKEY\n");
    a.responseHeaders =
        QStringLiteral("Set-Cookie: s=S3CRET-SETCOOKIE; HttpOnly\nRetry-After: 5\n");
    a.error =
        QStringLiteral("Error transferring https://api.example.com/x?token=S3CRET-ERROR - closed");
    a.problemInstance = QStringLiteral("https://api.example.com/p?signature=S3CRET-INSTANCE");
    OperationRecord next = afterRetry(op, kNow + 5000);
    next.lastError = QStringLiteral("see https://u:S3CRET-LAST@h/x");
    next.responseInstance = a.problemInstance;
    QCOMPARE(store->finishAttempt(a, next, op.version, QStringLiteral("w")),
             Store::FinishResult::Committed);

    // What the store gives back keeps the shape but not the secrets.
    const AttemptRecord stored = store->attempts({}).value(0);
    QCOMPARE(stored.url, QStringLiteral("https://api.example.com/x?api_key=[redacted]&page=2"));
    QVERIFY(stored.requestHeaders.contains(QLatin1String("Authorization: [redacted]")));
    QVERIFY(stored.responseHeaders.contains(QLatin1String("Retry-After: 5")));
    const OperationRecord storedOp = *store->operation(id);
    const QString everything = stored.url + stored.requestHeaders + stored.responseHeaders +
                               stored.error + stored.problemInstance + storedOp.lastError +
                               storedOp.responseInstance;
    for (const QByteArray &secret : secrets)
        QVERIFY2(!everything.contains(QLatin1String(secret)), secret.constData());

    if (!isSqlite())
        return;
    // The bytes on disk, the write-ahead log included, while the store is open.
    for (const QString &suffix : {QString(), QStringLiteral("-wal")}) {
        QFile file(m_url + suffix);
        if (!file.exists())
            continue;
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(bytes.contains("[redacted]") || suffix.isEmpty());
        for (const QByteArray &secret : secrets)
            QVERIFY2(!bytes.contains(secret),
                     qPrintable(QStringLiteral("%1 in %2").arg(QLatin1String(secret), suffix)));
    }
    store.reset();
    QFile file(m_url);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.contains("[redacted]"));
    for (const QByteArray &secret : secrets)
        QVERIFY2(!bytes.contains(secret), secret.constData());
}

void tst_Store::checkpointsOffTheWritingThread()
{
    if (!isSqlite())
        QSKIP("a SQLite write-ahead log only");
    std::unique_ptr<Store> store = openStore();
    QVERIFY(store);
    const qint64 emptySize = QFileInfo(m_url).size();
    QCOMPARE(store->backgroundCheckpoints(), 0);
    // Each operation is a commit of a few pages: enough to pass SQLite's 1,000 frames
    // several times.
    for (int i = 0; i < 2000; ++i)
        QVERIFY(store->createOperation(QStringLiteral("e"), QString::number(i), kNow + i));
    if (driverOnly())
        QCOMPARE(store->backgroundCheckpoints(), 0); // SQLite's own, on the writing thread
    else
        QTRY_VERIFY_WITH_TIMEOUT(store->backgroundCheckpoints() > 0, 30000);
    // The database file itself has the operations while the writer is still open.
    QVERIFY2(QFileInfo(m_url).size() > emptySize,
             qPrintable(QStringLiteral("%1 bytes").arg(QFileInfo(m_url).size())));
    QCOMPARE(store->countsByState().value(OperationState::Scheduled), qint64(2000));
    store.reset();
    store = openStore();
    QVERIFY(store);
    QCOMPARE(store->countsByState().value(OperationState::Scheduled), qint64(2000));
}

void tst_Store::migrationFromVersion1()
{
    QString error;
    StoreOptions options;
    options.useLinkedSqlite = !driverOnly();
    // Only versions that exist are made.
    QVERIFY(!Store::createAtVersion(m_url, Store::latestSchemaVersion() + 1, &error, options));
    QVERIFY2(error.contains(QLatin1String("does not exist")), qPrintable(error));
    QVERIFY2(Store::createAtVersion(m_url, 1, &error, options), qPrintable(error));
    // Rows as version 1 wrote them.
    QVERIFY2(
        rawExec(
            {QStringLiteral(
                 "INSERT INTO endpoints (id, name, created_at) VALUES ('legacy', 'Legacy', 1)"),
             QStringLiteral(
                 "INSERT INTO operations (endpoint_id, state, attempt, created_at, next_attempt_at,"
                 " idempotency_key, version) VALUES ('legacy', 'waiting', 2, 1, 5, 'old-key', 4)"),
             QStringLiteral(
                 "INSERT INTO attempts (operation_id, endpoint_id, attempt, started_at, "
                 "finished_at,"
                 " method, url, status, error, decision, reason, wait_ms, wait_source,"
                 " retry_after_raw, problem_type, problem_instance, rate_limit_remaining,"
                 " idempotency_key, duration_ms, worker_id, policy_id, policy_version)"
                 " VALUES (1, 'legacy', 2, 3, 4, 'GET', 'https://h/', 503, '', 'retry',"
                 " 'throttled', 1000, 'retry-after', '1', '', '', -1, 'old-key', 1, 'w', '', 0)")},
            &error),
        qPrintable(error));

    auto store = openStore();
    QVERIFY(store);
    QCOMPARE(store->schemaVersion().value_or(-1), Store::latestSchemaVersion());
    const auto op = store->operation(1);
    QVERIFY(op);
    QCOMPARE(op->state, OperationState::Waiting);
    QCOMPARE(op->attempt, 2);
    QCOMPARE(op->idempotencyKey, QStringLiteral("old-key"));
    QVERIFY(!op->forceNext);
    const QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().status, 503);
    QVERIFY(!attempts.first().forced);
    QVERIFY(attempts.first().requestHeaders.isEmpty());
    // And the migrated rows work with what version 2 added.
    const OperationRecord claimed =
        store->claims().claimDue(QStringLiteral("w"), 10, kLeaseMs, 5).value(0);
    QCOMPARE(claimed.id, qint64(1));
    QCOMPARE(claimed.version, qint64(5));
    QVERIFY(store->ensureOneShotOperation(QStringLiteral("legacy-once"), QStringLiteral("k"), 10));
    // Opening again migrates nothing.
    store.reset();
    auto again = openStore();
    QVERIFY(again);
    QCOMPARE(again->operations({}).size(), 2);
}

void tst_Store::unknownWordsReadAsFallbacks()
{
    // Words no version of Cooldown writes (a newer writer, a hand-edited row): the rows
    // still load, as Park and None, and nothing counts them as a success or a failure.
    QVERIFY(openStore());
    QString error;
    QVERIFY2(
        rawExec({QStringLiteral("INSERT INTO operations (endpoint_id, state, attempt, created_at,"
                                " wait_source) VALUES ('odd', 'parked', 1, 1, 'carrier-pigeon')"),
                 QStringLiteral("INSERT INTO operations (endpoint_id, state, created_at)"
                                " VALUES ('odd', 'scheduled', 1)"),
                 QStringLiteral(
                     "INSERT INTO attempts (operation_id, endpoint_id, attempt, started_at,"
                     " finished_at, method, url, status, error, decision, reason, wait_ms,"
                     " wait_source, retry_after_raw, problem_type, problem_instance,"
                     " rate_limit_remaining, idempotency_key, duration_ms, worker_id, policy_id,"
                     " policy_version) VALUES (1, 'odd', 1, 3, 4, 'GET', 'https://h/', 503, '',"
                     " 'maybe', 'throttled', 1000, 'carrier-pigeon', '', '', '', -1, '', 1, 'w',"
                     " '', 0)"),
                 QStringLiteral("INSERT INTO attempt_rollups (minute_at, endpoint_id, policy_id,"
                                " partition_key, status_class, decision, wait_source, reason,"
                                " attempts, wait_ms) VALUES (%1, 'odd', '', '', '503', 'maybe',"
                                " 'carrier-pigeon', '', 1, 1000), (%1, 'odd', '', '', '2xx',"
                                " 'conflict', '', '', 2, 0)")
                     .arg(kNow - kNow % 60'000)},
                &error),
        qPrintable(error));

    auto store = openStore();
    QVERIFY(store);
    const QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().decision, Decision::Park);
    QCOMPARE(attempts.first().waitSource, WaitSource::None);
    QCOMPARE(store->operation(1)->waitSource, std::optional(WaitSource::None));
    QCOMPARE(store->operation(2)->waitSource, std::optional<WaitSource>());

    QList<RollupRecord> rows = store->rollups(kNow - 60'000, kNow + 60'000);
    QCOMPARE(rows.size(), 2);
    std::sort(rows.begin(), rows.end(), [](const RollupRecord &a, const RollupRecord &b) {
        return a.statusClass < b.statusClass;
    });
    QVERIFY(rows.at(0).isLeaseConflict());
    QCOMPARE(rows.at(0).waitSource, std::optional<WaitSource>());
    QCOMPARE(rows.at(1).decision, std::optional(Decision::Park));
    QCOMPARE(rows.at(1).waitSource, std::optional(WaitSource::None));
}

void tst_Store::newerVersionRefused()
{
    {
        auto store = openStore();
        QVERIFY(store);
        QVERIFY(store->createOperation(QStringLiteral("e"), QStringLiteral("k"), kNow));
    }
    QString error;
    QVERIFY2(rawExec({QStringLiteral(
                         "UPDATE schema_meta SET value = '99' WHERE name = 'schema_version'")},
                     &error),
             qPrintable(error));
    QByteArray before;
    if (isSqlite()) {
        QFile file(m_url);
        QVERIFY(file.open(QIODevice::ReadOnly));
        before = file.readAll();
    }
    QVERIFY(!Store::open(m_url, &error));
    QVERIFY2(error.contains(QLatin1String("99")) && error.contains(QLatin1String("newer")),
             qPrintable(error));
    if (isSqlite()) {
        QFile file(m_url);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), before);
        QVERIFY(!QFile::exists(m_url + QStringLiteral("-wal")) ||
                QFileInfo(m_url + QStringLiteral("-wal")).size() == 0);
    } else {
        QVERIFY(rawExec({QStringLiteral("SELECT 1 FROM operations")}, &error));
    }
    QVERIFY(
        rawExec({QStringLiteral("UPDATE schema_meta SET value = '%1' WHERE name = 'schema_version'")
                     .arg(Store::latestSchemaVersion())},
                &error));
    QVERIFY(openStore());
}

void tst_Store::unreachableOrUnusable()
{
    QString error;
    if (!isSqlite()) {
        // A loopback port that nothing listens on: bind one, then close it.
        QTcpServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        const quint16 port = server.serverPort();
        server.close();
        const QString url =
            QStringLiteral("postgresql://cooldown:pw@127.0.0.1:%1/nothing").arg(port);
        QVERIFY(!Store::open(url, &error));
        QVERIFY2(error.contains(QLatin1String("cannot connect to PostgreSQL")), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1String(":pw@")), qPrintable(error));
        QVERIFY(!Store::open(QStringLiteral("postgresql://u@127.0.0.1:%1").arg(port), &error));
        QVERIFY2(error.contains(QLatin1String("names no database")), qPrintable(error));
        return;
    }
    QVERIFY(!Store::open(QString(), &error));
    QVERIFY(error.contains(QLatin1String("no database")));
    QVERIFY(!Store::open(m_dir->path(), &error));
    QVERIFY2(error.contains(QLatin1String("folder")), qPrintable(error));
    QVERIFY(!Store::open(m_dir->filePath(QStringLiteral("missing/x.db")), &error));
    QVERIFY2(error.contains(QLatin1String("does not exist")), qPrintable(error));
    QVERIFY(!QDir(m_dir->filePath(QStringLiteral("missing"))).exists());

    // Not a database: refused, and left as it was.
    const QString junk = m_dir->filePath(QStringLiteral("notes.txt"));
    {
        QFile file(junk);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray(4096, 'x'));
    }
    QVERIFY(!Store::open(junk, &error));
    QVERIFY2(error.contains(QLatin1String("notes.txt")), qPrintable(error));
    QFile check(junk);
    QVERIFY(check.open(QIODevice::ReadOnly));
    QCOMPARE(check.readAll(), QByteArray(4096, 'x'));

    // Locked by another connection that holds an exclusive lock.
    {
        auto store = openStore();
        QVERIFY(store);
    }
    const QString name = QStringLiteral("tst-store-locker");
    {
        QSqlDatabase locker = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        locker.setDatabaseName(m_url);
        QVERIFY(locker.open());
        QSqlQuery query(locker);
        QVERIFY(query.exec(QStringLiteral("PRAGMA locking_mode=EXCLUSIVE")));
        QVERIFY(query.exec(QStringLiteral("BEGIN EXCLUSIVE")));
        QVERIFY(
            query.exec(QStringLiteral("INSERT INTO endpoints (id, created_at) VALUES ('x', 1)")));
        StoreOptions impatient;
        impatient.busyTimeoutMs = 50;
        QVERIFY(!Store::open(m_url, &error, impatient));
        QVERIFY2(error.contains(QLatin1String("locked")), qPrintable(error));
        QVERIFY(query.exec(QStringLiteral("ROLLBACK")));
        query.finish();
        locker.close();
    }
    QSqlDatabase::removeDatabase(name);
    QVERIFY(openStore());
}

QTEST_GUILESS_MAIN(tst_Store)
#include "tst_store.moc"
