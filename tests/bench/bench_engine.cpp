// The engine's benchmarks against a local HTTP server that answers 200 (nginx, from
// scripts/bench; an in-process server in smoke mode), each beside its reference:
//   throughput  Scheduler + Transport + Store recording every attempt, against a bare
//               QNetworkAccessManager loop with the same concurrency (6 per host)
//   lateness    10,000 operations waiting until times spread over a few seconds: how
//               long after its not_before each attempt starts, on the real clock
//   memory      resident memory while the engine runs 1,000,000 attempts in batches of 20,000
//               (stopped after --memory-seconds, 900 by default): growth per attempt after a warm-up
//
//   bench_engine [--smoke] [--url URL] [--only throughput|lateness|memory]
//                [--count N] [--lateness-count N] [--spread-ms MS] [--memory-seconds S]
//                [--max-seconds S] [--analyze]

#include "bench/BenchHttpServer.h"
#include "bench/BenchSupport.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QEventLoop>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cmath>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

constexpr int kConcurrency = 6;

// One engine on its own database: the config names one endpoint at url, with the
// same concurrency as the bare loop.
class Engine
{
public:
    Engine(const QString &dbPath, const QUrl &url)
    {
        const QByteArray json =
            QStringLiteral(R"({"version": 1, "concurrency": {"max_in_flight": %1, "per_host": %1},)"
                           R"( "endpoints": [{"id": "bench", "url": "%2", "timeout_seconds": 30}]})")
                .arg(kConcurrency)
                .arg(url.toString())
                .toUtf8();
        QString error;
        auto config = WorkspaceConfig::parse(json, QStringLiteral("bench.json"), &error, {},
                                             QHash<QString, QString>{});
        if (!config)
            die(error);
        store = Store::open(dbPath, &error);
        if (!store)
            die(error);
        transport = std::make_unique<Transport>(SystemClock::instance());
        SchedulerOptions options;
        options.workerId = QStringLiteral("bench-worker");
        scheduler = std::make_unique<Scheduler>(std::move(*config), *store, *transport,
                                                SystemClock::instance(), SystemRandom::instance(),
                                                timer, options);
        QObject::connect(scheduler.get(), &Scheduler::storeFailed, [](const QString &message) {
            die(QStringLiteral("store failed: %1").arg(message));
        });
    }

    // Starts (or wakes), and returns once nothing is scheduled, running or waiting:
    // true. After maxSeconds the engine is stopped instead (exchanges in flight finish
    // and are recorded) and this returns false; it cannot be woken again.
    bool runUntilIdle(double maxSeconds)
    {
        QEventLoop loop;
        bool idle = false;
        const QMetaObject::Connection onIdle = QObject::connect(
            scheduler.get(), &Scheduler::idle, &loop,
            [&] {
                idle = true;
                loop.quit();
            },
            Qt::QueuedConnection);
        const QMetaObject::Connection onStopped = QObject::connect(
            scheduler.get(), &Scheduler::stopped, &loop, &QEventLoop::quit, Qt::QueuedConnection);
        QTimer deadline;
        deadline.setSingleShot(true);
        QObject::connect(&deadline, &QTimer::timeout, scheduler.get(), [this] { scheduler->stop(); });
        deadline.start(int(maxSeconds * 1000));
        QString error;
        if (!started) {
            if (!scheduler->start(&error))
                die(error);
            started = true;
        } else {
            scheduler->wake();
        }
        loop.exec();
        QObject::disconnect(onIdle);
        QObject::disconnect(onStopped);
        return idle;
    }

    std::unique_ptr<Store> store;
    std::unique_ptr<Transport> transport;
    QtWakeTimer timer;
    std::unique_ptr<Scheduler> scheduler;
    bool started = false;
};

// A database with the schema and `count` operations of endpoint "bench".
QString prepareDatabase(const QTemporaryDir &dir, const QString &name)
{
    const QString path = dir.filePath(name);
    QString error;
    std::unique_ptr<Store> store = Store::open(path, &error);
    if (!store)
        die(error);
    return path;
}

bool g_analyze = false;

void seedDue(const QString &path, qint64 count)
{
    Database db(path);
    OperationSeed seed;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    seed.createdAtMs = now - 1000;
    seed.nextAttemptAtMs = [now](qint64) { return now - 1000; };
    seedOperations(db, count, seed);
    if (g_analyze)
        db.exec("ANALYZE");
}

