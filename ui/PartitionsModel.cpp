// SPDX-License-Identifier: Apache-2.0
#include "ui/PartitionsModel.h"

#include "ui/DriftModel.h"
#include "ui/Format.h"
#include "ui/Palette.h"

#include <QBrush>
#include <QColor>
#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QPair>

#include <algorithm>
#include <climits>
#include <tuple>

namespace cooldown {

namespace {

using Key = QPair<QString, QString>;

// Held first, then waiting for a token, then the rest.
int rank(PartitionsModel::Activity activity)
{
    switch (activity) {
    case PartitionsModel::Activity::Held:
        return 0;
    case PartitionsModel::Activity::WaitingForToken:
        return 1;
    case PartitionsModel::Activity::Sending:
    case PartitionsModel::Activity::NotDue:
    case PartitionsModel::Activity::Idle:
        break;
    }
    return 2;
}

QColor activityColor(PartitionsModel::Activity activity)
{
    switch (activity) {
    case PartitionsModel::Activity::Held:
        return palette::problem();
    case PartitionsModel::Activity::WaitingForToken:
        return QColor(0xb3, 0x6b, 0x00);
    case PartitionsModel::Activity::Sending:
        return QColor(0x1f, 0x5f, 0xbf);
    case PartitionsModel::Activity::NotDue:
    case PartitionsModel::Activity::Idle:
        break;
    }
    return QColor();
}

// "24 per 60 s, burst 4" from the definition the database keeps, or the pace itself
// when the definition says no more.
QString paceText(const PartitionState &p)
{
    const QJsonObject policy = QJsonDocument::fromJson(p.definition.toUtf8()).object();
    if (policy.contains(QLatin1String("limit"))) {
        const QString unit = policy.value(QLatin1String("quota_unit")).toString();
        const qint64 windowMs =
            qint64(policy.value(QLatin1String("window_seconds")).toDouble() * 1000.0);
        const QString quota = DriftModel::quotaText(
            qint64(policy.value(QLatin1String("limit")).toDouble()), windowMs, unit);
        const qint64 burst = qint64(policy.value(QLatin1String("burst")).toDouble());
        return burst > 0 ? PartitionsModel::tr("%1, burst %2").arg(quota).arg(burst) : quota;
    }
    if (p.pace.isUnlimited())
        return PartitionsModel::tr("not paced");
    return PartitionsModel::tr("one every %1, %2 at once")
        .arg(format::duration(p.pace.intervalUs / 1000))
        .arg(p.pace.capacity);
}

// "5 per 10 s" as the server states it, for a learned partition or beside a policy.
QString serverQuotaText(const PartitionState &p)
{
    return DriftModel::quotaText(p.server.quota, p.server.windowMs, QStringLiteral("request"));
}

// "about 6.5 per second", or "about one every 2.5 s", for a pace measured from a
// server's refusals (MeasuredPace).
QString measuredPaceText(qint64 intervalUs)
{
    const double perSecond = 1e6 / double(std::max<qint64>(intervalUs, 1));
    if (perSecond >= 1.0)
        return PartitionsModel::tr("about %1 per second")
            .arg(QLocale().toString(perSecond, 'g', 2));
    return PartitionsModel::tr("about one every %1 s")
        .arg(QLocale().toString(double(intervalUs) / 1e6, 'g', 2));
}

} // namespace

PartitionsModel::PartitionsModel(QObject *parent) : QAbstractTableModel(parent) {}

int PartitionsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PartitionsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

PartitionHold PartitionsModel::holdOf(const Row &row) const
{
    PartitionHold hold;
    hold.policyId = row.policyId;
    hold.partitionKey = row.partitionKey;
    // The later of the two: a hold another worker extended, or one this engine has
    // just placed and the store's row does not show yet.
    const qint64 stored =
        row.stored && row.stored->heldUntilMs > m_nowMs ? row.stored->heldUntilMs : 0;
    const qint64 engine = row.engineHoldUntilMs > m_nowMs ? row.engineHoldUntilMs : 0;
    if (engine > 0 && engine >= stored) {
        hold.untilMs = engine;
        hold.why = row.engineHoldWhy;
    } else if (stored > 0) {
        hold.untilMs = stored;
        hold.why = row.stored->holdReason;
    }
    return hold;
}

qint64 PartitionsModel::tokensOf(const PartitionState &p) const
{
    if (p.availableUnits > 0)
        return p.availableUnits;
    // Read when the bucket was empty: the next token has come since, unless another
    // send took it (which the next read shows).
    return p.nextTokenAtMs <= m_nowMs ? 1 : 0;
}

PartitionsModel::Activity PartitionsModel::activityOf(const Row &row) const
{
    if (holdOf(row).untilMs > 0)
        return Activity::Held;
    if (!row.stored)
        return Activity::Idle;
    const PartitionState &p = *row.stored;
    if (p.due > 0)
        return tokensOf(p) > 0 ? Activity::Sending : Activity::WaitingForToken;
    return p.pending > 0 ? Activity::NotDue : Activity::Idle;
}

PartitionsModel::Activity PartitionsModel::activityAt(int row) const
{
    return activityOf(m_rows.at(row));
}

QString PartitionsModel::tokensText(const PartitionState &p) const
{
    if (p.pace.isUnlimited() && !p.server.isKnown(m_nowMs))
        return tr("not paced");
    const qint64 tokens = tokensOf(p);
    if (tokens > 0)
        return tr("%n available", nullptr, int(std::min<qint64>(tokens, INT_MAX)));
    if (p.nextTokenAtMs - m_nowMs < 60000)
        return tr("next %1").arg(format::countdown(p.nextTokenAtMs, m_nowMs));
    return tr("next at %1").arg(format::localTime(p.nextTokenAtMs, m_nowMs));
}

QString PartitionsModel::stateTip(const Row &row) const
{
    switch (activityOf(row)) {
    case Activity::Held:
        return tr("A server asked to wait until %1: nothing of this partition is sent before "
                  "then, by any worker.")
            .arg(format::localTime(holdOf(row).untilMs, m_nowMs));
    case Activity::WaitingForToken:
        return tr("%n operation(s) due, waiting for the partition's next token. They hold no "
                  "lease and no permit meanwhile.",
                  nullptr, int(row.stored->due));
    case Activity::Sending:
        return tr("Due operations are claimed as tokens and permits allow.");
    case Activity::NotDue:
        return tr("%n operation(s) wait for their own next attempt.", nullptr,
                  int(row.stored->pending));
    case Activity::Idle:
        break;
    }
    return tr("Nothing waits.");
}

QVariant PartitionsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    const PartitionState *stored = row.stored ? &*row.stored : nullptr;
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case PolicyColumn:
            return row.policyId;
        case PartitionKeyColumn:
            return row.partitionKey;
        case StateColumn:
            switch (activityOf(row)) {
            case Activity::Held:
                return tr("held by the server");
            case Activity::WaitingForToken:
                return tr("waiting for a token");
            case Activity::Sending:
                return tr("sending");
            case Activity::NotDue:
                return tr("not due yet");
            case Activity::Idle:
                return tr("idle");
            }
            return {};
        case WaitingColumn:
            if (!stored)
                return QStringLiteral("—");
            if (stored->due > 0)
                return tr("%1 (%2 due)")
                    .arg(QLocale().toString(stored->pending), QLocale().toString(stored->due));
            return QLocale().toString(stored->pending);
        case TokensColumn:
            return stored ? tokensText(*stored) : QStringLiteral("—");
        case HeldColumn: {
            const PartitionHold hold = holdOf(row);
            if (hold.untilMs <= 0)
                return QString();
            const QString until = tr("until %1 (%2)")
                                      .arg(format::localTime(hold.untilMs, m_nowMs),
                                           format::countdown(hold.untilMs, m_nowMs));
            return hold.why.isEmpty() ? until : tr("%1 — %2").arg(until, hold.why);
        }
        case ConfiguredColumn: {
            if (!stored)
                return QString();
            const bool stated = stored->server.isKnown(m_nowMs);
            if (stored->isLearned()) {
                if (stated)
                    return tr("learned from the server: %1").arg(serverQuotaText(*stored));
                if (!stored->pace.isUnlimited())
                    return tr("measured from the server's refusals: %1")
                        .arg(measuredPaceText(stored->pace.intervalUs));
                return tr("no policy; the server has stated no limit");
            }
            QString text = tr("%1 · version %2").arg(paceText(*stored)).arg(stored->policyVersion);
            if (stated)
                text = tr("%1 · the server states %2").arg(text, serverQuotaText(*stored));
            return stored->conflict.isEmpty() ? text : tr("%1 — conflict").arg(text);
        }
        case ColumnCount:
            break;
        }
        return {};
    case Qt::ForegroundRole: {
        QColor color;
        if (index.column() == StateColumn)
            color = activityColor(activityOf(row));
        else if (index.column() == ConfiguredColumn && stored && !stored->conflict.isEmpty())
            color = activityColor(Activity::Held);
        return color.isValid() ? QVariant(QBrush(color)) : QVariant();
    }
    case Qt::ToolTipRole:
        switch (Column(index.column())) {
        case StateColumn:
            return stateTip(row);
        case HeldColumn:
            return data(index, Qt::DisplayRole);
        case TokensColumn:
            if (stored && (!stored->pace.isUnlimited() || stored->server.isKnown(m_nowMs)) &&
                tokensOf(*stored) == 0)
                return tr("The next token at %1")
                    .arg(format::localTime(stored->nextTokenAtMs, m_nowMs));
            return {};
        case PolicyColumn:
        case ConfiguredColumn: {
            if (!stored)
                return {};
            QString tip = stored->isLearned()
                              ? tr("The operations of endpoints without a policy that go to %1, "
                                   "paced by what that server states.")
                                    .arg(stored->policyId.mid(stored->policyId.indexOf(u':') + 1))
                              : tr("The database keeps version %1: %2")
                                    .arg(stored->policyVersion)
                                    .arg(stored->definition);
            if (!stored->conflict.isEmpty())
                tip += QLatin1Char('\n') + tr("Conflict: %1").arg(stored->conflict);
            if (stored->isLearned() && !stored->server.isKnown(m_nowMs) &&
                !stored->pace.isUnlimited())
                tip += QLatin1Char('\n') + tr("Measured %1 from: %2")
                                               .arg(format::localTime(stored->learnedAtMs, m_nowMs),
                                                    stored->learnedFrom);
            if (stored->server.isKnown(m_nowMs))
                tip +=
                    QLatin1Char('\n') +
                    tr("Learned %1 from:\n%2Forgotten at %3 unless the server says it again.")
                        .arg(format::localTime(stored->learnedAtMs, m_nowMs), stored->learnedFrom,
                             format::localTime(stored->server.knownUntilMs, m_nowMs));
            return tip;
        }
        case PartitionKeyColumn:
        case WaitingColumn:
        case ColumnCount:
            break;
        }
        return {};
    case PolicyIdRole:
        return row.policyId;
    case PartitionKeyRole:
        return row.partitionKey;
    case HeldUntilMsRole:
        return holdOf(row).untilMs;
    case ActivityRole:
        return int(activityOf(row));
    case ConflictRole:
        return stored ? stored->conflict : QString();
    case LearnedHostRole:
    case LearnedQuotaRole:
    case LearnedWindowMsRole: {
        const bool adoptable = stored && stored->isLearned() && stored->server.isKnown(m_nowMs);
        if (role == LearnedHostRole)
            return adoptable ? stored->policyId.mid(stored->policyId.indexOf(u':') + 1) : QString();
        if (role == LearnedQuotaRole)
            return adoptable ? stored->server.quota : qint64(0);
        return adoptable ? stored->server.windowMs : qint64(0);
    }
    default:
        return {};
    }
}

