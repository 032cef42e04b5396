#include "ui/HoldsModel.h"

#include "ui/Format.h"

#include <algorithm>

namespace cooldown {

HoldsModel::HoldsModel(QObject *parent) : QAbstractTableModel(parent) {}

int HoldsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_holds.size());
}

int HoldsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HoldsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PartitionHold &hold = m_holds.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case PolicyColumn:
            return hold.policyId;
        case PartitionKeyColumn:
            return hold.partitionKey;
        case UntilColumn:
            return tr("%1 (%2)").arg(format::localTime(hold.untilMs, m_nowMs),
                                     format::countdown(hold.untilMs, m_nowMs));
        case WhyColumn:
            return hold.why;
        case ColumnCount:
            break;
        }
        return {};
    case PolicyIdRole:
        return hold.policyId;
    case PartitionKeyRole:
        return hold.partitionKey;
    case UntilMsRole:
        return hold.untilMs;
    default:
        return {};
    }
}

QVariant HoldsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case PolicyColumn:
        return tr("Policy");
    case PartitionKeyColumn:
        return tr("Partition key");
    case UntilColumn:
        return tr("Held until");
    case WhyColumn:
        return tr("Why");
    case ColumnCount:
        break;
    }
    return {};
}

void HoldsModel::setHolds(QList<PartitionHold> holds, qint64 nowMs)
{
    m_nowMs = nowMs;
    holds.erase(std::remove_if(holds.begin(), holds.end(),
                               [nowMs](const PartitionHold &h) { return h.untilMs <= nowMs; }),
                holds.end());
    std::sort(holds.begin(), holds.end(),
              [](const PartitionHold &a, const PartitionHold &b) { return a.untilMs < b.untilMs; });
    // Few rows and rare changes: a reset keeps this simple and correct.
    beginResetModel();
    m_holds = std::move(holds);
    endResetModel();
}

void HoldsModel::setNowMs(qint64 nowMs)
{
    m_nowMs = nowMs;
    if (!m_holds.isEmpty())
        emit dataChanged(index(0, UntilColumn), index(int(m_holds.size()) - 1, UntilColumn),
                         {Qt::DisplayRole});
}

} // namespace cooldown