// N GETs, kConcurrency at a time, nothing else: what QNAM alone can do.
double bareLoopSeconds(const QUrl &url, qint64 count)
{
    QNetworkAccessManager manager;
    QEventLoop loop;
    qint64 started = 0;
    qint64 finished = 0;
    qint64 failed = 0;
    std::function<void()> startOne = [&] {
        ++started;
        QNetworkRequest request(url);
        QNetworkReply *reply = manager.get(request);
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&, reply] {
            if (reply->error() != QNetworkReply::NoError)
                ++failed;
            reply->readAll();
            reply->deleteLater();
            if (++finished == count)
                loop.quit();
            else if (started < count)
                startOne();
        });
    };
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < kConcurrency && started < count; ++i)
        startOne();
    loop.exec();
    const double s = seconds(timer);
    if (failed > 0)
        die(QStringLiteral("the bare loop saw %1 failed requests").arg(failed));
    return s;
}

void benchThroughput(const QTemporaryDir &dir, const QUrl &url, qint64 count, double maxSeconds)
{
    bareLoopSeconds(url, std::min<qint64>(count, 1000)); // warm-up: connections, caches
    const double bare = bareLoopSeconds(url, count);

    const QString path = prepareDatabase(dir, QStringLiteral("throughput.db"));
    seedDue(path, count - 1); // the run-once endpoint adds the last one itself
    Engine engine(path, url);
    QElapsedTimer timer;
    timer.start();
    const bool finished = engine.runUntilIdle(maxSeconds);
    const double engineSeconds = seconds(timer);
    const auto counts = engine.store->countsByState();
    const qint64 attempts = engine.store->countAttempts({});
    if (counts.value(OperationState::Succeeded) != attempts || (finished && attempts != count))
        die(QStringLiteral("the engine ended with %1 succeeded and %2 attempts of %3")
                .arg(counts.value(OperationState::Succeeded))
                .arg(attempts)
                .arg(count));
    if (!finished)
        note(QStringLiteral("the engine was stopped after %1 s with %2 of %3 operations done")
                 .arg(number(engineSeconds, 1))
                 .arg(attempts)
                 .arg(count));
    const double bareRate = double(count) / bare;
    const double engineRate = double(attempts) / engineSeconds;
    report(QStringLiteral("engine throughput, recording on (%1 due, 6 per host)").arg(count),
           QStringLiteral("bare QNAM loop: %1").arg(perSecond(bareRate)), perSecond(engineRate),
           ratioText(engineRate / bareRate), QStringLiteral(">= 0.80x"), engineRate / bareRate >= 0.8);
}

