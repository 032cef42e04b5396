// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/engine/DrainEstimate.h"
#include "core/query/QueryStore.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace cooldown {

// What a bulk action would do, read before it is applied: the count, what the action
// can change of it and how long that takes to go out (docs/bulk-actions.md).
struct BulkPreview
{
    qint64 matched = 0;    // operations the selection matches, in any state
    qint64 actionable = 0; // of which the action would change
    // Of the matched, parked because their idempotency key expired (retries only):
    // they are sent with a key the server may have forgotten.
    qint64 keyExpired = 0;
    QStringList endpoints; // of the operations the action would change
    DrainEstimate estimate;
};

// Answers the bulk-action dialog's questions from a QueryStore of its own, on the thread it
// was moved to (see WorkerThread), with the same store calls and estimate as
// `cooldown retry|cancel --filter --dry-run`. Every answer carries the generation of
// the question, so that the dialog can drop answers to a filter it has left behind.
class BulkEstimateReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BulkEstimateReader)

public:
    explicit BulkEstimateReader(QString databaseUrl);
    ~BulkEstimateReader() override;

    // Call through QMetaObject::invokeMethod: it reads the database.
    void estimate(quint64 generation, const cooldown::OperationSelection &selection,
                  cooldown::OperatorAction action, qint64 nowMs, int maxInFlight);

signals:
    void estimated(quint64 generation, const cooldown::BulkPreview &preview);
    void failed(quint64 generation, const QString &message);

private:
    bool ensureOpen(quint64 generation);

    QueryStore m_store;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::BulkPreview)
