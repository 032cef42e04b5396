// SPDX-License-Identifier: Apache-2.0
// Several `cooldown run` processes on one SQLite database at once, against the demo
// API in this process: each attempt is made by exactly one of them (the demo API
// sees one request per recorded attempt, keyed payloads run once), together they keep
// the one global limit of the workspace (max_in_flight holds for the fleet), and no
// "database is locked" escapes as an error.
//
// COOLDOWN_SOAK_WORKERS, COOLDOWN_SOAK_WORKER_OPERATIONS and COOLDOWN_SOAK_TIMEOUT_SECONDS
// change the size.

#include "SoakWorkload.h"

#include "app/demo/DemoServer.h"
#include "core/store/Store.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

using namespace cooldown;

namespace {

constexpr int kMaxInFlight = 4;

int envInt(const char *name, int fallback)
{
    bool ok = false;
    const int value = qEnvironmentVariableIntValue(name, &ok);
    return ok && value > 0 ? value : fallback;
}

// The most attempts one worker had open at once, from their recorded intervals. The
// end of an attempt is its start (wall ms) plus its duration (monotonic ms), so it
// may be a millisecond late: ends are moved one millisecond earlier.
int maxConcurrent(const QList<AttemptRecord> &attempts)
{
    std::vector<std::pair<qint64, int>> events;
    for (const AttemptRecord &a : attempts) {
        if (a.finishedAtMs - 1 <= a.startedAtMs)
            continue;
        events.emplace_back(a.startedAtMs, +1);
        events.emplace_back(a.finishedAtMs - 1, -1);
    }
    std::sort(events.begin(), events.end()); // at equal times, ends (-1) first
    int open = 0;
    int most = 0;
    for (const auto &[at, delta] : events) {
        open += delta;
        most = std::max(most, open);
    }
    return most;
}

} // namespace

class tst_MultiWorker : public QObject
{
    Q_OBJECT

private slots:
    void workersShareOneDatabase();
};

