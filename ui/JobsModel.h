#pragma once

#include "core/engine/Scheduler.h"
#include "core/store/Records.h"

#include <QAbstractTableModel>
#include <QList>
#include <QSet>

namespace cooldown {

// The operations an operator can act on, one row each, ordered by id. Filled from the
// store (setOperations, on a worker's schedule) and kept live in between from the
// scheduler's operationChanged signal (upsert). The next-attempt column counts down:
// setNowMs() moves it without touching the other columns.
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
    };

    explicit JobsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Replaces the rows with these (sorted by id or not): rows that stay are updated
    // in place, so the selection survives a refresh.
    void setOperations(QList<OperationRecord> operations);
    // One operation changed: its row is updated, or added when it is new.
    void upsert(const OperationRecord &operation);
    void setNowMs(qint64 nowMs);
    void setHolds(const QList<PartitionHold> &holds);
    void setPausedEndpoints(const QSet<QString> &endpointIds);

    int rowOf(qint64 operationId) const;
    const OperationRecord &operationAt(int row) const { return m_rows.at(row); }
    bool isPaused(const QString &endpointId) const { return m_paused.contains(endpointId); }

private:
    QString partitionText(const OperationRecord &op) const;
    void emitRowChanged(int row);

    QList<OperationRecord> m_rows;
    QList<PartitionHold> m_holds;
    QSet<QString> m_paused;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
