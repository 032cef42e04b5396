// SPDX-License-Identifier: Apache-2.0
// The SLA report (docs/report.md) over a long history, beside its reference in the same
// run:
//   report     buildSlaReport for 100 endpoints over 90 days, through a QueryStore, best
//              of 3, against the sqlite3 C API summing the same range's daily rollups
//              and latency histogram per endpoint (the least any report of the range
//              reads)
//
// The history: 10,000,000 attempts of 100 endpoints over 90 days (each endpoint runs
// every 78 s; 3 % of operations answer 429 first and succeed on their retry; 1 in 2,000
// times out; each endpoint has three outages of 1 to 4 hours). Recording ten million
// attempts through the store takes hours on this machine, so the attempts are simulated
// in memory and their rollups written straight through the C API: per minute, hour and
// day, the latency histograms and the throttled successes, as Store::finishAttempts would
// have written them (tst_slareport checks that the store writes exactly these sums).
//
//   bench_report [--smoke] [--attempts N] [--keep] [--db FILE (kept by --keep: no seeding)]

#include "bench/BenchSupport.h"
#include "core/query/QueryStore.h"
#include "core/query/SlaReport.h"
#include "core/store/LatencyBuckets.h"
#include "core/store/Store.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <map>
#include <tuple>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

constexpr qint64 kMinute = 60'000;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;
constexpr int kEndpoints = 100;
constexpr int kDays = 90;
constexpr qint64 kEveryMs = 78'000;

// One rollup key as the report reads it (policy, partition and wait source fixed).
using Key = std::tuple<std::string, std::string, std::string,
                       std::string>; // endpoint, status class, decision, reason

struct Sums
{
    qint64 attempts = 0;
    qint64 durationMs = 0;
};

std::string endpointName(int e)
{
    return "endpoint-" + std::to_string(1000 + e);
}

// Whether endpoint e is in one of its outages at t (ms from the start).
bool inOutage(int e, qint64 t)
{
    for (int k = 0; k < 3; ++k) {
        const qint64 start = ((e * 7 + k * 29) % 88) * kDay + ((e * 5 + k * 7) % 24) * kHour;
        const qint64 length = (1 + (e + k) % 4) * kHour;
        if (t >= start && t < start + length)
            return true;
    }
    return false;
}

class RollupWriter
{
public:
    explicit RollupWriter(CApiDatabase &db)
        : m_minute(db.handle(),
                   "INSERT INTO attempt_rollups (minute_at, endpoint_id, policy_id, partition_key,"
                   " status_class, decision, wait_source, reason, attempts, wait_ms, queue_ms,"
                   " duration_ms) VALUES (?, ?, '', '', ?, ?, ?, ?, ?, ?, 0, ?)"),
          m_hour(db.handle(),
                 "INSERT INTO attempt_rollups_hourly (hour_at, endpoint_id, policy_id,"
                 " partition_key, status_class, decision, wait_source, reason, attempts, wait_ms,"
                 " queue_ms, duration_ms) VALUES (?, ?, '', '', ?, ?, ?, ?, ?, ?, 0, ?)"),
          m_latency(db.handle(), "INSERT INTO attempt_latency_rollups (hour_at, endpoint_id,"
                                 " bucket, attempts) VALUES (?, ?, ?, ?)"),
          m_throttled(db.handle(), "INSERT INTO throttled_successes (minute_at, endpoint_id,"
                                   " operations) VALUES (?, ?, ?)"),
          m_throttledHourly(db.handle(), "INSERT INTO throttled_successes_hourly (hour_at,"
                                         " endpoint_id, operations) VALUES (?, ?, ?)"),
          m_day(db.handle(), "INSERT INTO attempt_rollups_daily (day_at, endpoint_id, status_class,"
                             " decision, reason, attempts) VALUES (?, ?, ?, ?, ?, ?)"),
          m_latencyDaily(db.handle(), "INSERT INTO attempt_latency_rollups_daily (day_at,"
                                      " endpoint_id, bucket, attempts) VALUES (?, ?, ?, ?)"),
          m_throttledDaily(db.handle(), "INSERT INTO throttled_successes_daily (day_at,"
                                        " endpoint_id, operations) VALUES (?, ?, ?)")
    {}

