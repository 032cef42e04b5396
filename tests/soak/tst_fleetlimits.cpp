// SPDX-License-Identifier: Apache-2.0
// A fleet of `cooldown run` processes on one database, counted at the demo API in this
// process (arrival times per client key), independently of the store: together they
// keep a partition's policy as one worker would (limit + burst in any window, with
// their clocks skewed by minutes on PostgreSQL); a backlog in one partition delays
// neither another partition nor an endpoint without a policy; a periodic endpoint
// ticks once per tick for the whole fleet; and a worker killed while it holds permits
// and tokens loses nothing, sends nothing twice and breaks no limit.
//
// The PostgreSQL rows need the server named by COOLDOWN_TEST_PG_URL (scripts/pg), and
// are skipped, with the reason, without one.

#include "store/StoreTestSupport.h"

#include "app/demo/DemoServer.h"
#include "core/store/Store.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <vector>

using namespace cooldown;

namespace {

constexpr int kMaxInFlight = 4;
// Longest a fleet may take beyond its --for: start-up, the last exchanges, the summary.
constexpr int kExitGraceMs = 20'000;

struct Endpoint
{
    QString id;
    QString path; // with its query, e.g. /ok?key=shared
    int everySeconds = 0;
    QString policy;
    QString partitionKey;
    bool keyedPost = false; // a POST with an Idempotency-Key instead of a GET
};

// A policy of `limit` requests per `windowSeconds` with `burst`, partitioned by project.
QJsonObject requestPolicy(const QString &id, int limit, int windowSeconds, int burst)
{
    return QJsonObject{{QStringLiteral("policy_id"), id},
                       {QStringLiteral("partition"), QStringLiteral("project")},
                       {QStringLiteral("quota_unit"), QStringLiteral("request")},
                       {QStringLiteral("limit"), limit},
                       {QStringLiteral("window_seconds"), windowSeconds},
                       {QStringLiteral("burst"), burst},
                       {QStringLiteral("policy_version"), 1}};
}

// A workspace of endpoints against the demo API.
QByteArray workspace(const QList<QJsonObject> &policies, const QList<Endpoint> &endpoints,
                     const QUrl &demo)
{
    QJsonArray policyArray;
    for (const QJsonObject &p : policies)
        policyArray.append(p);
    QJsonArray endpointArray;
    for (const Endpoint &e : endpoints) {
        QJsonObject o{{QStringLiteral("id"), e.id},
                      {QStringLiteral("method"),
                       e.keyedPost ? QStringLiteral("POST") : QStringLiteral("GET")},
                      {QStringLiteral("url"), demo.toString() + e.path},
                      {QStringLiteral("timeout_seconds"), 10}};
        if (e.keyedPost) {
            o.insert(QStringLiteral("body"), QStringLiteral("{\"op\":\"%1\"}").arg(e.id));
            o.insert(QStringLiteral("idempotency"),
                     QJsonObject{{QStringLiteral("header"), QStringLiteral("Idempotency-Key")}});
        }
        if (e.everySeconds > 0)
            o.insert(QStringLiteral("every_seconds"), e.everySeconds);
        if (!e.policy.isEmpty()) {
            o.insert(QStringLiteral("policy"), e.policy);
            o.insert(QStringLiteral("partition_key"), e.partitionKey);
        }
        endpointArray.append(o);
    }
    QJsonObject top{{QStringLiteral("version"), 1},
                    {QStringLiteral("concurrency"),
                     QJsonObject{{QStringLiteral("max_in_flight"), kMaxInFlight}}},
                    {QStringLiteral("endpoints"), endpointArray}};
    if (!policyArray.isEmpty())
        top.insert(QStringLiteral("policies"), policyArray);
    return QJsonDocument(top).toJson();
}

bool writeFile(const QString &path, const QByteArray &data)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(data) == data.size();
}

// The database of one row, empty: a SQLite file in dir, or a PostgreSQL database
// dropped and created again. Empty with the reason in *why when there is none.
QString emptyDatabase(const QString &backend, const QTemporaryDir &dir, QString *why)
{
    if (backend == QLatin1String("sqlite"))
        return dir.filePath(QStringLiteral("fleet.db"));
    return test::freshPostgresDatabase(QStringLiteral("cooldown_tst_fleetlimits"), why);
}

