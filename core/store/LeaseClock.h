// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

#include <optional>

namespace cooldown {

class Database;

// The clock buckets and leases run on. On PostgreSQL with
// StoreOptions::paceByDatabaseClock it is the database's own, so that a worker whose
// clock runs ahead neither refills a bucket early nor takes a live lease for an
// expired one; elsewhere it is the caller's. It keeps how far the caller's clock was
// from it at the last claim, so that lease times go back to the caller on its own
// clock and come in from it onto this one. Shared by the store's parts on one
// connection.
class LeaseClock final
{
public:
    explicit LeaseClock(Database &database);

    bool byDatabase() const { return m_byDatabase; }
    // Now on this clock, in microseconds, when the caller's reads callerNowMs; nullopt
    // when the database could not say (why in its lastError()).
    std::optional<qint64> nowUs(qint64 callerNowMs);
    // A claim read this clock at leaseNowMs when the caller's read callerNowMs.
    void noteOffset(qint64 callerNowMs, qint64 leaseNowMs)
    {
        m_offsetMs = leaseNowMs - callerNowMs;
    }
    // This clock minus the caller's, as the last claim measured it.
    qint64 offsetMs() const { return m_offsetMs; }

private:
    Database &m_db;
    bool m_byDatabase = false;
    qint64 m_offsetMs = 0;
};

} // namespace cooldown
