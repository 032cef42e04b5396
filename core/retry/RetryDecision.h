// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/check/Expectation.h"
#include "core/http/HttpHeaders.h"
#include "core/retry/Decision.h"
#include "core/retry/RetryProfile.h"
#include "core/retry/ServerWait.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace cooldown {

class RandomSource;

// How an exchange ended when it did not end with an HTTP response.
enum class TransportError
{
    None,
    ConnectionRefused, // nothing was sent
    HostNotFound,      // nothing was sent
    Timeout,           // the request may have reached the server
    ConnectionClosed,  // closed after the request left
    Tls,
    BadUrl,
    UnsupportedScheme,
    WorkerDied, // the lease expired while the attempt was running
    // No route to the host: the network is down or this machine is offline (lo down,
    // no default route, ENETUNREACH before a byte left). Nothing was sent.
    NetworkUnreachable,
    // In flight when the machine went to sleep (docs/offline.md): the request may have
    // reached the server, like a connection lost.
    Interrupted,
};
const char *textOf(TransportError error);
// The inverse of textOf: "timeout" → Timeout; empty for a name it does not give.
std::optional<TransportError> transportErrorFromString(QStringView name);

// What one HTTP exchange produced.
struct AttemptOutcome
{
    QByteArray method = "GET";
    int status = 0; // 0 when there was no response
    TransportError error = TransportError::None;
    HttpHeaders headers;
    QByteArray body;
    bool idempotencyKeySent = false;
    // How long the server keeps an idempotency key after the first attempt (an
    // endpoint's idempotency.key_valid_seconds); 0 when it does not say.
    qint64 keyValidMs = 0;
    // docs/checks.md: what the answer must say beyond its status (null: any 2xx
    // succeeds), whether the body was cut at the transport's limit, how long the
    // exchange took and the endpoint's latency budget (0: none).
    const Expectation *expect = nullptr;
    bool bodyTruncated = false;
    qint64 durationMs = -1;
    qint64 latencyBudgetMs = 0;
    // The cause the exchange failed for (its host, its proxy) is an open incident
    // (docs/incidents.md): a failure that would be retried is held instead.
    bool causeInIncident = false;
    // The engine finds the machine offline (docs/offline.md): a name that did not
    // resolve is then the network's failure, not the endpoint's, and is offline too.
    bool machineOffline = false;
};

// Where the operation stands when the outcome arrives.
struct AttemptHistory
{
    int attempt = 1;         // the number of the attempt that just ended, from 1
    int throttledBefore = 0; // earlier attempts answered 429 or 503
    qint64 firstAttemptAtMs = 0;
    qint64 previousBackoffMs = 0; // the last backoff chosen (decorrelated jitter)
};

// The retry contract (docs/retry-contract.md) turned into one answer.
struct RetryDecision
{
    using Action = Decision;

    Action action = Action::Fail;
    QString reason;          // a short machine word
    qint64 delayMs = -1;     // Retry only: from now until the retry may start
    qint64 notBeforeMs = -1; // Retry only: absolute UTC ms
    WaitSource source = WaitSource::None;
    ServerWait serverWait;             // what the server said, even when it was not used
    bool throttled = false;            // a 429 or 503: counted apart from failures
    int countedAttempts = 0;           // attempts that count towards max_attempts
    qint64 deadlineMs = -1;            // -1 without a deadline
    qint64 keyValidUntilMs = -1;       // when the server forgets the key; -1 when not said
    std::optional<CheckFailure> check; // the assertion the answer failed (assertion_failed)
    bool degraded = false;             // a success over the latency budget (reason degraded)
    // No network (reason offline): retried, and not an attempt of the operation: it
    // keeps its attempt number and never counts against max_attempts (docs/offline.md).
    bool offline = false;
    // Its cause is an open incident (reason blocked_by_incident): retried once the
    // incident may have cleared, and, like offline, not an attempt that counts against
    // max_attempts (docs/incidents.md). A POST that may have executed is still parked.
    bool blocked = false;

    static RetryDecision decide(const RetryProfile &profile, const AttemptOutcome &outcome,
                                const AttemptHistory &history, qint64 nowMs, RandomSource &random,
                                const ServerWaitOptions &hints = {});

    // The object `cooldown explain` prints and the attempt inspector shows.
    QJsonObject toJson() const;
};

bool isIdempotentMethod(QByteArrayView method);

} // namespace cooldown
