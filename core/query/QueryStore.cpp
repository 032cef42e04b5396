// SPDX-License-Identifier: Apache-2.0
#include "core/query/QueryStore.h"

#include "core/store/CsvExporter.h"
#include "core/store/Store.h"

namespace cooldown {

QueryStore::QueryStore(QString databaseUrl, IfMissing ifMissing)
    : m_databaseUrl(std::move(databaseUrl)), m_ifMissing(ifMissing)
{}

QueryStore::~QueryStore() = default;

QString QueryStore::displayUrl(const QString &url)
{
    return Store::displayUrl(url);
}

bool QueryStore::ensureOpen(const std::function<void(const QString &)> &reportFailure)
{
    if (m_store)
        return true;
    if (m_openFailed)
        return false;
    QString error;
    StoreOptions options;
    options.createIfMissing = m_ifMissing == IfMissing::Create;
    m_store = Store::open(m_databaseUrl, &error, options);
    if (!m_store) {
        m_openFailed = true;
        m_openError = error;
        reportFailure(error);
        return false;
    }
    return true;
}

Store &QueryStore::fresh()
{
    m_store->clearError();
    return *m_store;
}

template <typename T> StoreResult<T> QueryStore::checked(T value)
{
    if (!m_store->lastError().isEmpty())
        return StoreResult<T>::failure(m_store->lastError());
    return StoreResult<T>(std::move(value));
}

StoreResult<void> QueryStore::checked(bool went)
{
    // A visit that stopped the read returns false too, without an error.
    if (!went && !m_store->lastError().isEmpty())
        return StoreResult<void>::failure(m_store->lastError());
    return StoreResult<void>::done();
}

template <typename T> StoreResult<T> QueryStore::unwrapped(std::optional<T> value)
{
    if (!value)
        return StoreResult<T>::failure(m_store->lastError());
    return StoreResult<T>(std::move(*value));
}

StoreResult<QByteArray> QueryStore::changeToken()
{
    return unwrapped(fresh().changeToken());
}

StoreResult<QList<qint64>> QueryStore::operationIds(const OperationFilter &filter)
{
    return checked(fresh().operationIds(filter));
}

StoreResult<QList<OperationRecord>> QueryStore::operations(const OperationFilter &filter)
{
    return checked(fresh().operations(filter));
}

StoreResult<QMap<OperationState, qint64>> QueryStore::openCountsByState()
{
    return checked(fresh().openCountsByState());
}

StoreResult<QHash<QString, EndpointOpenWork>> QueryStore::openWorkByEndpoint()
{
    return unwrapped(fresh().endpointReads().openWork());
}

StoreResult<QHash<QString, qint64>> QueryStore::nextTicksByEndpoint()
{
    return unwrapped(fresh().endpointReads().nextTicks());
}

StoreResult<bool> QueryStore::isEndpointPaused(const QString &endpointId)
{
    return unwrapped(fresh().isEndpointPaused(endpointId));
}

StoreResult<QSet<QString>> QueryStore::pausedEndpointIds()
{
    return unwrapped(fresh().endpointReads().paused());
}

StoreResult<QList<EndpointHold>> QueryStore::endpointHolds()
{
    return unwrapped(fresh().endpointHolds());
}

StoreResult<QList<IncidentRecord>> QueryStore::incidents(bool openOnly, qint64 sinceMs, int limit)
{
    return unwrapped(fresh().incidents().list(openOnly, sinceMs, limit));
}

StoreResult<std::optional<OperationState>> QueryStore::lastEndedState(const QString &endpointId)
{
    return unwrapped(fresh().endpointReads().lastEndedState(endpointId));
}

StoreResult<QList<PartitionState>> QueryStore::partitions(qint64 nowMs)
{
    return unwrapped(fresh().partitions(nowMs));
}

StoreResult<qint64> QueryStore::newestAttemptId()
{
    return checked(fresh().newestAttemptId());
}

StoreResult<qint64> QueryStore::earliestAttemptMs()
{
    return checked(fresh().earliestAttemptMs());
}

StoreResult<QList<qint64>> QueryStore::attemptIds(const AttemptFilter &filter)
{
    return checked(fresh().attemptIds(filter));
}

StoreResult<qint64> QueryStore::countAttempts(const AttemptFilter &filter)
{
    return checked(fresh().countAttempts(filter));
}

StoreResult<QList<AttemptRecord>> QueryStore::attempts(const AttemptFilter &filter)
{
    return checked(fresh().attempts(filter));
}

StoreResult<qint64> QueryStore::lastSuccessAtMs(const QString &endpointId, qint64 sinceStartedMs)
{
    return unwrapped(fresh().endpointReads().lastSuccessAtMs(endpointId, sinceStartedMs));
}

StoreResult<std::optional<KeptExchange>> QueryStore::keptExchange(qint64 attemptId)
{
    return checked(fresh().keptExchange(attemptId));
}

StoreResult<QList<qint64>> QueryStore::exchangeDurations(const QString &endpointId, qint64 fromMs,
                                                         qint64 toMs, int limit)
{
    return unwrapped(fresh().endpointReads().exchangeDurations(endpointId, fromMs, toMs, limit));
}

void QueryStore::exportAttempts(CsvExporter *exporter, const AttemptFilter &filter,
                                const QString &fileName)
{
    exporter->start(m_store.get(), filter, fileName);
}

StoreResult<void> QueryStore::forEachRollup(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                                            const RollupVisit &visit)
{
    return checked(fresh().forEachRollup(fromMs, toMs, bucketMs, visit));
}

StoreResult<void> QueryStore::forEachAttemptSum(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                                                const RollupVisit &visit)
{
    return checked(fresh().forEachAttemptSum(fromMs, toMs, bucketMs, visit));
}

StoreResult<QList<InFlightPeak>> QueryStore::inFlightPeaks(qint64 fromMs, qint64 toMs,
                                                           qint64 bucketMs)
{
    return unwrapped(fresh().inFlightPeaks(fromMs, toMs, bucketMs));
}

StoreResult<qint64> QueryStore::finalFailuresSince(qint64 sinceMs)
{
    return checked(fresh().finalFailuresSince(sinceMs));
}

StoreResult<QList<AuditRecord>> QueryStore::operatorActions(qint64 fromMs, qint64 toMs, int limit,
                                                            bool newestFirst)
{
    return unwrapped(fresh().operatorActions(fromMs, toMs, limit, newestFirst));
}

StoreResult<qint64> QueryStore::countMatching(const OperationSelection &selection)
{
    return checked(fresh().countMatching(selection));
}

StoreResult<DrainInput> QueryStore::drainInput(const OperationSelection &selection,
                                               OperatorAction action, qint64 nowMs, int maxInFlight)
{
    QString error;
    std::optional<DrainInput> input =
        readDrainInput(fresh(), selection, action, nowMs, maxInFlight, &error);
    if (!input)
        return StoreResult<DrainInput>::failure(error);
    return StoreResult<DrainInput>(std::move(*input));
}

StoreResult<void> QueryStore::forEachReportSum(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                               const QStringList &endpoints,
                                               const ReportVisit &visit)
{
    return checked(fresh().reportSums().forEach(bucketMs, fromMs, toMs, endpoints, visit));
}

StoreResult<void> QueryStore::forEachThrottledSuccess(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                                      const QStringList &endpoints,
                                                      const ReportVisit &visit)
{
    return checked(
        fresh().reportSums().forEachThrottledSuccess(bucketMs, fromMs, toMs, endpoints, visit));
}

StoreResult<QList<LatencyCount>> QueryStore::latencyCounts(qint64 bucketMs, qint64 fromMs,
                                                           qint64 toMs)
{
    return unwrapped(fresh().reportSums().latencyCounts(bucketMs, fromMs, toMs));
}

StoreResult<QList<FailureMinute>>
QueryStore::failureMinutes(const QString &endpointId, qint64 fromMs, qint64 toMs, bool throttledToo)
{
    return unwrapped(fresh().reportSums().failureMinutes(endpointId, fromMs, toMs, throttledToo));
}

} // namespace cooldown
