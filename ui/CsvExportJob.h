// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryRecords.h"
#include "ui/WorkerThread.h"

#include <QObject>
#include <QString>

#include <memory>

namespace cooldown {

class CsvExporter;
class QueryStore;

// Runs one CsvExporter, with a QueryStore of its own, on the thread it was moved to.
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

// One CSV export of the attempt history, off the window's thread. finished() is emitted
// exactly once per start(), with CsvExporter::Error (NoError, Cancelled, ...).
class CsvExportJob final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CsvExportJob)

public:
    explicit CsvExportJob(QObject *parent = nullptr);
    ~CsvExportJob() override;

    void start(const QString &databaseUrl, const AttemptFilter &filter, const QString &fileName);
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    void progress(qint64 rowsWritten, qint64 totalRows);
    void finished(int error, const QString &text, qint64 rowsWritten);

    void runRequested(const QString &databaseUrl, const cooldown::AttemptFilter &filter,
                      const QString &fileName);
    void cancelRequested();

private:
    WorkerThread<CsvExportWorker> m_thread;
    bool m_running = false;
};

} // namespace cooldown
