// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/IntegrationsReader.h"

#include <QAbstractTableModel>
#include <QColor>
#include <QHash>
#include <QList>

namespace cooldown {

// The light of one integration (docs/integrations.md). When several hold, the first
// in this order wins: what stops sending comes first, then what went wrong, then what
// is slowed down.
enum class IntegrationState
{
    Paused, // an operator paused the endpoint: nothing of it is claimed
    // Held for a while (a maintenance window, an operator's pause for a time): nothing
    // of it is claimed until the hold ends by itself. Expected, so not a problem.
    Maintenance,
    // The token endpoint refused its credential (invalid_client, ...): operations that
    // need it are parked until someone mends the client's id or secret.
    CredentialsRefused,
    Held, // its partition has a server's hold now: nothing is sent before it ends
    // An open incident lists it (docs/incidents.md): it fails for a cause it shares
    // with other integrations (its host, its proxy); its failures are held, one alert
    // speaks for all of them.
    Blocked,
    // Its credential has no token because the token endpoint failed: operations wait for
    // one, without spending attempts, and go out once it comes.
    WaitingForCredentials,
    Failing,   // its latest operation that ended (succeeded or failed) failed
    Throttled, // 429 and 503 were at least kThrottledShare of its attempts in the range
    // Its p95 in the range is over its latency budget (docs/checks.md): it works, slowly.
    Degraded,
    Waiting, // operations wait to retry
    Ok,      // none of the above
};

// At or above this share of 429 and 503 answers in the range, an integration is throttled.
inline constexpr double kThrottledShare = 0.2;

IntegrationState integrationState(const IntegrationStatus &status, qint64 nowMs);
// "ok", "throttled", … in the operator's language.
QString integrationStateName(IntegrationState state);
QColor integrationStateColor(IntegrationState state);
// When the endpoint sends next: its earliest due operation or its next tick, not
// before a hold ends nor, while it waits for credentials, before the next token
// request; -1 when nothing is planned.
qint64 nextRunAtMs(const IntegrationStatus &status, qint64 nowMs);

// One row per configured endpoint, in the workspace's order, filled from the reader's
// snapshots. A snapshot with the same endpoints updates the rows in place (the
// selection stays); the times count down with setNowMs(). The credentials' states come
// from the engine (setCredentials()), matched through each endpoint's credential id.
class IntegrationsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IntegrationsModel)

public:
    enum Column
    {
        StateColumn,
        EndpointColumn,
        LastSuccessColumn,
        SuccessRateColumn,
        ThrottledColumn,
        P50Column,
        P95Column,
        NextRunColumn,
        SparklineColumn,
        ColumnCount
    };

    enum Role
    {
        EndpointIdRole = Qt::UserRole,
        StateRole,         // int(IntegrationState)
        SparkAttemptsRole, // QList<int>, per minute of the last hour, oldest first
        SparkThrottledRole,
    };

    explicit IntegrationsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setSnapshot(const IntegrationsSnapshot &snapshot);
    void setNowMs(qint64 nowMs);
    // The credentials as the engine last reported them (EngineState::credentials).
    void setCredentials(const QList<CredentialState> &credentials);

    int rowOf(const QString &endpointId) const;
    const IntegrationStatus &statusAt(int row) const { return m_rows.at(row); }
    IntegrationState stateAt(int row) const;
    qint64 nowMs() const { return m_nowMs; }

private:
    QString toolTip(int row, int column) const;
    // Gives each row the state of its credential; true when one changed.
    bool matchCredentials();

    QList<IntegrationStatus> m_rows;
    QHash<QString, CredentialState> m_credentials; // by id
    qint64 m_rangeMs = 0;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