// One row per backend, as column "backend".
void addBackendRows()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("postgresql") << "postgresql";
}

// The most arrivals in any half-open window [t, t + windowMs), and where it starts.
struct Busiest
{
    int count = 0;
    qint64 startMs = -1;
};

Busiest busiestWindow(QList<qint64> arrivals, qint64 windowMs)
{
    std::sort(arrivals.begin(), arrivals.end());
    Busiest best;
    qsizetype end = 0;
    for (qsizetype begin = 0; begin < arrivals.size(); ++begin) {
        end = std::max(end, begin);
        while (end < arrivals.size() && arrivals[end] < arrivals[begin] + windowMs)
            ++end;
        if (end - begin > best.count) {
            best.count = int(end - begin);
            best.startMs = arrivals[begin];
        }
    }
    return best;
}

QString listOf(const QList<qint64> &values)
{
    QStringList parts;
    for (qint64 v : values)
        parts.append(QString::number(v));
    return parts.join(QLatin1Char(' '));
}

struct WorkerRun
{
    QString id;
    QProcess::ExitStatus status = QProcess::CrashExit;
    int exitCode = -1;
    QString out;
    QString err;
};

// Processes still running when a wait fails are killed, never left behind.
struct Fleet
{
    std::vector<std::unique_ptr<QProcess>> processes;
    ~Fleet()
    {
        for (const auto &p : processes) {
            if (p->state() != QProcess::NotRunning) {
                p->kill();
                p->waitForFinished(5000);
            }
        }
    }
};

// The id runFleet gives the worker it starts at index (0 is "worker-1").
QString workerId(qsizetype index)
{
    return QStringLiteral("worker-%1").arg(index + 1);
}

