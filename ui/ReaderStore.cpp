// SPDX-License-Identifier: Apache-2.0
#include "ui/ReaderStore.h"

namespace cooldown {

ReaderStore::ReaderStore(QString databaseUrl, IfMissing ifMissing)
    : m_databaseUrl(std::move(databaseUrl)), m_ifMissing(ifMissing)
{}

ReaderStore::~ReaderStore() = default;

bool ReaderStore::ensureOpen(const std::function<void(const QString &)> &reportFailure)
{
    if (m_store)
        return true;
    if (m_openFailed)
        return false;
    QString error;
    StoreOptions options;
    options.createIfMissing = m_ifMissing == IfMissing::Create;
    m_store = Store::open(m_databaseUrl, &error, options);
    if (!m_store) {
        m_openFailed = true;
        reportFailure(error);
        return false;
    }
    return true;
}

} // namespace cooldown
