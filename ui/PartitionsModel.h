// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/Scheduler.h"
#include "core/query/QueryRecords.h"

#include <QAbstractTableModel>
#include <QList>

#include <optional>

namespace cooldown {

// Every (policy, partition key) of the fleet, one row each: why its operations wait
// (a server's hold, the next token) or that they do not, its queue, its bucket and the
// policy the database keeps, with what another worker configured otherwise.
//
// Fed from two sides: the store's partitions (setPartitions, read for every worker
// once a second) and the holds of the engine in this process (setHolds, at once). A
// hold from either side shows. Held partitions come first, the earliest end first,
// then those waiting for a token, then the longest queue. Rows are updated and moved
// in place, never reset, so a selection stays with its partition; setNowMs() moves
// the countdowns, and a hold that ends moves its row down.
class PartitionsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PartitionsModel)

public:
    enum Column
    {
        PolicyColumn,
        PartitionKeyColumn,
        StateColumn,
        WaitingColumn,
        TokensColumn,
        HeldColumn,
        ConfiguredColumn,
        ColumnCount
    };

    enum Role
    {
        PolicyIdRole = Qt::UserRole,
        PartitionKeyRole,
        HeldUntilMsRole, // qint64; 0 unless held now
        ActivityRole,    // int(Activity)
        ConflictRole,    // QString; empty when every worker agrees
        // A learned partition whose server states a quota: the host, the quota and
        // the window (ms); empty, 0 and 0 otherwise. What "Adopt as policy" writes.
        LearnedHostRole,
        LearnedQuotaRole,
        LearnedWindowMsRole,
    };

    // Why the partition's operations wait, or that they do not, in the order shown.
    enum class Activity
    {
        Held,            // a server named a time to come back
        WaitingForToken, // operations are due, the bucket is empty
        Sending,         // operations are due and there are tokens for them
        NotDue,          // operations wait for their own next attempt
        Idle,            // nothing waits
    };

    explicit PartitionsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The partitions as the store has them.
    void setPartitions(QList<PartitionState> partitions, qint64 nowMs);
    // The holds of the engine in this process; ended ones are left out.
    void setHolds(QList<PartitionHold> holds, qint64 nowMs);
    void setNowMs(qint64 nowMs);

    // -1 when the partition is not shown.
    int rowOf(const QString &policyId, const QString &partitionKey) const;
    Activity activityAt(int row) const;
    // The holds standing now, from either side, in the order shown.
    QList<PartitionHold> activeHolds() const;

private:
    struct Row
    {
        QString policyId;
        QString partitionKey;
        std::optional<PartitionState> stored; // null until the store's row is read
        qint64 engineHoldUntilMs = 0;
        QString engineHoldWhy;
    };

    PartitionHold holdOf(const Row &row) const; // untilMs 0 unless held now
    Activity activityOf(const Row &row) const;
    qint64 tokensOf(const PartitionState &p) const;
    QString tokensText(const PartitionState &p) const;
    QString stateTip(const Row &row) const;
    bool showsBefore(const Row &a, const Row &b) const;
    void update();

    QList<Row> m_rows;
    QList<PartitionState> m_partitions;
    QList<PartitionHold> m_holds;
    qint64 m_nowMs = 0;
};

} // namespace cooldown
