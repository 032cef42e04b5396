// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/DrainEstimate.h"
#include "core/query/QueryRecords.h"
#include "core/store/StoreResult.h"

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
// true.
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
    // Why the store did not open; empty while it has not failed to.
    QString openError() const { return m_openError; }

    using RollupVisit = std::function<bool(const RollupRecord &)>;

    // Each read answers its value or why it failed (StoreResult): an empty list or a
    // zero is an answer, never a failure.

    // What changed: a value that differs whenever another connection committed.
    StoreResult<QByteArray> changeToken();

    // Operations (the Jobs view).
    StoreResult<QList<qint64>> operationIds(const OperationFilter &filter);
    StoreResult<QList<OperationRecord>> operations(const OperationFilter &filter);
    StoreResult<QMap<OperationState, qint64>> openCountsByState();
    StoreResult<QHash<QString, EndpointOpenWork>> openWorkByEndpoint();
    StoreResult<QHash<QString, qint64>> nextTicksByEndpoint();
    StoreResult<bool> isEndpointPaused(const QString &endpointId);
    StoreResult<QSet<QString>> pausedEndpointIds();
    // Endpoints held for a while (docs/maintenance.md), by their end.
    StoreResult<QList<EndpointHold>> endpointHolds();
    // Incidents (docs/incidents.md): the open ones, or also those opened since sinceMs.
    StoreResult<QList<IncidentRecord>> incidents(bool openOnly, qint64 sinceMs = 0,
                                                 int limit = 1000);
    // nullopt: no operation of the endpoint has ended.
    StoreResult<std::optional<OperationState>> lastEndedState(const QString &endpointId);
    StoreResult<QList<PartitionState>> partitions(qint64 nowMs);

    // Attempts (the History view).
    // 0 with none.
    StoreResult<qint64> newestAttemptId();
    // -1 with none.
    StoreResult<qint64> earliestAttemptMs();
    StoreResult<QList<qint64>> attemptIds(const AttemptFilter &filter);
    StoreResult<qint64> countAttempts(const AttemptFilter &filter);
    StoreResult<QList<AttemptRecord>> attempts(const AttemptFilter &filter);
    // When its latest success since then finished; -1: none such.
    StoreResult<qint64> lastSuccessAtMs(const QString &endpointId, qint64 sinceStartedMs);
    // The bodies kept for a failed or degraded attempt (docs/checks.md); nullopt: none
    // were kept.
    StoreResult<std::optional<KeptExchange>> keptExchange(qint64 attemptId);
    StoreResult<QList<qint64>> exchangeDurations(const QString &endpointId, qint64 fromMs,
                                                 qint64 toMs, int limit);
    // Starts exporter on this store's connection (the export holds a read transaction
    // until it finishes): the store must outlive the export.
    void exportAttempts(CsvExporter *exporter, const AttemptFilter &filter,
                        const QString &fileName);

    // Figures (the Overview and Integrations views). A visit that returns false stops
    // the read, which still went through.
    StoreResult<void> forEachRollup(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                                    const RollupVisit &visit);
    StoreResult<void> forEachAttemptSum(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                                        const RollupVisit &visit);
    StoreResult<QList<InFlightPeak>> inFlightPeaks(qint64 fromMs, qint64 toMs, qint64 bucketMs);
    StoreResult<qint64> finalFailuresSince(qint64 sinceMs);

    // The SLA report (core/query/SlaReport.h): see Store for what each promises.
    // endpoints: those to read (every endpoint when empty).
    using ReportVisit = std::function<bool(const ReportSum &)>;
    StoreResult<void> forEachReportSum(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                       const QStringList &endpoints, const ReportVisit &visit);
    StoreResult<void> forEachThrottledSuccess(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                              const QStringList &endpoints,
                                              const ReportVisit &visit);
    StoreResult<QList<LatencyCount>> latencyCounts(qint64 bucketMs, qint64 fromMs, qint64 toMs);
    StoreResult<QList<FailureMinute>> failureMinutes(const QString &endpointId, qint64 fromMs,
                                                     qint64 toMs, bool throttledToo);

    // Operator actions: what was done (the audit), and what a bulk action would do.
    StoreResult<QList<AuditRecord>> operatorActions(qint64 fromMs, qint64 toMs, int limit,
                                                    bool newestFirst);
    StoreResult<qint64> countMatching(const OperationSelection &selection);
    // What a drain-time estimate of the action on the selection starts from (see
    // core/engine/DrainEstimate.h).
    StoreResult<DrainInput> drainInput(const OperationSelection &selection, OperatorAction action,
                                       qint64 nowMs, int maxInFlight);

private:
    // The store, its last error cleared: what a read leaves there is this read's.
    Store &fresh();
    // value, unless the read left an error.
    template <typename T> StoreResult<T> checked(T value);
    StoreResult<void> checked(bool went);
    template <typename T> StoreResult<T> unwrapped(std::optional<T> value);

    QString m_databaseUrl;
    IfMissing m_ifMissing;
    std::unique_ptr<Store> m_store;
    bool m_openFailed = false;
    QString m_openError;
};

} // namespace cooldown
