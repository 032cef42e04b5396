// SPDX-License-Identifier: Apache-2.0
#include "ui/HistoryModel.h"

#include "ui/Format.h"
#include "ui/HistoryReader.h"
#include "ui/Palette.h"

#include <QBrush>
#include <QColor>
#include <QDateTime>

#include <algorithm>
#include <functional>

namespace cooldown {

HistoryModel::HistoryModel(HistoryReader *index, HistoryReader *rows, QObject *parent)
    : QAbstractTableModel(parent), m_reader(index), m_fetcher(rows),
      m_nowMs(QDateTime::currentMSecsSinceEpoch())
{
    HistoryReader *reader = index;
    HistoryReader *fetcher = rows;
    connect(this, &HistoryModel::loadRequested, reader, &HistoryReader::load);
    connect(this, &HistoryModel::loadRequested, fetcher, &HistoryReader::follow);
    connect(this, &HistoryModel::fetchRequested, fetcher, &HistoryReader::fetch);
    connect(this, &HistoryModel::pollRequested, reader, &HistoryReader::poll);
    connect(reader, &HistoryReader::indexed, this, &HistoryModel::onIndexed);
    connect(fetcher, &HistoryReader::fetched, this, &HistoryModel::onFetched);
    connect(reader, &HistoryReader::appended, this, &HistoryModel::onAppended);
    connect(this, &HistoryModel::keptRequested, fetcher, &HistoryReader::readKept);
    connect(fetcher, &HistoryReader::keptRead, this,
            [this](qint64 attemptId, bool found, const KeptExchange &kept) {
                emit keptExchangeRead(attemptId, found ? std::optional(kept) : std::nullopt);
            });
    for (HistoryReader *worker : {reader, fetcher}) {
        connect(worker, &HistoryReader::failed, this, [this](const QString &message) {
            setLoading(false);
            emit failed(message);
        });
    }
    connect(reader, &HistoryReader::progress, this,
            [this](quint64 generation, qint64 indexed, qint64 total) {
                if (generation == m_generation)
                    emit progress(indexed, total);
            });
}

HistoryModel::~HistoryModel()
{
    // The readers' answers must not reach a half-destroyed model.
    for (HistoryReader *reader : {m_reader.data(), m_fetcher.data()}) {
        if (reader)
            disconnect(reader, nullptr, this, nullptr);
    }
}

int HistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

int HistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

qint64 HistoryModel::attemptIdAt(int row) const
{
    if (row < 0 || row >= m_ids.size())
        return 0;
    return m_ids.at(row);
}

int HistoryModel::rowOfId(qint64 id) const
{
    const auto it = std::lower_bound(m_ids.cbegin(), m_ids.cend(), id, std::greater<qint64>());
    if (it == m_ids.cend() || *it != id)
        return -1;
    return int(it - m_ids.cbegin());
}

std::optional<AttemptRecord> HistoryModel::attemptAt(int row) const
{
    const auto it = m_cache.constFind(attemptIdAt(row));
    if (it == m_cache.constEnd())
        return std::nullopt;
    return it.value();
}

void HistoryModel::ensureLoaded(int firstRow, int lastRow) const
{
    if (m_ids.isEmpty())
        return;
    firstRow = std::max(0, firstRow);
    lastRow = std::min(int(m_ids.size()) - 1, lastRow);
    for (int page = firstRow / kPageRows; page <= lastRow / kPageRows; ++page) {
        const int top = page * kPageRows;
        const int bottom = std::min(int(m_ids.size()) - 1, top + kPageRows - 1);
        // Rows run newest first: the page's smallest id is on its bottom row.
        const qint64 firstId = attemptIdAt(bottom);
        const qint64 lastId = attemptIdAt(top);
        if (m_pending.contains(firstId))
            continue;
        if (m_cache.contains(firstId) && m_cache.contains(lastId))
            continue;
        m_pending.insert(firstId);
        emit const_cast<HistoryModel *>(this)->fetchRequested(m_generation, firstId, lastId);
    }
}

QVariant HistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const qint64 id = attemptIdAt(index.row());
    if (role == AttemptIdRole)
        return id;
    const auto it = m_cache.constFind(id);
    if (role == LoadedRole)
        return it != m_cache.constEnd();
    if (it == m_cache.constEnd()) {
        if (role == Qt::DisplayRole) {
            ensureLoaded(index.row(), index.row());
            return index.column() == StartedColumn ? QStringLiteral("…") : QString();
        }
        return {};
    }
    const AttemptRecord &a = it.value();
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case StartedColumn:
            return format::localTime(a.startedAtMs, m_nowMs);
        case EndpointColumn:
            return a.endpointId;
        case OperationColumn:
            return a.operationId;
        case AttemptColumn:
            return a.attempt;
        case StatusColumn:
            return format::outcome(a.status, a.error);
        case DecisionColumn:
            return a.leaseConflict ? tr("%1 (lease lost)").arg(format::decisionName(a.decision))
                                   : format::decisionName(a.decision);
        case ReasonColumn:
            return a.reason;
        case WaitColumn:
            return a.waitMs >= 0 ? format::duration(a.waitMs) : QString();
        case WaitSourceColumn:
            return format::waitSourceName(a.waitSource);
        case RetryAfterColumn:
            return a.retryAfterRaw;
        case DurationColumn:
            return format::duration(a.durationMs);
        case WorkerColumn:
            return a.workerId;
        case ColumnCount:
            break;
        }
        return {};
    case Qt::ForegroundRole:
        if (index.column() == StatusColumn && (a.status == 429 || a.status == 503))
            return QBrush(QColor(0xb3, 0x6b, 0x00));
        if (index.column() == DecisionColumn && a.decision == Decision::Fail)
            return QBrush(palette::problem());
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == OperationColumn || index.column() == AttemptColumn ||
            index.column() == StatusColumn || index.column() == WaitColumn ||
            index.column() == DurationColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ToolTipRole:
        if (index.column() == StartedColumn)
            return QDateTime::fromMSecsSinceEpoch(a.startedAtMs, Qt::UTC)
                .toString(Qt::ISODateWithMs);
        return {};
    case AttemptRole:
        return QVariant::fromValue(a);
    default:
        return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case StartedColumn:
        return tr("Started");
    case EndpointColumn:
        return tr("Endpoint");
    case OperationColumn:
        return tr("Operation");
    case AttemptColumn:
        return tr("Attempt");
    case StatusColumn:
        return tr("Status");
    case DecisionColumn:
        return tr("Decision");
    case ReasonColumn:
        return tr("Reason");
    case WaitColumn:
        return tr("Wait");
    case WaitSourceColumn:
        return tr("Wait from");
    case RetryAfterColumn:
        return tr("Retry-After");
    case DurationColumn:
        return tr("Duration");
    case WorkerColumn:
        return tr("Worker");
    case ColumnCount:
        break;
    }
    return {};
}

