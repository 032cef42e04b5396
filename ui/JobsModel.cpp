// SPDX-License-Identifier: Apache-2.0
#include "ui/JobsModel.h"

#include "ui/Format.h"
#include "ui/JobsReader.h"
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

void JobsModel::attach(JobsReader *reader)
{
    Q_ASSERT(!m_reader);
    m_reader = reader;
    connect(this, &JobsModel::loadRequested, reader, &JobsReader::load);
    connect(this, &JobsModel::reindexRequested, reader, &JobsReader::reindex);
    connect(this, &JobsModel::fetchRequested, reader, &JobsReader::fetch);
    connect(reader, &JobsReader::indexed, this, &JobsModel::onIndexed);
    connect(reader, &JobsReader::reindexed, this, &JobsModel::onReindexed);
    connect(reader, &JobsReader::fetched, this, &JobsModel::onFetched);
    connect(reader, &JobsReader::failed, this, [this](const QString &message) {
        setLoading(false);
        m_reindexing = false;
        m_pending.clear();
        emit failed(message);
    });
}

JobsModel::~JobsModel()
{
    // The reader's answers must not reach a half-destroyed model.
    if (m_reader)
        disconnect(m_reader, nullptr, this, nullptr);
}

int JobsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

int JobsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int JobsModel::rowOf(qint64 operationId) const
{
    const auto it = std::lower_bound(m_ids.cbegin(), m_ids.cend(), operationId);
    return it != m_ids.cend() && *it == operationId ? int(it - m_ids.cbegin()) : -1;
}

qint64 JobsModel::operationIdAt(int row) const
{
    return row >= 0 && row < m_ids.size() ? m_ids.at(row) : 0;
}

std::optional<OperationRecord> JobsModel::operationAt(int row) const
{
    const auto it = m_cache.constFind(operationIdAt(row));
    if (it == m_cache.constEnd())
        return std::nullopt;
    return it->operation;
}

void JobsModel::ensureLoaded(int firstRow, int lastRow, bool refreshStale) const
{
    firstRow = std::max(0, firstRow);
    lastRow = std::min(int(m_ids.size()) - 1, lastRow);
    if (!m_reader || firstRow > lastRow)
        return;
    for (int page = firstRow / kPageRows; page <= lastRow / kPageRows; ++page) {
        const int top = page * kPageRows;
        const int bottom = std::min(int(m_ids.size()) - 1, top + kPageRows - 1);
        const qint64 firstId = m_ids.at(top);
        if (m_pending.contains(firstId))
            continue;
        bool wanted = false;
        for (int row = std::max(top, firstRow); row <= std::min(bottom, lastRow) && !wanted;
             ++row) {
            const auto it = m_cache.constFind(m_ids.at(row));
            wanted = it == m_cache.constEnd() || (refreshStale && it->epoch < m_epoch);
        }
        if (!wanted)
            continue;
        m_pending.insert(firstId, m_serial);
        emit const_cast<JobsModel *>(this)->fetchRequested(m_generation, firstId, m_ids.at(bottom));
    }
}

void JobsModel::setQuery(const JobsQuery &query)
{
    m_query = query;
    ++m_generation;
    beginResetModel();
    m_ids.clear();
    m_cache.clear();
    m_cachedPages.clear();
    m_pending.clear();
    endResetModel();
    m_reindexing = false;
    m_refreshWanted = false;
    if (!m_reader)
        return;
    setLoading(true);
    emit loadRequested(m_generation, query);
}

void JobsModel::refresh()
{
    m_refreshWanted = true;
    maybeReindex();
}

void JobsModel::maybeReindex()
{
    if (!m_reader || !m_refreshWanted || m_loading || m_reindexing)
        return;
    // A long list is not read again on every change of the store.
    if (m_ids.size() > kLargeList && m_reindexedAtMs >= 0 &&
        m_nowMs - m_reindexedAtMs < kLargeListIntervalMs)
        return;
    m_refreshWanted = false;
    m_reindexing = true;
    m_reindexedAtMs = m_nowMs;
    emit reindexRequested(m_generation);
}

void JobsModel::setLoading(bool loading)
{
    if (m_loading == loading)
        return;
    m_loading = loading;
    emit loadingChanged(loading);
}

