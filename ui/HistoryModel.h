// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryRecords.h"
#include "ui/HistoryQuery.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QList>
#include <QPointer>
#include <QSet>

#include <deque>
#include <memory>
#include <optional>

namespace cooldown {

class HistoryReader;

// Every attempt the query selects, newest first, without holding them all: the model
// keeps only the ordered list of matching ids (8 bytes a row) and loads the rows a view
// asks for in pages, by key range, from HistoryReaders on threads of their own (owned by
// whoever made the model: the model owns no thread). A row not
// loaded yet shows a placeholder and is filled in when its page arrives. New attempts
// appear at the top while the query has no end time.
class HistoryModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistoryModel)

public:
    enum Column
    {
        StartedColumn,
        EndpointColumn,
        OperationColumn,
        AttemptColumn,
        StatusColumn,
        DecisionColumn,
        ReasonColumn,
        WaitColumn,
        WaitSourceColumn,
        RetryAfterColumn,
        DurationColumn,
        WorkerColumn,
        ColumnCount
    };

    enum Role
    {
        AttemptIdRole = Qt::UserRole,
        AttemptRole, // the whole AttemptRecord; invalid until the row is loaded
        LoadedRole,
    };

    static constexpr int kPageRows = 200;
    static constexpr int kCachedRows = 20 * kPageRows;

    // index reads the list of ids and follows new attempts; rows reads the pages asked
    // for. Both live on threads of their own, which must outlive the model or be
    // stopped first (their answers then stop).
    HistoryModel(HistoryReader *index, HistoryReader *rows, QObject *parent = nullptr);
    ~HistoryModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void setQuery(const HistoryQuery &query);
    HistoryQuery query() const { return m_query; }
    // Asks the reader for attempts newer than the newest row.
    void refresh();
    bool isLoading() const { return m_loading; }
    qint64 attemptIdAt(int row) const;
    std::optional<AttemptRecord> attemptAt(int row) const;
    // Asks for the bodies kept for an attempt: keptExchangeRead() answers.
    void requestKept(qint64 attemptId) { emit keptRequested(attemptId); }
    // Used by data() and by views that know what they are about to show.
    void ensureLoaded(int firstRow, int lastRow) const;
    void setNowMs(qint64 nowMs) { m_nowMs = nowMs; }

signals:
    void loadingChanged(bool loading);
    void progress(qint64 indexed, qint64 total);
    void failed(const QString &message);
    // Rows of a page arrived (so an inspector showing one of them can refresh).
    void rowsLoaded(int firstRow, int lastRow);
    void keptExchangeRead(qint64 attemptId, const std::optional<cooldown::KeptExchange> &kept);

    // To the reader.
    void loadRequested(quint64 generation, const cooldown::HistoryQuery &query);
    void fetchRequested(quint64 generation, qint64 firstId, qint64 lastId);
    void pollRequested(quint64 generation);
    void keptRequested(qint64 attemptId);

private:
    void onIndexed(quint64 generation, const QList<qint64> &ids, bool complete);
    void onFetched(quint64 generation, qint64 firstId, qint64 lastId,
                   const QList<AttemptRecord> &attempts);
    void onAppended(quint64 generation, const QList<qint64> &ids);
    int rowOfId(qint64 id) const;
    void setLoading(bool loading);

    // Two readers on threads of their own: the rows a view shows never wait behind the
    // index of a big history.
    QPointer<HistoryReader> m_reader;  // the index, then new rows
    QPointer<HistoryReader> m_fetcher; // the rows asked for
    HistoryQuery m_query;
    quint64 m_generation = 0;
    QList<qint64> m_ids; // descending: row r shows m_ids[r], the newest on top
    mutable QHash<qint64, AttemptRecord> m_cache;
    // Pages in the order they arrived, to forget the oldest first.
    std::deque<QList<qint64>> m_cachedPages;
    mutable QSet<qint64> m_pending; // first ids of the pages asked for
    bool m_loading = false;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