    void attempt(int e, const std::string &statusClass, const std::string &decision,
                 const std::string &reason, qint64 durationMs, bool answered)
    {
        const Key key{endpointName(e), statusClass, decision, reason};
        for (auto *rows : {&m_minuteRows, &m_hourRows, &m_dayRows}) {
            Sums &s = (*rows)[key];
            ++s.attempts;
            s.durationMs += durationMs;
        }
        if (answered) {
            ++m_latencyRows[{endpointName(e), latency::bucketOf(durationMs)}];
            ++m_latencyDayRows[{endpointName(e), latency::bucketOf(durationMs)}];
        }
        ++m_attempts;
    }
    void throttledSuccess(int e)
    {
        ++m_throttledMinute[endpointName(e)];
        ++m_throttledHour[endpointName(e)];
        ++m_throttledDay[endpointName(e)];
    }
    void endMinute(qint64 minuteAt)
    {
        write(m_minute, minuteAt, m_minuteRows);
        writeCounts(m_throttled, minuteAt, m_throttledMinute);
    }
    void endHour(qint64 hourAt)
    {
        write(m_hour, hourAt, m_hourRows);
        writeCounts(m_throttledHourly, hourAt, m_throttledHour);
        writeLatency(m_latency, hourAt, m_latencyRows);
    }
    void endDay(qint64 dayAt)
    {
        for (const auto &[key, sums] : m_dayRows) {
            const auto &[endpoint, status, decision, reason] = key;
            m_day.bind(1, dayAt);
            m_day.bind(2, endpoint);
            m_day.bind(3, status);
            m_day.bind(4, decision);
            m_day.bind(5, reason);
            m_day.bind(6, sums.attempts);
            m_day.step();
            m_day.reset();
        }
        m_dayRows.clear();
        writeLatency(m_latencyDaily, dayAt, m_latencyDayRows);
        writeCounts(m_throttledDaily, dayAt, m_throttledDay);
    }
    qint64 attempts() const { return m_attempts; }

private:
    static void write(Statement &insert, qint64 at, std::map<Key, Sums> &rows)
    {
        for (const auto &[key, sums] : rows) {
            const auto &[endpoint, status, decision, reason] = key;
            insert.bind(1, at);
            insert.bind(2, endpoint);
            insert.bind(3, status);
            insert.bind(4, decision);
            insert.bind(5, std::string(decision == "retry" ? "retry-after" : ""));
            insert.bind(6, reason);
            insert.bind(7, sums.attempts);
            insert.bind(8, decision == "retry" ? sums.attempts * 1000 : 0);
            insert.bind(9, sums.durationMs);
            insert.step();
            insert.reset();
        }
        rows.clear();
    }
    static void writeLatency(Statement &insert, qint64 at,
                             std::map<std::pair<std::string, int>, qint64> &rows)
    {
        for (const auto &[key, count] : rows) {
            insert.bind(1, at);
            insert.bind(2, key.first);
            insert.bind(3, qint64(key.second));
            insert.bind(4, count);
            insert.step();
            insert.reset();
        }
        rows.clear();
    }
    static void writeCounts(Statement &insert, qint64 at, std::map<std::string, qint64> &rows)
    {
        for (const auto &[endpoint, count] : rows) {
            insert.bind(1, at);
            insert.bind(2, endpoint);
            insert.bind(3, count);
            insert.step();
            insert.reset();
        }
        rows.clear();
    }

    Statement m_minute;
    Statement m_hour;
    Statement m_latency;
    Statement m_throttled;
    Statement m_throttledHourly;
    Statement m_day;
    Statement m_latencyDaily;
    Statement m_throttledDaily;
    std::map<Key, Sums> m_dayRows;
    std::map<std::pair<std::string, int>, qint64> m_latencyDayRows;
    std::map<std::string, qint64> m_throttledDay;
    std::map<Key, Sums> m_minuteRows;
    std::map<Key, Sums> m_hourRows;
    std::map<std::pair<std::string, int>, qint64> m_latencyRows;
    std::map<std::string, qint64> m_throttledMinute;
    std::map<std::string, qint64> m_throttledHour;
    qint64 m_attempts = 0;
};

