// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "app/LocalListener.h"
#include "core/engine/EngineSession.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <deque>

namespace cooldown {

class RandomSource;
struct OperationRecord;

// The local API of `cooldown run --listen` (docs/local-api.md): jobs handed in over
// HTTP, each a `cooldown enqueue` of its own, and the state, retry and cancel of one
// operation. Every answer that is not a success is an RFC 9457 problem object; a
// refused field is named by a JSON pointer (RFC 6901) into the request body. Its own
// words are English whatever the worker's language, as HTTP APIs' are; the checks it
// shares with `cooldown enqueue` speak the worker's.
//
// The work is done on the engine thread through EngineSession's calls that wait for it
// (enqueue, lookUp, retryOne, cancelOne, setEndpointPausedNow, holdEndpointNow), in
// the order requests arrive, so the API and the scheduler never race on the store.
class JobsApi final
{
public:
    JobsApi(EngineSession &engine, RandomSource &random);

    // Whether request is for this API (its path starts with /v1/).
    static bool handles(const LocalRequest &request);
    LocalResponse handle(const LocalRequest &request);

    // An operation left the queue (ended or parked) at atMs: the rate the queue drains
    // at, for the Retry-After of a full queue.
    void noteLeftQueue(qint64 atMs);

    // A problem object as the API answers it. errors: [{"pointer", "detail"}].
    static LocalResponse problem(int status, const QString &detail, const QJsonArray &errors = {},
                                 const QString &type = {});
    // "$[2].vars.rev: missing ..." into the pointer "/2/vars/rev" and the rest.
    static QJsonObject pointerError(const QString &pathError);

private:
    LocalResponse postJobs(const LocalRequest &request);
    LocalResponse getJob(qint64 id);
    LocalResponse operatorAction(qint64 id, const QByteArray &action, const LocalRequest &request);
    LocalResponse endpointAction(const QString &endpointId, const QByteArray &action,
                                 const LocalRequest &request);
    std::optional<LocalResponse> refuseUnauthorized(const LocalRequest &request) const;
    // Seconds until the queue has room for `needed` more, at the rate it drained in
    // the last minute.
    qint64 secondsUntilRoom(qint64 excess);
    QList<QPair<QByteArray, QByteArray>> queueHeaders(qint64 remaining, qint64 resetSeconds) const;
    QJsonObject describe(const OperationRecord &op) const;

    EngineSession &m_engine;
    RandomSource &m_random;
    std::deque<qint64> m_leftQueueAtMs; // the last minute's
    // The queue as last counted, plus what was taken since; engine thread only.
    QueueCount m_queueCount;
};

} // namespace cooldown