QVariant PartitionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case PolicyColumn:
        return tr("Policy");
    case PartitionKeyColumn:
        return tr("Partition key");
    case StateColumn:
        return tr("State");
    case WaitingColumn:
        return tr("Waiting");
    case TokensColumn:
        return tr("Tokens");
    case HeldColumn:
        return tr("Held");
    case ConfiguredColumn:
        return tr("Configured");
    case ColumnCount:
        break;
    }
    return {};
}

void PartitionsModel::setPartitions(QList<PartitionState> partitions, qint64 nowMs)
{
    m_partitions = std::move(partitions);
    m_nowMs = nowMs;
    update();
}

void PartitionsModel::setHolds(QList<PartitionHold> holds, qint64 nowMs)
{
    m_holds = std::move(holds);
    m_nowMs = nowMs;
    update();
}

void PartitionsModel::setNowMs(qint64 nowMs)
{
    m_nowMs = nowMs;
    update();
}

int PartitionsModel::rowOf(const QString &policyId, const QString &partitionKey) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).policyId == policyId && m_rows.at(i).partitionKey == partitionKey)
            return i;
    }
    return -1;
}

QList<PartitionHold> PartitionsModel::activeHolds() const
{
    QList<PartitionHold> holds;
    for (const Row &row : m_rows) {
        PartitionHold hold = holdOf(row);
        if (hold.untilMs > 0)
            holds.append(std::move(hold));
    }
    return holds;
}

