// SPDX-License-Identifier: Apache-2.0
#include "ui/WorkspaceItemsModel.h"

#include "ui/DriftModel.h"
#include "ui/Palette.h"

#include <QApplication>
#include <QColor>
#include <QFont>
#include <QIcon>
#include <QStyle>

#include <algorithm>
#include <cmath>

namespace cooldown {

WorkspaceItemsModel::WorkspaceItemsModel(Kind kind, QObject *parent)
    : QAbstractTableModel(parent), m_kind(kind)
{}

int WorkspaceItemsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

int WorkspaceItemsModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return m_kind == Kind::Policies ? ColumnCount : DriftColumn;
}

QString WorkspaceItemsModel::idAt(int row) const
{
    const QString key =
        m_kind == Kind::Endpoints ? QStringLiteral("id") : QStringLiteral("policy_id");
    return m_items.value(row).value(key).toString();
}

QString WorkspaceItemsModel::summary(const QJsonObject &item) const
{
    if (m_kind == Kind::Endpoints) {
        const QString method = item.value(QStringLiteral("method")).toString();
        return QStringLiteral("%1 %2").arg(method.isEmpty() ? QStringLiteral("GET")
                                                            : method.toUpper(),
                                           item.value(QStringLiteral("url")).toString());
    }
    const QJsonValue limit = item.value(QStringLiteral("limit"));
    if (!limit.isDouble())
        return tr("no limit set");
    const double window = item.value(QStringLiteral("window_seconds")).toDouble();
    QString text =
        DriftModel::quotaText(qint64(limit.toDouble()), qint64(std::round(window * 1000)),
                              item.value(QStringLiteral("quota_unit")).toString());
    const double burst = item.value(QStringLiteral("burst")).toDouble();
    if (burst > 0)
        text += tr(", burst %1").arg(burst);
    return text;
}

QVariant WorkspaceItemsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const QJsonObject &item = m_items.at(index.row());
    const QString id = idAt(index.row());
    const bool problem = index.row() == m_problemRow;
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case IdColumn:
            return id.isEmpty() ? tr("(no id)") : id;
        case SummaryColumn:
            return summary(item);
        case DriftColumn: {
            const auto it = m_drifts.constFind(id);
            if (it == m_drifts.constEnd())
                return QString();
            const QString partitions = tr("differs for %n partition(s)", nullptr, it->partitions);
            return it->stricter ? tr("%1, server stricter").arg(partitions) : partitions;
        }
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == IdColumn && problem)
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ToolTipRole:
        if (problem)
            return m_problem;
        if (m_kind == Kind::Endpoints)
            return item.value(QStringLiteral("name")).toString();
        return {};
    case Qt::ForegroundRole:
        if (index.column() == DriftColumn && m_drifts.value(id).stricter)
            return palette::problem();
        return {};
    case Qt::FontRole:
        if (index.column() == IdColumn && id.isEmpty()) {
            QFont italic;
            italic.setItalic(true);
            return italic;
        }
        return {};
    case IdRole:
        return id;
    case ProblemRole:
        return problem ? m_problem : QString();
    default:
        return {};
    }
}

QVariant WorkspaceItemsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case IdColumn:
        return m_kind == Kind::Endpoints ? tr("Endpoint") : tr("Policy");
    case SummaryColumn:
        return m_kind == Kind::Endpoints ? tr("Request") : tr("Limit");
    case DriftColumn:
        return tr("Drift");
    case ColumnCount:
        break;
    }
    return {};
}

void WorkspaceItemsModel::emitRowChanged(int row)
{
    if (row >= 0 && row < m_items.size())
        emit dataChanged(index(row, 0), index(row, columnCount() - 1));
}

void WorkspaceItemsModel::setItems(QList<QJsonObject> items)
{
    beginResetModel();
    m_items = std::move(items);
    m_problemRow = -1;
    m_problem.clear();
    endResetModel();
}

void WorkspaceItemsModel::setItem(int row, const QJsonObject &item)
{
    if (row < 0 || row >= m_items.size())
        return;
    m_items[row] = item;
    emitRowChanged(row);
}

void WorkspaceItemsModel::insertItem(int row, const QJsonObject &item)
{
    row = std::clamp(row, 0, int(m_items.size()));
    beginInsertRows(QModelIndex(), row, row);
    m_items.insert(row, item);
    if (m_problemRow >= row)
        ++m_problemRow;
    endInsertRows();
}

void WorkspaceItemsModel::removeItem(int row)
{
    if (row < 0 || row >= m_items.size())
        return;
    beginRemoveRows(QModelIndex(), row, row);
    m_items.removeAt(row);
    if (m_problemRow == row)
        m_problemRow = -1;
    else if (m_problemRow > row)
        --m_problemRow;
    endRemoveRows();
}

void WorkspaceItemsModel::setDrifts(const QList<PolicyDrift> &drifts)
{
    m_drifts.clear();
    for (const PolicyDrift &d : drifts) {
        if (!d.isDrift())
            continue;
        DriftSummary &s = m_drifts[d.policyId];
        ++s.partitions;
        s.stricter = s.stricter || d.serverIsStricter();
    }
    if (m_kind == Kind::Policies && !m_items.isEmpty())
        emit dataChanged(index(0, DriftColumn), index(int(m_items.size()) - 1, DriftColumn));
}

void WorkspaceItemsModel::setProblem(int row, const QString &message)
{
    if (row < 0 || row >= m_items.size())
        row = -1;
    if (row == m_problemRow && message == m_problem)
        return;
    const int previous = m_problemRow;
    m_problemRow = row;
    m_problem = row >= 0 ? message : QString();
    emitRowChanged(previous);
    if (row != previous)
        emitRowChanged(row);
}

} // namespace cooldown
