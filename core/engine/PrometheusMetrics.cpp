// SPDX-License-Identifier: Apache-2.0
#include "core/engine/PrometheusMetrics.h"

#include <QLocale>
#include <QStringList>

namespace cooldown {

namespace {

// A label value as the exposition format wants it: backslash, double quote and line
// feed escaped.
QString labelValue(const QString &value)
{
    QString out;
    out.reserve(value.size());
    for (const QChar c : value) {
        if (c == QLatin1Char('\\'))
            out += QLatin1String("\\\\");
        else if (c == QLatin1Char('"'))
            out += QLatin1String("\\\"");
        else if (c == QLatin1Char('\n'))
            out += QLatin1String("\\n");
        else
            out += c;
    }
    return out;
}

QString labels(std::initializer_list<std::pair<const char *, QString>> pairs)
{
    QStringList parts;
    for (const auto &[name, value] : pairs)
        parts.append(QStringLiteral("%1=\"%2\"").arg(QLatin1String(name), labelValue(value)));
    return parts.isEmpty() ? QString()
                           : QLatin1Char('{') + parts.join(QLatin1Char(',')) + QLatin1Char('}');
}

// A float as Prometheus reads one: shortest round-trip text, "+Inf" for infinity.
QString sample(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

void header(QString &out, const char *name, const char *type, const char *help)
{
    out += QStringLiteral("# HELP %1 %2\n# TYPE %1 %3\n")
               .arg(QLatin1String(name), QLatin1String(help), QLatin1String(type));
}

// A gauge without labels: its header and its one sample.
void gauge(QString &out, const char *name, const char *help, qint64 value)
{
    header(out, name, "gauge", help);
    out += QStringLiteral("%1 %2\n").arg(QLatin1String(name)).arg(value);
}

} // namespace

QString PrometheusMetrics::statusClass(int status)
{
    if (status < 100 || status > 599)
        return QStringLiteral("none");
    return QStringLiteral("%1xx").arg(status / 100);
}

void PrometheusMetrics::Histogram::observe(double seconds)
{
    ++count;
    sum += seconds;
    for (size_t i = 0; i < kWaitBuckets.size(); ++i) {
        if (seconds <= kWaitBuckets[i]) {
            ++buckets[i];
            return;
        }
    }
}

void PrometheusMetrics::record(const AttemptRecord &a)
{
    // An attempt that lost its lease changed nothing: its request still counts.
    const QString decision =
        a.leaseConflict ? QStringLiteral("lease_conflict") : QLatin1String(textOf(a.decision));
    ++m_attempts[{a.endpointId, statusClass(a.status), decision}];
    if (a.status == 429 || a.status == 503)
        ++m_throttles[{a.endpointId, a.status}];
    if (!a.leaseConflict && a.decision == Decision::Retry && a.waitMs >= 0)
        m_waits[QLatin1String(textOf(a.waitSource))].observe(double(a.waitMs) / 1000.0);
    if (!a.leaseConflict && a.decision == Decision::Fail)
        ++m_finalFailures[a.reason];
}

void PrometheusMetrics::recordStoreWrite(double seconds)
{
    m_storeWrites.observe(seconds);
}

QByteArray PrometheusMetrics::render(const ScrapeState &state) const
{
    QString out;
    renderAttempts(out);
    renderState(out, state);
    renderCredentials(out, state);
    return out.toUtf8();
}

void PrometheusMetrics::renderAttempts(QString &out) const
{
    header(out, "cooldown_attempts_total", "counter",
           "Attempts recorded by this worker, by endpoint, status class and decision.");
    for (const auto &[key, n] : m_attempts) {
        const auto &[endpoint, statusClass, decision] = key;
        out += QStringLiteral("cooldown_attempts_total%1 %2\n")
                   .arg(labels({{"endpoint", endpoint},
                                {"status_class", statusClass},
                                {"decision", decision}}))
                   .arg(n);
    }
    header(out, "cooldown_throttled_responses_total", "counter",
           "Answers 429 Too Many Requests and 503 Service Unavailable, by endpoint.");
    for (const auto &[key, n] : m_throttles)
        out += QStringLiteral("cooldown_throttled_responses_total%1 %2\n")
                   .arg(labels({{"endpoint", key.first}, {"code", QString::number(key.second)}}))
                   .arg(n);
    header(out, "cooldown_wait_seconds", "histogram",
           "Waits chosen before a retry, by where they came from (retry-after, ratelimit, "
           "x-ratelimit, problem, backoff).");
    for (const auto &[source, h] : m_waits)
        histogram(out, "cooldown_wait_seconds",
                  QStringLiteral("source=\"%1\"").arg(labelValue(source)), h);
    header(out, "cooldown_final_failures_total", "counter",
           "Operations this worker failed finally, by reason.");
    for (const auto &[reason, n] : m_finalFailures)
        out += QStringLiteral("cooldown_final_failures_total%1 %2\n")
                   .arg(labels({{"reason", reason}}))
                   .arg(n);
    header(out, "cooldown_store_write_seconds", "histogram",
           "How long committing a group of finished attempts to the database took.");
    histogram(out, "cooldown_store_write_seconds", QString(), m_storeWrites);
}

void PrometheusMetrics::histogram(QString &out, const char *name, const QString &labelPairs,
                                  const Histogram &h)
{
    qint64 cumulative = 0;
    const QString inner = labelPairs.isEmpty() ? QString() : labelPairs + QLatin1Char(',');
    for (size_t i = 0; i < kWaitBuckets.size(); ++i) {
        cumulative += h.buckets[i];
        out += QStringLiteral("%1_bucket{%2le=\"%3\"} %4\n")
                   .arg(QLatin1String(name), inner, sample(kWaitBuckets[i]))
                   .arg(cumulative);
    }
    out += QStringLiteral("%1_bucket{%2le=\"+Inf\"} %3\n")
               .arg(QLatin1String(name), inner)
               .arg(h.count);
    const QString braces =
        labelPairs.isEmpty() ? QString() : QLatin1Char('{') + labelPairs + QLatin1Char('}');
    out += QStringLiteral("%1_sum%2 %3\n").arg(QLatin1String(name), braces, sample(h.sum));
    out += QStringLiteral("%1_count%2 %3\n").arg(QLatin1String(name), braces).arg(h.count);
}

void PrometheusMetrics::renderState(QString &out, const ScrapeState &state)
{
    header(out, "cooldown_operations", "gauge",
           "Operations in the database that have not ended, by state.");
    for (const OperationState s : {OperationState::Scheduled, OperationState::Running,
                                   OperationState::Waiting, OperationState::Parked})
        out += QStringLiteral("cooldown_operations%1 %2\n")
                   .arg(labels({{"state", toString(s)}}))
                   .arg(state.operationsByState.value(s));
    gauge(out, "cooldown_database_up",
          "1 while this worker can use its database, 0 while it is unreachable or full.",
          state.databaseUp ? 1 : 0);
    gauge(out, "cooldown_in_flight", "Exchanges this worker has in flight.", state.inFlight);
    gauge(out, "cooldown_offline",
          "1 while no exchange of this worker reaches the network (work is held), else 0.",
          state.offlineSinceMs >= 0 ? 1 : 0);
    gauge(out, "cooldown_incidents_open",
          "Incidents open for the fleet: integrations failing for one shared cause.",
          state.openIncidents);
    gauge(out, "cooldown_blocked_endpoints",
          "Endpoints blocked by an open incident (their failures are held, not counted).",
          state.blockedEndpoints);
    gauge(out, "cooldown_max_in_flight",
          "The workspace's max_in_flight (for all workers together).", state.maxInFlight);
    gauge(out, "cooldown_per_host_limit", "The workspace's per_host (for all workers together).",
          state.perHost);
    gauge(out, "cooldown_held_partitions",
          "Partitions a server told to wait, as the database has them.", state.heldPartitions);
    gauge(out, "cooldown_held_endpoints",
          "Endpoints held by a maintenance window or an operator's pause for a time.",
          state.heldEndpoints);
    header(out, "cooldown_endpoint_latency_degraded", "gauge",
           "1 while the endpoint's p95 is over its latency budget, else 0 (endpoints with a "
           "budget only).");
    for (auto it = state.latencyDegraded.cbegin(); it != state.latencyDegraded.cend(); ++it)
        out += QStringLiteral("cooldown_endpoint_latency_degraded%1 %2\n")
                   .arg(labels({{"endpoint", it.key()}}))
                   .arg(it.value() ? 1 : 0);
    header(out, "cooldown_policy_partitions", "gauge", "Partitions of each policy.");
    for (auto it = state.partitionsByPolicy.cbegin(); it != state.partitionsByPolicy.cend(); ++it)
        out += QStringLiteral("cooldown_policy_partitions%1 %2\n")
                   .arg(labels({{"policy", it.key()}}))
                   .arg(it.value());
    header(out, "cooldown_policy_available_units", "gauge",
           "Units the buckets of each policy hold now, summed over its partitions.");
    for (auto it = state.availableUnitsByPolicy.cbegin(); it != state.availableUnitsByPolicy.cend();
         ++it)
        out += QStringLiteral("cooldown_policy_available_units%1 %2\n")
                   .arg(labels({{"policy", it.key()}}))
                   .arg(it.value());
}

void PrometheusMetrics::renderCredentials(QString &out, const ScrapeState &state)
{
    if (state.credentials.isEmpty())
        return;
    header(out, "cooldown_credential_state", "gauge",
           "1 for the state each OAuth credential of this worker is in (idle, valid, "
           "renewing, failing, refused), 0 for the others.");
    for (const CredentialState &c : state.credentials) {
        for (const auto phase : {CredentialState::Phase::Idle, CredentialState::Phase::Valid,
                                 CredentialState::Phase::Renewing, CredentialState::Phase::Failing,
                                 CredentialState::Phase::Refused})
            out +=
                QStringLiteral("cooldown_credential_state%1 %2\n")
                    .arg(labels({{"credentials", c.id}, {"state", QLatin1String(textOf(phase))}}))
                    .arg(c.phase == phase ? 1 : 0);
    }
    header(out, "cooldown_credential_valid_seconds", "gauge",
           "Seconds the token each OAuth credential holds is still valid; 0 without one.");
    for (const CredentialState &c : state.credentials)
        out += QStringLiteral("cooldown_credential_valid_seconds%1 %2\n")
                   .arg(labels({{"credentials", c.id}}),
                        sample(c.validUntilMs > state.nowMs
                                   ? double(c.validUntilMs - state.nowMs) / 1000.0
                                   : 0.0));
    header(out, "cooldown_credential_token_requests_total", "counter",
           "Token requests this worker sent for each OAuth credential.");
    for (const CredentialState &c : state.credentials)
        out += QStringLiteral("cooldown_credential_token_requests_total%1 %2\n")
                   .arg(labels({{"credentials", c.id}}))
                   .arg(c.tokenRequests);
    gauge(out, "cooldown_waiting_for_credentials",
          "Operations this worker holds until their credential has a token.",
          state.waitingForCredentials);
}

} // namespace cooldown
