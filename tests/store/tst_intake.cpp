// SPDX-License-Identifier: Apache-2.0
// Jobs handed in from outside, in the store (docs/intake.md), on SQLite and on
// PostgreSQL: durable with their key before anything is sent, found again by the same
// key and request, refused by the same key with another request, and a batch with a
// bad job written whole or not at all.

#include "StoreTestSupport.h"

#include "core/config/WorkspaceConfig.h"
#include "core/engine/Intake.h"
#include "core/store/Store.h"
#include "core/time/RandomSource.h"

#include <QSqlDatabase>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kNow = 1'800'000'000'000;

const QByteArray kWorkspace = R"({"version": 1,
    "policies": [{"policy_id": "bom", "limit": 120, "window_seconds": 60}],
    "endpoints": [
      {"id": "upload", "method": "POST", "url": "BASE/boms/${job:part}",
       "body": "rev ${job:rev}", "policy": "bom", "partition_key": "${job:tenant}",
       "idempotency": {"header": "Idempotency-Key"}},
      {"id": "import", "method": "POST", "url": "BASE/import",
       "enqueue_only": true}
    ]})";

JobRequest upload(const QString &part, const QString &rev, const QString &key = {},
                  const QString &tenant = QStringLiteral("t1"))
{
    JobRequest j;
    j.endpointId = QStringLiteral("upload");
    j.values = {{QStringLiteral("part"), part},
                {QStringLiteral("rev"), rev},
                {QStringLiteral("tenant"), tenant}};
    j.idempotencyKey = key;
    return j;
}

} // namespace

class tst_Intake : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void init();
    void cleanup();

    void aJobIsDurableWithItsKeyAndValues();
    void theSameKeyAndRequestFindTheSameJob();
    void theSameKeyWithAnotherRequestIsRefused();
    void aBatchWithABadJobWritesNothingUnlessKeepGoing();
    void aThousandJobsInOneCall();
    void eachPartitionKeyIsPacedByThePolicy();

private:
    std::unique_ptr<Store> open();
    IntakeReport enqueue(Store &store, const QList<JobRequest> &jobs, bool keepGoing = false);
    qint64 operationCount(Store &store);

    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::optional<WorkspaceConfig> m_config;
    SeededRandom m_random{7};
};

void tst_Intake::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("postgresql") << "postgresql";
}

