// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/demo/DemoStats.h"

#include <QObject>
#include <QString>
#include <QUrl>

#include <memory>

namespace cooldown {

class Clock;

// A rate-limited HTTP API on 127.0.0.1 that misbehaves the way real ones do, on
// request and deterministically: the demo workspace, the tests and the benchmarks
// run against it. Every behaviour is chosen by query parameters, so one URL in a
// config file describes one kind of server.
//
// Data routes (any method unless noted; a route only sets defaults for the parameters):
//   /ok                  200 (201 for POST) with a JSON body describing the request
//   /limited/fixed       limit=5&window=10
//   /limited/bucket      capacity=5&rate=1
//   /limited/ratelimit   limit=5&window=10&retry_after=none&headers=draft
//   /flaky               fail_first=2&fail_status=502
//   /maintenance         maintenance_for=30&retry_after=date
//   /slow                delay_ms=200
//   /hang                hang=1 (accepted, never answered)
//   /uploads             POST and PATCH only; require_key=1
//   /answers/error       answer=error: 200 {"status": "error", ...} (checks: docs/checks.md)
//   /answers/empty       answer=empty: 200 {"status": "ok", "items": []}
//   /answers/items       answer=items: 200 {"status": "ok", "items": [1, 2, 3]}
//   /answers/text        body_bytes=64: 200 text/plain
//   /api/<anything>      no defaults
//
// Query parameters (an unknown parameter or a bad value is answered 400):
//   key=K                the client the limits, failure counters and stats are kept for
//                        (default "anonymous"); limits are per route and key
//   limit=N&window=S     fixed window of N requests per S seconds, aligned to the clock
//   capacity=N&rate=R    token bucket of N tokens refilled at R per second (R may be 0.5)
//   retry_after=F        on 429 and 503: seconds | date (IMF-fixdate) | rfc850 | asctime |
//                        none | malformed (the word "soon"); default seconds
//   headers=H            rate-limit headers on limited routes: both (default) | draft
//                        (RateLimit-Policy + RateLimit) | x (X-RateLimit-*) | none
//   x_reset=epoch|delta  X-RateLimit-Reset as Unix seconds (default) or seconds from now
//   policy=NAME          the policy name in RateLimit headers and problems (default "default")
//   problem=T            429 body: quota-exceeded (default) | temporary-reduced-capacity |
//                        abnormal-usage-detected | none (plain text)
//   maintenance_for=S    503 for S seconds from the first request this route sees for the key
//   maintenance_until=T  503 until Unix time T (seconds)
//   fail_first=N         the first N requests fail, counted per route and per
//                        Idempotency-Key (or per key when the request has none)
//   fail_rate=P&seed=S   a further share P of requests fails, chosen by a hash of the seed,
//                        the key and the request's number: the same run gives the same pattern
//   fail_status=C        500 | 502 (default) | 503 | 504
//   delay_ms=D           answer after D ms (the payload runs then, even if the client left)
//   hang=1               never answer; the connection stays open until the client closes it
//   drop_first=N         the first N executions, counted like fail_first, run the payload
//                        and then close the connection unanswered (a crash after commit)
//   require_key=0|1      POST/PATCH without Idempotency-Key are refused with 400
//   body_bytes=N         answer success with N bytes of text instead of JSON
//   answer=A             a success's JSON: request (default: the request described) |
//                        error | empty | items (see /answers/*)
//
// Order of checks: maintenance (503), rate limit (429), idempotency ledger (400, 409,
// 422, replay), then fail / hang / delay / drop, then the payload runs and the answer
// goes out. Every answer carries Date (from the server's clock) and X-Request-Id;
// every problem body (application/problem+json, RFC 9457) has instance "/requests/ID".
//
// Idempotency ledger (POST and PATCH with an Idempotency-Key, given as an RFC 9651
// string "abc" or bare abc): the same key and payload replays the first response
// with Idempotent-Replayed: true; another payload gets 422; a key whose first request
// is still running gets 409; a missing key where required 400. Only executed
// requests are stored; a refused or failed request leaves the key free.
//
// Control routes (not counted in the stats):
//   GET /_stats               DemoStats::toJson()
//   POST /_reset              forgets stats, limits, counters, the ledger and maintenance
//   POST /_maintenance?for=S or ?until=T   every data route answers 503 until then
//   DELETE /_maintenance      ends it
//   GET /_health              200
class DemoServer final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DemoServer)

public:
    explicit DemoServer(QObject *parent = nullptr);
    // clock drives the windows, buckets, maintenance, Date and Retry-After; it must
    // outlive the server. Delays (delay_ms) are real time.
    explicit DemoServer(Clock &clock, QObject *parent = nullptr);
    ~DemoServer() override;

    // Listens on 127.0.0.1 only; port 0 picks a free port. False with errorString()
    // when the port cannot be bound or the server already listens.
    bool listen(quint16 port = 0);
    // Stops listening and closes every connection, hung ones included.
    void close();
    bool isListening() const;
    quint16 port() const;
    // http://127.0.0.1:PORT, without a trailing slash.
    QUrl baseUrl() const;
    QString errorString() const;

    DemoStats stats() const;
    // What POST /_reset does.
    void reset();
    // Every data route answers 503 until untilMs (UTC ms on the server's clock); 0 ends it.
    void setMaintenanceUntil(qint64 untilMs);

signals:
    // A data request arrived and was counted (before it is answered).
    void requestReceived(const QString &path, qint64 requestId);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace cooldown
