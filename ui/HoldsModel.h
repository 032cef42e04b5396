#pragma once

#include "core/engine/Scheduler.h"

#include <QAbstractTableModel>
#include <QList>

namespace cooldown {

// The partitions a server told to wait, one row each, earliest end first.
class HoldsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HoldsModel)

public:
    enum Column
    {
        PolicyColumn,
        PartitionKeyColumn,
        UntilColumn,
        WhyColumn,
        ColumnCount
    };

    enum Role
    {
        PolicyIdRole = Qt::UserRole,
        PartitionKeyRole,
        UntilMsRole,
    };

    explicit HoldsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Holds that ended by nowMs are dropped.
    void setHolds(QList<PartitionHold> holds, qint64 nowMs);
    void setNowMs(qint64 nowMs);
    const PartitionHold &holdAt(int row) const { return m_holds.at(row); }

private:
    QList<PartitionHold> m_holds;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
