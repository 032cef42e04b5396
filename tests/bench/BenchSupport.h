// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every benchmark shares: the one result line that scripts/bench turns into its
// table, a thin RAII layer over the sqlite3 C API (the reference of the store
// benchmarks, and the fast way to seed big databases), memory readings from /proc,
// and child processes timed with their own peak memory.

#include "core/store/Records.h"
#include "core/store/Store.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QString>
#include <QStringList>

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <optional>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace cooldown::bench {

// One row of the scripts/bench table, as a line it greps for:
//   BENCH|benchmark|reference|measured|ratio|target|PASS or FAIL
// In smoke mode the line says SMOKE instead: the sizes are too small to mean anything.
inline bool g_smoke = false;
inline int g_failures = 0;

inline void report(const QString &benchmark, const QString &reference, const QString &measured,
                   const QString &ratio, const QString &target, bool pass)
{
    const char *verdict = g_smoke ? "SMOKE" : pass ? "PASS" : "FAIL";
    if (!g_smoke && !pass)
        ++g_failures;
    std::printf("BENCH|%s|%s|%s|%s|%s|%s\n", qPrintable(benchmark), qPrintable(reference),
                qPrintable(measured), qPrintable(ratio), qPrintable(target), verdict);
    std::fflush(stdout);
}

// The value after `name` in the arguments, or fallback.
inline QString option(const QStringList &args, const QString &name, const QString &fallback)
{
    const qsizetype at = args.indexOf(name);
    return at >= 0 && at + 1 < args.size() ? args.at(at + 1) : fallback;
}

// A claimed operation as its first attempt, a success, leaves it.
inline OperationRecord succeeded(const OperationRecord &claimed, const AttemptRecord &a)
{
    OperationRecord next = claimed;
    next.state = OperationState::Succeeded;
    next.attempt = 1;
    next.firstAttemptAtMs = a.startedAtMs;
    next.nextAttemptAtMs = -1;
    next.lastStatus = 200;
    next.waitSource = a.waitSource;
    return next;
}

inline void note(const QString &text)
{
    std::printf("  %s\n", qPrintable(text));
    std::fflush(stdout);
}

[[noreturn]] inline void die(const QString &text)
{
    std::fprintf(stderr, "bench: %s\n", qPrintable(text));
    std::exit(1);
}

// Opens the store at location (a SQLite file, created with its schema if new, or a
// PostgreSQL URL), or ends the benchmark saying why it could not.
inline std::unique_ptr<Store> openStore(const QString &location, const StoreOptions &options = {})
{
    QString error;
    std::unique_ptr<Store> store = Store::open(location, &error, options);
    if (!store)
        die(QStringLiteral("cannot open the store: %1").arg(error));
    return store;
}

// openStore() with the endpoint "bench" in it, made at nowMs: the endpoint every seeded
// operation of the benchmarks belongs to.
inline std::unique_ptr<Store> openBenchStore(const QString &location, qint64 nowMs,
                                             const StoreOptions &options = {})
{
    std::unique_ptr<Store> store = openStore(location, options);
    if (!store->upsertEndpoint(QStringLiteral("bench"), QStringLiteral("bench"), nowMs))
        die(QStringLiteral("cannot add the endpoint to the store: %1").arg(store->lastError()));
    return store;
}

inline QString number(double value, int decimals = 0)
{
    return QString::number(value, 'f', decimals);
}

inline QString perSecond(double value)
{
    return number(value) + QStringLiteral("/s");
}

inline QString ratioText(double ratio)
{
    return number(ratio, 2) + QStringLiteral("x");
}

inline double seconds(const QElapsedTimer &timer)
{
    return double(timer.nsecsElapsed()) / 1e9;
}

// A field of /proc/self/status in bytes (VmRSS: now, VmHWM: the peak so far).
inline qint64 procStatusBytes(const char *field)
{
    FILE *f = std::fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    qint64 kb = -1;
    const size_t length = std::strlen(field);
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, field, length) == 0 && line[length] == ':') {
            kb = std::atoll(line + length + 1);
            break;
        }
    }
    std::fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

// ---------------------------------------------------------------------------------------
// sqlite3 C API