bool PartitionsModel::showsBefore(const Row &a, const Row &b) const
{
    const Activity x = activityOf(a);
    const Activity y = activityOf(b);
    if (rank(x) != rank(y))
        return rank(x) < rank(y);
    if (x == Activity::Held && y == Activity::Held) {
        const qint64 ua = holdOf(a).untilMs;
        const qint64 ub = holdOf(b).untilMs;
        if (ua != ub)
            return ua < ub;
    }
    const qint64 pa = a.stored ? a.stored->pending : 0;
    const qint64 pb = b.stored ? b.stored->pending : 0;
    if (pa != pb)
        return pa > pb;
    return std::tie(a.policyId, a.partitionKey) < std::tie(b.policyId, b.partitionKey);
}

void PartitionsModel::update()
{
    // The rows as they should be: the store's, each with this engine's hold if any, and
    // the partitions this engine holds that the store's rows do not show yet.
    QList<Row> wanted;
    QHash<Key, int> wantedAt;
    for (const PartitionState &p : std::as_const(m_partitions)) {
        wantedAt.insert({p.policyId, p.partitionKey}, int(wanted.size()));
        wanted.append({p.policyId, p.partitionKey, p, 0, QString()});
    }
    for (const PartitionHold &h : std::as_const(m_holds)) {
        if (!h.isActive(m_nowMs))
            continue;
        const Key key{h.policyId, h.partitionKey};
        int at = wantedAt.value(key, -1);
        if (at < 0) {
            at = int(wanted.size());
            wantedAt.insert(key, at);
            wanted.append({h.policyId, h.partitionKey, std::nullopt, 0, QString()});
        }
        Row &row = wanted[at];
        if (h.untilMs > row.engineHoldUntilMs) {
            row.engineHoldUntilMs = h.untilMs;
            row.engineHoldWhy = h.why;
        }
    }
    std::stable_sort(wanted.begin(), wanted.end(),
                     [this](const Row &a, const Row &b) { return showsBefore(a, b); });

    // Rows that went away are removed, new ones added at the end; then all are moved to
    // their places as a layout change, which keeps selections on their partitions.
    for (int i = int(m_rows.size()) - 1; i >= 0; --i) {
        if (!wantedAt.contains({m_rows.at(i).policyId, m_rows.at(i).partitionKey})) {
            beginRemoveRows({}, i, i);
            m_rows.removeAt(i);
            endRemoveRows();
        }
    }
    QHash<Key, int> shownAt;
    for (int i = 0; i < m_rows.size(); ++i)
        shownAt.insert({m_rows.at(i).policyId, m_rows.at(i).partitionKey}, i);
    QList<Row> added;
    for (const Row &row : std::as_const(wanted)) {
        if (!shownAt.contains({row.policyId, row.partitionKey}))
            added.append(row);
    }
    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        m_rows.append(added);
        endInsertRows();
    }

    bool inPlace = true;
    for (int i = 0; i < m_rows.size() && inPlace; ++i)
        inPlace = m_rows.at(i).policyId == wanted.at(i).policyId &&
                  m_rows.at(i).partitionKey == wanted.at(i).partitionKey;
    if (inPlace) {
        m_rows = std::move(wanted);
    } else {
        emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
        QHash<Key, int> sortedAt;
        for (int i = 0; i < wanted.size(); ++i)
            sortedAt.insert({wanted.at(i).policyId, wanted.at(i).partitionKey}, i);
        QList<int> newRow(m_rows.size());
        for (int i = 0; i < m_rows.size(); ++i)
            newRow[i] = sortedAt.value({m_rows.at(i).policyId, m_rows.at(i).partitionKey});
        const QModelIndexList from = persistentIndexList();
        QModelIndexList to;
        to.reserve(from.size());
        for (const QModelIndex &index : from)
            to.append(createIndex(newRow.at(index.row()), index.column()));
        m_rows = std::move(wanted);
        changePersistentIndexList(from, to);
        emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    }
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1));
}

} // namespace cooldown
