// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryRecords.h"

#include <QAbstractTableModel>
#include <QList>

namespace cooldown {

// The operator audit table as History shows it, newest first: who did what, when, to
// which filter or list, and how many operations it changed. The rows are few (one per
// operator action) and are read whole by an AuditReader.
class AuditModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditModel)

public:
    enum Column
    {
        AtColumn,
        ActorColumn,
        ActionColumn,
        TargetColumn,
        AskedColumn,
        ChangedColumn,
        WorkerColumn,
        ColumnCount
    };

    enum Role
    {
        AuditIdRole = Qt::UserRole,
    };

    explicit AuditModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // rows newest first; nowMs decides whether a time shows its date.
    void setRows(QList<AuditRecord> rows, qint64 nowMs);
    const AuditRecord &recordAt(int row) const { return m_rows.at(row); }

    // "Retry", "Force", "Lift hold": an action in the operator's language.
    static QString actionName(OperatorAction action);

private:
    QList<AuditRecord> m_rows;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
