// SPDX-License-Identifier: Apache-2.0
#include "ui/DriftModel.h"

#include "ui/Format.h"
#include "ui/Palette.h"

#include <QColor>
#include <QLocale>

#include <algorithm>

namespace cooldown {

namespace {

QString seconds(double value)
{
    return QLocale().toString(value, 'g', QLocale::FloatingPointShortest);
}

} // namespace

DriftModel::DriftModel(QObject *parent) : QAbstractTableModel(parent) {}

QString DriftModel::quotaText(qint64 quota, qint64 windowMs, const QString &unit)
{
    const bool concurrent =
        unit == QLatin1String("concurrency") || unit == QLatin1String("concurrent-requests");
    const QString amount = unit.isEmpty() || unit == QLatin1String("request") || concurrent
                               ? QLocale().toString(quota)
                               : tr("%1 %2").arg(QLocale().toString(quota), unit);
    if (windowMs <= 0 || concurrent)
        return tr("%1 at once").arg(amount);
    return tr("%1 per %2 s").arg(amount, seconds(double(windowMs) / 1000.0));
}

int DriftModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_drifts.size());
}

int DriftModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DriftModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const PolicyDrift &d = m_drifts.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case PolicyColumn:
            return d.policyId;
        case PartitionKeyColumn:
            return d.partitionKey;
        case ConfiguredColumn:
            return quotaText(d.configuredLimit, d.configuredWindowMs,
                             QLatin1String(textOf(d.configuredUnit)));
        case AdvertisedColumn:
            return quotaText(d.advertised.quota,
                             d.advertised.windowSeconds ? *d.advertised.windowSeconds * 1000 : 0,
                             d.advertised.quotaUnit);
        case DifferencesColumn:
            return d.differences.join(QStringLiteral("; "));
        case SeenColumn:
            return format::localTime(d.observedAtMs, m_nowMs);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == AdvertisedColumn && d.serverIsStricter())
            return tr("The server allows less than the configuration assumes: expect 429s");
        return d.differences.join(QLatin1Char('\n'));
    case Qt::ForegroundRole:
        if (index.column() == AdvertisedColumn && d.serverIsStricter())
            return palette::problem();
        return {};
    case PolicyIdRole:
        return d.policyId;
    case PartitionKeyRole:
        return d.partitionKey;
    case ServerIsStricterRole:
        return d.serverIsStricter();
    default:
        return {};
    }
}

QVariant DriftModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case PolicyColumn:
        return tr("Policy");
    case PartitionKeyColumn:
        return tr("Partition key");
    case ConfiguredColumn:
        return tr("Configured");
    case AdvertisedColumn:
        return tr("Server advertises");
    case DifferencesColumn:
        return tr("Differences");
    case SeenColumn:
        return tr("Seen");
    case ColumnCount:
        break;
    }
    return {};
}

void DriftModel::setDrifts(QList<PolicyDrift> drifts, qint64 nowMs)
{
    drifts.erase(std::remove_if(drifts.begin(), drifts.end(),
                                [](const PolicyDrift &d) { return !d.isDrift(); }),
                 drifts.end());
    std::sort(drifts.begin(), drifts.end(), [](const PolicyDrift &a, const PolicyDrift &b) {
        return a.policyId != b.policyId ? a.policyId < b.policyId : a.partitionKey < b.partitionKey;
    });
    // A handful of rows that change rarely: a reset is simple and correct.
    beginResetModel();
    m_drifts = std::move(drifts);
    m_nowMs = nowMs;
    endResetModel();
}

} // namespace cooldown
