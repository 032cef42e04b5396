// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"

#include "core/config/JobRequest.h"
#include "core/config/JsonReader.h"
#include "core/http/HttpToken.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

constexpr qint64 kMaxConfigBytes = 16 * 1024 * 1024;

const QStringList kTopKeys = {QStringLiteral("version"),
                              QStringLiteral("concurrency"),
                              QStringLiteral("policies"),
                              QStringLiteral("retry_profiles"),
                              QStringLiteral("endpoints"),
                              QStringLiteral("alerts"),
                              QStringLiteral("retention"),
                              QStringLiteral("api"),
                              QStringLiteral("pause_after_failures")};
const QStringList kAlertKeys = {QStringLiteral("id"),
                                QStringLiteral("url"),
                                QStringLiteral("headers"),
                                QStringLiteral("events"),
                                QStringLiteral("held_longer_than_seconds"),
                                QStringLiteral("min_interval_seconds"),
                                QStringLiteral("timeout_seconds"),
                                QStringLiteral("retry")};
const QStringList kEndpointKeys = {QStringLiteral("id"),
                                   QStringLiteral("name"),
                                   QStringLiteral("method"),
                                   QStringLiteral("url"),
                                   QStringLiteral("headers"),
                                   QStringLiteral("body"),
                                   QStringLiteral("every_seconds"),
                                   QStringLiteral("timeout_seconds"),
                                   QStringLiteral("policy"),
                                   QStringLiteral("partition_key"),
                                   QStringLiteral("retry"),
                                   QStringLiteral("idempotency"),
                                   QStringLiteral("enqueue_only"),
                                   QStringLiteral("pause_after_failures")};

// An endpoint's or an alert's id. Anchored as a whole: '$' would also match before a
// final newline, and let "upload\n" through.
QString idPattern()
{
    return QRegularExpression::anchoredPattern(
        QStringLiteral(R"([A-Za-z0-9][A-Za-z0-9_.\-]{0,63})"));
}

// pause_after_failures: how many operations in a row may end failed before the
// endpoint is paused. A million is far beyond any use and keeps the count's query small.
constexpr double kMaxPauseAfterFailures = 1000000;

// Replaces ${env:NAME} and ${scope:KEY} references. Secrets are resolved here, in
// memory, and nowhere else. ${job:NAME} placeholders are kept as written, to be filled
// per job when its request is sent.
class Substitution
{
public:
    Substitution(const QHash<QString, QString> &variables,
                 const QHash<QString, QString> &environment)
        : m_variables(variables), m_environment(environment)
    {}

    std::optional<QString> apply(const QString &text, const QString &path, JsonReader &reader) const
    {
        static const QRegularExpression kReference(
            QStringLiteral(R"(\$\{([a-z]+):([A-Za-z0-9_.]+)\})"));
        static const QRegularExpression kPlaceholder(QStringLiteral(R"(\$\{job:[A-Za-z0-9_.]+\})"));
        QString out;
        qsizetype last = 0;
        auto it = kReference.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            out += QStringView(text).mid(last, m.capturedStart() - last);
            const QString scope = m.captured(1);
            const QString name = m.captured(2);
            if (scope == QLatin1String("job")) {
                out += m.captured(0);
            } else if (scope == QLatin1String("env")) {
                if (!m_environment.contains(name)) {
                    reader.fail(path, Text::tr("environment variable %1 is not set").arg(name));
                    return std::nullopt;
                }
                out += m_environment.value(name);
            } else {
                const QString key = scope + QLatin1Char(':') + name;
                if (!m_variables.contains(key)) {
                    reader.fail(path, Text::tr("unknown reference ${%1}").arg(key));
                    return std::nullopt;
                }
                out += m_variables.value(key);
            }
            last = m.capturedEnd();
        }
        out += QStringView(text).mid(last);
        QString withoutPlaceholders = out;
        withoutPlaceholders.remove(kPlaceholder);
        if (withoutPlaceholders.contains(QLatin1String("${"))) {
            reader.fail(path, Text::tr("malformed reference: expected ${env:NAME} or ${job:NAME}"));
            return std::nullopt;
        }
        return out;
    }

private:
    const QHash<QString, QString> &m_variables;
    const QHash<QString, QString> &m_environment;
};

QString lineAndColumn(const QByteArray &json, int offset)
{
    const QByteArray before = json.left(offset);
    const int line = int(before.count('\n')) + 1;
    const int column = int(offset - (before.lastIndexOf('\n') + 1)) + 1;
    return Text::tr("line %1, column %2").arg(line).arg(column);
}

