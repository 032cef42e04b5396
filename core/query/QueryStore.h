// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/DrainEstimate.h"
#include "core/query/QueryRecords.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace cooldown {

class CsvExporter;
class Store;

// The store as the window reads it: a connection of its own, opened on first use on the
// thread the reader runs on (a QSqlDatabase belongs to the thread that opened it: see
// WorkerThread), and only the reads the window asks. Nothing here claims, records or
// changes a row, so a reader cannot either.
//
// An open that fails is not tried again: the reader reports the reason once, instead of
// on every tick, and answers nothing from then on. The reads are the Store's own (see
// core/store/Store.h for what each promises); call them only once ensureOpen() returned
// true. Those that fail leave the reason in lastError().
class QueryStore final
{
    Q_DISABLE_COPY_MOVE(QueryStore)

public:
    // Refuse: a reader that only looks at what another part wrote must not leave an
    // empty database behind where none was.
    enum class IfMissing
    {
        Create,
        Refuse
    };
    QueryStore(QString databaseUrl, IfMissing ifMissing);
    ~QueryStore();

    // The URL as it may be shown: the password replaced by a marker.
    static QString displayUrl(const QString &url);

    // True once the store is open. The first failing call gives its reason to
    // reportFailure; the calls after it return false without trying or reporting.
    bool ensureOpen(const std::function<void(const QString &)> &reportFailure);
    // Why the last read failed, or why the store did not open.
    QString lastError() const;

    using RollupVisit = std::function<bool(const RollupRecord &)>;

    // What changed: a value that differs whenever another connection committed.
    std::optional<QByteArray> changeToken();

    // Operations (the Jobs view).
    QList<qint64> operationIds(const OperationFilter &filter);
    QList<OperationRecord> operations(const OperationFilter &filter);
    QMap<OperationState, qint64> openCountsByState();
    std::optional<QHash<QString, EndpointOpenWork>> openWorkByEndpoint();
    std::optional<QHash<QString, qint64>> nextTicksByEndpoint();
    std::optional<bool> isEndpointPaused(const QString &endpointId);
    std::optional<QSet<QString>> pausedEndpointIds();
    // Endpoints held for a while (docs/maintenance.md), by their end.
    std::optional<QList<EndpointHold>> endpointHolds();
    // Incidents (docs/incidents.md): the open ones, or also those opened since sinceMs.
    std::optional<QList<IncidentRecord>> incidents(bool openOnly, qint64 sinceMs = 0,
                                                   int limit = 1000);
    std::optional<std::optional<OperationState>> lastEndedState(const QString &endpointId);
    std::optional<QList<PartitionState>> partitions(qint64 nowMs);

    // Attempts (the History view).
    qint64 newestAttemptId();
    qint64 earliestAttemptMs();
    QList<qint64> attemptIds(const AttemptFilter &filter);
    qint64 countAttempts(const AttemptFilter &filter);
    QList<AttemptRecord> attempts(const AttemptFilter &filter);
    std::optional<qint64> lastSuccessAtMs(const QString &endpointId, qint64 sinceStartedMs);
    // The bodies kept for a failed or degraded attempt (docs/checks.md), if any.
    std::optional<KeptExchange> keptExchange(qint64 attemptId);
    std::optional<QList<qint64>> exchangeDurations(const QString &endpointId, qint64 fromMs,
                                                   qint64 toMs, int limit);
    // Starts exporter on this store's connection (the export holds a read transaction
    // until it finishes): the store must outlive the export.
    void exportAttempts(CsvExporter *exporter, const AttemptFilter &filter,
                        const QString &fileName);

    // Figures (the Overview and Integrations views).
    bool forEachRollup(qint64 fromMs, qint64 toMs, qint64 bucketMs, const RollupVisit &visit);
    bool forEachAttemptSum(qint64 fromMs, qint64 toMs, qint64 bucketMs, const RollupVisit &visit);
    std::optional<QList<InFlightPeak>> inFlightPeaks(qint64 fromMs, qint64 toMs, qint64 bucketMs);
    qint64 finalFailuresSince(qint64 sinceMs);

    // The SLA report (core/query/SlaReport.h): see Store for what each promises.
    // endpoints: those to read (every endpoint when empty).
    using ReportVisit = std::function<bool(const ReportSum &)>;
    bool forEachReportSum(qint64 bucketMs, qint64 fromMs, qint64 toMs, const QStringList &endpoints,
                          const ReportVisit &visit);
    bool forEachThrottledSuccess(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                 const QStringList &endpoints, const ReportVisit &visit);
    std::optional<QList<LatencyCount>> latencyCounts(qint64 bucketMs, qint64 fromMs, qint64 toMs);
    std::optional<QList<FailureMinute>> failureMinutes(const QString &endpointId, qint64 fromMs,
                                                       qint64 toMs, bool throttledToo);

    // Operator actions: what was done (the audit), and what a bulk action would do.
    std::optional<QList<AuditRecord>> operatorActions(qint64 fromMs, qint64 toMs, int limit,
                                                      bool newestFirst);
    qint64 countMatching(const OperationSelection &selection);
    // What a drain-time estimate of the action on the selection starts from (see
    // core/engine/DrainEstimate.h); nullopt with *error on failure.
    std::optional<DrainInput> drainInput(const OperationSelection &selection, OperatorAction action,
                                         qint64 nowMs, int maxInFlight, QString *error);

private:
    QString m_databaseUrl;
    IfMissing m_ifMissing;
    std::unique_ptr<Store> m_store;
    bool m_openFailed = false;
    QString m_openError;
};

} // namespace cooldown
