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

QString QueryStore::lastError() const
{
    return m_store ? m_store->lastError() : m_openError;
}

std::optional<QByteArray> QueryStore::changeToken()
{
    return m_store->changeToken();
}

QList<qint64> QueryStore::operationIds(const OperationFilter &filter)
{
    return m_store->operationIds(filter);
}

QList<OperationRecord> QueryStore::operations(const OperationFilter &filter)
{
    return m_store->operations(filter);
}

QMap<OperationState, qint64> QueryStore::openCountsByState()
{
    return m_store->openCountsByState();
}

std::optional<QHash<QString, EndpointOpenWork>> QueryStore::openWorkByEndpoint()
{
    return m_store->endpointReads().openWork();
}

std::optional<QHash<QString, qint64>> QueryStore::nextTicksByEndpoint()
{
    return m_store->endpointReads().nextTicks();
}

std::optional<bool> QueryStore::isEndpointPaused(const QString &endpointId)
{
    return m_store->isEndpointPaused(endpointId);
}

std::optional<QSet<QString>> QueryStore::pausedEndpointIds()
{
    return m_store->endpointReads().paused();
}

std::optional<QList<EndpointHold>> QueryStore::endpointHolds()
{
    return m_store->endpointHolds();
}

std::optional<QList<IncidentRecord>> QueryStore::incidents(bool openOnly, qint64 sinceMs, int limit)
{
    return m_store->incidents().list(openOnly, sinceMs, limit);
}

std::optional<std::optional<OperationState>> QueryStore::lastEndedState(const QString &endpointId)
{
    return m_store->endpointReads().lastEndedState(endpointId);
}

std::optional<QList<PartitionState>> QueryStore::partitions(qint64 nowMs)
{
    return m_store->partitions(nowMs);
}

qint64 QueryStore::newestAttemptId()
{
    return m_store->newestAttemptId();
}

qint64 QueryStore::earliestAttemptMs()
{
    return m_store->earliestAttemptMs();
}

QList<qint64> QueryStore::attemptIds(const AttemptFilter &filter)
{
    return m_store->attemptIds(filter);
}

qint64 QueryStore::countAttempts(const AttemptFilter &filter)
{
    return m_store->countAttempts(filter);
}

QList<AttemptRecord> QueryStore::attempts(const AttemptFilter &filter)
{
    return m_store->attempts(filter);
}

std::optional<qint64> QueryStore::lastSuccessAtMs(const QString &endpointId, qint64 sinceStartedMs)
{
    return m_store->endpointReads().lastSuccessAtMs(endpointId, sinceStartedMs);
}

std::optional<KeptExchange> QueryStore::keptExchange(qint64 attemptId)
{
    return m_store->keptExchange(attemptId);
}

std::optional<QList<qint64>> QueryStore::exchangeDurations(const QString &endpointId, qint64 fromMs,
                                                           qint64 toMs, int limit)
{
    return m_store->endpointReads().exchangeDurations(endpointId, fromMs, toMs, limit);
}

void QueryStore::exportAttempts(CsvExporter *exporter, const AttemptFilter &filter,
                                const QString &fileName)
{
    exporter->start(m_store.get(), filter, fileName);
}

bool QueryStore::forEachRollup(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                               const RollupVisit &visit)
{
    return m_store->forEachRollup(fromMs, toMs, bucketMs, visit);
}

bool QueryStore::forEachAttemptSum(qint64 fromMs, qint64 toMs, qint64 bucketMs,
                                   const RollupVisit &visit)
{
    return m_store->forEachAttemptSum(fromMs, toMs, bucketMs, visit);
}

std::optional<QList<InFlightPeak>> QueryStore::inFlightPeaks(qint64 fromMs, qint64 toMs,
                                                             qint64 bucketMs)
{
    return m_store->inFlightPeaks(fromMs, toMs, bucketMs);
}

qint64 QueryStore::finalFailuresSince(qint64 sinceMs)
{
    return m_store->finalFailuresSince(sinceMs);
}

std::optional<QList<AuditRecord>> QueryStore::operatorActions(qint64 fromMs, qint64 toMs, int limit,
                                                              bool newestFirst)
{
    return m_store->operatorActions(fromMs, toMs, limit, newestFirst);
}

qint64 QueryStore::countMatching(const OperationSelection &selection)
{
    return m_store->countMatching(selection);
}

std::optional<DrainInput> QueryStore::drainInput(const OperationSelection &selection,
                                                 OperatorAction action, qint64 nowMs,
                                                 int maxInFlight, QString *error)
{
    return readDrainInput(*m_store, selection, action, nowMs, maxInFlight, error);
}

bool QueryStore::forEachReportSum(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                  const QStringList &endpoints, const ReportVisit &visit)
{
    return m_store->reportSums().forEach(bucketMs, fromMs, toMs, endpoints, visit);
}

bool QueryStore::forEachThrottledSuccess(qint64 bucketMs, qint64 fromMs, qint64 toMs,
                                         const QStringList &endpoints, const ReportVisit &visit)
{
    return m_store->reportSums().forEachThrottledSuccess(bucketMs, fromMs, toMs, endpoints, visit);
}

std::optional<QList<LatencyCount>> QueryStore::latencyCounts(qint64 bucketMs, qint64 fromMs,
                                                             qint64 toMs)
{
    return m_store->reportSums().latencyCounts(bucketMs, fromMs, toMs);
}

std::optional<QList<FailureMinute>>
QueryStore::failureMinutes(const QString &endpointId, qint64 fromMs, qint64 toMs, bool throttledToo)
{
    return m_store->reportSums().failureMinutes(endpointId, fromMs, toMs, throttledToo);
}

} // namespace cooldown
