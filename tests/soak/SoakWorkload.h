// SPDX-License-Identifier: Apache-2.0
#pragma once

// The workload of the soak tests: many one-shot operations against the demo API, of
// kinds that make it misbehave (429s, 503s, slow and hung answers, crashes after
// commit), written as a workspace config; and the accounting that compares what the
// demo API saw with what the store recorded.

#include "app/demo/DemoStats.h"
#include "core/store/Records.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <map>

namespace soak {

enum class Kind
{
    Ok,          // GET 200
    Slow,        // GET answered after 300 ms
    Limited,     // GET on a fixed window shared by all of its kind: 429 with Retry-After
    Maintenance, // GET during a 4 s maintenance window: 503 with an HTTP-date
    Upload,      // keyed POST, executed after 200 ms
    Flaky,       // keyed POST, first answer 503 without a hint
    Dropped,     // keyed POST, executed and then the connection is closed unanswered
    Hung,        // GET or keyed POST that is never answered: fails after 2 timeouts
    Unkeyed,     // POST without a key: succeeds, or parks if a worker died mid-send
};

struct Operation
{
    QString endpointId;
    Kind kind = Kind::Ok;
    bool post = false;
    bool keyed = true; // the Idempotency-Key header is sent (GETs included, for counting)
    QString clientKey; // ?key= at the demo API; unique for unkeyed POSTs
};

// Mostly quick kinds, with every misbehaviour present; Hung is rare because each of
// its attempts holds a permit for a whole timeout.
inline QList<Operation> makeWorkload(int count, bool withFaults)
{
    static const Kind kMix[] = {Kind::Ok,      Kind::Slow,        Kind::Limited, Kind::Upload,
                                Kind::Ok,      Kind::Maintenance, Kind::Flaky,   Kind::Dropped,
                                Kind::Limited, Kind::Unkeyed,     Kind::Upload,  Kind::Slow,
                                Kind::Ok,      Kind::Flaky,       Kind::Limited, Kind::Upload,
                                Kind::Ok,      Kind::Dropped,     Kind::Slow,    Kind::Hung};
    QList<Operation> ops;
    ops.reserve(count);
    for (int i = 0; i < count; ++i) {
        Operation op;
        op.kind = kMix[i % (sizeof(kMix) / sizeof(kMix[0]))];
        if (!withFaults &&
            (op.kind == Kind::Hung || op.kind == Kind::Dropped || op.kind == Kind::Unkeyed))
            op.kind = Kind::Upload;
        op.endpointId = QStringLiteral("op-%1").arg(i, 5, 10, QLatin1Char('0'));
        op.post = op.kind == Kind::Upload || op.kind == Kind::Flaky || op.kind == Kind::Dropped ||
                  op.kind == Kind::Unkeyed || (op.kind == Kind::Hung && i % 2 == 1);
        op.keyed = op.kind != Kind::Unkeyed;
        op.clientKey =
            op.kind == Kind::Unkeyed ? QStringLiteral("unkeyed-%1").arg(i) : QStringLiteral("soak");
        ops.append(op);
    }
    return ops;
}

inline QString pathOf(const Operation &op)
{
    const QString key = QStringLiteral("key=") + op.clientKey;
    switch (op.kind) {
    case Kind::Ok:
        return QStringLiteral("/ok?") + key;
    case Kind::Slow:
        return QStringLiteral("/slow?delay_ms=300&") + key;
    case Kind::Limited:
        return QStringLiteral(
                   "/limited/"
                   "fixed?limit=20&window=2&retry_after=seconds&headers=none&problem=none&") +
               key;
    case Kind::Maintenance:
        return QStringLiteral("/maintenance?maintenance_for=4&retry_after=date&") + key;
    case Kind::Upload:
        return QStringLiteral("/uploads?delay_ms=200&") + key;
    case Kind::Flaky:
        return QStringLiteral("/flaky?fail_first=1&fail_status=503&") + key;
    case Kind::Dropped:
        return QStringLiteral("/uploads?drop_first=1&") + key;
    case Kind::Hung:
        return QStringLiteral("/hang?") + key;
    case Kind::Unkeyed:
        return QStringLiteral("/uploads?require_key=0&") + key;
    }
    return {};
}

// A workspace config for the operations; every one runs once per database.
inline QByteArray configFor(const QList<Operation> &ops, const QUrl &demo, int maxInFlight)
{
    QByteArray endpoints;
    for (const Operation &op : ops) {
        if (!endpoints.isEmpty())
            endpoints += ",\n";
        QByteArray e = "{\"id\": \"" + op.endpointId.toUtf8() + "\", \"method\": \"" +
                       (op.post ? "POST" : "GET") + "\", \"url\": \"" +
                       (demo.toString() + pathOf(op)).toUtf8() + "\"";
        if (op.post)
            e += ", \"body\": \"{\\\"op\\\":\\\"" + op.endpointId.toUtf8() + "\\\"}\"";
        if (op.keyed)
            e += R"(, "idempotency": {"header": "Idempotency-Key"})";
        if (op.kind == Kind::Hung)
            e += R"(, "timeout_seconds": 1, "retry": "hung")";
        else
            e += R"(, "timeout_seconds": 10)";
        endpoints += e + "}";
    }
    return R"({"version": 1,
  "concurrency": {"max_in_flight": )" +
           QByteArray::number(maxInFlight) + R"(, "per_host": 6},
  "retry_profiles": {
    "default": {"max_attempts": 40, "base_seconds": 0.2, "cap_seconds": 2, "deadline_seconds": 3600,
                "spread_seconds": 0.5, "max_retry_after_seconds": 60,
                "throttle_counts_as_attempt": false},
    "hung": {"max_attempts": 2, "base_seconds": 0.2, "cap_seconds": 1, "deadline_seconds": 3600}
  },
  "endpoints": [
)" + endpoints +
           "\n]}\n";
}

// What the demo API saw against what the store recorded, summed over operations.
struct Accounting
{
    qint64 operations = 0;
    qint64 attempts = 0;
    qint64 rescues = 0;      // attempts recorded for a worker that died mid-attempt
    qint64 demoRequests = 0; // as counted per operation at the demo API
    qint64 duplicates = 0;   // payloads executed more than once
    qint64 lost = 0;         // requests the demo API saw that no attempt accounts for
    qint64 phantoms = 0;     // recorded exchanges the demo API never saw
    QStringList problems;    // one line per operation that broke a promise
};

// attempts: all of the operation's attempts. Requests at the demo API are matched per
// operation: by its Idempotency-Key, or by its own client key when it sends none.
inline void account(Accounting &acc, const Operation &op, const cooldown::OperationRecord &record,
                    const QList<cooldown::AttemptRecord> &attempts,
                    const cooldown::DemoStats &stats)
{
    ++acc.operations;
    const qint64 made = attempts.size();
    qint64 rescued = 0;
    for (const cooldown::AttemptRecord &a : attempts)
        rescued += a.error == QLatin1String("worker_died") ? 1 : 0;
    const qint64 requests = op.keyed ? stats.requestsByIdempotencyKey.value(record.idempotencyKey)
                                     : stats.requestsByKey.value(op.clientKey);
    const qint64 executed = op.keyed ? stats.executedByIdempotencyKey.value(record.idempotencyKey)
                                     : stats.executedByKey.value(op.clientKey);
    acc.attempts += made;
    acc.rescues += rescued;
    acc.demoRequests += requests;
    if (requests > made) {
        acc.lost += requests - made;
        acc.problems.append(
            QStringLiteral("%1: the demo API saw %2 requests, the store has %3 attempts")
                .arg(op.endpointId)
                .arg(requests)
                .arg(made));
    }
    if (requests < made - rescued) {
        acc.phantoms += made - rescued - requests;
        acc.problems.append(
            QStringLiteral("%1: %2 attempts (%3 rescues) but only %4 requests arrived")
                .arg(op.endpointId)
                .arg(made)
                .arg(rescued)
                .arg(requests));
    }
    if (op.post && executed > 1) {
        acc.duplicates += executed - 1;
        acc.problems.append(
            QStringLiteral("%1: payload executed %2 times").arg(op.endpointId).arg(executed));
    }
    if (op.post && record.state == cooldown::OperationState::Succeeded && executed != 1)
        acc.problems.append(QStringLiteral("%1: succeeded but executed %2 times at the demo API")
                                .arg(op.endpointId)
                                .arg(executed));
}

} // namespace soak
