// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/Credentials.h"
#include "core/config/MaintenanceConfig.h"
#include "core/http/HttpHeaders.h"
#include "core/ratelimit/RateLimitPolicy.h"
#include "core/retry/RetryProfile.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QUrl>

#include <memory>
#include <optional>

namespace cooldown {

struct Expectation;

// One configured endpoint. Header values, the URL and the body have their
// ${env:NAME} references resolved in memory only; `headerTemplates` keeps the text
// as written, which is what may be shown or saved again. ${job:NAME} placeholders
// (core/config/JobRequest.h) stay in them, to be filled per job.
struct EndpointConfig
{
    QString id;
    QString name;
    QString importedFrom; // the source `cooldown import` made it from, or empty
    QByteArray method = "GET";
    QUrl url;            // with placeholders: filled with "x", for its scheme and host
    QString urlTemplate; // the URL as resolved, placeholders kept
    HttpHeaders headers;
    HttpHeaders headerTemplates;
    QByteArray body;
    int everySeconds = 0; // 0: runs once per database
    // A periodic endpoint's ticks missed while the machine slept or no worker ran: one
    // run for them all (true, "catch_up": "one"), or none ("none"): the next tick on
    // its schedule (docs/offline.md).
    bool catchUp = true;
    double timeoutSeconds = 30;
    // The availability the partner promised, in percent (docs/report.md); -1: none.
    double slaTarget = -1;
    QString policy; // policy_id, or empty
    QString partitionKey;
    QString retry = QStringLiteral("default");
    QByteArray idempotencyHeader; // empty: no key is sent
    // How long the server keeps a key (its documented retention); 0: not said. After
    // it, a keyed POST is parked instead of retried (idempotency_key_expired).
    double keyValidSeconds = 0;
    // The ${job:NAME} placeholders of the url, headers, body and partition key.
    QStringList jobFields;
    // Runs only jobs handed in (cooldown enqueue, the local API); always so with
    // placeholders. Otherwise an endpoint runs once per database, or periodically.
    bool enqueueOnly = false;
    // Paused once this many of its operations in a row have ended failed (counted in
    // the store since it was last resumed); 0: never (docs/automatic-pause.md).
    int pauseAfterFailures = 0;
    // docs/credentials.md: the credential sent with each request (an id of
    // WorkspaceConfig::credentials, or empty), the TLS settings (an id of
    // WorkspaceConfig::tls, or empty) and the proxy, resolved at load: the endpoint's
    // own, else the workspace's; never Kind::Inherit once loaded.
    QString credentials;
    QString tls;
    ProxyConfig proxy;
    // docs/checks.md: what an answer must say beyond its status (null: any 2xx), and
    // the time an exchange may take before it counts as degraded (0: no budget).
    std::shared_ptr<const Expectation> expect;
    qint64 latencyBudgetMs = 0;
    // The span the p95 is judged over for latency_degraded (latency_window_seconds).
    qint64 latencyWindowMs = 5 * 60 * 1000;