void benchLateness(const QTemporaryDir &dir, const QUrl &url, qint64 count, qint64 spreadMs,
                   double graceSeconds, bool target)
{
    const QString path = prepareDatabase(dir, QStringLiteral("lateness-%1.db").arg(count));
    // Operations that a server told to come back later: waiting, due at times spread
    // evenly over spreadMs, the first a little after the engine has started.
    const qint64 leadMs = 1500;
    const qint64 base = QDateTime::currentMSecsSinceEpoch() + leadMs;
    auto notBefore = [base, count, spreadMs](qint64 i) { return base + i * spreadMs / count; };
    qint64 firstId = 0;
    {
        Database db(path);
        OperationSeed seed;
        seed.state = QStringLiteral("waiting");
        seed.attempt = 1;
        seed.createdAtMs = base - leadMs;
        seed.nextAttemptAtMs = notBefore;
        firstId = seedOperations(db, count, seed);
    }
    Engine engine(path, url);
    const bool finished = engine.runUntilIdle(double(leadMs + spreadMs) / 1000.0 + graceSeconds);
    const qint64 endMs = QDateTime::currentMSecsSinceEpoch();

    std::vector<qint64> lateness;
    std::vector<bool> startedOp(size_t(count), false);
    qint64 early = 0;
    {
        Database db(path);
        Statement select(db.handle(), "SELECT operation_id, started_at FROM attempts"
                                      " WHERE operation_id BETWEEN ? AND ?");
        select.bind(1, firstId);
        select.bind(2, firstId + count - 1);
        while (select.step() == SQLITE_ROW) {
            const qint64 index = select.int64(0) - firstId;
            if (startedOp[size_t(index)])
                die(QStringLiteral("operation %1 started twice").arg(select.int64(0)));
            startedOp[size_t(index)] = true;
            const qint64 late = select.int64(1) - notBefore(index);
            early += late < 0 ? 1 : 0;
            lateness.push_back(late);
        }
    }
    // Operations still waiting when the engine was stopped are at least this late.
    const qint64 unstarted = count - qint64(lateness.size());
    for (qint64 i = 0; i < count; ++i) {
        if (!startedOp[size_t(i)])
            lateness.push_back(endMs - notBefore(i));
    }
    if (finished != (unstarted == 0))
        die(QStringLiteral("%1 operations never started, yet the engine went idle").arg(unstarted));
    std::sort(lateness.begin(), lateness.end());
    auto percentile = [&](double p) {
        return lateness[std::min(lateness.size() - 1, size_t(std::ceil(p * double(lateness.size())) - 1))];
    };
    note(QStringLiteral("lateness over %1 operations due within %2 ms (%3/s): p50 %4 ms, p90 %5 ms,"
                        " p99 %6 ms, max %7 ms, min %8 ms, early %9")
             .arg(count)
             .arg(spreadMs)
             .arg(number(double(count) * 1000.0 / double(spreadMs)))
             .arg(percentile(0.5))
             .arg(percentile(0.9))
             .arg(percentile(0.99))
             .arg(lateness.back())
             .arg(lateness.front())
             .arg(early));
    if (unstarted > 0)
        note(QStringLiteral("%1 operations had not started when the engine was stopped %2 s after"
                            " the last not_before; they count as late until then")
                 .arg(unstarted)
                 .arg(number(graceSeconds, 0)));
    const QString p99 = (unstarted > 0 ? QStringLiteral(">= ") : QString()) +
                        QStringLiteral("%1 ms").arg(percentile(0.99));
    report(QStringLiteral("lateness: start after not_before, p99 (%1 ops over %2 s)")
               .arg(count)
               .arg(number(double(spreadMs) / 1000.0, 1)),
           QStringLiteral("not_before (0 ms late)"), p99, QStringLiteral("-"),
           target ? QStringLiteral("< 50 ms") : QStringLiteral("(info)"),
           !target || percentile(0.99) < 50);
    report(QStringLiteral("lateness: attempts started before not_before (%1 ops)").arg(count),
           QStringLiteral("0"), QString::number(early), QStringLiteral("-"), QStringLiteral("0"),
           early == 0);
    // Load can only make attempts late; an early one is a bug at any size.
    if (g_smoke && early > 0)
        die(QStringLiteral("%1 attempts started before their not_before").arg(early));
}

void benchMemory(const QTemporaryDir &dir, const QUrl &url, qint64 batch, qint64 maxAttempts,
                 double budgetSeconds)
{
    const QString path = prepareDatabase(dir, QStringLiteral("memory.db"));
    seedDue(path, batch - 1);
    Engine engine(path, url);
    Database seeder(path);

    struct Sample
    {
        qint64 attempts;
        qint64 rss;
    };
    std::vector<Sample> samples;
    qint64 attempts = 0;
    QElapsedTimer timer;
    timer.start();
    while (true) {
        if (!engine.runUntilIdle(budgetSeconds + 60))
            die(QStringLiteral("a batch of %1 did not finish in %2 s").arg(batch).arg(budgetSeconds + 60));
        attempts += batch;
        samples.push_back({attempts, procStatusBytes("VmRSS")});
        if (attempts + batch > maxAttempts || seconds(timer) > budgetSeconds)
            break;
        OperationSeed seed;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        seed.createdAtMs = now;
        seed.nextAttemptAtMs = [now](qint64) { return now; };
        seedOperations(seeder, batch, seed);
    }
    const double elapsed = seconds(timer);
    if (engine.store->countAttempts({}) != attempts)
        die(QStringLiteral("%1 attempts recorded, expected %2").arg(engine.store->countAttempts({})).arg(attempts));
    // The first batches warm up connections, caches and allocator pools. After them,
    // the least-squares slope of RSS over attempts: RSS moves in 4 KB pages, so the
    // difference of two samples alone would mistake a page or two for growth.
    const size_t warm = std::min<size_t>(2, samples.size() - 1);
    const Sample &from = samples[warm];
    const Sample &to = samples.back();
    double meanX = 0, meanY = 0;
    const double n = double(samples.size() - warm);
    for (size_t i = warm; i < samples.size(); ++i) {
        meanX += double(samples[i].attempts) / n;
        meanY += double(samples[i].rss) / n;
    }
    double sxy = 0, sxx = 0;
    qint64 low = from.rss, high = from.rss;
    for (size_t i = warm; i < samples.size(); ++i) {
        sxy += (double(samples[i].attempts) - meanX) * (double(samples[i].rss) - meanY);
        sxx += (double(samples[i].attempts) - meanX) * (double(samples[i].attempts) - meanX);
        low = std::min(low, samples[i].rss);
        high = std::max(high, samples[i].rss);
    }
    const double perAttempt = sxx > 0 ? sxy / sxx : 0;
    QStringList trace;
    for (const Sample &s : samples)
        trace.append(QStringLiteral("%1: %2").arg(s.attempts).arg(megabytes(s.rss)));
    note(QStringLiteral("RSS after each batch of %1: %2").arg(batch).arg(trace.join(QStringLiteral(", "))));
    note(QStringLiteral("%1 attempts in %2 s (%3); peak RSS %4")
             .arg(attempts)
             .arg(number(elapsed, 0), perSecond(double(attempts) / elapsed),
                  megabytes(procStatusBytes("VmHWM"))));
    report(QStringLiteral("memory over %1 attempts: RSS slope after %2").arg(attempts).arg(from.attempts),
           QStringLiteral("RSS at %1: %2").arg(from.attempts).arg(megabytes(from.rss)),
           QStringLiteral("%1 B/attempt (RSS %2..%3 to %4)")
               .arg(number(perAttempt, 2), megabytes(low), megabytes(high))
               .arg(to.attempts),
           QStringLiteral("-"), QStringLiteral("<= 1 B/attempt over %1").arg(maxAttempts),
           perAttempt <= 1.0 && (g_smoke || attempts >= maxAttempts));
}

