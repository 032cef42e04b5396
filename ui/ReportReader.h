// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/SlaReport.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace cooldown {

class QueryStore;

// Reads SLA reports on the thread it lives on (WorkerThread), through a QueryStore of
// its own opened there on first use: the window runs no SQL on its own thread.
class ReportReader final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReportReader)

public:
    explicit ReportReader(QString databaseUrl, QObject *parent = nullptr);
    ~ReportReader() override;

    // The report, or empty with *error. Call on the reader's thread.
    std::optional<SlaReport> read(const SlaRequest &request, QString *error);

private:
    QString m_databaseUrl;
    std::unique_ptr<QueryStore> m_store;
};

} // namespace cooldown
