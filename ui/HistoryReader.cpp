#include "ui/HistoryReader.h"

#include "core/store/Store.h"

#include <QMetaObject>

#include <algorithm>

namespace cooldown {

HistoryReader::HistoryReader(QString databaseUrl) : m_databaseUrl(std::move(databaseUrl)) {}

HistoryReader::~HistoryReader() = default;

bool HistoryReader::ensureOpen()
{
    if (m_store)
        return true;
    if (m_openFailed)
        return false;
    QString error;
    StoreOptions options;
    options.createIfMissing = false;
    m_store = Store::open(m_databaseUrl, &error, options);
    if (!m_store) {
        m_openFailed = true;
        emit failed(error);
        return false;
    }
    return true;
}

void HistoryReader::load(quint64 generation, const HistoryQuery &query)
{
    m_generation = generation;
    m_query = query;
    m_ids.clear();
    m_scanFrom = 0;
    m_complete = false;
    if (!ensureOpen())
        return;
    m_total = m_store->countAttempts(query.storeFilter());
    if (m_total < 0) {
        emit failed(m_store->lastError());
        return;
    }
    m_ids.reserve(m_total);
    indexChunk(generation);
}

void HistoryReader::indexChunk(quint64 generation)
{
    if (generation != m_generation || m_complete)
        return; // a newer query took over
    AttemptFilter filter = m_query.storeFilter();
    filter.afterId = m_scanFrom;
    filter.limit = kIndexChunk;
    const QList<AttemptRecord> rows = m_store->attempts(filter);
    if (rows.isEmpty() && !m_store->lastError().isEmpty()) {
        emit failed(m_store->lastError());
        return;
    }
    for (const AttemptRecord &a : rows) {
        m_scanFrom = a.id;
        m_ids.append(a.id);
    }
    if (rows.size() == kIndexChunk) {
        emit progress(generation, m_ids.size(), m_total);
        QMetaObject::invokeMethod(
            this, [this, generation] { indexChunk(generation); }, Qt::QueuedConnection);
        return;
    }
    m_complete = true;
    emit indexed(generation, m_ids);
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
        const QList<AttemptRecord> rows = m_store->attempts(filter);
        if (rows.isEmpty() && !m_store->lastError().isEmpty()) {
            emit failed(m_store->lastError());
            return;
        }
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
    AttemptFilter filter = m_query.storeFilter();
    filter.afterId = m_scanFrom;
    filter.limit = 2000;
    QList<qint64> added;
    for (;;) {
        const QList<AttemptRecord> rows = m_store->attempts(filter);
        if (rows.isEmpty() && !m_store->lastError().isEmpty()) {
            emit failed(m_store->lastError());
            return;
        }
        for (const AttemptRecord &a : rows) {
            m_scanFrom = a.id;
            added.append(a.id);
        }
        if (rows.size() < filter.limit)
            break;
        filter.afterId = m_scanFrom;
    }
    if (added.isEmpty())
        return;
    m_ids.append(added);
    emit appended(generation, added);
}

} // namespace cooldown
