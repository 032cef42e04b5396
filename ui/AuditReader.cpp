#include "ui/AuditReader.h"

#include "core/store/Store.h"

namespace cooldown {

AuditReader::AuditReader(QString databaseUrl) : m_databaseUrl(std::move(databaseUrl))
{
    // The rows cross to the page's thread by a queued signal.
    qRegisterMetaType<QList<AuditRecord>>();
}

AuditReader::~AuditReader() = default;

void AuditReader::read(quint64 generation, qint64 fromMs, int limit)
{
    if (!m_store) {
        // Said once: the page asks again every few seconds.
        if (m_openFailed)
            return;
        QString error;
        StoreOptions options;
        options.createIfMissing = false;
        m_store = Store::open(m_databaseUrl, &error, options);
        if (!m_store) {
            m_openFailed = true;
            emit failed(error);
            return;
        }
    }
    const auto rows = m_store->operatorActions(fromMs, -1, limit, true);
    if (!rows) {
        emit failed(m_store->lastError());
        return;
    }
    emit rowsRead(generation, *rows);
}

} // namespace cooldown
