// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/ratelimit/PolicyDrift.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QJsonObject>
#include <QList>

namespace cooldown {

// The endpoints, or the policies, of a workspace document as written: one row per
// JSON object, its id and a one-line summary; for policies, whether a server
// advertised other limits. The row a validation problem names is marked.
class WorkspaceItemsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorkspaceItemsModel)

public:
    enum class Kind
    {
        Endpoints,
        Policies,
    };

    enum Column
    {
        IdColumn,
        SummaryColumn,
        DriftColumn, // policies only
        ColumnCount
    };

    enum Role
    {
        IdRole = Qt::UserRole,
        ProblemRole,
    };

    explicit WorkspaceItemsModel(Kind kind, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    Kind kind() const { return m_kind; }
    void setItems(QList<QJsonObject> items);
    void setItem(int row, const QJsonObject &item);
    void insertItem(int row, const QJsonObject &item);
    void removeItem(int row);
    const QJsonObject &item(int row) const { return m_items.at(row); }
    QString idAt(int row) const;

    void setDrifts(const QList<PolicyDrift> &drifts);
    // The row the current problem is in, and the problem; -1: none.
    void setProblem(int row, const QString &message);

private:
    struct DriftSummary
    {
        int partitions = 0;
        bool stricter = false;
    };

    QString summary(const QJsonObject &item) const;
    void emitRowChanged(int row);

    Kind m_kind;
    QList<QJsonObject> m_items;
    QHash<QString, DriftSummary> m_drifts; // by policy_id
    int m_problemRow = -1;
    QString m_problem;
};

} // namespace cooldown
