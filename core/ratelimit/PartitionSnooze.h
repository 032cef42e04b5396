// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <optional>

namespace cooldown {

struct ServerWait;

// A hold on one policy partition: nothing of it is sent before untilMs.
struct SnoozeHold
{
    QString policyId;
    QString partitionKey;
    qint64 sinceMs = 0;
    qint64 untilMs = 0;
    QString why; // e.g. "429 retry-after 30 s"

    bool isActive(qint64 nowMs) const { return nowMs < untilMs; }
    friend bool operator==(const SnoozeHold &a, const SnoozeHold &b)
    {
        return a.policyId == b.policyId && a.partitionKey == b.partitionKey &&
               a.sinceMs == b.sinceMs && a.untilMs == b.untilMs && a.why == b.why;
    }
};

// Partition snooze: a 429 or 503 with a server wait holds every waiting and scheduled
// operation of the same (policy, partition key) until the server's time. A hold is
// only ever extended by the server, never shortened; an operator can lift it.
// Times are whatever clock the caller passes (the scheduler's wall-clock ms).
class PartitionSnooze final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PartitionSnooze)

public:
    explicit PartitionSnooze(QObject *parent = nullptr);

    // Holds the partition until untilMs, or keeps a later existing hold. Returns true
    // when the hold was placed or extended.
    bool hold(const QString &policyId, const QString &partitionKey, qint64 untilMs,
              const QString &why, qint64 nowMs);
    // Holds it for a response as the retry contract says: status 429 or 503 and a server
    // wait. Returns true when a hold was placed or extended.
    bool holdForResponse(const QString &policyId, const QString &partitionKey, int status,
                         const ServerWait &wait, qint64 nowMs);
    // The operator's "resume now". False when there was no hold.
    bool lift(const QString &policyId, const QString &partitionKey);

    // The hold in force at nowMs, if any.
    std::optional<SnoozeHold> activeHold(const QString &policyId, const QString &partitionKey,
                                         qint64 nowMs) const;
    // When the partition may send again: nowMs when it is not held.
    qint64 heldUntilMs(const QString &policyId, const QString &partitionKey, qint64 nowMs) const;
    // Every hold in force at nowMs, earliest end first.
    QList<SnoozeHold> activeHolds(qint64 nowMs) const;
    // Forgets holds that ended by nowMs and signals each; the scheduler calls it when
    // its timer fires, so the list shown to the operator stays current.
    void expire(qint64 nowMs);

signals:
    void held(const cooldown::SnoozeHold &hold);   // placed or extended
    void lifted(const cooldown::SnoozeHold &hold); // by an operator
    void expired(const cooldown::SnoozeHold &hold);

private:
    static QString keyOf(const QString &policyId, const QString &partitionKey);

    QHash<QString, SnoozeHold> m_holds;
};

} // namespace cooldown
