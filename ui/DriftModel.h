// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/ratelimit/PolicyDrift.h"

#include <QAbstractTableModel>
#include <QList>

namespace cooldown {

// Where a server advertises other limits than the configured policy: one row per
// (policy, partition key) that differs, configured beside advertised.
class DriftModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DriftModel)

public:
    enum Column
    {
        PolicyColumn,
        PartitionKeyColumn,
        ConfiguredColumn,
        AdvertisedColumn,
        DifferencesColumn,
        SeenColumn,
        ColumnCount
    };

    enum Role
    {
        PolicyIdRole = Qt::UserRole,
        PartitionKeyRole,
        ServerIsStricterRole,
    };

    explicit DriftModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Comparisons that found no difference are left out.
    void setDrifts(QList<PolicyDrift> drifts, qint64 nowMs);
    const PolicyDrift &driftAt(int row) const { return m_drifts.at(row); }

    // "120 per 60 s", "8 at once", "5,000 byte per 60 s".
    static QString quotaText(qint64 quota, qint64 windowMs, const QString &unit);

private:
    QList<PolicyDrift> m_drifts;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