// Runs one `cooldown run --for seconds` per entry of skews (the --clock-skew of that
// worker; 0 gives none) on config and db, and waits for all of them with the event
// loop running, since the demo API lives in this thread. Check
// QTest::currentTestFailed() after it.
// whileRunning, when given, runs once all have started, with the processes (a test
// that kills one of them does it there).
void runFleet(const QString &configPath, const QString &db, int seconds, const QList<int> &skews,
              QList<WorkerRun> *runs, const QStringList &extraArgs = {},
              const std::function<void(Fleet &)> &whileRunning = {})
{
    Fleet fleet;
    for (qsizetype i = 0; i < skews.size(); ++i) {
        QStringList args{QStringLiteral("run"),
                         QStringLiteral("--config"),
                         configPath,
                         QStringLiteral("--db"),
                         db,
                         QStringLiteral("--for"),
                         QString::number(seconds),
                         QStringLiteral("--worker-id"),
                         workerId(i)};
        args += extraArgs;
        if (skews[i] != 0)
            args.append(QStringLiteral("--clock-skew=%1%2")
                            .arg(skews[i] > 0 ? QStringLiteral("+") : QString())
                            .arg(skews[i]));
        auto process = std::make_unique<QProcess>();
        process->start(QStringLiteral(COOLDOWN_BINARY), args);
        fleet.processes.push_back(std::move(process));
    }
    for (const auto &process : fleet.processes)
        QVERIFY2(process->waitForStarted(10000), qPrintable(process->errorString()));
    if (whileRunning) {
        whileRunning(fleet);
        if (QTest::currentTestFailed())
            return;
    }
    const auto allDone = [&fleet] {
        return std::all_of(fleet.processes.begin(), fleet.processes.end(),
                           [](const auto &p) { return p->state() == QProcess::NotRunning; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(allDone(), seconds * 1000 + kExitGraceMs);
    for (qsizetype i = 0; i < skews.size(); ++i) {
        QProcess &p = *fleet.processes[size_t(i)];
        WorkerRun run;
        run.id = workerId(i);
        run.status = p.exitStatus();
        run.exitCode = p.exitCode();
        run.out = QString::fromUtf8(p.readAllStandardOutput());
        run.err = QString::fromUtf8(p.readAllStandardError());
        runs->append(run);
    }
}

// Every worker exited 0 (but those named in killed), and no database error reached
// its stderr.
void verifyCleanExits(const QList<WorkerRun> &runs, const QStringList &killed = {})
{
    for (const WorkerRun &run : runs) {
        if (killed.contains(run.id))
            continue;
        QVERIFY2(run.status == QProcess::NormalExit && run.exitCode == 0,
                 qPrintable(QStringLiteral("%1 exit %2 (status %3)\n%4\n%5")
                                .arg(run.id)
                                .arg(run.exitCode)
                                .arg(int(run.status))
                                .arg(run.err, run.out.right(3000))));
        QVERIFY2(!run.err.contains(QLatin1String("database"), Qt::CaseInsensitive),
                 qPrintable(run.id + QStringLiteral(": ") + run.err));
    }
}

// The workers' stdout, for a failure message: their last lines.
QString tails(const QList<WorkerRun> &runs, int chars = 1500)
{
    QString text;
    for (const WorkerRun &run : runs)
        text += QStringLiteral("--- %1\n%2\n").arg(run.id, run.out.right(chars));
    return text;
}

} // namespace

class tst_FleetLimits : public QObject
{
    Q_OBJECT

private slots:
    void sharedLimit_data();
    void sharedLimit();
    void fairnessBesideABacklog();
    void periodicOncePerTickForTheFleet_data();
    void periodicOncePerTickForTheFleet();
    void killedWorkerHoldingPermitsAndTokens_data();
    void killedWorkerHoldingPermitsAndTokens();
};

void tst_FleetLimits::sharedLimit_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QList<int>>("skews");
    QTest::newRow("sqlite") << "sqlite" << QList<int>{0, 0, 0};
    QTest::newRow("postgresql") << "postgresql" << QList<int>{0, 0, 0};
    QTest::newRow("postgresql-skewed") << "postgresql" << QList<int>{-180, 0, 180};
}

// Three workers, 60 due operations in one partition of 10 per 5 s with burst 2: the
// demo API never sees more than limit + burst of them in any 5 s, however the
// workers' clocks disagree, and the limit is used rather than starved.
void tst_FleetLimits::sharedLimit()
{
    QFETCH(QString, backend);
    QFETCH(QList<int>, skews);
    constexpr int kLimit = 10;
    constexpr int kBurst = 2;
    constexpr qint64 kWindowMs = 5000;
    constexpr int kSeconds = 10;

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString why;
    const QString db = emptyDatabase(backend, dir, &why);
    if (db.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));

    QList<Endpoint> endpoints;
    for (int i = 0; i < 60; ++i)
        endpoints.append({QStringLiteral("shared-%1").arg(i, 2, 10, QLatin1Char('0')),
                          QStringLiteral("/ok?key=shared"), 0, QStringLiteral("p"),
                          QStringLiteral("k1")});
    const QString configPath = dir.filePath(QStringLiteral("shared.json"));
    QVERIFY(writeFile(configPath, workspace({requestPolicy(QStringLiteral("p"), kLimit, 5, kBurst)},
                                            endpoints, demo.baseUrl())));

    QElapsedTimer wall;
    wall.start();
    QList<WorkerRun> runs;
    runFleet(configPath, db, kSeconds, skews, &runs);
    if (QTest::currentTestFailed())
        return;
    const qint64 elapsedMs = wall.elapsed();
    verifyCleanExits(runs);
    if (QTest::currentTestFailed())
        return;

    const DemoStats stats = demo.stats();
    const QList<qint64> arrivals = stats.arrivalsMsByKey.value(QStringLiteral("shared"));
    const Busiest busiest = busiestWindow(arrivals, kWindowMs);

    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    std::map<QString, int> attemptsByWorker;
    const QList<AttemptRecord> attempts = store->attempts({});
    for (const AttemptRecord &a : attempts)
        ++attemptsByWorker[a.workerId];
    QStringList perWorker;
    for (const auto &[worker, count] : attemptsByWorker)
        perWorker.append(QStringLiteral("%1 %2").arg(worker).arg(count));

    qInfo().noquote() << QStringLiteral(
                             "sharedLimit %1: busiest 5 s window %2 requests (from %3 ms; bound "
                             "%4), %5 requests at the demo API, %6 attempts in the store (%7), "
                             "%8 ms")
                             .arg(QString::fromLatin1(QTest::currentDataTag()))
                             .arg(busiest.count)
                             .arg(busiest.startMs)
                             .arg(kLimit + kBurst)
                             .arg(arrivals.size())
                             .arg(attempts.size())
                             .arg(perWorker.join(QStringLiteral(", ")))
                             .arg(elapsedMs);

    QVERIFY2(busiest.count <= kLimit + kBurst,
             qPrintable(QStringLiteral("%1 requests in the 5 s from %2 ms (bound %3); arrivals "
                                       "(ms): %4\n%5")
                            .arg(busiest.count)
                            .arg(busiest.startMs)
                            .arg(kLimit + kBurst)
                            .arg(listOf(arrivals), tails(runs))));
    // Every attempt in the store went out once, and nothing went out unrecorded: a
    // worker whose clock runs ahead must not take live leases for expired ones.
    QVERIFY2(attempts.size() == arrivals.size(),
             qPrintable(QStringLiteral("%1 attempts recorded, %2 requests at the server\n%3")
                            .arg(attempts.size())
                            .arg(arrivals.size())
                            .arg(tails(runs))));
    // With agreeing clocks the work is shared. With skewed ones, operations are due by
    // the clock of the worker that wrote them, so the one ahead may well take them all.
    if (!skews.contains(180))
        QVERIFY2(
            attemptsByWorker.size() >= 2,
            qPrintable(
                QStringLiteral("only %1 made attempts").arg(perWorker.join(QStringLiteral(", ")))));
    // The limit is used, not starved: the bucket refilled, and while the fleet sent it
    // kept close to the policy's rate. (Measured over the time it sent, not over the
    // workers' --for: a busy machine may take a while to start three of them.)
    const qint64 spanMs = arrivals.size() < 2 ? 0 : arrivals.last() - arrivals.first();
    const double used = double(arrivals.size() - kBurst) * double(kWindowMs) /
                        (double(kLimit) * double(std::max<qint64>(spanMs, 1)));
    QVERIFY2(arrivals.size() > kLimit + kBurst && used >= 0.8,
             qPrintable(QStringLiteral("%1 requests over %2 ms, %3 of the limit's rate: the "
                                       "limit is starved\n%4")
                            .arg(arrivals.size())
                            .arg(spanMs)
                            .arg(used, 0, 'f', 2)
                            .arg(tails(runs))));
}

