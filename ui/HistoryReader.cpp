// SPDX-License-Identifier: Apache-2.0
#include "ui/HistoryReader.h"

#include <QMetaObject>

#include <algorithm>

namespace cooldown {

HistoryReader::HistoryReader(QString databaseUrl)
    : m_store(std::move(databaseUrl), QueryStore::IfMissing::Refuse)
{}

HistoryReader::~HistoryReader() = default;

bool HistoryReader::ensureOpen()
{
    return m_store.ensureOpen([this](const QString &error) { emit failed(error); });
}

void HistoryReader::load(quint64 generation, const HistoryQuery &query)
{
    m_generation = generation;
    m_query = query;
    m_checkedId = 0;
    m_oldestId = 0;
    m_indexed = 0;
    m_complete = false;
    m_total = -1;
    if (!ensureOpen())
        return;
    // Read before the first chunk: whatever that chunk does not hold lies above it.
    const StoreResult<qint64> newest = m_store.newestAttemptId();
    if (!newest) {
        emit failed(newest.error());
        return;
    }
    m_checkedId = *newest;
    indexChunk(generation);
}

void HistoryReader::follow(quint64 generation, const HistoryQuery &query)
{
    m_generation = generation;
    m_query = query;
}

void HistoryReader::indexChunk(quint64 generation)
{
    if (generation != m_generation || m_complete)
        return; // a newer query took over
    AttemptFilter filter = m_query.storeFilter();
    filter.afterId = 0;
    filter.beforeId = m_oldestId;
    filter.newestFirst = true;
    // A small first chunk, so that the newest rows show at once.
    const int chunk = m_indexed == 0 ? kFirstIndexChunk : kIndexChunk;
    filter.limit = chunk;
    const StoreResult<QList<qint64>> read = m_store.attemptIds(filter);
    if (!read) {
        emit failed(read.error());
        return;
    }
    const QList<qint64> &ids = *read;
    if (!ids.isEmpty()) {
        if (m_oldestId == 0)
            m_checkedId = std::max(m_checkedId, ids.constFirst());
        m_oldestId = ids.constLast();
    }
    m_indexed += ids.size();
    m_complete = ids.size() < chunk;
    emit indexed(generation, ids, m_complete);
    if (m_complete)
        return;
    if (m_total < 0) {
        // Counted once the first rows are out: it only tells how far the reading got.
        const StoreResult<qint64> total = m_store.countAttempts(m_query.storeFilter());
        if (!total) {
            emit failed(total.error());
            return;
        }
        m_total = *total;
    }
    emit progress(generation, m_indexed, std::max(m_total, m_indexed));
    QMetaObject::invokeMethod(
        this, [this, generation] { indexChunk(generation); }, Qt::QueuedConnection);
}

void HistoryReader::readKept(qint64 attemptId)
{
    if (!ensureOpen())
        return;
    const StoreResult<std::optional<KeptExchange>> kept = m_store.keptExchange(attemptId);
    if (!kept) {
        // Said as a failure, and the inspector stops waiting for the bodies.
        emit failed(kept.error());
        emit keptRead(attemptId, false, KeptExchange());
        return;
    }
    emit keptRead(attemptId, kept->has_value(), kept->value_or(KeptExchange()));
}

void HistoryReader::fetch(quint64 generation, qint64 firstId, qint64 lastId)
{
    if (generation != m_generation || !ensureOpen())
        return;
    AttemptFilter filter = m_query.storeFilter();
    filter.afterId = firstId - 1;
    filter.limit = int(std::min<qint64>(lastId - firstId + 1, 5000));
    QList<AttemptRecord> out;
    for (;;) {
        const StoreResult<QList<AttemptRecord>> read = m_store.attempts(filter);
        if (!read) {
            emit failed(read.error());
            return;
        }
        const QList<AttemptRecord> &rows = *read;
        bool done = rows.size() < filter.limit;
        for (const AttemptRecord &a : rows) {
            if (a.id > lastId) {
                done = true;
                break;
            }
            out.append(a);
        }
        if (done || rows.isEmpty())
            break;
        filter.afterId = rows.constLast().id;
    }
    emit fetched(generation, firstId, lastId, out);
}

void HistoryReader::poll(quint64 generation)
{
    if (generation != m_generation || !m_complete || m_query.toMs >= 0 || !ensureOpen())
        return;
    const StoreResult<qint64> newest = m_store.newestAttemptId();
    if (!newest) {
        emit failed(newest.error());
        return;
    }
    if (*newest <= m_checkedId)
        return; // nothing new, matching or not: the usual idle poll
    AttemptFilter filter = m_query.storeFilter();
    filter.afterId = m_checkedId;
    filter.beforeId = *newest + 1;
    const StoreResult<QList<qint64>> added = m_store.attemptIds(filter);
    if (!added) {
        emit failed(added.error());
        return;
    }
    m_checkedId = *newest;
    if (!added->isEmpty())
        emit appended(generation, *added);
}

} // namespace cooldown
