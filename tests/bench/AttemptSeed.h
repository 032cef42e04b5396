// SPDX-License-Identifier: Apache-2.0
#pragma once

// Big attempt histories in seconds: a database the Store created, filled through the
// sqlite3 C API. Shared by the benchmarks that read history (export, dashboard).

#include "bench/BenchSupport.h"
#include "core/store/Store.h"

#include <QDateTime>
#include <QString>

#include <memory>
#include <string>

namespace cooldown::bench {

// Cells that a spreadsheet could misread, quoting trouble, and non-ASCII text: one row
// in 101 carries one in its reason and worker columns.
inline const char *const kHostileCells[] = {
    "=HYPERLINK(\"http://x\",\"y\")",
    "+1+2",
    "-3",
    "@SUM(A1)",
    "\ttabbed",
    "comma, inside",
    "line\nbreak",
    "quote \" inside",
    "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac",
    "\r\nleading CRLF",
};

// Creates the database at path and records `rows` attempts in it, 10 per operation,
// 37 ms apart from 24 hours ago on: a mix of 200s, 429s with Retry-After and problem
// details, 503s and transport errors over four endpoints. Attempt ids run 1..rows in
// time order.
inline void seedAttempts(const QString &path, qint64 rows)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    openStore(path);
    CApiDatabase db(path);
    db.useStoreSettings();
    const qint64 perOperation = 10;
    const qint64 operations = (rows + perOperation - 1) / perOperation;
    const char *const states[] = {"succeeded", "failed", "waiting", "parked", "cancelled"};
    const char *const endpoints[] = {"measurements", "uploads", "reports", "health"};
    db.exec("BEGIN");
    {
        Statement op(db.handle(),
                     "INSERT INTO operations (id, endpoint_id, state, attempt, created_at,"
                     " next_attempt_at, idempotency_key) VALUES (?, ?, ?, ?, ?, ?, ?)");
        for (qint64 i = 1; i <= operations; ++i) {
            op.bind(1, i);
            op.bind(2, std::string(endpoints[i % 4]));
            op.bind(3, std::string(states[i % 5]));
            op.bind(4, perOperation);
            op.bind(5, now - 86400000 + i);
            op.bind(6, qint64(-1));
            op.bind(7, "key-" + std::to_string(i));
            op.step();
            op.reset();
        }
    }
    Statement insert(
        db.handle(),
        "INSERT INTO attempts (operation_id, endpoint_id, attempt, started_at, finished_at,"
        " method, url, status, error, decision, reason, wait_ms, wait_source, retry_after_raw,"
        " problem_type, problem_instance, rate_limit_remaining, idempotency_key, duration_ms,"
        " worker_id, policy_id, policy_version, forced, request_headers, response_headers,"
        " lease_conflict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?, ?, ?, ?)");
    const std::string empty;
    for (qint64 i = 0; i < rows; ++i) {
        const qint64 operation = 1 + i / perOperation;
        const qint64 attempt = 1 + i % perOperation;
        const bool throttled = i % 7 == 3;
        const bool broken = i % 11 == 5;
        const int status = broken ? 0 : throttled ? 429 : i % 13 == 0 ? 503 : 200;
        const qint64 started = now - 86400000 + i * 37;
        const std::string hostile = kHostileCells[i % 10];
        const bool odd = i % 101 == 0;
        insert.bind(1, operation);
        insert.bind(2, std::string(endpoints[operation % 4]));
        insert.bind(3, attempt);
        insert.bind(4, started);
        insert.bind(5, started + 40 + i % 200);
        insert.bind(6, std::string(i % 3 == 0 ? "POST" : "GET"));
        insert.bind(7, "https://api.example.com/v1/measurements?page=" + std::to_string(i % 500) +
                           "&sort=desc");
        insert.bind(8, qint64(status));
        insert.bind(9, broken ? std::string("connection_closed") : empty);
        insert.bind(10, std::string(status == 200 ? "success" : broken ? "park" : "retry"));
        insert.bind(11, odd ? hostile : std::string(status == 200 ? "ok" : "throttled"));
        insert.bind(12, status == 200 ? qint64(-1) : qint64(1000 + i % 60000));
        insert.bind(13, std::string(status == 200 ? "none"
                                    : throttled   ? "retry-after"
                                                  : "backoff"));
        insert.bind(14, throttled ? (i % 2 ? std::string("Wed, 21 Oct 2026 07:28:00 GMT")
                                           : std::to_string(i % 120))
                                  : empty);
        insert.bind(
            15, throttled
                    ? std::string("https://iana.org/assignments/http-problem-types#quota-exceeded")
                    : empty);
        insert.bind(16, throttled ? "/requests/" + std::to_string(i) : empty);
        insert.bind(17, i % 5 == 0 ? qint64(-1) : qint64(i % 120));
        insert.bind(18, "9f0c4a2e-1b7d-4c55-8e21-" + std::to_string(100000000000 + operation));
        insert.bind(19, qint64(40 + i % 200));
        insert.bind(20, odd ? hostile : std::string("worker-a:4242:00017"));
        insert.bind(21, std::string(i % 4 == 0 ? "" : "project-read-v1"));
        insert.bind(22, qint64(i % 4 == 0 ? 0 : 1 + i % 3));
        insert.bind(23, qint64(i % 97 == 0 ? 1 : 0));
        insert.bind(24, std::string("Accept: */*\n"));
        insert.bind(25, std::string("Server: nginx\nContent-Type: application/json\n"));
        insert.bind(26, qint64(i % 499 == 0 ? 1 : 0));
        insert.step();
        insert.reset();
    }
    db.exec("COMMIT");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

} // namespace cooldown::bench