    bool isPeriodic() const { return everySeconds > 0; }
};

// What an alert target hears of.
enum class AlertEvent
{
    OperationFailed,    // an operation ended failed (not an alert's own)
    EndpointPaused,     // an operator paused an endpoint
    PartitionHeld,      // a server held a partition longer than held_longer_than_seconds
    PolicyDrift,        // a server advertises a quota other than the configured policy
    CredentialsRefused, // a token endpoint refused the client: operations are parked
    // An endpoint's p95 went over its latency budget, and back (docs/checks.md).
    LatencyDegraded,
    // Several integrations fail for one cause (a host, a proxy): one message for all of
    // them when the incident opens, one when it clears (docs/incidents.md).
    Incident,
};
const char *textOf(AlertEvent event);
std::optional<AlertEvent> alertEventFromString(QStringView text);
// The endpoint an alert target's messages are operations of: "alert:<id>" (an
// endpoint's own id cannot hold ':').
QString alertEndpointId(const QString &alertId);

// A webhook ("alerts" in the workspace): events are sent to it as operations of the
// engine, a POST of JSON with a Slack-compatible "text", an idempotency key, the retry
// profile and the 429 rules of any endpoint; they show in History like any attempt.
struct AlertConfig
{
    QString id;
    EndpointConfig target; // id alertEndpointId(id), POST, Idempotency-Key
    QList<AlertEvent> events;
    double heldLongerThanSeconds = 60;
    // The least time between two messages of one kind to this target.
    double minIntervalSeconds = 300;
};

// When failures that share a cause are one incident (docs/incidents.md): at least
// minIntegrations endpoints fail for it within windowSeconds.
struct IncidentsConfig
{
    int minIntegrations = 3;
    double windowSeconds = 300;
};

struct ConcurrencyConfig
{
    int maxInFlight = 8;
    // QNAM opens at most 6 HTTP/1.1 connections per host and lets the rest time out
    // in its own queue, so a host never gets more than 6.
    int perHost = 6;
};

// How long history is kept (docs/rollups.md): the raw attempts, which History lists,
// and the per-minute rollups the Overview draws. 0 keeps them for ever. Attempts of
// operations that have not ended are kept whatever their age.
struct RetentionConfig
{
    int rawDays = 30;
    int rollupDays = 400;
    // docs/checks.md: the last failed or degraded exchanges kept whole per endpoint,
    // and how much of each body they keep.
    int keptExchanges = 20;
    int keptBodyBytes = 16 * 1024;
};

// The local API of `cooldown run --listen` (docs/local-api.md).
struct ApiConfig
{
    // The bearer token clients send, read from the environment variable named in the
    // file (`"token": "${env:NAME}"`); empty: the API is off.
    QByteArray token;
    QString tokenVariable; // NAME, for messages
    // Operations not yet ended (scheduled, waiting, running, parked) beyond which the
    // API answers 429 instead of taking more.
    int maxQueued = 10000;
    qint64 maxBodyBytes = 1024 * 1024;
    int maxJobsPerRequest = 1000;

    bool enabled() const { return !token.isEmpty(); }
};

// A workspace file (README "Workspace files"), validated whole: load() either
// returns a complete config or refuses with a message naming the file, the JSON
// path and what was expected.
struct WorkspaceConfig
{
    static constexpr int kVersion = 1;

    QString sourceName;
    ConcurrencyConfig concurrency;
    RetentionConfig retention;
    IncidentsConfig incidents;
    ApiConfig api;
    // The pause_after_failures of endpoints that do not set their own; 0: off.
    int pauseAfterFailures = 0;
    QList<RateLimitPolicy> policies;
    QMap<QString, RetryProfile> retryProfiles;
    QList<EndpointConfig> endpoints;
    QList<AlertConfig> alerts;
    // Partners' maintenance windows (docs/maintenance.md), their endpoints resolved.
    QList<MaintenanceConfig> maintenance;
    // docs/credentials.md. Their files are read and their ${env:NAME} references
    // resolved at load; what was wrong with them refuses the workspace like any field.
    QList<CredentialConfig> credentials;
    QList<TlsConfig> tls;
    // The workspace's "proxy", the default of endpoints that name none; Kind::None when
    // not given (never Kind::Inherit).
    ProxyConfig proxy;
    // What is allowed but weakens a guarantee (a tls entry that does not verify host
    // names), for check-config and the window to show. Never holds a secret.
    QStringList warnings;

    const EndpointConfig *endpoint(const QString &id) const;
    const CredentialConfig *credential(const QString &id) const;
    const TlsConfig *tlsConfig(const QString &id) const;
    const RateLimitPolicy *policy(const QString &policyId) const;
    RetryProfile retryProfile(const QString &name) const;
    // The secrets the workspace holds in memory (credentials' secrets and header
    // values, the local API's token): what nothing written may contain.
    QStringList secretValues() const;

    // Relative file paths of "tls" entries are taken from the folder of sourceName (the
    // file's path when loaded; the working directory for a bare name).
    // variables: values for ${NAME:KEY} references other than ${env:...}
    // (the demo workspace uses ${demo:base_url}). environment: defaults to the
    // process environment; tests pass their own.
    // The ${demo:base_url} reference of the demo workspace, pointed at baseUrl.
    static QHash<QString, QString>
    demoVariables(const QUrl &baseUrl = QUrl(QStringLiteral("http://127.0.0.1:8089")));

    static std::optional<WorkspaceConfig> load(const QString &path, QString *error,
                                               const QHash<QString, QString> &variables = {});
    static std::optional<WorkspaceConfig>
    parse(const QByteArray &json, const QString &sourceName, QString *error,
          const QHash<QString, QString> &variables = {},
          const std::optional<QHash<QString, QString>> &environment = std::nullopt);
};

} // namespace cooldown
