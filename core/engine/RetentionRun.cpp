// SPDX-License-Identifier: Apache-2.0
#include "core/engine/RetentionRun.h"

#include "core/store/RetentionPruner.h"

#include <QTimer>

namespace cooldown {

namespace {

RetentionPeriods periodsOf(const RetentionConfig &retention)
{
    return RetentionPeriods::fromDays(retention.rawDays, retention.rollupDays);
}

} // namespace

RetentionRun::RetentionRun(const QString &databaseUrl, const Clock &clock,
                           const RetentionConfig &retention, int startDelayMs, int intervalMs)
    : m_pruner(new RetentionPruner(databaseUrl, clock, periodsOf(retention)))
{
    m_thread.setObjectName(QStringLiteral("retention"));
    m_pruner->moveToThread(&m_thread);
    QObject::connect(&m_thread, &QThread::finished, m_pruner, &QObject::deleteLater);
    m_thread.start();
    RetentionPruner *pruner = m_pruner;
    QTimer::singleShot(startDelayMs, pruner, [pruner, intervalMs] { pruner->start(intervalMs); });
}

RetentionRun::~RetentionRun()
{
    m_thread.quit();
    m_thread.wait();
}

void RetentionRun::follow(const RetentionConfig &retention)
{
    RetentionPruner *pruner = m_pruner;
    const RetentionPeriods periods = periodsOf(retention);
    QMetaObject::invokeMethod(
        pruner, [pruner, periods] { pruner->setPeriods(periods); }, Qt::QueuedConnection);
}

} // namespace cooldown
