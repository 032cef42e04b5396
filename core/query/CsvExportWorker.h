// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryRecords.h"
// The codes finished() carries are CsvExporter::Error's.
#include "core/store/CsvExporter.h"

#include <QObject>
#include <QString>

#include <memory>

namespace cooldown {

class QueryStore;

// Runs one CsvExporter of the attempt history, with a QueryStore of its own, on the
// thread it was moved to (see WorkerThread). finished() comes once per run(), with a
// CsvExporter::Error (NoError, Cancelled, ...).
class CsvExportWorker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CsvExportWorker)

public:
    CsvExportWorker();
    ~CsvExportWorker() override;

public slots:
    void run(const QString &databaseUrl, const cooldown::AttemptFilter &filter,
             const QString &fileName);
    void cancel();

signals:
    void progress(qint64 rowsWritten, qint64 totalRows);
    void finished(int error, const QString &text, qint64 rowsWritten);

private:
    std::unique_ptr<QueryStore> m_store;
    CsvExporter *m_exporter = nullptr;
};

} // namespace cooldown
