#pragma once

#include "core/store/Records.h"
#include "ui/HistoryQuery.h"

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace cooldown {

class Store;

// Answers the History view's questions from a Store of its own, on the thread it was
// moved to (see WorkerThread). Every answer carries the generation of the query it
// belongs to, so that answers to a query the view has left behind can be dropped.
//
// load() reads the ids of the matching attempts in key order, a chunk per turn of the
// event loop, so that fetches of visible rows are served between chunks.
class HistoryReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryReader)

public:
    explicit HistoryReader(QString databaseUrl);
    ~HistoryReader() override;

    static constexpr int kIndexChunk = 20000;

public slots:
    void load(quint64 generation, const cooldown::HistoryQuery &query);
    // The matching attempts whose ids lie in [firstId, lastId].
    void fetch(quint64 generation, qint64 firstId, qint64 lastId);
    // Attempts of the current query newer than those already indexed.
    void poll(quint64 generation);

signals:
    void progress(quint64 generation, qint64 indexed, qint64 total);
    // The whole index, ascending ids.
    void indexed(quint64 generation, const QList<qint64> &ids);
    void fetched(quint64 generation, qint64 firstId, qint64 lastId,
                 const QList<cooldown::AttemptRecord> &attempts);
    void appended(quint64 generation, const QList<qint64> &ids);
    void failed(const QString &message);

private:
    bool ensureOpen();
    void indexChunk(quint64 generation);

    QString m_databaseUrl;
    std::unique_ptr<Store> m_store;
    bool m_openFailed = false;
    quint64 m_generation = 0;
    HistoryQuery m_query;
    QList<qint64> m_ids;
    qint64 m_scanFrom = 0; // the last id read, matching or not
    qint64 m_total = 0;
    bool m_complete = false;
};

} // namespace cooldown