// One worker; 200 due operations in partition "a" of a 10 per 5 s policy, 20 in
// partition "b" of another, and a periodic endpoint without a policy: the backlog in
// "a" delays neither "b" nor the periodic one, and "a" keeps its own limit.
void tst_FleetLimits::fairnessBesideABacklog()
{
    constexpr int kSeconds = 15;
    constexpr qint64 kWindowMs = 5000;

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));

    QList<Endpoint> endpoints;
    for (int i = 0; i < 200; ++i)
        endpoints.append({QStringLiteral("slow-%1").arg(i, 3, 10, QLatin1Char('0')),
                          QStringLiteral("/ok?key=slow"), 0, QStringLiteral("slow"),
                          QStringLiteral("a")});
    for (int i = 0; i < 20; ++i)
        endpoints.append({QStringLiteral("other-%1").arg(i, 2, 10, QLatin1Char('0')),
                          QStringLiteral("/ok?key=other"), 0, QStringLiteral("other"),
                          QStringLiteral("b")});
    endpoints.append({QStringLiteral("monitor"), QStringLiteral("/ok?key=monitor"), 1, {}, {}});
    const QString configPath = dir.filePath(QStringLiteral("fairness.json"));
    QVERIFY(writeFile(configPath, workspace({requestPolicy(QStringLiteral("slow"), 10, 5, 2),
                                             requestPolicy(QStringLiteral("other"), 10, 5, 2)},
                                            endpoints, demo.baseUrl())));

    QElapsedTimer wall;
    wall.start();
    QList<WorkerRun> runs;
    runFleet(configPath, dir.filePath(QStringLiteral("fairness.db")), kSeconds, {0}, &runs);
    if (QTest::currentTestFailed())
        return;
    const qint64 elapsedMs = wall.elapsed();
    verifyCleanExits(runs);
    if (QTest::currentTestFailed())
        return;

    const DemoStats stats = demo.stats();
    const QList<qint64> slow = stats.arrivalsMsByKey.value(QStringLiteral("slow"));
    const QList<qint64> other = stats.arrivalsMsByKey.value(QStringLiteral("other"));
    const QList<qint64> monitor = stats.arrivalsMsByKey.value(QStringLiteral("monitor"));
    qint64 firstArrival = -1;
    for (const QList<qint64> &times : stats.arrivalsMsByKey) {
        for (qint64 t : times)
            firstArrival = firstArrival < 0 ? t : std::min(firstArrival, t);
    }
    const qint64 monitorDelayMs = monitor.isEmpty() ? -1 : monitor.first() - firstArrival;
    const Busiest busiestSlow = busiestWindow(slow, kWindowMs);
    const qint64 otherDoneMs = other.isEmpty() ? -1 : other.last() - firstArrival;

    qInfo().noquote() << QStringLiteral(
                             "fairnessBesideABacklog: slow %1 requests (busiest 5 s window %2, "
                             "bound 12), other %3 of 20 (last %4 ms after the first request), "
                             "monitor %5 (first %6 ms after the first request), %7 ms")
                             .arg(slow.size())
                             .arg(busiestSlow.count)
                             .arg(other.size())
                             .arg(otherDoneMs)
                             .arg(monitor.size())
                             .arg(monitorDelayMs)
                             .arg(elapsedMs);

    QVERIFY2(other.size() == 20,
             qPrintable(QStringLiteral("%1 of 20 'other' requests arrived; arrivals (ms): %2\n%3")
                            .arg(other.size())
                            .arg(listOf(other), tails(runs))));
    QVERIFY2(monitor.size() >= 12,
             qPrintable(QStringLiteral("'monitor' arrived %1 times in %2 s; arrivals (ms): %3\n%4")
                            .arg(monitor.size())
                            .arg(kSeconds)
                            .arg(listOf(monitor), tails(runs))));
    QVERIFY2(monitorDelayMs >= 0 && monitorDelayMs <= 1500,
             qPrintable(QStringLiteral("'monitor' first arrived %1 ms after the first request")
                            .arg(monitorDelayMs)));
    QVERIFY2(busiestSlow.count <= 12,
             qPrintable(QStringLiteral("%1 'slow' requests in the 5 s from %2 ms; arrivals "
                                       "(ms): %3")
                            .arg(busiestSlow.count)
                            .arg(busiestSlow.startMs)
                            .arg(listOf(slow))));
}

