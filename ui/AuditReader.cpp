// SPDX-License-Identifier: Apache-2.0
#include "ui/AuditReader.h"

namespace cooldown {

AuditReader::AuditReader(QString databaseUrl)
    : m_store(std::move(databaseUrl), QueryStore::IfMissing::Refuse)
{
    // The rows cross to the page's thread by a queued signal.
    qRegisterMetaType<QList<AuditRecord>>();
}

AuditReader::~AuditReader() = default;

void AuditReader::read(quint64 generation, qint64 fromMs, int limit)
{
    // A failed open is said once: the page asks again every few seconds.
    if (!m_store.ensureOpen([this](const QString &error) { emit failed(error); }))
        return;
    const auto rows = m_store.operatorActions(fromMs, -1, limit, true);
    if (!rows) {
        emit failed(rows.error());
        return;
    }
    emit rowsRead(generation, *rows);
}

} // namespace cooldown
