// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryStore.h"

#include <QList>
#include <QObject>
#include <QString>

namespace cooldown {

// Reads the operator audit table for History from a QueryStore of its own, on the thread it
// was moved to (see WorkerThread). Answers carry the generation of their question.
class AuditReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuditReader)

public:
    explicit AuditReader(QString databaseUrl);
    ~AuditReader() override;

public slots:
    // The rows of actions asked for since fromMs (-1: all), newest first, at most limit.
    void read(quint64 generation, qint64 fromMs, int limit);

signals:
    void rowsRead(quint64 generation, const QList<cooldown::AuditRecord> &rows);
    void failed(const QString &message);

private:
    QueryStore m_store;
};

} // namespace cooldown
