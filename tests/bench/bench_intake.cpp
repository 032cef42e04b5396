// SPDX-License-Identifier: Apache-2.0
// Jobs handed in from a JSON Lines file: `cooldown enqueue --jsonl` of 100,000 jobs
// (a child process: reading, checking each job against the workspace, hashing its
// request, one transaction) against the sqlite3 C API inserting the same operation
// rows, already made, in transactions of 1,000, into a database of the same schema.
//
//   bench_intake [--smoke] [--jobs N] [--cooldown PATH] [--keep]

#include "bench/BenchSupport.h"
#include "core/store/Store.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>

#include <string>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

const char kWorkspace[] = R"({"version": 1,
  "policies": [{"policy_id": "plm", "limit": 100, "window_seconds": 60}],
  "endpoints": [{"id": "bom-upload", "method": "POST",
    "url": "https:BASE/api/boms/${job:part}/revisions?rev=${job:rev}",
    "headers": {"Content-Type": "application/json"},
    "body": "{\"part\": \"${job:part}\", \"rev\": \"${job:rev}\"}",
    "policy": "plm", "partition_key": "acme",
    "idempotency": {"header": "Idempotency-Key"}}]})";

qint64 rowCount(const QString &path)
{
    CApiDatabase db(path);
    Statement count(db.handle(), "SELECT COUNT(*) FROM operations");
    count.step();
    return count.int64(0);
}

// The reference: the rows enqueue writes, made beforehand, inserted with prepared
// statements in transactions of 1,000.
double insertWithCApi(const QString &path, qint64 jobs)
{
    CApiDatabase db(path);
    db.useStoreSettings();
    std::vector<std::string> keys;
    std::vector<std::string> values;
    keys.reserve(size_t(jobs));
    values.reserve(size_t(jobs));
    for (qint64 i = 0; i < jobs; ++i) {
        keys.push_back("job-" + std::to_string(i));
        values.push_back("{\"part\":\"P-" + std::to_string(i) + "\",\"rev\":\"" +
                         std::to_string(i % 7) + "\"}");
    }
    const std::string endpoint = "bom-upload";
    const std::string state = "scheduled";
    const std::string policy = "plm";
    const std::string partition = "acme";
    const std::string host = "plm.example.com";
    const std::string hash(64, 'a');
    QElapsedTimer timer;
    timer.start();
    db.exec("INSERT INTO endpoints (id, name, created_at) VALUES ('bom-upload', 'bom-upload', 1)"
            " ON CONFLICT DO NOTHING");
    db.exec("INSERT INTO rate_partitions (policy_id, partition_key) VALUES ('plm', 'acme')"
            " ON CONFLICT DO NOTHING");
    Statement insert(db.handle(),
                     "INSERT INTO operations (endpoint_id, state, created_at, next_attempt_at,"
                     " idempotency_key, policy_id, partition_key, cost, host, request_body,"
                     " job_values, request_hash) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, '', ?, ?)");
    for (qint64 i = 0; i < jobs; ++i) {
        if (i % 1000 == 0)
            db.exec("BEGIN IMMEDIATE");
        insert.bindStatic(1, endpoint);
        insert.bindStatic(2, state);
        insert.bind(3, qint64(1'800'000'000'000));
        insert.bind(4, qint64(1'800'000'000'000));
        insert.bindStatic(5, keys[size_t(i)]);
        insert.bindStatic(6, policy);
        insert.bindStatic(7, partition);
        insert.bindStatic(8, host);
        insert.bindStatic(9, values[size_t(i)]);
        insert.bindStatic(10, hash);
        insert.step();
        insert.reset();
        if (i % 1000 == 999 || i == jobs - 1)
            db.exec("COMMIT");
    }
    return seconds(timer);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const qint64 jobs = option(args, QStringLiteral("--jobs"),
                               g_smoke ? QStringLiteral("500") : QStringLiteral("100000"))
                            .toLongLong();
    const QString cooldown =
        option(args, QStringLiteral("--cooldown"), QStringLiteral(COOLDOWN_BINARY));
    QTemporaryDir dir;
    if (!dir.isValid() || jobs <= 0)
        die(QStringLiteral("no temporary folder, or a bad --jobs"));
    if (args.contains(QStringLiteral("--keep"))) {
        dir.setAutoRemove(false);
        note(QStringLiteral("files kept in %1").arg(dir.path()));
    }
    note(QStringLiteral("load average: %1").arg(loadAverage()));

    const QString workspace = dir.filePath(QStringLiteral("workspace.json"));
    const QString lines = dir.filePath(QStringLiteral("jobs.jsonl"));
    {
        QFile w(workspace);
        QFile l(lines);
        if (!w.open(QIODevice::WriteOnly) || !l.open(QIODevice::WriteOnly))
            die(QStringLiteral("cannot write the inputs"));
        w.write(QByteArray(kWorkspace).replace("BASE", "//plm.example.com"));
        for (qint64 i = 0; i < jobs; ++i)
            l.write(QStringLiteral("{\"endpoint\":\"bom-upload\",\"idempotency_key\":\"job-%1\","
                                   "\"vars\":{\"part\":\"P-%1\",\"rev\":\"%2\"}}\n")
                        .arg(i)
                        .arg(i % 7)
                        .toUtf8());
    }

    // Alternating runs on fresh databases, best time of each.
    const int runs = g_smoke ? 1 : 2;
    double best[2] = {0, 0};
    for (int run = 0; run < runs; ++run) {
        const QString refDb = dir.filePath(QStringLiteral("reference-%1.db").arg(run));
        const QString ourDb = dir.filePath(QStringLiteral("enqueue-%1.db").arg(run));
        openStore(refDb);
        openStore(ourDb);
        const double ref = insertWithCApi(refDb, jobs);
        const ChildRun ours =
            runChild({cooldown, QStringLiteral("enqueue"), QStringLiteral("--config"), workspace,
                      QStringLiteral("--db"), ourDb, QStringLiteral("--jsonl"), lines},
                     dir.filePath(QStringLiteral("ids.txt")));
        if (ours.exitCode != 0)
            die(QStringLiteral("cooldown enqueue exited %1").arg(ours.exitCode));
        if (rowCount(ourDb) != jobs || rowCount(refDb) != jobs)
            die(QStringLiteral("expected %1 operations, enqueue wrote %2, the reference %3")
                    .arg(jobs)
                    .arg(rowCount(ourDb))
                    .arg(rowCount(refDb)));
        note(QStringLiteral("run %1: C API %2 s; cooldown enqueue %3 s (cpu %4 s), %5 peak")
                 .arg(run + 1)
                 .arg(number(ref, 2), number(ours.seconds, 2), number(ours.cpuSeconds, 2),
                      megabytes(ours.peakRssBytes)));
        if (run == 0 || ref < best[0])
            best[0] = ref;
        if (run == 0 || ours.seconds < best[1])
            best[1] = ours.seconds;
    }
    const double refRate = double(jobs) / best[0];
    const double ourRate = double(jobs) / best[1];
    report(QStringLiteral("enqueue --jsonl of %1 jobs").arg(jobs),
           QStringLiteral("sqlite3 C API, 1,000/txn: %1").arg(perSecond(refRate)),
           perSecond(ourRate), ratioText(ourRate / refRate), QStringLiteral(">= 0.50x"),
           ourRate / refRate >= 0.5);
    return g_failures == 0 ? 0 : 1;
}