QString option(const QStringList &args, const QString &name, const QString &fallback)
{
    const qsizetype at = args.indexOf(name);
    return at >= 0 && at + 1 < args.size() ? args.at(at + 1) : fallback;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // The engine's own per-attempt logging is not what is measured.
    QLoggingCategory::setFilterRules(QStringLiteral("cooldown.*.info=false"));
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    g_analyze = args.contains(QStringLiteral("--analyze"));
    const QString which = option(args, QStringLiteral("--only"), QString());
    const qint64 count = option(args, QStringLiteral("--count"), g_smoke ? QStringLiteral("300") : QStringLiteral("20000")).toLongLong();
    const qint64 latenessCount =
        option(args, QStringLiteral("--lateness-count"), g_smoke ? QStringLiteral("200") : QStringLiteral("10000")).toLongLong();
    const qint64 spreadMs =
        option(args, QStringLiteral("--spread-ms"), g_smoke ? QStringLiteral("500") : QStringLiteral("20000")).toLongLong();
    const double memorySeconds =
        option(args, QStringLiteral("--memory-seconds"), g_smoke ? QStringLiteral("1") : QStringLiteral("900")).toDouble();
    // However slow the engine, each benchmark ends: the engine is stopped after this.
    const double capSeconds =
        option(args, QStringLiteral("--max-seconds"), g_smoke ? QStringLiteral("20") : QStringLiteral("60")).toDouble();

    std::unique_ptr<BenchHttpServer> local;
    QUrl url(option(args, QStringLiteral("--url"), QString()));
    if (url.isEmpty()) {
        local = std::make_unique<BenchHttpServer>();
        url = QUrl(local->url());
        note(QStringLiteral("no --url: an in-process server at %1 (figures not representative)").arg(url.toString()));
    }
    if (!url.isValid() || count < 2 || latenessCount < 1 || spreadMs < 1)
        die(QStringLiteral("bad arguments"));
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary folder"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));
    if (which.isEmpty() || which == QLatin1String("throughput"))
        benchThroughput(dir, url, count, capSeconds);
    if (which.isEmpty() || which == QLatin1String("lateness")) {
        benchLateness(dir, url, latenessCount, spreadMs, capSeconds, true);
        // The same at a tenth of the rate: the timer's own precision, without queueing.
        if (!g_smoke)
            benchLateness(dir, url, latenessCount / 10, spreadMs, capSeconds, false);
    }
    if (which.isEmpty() || which == QLatin1String("memory"))
        benchMemory(dir, url, g_smoke ? 100 : 20000, 1000000, memorySeconds);
    return g_failures > 0 ? 1 : 0;
}