// The operations of endpoint e that start in the minute at t (ms from the start).
void simulateMinute(RollupWriter &out, int e, qint64 t, qint64 everyMs)
{
    const qint64 phase = (e * 7919) % everyMs;
    qint64 first = t - phase <= 0 ? phase : phase + ((t - phase + everyMs - 1) / everyMs) * everyMs;
    for (qint64 at = first; at < t + kMinute; at += everyMs) {
        const qint64 n = at / everyMs + e * 100003;
        const qint64 d = 30 + (n * 7919) % 400 + (n % 100 == 7 ? 3000 : 0);
        if (inOutage(e, at)) {
            out.attempt(e, "5xx", "fail", "http_500", d, true);
        } else if (n % 2000 == 11) {
            out.attempt(e, "none", "fail", "timeout", 10'000, false);
        } else if (n % 33 == 5) {
            out.attempt(e, "429", "retry", "", d / 4, true);
            out.attempt(e, "2xx", "success", "", d, true);
            out.throttledSuccess(e);
        } else {
            out.attempt(e, "2xx", "success", "", d, true);
        }
    }
}

// Seeds the rollups of about `attempts` attempts over 90 days ending at endMs.
qint64 seed(const QString &path, qint64 startMs, qint64 attempts)
{
    openStore(path);
    CApiDatabase db(path);
    db.useStoreSettings();
    // ~1.03 attempts per operation: the interval that makes `attempts` in 90 days.
    const qint64 everyMs =
        std::max<qint64>(1000, qint64(double(kDays) * kDay * kEndpoints * 1.03 / double(attempts)));
    RollupWriter out(db);
    db.exec("BEGIN");
    for (qint64 t = 0; t < kDays * kDay; t += kMinute) {
        for (int e = 0; e < kEndpoints; ++e)
            simulateMinute(out, e, t, everyMs);
        out.endMinute(startMs + t);
        if ((t + kMinute) % kHour == 0)
            out.endHour(startMs + t + kMinute - kHour);
        if ((t + kMinute) % kDay == 0)
            out.endDay(startMs + t + kMinute - kDay);
    }
    db.exec("COMMIT");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return out.attempts();
}

// The reference: the daily sums and histogram of the range per endpoint, C API.
double referenceMs(const QString &path, qint64 fromMs, qint64 toMs, qint64 *total)
{
    CApiDatabase db(path);
    QElapsedTimer timer;
    timer.start();
    Statement sums(db.handle(),
                   "SELECT endpoint_id, decision, SUM(attempts) FROM attempt_rollups_daily"
                   " WHERE day_at >= ? AND day_at < ? GROUP BY endpoint_id, decision");
    sums.bind(1, fromMs);
    sums.bind(2, toMs);
    *total = 0;
    while (sums.step() == SQLITE_ROW)
        *total += sums.int64(2);
    Statement histogram(
        db.handle(), "SELECT endpoint_id, bucket, SUM(attempts) FROM attempt_latency_rollups_daily"
                     " WHERE day_at >= ? AND day_at < ? GROUP BY endpoint_id, bucket");
    histogram.bind(1, fromMs);
    histogram.bind(2, toMs);
    while (histogram.step() == SQLITE_ROW) {
    }
    return double(timer.nsecsElapsed()) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const qint64 attempts = option(args, QStringLiteral("--attempts"),
                                   g_smoke ? QStringLiteral("200000") : QStringLiteral("10000000"))
                                .toLongLong();
    QTemporaryDir dir;
    dir.setAutoRemove(!args.contains(QStringLiteral("--keep")));
    // --db: a database an earlier run seeded and kept (--keep), to time the report alone.
    const QString kept = option(args, QStringLiteral("--db"), QString());
    const QString path = kept.isEmpty() ? dir.filePath(QStringLiteral("report.db")) : kept;
    const qint64 startMs = 1'790'000'000'000 - 1'790'000'000'000 % kDay;
    const qint64 endMs = startMs + kDays * kDay;
    QElapsedTimer seeding;
    seeding.start();
    const qint64 seeded = kept.isEmpty() ? seed(path, startMs, attempts) : attempts;
    note(QStringLiteral("seeded the rollups of %1 attempts (%2 endpoints, %3 days) in %4 s")
             .arg(seeded)
             .arg(kEndpoints)
             .arg(kDays)
             .arg(number(seconds(seeding), 1)));

    double best = 1e18;
    double bestReference = 1e18;
    qint64 counted = 0;
    for (int run = 0; run < 3; ++run) {
        qint64 referenceTotal = 0;
        bestReference = std::min(bestReference, referenceMs(path, startMs, endMs, &referenceTotal));
        QueryStore store(path, QueryStore::IfMissing::Refuse);
        if (!store.ensureOpen([](const QString &why) { die(why); }))
            die(QStringLiteral("cannot open %1").arg(path));
        SlaRequest request;
        request.fromMs = startMs;
        request.toMs = endMs;
        QElapsedTimer timer;
        timer.start();
        QString error;
        const std::optional<SlaReport> report = buildSlaReport(store, request, &error);
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        if (!report)
            die(error);
        best = std::min(best, ms);
        qint64 total = 0;
        for (const SlaEndpointReport &e : report->endpoints)
            total += e.attempts;
        if (total != referenceTotal)
            die(QStringLiteral("the report counted %1 attempts, the daily rollups hold %2")
                    .arg(total)
                    .arg(referenceTotal));
        counted = report->endpoints.size();
        note(QStringLiteral("run %1: report %2 ms, reference %3 ms, %4 endpoints")
                 .arg(run + 1)
                 .arg(number(ms, 1), number(bestReference, 1))
                 .arg(counted));
    }
    report(QStringLiteral("SLA report: %1 endpoints, %2 days, rollups of %3 attempts")
               .arg(counted)
               .arg(kDays)
               .arg(seeded),
           QStringLiteral("C API summing the range's daily rollups and histogram: %1 ms")
               .arg(number(bestReference, 1)),
           QStringLiteral("%1 ms").arg(number(best, 1)), ratioText(best / bestReference),
           QStringLiteral("< 500 ms"), best < 500);
    return g_failures == 0 ? 0 : 1;
}
