// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/Scheduler.h"
#include "core/query/QueryRecords.h"
#include "ui/JobsQuery.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>

#include <deque>
#include <memory>
#include <optional>

namespace cooldown {

class JobsReader;

// The operations the query selects, one row each, ordered by id, without holding them
// all: the model keeps the ordered list of matching ids (8 bytes a row) and loads the
// rows a view asks for in pages, by id range, from a JobsReader on a thread of its own
// (owned by whoever attached it: the model owns no thread). A row
// not loaded yet shows a placeholder and is filled in when its page arrives; the GUI
// thread never waits for the database.
//
// Between reads of the store the rows follow the scheduler's operationChanged signal
// (upsert): a row shows its operation's new state, a new operation of the query gets a
// row. refresh() reads the index again after the store changed (whichever worker
// changed it), which takes away the rows of operations that left the query (they
// finished), and then the rows on screen. The next-attempt column counts down on the rows a view
// shows only (showTime), so a second costs the same for a hundred rows or a hundred thousand.
class JobsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(JobsModel)

public:
    enum Column
    {
        IdColumn,
        EndpointColumn,
        StateColumn,
        AttemptColumn,
        NextAttemptColumn,
        LastStatusColumn,
        WaitSourceColumn,
        PartitionColumn,
        LeaseOwnerColumn,
        ReasonColumn,
        ColumnCount
    };

    enum Role
    {
        OperationIdRole = Qt::UserRole,
        EndpointIdRole,
        StateRole,     // OperationState
        OperationRole, // the whole OperationRecord
        PolicyIdRole,
        PartitionKeyRole,
        LoadedRole, // whether the row's operation has been read; the roles above but the
                    // id are invalid until it has
    };

    static constexpr int kPageRows = 200;
    static constexpr int kCachedRows = 20 * kPageRows;
    // A list longer than this is read again at most every kLargeListIntervalMs while
    // the store keeps changing: the local engine's own changes arrive by upsert().
    static constexpr int kLargeList = 1000;
    static constexpr qint64 kLargeListIntervalMs = 10000;

    // Without a reader the rows come from setOperations() and upsert() only.
    explicit JobsModel(QObject *parent = nullptr);
    ~JobsModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Reads the store through this reader, which lives on a thread of its own that must
    // outlive the model or be stopped first (its answers then stop). Once, before the
    // first query.
    void attach(JobsReader *reader);
    // Lists what this query selects, read afresh.
    void setQuery(const JobsQuery &query);
    JobsQuery query() const { return m_query; }
    // The store changed: reads the index again, and the rows shown after it.
    void refresh();
    bool isLoading() const { return m_loading; }

    // Replaces the rows with these (sorted by id or not): rows that stay are updated
    // in place, so the selection survives a refresh.
    void setOperations(QList<OperationRecord> operations);
    // One operation changed: its row is updated (even when it left the query: it goes
    // at the next refresh, so that a finished operation shows how it finished), or added
    // when it is new to the query.
    void upsert(const OperationRecord &operation);
    // The time countdowns count to; no row changes until showTime().
    void setNowMs(qint64 nowMs) { m_nowMs = nowMs; }
    // Time moved on: the countdowns of rows [firstRow, lastRow], those a view shows, move
    // (and no others), and those rows are read again if the store changed since.
    void showTime(qint64 nowMs, int firstRow, int lastRow);
    void setHolds(const QList<PartitionHold> &holds);
    void setPausedEndpoints(const QSet<QString> &endpointIds);

    int rowOf(qint64 operationId) const;
    qint64 operationIdAt(int row) const;
    std::optional<OperationRecord> operationAt(int row) const;
    bool isPaused(const QString &endpointId) const { return m_paused.contains(endpointId); }
    // Used by data() and by views that know what they are about to show. refreshStale:
    // rows read before the last refresh() are read again too.
    void ensureLoaded(int firstRow, int lastRow, bool refreshStale = false) const;

signals:
    void loadingChanged(bool loading);
    void failed(const QString &message);
    // Rows of a page arrived (so a view showing one of them can refresh).
    void rowsLoaded(int firstRow, int lastRow);

    // To the reader.
    void loadRequested(quint64 generation, const cooldown::JobsQuery &query);
    void reindexRequested(quint64 generation);
    void fetchRequested(quint64 generation, qint64 firstId, qint64 lastId);

private:
    struct Row
    {
        OperationRecord operation;
        quint64 epoch = 0;  // the refresh it was read in or after
        quint64 serial = 0; // when it was set, to tell it from a read asked for before
    };

    void onIndexed(quint64 generation, const QList<qint64> &ids, bool complete,
                   const QList<OperationRecord> &operations);
    void onReindexed(quint64 generation, const QList<qint64> &ids,
                     const QList<OperationRecord> &operations);
    void onFetched(quint64 generation, qint64 firstId, qint64 lastId,
                   const QList<OperationRecord> &operations);
    // Makes the rows these ascending ids, by runs of removals and insertions.
    void mergeIds(const QList<qint64> &ids);
    void removeRow(int row);
    void cache(const OperationRecord &operation);
    void maybeReindex();
    void setLoading(bool loading);
    QString partitionText(const OperationRecord &op) const;
    void emitRowChanged(int row);
    void emitColumnChanged(int column, int firstRow, int lastRow);

    QPointer<JobsReader> m_reader; // null without a database
    JobsQuery m_query;
    quint64 m_generation = 0;
    QList<qint64> m_ids; // ascending: row r shows m_ids[r]
    mutable QHash<qint64, Row> m_cache;
    // Pages in the order they arrived, to forget the oldest first.
    std::deque<QList<qint64>> m_cachedPages;
    // First ids of the pages asked for, with the serial at the time they were asked.
    mutable QHash<qint64, quint64> m_pending;
    quint64 m_epoch = 0;
    quint64 m_serial = 0;
    bool m_loading = false;
    bool m_reindexing = false;
    bool m_refreshWanted = false;
    qint64 m_reindexedAtMs = -1;
    QList<PartitionHold> m_holds;
    QSet<QString> m_paused;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
