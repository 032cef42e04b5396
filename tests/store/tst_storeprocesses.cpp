// SPDX-License-Identifier: Apache-2.0
// Several processes on one SQLite file: leases must hold across processes, and a
// writer killed with SIGKILL must lose nothing it committed and leave nothing stuck.

#include "core/store/Store.h"

#include <QHash>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>

using namespace cooldown;

namespace {

const qint64 kNow = 1'795'000'000'000;
const qint64 kLeaseMs = 60'000;

std::unique_ptr<QProcess> startWorker(const QStringList &arguments)
{
    auto process = std::make_unique<QProcess>();
    process->setProcessChannelMode(QProcess::SeparateChannels);
    process->start(QStringLiteral(STORE_WORKER), arguments);
    return process;
}

} // namespace

class tst_StoreProcesses : public QObject
{
    Q_OBJECT

private slots:
    void twoProcessesNeverClaimTheSameOperation();
    void killedWriterLosesNothingCommitted();
    void processesCreatingOneFileTogether();
};

void tst_StoreProcesses::twoProcessesNeverClaimTheSameOperation()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("shared.db"));
    const int operations = 3000;
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        for (int i = 0; i < operations; ++i)
            QVERIFY(store->createOperation(QStringLiteral("e"), QString::number(i), kNow - i % 50));
    }

    std::unique_ptr<QProcess> workers[] = {
        startWorker({QStringLiteral("claim"), db, QStringLiteral("a"), QString::number(kNow),
                     QString::number(kLeaseMs), QStringLiteral("1")}),
        startWorker({QStringLiteral("claim"), db, QStringLiteral("b"), QString::number(kNow),
                     QString::number(kLeaseMs), QStringLiteral("3")}),
    };
    QHash<qint64, int> claims;
    int perWorker[2] = {0, 0};
    // Both open the store first, then start claiming at the same moment: neither may
    // finish the work before the other has begun.
    for (int w = 0; w < 2; ++w) {
        QVERIFY(workers[w]->waitForStarted(10'000));
        for (int wait = 0; wait < 100 && !workers[w]->canReadLine(); ++wait)
            workers[w]->waitForReadyRead(100);
        QCOMPARE(workers[w]->readLine(), QByteArray("ready\n"));
    }
    // QProcess writes from the event loop: both get their "go" before either is
    // waited for.
    for (int w = 0; w < 2; ++w)
        workers[w]->write("go\n");
    for (int w = 0; w < 2; ++w)
        QVERIFY(workers[w]->waitForBytesWritten(10'000));
    for (int w = 0; w < 2; ++w) {
        QVERIFY(workers[w]->waitForFinished(120'000));
        QCOMPARE(workers[w]->exitStatus(), QProcess::NormalExit);
        QVERIFY2(workers[w]->exitCode() == 0, workers[w]->readAllStandardError().constData());
        for (const QByteArray &line : workers[w]->readAllStandardOutput().split('\n')) {
            if (line.isEmpty())
                continue;
            QVERIFY(line.startsWith("claimed "));
            ++claims[line.mid(8).toLongLong()];
            ++perWorker[w];
        }
    }
    QCOMPARE(claims.size(), operations);
    for (auto it = claims.cbegin(); it != claims.cend(); ++it)
        QVERIFY2(
            it.value() == 1,
            qPrintable(
                QStringLiteral("operation %1 claimed %2 times").arg(it.key()).arg(it.value())));
    // Both really competed: neither did all the work alone.
    QVERIFY2(perWorker[0] > 0 && perWorker[1] > 0,
             qPrintable(QStringLiteral("a: %1, b: %2").arg(perWorker[0]).arg(perWorker[1])));

    QString error;
    auto store = Store::open(db, &error);
    QVERIFY(store);
    QCOMPARE(store->countsByState().value(OperationState::Succeeded), qint64(operations));
    QCOMPARE(store->countAttempts({}), qint64(operations));
    QCOMPARE(store->leaseConflictCount(), qint64(0));
}

void tst_StoreProcesses::killedWriterLosesNothingCommitted()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString db = dir.filePath(QStringLiteral("killed.db"));
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        for (int i = 0; i < 20; ++i)
            QVERIFY(store->createOperation(QStringLiteral("e"), QString::number(i), kNow));
    }
    auto writer = startWorker({QStringLiteral("write"), db, QStringLiteral("doomed"),
                               QString::number(kNow), QString::number(kLeaseMs)});
    QVERIFY(writer->waitForStarted(10'000));
    QByteArray output;
    int committed = 0;
    while (committed < 500) {
        QVERIFY2(writer->state() == QProcess::Running, writer->readAllStandardError().constData());
        QVERIFY(writer->waitForReadyRead(30'000));
        output += writer->readAllStandardOutput();
        committed = output.count('\n');
    }
    writer->kill(); // SIGKILL: no destructor, no checkpoint, maybe mid-transaction
    QVERIFY(writer->waitForFinished(10'000));
    QCOMPARE(writer->exitStatus(), QProcess::CrashExit);
    output += writer->readAllStandardOutput();

    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    QSet<QPair<qint64, int>> stored;
    for (const AttemptRecord &a : store->attempts({}))
        stored.insert({a.operationId, a.attempt});
    int checked = 0;
    for (const QByteArray &line : output.split('\n')) {
        if (line.isEmpty())
            continue;
        const QList<QByteArray> parts = line.split(' ');
        QCOMPARE(parts.size(), 3);
        QCOMPARE(parts.at(0), QByteArray("committed"));
        const QPair<qint64, int> key{parts.at(1).toLongLong(), parts.at(2).toInt()};
        QVERIFY2(stored.contains(key), line.constData());
        ++checked;
    }
    QVERIFY(checked >= 500);
    // Operation attempt counters agree with the attempt rows.
    for (const OperationRecord &op : store->operations({})) {
        int rows = 0;
        for (const auto &key : std::as_const(stored))
            rows += key.first == op.id ? 1 : 0;
        QCOMPARE(op.attempt, rows);
    }

    // Whatever the writer held is still leased to it until the lease runs out, and no
    // longer: the next claim after that rescues every one of them.
    const QList<OperationRecord> before = store->operations({OperationState::Running, {}, 0, -1});
    for (const OperationRecord &op : before) {
        QCOMPARE(op.leaseOwner, QStringLiteral("doomed"));
        QCOMPARE(op.leaseExpiresAtMs, kNow + kLeaseMs);
    }
    const QList<OperationRecord> rescued =
        store->claims().claimDue(QStringLiteral("survivor"), kNow + kLeaseMs, kLeaseMs, 100);
    int rescues = 0;
    for (const OperationRecord &op : rescued)
        rescues += op.rescued ? 1 : 0;
    QCOMPARE(rescues, before.size());
    for (const OperationRecord &op : store->operations({OperationState::Running, {}, 0, -1}))
        QCOMPARE(op.leaseOwner, QStringLiteral("survivor"));
    QCOMPARE(store->countsByState().value(OperationState::Running), qint64(rescued.size()));
}

// Workers started together on a file that does not exist yet (a service manager
// starting several): each creates or finds the database, none is refused because
// another held the file's first locks.
void tst_StoreProcesses::processesCreatingOneFileTogether()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    constexpr int kRounds = 20;
    constexpr int kProcesses = 4;
    for (int round = 0; round < kRounds; ++round) {
        const QString db = dir.filePath(QStringLiteral("new-%1.db").arg(round));
        std::vector<std::unique_ptr<QProcess>> workers;
        for (int w = 0; w < kProcesses; ++w)
            workers.push_back(startWorker({QStringLiteral("open"), db, QStringLiteral("w"),
                                           QString::number(kNow), QString::number(kLeaseMs)}));
        for (auto &worker : workers) {
            QVERIFY(worker->waitForFinished(30'000));
            QVERIFY2(worker->exitStatus() == QProcess::NormalExit && worker->exitCode() == 0,
                     qPrintable(QStringLiteral("round %1: %2")
                                    .arg(round)
                                    .arg(QString::fromLocal8Bit(worker->readAllStandardError()))));
        }
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->schemaVersion().value_or(-1), Store::latestSchemaVersion());
    }
}

QTEST_GUILESS_MAIN(tst_StoreProcesses)
#include "tst_storeprocesses.moc"
