// SPDX-License-Identifier: Apache-2.0
#include "ui/AuditModel.h"

#include "ui/Format.h"

#include <QLocale>

namespace cooldown {

AuditModel::AuditModel(QObject *parent) : QAbstractTableModel(parent) {}

int AuditModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString AuditModel::actionName(OperatorAction action)
{
    switch (action) {
    case OperatorAction::Retry:
        return tr("Retry");
    case OperatorAction::Force:
        return tr("Force");
    case OperatorAction::Cancel:
        return tr("Cancel");
    case OperatorAction::Pause:
        return tr("Pause");
    case OperatorAction::Resume:
        return tr("Resume");
    case OperatorAction::LiftHold:
        return tr("Lift hold");
    }
    return toString(action);
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuditRecord &r = m_rows.at(index.row());
    if (role == AuditIdRole)
        return r.id;
    if (role == Qt::TextAlignmentRole &&
        (index.column() == AskedColumn || index.column() == ChangedColumn))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == TargetColumn)
        return r.target;
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case AtColumn:
        return format::localTime(r.atMs, m_nowMs);
    case ActorColumn:
        return r.actor;
    case ActionColumn:
        return actionName(r.action);
    case TargetColumn:
        return r.target;
    case AskedColumn:
        return QLocale().toString(r.asked);
    case ChangedColumn:
        return QLocale().toString(r.changed);
    case WorkerColumn:
        // The command line applies its actions without a worker.
        return r.workerId.isEmpty() ? tr("command line") : r.workerId;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case AtColumn:
        return tr("When");
    case ActorColumn:
        return tr("Who");
    case ActionColumn:
        return tr("Action");
    case TargetColumn:
        return tr("Filter or operations");
    case AskedColumn:
        return tr("Asked");
    case ChangedColumn:
        return tr("Changed");
    case WorkerColumn:
        return tr("Applied by");
    case ColumnCount:
        break;
    }
    return {};
}

void AuditModel::setRows(QList<AuditRecord> rows, qint64 nowMs)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_nowMs = nowMs;
    endResetModel();
}

} // namespace cooldown
