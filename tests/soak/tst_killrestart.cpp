// SPDX-License-Identifier: Apache-2.0
// The crash soak: `cooldown run --until-idle` against the demo API (in this process),
// killed with SIGKILL at random moments (and now and then stopped with SIGTERM),
// restarted on the same database each time, until it ends by itself. Then nothing may
// be lost, nothing executed twice and nothing left running.
//
// Short form (ctest): a few hundred operations and a handful of kills. Long form
// (scripts/soak): COOLDOWN_SOAK_OPERATIONS, COOLDOWN_SOAK_KILLS, COOLDOWN_SOAK_SEED,
// COOLDOWN_SOAK_TIMEOUT_SECONDS.

#include "SoakWorkload.h"

#include "app/demo/DemoServer.h"
#include "core/store/Store.h"
#include "core/time/RandomSource.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

int envInt(const char *name, int fallback)
{
    bool ok = false;
    const int value = qEnvironmentVariableIntValue(name, &ok);
    return ok && value > 0 ? value : fallback;
}

} // namespace

class tst_KillRestart : public QObject
{
    Q_OBJECT

private slots:
    void killedAndRestartedLosesNothingAndRepeatsNothing();
};

void tst_KillRestart::killedAndRestartedLosesNothingAndRepeatsNothing()
{
    const int operationCount = envInt("COOLDOWN_SOAK_OPERATIONS", 300);
    const int plannedKills = envInt("COOLDOWN_SOAK_KILLS", 10);
    const int timeoutSeconds = envInt("COOLDOWN_SOAK_TIMEOUT_SECONDS", 150);
    bool seedGiven = false;
    quint64 seed = qEnvironmentVariable("COOLDOWN_SOAK_SEED").toULongLong(&seedGiven);
    if (!seedGiven)
        seed = QRandomGenerator::global()->generate64() % 1000000;
    qInfo().noquote() << "soak: seed" << seed << "(COOLDOWN_SOAK_SEED to repeat)";
    SeededRandom random(seed);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));
    const QList<soak::Operation> ops = soak::makeWorkload(operationCount, true);
    const QString configPath = dir.filePath(QStringLiteral("soak.json"));
    const QString dbPath = dir.filePath(QStringLiteral("soak.db"));
    {
        QFile file(configPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(soak::configFor(ops, demo.baseUrl(), 8));
    }

    QElapsedTimer wall;
    wall.start();
    int kills = 0;
    int terms = 0;
    int runs = 0;
    int finalExitCode = -1;
    QByteArray lastOutput;
    while (finalExitCode < 0) {
        QVERIFY2(
            wall.elapsed() < qint64(timeoutSeconds) * 1000,
            qPrintable(
                QStringLiteral("not done after %1 s and %2 runs").arg(timeoutSeconds).arg(runs)));
        QVERIFY2(runs <= plannedKills + 10, "cooldown run keeps ending without finishing");
        ++runs;
        const QString workerId = QStringLiteral("soak-run-%1").arg(runs);
        // The moment: after a random number of recorded attempts. Every third stop is
        // a SIGTERM, which must stop cleanly.
        const bool interrupt = kills + terms < plannedKills;
        const bool terminate = interrupt && (kills + terms) % 3 == 2;
        const int stopAfterLines = int(random.uniformInt(1, 60));

        QProcess run;
        int attemptLines = 0;
        QByteArray output;
        connect(&run, &QProcess::readyReadStandardOutput, &run, [&] {
            while (run.canReadLine()) {
                const QByteArray line = run.readLine();
                output += line;
                attemptLines += line.contains(" attempt ") ? 1 : 0;
            }
        });
        run.start(QStringLiteral(COOLDOWN_BINARY),
                  {QStringLiteral("run"), QStringLiteral("--config"), configPath,
                   QStringLiteral("--db"), dbPath, QStringLiteral("--until-idle"),
                   QStringLiteral("--lease"), QStringLiteral("3"), QStringLiteral("--worker-id"),
                   workerId});
        QVERIFY2(run.waitForStarted(10000), qPrintable(run.errorString()));
        const qint64 budgetMs =
            std::max<qint64>(1000, qint64(timeoutSeconds) * 1000 - wall.elapsed());
        // The demo API lives in this thread: wait with the event loop running.
        QTRY_VERIFY_WITH_TIMEOUT(run.state() == QProcess::NotRunning ||
                                     (interrupt && attemptLines >= stopAfterLines),
                                 budgetMs);
        if (run.state() != QProcess::NotRunning) {
            if (terminate) {
                run.terminate();
                ++terms;
                // In-flight exchanges finish (hung ones time out after 1 s).
                QTRY_VERIFY_WITH_TIMEOUT(run.state() == QProcess::NotRunning, 20000);
                output += run.readAllStandardOutput();
                QCOMPARE(run.exitStatus(), QProcess::NormalExit);
                QVERIFY2(run.exitCode() == 0 || run.exitCode() == 1,
                         output.right(2000).constData());
                QVERIFY2(output.contains("summary (database):"), output.right(2000).constData());
                // A clean stop leaves nothing of its own running.
                QString error;
                auto store = Store::open(dbPath, &error);
                QVERIFY2(store, qPrintable(error));
                OperationFilter running;
                running.state = OperationState::Running;
                for (const OperationRecord &op : store->operations(running))
                    QVERIFY2(
                        op.leaseOwner != workerId,
                        qPrintable(
                            QStringLiteral("%1 left %2 running").arg(workerId, op.endpointId)));
            } else {
                run.kill();
                ++kills;
                QVERIFY(run.waitForFinished(10000));
                QCOMPARE(run.exitStatus(), QProcess::CrashExit);
            }
            continue;
        }
        run.waitForFinished(1000);
        output += run.readAllStandardOutput();
        const QByteArray err = run.readAllStandardError();
        QVERIFY2(run.exitStatus() == QProcess::NormalExit, err.constData());
        QVERIFY2(run.exitCode() == 0 || run.exitCode() == 1,
                 (output.right(2000) + err).constData());
        QVERIFY2(!err.contains("database"), err.constData());
        finalExitCode = run.exitCode();
        lastOutput = output;
    }
    const qint64 elapsedMs = wall.elapsed();
    // Answers still due from slow routes were for requests already counted.
    QVERIFY2(lastOutput.contains("summary (database):"), lastOutput.right(2000).constData());

    QString error;
    auto store = Store::open(dbPath, &error);
    QVERIFY2(store, qPrintable(error));
    const DemoStats stats = demo.stats();
    const QMap<OperationState, qint64> counts = store->countsByState();
    QCOMPARE(counts.value(OperationState::Running), 0);
    QCOMPARE(counts.value(OperationState::Scheduled), 0);
    QCOMPARE(counts.value(OperationState::Waiting), 0);

    soak::Accounting acc;
    qint64 parked = 0;
    for (const soak::Operation &op : ops) {
        const auto record = store->latestOperation(op.endpointId);
        QVERIFY2(record, qPrintable(op.endpointId));
        AttemptFilter filter;
        filter.operationId = record->id;
        const QList<AttemptRecord> attempts = store->attempts(filter);
        soak::account(acc, op, *record, attempts, stats);
        // The final state the contract gives each kind.
        bool rescued = false;
        for (const AttemptRecord &a : attempts)
            rescued = rescued || a.error == QLatin1String("worker_died");
        switch (op.kind) {
        case soak::Kind::Hung:
            QVERIFY2(record->state == OperationState::Failed,
                     qPrintable(op.endpointId + QLatin1Char(' ') + toString(record->state)));
            QCOMPARE(record->finalReason, QStringLiteral("max_attempts"));
            break;
        case soak::Kind::Unkeyed:
            // Without a key, a send whose fate is unknown needs an operator.
            if (record->state == OperationState::Parked) {
                ++parked;
                QCOMPARE(record->finalReason, QStringLiteral("ambiguous_send"));
                QVERIFY2(rescued,
                         qPrintable(op.endpointId + QStringLiteral(" parked without a rescue")));
                break;
            }
            QVERIFY2(record->state == OperationState::Succeeded,
                     qPrintable(op.endpointId + QLatin1Char(' ') + toString(record->state)));
            break;
        default:
            QVERIFY2(record->state == OperationState::Succeeded,
                     qPrintable(op.endpointId + QLatin1Char(' ') + toString(record->state) +
                                QLatin1Char(' ') + record->finalReason));
            break;
        }
    }
    const qint64 storeAttempts = store->countAttempts({});
    qInfo().noquote()
        << QStringLiteral(
               "soak: seed %1, runs %2, kills %3, sigterms %4, operations %5, attempts %6 "
               "(rescues %7), demo requests %8, parked %9, duplicates %10, lost %11, "
               "phantoms %12, lease conflicts %13, %14 ms")
               .arg(seed)
               .arg(runs)
               .arg(kills)
               .arg(terms)
               .arg(acc.operations)
               .arg(acc.attempts)
               .arg(acc.rescues)
               .arg(stats.totalRequests)
               .arg(parked)
               .arg(acc.duplicates)
               .arg(acc.lost)
               .arg(acc.phantoms)
               .arg(store->leaseConflictCount())
               .arg(elapsedMs);
    QVERIFY2(acc.problems.isEmpty(), qPrintable(acc.problems.mid(0, 20).join(QLatin1Char('\n'))));
    QCOMPARE(acc.duplicates, 0);
    QCOMPARE(acc.lost, 0);
    QCOMPARE(acc.attempts, storeAttempts);
    QCOMPARE(acc.demoRequests, stats.totalRequests);
    // Every request the demo API saw is a recorded attempt or the one in flight of a kill.
    QVERIFY(stats.totalRequests <= storeAttempts);
    QVERIFY2(kills > 0 || plannedKills == 0, "the workload ended before the first kill");
}

QTEST_GUILESS_MAIN(tst_KillRestart)
#include "tst_killrestart.moc"
