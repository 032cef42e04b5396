// SPDX-License-Identifier: Apache-2.0
#include "core/query/CsvExportWorker.h"

#include "core/query/QueryStore.h"

namespace cooldown {

CsvExportWorker::CsvExportWorker() = default;

CsvExportWorker::~CsvExportWorker()
{
    // The exporter holds a cursor on the store: it goes first.
    delete m_exporter;
    m_exporter = nullptr;
}

void CsvExportWorker::run(const QString &databaseUrl, const AttemptFilter &filter,
                          const QString &fileName)
{
    // A store that did not open is tried again at the next export: the reason is
    // the answer to this one.
    if (!m_store)
        m_store = std::make_unique<QueryStore>(databaseUrl, QueryStore::IfMissing::Refuse);
    QString error;
    if (!m_store->ensureOpen([&error](const QString &why) { error = why; })) {
        m_store.reset();
        emit finished(CsvExporter::OpenFailed, error, 0);
        return;
    }
    if (!m_exporter) {
        m_exporter = new CsvExporter(this);
        connect(m_exporter, &CsvExporter::progress, this, &CsvExportWorker::progress);
        connect(m_exporter, &CsvExporter::finished, this, [this](int code, const QString &text) {
            emit finished(code, text, m_exporter->rowsWritten());
        });
    }
    m_store->exportAttempts(m_exporter, filter, fileName);
}

void CsvExportWorker::cancel()
{
    if (m_exporter)
        m_exporter->cancel();
}

} // namespace cooldown
