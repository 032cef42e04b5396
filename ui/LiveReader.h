#pragma once

#include "core/engine/Metrics.h"
#include "core/store/Records.h"

#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QTimer;

namespace cooldown {

class Clock;
class Store;

// Which operations the Jobs view lists.
enum class JobsScope
{
    Active, // scheduled, running, waiting, parked
    Failed,
    Recent, // the latest operations, whatever their state
};

// What the Overview and Jobs views show, read in one go. A plain value, handed from
// the reader's thread to the window by a queued signal.
struct LiveSnapshot
{
    MetricsSnapshot metrics;
    QMap<OperationState, qint64> counts;
    qint64 failedToday = 0;
    QSet<QString> pausedEndpoints;
    JobsScope jobsScope = JobsScope::Active;
    QList<OperationRecord> operations;
    // Every partition's bucket, hold and queue as the store has them, for the fleet.
    QList<PartitionState> partitions;
    bool loadingHistory = false; // the range is still being read back from the store
    bool fixedWindow = false;    // the figures of a fixed window, not of the last so much
};

// Reads the store for the live views, from a Store of its own on the thread it was
// moved to: it follows new attempts by key (afterId) into a Metrics, and once a second
// sends a LiveSnapshot with the figures of the chosen range, the operation counts, the
// operations of the chosen Jobs scope and every partition's bucket, hold and queue.
// Attempts other workers record in the same database show up too. A fixed window
// (setWindow) is read once, by key, into figures of its own, however old it is; it does
// not follow the clock.
class LiveReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LiveReader)

public:
    // partitionOf: the partition label each endpoint's throttles are counted under.
    LiveReader(QString databaseUrl, const Clock &clock, QHash<QString, QString> partitionOf,
               QStringList endpointIds);
    ~LiveReader() override;

    static constexpr int kRecentOperations = 300;
    static constexpr int kPageRows = 5000;

public slots:
    // Starts polling every intervalMs (the first poll runs at once).
    void start(int intervalMs);
    // The Overview's range: the last rangeMs, in buckets of bucketMs.
    void setRange(qint64 rangeMs, qint64 bucketMs);
    // The Overview's range: [fromMs, toMs) in buckets of bucketMs, read afresh and
    // then kept as it is. setRange() goes back to following the clock.
    void setWindow(qint64 fromMs, qint64 toMs, qint64 bucketMs);
    void setJobsScope(cooldown::JobsScope scope);
    void noteInFlight(int inFlight, int maxInFlight);
    // Reads now instead of at the next tick.
    void poll();

signals:
    void snapshotReady(const cooldown::LiveSnapshot &snapshot);
    void failed(const QString &message);

private:
    bool ensureOpen();
    bool readNewAttempts(int maxPages);
    bool readWindow(int maxPages);
    MetricsSnapshot windowSnapshot();
    QList<OperationRecord> readOperations();
    qint64 localMidnightMs() const;

    QString m_databaseUrl;
    const Clock &m_clock;
    QHash<QString, QString> m_partitionOf;
    QStringList m_endpointIds;
    std::unique_ptr<Store> m_store;
    Metrics m_metrics;
    QTimer *m_timer = nullptr;
    bool m_openFailed = false;
    qint64 m_rangeMs = 15 * 60000;
    qint64 m_bucketMs = 60000;
    qint64 m_loadedFromMs = -1; // the metrics hold every attempt since then
    qint64 m_lastAttemptId = 0;
    bool m_catchingUp = false;
    JobsScope m_scope = JobsScope::Active;

    std::unique_ptr<Metrics> m_window; // the fixed window's figures, or null
    qint64 m_windowFromMs = -1;        // read from here (aligned to a bucket) ...
    qint64 m_windowToMs = -1;          // ... to here
    qint64 m_windowLastId = 0;
    bool m_windowComplete = false;
    std::optional<MetricsSnapshot> m_windowFigures; // once complete, they no longer change
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::JobsScope)
Q_DECLARE_METATYPE(cooldown::LiveSnapshot)
