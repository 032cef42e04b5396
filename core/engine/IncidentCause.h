// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/Credentials.h"
#include "core/retry/RetryDecision.h"

#include <QString>
#include <QStringList>
#include <QUrl>

namespace cooldown {

// What one exchange says of the causes that several endpoints can share
// (docs/incidents.md): the one it failed for, and those it shows to work.
struct ExchangeCauses
{
    // "host:NAME" when the host could not be reached (refused, not found, TLS failed, or
    // timed out before the whole request was written) or answered 500, 502 or 504;
    // "proxy:HOST:PORT" when the exchange went through an explicit proxy and got no answer at all.
    // Empty when the exchange did not fail, or failed for a reason of its own (a 4xx, a check, a
    // throttle, a connection the server closed, an answer that never came for a request it took) or
    // of the machine (offline, asleep).
    QString failed;
    // Every answer but 500, 502 and 504 shows its host works; any answer through a
    // proxy shows the proxy does.
    QStringList cleared;
};

// requestLeft: the whole request was written to a connection the server (or the proxy)
// had accepted (TransportResult::requestLeft).
ExchangeCauses incidentCausesOf(const QString &host, const ProxyConfig &proxy, int status,
                                TransportError error, bool requestLeft);

// "token:HOST[:PORT]": the cause of an OAuth credential's token endpoint that cannot be
// reached or answers an error that may pass. A host serving both tokens and an API is
// two causes: its API may answer while its token endpoint does not.
QString tokenCauseOf(const QUrl &tokenUrl);

// How a cause reads to an operator: "host api.example.com", "proxy proxy.corp:3128",
// "token endpoint auth.example.com".
QString incidentCauseText(const QString &cause);

} // namespace cooldown