void HistoryModel::setQuery(const HistoryQuery &query)
{
    m_query = query;
    ++m_generation;
    beginResetModel();
    m_ids.clear();
    m_cache.clear();
    m_cachedPages.clear();
    m_pending.clear();
    endResetModel();
    setLoading(true);
    emit loadRequested(m_generation, query);
}

void HistoryModel::refresh()
{
    if (!m_loading)
        emit pollRequested(m_generation);
}

void HistoryModel::setLoading(bool loading)
{
    if (m_loading == loading)
        return;
    m_loading = loading;
    emit loadingChanged(loading);
}

void HistoryModel::onIndexed(quint64 generation, const QList<qint64> &ids, bool complete)
{
    if (generation != m_generation)
        return;
    // Older attempts go below the rows already shown, which stay where they are.
    if (!ids.isEmpty()) {
        const int first = int(m_ids.size());
        beginInsertRows({}, first, first + int(ids.size()) - 1);
        m_ids.append(ids);
        endInsertRows();
    }
    if (complete)
        setLoading(false);
}

void HistoryModel::onFetched(quint64 generation, qint64 firstId, qint64 lastId,
                             const QList<AttemptRecord> &attempts)
{
    if (generation != m_generation)
        return;
    m_pending.remove(firstId);
    QList<qint64> page;
    page.reserve(attempts.size());
    for (const AttemptRecord &a : attempts) {
        m_cache.insert(a.id, a);
        page.append(a.id);
    }
    m_cachedPages.push_back(page);
    while (m_cache.size() > kCachedRows && m_cachedPages.size() > 1) {
        for (const qint64 id : m_cachedPages.front())
            m_cache.remove(id);
        m_cachedPages.pop_front();
    }
    const int top = rowOfId(lastId);
    const int bottom = rowOfId(firstId);
    if (top < 0 || bottom < 0)
        return;
    emit dataChanged(index(top, 0), index(bottom, ColumnCount - 1));
    emit rowsLoaded(top, bottom);
}

void HistoryModel::onAppended(quint64 generation, const QList<qint64> &ids)
{
    if (generation != m_generation || ids.isEmpty())
        return;
    // Newest first: new attempts go on top.
    QList<qint64> newestFirst(ids.crbegin(), ids.crend());
    beginInsertRows({}, 0, int(ids.size()) - 1);
    m_ids.swap(newestFirst);
    m_ids.append(newestFirst);
    endInsertRows();
}

} // namespace cooldown