void tst_Intake::init()
{
    QFETCH_GLOBAL(QString, backend);
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QString error;
    // (The URL is put in here: moc misreads "//" inside a raw string literal.)
    m_config = WorkspaceConfig::parse(QByteArray(kWorkspace)
                                          .replace("BASE", "https:"
                                                           "//plm.example.com"),
                                      QStringLiteral("w.json"), &error);
    QVERIFY2(m_config, qPrintable(error));
    if (backend == QLatin1String("sqlite")) {
        m_url = m_dir->filePath(QStringLiteral("intake.db"));
        return;
    }
    QString why;
    m_url = test::freshPostgresDatabase(QStringLiteral("cooldown_tst_intake"), &why);
    if (m_url.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
}

void tst_Intake::cleanup()
{
    m_dir.reset();
}

std::unique_ptr<Store> tst_Intake::open()
{
    QString error;
    std::unique_ptr<Store> store = Store::open(m_url, &error);
    if (!store)
        qWarning("open failed: %s", qPrintable(error));
    return store;
}

IntakeReport tst_Intake::enqueue(Store &store, const QList<JobRequest> &jobs, bool keepGoing)
{
    QStringList paths;
    for (qsizetype i = 0; i < jobs.size(); ++i)
        paths.append(QStringLiteral("line %1: $").arg(i + 1));
    return enqueueJobs(store, *m_config, jobs, paths, kNow, m_random, keepGoing);
}

qint64 tst_Intake::operationCount(Store &store)
{
    return store.operations(OperationFilter()).size();
}

void tst_Intake::aJobIsDurableWithItsKeyAndValues()
{
    qint64 id = 0;
    {
        auto store = open();
        QVERIFY(store);
        JobRequest later = upload(QStringLiteral("A-1"), QStringLiteral("B"));
        later.notBeforeMs = kNow + 60'000;
        const IntakeReport report = enqueue(*store, {later});
        QVERIFY2(report.ok(), qPrintable(report.databaseError));
        QCOMPARE(report.created(), 1);
        id = report.operationIds.first();
        QVERIFY(id > 0);
    }
    // Another connection, as a worker would be, finds all of it.
    auto store = open();
    QVERIFY(store);
    const auto op = store->operation(id);
    QVERIFY(op);
    QCOMPARE(op->endpointId, QStringLiteral("upload"));
    QCOMPARE(op->state, OperationState::Scheduled);
    QCOMPARE(op->nextAttemptAtMs, kNow + 60'000);
    QCOMPARE(op->policyId, QStringLiteral("bom"));
    QCOMPARE(op->partitionKey, QStringLiteral("t1"));
    QCOMPARE(op->idempotencyKey.size(), 36); // generated, UUID form
    QCOMPARE(op->jobValues.value(QStringLiteral("part")), QStringLiteral("A-1"));
    QCOMPARE(op->jobValues.value(QStringLiteral("rev")), QStringLiteral("B"));
    // Nothing is due before its time.
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow, 60'000, 10).size(), 0);
    QCOMPARE(store->claims().claimDue(QStringLiteral("w"), kNow + 60'000, 60'000, 10).size(), 1);
}

void tst_Intake::theSameKeyAndRequestFindTheSameJob()
{
    auto store = open();
    QVERIFY(store);
    const IntakeReport first = enqueue(*store, {upload("A-1", "B", QStringLiteral("k-1"))});
    QVERIFY(first.ok());
    // Handed in again (a client that timed out and retried), in a batch with a new one.
    const IntakeReport again = enqueue(*store, {upload("A-1", "B", QStringLiteral("k-1")),
                                                upload("A-2", "B", QStringLiteral("k-2"))});
    QVERIFY2(again.ok(), qPrintable(again.refusals.value(0).second));
    QCOMPARE(again.operationIds.first(), first.operationIds.first());
    QCOMPARE(again.existed, (QList<bool>{true, false}));
    QCOMPARE(again.created(), 1);
    QCOMPARE(operationCount(*store), 2);
    // Twice in one batch: one operation.
    const IntakeReport twice = enqueue(*store, {upload("A-3", "B", QStringLiteral("k-3")),
                                                upload("A-3", "B", QStringLiteral("k-3"))});
    QVERIFY(twice.ok());
    QCOMPARE(twice.operationIds.at(0), twice.operationIds.at(1));
    QCOMPARE(operationCount(*store), 3);
    // Another tenant's partition is not the request: the same job.
    const IntakeReport moved =
        enqueue(*store, {upload("A-1", "B", QStringLiteral("k-1"), QStringLiteral("t2"))});
    QVERIFY(moved.ok());
    QCOMPARE(moved.operationIds.first(), first.operationIds.first());
}

void tst_Intake::theSameKeyWithAnotherRequestIsRefused()
{
    auto store = open();
    QVERIFY(store);
    const IntakeReport first = enqueue(*store, {upload("A-1", "B", QStringLiteral("k-1"))});
    QVERIFY(first.ok());
    const IntakeReport other = enqueue(*store, {upload("A-1", "C", QStringLiteral("k-1"))});
    QCOMPARE(other.refusals.size(), 1);
    QCOMPARE(other.refusals.first().first, 0);
    QVERIFY2(other.refusals.first().second.startsWith(
                 QStringLiteral("line 1: $.idempotency_key: idempotency key 'k-1' was handed in "
                                "for operation %1 with another request")
                     .arg(first.operationIds.first())),
             qPrintable(other.refusals.first().second));
    QCOMPARE(other.operationIds.first(), 0);
    QCOMPARE(operationCount(*store), 1);
    // Keys of operations the engine made itself are not a job's: no clash with them.
    const auto own = store->createOperation(QStringLiteral("import"), QStringLiteral("k-9"), kNow);
    QVERIFY(own);
    const IntakeReport beside = enqueue(*store, {upload("A-9", "B", QStringLiteral("k-9"))});
    QVERIFY(beside.ok());
    QVERIFY(beside.operationIds.first() != *own);
}

void tst_Intake::aBatchWithABadJobWritesNothingUnlessKeepGoing()
{
    auto store = open();
    QVERIFY(store);
    QVERIFY(enqueue(*store, {upload("A-1", "B", QStringLiteral("k-1"))}).ok());
    JobRequest missing = upload("A-3", "B");
    missing.values.remove(QStringLiteral("rev"));
    const QList<JobRequest> batch = {upload("A-2", "B"), missing,
                                     upload("A-1", "Z", QStringLiteral("k-1")), upload("A-4", "B")};
    const IntakeReport refused = enqueue(*store, batch);
    QCOMPARE(refused.refusals.size(), 1); // checked first: the conflict is not reached
    QVERIFY2(
        refused.refusals.first().second.startsWith(QLatin1String("line 2: $.vars: missing 'rev'")),
        qPrintable(refused.refusals.first().second));
    QCOMPARE(operationCount(*store), 1);

    // Without the bad line, the conflict alone refuses the batch too.
    const IntakeReport conflict = enqueue(*store, {batch.at(0), batch.at(2), batch.at(3)});
    QCOMPARE(conflict.refusals.size(), 1);
    QCOMPARE(conflict.refusals.first().first, 1);
    QCOMPARE(conflict.operationIds, (QList<qint64>{0, 0, 0}));
    QCOMPARE(operationCount(*store), 1);

    const IntakeReport kept = enqueue(*store, batch, true);
    QCOMPARE(kept.refusals.size(), 2);
    QCOMPARE(kept.refusals.at(0).first, 1);
    QCOMPARE(kept.refusals.at(1).first, 2);
    QCOMPARE(kept.created(), 2);
    QVERIFY(kept.operationIds.at(0) > 0 && kept.operationIds.at(3) > 0);
    QCOMPARE(operationCount(*store), 3);
}

void tst_Intake::aThousandJobsInOneCall()
{
    auto store = open();
    QVERIFY(store);
    QList<JobRequest> jobs;
    for (int i = 0; i < 1000; ++i)
        jobs.append(upload(QStringLiteral("P-%1").arg(i), QStringLiteral("A"),
                           QStringLiteral("bulk-%1").arg(i),
                           QStringLiteral("tenant-%1").arg(i % 4)));
    const IntakeReport report = enqueue(*store, jobs);
    QVERIFY2(report.ok(), qPrintable(report.databaseError));
    QCOMPARE(report.created(), 1000);
    QCOMPARE(operationCount(*store), 1000);
    QCOMPARE(QSet<qint64>(report.operationIds.cbegin(), report.operationIds.cend()).size(), 1000);
}

void tst_Intake::eachPartitionKeyIsPacedByThePolicy()
{
    auto store = open();
    QVERIFY(store);
    QList<JobRequest> jobs;
    for (int i = 0; i < 6; ++i)
        jobs.append(upload(QStringLiteral("P-%1").arg(i), QStringLiteral("A"), QString(),
                           i < 3 ? QStringLiteral("north") : QStringLiteral("south")));
    QVERIFY(enqueue(*store, jobs).ok());
    const QList<PartitionState> partitions = store->partitions(kNow).value();
    QStringList keys;
    for (const PartitionState &p : partitions) {
        if (p.policyId != QLatin1String("bom"))
            continue;
        keys.append(p.partitionKey);
        QCOMPARE(p.policyVersion, 1);
        QCOMPARE(p.pending, 3);
        QVERIFY2(p.definition.contains(QLatin1String("\"limit\":120")), qPrintable(p.definition));
    }
    keys.sort();
    QCOMPARE(keys, (QStringList{QStringLiteral("north"), QStringLiteral("south")}));
}

QTEST_GUILESS_MAIN(tst_Intake)
#include "tst_intake.moc"
