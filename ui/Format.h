// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

namespace cooldown {
struct CredentialState;
enum class Decision;
enum class OperationState;
enum class WaitSource;
} // namespace cooldown

namespace cooldown::format {

// A point in time as the operator reads it: local time, with the date only when it
// is not today. Empty for a negative time.
QString localTime(qint64 msSinceEpoch, qint64 nowMs);
// "in 12 s", "in 3 min 05 s", "due", "—" (not set); for the next-attempt countdown.
QString countdown(qint64 targetMs, qint64 nowMs);
// "850 ms", "12.4 s", "3 min 05 s", "2 h 10 min"; "—" for a negative duration.
QString duration(qint64 ms);
// An operation's state in the operator's language ("waiting", "待機中").
QString stateName(OperationState state);
// A decision ("success", "retry", "park", "fail") in the operator's language.
QString decisionName(Decision decision);
// A wait source as recorded ("retry-after", "backoff", ...); empty for None, which
// says nothing to an operator.
QString waitSourceName(WaitSource source);
// The HTTP status, or the transport error when there was no response.
QString outcome(int status, const QString &error);
// What holds the work of a credential that has no token, in one line: "Waiting for
// credentials plm (token endpoint: http_503, next try 12:04:10)" or "Credentials plm
// refused: invalid_client — operations parked". Empty while it has a token or has not
// failed. Never holds a secret: a CredentialState has none.
QString credentialTrouble(const CredentialState &state, qint64 nowMs);
// Whether the credential's work is held: a token request failed and no token that is
// still valid is held (a renewal that fails ahead of expiry holds nothing yet).
bool credentialWaiting(const CredentialState &state, qint64 nowMs);
bool credentialRefused(const CredentialState &state);

} // namespace cooldown::format