void tst_FleetLimits::periodicOncePerTickForTheFleet_data()
{
    addBackendRows();
}

// Three workers and one endpoint every second: one operation per tick, whichever
// worker wins it, not one per worker.
void tst_FleetLimits::periodicOncePerTickForTheFleet()
{
    QFETCH(QString, backend);
    constexpr int kSeconds = 7;

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString why;
    const QString db = emptyDatabase(backend, dir, &why);
    if (db.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));
    const QString configPath = dir.filePath(QStringLiteral("tick.json"));
    QVERIFY(writeFile(
        configPath,
        workspace({}, {{QStringLiteral("tick"), QStringLiteral("/ok?key=tick"), 1, {}, {}}},
                  demo.baseUrl())));

    QElapsedTimer wall;
    wall.start();
    QList<WorkerRun> runs;
    runFleet(configPath, db, kSeconds, {0, 0, 0}, &runs);
    if (QTest::currentTestFailed())
        return;
    const qint64 elapsedMs = wall.elapsed();
    verifyCleanExits(runs);
    if (QTest::currentTestFailed())
        return;

    const QList<qint64> arrivals = demo.stats().arrivalsMsByKey.value(QStringLiteral("tick"));
    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    QList<qint64> created;
    for (const OperationRecord &op : store->operations({})) {
        if (op.endpointId == QLatin1String("tick"))
            created.append(op.createdAtMs);
    }
    std::sort(created.begin(), created.end());
    QList<qint64> gaps;
    for (qsizetype i = 1; i < created.size(); ++i)
        gaps.append(created[i] - created[i - 1]);
    const qint64 closestMs = gaps.isEmpty() ? -1 : *std::min_element(gaps.begin(), gaps.end());

    qInfo().noquote() << QStringLiteral(
                             "periodicOncePerTickForTheFleet %1: %2 requests at the demo API "
                             "(from %3 to %4 ms), %5 operations in the store, closest two "
                             "created %6 ms apart, %7 ms")
                             .arg(QString::fromLatin1(QTest::currentDataTag()))
                             .arg(arrivals.size())
                             .arg(arrivals.isEmpty() ? 0 : arrivals.first())
                             .arg(arrivals.isEmpty() ? 0 : arrivals.last())
                             .arg(created.size())
                             .arg(closestMs)
                             .arg(elapsedMs);

    // One request per tick while the fleet ran: counted over the time between the
    // first and the last (the workers' --for start as each one has started), and
    // that time must be most of the run.
    const qint64 spanMs = arrivals.size() < 2 ? 0 : arrivals.last() - arrivals.first();
    const qint64 ticks = spanMs / 1000 + 1;
    QVERIFY2(spanMs >= (kSeconds - 3) * 1000 && arrivals.size() <= ticks + 1 &&
                 arrivals.size() >= ticks - 2,
             qPrintable(QStringLiteral("%1 requests over %2 ms (%3 ticks) in %4 s; arrivals "
                                       "(ms): %5\n%6")
                            .arg(arrivals.size())
                            .arg(spanMs)
                            .arg(ticks)
                            .arg(kSeconds)
                            .arg(listOf(arrivals), tails(runs))));
    // Two workers making an operation for one tick would do it milliseconds apart;
    // operations of consecutive ticks are a period apart, give or take how late each
    // worker looked (half a period is plenty of room for that).
    QVERIFY2(closestMs < 0 || closestMs >= 500,
             qPrintable(QStringLiteral("two operations of 'tick' created %1 ms apart; gaps "
                                       "(ms): %2\n%3")
                            .arg(closestMs)
                            .arg(listOf(gaps), tails(runs))));
}