class Statement
{
public:
    Statement(sqlite3 *db, const char *sql) : m_db(db)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &m_statement, nullptr) != SQLITE_OK)
            die(QStringLiteral("prepare failed: %1: %2")
                    .arg(QString::fromUtf8(sqlite3_errmsg(db)), QString::fromUtf8(sql)));
    }
    ~Statement() { sqlite3_finalize(m_statement); }
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    void bind(int index, qint64 value) { check(sqlite3_bind_int64(m_statement, index, value)); }
    // SQLite copies the text.
    void bind(int index, const std::string &value)
    {
        check(sqlite3_bind_text(m_statement, index, value.data(), int(value.size()),
                                SQLITE_TRANSIENT));
    }
    // The text must outlive step(): the reference binds without copying, as a program
    // tuned for speed would.
    void bindStatic(int index, const std::string &value)
    {
        check(
            sqlite3_bind_text(m_statement, index, value.data(), int(value.size()), SQLITE_STATIC));
    }
    // SQLITE_ROW: a row is there; SQLITE_DONE: finished. Anything else ends the run.
    int step()
    {
        const int rc = sqlite3_step(m_statement);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            die(QStringLiteral("step failed: %1").arg(QString::fromUtf8(sqlite3_errmsg(m_db))));
        return rc;
    }
    void reset()
    {
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }
    qint64 int64(int column) const { return sqlite3_column_int64(m_statement, column); }
    sqlite3_stmt *handle() const { return m_statement; }

private:
    void check(int rc)
    {
        if (rc != SQLITE_OK)
            die(QStringLiteral("bind failed: %1").arg(QString::fromUtf8(sqlite3_errmsg(m_db))));
    }

    sqlite3 *m_db = nullptr;
    sqlite3_stmt *m_statement = nullptr;
};

// The sqlite3 C API on a database file: the reference the store is measured against.
class CApiDatabase
{
public:
    explicit CApiDatabase(const QString &path)
    {
        if (sqlite3_open_v2(path.toUtf8().constData(), &m_db, SQLITE_OPEN_READWRITE, nullptr) !=
            SQLITE_OK)
            die(QStringLiteral("cannot open %1: %2")
                    .arg(path, QString::fromUtf8(sqlite3_errmsg(m_db))));
        sqlite3_busy_timeout(m_db, 5000);
    }
    ~CApiDatabase() { sqlite3_close(m_db); }
    CApiDatabase(const CApiDatabase &) = delete;
    CApiDatabase &operator=(const CApiDatabase &) = delete;