void tst_MultiWorker::workersShareOneDatabase()
{
    const int workers = envInt("COOLDOWN_SOAK_WORKERS", 3);
    const int operationCount = envInt("COOLDOWN_SOAK_WORKER_OPERATIONS", 240);
    const int timeoutSeconds = envInt("COOLDOWN_SOAK_TIMEOUT_SECONDS", 120);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));
    // One-shot endpoints: created once per database, whichever worker sees them first.
    const QList<soak::Operation> ops = soak::makeWorkload(operationCount, false);
    const QString configPath = dir.filePath(QStringLiteral("workers.json"));
    const QString dbPath = dir.filePath(QStringLiteral("workers.db"));
    {
        QFile file(configPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(soak::configFor(ops, demo.baseUrl(), kMaxInFlight));
    }

    QElapsedTimer wall;
    wall.start();
    std::vector<std::unique_ptr<QProcess>> processes;
    for (int i = 0; i < workers; ++i) {
        auto process = std::make_unique<QProcess>();
        process->start(QStringLiteral(COOLDOWN_BINARY),
                       {QStringLiteral("run"), QStringLiteral("--config"), configPath,
                        QStringLiteral("--db"), dbPath, QStringLiteral("--until-idle"),
                        QStringLiteral("--worker-id"), QStringLiteral("worker-%1").arg(i + 1)});
        processes.push_back(std::move(process));
    }
    for (const auto &process : processes)
        QVERIFY2(process->waitForStarted(10000), qPrintable(process->errorString()));
    // The demo API lives in this thread: wait with the event loop running.
    const auto allDone = [&processes] {
        return std::all_of(processes.begin(), processes.end(),
                           [](const auto &p) { return p->state() == QProcess::NotRunning; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(allDone(), timeoutSeconds * 1000);
    const qint64 elapsedMs = wall.elapsed();

    qint64 summedAttempts = 0;
    const QRegularExpression attemptsInSummary(
        QStringLiteral("summary \\(database\\):.* attempts=(\\d+)"));
    for (int i = 0; i < workers; ++i) {
        QProcess &p = *processes[size_t(i)];
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(
            p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
            qPrintable(
                QStringLiteral("worker %1 exit %2\n%3").arg(i + 1).arg(p.exitCode()).arg(err)));
        // A busy database must be waited for, never reported as a failure.
        QVERIFY2(!err.contains(QLatin1String("database"), Qt::CaseInsensitive) &&
                     !err.contains(QLatin1String("locked"), Qt::CaseInsensitive) &&
                     !err.contains(QLatin1String("busy"), Qt::CaseInsensitive),
                 qPrintable(err));
        QVERIFY2(!out.contains(QLatin1String("lease conflict")), qPrintable(out.right(2000)));
        const QRegularExpressionMatch m = attemptsInSummary.match(out);
        QVERIFY2(m.hasMatch(), qPrintable(out.right(2000)));
        summedAttempts += m.captured(1).toLongLong();
    }

    QString error;
    auto store = Store::open(dbPath, &error);
    QVERIFY2(store, qPrintable(error));
    const DemoStats stats = demo.stats();
    QCOMPARE(store->countsByState().value(OperationState::Succeeded), qint64(operationCount));
    QCOMPARE(store->operations({}).size(), operationCount);

    soak::Accounting acc;
    std::map<QString, QList<AttemptRecord>> byWorker;
    for (const soak::Operation &op : ops) {
        const auto record = store->latestOperation(op.endpointId);
        QVERIFY2(record, qPrintable(op.endpointId));
        AttemptFilter filter;
        filter.operationId = record->id;
        const QList<AttemptRecord> attempts = store->attempts(filter);
        soak::account(acc, op, *record, attempts, stats);
        // Each attempt number was made once, by one worker.
        std::set<int> numbers;
        for (const AttemptRecord &a : attempts) {
            QVERIFY2(numbers.insert(a.attempt).second,
                     qPrintable(QStringLiteral("%1 attempt %2 recorded twice")
                                    .arg(op.endpointId)
                                    .arg(a.attempt)));
            QVERIFY(!a.leaseConflict);
            byWorker[a.workerId].append(a);
        }
        QCOMPARE(int(numbers.size()), record->attempt);
        QCOMPARE(*numbers.rbegin(), record->attempt);
        // No worker died: the demo API saw exactly one request per recorded attempt.
        const qint64 requests = stats.requestsByIdempotencyKey.value(record->idempotencyKey);
        QVERIFY2(requests == attempts.size(),
                 qPrintable(QStringLiteral("%1: %2 requests for %3 attempts")
                                .arg(op.endpointId)
                                .arg(requests)
                                .arg(attempts.size())));
    }
    QVERIFY2(acc.problems.isEmpty(), qPrintable(acc.problems.mid(0, 20).join(QLatin1Char('\n'))));
    QCOMPARE(acc.rescues, 0);
    QCOMPARE(acc.attempts, stats.totalRequests);
    QCOMPARE(summedAttempts, acc.attempts); // the summaries add up to the store

    QStringList perWorker;
    QList<AttemptRecord> everyAttempt;
    for (const auto &[workerId, attempts] : byWorker) {
        everyAttempt += attempts;
        QVERIFY2(workerId.startsWith(QLatin1String("worker-")), qPrintable(workerId));
        const int most = maxConcurrent(attempts);
        QVERIFY2(
            most <= kMaxInFlight,
            qPrintable(QStringLiteral("%1 had %2 attempts open at once").arg(workerId).arg(most)));
        perWorker.append(QStringLiteral("%1: %2 attempts, at most %3 at once")
                             .arg(workerId)
                             .arg(attempts.size())
                             .arg(most));
    }
    // With one worker doing everything, this test would prove nothing about sharing.
    QVERIFY2(byWorker.size() >= 2, "only one worker made attempts");
    // max_in_flight is the fleet's, not each worker's.
    const int fleetMost = maxConcurrent(everyAttempt);
    QVERIFY2(fleetMost <= kMaxInFlight,
             qPrintable(QStringLiteral("the fleet had %1 attempts open at once").arg(fleetMost)));
    perWorker.append(QStringLiteral("all: at most %1 at once").arg(fleetMost));
    qInfo().noquote() << QStringLiteral(
                             "workers: %1 processes, %2 operations, %3 attempts, demo requests %4, "
                             "duplicates %5, lost %6, %7 ms; %8")
                             .arg(workers)
                             .arg(acc.operations)
                             .arg(acc.attempts)
                             .arg(stats.totalRequests)
                             .arg(acc.duplicates)
                             .arg(acc.lost)
                             .arg(elapsedMs)
                             .arg(perWorker.join(QStringLiteral("; ")));
}

QTEST_GUILESS_MAIN(tst_MultiWorker)
#include "tst_multiworker.moc"