void tst_FleetLimits::killedWorkerHoldingPermitsAndTokens_data()
{
    addBackendRows();
}

// Three workers share one partition (10 per 5 s, burst 2) and max_in_flight 4 over keyed
// POSTs that the demo API executes after 600 ms. The first worker seen holding running
// operations is killed (SIGKILL): their permits and the tokens it took are gone with it.
// The others go on, and once its leases (3 s) expire they rescue its operations;
// once every operation has ended the survivors are stopped. Every operation succeeds, each payload
// is executed exactly once at the demo API, and the server never sees more than limit + burst in
// any 5 s, the killed worker's requests included.
void tst_FleetLimits::killedWorkerHoldingPermitsAndTokens()
{
    QFETCH(QString, backend);
    constexpr int kLimit = 10;
    constexpr int kBurst = 2;
    constexpr qint64 kWindowMs = 5000;
    constexpr int kOperations = 24;
    // The workers' --for is only a bound: once every operation has ended the test
    // stops the survivors (SIGTERM, a clean stop), however long a busy machine took.
    constexpr int kSeconds = 120;

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString why;
    const QString db = emptyDatabase(backend, dir, &why);
    if (db.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
    DemoServer demo;
    QVERIFY2(demo.listen(0), qPrintable(demo.errorString()));

    QList<Endpoint> endpoints;
    for (int i = 0; i < kOperations; ++i)
        endpoints.append({QStringLiteral("upload-%1").arg(i, 2, 10, QLatin1Char('0')),
                          QStringLiteral("/uploads?delay_ms=600&key=shared"), 0,
                          QStringLiteral("p"), QStringLiteral("k1"), true});
    const QString configPath = dir.filePath(QStringLiteral("killed.json"));
    QVERIFY(writeFile(configPath, workspace({requestPolicy(QStringLiteral("p"), kLimit, 5, kBurst)},
                                            endpoints, demo.baseUrl())));

    QString error;
    qint64 heldWhenKilled = 0;
    QString killedId;
    QList<WorkerRun> runs;
    runFleet(configPath, db, kSeconds, {0, 0, 0}, &runs,
             {QStringLiteral("--lease"), QStringLiteral("3")}, [&](Fleet &fleet) {
                 // Watch the leases from a connection of this test's own; the demo API
                 // keeps answering meanwhile (QTRY turns the event loop). Which worker
                 // claims first is a race between processes, so the first one seen
                 // holding running operations is the one killed.
                 auto watcher = Store::open(db, &error);
                 QVERIFY2(watcher, qPrintable(error));
                 const auto firstHolder = [&] {
                     for (const WorkerLeases &w : watcher->workers()) {
                         if (w.running > 0) {
                             killedId = w.workerId;
                             return w.running;
                         }
                     }
                     return qint64(0);
                 };
                 const auto states = [&] {
                     QStringList lines;
                     for (const auto &p : fleet.processes)
                         lines.append(QStringLiteral("state %1 exit %2: %3")
                                          .arg(int(p->state()))
                                          .arg(p->exitCode())
                                          .arg(QString::fromUtf8(p->readAllStandardError())));
                     return QStringLiteral("no worker held running operations; error '%1'\n%2")
                         .arg(watcher->lastError(), lines.join(QLatin1Char('\n')));
                 };
                 QTRY_VERIFY2_WITH_TIMEOUT((heldWhenKilled = firstHolder()) > 0,
                                           qPrintable(states()), 15000);
                 const qsizetype workers = qsizetype(fleet.processes.size());
                 qsizetype index = 0;
                 while (index < workers && workerId(index) != killedId)
                     ++index;
                 QVERIFY2(index < workers, qPrintable(killedId));
                 QProcess &victim = *fleet.processes[size_t(index)];
                 victim.kill(); // SIGKILL: no clean-up of any kind
                 QVERIFY(victim.waitForFinished(5000));
                 // At the policy's pace the rest takes about 12 s, the rescue included.
                 const auto ended = [&] {
                     qint64 count = 0;
                     const QMap<OperationState, qint64> counts = watcher->countsByState();
                     for (auto it = counts.cbegin(); it != counts.cend(); ++it)
                         count += isFinal(it.key()) ? it.value() : 0;
                     return count;
                 };
                 QTRY_VERIFY2_WITH_TIMEOUT(
                     ended() == kOperations,
                     qPrintable(QStringLiteral("%1 of %2 operations ended; error '%3'")
                                    .arg(ended())
                                    .arg(kOperations)
                                    .arg(watcher->lastError())),
                     90000);
                 for (const auto &p : fleet.processes) {
                     if (p->state() != QProcess::NotRunning)
                         p->terminate();
                 }
             });
    if (QTest::currentTestFailed())
        return;
    const auto killedRun = std::find_if(runs.cbegin(), runs.cend(),
                                        [&](const WorkerRun &r) { return r.id == killedId; });
    QVERIFY(killedRun != runs.cend());
    QCOMPARE(killedRun->status, QProcess::CrashExit);
    verifyCleanExits(runs, {killedId});
    if (QTest::currentTestFailed())
        return;

    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    const DemoStats stats = demo.stats();
    qint64 rescued = 0;
    QStringList problems;
    for (const Endpoint &e : std::as_const(endpoints)) {
        const auto op = store->latestOperation(e.id);
        if (!op) {
            problems.append(QStringLiteral("%1: no operation").arg(e.id));
            continue;
        }
        if (op->state != OperationState::Succeeded)
            problems.append(QStringLiteral("%1: %2").arg(e.id, toString(op->state)));
        // Exactly once at the server, however many times it was sent.
        const qint64 executed = stats.executedByIdempotencyKey.value(op->idempotencyKey);
        if (executed != 1)
            problems.append(QStringLiteral("%1: executed %2 times").arg(e.id).arg(executed));
        AttemptFilter filter;
        filter.operationId = op->id;
        for (const AttemptRecord &a : store->attempts(filter))
            rescued += a.error == QLatin1String("worker_died") ? 1 : 0;
    }
    const QList<qint64> arrivals = stats.arrivalsMsByKey.value(QStringLiteral("shared"));
    const Busiest busiest = busiestWindow(arrivals, kWindowMs);
    qInfo().noquote() << QStringLiteral(
                             "killedWorker %1: %2 killed holding %3 running; %4 rescued; "
                             "%5 requests for %6 operations; busiest 5 s window %7 (bound %8)")
                             .arg(QString::fromLatin1(QTest::currentDataTag()), killedId)
                             .arg(heldWhenKilled)
                             .arg(rescued)
                             .arg(arrivals.size())
                             .arg(kOperations)
                             .arg(busiest.count)
                             .arg(kLimit + kBurst);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n')) + tails(runs)));
    // What the killed worker held came back through a rescue, not through luck.
    QVERIFY2(rescued >= 1, qPrintable(tails(runs)));
    QVERIFY2(busiest.count <= kLimit + kBurst,
             qPrintable(QStringLiteral("%1 requests in the 5 s from %2 ms; arrivals (ms): %3")
                            .arg(busiest.count)
                            .arg(busiest.startMs)
                            .arg(listOf(arrivals))));
}

QTEST_GUILESS_MAIN(tst_FleetLimits)
#include "tst_fleetlimits.moc"