QHash<QString, QString> processEnvironment()
{
    QHash<QString, QString> env;
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    for (const QString &key : system.keys())
        env.insert(key, system.value(key));
    return env;
}

// Adds the placeholders of text to the endpoint's.
void notePlaceholders(const QString &text, EndpointConfig &e)
{
    for (const QString &name : jobtemplate::placeholders(text)) {
        if (!e.jobFields.contains(name))
            e.jobFields.append(name);
    }
}

// The url and headers of an endpoint or an alert target, ${...} references resolved.
void readTarget(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
                EndpointConfig &e)
{
    const QString urlPath = JsonReader::join(path, QStringLiteral("url"));
    const QString urlText = r.string(o, QStringLiteral("url"), path, true);
    if (const auto resolved = r.ok() ? subst.apply(urlText, urlPath, r) : std::nullopt) {
        e.urlTemplate = *resolved;
        notePlaceholders(*resolved, e);
        // Where requests go is the workspace's to say: a job fills a path or a query.
        const qsizetype authorityStart = resolved->indexOf(QLatin1String("://"));
        const qsizetype pathStart =
            authorityStart < 0 ? -1
                               : resolved->indexOf(QRegularExpression(QStringLiteral("[/?#]")),
                                                   authorityStart + 3);
        if (!jobtemplate::placeholders(resolved->left(pathStart < 0 ? resolved->size() : pathStart))
                 .isEmpty())
            r.fail(urlPath, Text::tr("a ${job:NAME} placeholder may stand in the path or the "
                                     "query, not in the scheme, host or port"));
        JobValues samples;
        for (const QString &name : jobtemplate::placeholders(*resolved))
            samples.insert(name, QStringLiteral("x"));
        QString unused;
        e.url = QUrl(jobtemplate::fill(*resolved, samples, jobtemplate::Escape::Url, &unused)
                         .value_or(QString()),
                     QUrl::StrictMode);
        const QString scheme = e.url.scheme();
        if (!e.url.isValid() || e.url.host().isEmpty() ||
            (scheme != QLatin1String("http") && scheme != QLatin1String("https")))
            r.fail(urlPath,
                   Text::tr("expected an absolute http or https URL, got '%1'").arg(urlText));
    }

    const QJsonValue headers = o.value(QStringLiteral("headers"));
    const QString headersPath = JsonReader::join(path, QStringLiteral("headers"));
    if (!headers.isUndefined()) {
        if (const auto h = r.object(headers, headersPath)) {
            for (auto it = h->begin(); it != h->end() && r.ok(); ++it) {
                const QString fieldPath = JsonReader::join(headersPath, it.key());
                if (!isToken(it.key())) {
                    r.fail(fieldPath, Text::tr("not a valid header name"));
                    break;
                }
                if (!it.value().isString()) {
                    r.fail(fieldPath, Text::tr("expected a string"));
                    break;
                }
                const QString text = it.value().toString();
                const auto value = subst.apply(text, fieldPath, r);
                if (!value)
                    break;
                if (value->contains(QLatin1Char('\r')) || value->contains(QLatin1Char('\n'))) {
                    r.fail(fieldPath, Text::tr("header values cannot contain line breaks"));
                    break;
                }
                notePlaceholders(*value, e);
                e.headers.append(it.key().toLatin1(), value->toUtf8());
                e.headerTemplates.append(it.key().toLatin1(), text.toUtf8());
            }
        }
    }
}

