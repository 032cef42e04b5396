// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryStore.h"
#include "ui/HistoryQuery.h"

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace cooldown {

// Answers the History view's questions from a QueryStore of its own, on the thread it was
// moved to (see WorkerThread). Every answer carries the generation of the query it
// belongs to, so that answers to a query the view has left behind can be dropped.
//
// load() reads the ids of the matching attempts newest first, a chunk per turn of the
// event loop: the view shows its first rows after the first chunk, and fetches of
// visible rows are served between chunks.
class HistoryReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryReader)

public:
    explicit HistoryReader(QString databaseUrl);
    ~HistoryReader() override;

    static constexpr int kFirstIndexChunk = 1000;
    static constexpr int kIndexChunk = 50000;

public slots:
    void load(quint64 generation, const cooldown::HistoryQuery &query);
    // Takes the query for fetch() without reading an index: for a reader that only
    // fetches rows while another one indexes.
    void follow(quint64 generation, const cooldown::HistoryQuery &query);
    // The matching attempts whose ids lie in [firstId, lastId].
    void fetch(quint64 generation, qint64 firstId, qint64 lastId);
    // Attempts of the current query newer than those already indexed.
    void poll(quint64 generation);
    // The bodies kept for one attempt (docs/checks.md).
    void readKept(qint64 attemptId);

signals:
    void progress(quint64 generation, qint64 indexed, qint64 total);
    // The next chunk of the index: ids older than those before, descending. complete:
    // nothing older is left.
    void indexed(quint64 generation, const QList<qint64> &ids, bool complete);
    void fetched(quint64 generation, qint64 firstId, qint64 lastId,
                 const QList<cooldown::AttemptRecord> &attempts);
    void appended(quint64 generation, const QList<qint64> &ids);
    // found: false when nothing is kept for the attempt.
    void keptRead(qint64 attemptId, bool found, const cooldown::KeptExchange &kept);
    void failed(const QString &message);

private:
    bool ensureOpen();
    void indexChunk(quint64 generation);

    QueryStore m_store;
    quint64 m_generation = 0;
    HistoryQuery m_query;
    // Every attempt up to this id has been looked at: poll() looks above it. It starts
    // at the newest attempt when the query was loaded, matching or not, so that an
    // idle poll is one index lookup however little of the history matches.
    qint64 m_checkedId = 0;
    qint64 m_oldestId = 0; // the oldest indexed so far: the next chunk looks below it
    qint64 m_indexed = 0;
    qint64 m_total = -1; // counted after the first chunk
    bool m_complete = false;
};

} // namespace cooldown