void JobsModel::onIndexed(quint64 generation, const QList<qint64> &ids, bool complete,
                          const QList<OperationRecord> &operations)
{
    if (generation != m_generation)
        return;
    // The rows' records go in first, so that the rows show as they appear.
    for (const OperationRecord &op : operations) {
        if (!m_cache.contains(op.id))
            cache(op);
    }
    if (!operations.isEmpty()) {
        QList<qint64> page;
        for (const OperationRecord &op : operations)
            page.append(op.id);
        m_cachedPages.push_back(page);
    }
    // The reader reads above the last id it sent, but a live upsert may have added some
    // of these already, and put a row above them.
    const qint64 last = m_ids.isEmpty() ? 0 : m_ids.constLast();
    QList<qint64> added;
    added.reserve(ids.size());
    for (const qint64 id : ids) {
        if (id > last) {
            added.append(id);
        } else if (rowOf(id) < 0) {
            const int at = int(std::lower_bound(m_ids.cbegin(), m_ids.cend(), id) - m_ids.cbegin());
            beginInsertRows({}, at, at);
            m_ids.insert(at, id);
            endInsertRows();
        }
    }
    if (!added.isEmpty()) {
        const int first = int(m_ids.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_ids.append(added);
        endInsertRows();
    }
    if (complete) {
        setLoading(false);
        maybeReindex();
    }
}

void JobsModel::onReindexed(quint64 generation, const QList<qint64> &ids,
                            const QList<OperationRecord> &operations)
{
    if (generation != m_generation)
        return;
    m_reindexing = false;
    mergeIds(ids);
    // Rows read before may have changed in the store: those on screen are read again
    // at the next showTime(), the others when they come into view.
    ++m_epoch;
    QList<qint64> page;
    for (const OperationRecord &op : operations) {
        const int row = rowOf(op.id);
        if (row < 0)
            continue;
        const auto it = m_cache.constFind(op.id);
        if (it != m_cache.constEnd() && it->operation.version > op.version)
            continue; // a live change newer than the read
        cache(op);
        page.append(op.id);
        emitRowChanged(row);
    }
    if (!page.isEmpty())
        m_cachedPages.push_back(page);
    maybeReindex();
}

void JobsModel::onFetched(quint64 generation, qint64 firstId, qint64 lastId,
                          const QList<OperationRecord> &operations)
{
    if (generation != m_generation)
        return;
    const quint64 askedAt = m_pending.take(firstId);
    QSet<qint64> read;
    read.reserve(operations.size());
    for (const OperationRecord &op : operations) {
        read.insert(op.id);
        if (rowOf(op.id) < 0)
            continue; // new since the index was read: the next refresh lists it
        const auto it = m_cache.constFind(op.id);
        // A live change newer than the read wins.
        if (it != m_cache.constEnd() && it->serial > askedAt && it->operation.version > op.version)
            continue;
        cache(op);
    }
    m_cachedPages.push_back(QList<qint64>(read.cbegin(), read.cend()));
    while (m_cache.size() > kCachedRows && m_cachedPages.size() > 1) {
        for (const qint64 id : m_cachedPages.front())
            m_cache.remove(id);
        m_cachedPages.pop_front();
    }
    // Rows of the range the store no longer selects have left the query (another worker
    // finished them), unless a live change put them here after the read was asked for.
    const int top = int(std::lower_bound(m_ids.cbegin(), m_ids.cend(), firstId) - m_ids.cbegin());
    int bottom = int(std::upper_bound(m_ids.cbegin(), m_ids.cend(), lastId) - m_ids.cbegin()) - 1;
    for (int row = bottom; row >= top; --row) {
        const qint64 id = m_ids.at(row);
        if (read.contains(id))
            continue;
        const auto it = m_cache.constFind(id);
        if (it != m_cache.constEnd() && it->serial > askedAt)
            continue;
        removeRow(row);
        --bottom;
    }
    if (top <= bottom) {
        emit dataChanged(index(top, 0), index(bottom, ColumnCount - 1));
        emit rowsLoaded(top, bottom);
    }
}

void JobsModel::mergeIds(const QList<qint64> &ids)
{
    // Merge two ascending lists, so that rows that stay keep their place and selection.
    int row = 0;
    int next = 0;
    while (row < m_ids.size() || next < ids.size()) {
        if (next >= ids.size() || (row < m_ids.size() && m_ids.at(row) < ids.at(next))) {
            int last = row;
            while (last + 1 < m_ids.size() &&
                   (next >= ids.size() || m_ids.at(last + 1) < ids.at(next)))
                ++last;
            beginRemoveRows({}, row, last);
            for (int r = row; r <= last; ++r)
                m_cache.remove(m_ids.at(r));
            m_ids.remove(row, last - row + 1);
            endRemoveRows();
        } else if (row >= m_ids.size() || ids.at(next) < m_ids.at(row)) {
            int last = next;
            while (last + 1 < ids.size() &&
                   (row >= m_ids.size() || ids.at(last + 1) < m_ids.at(row)))
                ++last;
            const int count = last - next + 1;
            beginInsertRows({}, row, row + count - 1);
            m_ids.insert(row, count, 0);
            std::copy(ids.cbegin() + next, ids.cbegin() + last + 1, m_ids.begin() + row);
            endInsertRows();
            row += count;
            next += count;
        } else {
            ++row;
            ++next;
        }
    }
}

void JobsModel::removeRow(int row)
{
    beginRemoveRows({}, row, row);
    m_cache.remove(m_ids.at(row));
    m_ids.remove(row);
    endRemoveRows();
}

void JobsModel::cache(const OperationRecord &operation)
{
    Row &entry = m_cache[operation.id];
    entry.operation = operation;
    entry.epoch = m_epoch;
    entry.serial = ++m_serial;
}

void JobsModel::emitRowChanged(int row)
{
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void JobsModel::emitColumnChanged(int column, int firstRow, int lastRow)
{
    firstRow = std::max(0, firstRow);
    lastRow = std::min(int(m_ids.size()) - 1, lastRow);
    if (firstRow <= lastRow)
        emit dataChanged(index(firstRow, column), index(lastRow, column), {Qt::DisplayRole});
}

void JobsModel::setOperations(QList<OperationRecord> operations)
{
    std::sort(operations.begin(), operations.end(),
              [](const OperationRecord &a, const OperationRecord &b) { return a.id < b.id; });
    QList<qint64> ids;
    ids.reserve(operations.size());
    for (const OperationRecord &op : std::as_const(operations))
        ids.append(op.id);
    const QSet<qint64> shown(m_ids.cbegin(), m_ids.cend());
    mergeIds(ids);
    for (const OperationRecord &op : std::as_const(operations)) {
        const auto it = m_cache.constFind(op.id);
        // A refresh read before a live change must not undo it.
        if (it != m_cache.constEnd() &&
            (op.version < it->operation.version || sameRow(it->operation, op)))
            continue;
        cache(op);
        // A row inserted just now has nothing on screen to change.
        if (shown.contains(op.id))
            emitRowChanged(rowOf(op.id));
    }
}

void JobsModel::upsert(const OperationRecord &operation)
{
    const int row = rowOf(operation.id);
    if (row >= 0) {
        const auto it = m_cache.constFind(operation.id);
        if (it != m_cache.constEnd() && operation.version < it->operation.version)
            return;
        cache(operation);
        emitRowChanged(row);
        return;
    }
    if (!m_query.accepts(operation))
        return;
    // The latest-only scopes take new operations at the end, not old ones they dropped.
    if (m_query.scope != JobsScope::Active && !m_ids.isEmpty() && operation.id < m_ids.constFirst())
        return;
    const int at =
        int(std::lower_bound(m_ids.cbegin(), m_ids.cend(), operation.id) - m_ids.cbegin());
    beginInsertRows({}, at, at);
    m_ids.insert(at, operation.id);
    cache(operation);
    endInsertRows();
}

void JobsModel::showTime(qint64 nowMs, int firstRow, int lastRow)
{
    m_nowMs = nowMs;
    ensureLoaded(firstRow, lastRow, true);
    emitColumnChanged(NextAttemptColumn, firstRow, lastRow);
    if (!m_holds.isEmpty())
        emitColumnChanged(PartitionColumn, firstRow, lastRow);
    maybeReindex();
}

void JobsModel::setHolds(const QList<PartitionHold> &holds)
{
    if (holds.isEmpty() && m_holds.isEmpty())
        return;
    m_holds = holds;
    emitColumnChanged(PartitionColumn, 0, int(m_ids.size()) - 1);
}

void JobsModel::setPausedEndpoints(const QSet<QString> &endpointIds)
{
    if (endpointIds == m_paused)
        return;
    m_paused = endpointIds;
    emitColumnChanged(EndpointColumn, 0, int(m_ids.size()) - 1);
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
    const qint64 id = m_ids.at(index.row());
    if (role == OperationIdRole)
        return id;
    const auto it = m_cache.constFind(id);
    if (role == LoadedRole)
        return it != m_cache.constEnd();
    if (it == m_cache.constEnd()) {
        // Whoever asks about a row (a view painting it, an action reading its state)
        // gets it read; a row not read yet shows its id alone.
        ensureLoaded(index.row(), index.row());
        if (role == Qt::DisplayRole)
            return index.column() == IdColumn ? QVariant(id) : QVariant(QString());
        return {};
    }
    const OperationRecord &op = it->operation;
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
            return format::waitSourceName(op.waitSource.value_or(WaitSource::None));
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

} // namespace cooldown