// The local API's section. The token must come from the environment: a workspace file
// is shared and kept in version control, a secret is not.
void readApi(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
             ApiConfig &api)
{
    r.checkKnownKeys(o, path,
                     {QStringLiteral("token"), QStringLiteral("max_queued"),
                      QStringLiteral("max_body_bytes"), QStringLiteral("max_jobs_per_request")});
    const QString tokenPath = JsonReader::join(path, QStringLiteral("token"));
    const QString written = r.string(o, QStringLiteral("token"), path, false);
    if (r.ok() && o.contains(QStringLiteral("token"))) {
        static const QRegularExpression kEnvOnly(
            QRegularExpression::anchoredPattern(QStringLiteral(R"(\$\{env:([A-Za-z0-9_]+)\})")));
        const QRegularExpressionMatch m = kEnvOnly.match(written);
        if (!m.hasMatch()) {
            r.fail(tokenPath, Text::tr("expected ${env:NAME}: the token is read from the "
                                       "environment, never written in the file"));
        } else if (const auto token = subst.apply(written, tokenPath, r)) {
            if (token->size() < 16)
                r.fail(tokenPath, Text::tr("the token in %1 is %2 characters long; use at "
                                           "least 16 random ones")
                                      .arg(m.captured(1))
                                      .arg(token->size()));
            api.token = token->toUtf8();
            api.tokenVariable = m.captured(1);
        }
    }
    api.maxQueued =
        int(r.number(o, QStringLiteral("max_queued"), path, 1, 100'000'000, api.maxQueued, true));
    api.maxBodyBytes = qint64(r.number(o, QStringLiteral("max_body_bytes"), path, 1024,
                                       64 * 1024 * 1024, double(api.maxBodyBytes), true));
    api.maxJobsPerRequest = int(r.number(o, QStringLiteral("max_jobs_per_request"), path, 1,
                                         100'000, api.maxJobsPerRequest, true));
}

void readEndpoint(const QJsonObject &o, const QString &path, const Substitution &subst,
                  JsonReader &r, int pauseAfterFailures, EndpointConfig &e)
{
    r.checkKnownKeys(o, path, kEndpointKeys);
    e.id = r.string(o, QStringLiteral("id"), path, true);
    static const QRegularExpression kId(idPattern());
    if (r.ok() && !kId.match(e.id).hasMatch())
        r.fail(JsonReader::join(path, QStringLiteral("id")),
               Text::tr("expected 1-64 letters, digits, '.', '_' or '-'"));
    e.name = r.string(o, QStringLiteral("name"), path, false, e.id);

    const QString method =
        r.string(o, QStringLiteral("method"), path, false, QStringLiteral("GET"));
    if (r.ok() && !isToken(method))
        r.fail(JsonReader::join(path, QStringLiteral("method")),
               Text::tr("expected an HTTP method"));
    e.method = method.toUpper().toLatin1();

    readTarget(o, path, subst, r, e);

    const QString bodyPath = JsonReader::join(path, QStringLiteral("body"));
    if (o.contains(QStringLiteral("body"))) {
        const QString body = r.string(o, QStringLiteral("body"), path, false);
        if (const auto resolved = r.ok() ? subst.apply(body, bodyPath, r) : std::nullopt) {
            e.body = resolved->toUtf8();
            notePlaceholders(*resolved, e);
        }
    }

    e.everySeconds =
        int(r.number(o, QStringLiteral("every_seconds"), path, 0, 366 * 86400, 0, true));
    e.timeoutSeconds = r.number(o, QStringLiteral("timeout_seconds"), path, 0.001, 3600, 30);
    e.policy = r.string(o, QStringLiteral("policy"), path, false);
    e.partitionKey = r.string(o, QStringLiteral("partition_key"), path, false);
    notePlaceholders(e.partitionKey, e);
    e.retry = r.string(o, QStringLiteral("retry"), path, false, QStringLiteral("default"));
    e.enqueueOnly = r.boolean(o, QStringLiteral("enqueue_only"), path, false);
    e.pauseAfterFailures = int(r.number(o, QStringLiteral("pause_after_failures"), path, 1,
                                        kMaxPauseAfterFailures, pauseAfterFailures, true));
    if (r.ok() && !e.jobFields.isEmpty()) {
        if (o.contains(QStringLiteral("enqueue_only")) && !e.enqueueOnly)
            r.fail(JsonReader::join(path, QStringLiteral("enqueue_only")),
                   Text::tr("an endpoint with ${job:NAME} placeholders runs only enqueued "
                            "jobs"));
        else if (e.everySeconds > 0)
            r.fail(JsonReader::join(path, QStringLiteral("every_seconds")),
                   Text::tr("an endpoint with ${job:NAME} placeholders runs only enqueued "
                            "jobs, not periodically"));
        e.enqueueOnly = true;
    }
    if (r.ok() && e.enqueueOnly && e.everySeconds > 0)
        r.fail(JsonReader::join(path, QStringLiteral("every_seconds")),
               Text::tr("an endpoint that runs only enqueued jobs cannot run periodically"));

    const QJsonValue idem = o.value(QStringLiteral("idempotency"));
    const QString idemPath = JsonReader::join(path, QStringLiteral("idempotency"));
    if (!idem.isUndefined()) {
        if (const auto io = r.object(idem, idemPath)) {
            r.checkKnownKeys(*io, idemPath,
                             {QStringLiteral("header"), QStringLiteral("key_valid_seconds")});
            const QString header = r.string(*io, QStringLiteral("header"), idemPath, true);
            if (r.ok() && !isToken(header))
                r.fail(JsonReader::join(idemPath, QStringLiteral("header")),
                       Text::tr("not a valid header name"));
            e.idempotencyHeader = header.toLatin1();
            e.keyValidSeconds =
                r.number(*io, QStringLiteral("key_valid_seconds"), idemPath, 1, 366.0 * 86400, 0);
        }
    }
}

// An alert target: a webhook that hears of events, sent through the engine as a POST
// of JSON with its own idempotency key.
void readAlert(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
               AlertConfig &a)
{
    r.checkKnownKeys(o, path, kAlertKeys);
    a.id = r.string(o, QStringLiteral("id"), path, true);
    static const QRegularExpression kId(idPattern());
    if (r.ok() && !kId.match(a.id).hasMatch())
        r.fail(JsonReader::join(path, QStringLiteral("id")),
               Text::tr("expected 1-64 letters, digits, '.', '_' or '-'"));
    EndpointConfig &e = a.target;
    e.id = alertEndpointId(a.id);
    e.name = Text::tr("Alert %1").arg(a.id);
    e.method = "POST";
    readTarget(o, path, subst, r, e);
    if (r.ok() && !e.jobFields.isEmpty())
        r.fail(path, Text::tr("an alert target cannot hold ${job:NAME} placeholders"));
    if (!e.headers.contains("Content-Type")) {
        e.headers.append("Content-Type", "application/json");
        e.headerTemplates.append("Content-Type", "application/json");
    }
    e.idempotencyHeader = "Idempotency-Key";
    e.timeoutSeconds = r.number(o, QStringLiteral("timeout_seconds"), path, 0.001, 3600, 10);
    e.retry = r.string(o, QStringLiteral("retry"), path, false, QStringLiteral("default"));
    a.heldLongerThanSeconds =
        r.number(o, QStringLiteral("held_longer_than_seconds"), path, 0, 366 * 86400, 60);
    a.minIntervalSeconds =
        r.number(o, QStringLiteral("min_interval_seconds"), path, 0, 366 * 86400, 300);
    const QString eventsPath = JsonReader::join(path, QStringLiteral("events"));
    if (!r.ok())
        return;
    if (!o.contains(QStringLiteral("events"))) {
        r.fail(eventsPath, Text::tr("required, expected a list of: %1")
                               .arg(QStringLiteral("operation_failed, endpoint_paused, "
                                                   "partition_held, policy_drift")));
        return;
    }
    if (const auto events = r.array(o.value(QStringLiteral("events")), eventsPath)) {
        if (events->isEmpty())
            r.fail(eventsPath, Text::tr("expected at least one event"));
        for (qsizetype i = 0; i < events->size() && r.ok(); ++i) {
            const auto event = alertEventFromString(events->at(i).toString());
            if (!events->at(i).isString() || !event) {
                r.fail(JsonReader::index(eventsPath, i),
                       Text::tr("expected one of: %1")
                           .arg(QStringLiteral("operation_failed, endpoint_paused, "
                                               "partition_held, policy_drift")));
                break;
            }
            if (!a.events.contains(*event))
                a.events.append(*event);
        }
    }
}

} // namespace

const EndpointConfig *WorkspaceConfig::endpoint(const QString &id) const
{
    for (const EndpointConfig &e : endpoints) {
        if (e.id == id)
            return &e;
    }
    return nullptr;
}

const char *textOf(AlertEvent event)
{
    switch (event) {
    case AlertEvent::OperationFailed:
        return "operation_failed";
    case AlertEvent::EndpointPaused:
        return "endpoint_paused";
    case AlertEvent::PartitionHeld:
        return "partition_held";
    case AlertEvent::PolicyDrift:
        return "policy_drift";
    }
    return "operation_failed";
}

std::optional<AlertEvent> alertEventFromString(QStringView text)
{
    for (const AlertEvent e : {AlertEvent::OperationFailed, AlertEvent::EndpointPaused,
                               AlertEvent::PartitionHeld, AlertEvent::PolicyDrift}) {
        if (text == QLatin1String(textOf(e)))
            return e;
    }
    return std::nullopt;
}

QString alertEndpointId(const QString &alertId)
{
    return QStringLiteral("alert:") + alertId;
}

const RateLimitPolicy *WorkspaceConfig::policy(const QString &policyId) const
{
    for (const RateLimitPolicy &p : policies) {
        if (p.policyId == policyId)
            return &p;
    }
    return nullptr;
}

QHash<QString, QString> WorkspaceConfig::demoVariables(const QUrl &baseUrl)
{
    QString url = baseUrl.toString();
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    return {{QStringLiteral("demo:base_url"), url}};
}

RetryProfile WorkspaceConfig::retryProfile(const QString &name) const
{
    return retryProfiles.value(name, RetryProfile());
}

std::optional<WorkspaceConfig> WorkspaceConfig::load(const QString &path, QString *error,
                                                     const QHash<QString, QString> &variables)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = Text::tr("%1: cannot read: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    if (file.size() > kMaxConfigBytes) {
        *error = Text::tr("%1: larger than %2 MiB").arg(path).arg(kMaxConfigBytes >> 20);
        return std::nullopt;
    }
    return parse(file.readAll(), path, error, variables);
}

