// SPDX-License-Identifier: Apache-2.0
#include "ui/ReportReader.h"

#include "core/query/QueryStore.h"

namespace cooldown {

ReportReader::ReportReader(QString databaseUrl, QObject *parent)
    : QObject(parent), m_databaseUrl(std::move(databaseUrl))
{}

ReportReader::~ReportReader() = default;

std::optional<SlaReport> ReportReader::read(const SlaRequest &request, QString *error)
{
    if (!m_store)
        m_store = std::make_unique<QueryStore>(m_databaseUrl, QueryStore::IfMissing::Refuse);
    if (!m_store->ensureOpen([error](const QString &why) { *error = why; })) {
        if (error->isEmpty())
            *error = m_store->openError();
        return std::nullopt;
    }
    return buildSlaReport(*m_store, request, error);
}

} // namespace cooldown
