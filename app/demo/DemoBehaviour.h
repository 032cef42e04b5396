// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QUrlQuery>

#include <optional>

namespace cooldown::demo {

// How the demo answers one request, as its query string asks (the parameters are
// listed in DemoServer.h): a route's defaults, overlaid by the request's own query.

enum class RetryAfterForm
{
    Seconds,
    ImfFixdate,
    Rfc850,
    Asctime,
    None,
    Malformed
};

enum class LimiterKind
{
    None,
    FixedWindow,
    TokenBucket
};

struct Behaviour
{
    QString key = QStringLiteral("anonymous");
    LimiterKind limiter = LimiterKind::None;
    qint64 limit = 0;
    qint64 windowMs = 60'000;
    qint64 capacity = 0;
    double rate = 1.0;
    RetryAfterForm retryAfter = RetryAfterForm::Seconds;
    bool draftHeaders = true;
    bool xHeaders = true;
    bool xResetEpoch = true;
    QString policy = QStringLiteral("default");         // letters, digits and "-_." only
    QString problem = QStringLiteral("quota-exceeded"); // empty: a plain-text 429
    qint64 maintenanceForMs = 0;
    qint64 maintenanceUntilMs = 0;
    qint64 failFirst = 0;
    double failRate = 0;
    quint64 seed = 0;
    int failStatus = 502;
    qint64 delayMs = 0;
    bool hang = false;
    qint64 dropFirst = 0;
    bool requireKey = false;
    qint64 bodyBytes = -1; // -1: a JSON body
    // What a successful JSON answer says: the request (the default), or a body a
    // check should refuse (docs/checks.md): "error" ({"status": "error", ...}) or
    // "empty" ({"status": "ok", "items": []}), or one it should pass ("items").
    QString answer = QStringLiteral("request");
};

// A data route with defaults of its own (/api/<anything> has none).
struct Route
{
    const char *path;
    const char *defaults; // a query string
    bool writeOnly;       // POST and PATCH only
};

// The route at exactly this path; nullptr when there is none.
const Route *findRoute(const QString &path);

// The behaviour asked for by defaults (a query string) overlaid by query. Returns the
// error text, for a 400, when a parameter is unknown, given twice or has a bad value;
// behaviour then holds what was read before it.
std::optional<QString> parseBehaviour(const char *defaults, const QUrlQuery &query,
                                      Behaviour &behaviour);

// POST /_maintenance?for=S or ?until=T: when maintenance ends, in UTC ms; nullopt,
// with the error text, unless exactly one of them is a whole number of seconds.
std::optional<qint64> parseMaintenanceEnd(const QUrlQuery &query, qint64 nowMs, QString *error);

} // namespace cooldown::demo
