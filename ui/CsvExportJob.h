// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/CsvExportWorker.h"
#include "ui/WorkerThread.h"

#include <QObject>
#include <QString>

namespace cooldown {

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