std::optional<WorkspaceConfig>
WorkspaceConfig::parse(const QByteArray &json, const QString &sourceName, QString *error,
                       const QHash<QString, QString> &variables,
                       const std::optional<QHash<QString, QString>> &environment)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error =
            QStringLiteral("%1: %2: %3")
                .arg(sourceName, lineAndColumn(json, parseError.offset), parseError.errorString());
        return std::nullopt;
    }

    QString problem;
    JsonReader r(&problem);
    const QHash<QString, QString> env = environment ? *environment : processEnvironment();
    const Substitution subst(variables, env);
    WorkspaceConfig config;
    config.sourceName = sourceName;

    const auto top =
        r.object(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(), QStringLiteral("$"));
    if (top) {
        r.checkKnownKeys(*top, QString(), kTopKeys);
        if (r.ok() && !top->contains(QStringLiteral("version")))
            r.fail(QStringLiteral("version"), Text::tr("required, expected %1").arg(kVersion));
        const double version =
            r.number(*top, QStringLiteral("version"), QString(), 1, 1000000, 0, true);
        if (r.ok() && version != kVersion)
            r.fail(QStringLiteral("version"),
                   Text::tr("this build reads version %1, the file is version %2")
                       .arg(kVersion)
                       .arg(version));

        if (top->contains(QStringLiteral("concurrency"))) {
            if (const auto c = r.object(top->value(QStringLiteral("concurrency")),
                                        QStringLiteral("concurrency"))) {
                const QString path = QStringLiteral("concurrency");
                r.checkKnownKeys(*c, path,
                                 {QStringLiteral("max_in_flight"), QStringLiteral("per_host")});
                config.concurrency.maxInFlight =
                    int(r.number(*c, QStringLiteral("max_in_flight"), path, 1, 1024, 8, true));
                // The fleet's: several workers may have more than the 6 connections one
                // process keeps to a host.
                config.concurrency.perHost =
                    int(r.number(*c, QStringLiteral("per_host"), path, 1, 1024, 6, true));
            }
        }

        if (top->contains(QStringLiteral("retention"))) {
            const QString path = QStringLiteral("retention");
            if (const auto c = r.object(top->value(path), path)) {
                r.checkKnownKeys(*c, path,
                                 {QStringLiteral("raw_days"), QStringLiteral("rollup_days")});
                config.retention.rawDays =
                    int(r.number(*c, QStringLiteral("raw_days"), path, 0, 36500, 30, true));
                config.retention.rollupDays =
                    int(r.number(*c, QStringLiteral("rollup_days"), path, 0, 36500, 400, true));
            }
        }

        if (top->contains(QStringLiteral("api"))) {
            const QString path = QStringLiteral("api");
            if (const auto c = r.object(top->value(path), path))
                readApi(*c, path, subst, r, config.api);
        }

        if (top->contains(QStringLiteral("policies"))) {
            const QString path = QStringLiteral("policies");
            if (const auto policies = r.array(top->value(path), path)) {
                QString why;
                if (const auto list = RateLimitPolicy::listFromJson(*policies, path, &why))
                    config.policies = *list;
                else
                    r.fail(QString(), why);
            }
        }

        config.retryProfiles.insert(QStringLiteral("default"), RetryProfile());
        if (top->contains(QStringLiteral("retry_profiles"))) {
            const QString path = QStringLiteral("retry_profiles");
            if (const auto profiles = r.object(top->value(path), path)) {
                for (auto it = profiles->begin(); it != profiles->end() && r.ok(); ++it) {
                    const QString profilePath = JsonReader::join(path, it.key());
                    const auto fields = r.object(it.value(), profilePath);
                    if (!fields)
                        break;
                    RetryProfile profile;
                    for (auto f = fields->begin(); f != fields->end(); ++f) {
                        QString why;
                        if (!profile.setField(f.key(), f.value(), &why)) {
                            r.fail(JsonReader::join(profilePath, f.key()), why);
                            break;
                        }
                    }
                    if (r.ok() && profile.capSeconds < profile.baseSeconds)
                        r.fail(JsonReader::join(profilePath, QStringLiteral("cap_seconds")),
                               Text::tr("expected at least base_seconds (%1)")
                                   .arg(profile.baseSeconds));
                    config.retryProfiles.insert(it.key(), profile);
                }
            }
        }

        // Before the endpoints: it is the default of theirs.
        config.pauseAfterFailures = int(r.number(*top, QStringLiteral("pause_after_failures"),
                                                 QString(), 1, kMaxPauseAfterFailures, 0, true));

        const QString path = QStringLiteral("endpoints");
        if (r.ok() && !top->contains(path))
            r.fail(path, Text::tr("required, expected an array of endpoints"));
        if (const auto endpoints = r.array(top->value(path), path)) {
            if (endpoints->isEmpty())
                r.fail(path, Text::tr("expected at least one endpoint"));
            QSet<QString> ids;
            for (qsizetype i = 0; i < endpoints->size() && r.ok(); ++i) {
                const QString endpointPath = JsonReader::index(path, i);
                const auto o = r.object(endpoints->at(i), endpointPath);
                if (!o)
                    break;
                EndpointConfig e;
                readEndpoint(*o, endpointPath, subst, r, config.pauseAfterFailures, e);
                if (!r.ok())
                    break;
                if (ids.contains(e.id)) {
                    r.fail(JsonReader::join(endpointPath, QStringLiteral("id")),
                           Text::tr("duplicate id '%1'").arg(e.id));
                    break;
                }
                ids.insert(e.id);
                if (!config.retryProfiles.contains(e.retry)) {
                    r.fail(JsonReader::join(endpointPath, QStringLiteral("retry")),
                           Text::tr("no retry profile named '%1'").arg(e.retry));
                    break;
                }
                if (!e.policy.isEmpty()) {
                    if (!config.policy(e.policy)) {
                        r.fail(JsonReader::join(endpointPath, QStringLiteral("policy")),
                               Text::tr("no policy with policy_id '%1'").arg(e.policy));
                        break;
                    }
                }
                config.endpoints.append(e);
            }
            // Keys are stored, shown and exported (docs/intake.md).
            for (qsizetype i = 0; i < config.endpoints.size() && r.ok(); ++i) {
                const QString &key = config.endpoints.at(i).partitionKey;
                const QString problem = jobtemplate::placeholders(key).isEmpty()
                                            ? partitionKeyProblem(config, key)
                                            : QString();
                if (!problem.isEmpty())
                    r.fail(JsonReader::join(JsonReader::index(path, i),
                                            QStringLiteral("partition_key")),
                           problem);
            }
        }
    }

    if (r.ok() && top && top->contains(QStringLiteral("alerts"))) {
        const QString path = QStringLiteral("alerts");
        if (const auto alerts = r.array(top->value(path), path)) {
            QSet<QString> ids;
            for (qsizetype i = 0; i < alerts->size() && r.ok(); ++i) {
                const QString alertPath = JsonReader::index(path, i);
                const auto o = r.object(alerts->at(i), alertPath);
                if (!o)
                    break;
                AlertConfig a;
                readAlert(*o, alertPath, subst, r, a);
                if (!r.ok())
                    break;
                if (ids.contains(a.id)) {
                    r.fail(JsonReader::join(alertPath, QStringLiteral("id")),
                           Text::tr("duplicate id '%1'").arg(a.id));
                    break;
                }
                ids.insert(a.id);
                if (!config.retryProfiles.contains(a.target.retry)) {
                    r.fail(JsonReader::join(alertPath, QStringLiteral("retry")),
                           Text::tr("no retry profile named '%1'").arg(a.target.retry));
                    break;
                }
                config.alerts.append(a);
            }
        }
    }

    if (!r.ok()) {
        *error = QStringLiteral("%1: %2").arg(sourceName, problem);
        return std::nullopt;
    }
    return config;
}

} // namespace cooldown
