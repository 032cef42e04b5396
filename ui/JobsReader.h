// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryStore.h"
#include "ui/JobsQuery.h"

#include <QList>
#include <QObject>
#include <QString>

#include <memory>
#include <optional>

namespace cooldown {

// Answers the Jobs view's questions from a QueryStore of its own, on the thread it was moved
// to (see WorkerThread). Every answer carries the generation of the query it belongs
// to, so that answers to a query the view has left behind can be dropped.
//
// Rows are keyed by operation id. The active scope reads each open state through the
// (state, id) index from the last id on and merges the four ascending lists, so a page
// costs its own rows whatever the history holds (keyset pagination, no OFFSET).
class JobsReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(JobsReader)

public:
    explicit JobsReader(QString databaseUrl);
    ~JobsReader() override;

    // A small first chunk, so that the first rows show at once; the rest in big ones,
    // a chunk per turn of the event loop so that fetches of visible rows go between.
    static constexpr int kFirstIndexChunk = 1000;
    static constexpr int kIndexChunk = 50000;
    // The most rows one fetch reads.
    static constexpr int kMaxFetchRows = 5000;
    // The first chunk of the index, and a re-read that found operations above the ids
    // it had, bring the records of this many of their first rows along: the view shows
    // them without asking again.
    static constexpr int kRowsWithIndex = 200;

public slots:
    // Reads the ids of the query's operations, ascending, in chunks (indexed()).
    void load(quint64 generation, const cooldown::JobsQuery &query);
    // Reads the whole index again, once load() has completed (reindexed()).
    void reindex(quint64 generation);
    // The query's operations whose ids lie in [firstId, lastId].
    void fetch(quint64 generation, qint64 firstId, qint64 lastId);

signals:
    // The next chunk of the index: ids above those before. complete: nothing is left.
    // operations: the records of some of these rows (see kRowsWithIndex).
    void indexed(quint64 generation, const QList<qint64> &ids, bool complete,
                 const QList<cooldown::OperationRecord> &operations);
    void reindexed(quint64 generation, const QList<qint64> &ids,
                   const QList<cooldown::OperationRecord> &operations);
    void fetched(quint64 generation, qint64 firstId, qint64 lastId,
                 const QList<cooldown::OperationRecord> &operations);
    void failed(const QString &message);

private:
    bool ensureOpen();
    void indexChunk(quint64 generation);
    // Up to limit ids above afterId, ascending (-1: no limit); nullopt on a database error.
    StoreResult<QList<qint64>> readIds(qint64 afterId, int limit);
    // The query's operations with ids in [firstId, lastId], at most kMaxFetchRows of
    // each state; nullopt on a database error.
    StoreResult<QList<OperationRecord>> readRecords(qint64 firstId, qint64 lastId);
    // The records of up to kRowsWithIndex of these ids, from the first.
    StoreResult<QList<OperationRecord>> recordsOfFirst(const QList<qint64> &ids);
    // The ids of the latest-only scopes, ascending.
    StoreResult<QList<qint64>> readLatestIds();
    // The states a page of the query is read by, one query each; empty: any state.
    QList<OperationState> states() const;

    QueryStore m_store;
    quint64 m_generation = 0;
    JobsQuery m_query;
    qint64 m_lastId = 0; // the highest id indexed so far: the next chunk looks above it
    bool m_complete = false;
};

} // namespace cooldown
