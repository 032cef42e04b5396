// SPDX-License-Identifier: Apache-2.0
#include "ui/JobsReader.h"

#include <QMetaObject>

#include <algorithm>

namespace cooldown {

namespace {

// Merges ascending lists into one, keeping at most limit (-1: all).
QList<qint64> mergeAscending(const QList<QList<qint64>> &lists, int limit)
{
    QList<qint64> out;
    for (const QList<qint64> &list : lists)
        out.append(list);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (limit >= 0 && out.size() > limit)
        out.resize(limit);
    return out;
}

} // namespace

JobsReader::JobsReader(QString databaseUrl)
    : m_store(std::move(databaseUrl), QueryStore::IfMissing::Refuse)
{}

JobsReader::~JobsReader() = default;

bool JobsReader::ensureOpen()
{
    return m_store.ensureOpen([this](const QString &error) { emit failed(error); });
}

QList<OperationState> JobsReader::states() const
{
    switch (m_query.scope) {
    case JobsScope::Active:
        return {OperationState::Scheduled, OperationState::Running, OperationState::Waiting,
                OperationState::Parked};
    case JobsScope::Failed:
        return {OperationState::Failed};
    case JobsScope::Recent:
        break;
    }
    return {};
}

StoreResult<QList<qint64>> JobsReader::readIds(qint64 afterId, int limit)
{
    OperationFilter filter;
    filter.endpointId = m_query.endpointId;
    filter.afterId = afterId;
    filter.limit = limit;
    const QList<OperationState> byState = states();
    QList<QList<qint64>> lists;
    QString error;
    const auto read = [&]() -> bool {
        StoreResult<QList<qint64>> ids = m_store.operationIds(filter);
        if (!ids) {
            error = ids.error();
            return false;
        }
        lists.append(std::move(ids).value());
        return true;
    };
    if (byState.isEmpty()) {
        if (!read())
            return StoreResult<QList<qint64>>::failure(error);
    }
    for (const OperationState state : byState) {
        filter.state = state;
        if (!read())
            return StoreResult<QList<qint64>>::failure(error);
    }
    return mergeAscending(lists, limit);
}

StoreResult<QList<OperationRecord>> JobsReader::readRecords(qint64 firstId, qint64 lastId)
{
    OperationFilter filter;
    filter.endpointId = m_query.endpointId;
    filter.afterId = firstId - 1;
    filter.upToId = lastId;
    filter.limit = int(std::min<qint64>(lastId - firstId + 1, kMaxFetchRows));
    // One read per state, each through the (state, id) index; any state: one read.
    QList<std::optional<OperationState>> passes;
    for (const OperationState state : states())
        passes.append(state);
    if (passes.isEmpty())
        passes.append(std::nullopt);
    QList<OperationRecord> out;
    for (const std::optional<OperationState> &state : std::as_const(passes)) {
        filter.state = state;
        const StoreResult<QList<OperationRecord>> rows = m_store.operations(filter);
        if (!rows)
            return rows;
        out.append(*rows);
    }
    std::sort(out.begin(), out.end(),
              [](const OperationRecord &a, const OperationRecord &b) { return a.id < b.id; });
    return out;
}

StoreResult<QList<OperationRecord>> JobsReader::recordsOfFirst(const QList<qint64> &ids)
{
    if (ids.isEmpty())
        return QList<OperationRecord>();
    const qsizetype last = std::min<qsizetype>(ids.size(), kRowsWithIndex) - 1;
    return readRecords(ids.constFirst(), ids.at(last));
}

StoreResult<QList<qint64>> JobsReader::readLatestIds()
{
    OperationFilter filter;
    filter.endpointId = m_query.endpointId;
    if (m_query.scope == JobsScope::Failed)
        filter.state = OperationState::Failed;
    filter.newestFirst = true;
    filter.limit = JobsQuery::kLatestOperations;
    StoreResult<QList<qint64>> ids = m_store.operationIds(filter);
    if (ids)
        std::reverse(ids->begin(), ids->end());
    return ids;
}

void JobsReader::load(quint64 generation, const JobsQuery &query)
{
    m_generation = generation;
    m_query = query;
    m_lastId = 0;
    m_complete = false;
    if (!ensureOpen())
        return;
    indexChunk(generation);
}

void JobsReader::indexChunk(quint64 generation)
{
    if (generation != m_generation || m_complete)
        return; // a newer query took over
    const bool first = m_lastId == 0;
    const int chunk = first ? kFirstIndexChunk : kIndexChunk;
    // The latest-only scopes are small: one read, newest first.
    const bool latest = m_query.scope != JobsScope::Active;
    const StoreResult<QList<qint64>> ids = latest ? readLatestIds() : readIds(m_lastId, chunk);
    if (!ids) {
        emit failed(ids.error());
        return;
    }
    const StoreResult<QList<OperationRecord>> records =
        first ? recordsOfFirst(*ids)
              : StoreResult<QList<OperationRecord>>(QList<OperationRecord>());
    if (!records) {
        emit failed(records.error());
        return;
    }
    if (!ids->isEmpty())
        m_lastId = ids->constLast();
    m_complete = latest || ids->size() < chunk;
    emit indexed(generation, *ids, m_complete, *records);
    if (!m_complete)
        QMetaObject::invokeMethod(
            this, [this, generation] { indexChunk(generation); }, Qt::QueuedConnection);
}

void JobsReader::reindex(quint64 generation)
{
    if (generation != m_generation || !m_complete || !ensureOpen())
        return;
    const StoreResult<QList<qint64>> ids =
        m_query.scope != JobsScope::Active ? readLatestIds() : readIds(0, -1);
    if (!ids) {
        emit failed(ids.error());
        return;
    }
    // Operations above the last id read are new to the view: they come with their rows.
    const auto above = std::upper_bound(ids->cbegin(), ids->cend(), m_lastId);
    const StoreResult<QList<OperationRecord>> records =
        recordsOfFirst(QList<qint64>(above, ids->cend()));
    if (!records) {
        emit failed(records.error());
        return;
    }
    if (!ids->isEmpty())
        m_lastId = std::max(m_lastId, ids->constLast());
    emit reindexed(generation, *ids, *records);
}

void JobsReader::fetch(quint64 generation, qint64 firstId, qint64 lastId)
{
    if (generation != m_generation || !ensureOpen())
        return;
    const StoreResult<QList<OperationRecord>> records = readRecords(firstId, lastId);
    if (!records) {
        emit failed(records.error());
        return;
    }
    emit fetched(generation, firstId, lastId, *records);
}

} // namespace cooldown
