// SPDX-License-Identifier: Apache-2.0
#include "core/store/RetentionPruner.h"

#include "core/Logging.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>

namespace cooldown {

RetentionPruner::RetentionPruner(QString databaseUrl, const Clock &clock, RetentionPeriods periods,
                                 QObject *parent)
    : QObject(parent), m_databaseUrl(std::move(databaseUrl)), m_clock(clock), m_periods(periods)
{}

RetentionPruner::~RetentionPruner() = default;

bool RetentionPruner::ensureOpen()
{
    if (m_store)
        return true;
    QString error;
    StoreOptions options;
    options.createIfMissing = false;
    m_store = Store::open(m_databaseUrl, &error, options);
    if (!m_store)
        m_summary.error = error;
    return m_store != nullptr;
}

void RetentionPruner::adapt(qint64 lockedUs, qint64 rows, int limit)
{
    // Aim at a quarter of the budget: the cost of a batch varies with what its rows touch
    // and with what else the machine does.
    const qint64 target = kMaxLockMs * 1000 / 4;
    if (lockedUs > target)
        m_batchRows =
            std::max(10, int(qint64(m_batchRows) * target / std::max<qint64>(1, lockedUs)));
    else if (rows >= limit && lockedUs < target / 2)
        m_batchRows = std::min(kMaxBatchRows, m_batchRows * 3 / 2);
}

bool RetentionPruner::runBatch()
{
    if (!ensureOpen())
        return false;
    const qint64 now = m_clock.nowMs();
    if (!m_attemptsDone) {
        const qint64 rawCutoff = m_periods.rawCutoffMs(now);
        if (rawCutoff < 0) {
            m_attemptsDone = true;
        } else {
            const int limit = m_batchRows;
            const PruneBatch batch = m_store->pruneAttempts(rawCutoff, limit);
            if (batch.rows < 0) {
                m_summary.error = m_store->lastError();
                return false;
            }
            ++m_summary.batches;
            qCDebug(lcStore) << "retention: attempts batch of" << limit << "deleted" << batch.rows
                             << "holding the lock" << batch.lockedUs << "us";
            m_summary.attempts += batch.rows;
            m_summary.longestLockUs = std::max(m_summary.longestLockUs, batch.lockedUs);
            adapt(batch.lockedUs, batch.rows, limit);
            m_attemptsDone = batch.rows < limit;
            return true;
        }
    }
    if (!m_rollupsDone) {
        const qint64 rollupCutoff = m_periods.rollupCutoffMs(now);
        if (rollupCutoff < 0) {
            m_rollupsDone = true;
        } else {
            const PruneBatch batch = m_store->pruneRollups(rollupCutoff, m_rollupSpanMs);
            if (batch.rows < 0) {
                m_summary.error = m_store->lastError();
                return false;
            }
            ++m_summary.batches;
            m_summary.rollups += batch.rows;
            m_summary.longestLockUs = std::max(m_summary.longestLockUs, batch.lockedUs);
            // A span of minutes holds rows in proportion to how busy they were.
            const qint64 target = kMaxLockMs * 1000 / 4;
            if (batch.lockedUs > target)
                m_rollupSpanMs = std::max<qint64>(60000, m_rollupSpanMs / 4);
            else if (batch.lockedUs < target / 4)
                m_rollupSpanMs = std::min<qint64>(30LL * 24 * 3600 * 1000, m_rollupSpanMs * 2);
            m_rollupsDone = batch.rows == 0;
            return true;
        }
    }
    // The pages freed go back to the file system, a few at a time: each step is a
    // write transaction of its own.
    const qint64 before = m_summary.freePagesLeft;
    QElapsedTimer held;
    held.start();
    const int pages = m_vacuumPages;
    const qint64 left = m_store->incrementalVacuum(pages);
    if (left < 0) {
        m_summary.error = m_store->lastError();
        return false;
    }
    const qint64 lockedUs = held.nsecsElapsed() / 1000;
    qCDebug(lcStore) << "retention: vacuum step of" << pages << "pages, holding the lock"
                     << lockedUs << "us," << left << "free pages left";
    const bool first = !m_vacuuming;
    m_vacuuming = true;
    m_summary.freePagesLeft = left;
    const qint64 target = kMaxLockMs * 1000 / 4;
    if (lockedUs > target)
        m_vacuumPages = std::max(8, int(qint64(pages) * target / std::max<qint64>(1, lockedUs)));
    else if (lockedUs < target / 2)
        m_vacuumPages = std::min(kMaxVacuumPages, pages * 3 / 2);
    if (left == 0 || (!first && left >= before))
        return false;
    ++m_summary.batches;
    m_summary.longestLockUs = std::max(m_summary.longestLockUs, lockedUs);
    return true;
}

PruneSummary RetentionPruner::pruneNow()
{
    m_summary = PruneSummary();
    m_attemptsDone = false;
    m_rollupsDone = false;
    m_vacuuming = false;
    while (runBatch()) {
    }
    if (m_summary.error.isEmpty())
        m_summary.complete = true;
    return m_summary;
}

void RetentionPruner::start(int intervalMs, int pauseMs)
{
    if (!m_interval) {
        m_interval = new QTimer(this);
        m_pause = new QTimer(this);
        m_pause->setSingleShot(true);
        connect(m_pause, &QTimer::timeout, this, &RetentionPruner::step);
        connect(m_interval, &QTimer::timeout, this, [this] {
            if (m_pause->isActive())
                return; // a pass is still going
            m_summary = PruneSummary();
            m_attemptsDone = false;
            m_rollupsDone = false;
            m_vacuuming = false;
            step();
        });
    }
    m_pause->setInterval(std::max(0, pauseMs));
    m_interval->start(intervalMs);
    m_summary = PruneSummary();
    m_attemptsDone = false;
    m_rollupsDone = false;
    m_vacuuming = false;
    m_pause->start();
}

void RetentionPruner::stop()
{
    if (m_interval)
        m_interval->stop();
    if (m_pause)
        m_pause->stop();
}

void RetentionPruner::step()
{
    if (runBatch()) {
        m_pause->start();
        return;
    }
    if (m_summary.error.isEmpty())
        m_summary.complete = true;
    else
        qCWarning(lcStore).noquote() << "retention:" << m_summary.error;
    if (m_summary.attempts > 0 || m_summary.rollups > 0)
        qCInfo(lcStore) << "retention pruned" << m_summary.attempts << "attempts and"
                        << m_summary.rollups << "rollup rows in" << m_summary.batches
                        << "batches; longest lock" << m_summary.longestLockUs / 1000 << "ms";
    emit passFinished(m_summary);
}

} // namespace cooldown
