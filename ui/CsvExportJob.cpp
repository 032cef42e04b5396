// SPDX-License-Identifier: Apache-2.0
#include "ui/CsvExportJob.h"

namespace cooldown {

CsvExportJob::CsvExportJob(QObject *parent)
    : QObject(parent), m_thread(QStringLiteral("csv export"))
{
    CsvExportWorker *worker = m_thread.worker();
    connect(this, &CsvExportJob::runRequested, worker, &CsvExportWorker::run);
    connect(this, &CsvExportJob::cancelRequested, worker, &CsvExportWorker::cancel);
    connect(worker, &CsvExportWorker::progress, this, &CsvExportJob::progress);
    connect(worker, &CsvExportWorker::finished, this,
            [this](int error, const QString &text, qint64 rows) {
                m_running = false;
                emit finished(error, text, rows);
            });
}

CsvExportJob::~CsvExportJob()
{
    disconnect(m_thread.worker(), nullptr, this, nullptr);
    if (m_running)
        emit cancelRequested();
}

void CsvExportJob::start(const QString &databaseUrl, const AttemptFilter &filter,
                         const QString &fileName)
{
    if (m_running)
        return;
    m_running = true;
    emit runRequested(databaseUrl, filter, fileName);
}

void CsvExportJob::cancel()
{
    if (m_running)
        emit cancelRequested();
}

} // namespace cooldown
