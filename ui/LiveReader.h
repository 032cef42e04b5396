// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/Metrics.h"
#include "core/query/ChangePoller.h"
#include "core/query/QueryStore.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>

namespace cooldown {

class Clock;

// What the Overview and Jobs views show, read in one go. A plain value, handed from
// the reader's thread to the window by a queued signal.
struct LiveSnapshot
{
    MetricsSnapshot metrics;
    QMap<OperationState, qint64> counts;
    qint64 failedToday = 0;
    QSet<QString> pausedEndpoints;
    // How many changes of the store the reader has seen: when it grows, the Jobs view
    // reads its rows again (it pages them from the store itself, see JobsModel).
    quint64 storeChanges = 0;
    // Every partition's bucket, hold and queue as the store has them, for the fleet.
    QList<PartitionState> partitions;
    // When the oldest raw attempt kept started (retention prunes older ones); -1: none.
    qint64 rawHistoryFromMs = -1;
    bool fixedWindow = false; // the figures of a fixed window, not of the last so much
};

// Reads the store for the live views, from a QueryStore of its own on the thread it was
// moved to, and sends a LiveSnapshot with the figures of the chosen range, the open
// operation counts and every partition's bucket, hold and queue. The figures come from the store's
// per-minute rollups, summed per bucket by the database: one indexed query for a range of any
// length, and then, as time goes on, only the buckets that can still change. Buckets shorter than a
// minute (15 s at the short range) are counted from the raw attempts of the range
// instead (Store::forEachAttemptSum), the same way. Attempts other workers
// record in the same database show up too. A fixed window (setWindow) is read once; it
// does not follow the clock.
//
// Idle means idle: each tick brings the store's change token, read once for every
// reader by the window's ChangePoller, and the reader reads nothing else while it stays
// the same, except the partitions now and then (their buckets refill with time) and the
// figures when a new minute starts. The reader runs no timer of its own.
class LiveReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LiveReader)

public:
    // partitionOf: the partition label each endpoint's throttles are counted under.
    LiveReader(QString databaseUrl, const Clock &clock, QHash<QString, QString> partitionOf,
               QStringList endpointIds);
    ~LiveReader() override;

    // Partitions are read again this often when nothing changed.
    static constexpr qint64 kPartitionsIntervalMs = 10000;
    // In-flight samples are kept per second this long, for buckets shorter than a minute.
    static constexpr qint64 kFinePeaksKeptMs = 20 * 60000;
    // Rollups of minutes this far back may still grow: other workers' attempts commit
    // a little after they end.
    static constexpr qint64 kSettleMs = 2 * 60000;

public slots:
    // The Overview's range: the last rangeMs, in buckets of bucketMs.
    void setRange(qint64 rangeMs, qint64 bucketMs);
    // The Overview's range: [fromMs, toMs) in buckets of bucketMs, read afresh and
    // then kept as it is. setRange() goes back to following the clock.
    void setWindow(qint64 fromMs, qint64 toMs, qint64 bucketMs);
    // The workspace's endpoints, when the engine runs another workspace.
    void setEndpoints(const QHash<QString, QString> &partitionOf, const QStringList &endpointIds);
    void noteInFlight(int inFlight, int maxInFlight);
    // What each poll of the ChangePoller runs (ChangePoller::polled): reads only what
    // changed since the last tick, and sends a snapshot only when something did (or a
    // new minute moved the range).
    void tick(const cooldown::ChangeToken &token);
    // Reads everything now instead of at the next tick, changed or not.
    void poll();

signals:
    void snapshotReady(const cooldown::LiveSnapshot &snapshot);
    void failed(const QString &message);

private:
    bool ensureOpen();
    // One tick; force reads and sends everything whether or not the store changed.
    void refresh(bool force, bool changed);
    // The figures of the range afresh, or (fromMs >= 0) the buckets from there on.
    bool readFigures(qint64 fromMs);
    qint64 alignedBucketMs() const;
    // Buckets shorter than a minute, read from the raw attempts. m_figures counts whole
    // minutes: it then holds one bucket in each of its "minutes", at slotOf(its start).
    bool fineBuckets() const;
    qint64 slotOf(qint64 ms) const;
    MetricsSnapshot fineSnapshot(qint64 fromMs, qint64 toMs) const;
    qint64 rangeFromMs(qint64 nowMs) const;
    qint64 localMidnightMs() const;

    QueryStore m_store;
    const Clock &m_clock;
    QHash<QString, QString> m_partitionOf;
    QStringList m_endpointIds;
    Metrics m_figures;                     // the range's rollups, one entry per bucket
    Metrics m_inFlight;                    // exchanges in flight, sampled live
    std::map<qint64, int> m_peakPerSecond; // the same per second, for the fine buckets
    int m_maxInFlight = 0;
    qint64 m_rangeMs = 15 * 60000;
    qint64 m_bucketMs = 60000;
    bool m_fixed = false; // a fixed window rather than the last so much
    qint64 m_windowFromMs = -1;
    qint64 m_windowToMs = -1;
    bool m_figuresStale = true;        // the range changed: read it whole
    qint64 m_settledBeforeMs = -1;     // buckets before this one no longer change
    qint64 m_lastStep = -1;            // the minute, or the fine bucket, of the last tick
    std::optional<QByteArray> m_token; // the poller's, as last heard
    qint64 m_partitionsReadAtMs = -1;
    LiveSnapshot m_last; // what was sent last, parts of it kept while nothing changes
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::LiveSnapshot)
