// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>

namespace cooldown {

// What the demo API has seen since it started or was last reset. Control routes
// (/_stats, /_reset, ...) are not counted. "Executed" means the route's payload ran:
// a refused, failed, replayed or still-running request has not executed.
struct DemoStats
{
    qint64 totalRequests = 0;
    qint64 totalExecuted = 0;
    QMap<QString, qint64> requestsByPath;
    QMap<QString, qint64> requestsByKey;            // the client key (?key=, default "anonymous")
    QMap<QString, qint64> requestsByIdempotencyKey; // the parsed Idempotency-Key
    QMap<QString, qint64> executedByKey;
    QMap<QString, qint64> executedByIdempotencyKey;
    QMap<int, qint64> responsesByStatus; // answers written, replays included
    qint64 replayed = 0;
    qint64 dropped = 0;      // executed, then the connection was closed unanswered
    int hungConnections = 0; // accepted and never to be answered, still open
    int inFlight = 0;        // Idempotency-Keys whose first request is still running
    // When each request of a client key arrived, in order: milliseconds of real time
    // on a monotonic timer the server starts when it is created (whatever Clock it
    // was given), so that tests can count requests per window at the server; the
    // latest 10,000 per key. Not in toJson().
    QMap<QString, QList<qint64>> arrivalsMsByKey;

    // The body of GET /_stats; keys are the snake_case forms of the members.
    QJsonObject toJson() const;
};

} // namespace cooldown