    sqlite3 *handle() const { return m_db; }
    void exec(const char *sql)
    {
        char *message = nullptr;
        if (sqlite3_exec(m_db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
            const QString text = QString::fromUtf8(message ? message : "?");
            sqlite3_free(message);
            die(QStringLiteral("%1: %2").arg(QString::fromUtf8(sql), text));
        }
    }
    // The store's own settings (Store::open): WAL, synchronous NORMAL, foreign keys.
    void useStoreSettings()
    {
        exec("PRAGMA journal_mode=WAL");
        exec("PRAGMA synchronous=NORMAL");
        exec("PRAGMA foreign_keys=ON");
    }

private:
    sqlite3 *m_db = nullptr;
};

// Operations written straight into a database the Store created: big seeds in seconds.
// Returns the id of the first one; ids follow each other.
struct OperationSeed
{
    QString endpointId = QStringLiteral("bench");
    QString state = QStringLiteral("scheduled");
    QString policyId; // the partition the operations wait in, if any
    QString partitionKey;
    QString host; // the host the operations' requests go to (fleet-wide per-host permits)
    int attempt = 0;
    qint64 createdAtMs = 0;
    // nextAttemptAtMs(i) for the i-th operation of the seed.
    std::function<qint64(qint64)> nextAttemptAtMs = [](qint64) {
        return qint64(0);
    };
};

inline qint64 seedOperations(CApiDatabase &db, qint64 count, const OperationSeed &seed)
{
    db.exec("BEGIN IMMEDIATE");
    Statement insert(db.handle(), "INSERT INTO operations (endpoint_id, state, attempt, created_at,"
                                  " next_attempt_at, idempotency_key, policy_id, partition_key,"
                                  " host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const std::string endpoint = seed.endpointId.toStdString();
    const std::string policy = seed.policyId.toStdString();
    const std::string partition = seed.partitionKey.toStdString();
    const std::string host = seed.host.toStdString();
    const std::string state = seed.state.toStdString();
    qint64 first = 0;
    for (qint64 i = 0; i < count; ++i) {
        char key[96];
        std::snprintf(key, sizeof key, "%s-%012lld", endpoint.c_str(), static_cast<long long>(i));
        const std::string keyText = key;
        insert.bind(1, endpoint);
        insert.bind(2, state);
        insert.bind(3, qint64(seed.attempt));
        insert.bind(4, seed.createdAtMs);
        insert.bind(5, seed.nextAttemptAtMs(i));
        insert.bind(6, keyText);
        insert.bind(7, policy);
        insert.bind(8, partition);
        insert.bind(9, host);
        insert.step();
        insert.reset();
        if (i == 0)
            first = sqlite3_last_insert_rowid(db.handle());
    }
    db.exec("COMMIT");
    return first;
}

// ---------------------------------------------------------------------------------------
// Child processes

struct ChildRun
{
    int exitCode = -1;
    double seconds = 0;
    double cpuSeconds = 0;   // user + system
    qint64 peakRssBytes = 0; // the child's own high-water mark, from wait4()
};

struct Child
{
    pid_t pid = 0;
    QElapsedTimer timer;
};

// Starts program with arguments, its standard output going to stdoutPath (or
// inherited when empty).
inline Child startChild(const QStringList &command, const QString &stdoutPath = {})
{
    std::vector<QByteArray> storage;
    std::vector<char *> argv;
    for (const QString &part : command)
        storage.push_back(part.toLocal8Bit());
    for (QByteArray &part : storage)
        argv.push_back(part.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const QByteArray out = stdoutPath.toLocal8Bit();
    if (!stdoutPath.isEmpty())
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.constData(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
    Child child;
    child.timer.start();
    const int rc = posix_spawnp(&child.pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        die(QStringLiteral("cannot start %1: %2")
                .arg(command.first(), QString::fromLocal8Bit(std::strerror(rc))));
    return child;
}

// Waits for a child (or only looks, with block false: nullopt while it runs) and reads
// its CPU time and peak memory from the kernel's accounting.
inline std::optional<ChildRun> waitChild(const Child &child, bool block = true)
{
    int status = 0;
    struct rusage usage = {};
    const pid_t done = wait4(child.pid, &status, block ? 0 : WNOHANG, &usage);
    if (done == 0)
        return std::nullopt;
    if (done != child.pid)
        die(QStringLiteral("wait4 failed for child %1").arg(child.pid));
    ChildRun run;
    run.seconds = seconds(child.timer);
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.cpuSeconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    run.peakRssBytes = qint64(usage.ru_maxrss) * 1024;
    return run;
}

// Runs program with arguments and waits for it.
inline ChildRun runChild(const QStringList &command, const QString &stdoutPath = {})
{
    return *waitChild(startChild(command, stdoutPath));
}

// This process's CPU time so far (user + system), in seconds.
inline double processCpuSeconds()
{
    struct rusage usage = {};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// How often this process's threads have given up a core so far, by waiting or by
// being preempted: a count of wakes that, unlike CPU time, a busy neighbour on the
// same machine does not move.
inline long processContextSwitches()
{
    struct rusage usage = {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_nvcsw + usage.ru_nivcsw;
}

// The p-th quantile (0..1) of sorted values: the smallest value at or above that share.
template <typename T> T quantile(const std::vector<T> &sorted, double p)
{
    if (sorted.empty())
        return T();
    const size_t rank = size_t(std::ceil(p * double(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank > 0 ? rank - 1 : 0)];
}

// The machine's load when a benchmark starts: other work on the 2 cores skews wall
// times, so the log keeps it beside the figures.
inline QString loadAverage()
{
    FILE *f = std::fopen("/proc/loadavg", "r");
    char text[64] = {};
    if (f) {
        if (!std::fgets(text, sizeof text, f))
            text[0] = 0;
        std::fclose(f);
    }
    return QString::fromLatin1(text).section(QLatin1Char(' '), 0, 2);
}

inline QString megabytes(qint64 bytes)
{
    return number(double(bytes) / (1024.0 * 1024.0), 1) + QStringLiteral(" MB");
}

} // namespace cooldown::bench
