#include "ui/JobsModel.h"

#include "ui/Format.h"
#include "ui/Palette.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace cooldown {

namespace {

bool sameRow(const OperationRecord &a, const OperationRecord &b)
{
    return a.version == b.version && a.state == b.state && a.attempt == b.attempt &&
           a.nextAttemptAtMs == b.nextAttemptAtMs && a.lastStatus == b.lastStatus &&
           a.leaseOwner == b.leaseOwner && a.waitSource == b.waitSource &&
           a.finalReason == b.finalReason && a.lastError == b.lastError;
}

QColor stateColor(OperationState state)
{
    switch (state) {
    case OperationState::Waiting:
        return QColor(0xb3, 0x6b, 0x00);
    case OperationState::Running:
        return QColor(0x1f, 0x5f, 0xbf);
    case OperationState::Failed:
        return palette::problem();
    case OperationState::Parked:
        return QColor(0x8a, 0x3f, 0xb0);
    case OperationState::Succeeded:
        return QColor(0x26, 0x80, 0x3c);
    case OperationState::Scheduled:
    case OperationState::Cancelled:
        break;
    }
    return QColor();
}

} // namespace

JobsModel::JobsModel(QObject *parent) : QAbstractTableModel(parent) {}

int JobsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int JobsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString JobsModel::partitionText(const OperationRecord &op) const
{
    if (op.policyId.isEmpty())
        return QString();
    QString text = op.partitionKey.isEmpty() ? op.policyId : op.partitionKey;
    for (const PartitionHold &hold : m_holds) {
        if (hold.policyId == op.policyId && hold.partitionKey == op.partitionKey &&
            hold.untilMs > m_nowMs)
            return tr("%1 (held, %2)").arg(text, format::countdown(hold.untilMs, m_nowMs));
    }
    return text;
}

QVariant JobsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const OperationRecord &op = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case IdColumn:
            return op.id;
        case EndpointColumn:
            return m_paused.contains(op.endpointId) ? tr("%1 (paused)").arg(op.endpointId)
                                                    : op.endpointId;
        case StateColumn:
            return format::stateName(op.state);
        case AttemptColumn:
            return op.attempt;
        case NextAttemptColumn:
            if (op.state != OperationState::Waiting && op.state != OperationState::Scheduled)
                return QStringLiteral("—");
            return format::countdown(op.nextAttemptAtMs, m_nowMs);
        case LastStatusColumn:
            return op.attempt == 0 ? QStringLiteral("—")
                                   : format::outcome(op.lastStatus, op.lastError);
        case WaitSourceColumn:
            return op.waitSource == QLatin1String("none") ? QString() : op.waitSource;
        case PartitionColumn:
            return partitionText(op);
        case LeaseOwnerColumn:
            return op.leaseOwner;
        case ReasonColumn:
            return op.finalReason;
        case ColumnCount:
            break;
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == StateColumn) {
            const QColor color = stateColor(op.state);
            if (color.isValid())
                return QBrush(color);
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == IdColumn || index.column() == AttemptColumn ||
            index.column() == LastStatusColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == NextAttemptColumn && op.nextAttemptAtMs >= 0)
            return format::localTime(op.nextAttemptAtMs, m_nowMs);
        if (index.column() == LastStatusColumn && !op.lastError.isEmpty())
            return op.lastError;
        return {};
    case OperationIdRole:
        return op.id;
    case EndpointIdRole:
        return op.endpointId;
    case StateRole:
        return QVariant::fromValue(op.state);
    case OperationRole:
        return QVariant::fromValue(op);
    case PolicyIdRole:
        return op.policyId;
    case PartitionKeyRole:
        return op.partitionKey;
    default:
        return {};
    }
}

