// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "ui/IntegrationsReader.h"
#include "ui/WorkerThread.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTableView;
class QTimer;

namespace cooldown {

class ChangePoller;
class Clock;
class IntegrationsModel;
struct WorkspaceConfig;

// Which integration is in trouble: one row per configured endpoint with its light
// (ok, throttled, waiting, failing, paused, held, waiting for credentials, credentials
// refused; docs/integrations.md), last success,
// success rate and 429/503 share over the chosen range, p50/p95 exchange durations,
// next run and a sparkline of the last hour. Read by an IntegrationsReader on a thread
// of its own, at the window's ChangePoller's polls while the store changes. Selecting a
// row says which endpoint the Jobs and History views should show (endpointSelected).
class IntegrationsPage final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(IntegrationsPage)

public:
    IntegrationsPage(const QString &databaseUrl, const WorkspaceConfig &config, const Clock &clock,
                     QWidget *parent = nullptr);
    ~IntegrationsPage() override;

    // The endpoints of a workspace with the partitions the scheduler paces them in.
    static QList<IntegrationEndpoint> endpointsOf(const WorkspaceConfig &config);

    IntegrationsModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QComboBox *rangeBox() const { return m_range; }
    // The selected endpoint, empty when none.
    QString selectedEndpoint() const;
    void selectEndpoint(const QString &endpointId);
    // The endpoints listed, when the engine runs another workspace.
    void setEndpoints(const WorkspaceConfig &config);
    // The workspace's credentials as the engine last reported them: an endpoint whose
    // credential has no token shows that instead of its own light.
    void setCredentials(const QList<CredentialState> &credentials);
    // The fleet's open incidents as the engine last reported them (docs/incidents.md),
    // shown above the table, one line each; hidden while there is none.
    void setIncidents(const QList<IncidentRecord> &incidents);
    // Starts reading, at each poll of changes (once a second); the window calls it once
    // it is set up.
    void start(ChangePoller *changes);

signals:
    // The operator selected an endpoint's row (empty: none any more).
    void endpointSelected(const QString &endpointId);
    // The operator asked to see the endpoint's operations (double click, Enter).
    void jobsRequested(const QString &endpointId);

private:
    void showSnapshot(const IntegrationsSnapshot &snapshot);
    void updateSummary();
    void fitStateColumn();
    qint64 rangeMs() const;

    const Clock &m_clock;
    std::unique_ptr<WorkerThread<IntegrationsReader>> m_reader;
    IntegrationsModel *m_model = nullptr;
    QTableView *m_table = nullptr;
    QComboBox *m_range = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_incidents = nullptr;
    QTimer *m_tick = nullptr;
    QString m_selected;
};

} // namespace cooldown
