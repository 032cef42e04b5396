// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/PartitionSnooze.h"

#include "core/Logging.h"
#include "core/retry/ServerWait.h"

#include <algorithm>

namespace cooldown {

PartitionSnooze::PartitionSnooze(QObject *parent) : QObject(parent) {}

QString PartitionSnooze::keyOf(const QString &policyId, const QString &partitionKey)
{
    // A separator that cannot appear in a config string keeps pairs apart.
    return policyId + QChar(0) + partitionKey;
}

bool PartitionSnooze::hold(const QString &policyId, const QString &partitionKey, qint64 untilMs,
                           const QString &why, qint64 nowMs)
{
    if (untilMs <= nowMs)
        return false;
    const QString key = keyOf(policyId, partitionKey);
    auto it = m_holds.find(key);
    if (it != m_holds.end() && it->isActive(nowMs) && it->untilMs >= untilMs)
        return false;
    SnoozeHold hold{policyId, partitionKey, nowMs, untilMs, why};
    if (it != m_holds.end() && it->isActive(nowMs))
        hold.sinceMs = it->sinceMs;
    m_holds.insert(key, hold);
    qCInfo(lcRateLimit).noquote() << "partition" << policyId << partitionKey << "held for"
                                  << (untilMs - nowMs) << "ms:" << why;
    emit held(hold);
    return true;
}

bool PartitionSnooze::holdForResponse(const QString &policyId, const QString &partitionKey,
                                      int status, const ServerWait &wait, qint64 nowMs)
{
    if ((status != 429 && status != 503) || !wait.hasWait())
        return false;
    const QString why = QStringLiteral("%1, %2 %3 s")
                            .arg(status)
                            .arg(QLatin1String(textOf(wait.source)))
                            .arg(double(wait.waitMs) / 1000.0);
    return hold(policyId, partitionKey, nowMs + wait.waitMs, why, nowMs);
}

bool PartitionSnooze::lift(const QString &policyId, const QString &partitionKey)
{
    const auto it = m_holds.find(keyOf(policyId, partitionKey));
    if (it == m_holds.end())
        return false;
    const SnoozeHold hold = *it;
    m_holds.erase(it);
    qCInfo(lcRateLimit).noquote() << "partition" << policyId << partitionKey
                                  << "hold lifted by the operator";
    emit lifted(hold);
    return true;
}

std::optional<SnoozeHold> PartitionSnooze::activeHold(const QString &policyId,
                                                      const QString &partitionKey,
                                                      qint64 nowMs) const
{
    const auto it = m_holds.constFind(keyOf(policyId, partitionKey));
    if (it == m_holds.constEnd() || !it->isActive(nowMs))
        return std::nullopt;
    return *it;
}

qint64 PartitionSnooze::heldUntilMs(const QString &policyId, const QString &partitionKey,
                                    qint64 nowMs) const
{
    const auto hold = activeHold(policyId, partitionKey, nowMs);
    return hold ? hold->untilMs : nowMs;
}

QList<SnoozeHold> PartitionSnooze::activeHolds(qint64 nowMs) const
{
    QList<SnoozeHold> holds;
    for (const SnoozeHold &hold : m_holds) {
        if (hold.isActive(nowMs))
            holds.append(hold);
    }
    std::sort(holds.begin(), holds.end(), [](const SnoozeHold &a, const SnoozeHold &b) {
        return a.untilMs != b.untilMs
                   ? a.untilMs < b.untilMs
                   : keyOf(a.policyId, a.partitionKey) < keyOf(b.policyId, b.partitionKey);
    });
    return holds;
}

void PartitionSnooze::expire(qint64 nowMs)
{
    QList<SnoozeHold> ended;
    for (auto it = m_holds.begin(); it != m_holds.end();) {
        if (!it->isActive(nowMs)) {
            ended.append(*it);
            it = m_holds.erase(it);
        } else {
            ++it;
        }
    }
    std::sort(ended.begin(), ended.end(),
              [](const SnoozeHold &a, const SnoozeHold &b) { return a.untilMs < b.untilMs; });
    for (const SnoozeHold &hold : std::as_const(ended))
        emit expired(hold);
}

} // namespace cooldown
