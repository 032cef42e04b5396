// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QString>

#include <memory>

class QTimer;

namespace cooldown {

class Clock;
class Store;

// How long history is kept, in milliseconds; 0 keeps it for ever.
struct RetentionPeriods
{
    qint64 rawMs = 30LL * 24 * 3600 * 1000;
    qint64 rollupsMs = 400LL * 24 * 3600 * 1000;

    // The periods of a workspace's retention (raw_days, rollup_days).
    static RetentionPeriods fromDays(int rawDays, int rollupDays)
    {
        constexpr qint64 day = 24LL * 3600 * 1000;
        return RetentionPeriods{rawDays * day, rollupDays * day};
    }
    // Where a pass at nowMs cuts: it deletes the attempts that started before
    // rawCutoffMs (of operations that have ended) and the rollups of the minutes before
    // rollupCutoffMs. -1: nothing goes, the period keeps for ever. `cooldown export
    // --prunable` writes what lies before the same cuts.
    qint64 rawCutoffMs(qint64 nowMs) const { return rawMs > 0 ? nowMs - rawMs : -1; }
    qint64 rollupCutoffMs(qint64 nowMs) const { return rollupsMs > 0 ? nowMs - rollupsMs : -1; }
};

// What one pass of pruning did.
struct PruneSummary
{
    qint64 attempts = 0;      // attempts deleted
    qint64 rollups = 0;       // rollup rows deleted
    int batches = 0;          // write transactions, vacuum steps included
    qint64 longestLockUs = 0; // the longest of them, from BEGIN to COMMIT
    qint64 freePagesLeft = 0; // SQLite: pages still free in the file afterwards
    bool complete = false;    // nothing older than the periods is left to prune
    QString error;
};

// Deletes history older than the retention periods, in small batches, each its own
// write transaction: the batch size adapts so that no batch holds the database's
// write lock longer than kMaxLockMs, and writers waiting for it get it between batches.
// Raw attempts go only when their operation has ended. On SQLite the pages freed go
// back to the file system (incremental vacuum) so the file shrinks.
//
// A pruner opens a Store of its own on the thread it lives on; give it a thread of its
// own (it never runs on the GUI thread). Time comes from the injected clock.
class RetentionPruner final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RetentionPruner)

public:
    static constexpr qint64 kMaxLockMs = 50;
    static constexpr int kFirstBatchRows = 100;
    static constexpr int kMaxBatchRows = 20000;
    static constexpr int kFirstVacuumPages = 64;
    static constexpr int kMaxVacuumPages = 512;

    RetentionPruner(QString databaseUrl, const Clock &clock, RetentionPeriods periods,
                    QObject *parent = nullptr);
    ~RetentionPruner() override;

    void setPeriods(RetentionPeriods periods) { m_periods = periods; }
    // One batch (attempts, then rollups, then a vacuum step); false when there was
    // nothing left to do or it failed (see summary().error).
    bool runBatch();
    // Batches until nothing older is left. For tests and the command line: in the
    // dashboard, start() spreads the batches over turns of the event loop.
    PruneSummary pruneNow();
    // What the current or last pass did.
    const PruneSummary &summary() const { return m_summary; }
    int batchRows() const { return m_batchRows; }

public slots:
    // A pass now and then every intervalMs; between batches the pruner yields for
    // pauseMs so that other writers take the lock.
    void start(int intervalMs, int pauseMs = 20);
    void stop();

signals:
    // A pass ended (complete, or stopped on an error).
    void passFinished(const cooldown::PruneSummary &summary);

private:
    bool ensureOpen();
    void step();
    void adapt(qint64 lockedUs, qint64 rows, int limit);

    QString m_databaseUrl;
    const Clock &m_clock;
    RetentionPeriods m_periods;
    std::unique_ptr<Store> m_store;
    QTimer *m_interval = nullptr;
    QTimer *m_pause = nullptr;
    int m_batchRows = kFirstBatchRows;
    qint64 m_rollupSpanMs = 24LL * 3600 * 1000;
    bool m_attemptsDone = false;
    bool m_rollupsDone = false;
    bool m_vacuuming = false;
    int m_vacuumPages = kFirstVacuumPages;
    PruneSummary m_summary;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::PruneSummary)
