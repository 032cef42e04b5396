// SPDX-License-Identifier: Apache-2.0
#include "ui/IntegrationsModel.h"

#include "core/engine/IncidentCause.h"
#include "ui/Format.h"
#include "ui/Palette.h"

#include <QCoreApplication>
#include <QLocale>
#include <QStringList>

#include <algorithm>

namespace cooldown {

IntegrationState integrationState(const IntegrationStatus &s, qint64 nowMs)
{
    if (s.paused)
        return IntegrationState::Paused;
    if (s.endpointHeldUntilMs > nowMs)
        return IntegrationState::Maintenance;
    if (format::credentialRefused(s.credential))
        return IntegrationState::CredentialsRefused;
    if (s.heldUntilMs > nowMs)
        return IntegrationState::Held;
    if (!s.blockedBy.isEmpty())
        return IntegrationState::Blocked;
    // Before "failing": an operation that failed while the token endpoint was down is
    // one more sign of that, and what the operator should look at is the token endpoint.
    if (format::credentialWaiting(s.credential, nowMs))
        return IntegrationState::WaitingForCredentials;
    if (s.lastEndedFailed)
        return IntegrationState::Failing;
    if (s.attempts > 0 && double(s.throttled) >= kThrottledShare * double(s.attempts))
        return IntegrationState::Throttled;
    if (s.latencyBudgetMs > 0 && s.p95Ms > s.latencyBudgetMs)
        return IntegrationState::Degraded;
    if (s.open.waiting > 0)
        return IntegrationState::Waiting;
    return IntegrationState::Ok;
}

QString integrationStateName(IntegrationState state)
{
    switch (state) {
    case IntegrationState::Paused:
        return IntegrationsModel::tr("paused");
    case IntegrationState::Maintenance:
        return IntegrationsModel::tr("in maintenance");
    case IntegrationState::CredentialsRefused:
        return IntegrationsModel::tr("credentials refused");
    case IntegrationState::Held:
        return IntegrationsModel::tr("held");
    case IntegrationState::Blocked:
        return IntegrationsModel::tr("blocked");
    case IntegrationState::WaitingForCredentials:
        return IntegrationsModel::tr("waiting for credentials");
    case IntegrationState::Failing:
        return IntegrationsModel::tr("failing");
    case IntegrationState::Throttled:
        return IntegrationsModel::tr("throttled");
    case IntegrationState::Degraded:
        return IntegrationsModel::tr("degraded");
    case IntegrationState::Waiting:
        return IntegrationsModel::tr("waiting");
    case IntegrationState::Ok:
        return IntegrationsModel::tr("ok");
    }
    return QString();
}

QColor integrationStateColor(IntegrationState state)
{
    switch (state) {
    case IntegrationState::Paused:
        return QColor(0x80, 0x80, 0x80);
    case IntegrationState::Maintenance:
        // Planned and ending by itself: quieter than a problem, apart from "paused".
        return QColor(0x5a, 0x7d, 0x9a);
    case IntegrationState::CredentialsRefused:
    case IntegrationState::Held:
    case IntegrationState::Failing:
        return palette::problem();
    case IntegrationState::Blocked:
        // A problem, but the shared cause's: the incident, not this integration.
        return QColor(0xa8, 0x4b, 0x2f);
    case IntegrationState::WaitingForCredentials:
        // A hold of the engine's own, like "waiting", but one that stops every request.
        return QColor(0x7a, 0x4f, 0xb5);
    case IntegrationState::Throttled:
        return QColor(0xe0, 0x8a, 0x00);
    case IntegrationState::Degraded:
        return QColor(0xb8, 0x86, 0x0b);
    case IntegrationState::Waiting:
        return QColor(0x1f, 0x5f, 0xbf);
    case IntegrationState::Ok:
        return QColor(0x26, 0x80, 0x3c);
    }
    return QColor();
}

qint64 nextRunAtMs(const IntegrationStatus &s, qint64 nowMs)
{
    qint64 next = s.open.nextAttemptAtMs;
    if (s.nextTickAtMs >= 0)
        next = next < 0 ? s.nextTickAtMs : std::min(next, s.nextTickAtMs);
    if (next >= 0 && s.heldUntilMs > next)
        next = s.heldUntilMs;
    if (next >= 0 && format::credentialWaiting(s.credential, nowMs) &&
        s.credential.nextTryAtMs > next)
        next = s.credential.nextTryAtMs;
    return next;
}

IntegrationsModel::IntegrationsModel(QObject *parent) : QAbstractTableModel(parent) {}

int IntegrationsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int IntegrationsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

IntegrationState IntegrationsModel::stateAt(int row) const
{
    return integrationState(m_rows.at(row), m_nowMs);
}

int IntegrationsModel::rowOf(const QString &endpointId) const
{
    for (int r = 0; r < m_rows.size(); ++r) {
        if (m_rows.at(r).endpointId == endpointId)
            return r;
    }
    return -1;
}

void IntegrationsModel::setSnapshot(const IntegrationsSnapshot &snapshot)
{
    m_rangeMs = snapshot.rangeMs;
    bool same = snapshot.rows.size() == m_rows.size();
    for (int r = 0; same && r < m_rows.size(); ++r)
        same = m_rows.at(r).endpointId == snapshot.rows.at(r).endpointId;
    if (!same) {
        beginResetModel();
        m_rows = snapshot.rows;
        endResetModel();
        return;
    }
    m_rows = snapshot.rows;
    matchCredentials();
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

void IntegrationsModel::setCredentials(const QList<CredentialState> &credentials)
{
    m_credentials.clear();
    for (const CredentialState &c : credentials)
        m_credentials.insert(c.id, c);
    // The engine reports its state every second; rows change only when a credential did.
    if (matchCredentials() && !m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

bool IntegrationsModel::matchCredentials()
{
    bool changed = false;
    for (IntegrationStatus &row : m_rows) {
        CredentialState c =
            row.credentialId.isEmpty() ? CredentialState() : m_credentials.value(row.credentialId);
        const CredentialState &old = row.credential;
        // The token count moves with every renewal and shows nowhere: not a change.
        changed = changed || c.id != old.id || c.phase != old.phase ||
                  c.validUntilMs != old.validUntilMs || c.failingSinceMs != old.failingSinceMs ||
                  c.nextTryAtMs != old.nextTryAtMs || c.lastError != old.lastError ||
                  c.scope != old.scope;
        row.credential = std::move(c);
    }
    return changed;
}

void IntegrationsModel::setNowMs(qint64 nowMs)
{
    m_nowMs = nowMs;
    if (m_rows.isEmpty())
        return;
    // Holds end and times count down: the light, the last success and the next run.
    const int last = int(m_rows.size()) - 1;
    emit dataChanged(index(0, StateColumn), index(last, StateColumn));
    emit dataChanged(index(0, LastSuccessColumn), index(last, LastSuccessColumn));
    emit dataChanged(index(0, NextRunColumn), index(last, NextRunColumn));
}

namespace {

QString percent(qint64 part, qint64 whole)
{
    if (whole <= 0)
        return QStringLiteral("—");
    const double share = 100.0 * double(part) / double(whole);
    // 99.96 % is not 100 %: an integration that failed once is not shown as perfect.
    const int decimals = (share > 99.0 && part < whole) || (share < 1.0 && part > 0) ? 1 : 0;
    double shown = share;
    if (part < whole)
        shown = std::min(shown, 99.9);
    if (part > 0)
        shown = std::max(shown, 0.1);
    return QLocale().toString(shown, 'f', decimals) + QStringLiteral(" %");
}

} // namespace

QVariant IntegrationsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const IntegrationStatus &s = m_rows.at(index.row());
    const IntegrationState state = integrationState(s, m_nowMs);
    switch (role) {
    case EndpointIdRole:
        return s.endpointId;
    case StateRole:
        return int(state);
    case SparkAttemptsRole:
        return QVariant::fromValue(s.hourAttempts);
    case SparkThrottledRole:
        return QVariant::fromValue(s.hourThrottled);
    case Qt::ToolTipRole:
        return toolTip(index.row(), index.column());
    case Qt::TextAlignmentRole:
        switch (index.column()) {
        case SuccessRateColumn:
        case ThrottledColumn:
        case P50Column:
        case P95Column:
            return int(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return int(Qt::AlignLeft | Qt::AlignVCenter);
        }
    case Qt::ForegroundRole:
        if (index.column() == StateColumn &&
            (state == IntegrationState::Failing || state == IntegrationState::Held ||
             state == IntegrationState::CredentialsRefused || state == IntegrationState::Blocked))
            return palette::problem();
        if (index.column() == ThrottledColumn && s.attempts > 0 &&
            double(s.throttled) >= kThrottledShare * double(s.attempts))
            return integrationStateColor(IntegrationState::Throttled).darker(130);
        if (index.column() == P95Column && s.latencyBudgetMs > 0 && s.p95Ms > s.latencyBudgetMs)
            return integrationStateColor(IntegrationState::Degraded).darker(130);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case StateColumn:
        if (state == IntegrationState::Blocked)
            return tr("blocked by %1").arg(incidentCauseText(s.blockedBy));
        return integrationStateName(state);
    case EndpointColumn:
        return s.name.isEmpty() || s.name == s.endpointId
                   ? s.endpointId
                   : QStringLiteral("%1 (%2)").arg(s.endpointId, s.name);
    case LastSuccessColumn:
        return s.lastSuccessAtMs < 0 ? tr("never") : format::localTime(s.lastSuccessAtMs, m_nowMs);
    case SuccessRateColumn:
        return percent(s.successes, s.outcomes);
    case ThrottledColumn:
        return percent(s.throttled, s.attempts);
    case P50Column:
        return format::duration(s.p50Ms);
    case P95Column:
        return format::duration(s.p95Ms);
    case NextRunColumn: {
        if (s.paused)
            return tr("paused");
        if (s.endpointHeldUntilMs > m_nowMs)
            return tr("held until %1").arg(format::localTime(s.endpointHeldUntilMs, m_nowMs));
        if (s.open.running > 0)
            return tr("running now");
        const qint64 next = nextRunAtMs(s, m_nowMs);
        return next < 0 ? QStringLiteral("—") : format::countdown(next, m_nowMs);
    }
    case SparklineColumn:
        return QString();
    }
    return {};
}

QString IntegrationsModel::toolTip(int row, int column) const
{
    const IntegrationStatus &s = m_rows.at(row);
    const QString range = format::duration(m_rangeMs);
    switch (column) {
    case StateColumn: {
        QStringList lines;
        lines << integrationStateName(integrationState(s, m_nowMs));
        if (s.paused)
            lines << tr("An operator paused this endpoint; none of its operations is claimed.");
        if (s.endpointHeldUntilMs > m_nowMs)
            lines << tr("Held until %1: %2. Its operations wait and its periodic checks are "
                        "skipped; it resumes by itself.")
                         .arg(format::localTime(s.endpointHeldUntilMs, m_nowMs),
                              s.endpointHoldReason);
        if (s.heldUntilMs > m_nowMs)
            lines << tr("The server holds partition %1 / %2 until %3: %4")
                         .arg(s.policyId, s.partitionKey, format::localTime(s.heldUntilMs, m_nowMs),
                              s.holdReason);
        if (!s.blockedBy.isEmpty())
            lines << tr("Blocked by %1 since %2: several integrations fail for it. Their "
                        "failures are held without spending attempts and count towards no "
                        "automatic pause; one alert speaks for all of them.")
                         .arg(incidentCauseText(s.blockedBy),
                              format::localTime(s.blockedSinceMs, m_nowMs));
        const QString trouble = format::credentialTrouble(s.credential, m_nowMs);
        if (!trouble.isEmpty()) {
            lines << trouble;
            if (s.credential.failingSinceMs >= 0)
                lines << tr("The token endpoint has failed since %1.")
                             .arg(format::localTime(s.credential.failingSinceMs, m_nowMs));
            lines << (format::credentialRefused(s.credential)
                          ? tr("Operations that need a token are parked: mend the client's id "
                               "or secret, then retry them.")
                          : tr("Operations wait for a token without spending attempts, and go "
                               "out once one comes."));
        }
        if (s.lastEndedFailed)
            lines << tr("Its latest operation that ended failed.");
        if (s.attempts > 0)
            lines << tr("%1 of %2 attempts answered 429 or 503 in the last %3.")
                         .arg(s.throttled)
                         .arg(s.attempts)
                         .arg(range);
        lines << tr("%1 scheduled · %2 waiting · %3 running · %4 parked")
                     .arg(s.open.scheduled)
                     .arg(s.open.waiting)
                     .arg(s.open.running)
                     .arg(s.open.parked);
        return lines.join(QLatin1Char('\n'));
    }
    case SuccessRateColumn:
        return tr("Attempts that succeeded, of those that decided an outcome (success, "
                  "failure, parked) in the last %1: %2 of %3")
            .arg(range)
            .arg(s.successes)
            .arg(s.outcomes);
    case ThrottledColumn:
        return tr("Attempts answered 429 or 503, of all attempts in the last %1: %2 of %3")
            .arg(range)
            .arg(s.throttled)
            .arg(s.attempts);
    case P50Column:
    case P95Column:
        return s.durationsCapped ? tr("Exchange durations of the latest %1 attempts in the last %2")
                                       .arg(s.durationSamples)
                                       .arg(range)
                                 : tr("Exchange durations of the %1 attempts in the last %2")
                                       .arg(s.durationSamples)
                                       .arg(range);
    case SparklineColumn: {
        qint64 attempts = 0;
        qint64 throttled = 0;
        for (int v : s.hourAttempts)
            attempts += v;
        for (int v : s.hourThrottled)
            throttled += v;
        return tr("Last hour, per minute: %1 attempts, of which %2 answered 429 or 503")
            .arg(attempts)
            .arg(throttled);
    }
    default:
        return {};
    }
}

QVariant IntegrationsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StateColumn:
        return tr("State");
    case EndpointColumn:
        return tr("Endpoint");
    case LastSuccessColumn:
        return tr("Last success");
    case SuccessRateColumn:
        return tr("Success rate");
    case ThrottledColumn:
        return tr("429/503 share");
    case P50Column:
        return tr("p50 exchange");
    case P95Column:
        return tr("p95 exchange");
    case NextRunColumn:
        return tr("Next run");
    case SparklineColumn:
        return tr("Last hour");
    }
    return {};
}

} // namespace cooldown