QVariant JobsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case IdColumn:
        return tr("Operation");
    case EndpointColumn:
        return tr("Endpoint");
    case StateColumn:
        return tr("State");
    case AttemptColumn:
        return tr("Attempt");
    case NextAttemptColumn:
        return tr("Next attempt");
    case LastStatusColumn:
        return tr("Last status");
    case WaitSourceColumn:
        return tr("Wait from");
    case PartitionColumn:
        return tr("Partition");
    case LeaseOwnerColumn:
        return tr("Lease owner");
    case ReasonColumn:
        return tr("Reason");
    case ColumnCount:
        break;
    }
    return {};
}

void JobsModel::emitRowChanged(int row)
{
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void JobsModel::setOperations(QList<OperationRecord> operations)
{
    std::sort(operations.begin(), operations.end(),
              [](const OperationRecord &a, const OperationRecord &b) { return a.id < b.id; });
    // Merge two id-sorted lists, so that unchanged rows keep their place and selection.
    int row = 0;
    int next = 0;
    while (row < m_rows.size() || next < operations.size()) {
        if (next >= operations.size() ||
            (row < m_rows.size() && m_rows.at(row).id < operations.at(next).id)) {
            int last = row;
            while (last + 1 < m_rows.size() &&
                   (next >= operations.size() || m_rows.at(last + 1).id < operations.at(next).id))
                ++last;
            beginRemoveRows({}, row, last);
            m_rows.remove(row, last - row + 1);
            endRemoveRows();
        } else if (row >= m_rows.size() || operations.at(next).id < m_rows.at(row).id) {
            int last = next;
            while (last + 1 < operations.size() &&
                   (row >= m_rows.size() || operations.at(last + 1).id < m_rows.at(row).id))
                ++last;
            const int count = last - next + 1;
            beginInsertRows({}, row, row + count - 1);
            for (int i = 0; i < count; ++i)
                m_rows.insert(row + i, operations.at(next + i));
            endInsertRows();
            row += count;
            next += count;
        } else {
            // A refresh read before a live change must not undo it.
            if (operations.at(next).version >= m_rows.at(row).version &&
                !sameRow(m_rows.at(row), operations.at(next))) {
                m_rows[row] = operations.at(next);
                emitRowChanged(row);
            }
            ++row;
            ++next;
        }
    }
}

void JobsModel::upsert(const OperationRecord &operation)
{
    const auto it =
        std::lower_bound(m_rows.begin(), m_rows.end(), operation.id,
                         [](const OperationRecord &row, qint64 id) { return row.id < id; });
    const int row = int(it - m_rows.begin());
    if (it != m_rows.end() && it->id == operation.id) {
        if (operation.version < it->version)
            return;
        m_rows[row] = operation;
        emitRowChanged(row);
        return;
    }
    beginInsertRows({}, row, row);
    m_rows.insert(row, operation);
    endInsertRows();
}

void JobsModel::setNowMs(qint64 nowMs)
{
    m_nowMs = nowMs;
    if (m_rows.isEmpty())
        return;
    emit dataChanged(index(0, NextAttemptColumn), index(int(m_rows.size()) - 1, NextAttemptColumn),
                     {Qt::DisplayRole});
    if (!m_holds.isEmpty())
        emit dataChanged(index(0, PartitionColumn), index(int(m_rows.size()) - 1, PartitionColumn),
                         {Qt::DisplayRole});
}

void JobsModel::setHolds(const QList<PartitionHold> &holds)
{
    m_holds = holds;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, PartitionColumn), index(int(m_rows.size()) - 1, PartitionColumn),
                         {Qt::DisplayRole});
}

void JobsModel::setPausedEndpoints(const QSet<QString> &endpointIds)
{
    if (endpointIds == m_paused)
        return;
    m_paused = endpointIds;
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, EndpointColumn), index(int(m_rows.size()) - 1, EndpointColumn),
                         {Qt::DisplayRole});
}

int JobsModel::rowOf(qint64 operationId) const
{
    const auto it =
        std::lower_bound(m_rows.cbegin(), m_rows.cend(), operationId,
                         [](const OperationRecord &row, qint64 id) { return row.id < id; });
    return it != m_rows.cend() && it->id == operationId ? int(it - m_rows.cbegin()) : -1;
}

} // namespace cooldown
