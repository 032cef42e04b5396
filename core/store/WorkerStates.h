// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace cooldown {

class Database;

// Where one worker's credential stands (docs/credentials.md), as `cooldown status` and
// the window show it. Never a secret or a token.
struct CredentialStateRow
{
    QString workerId;
    QString credentialId;
    QString phase; // idle, valid, renewing, failing, refused
    qint64 validUntilMs = -1;
    qint64 failingSinceMs = -1;
    qint64 nextTryAtMs = -1;
    QString lastError;
    qint64 tokenRequests = 0;
    qint64 updatedAtMs = 0;
};

// A worker that finds no network, as it last wrote (docs/offline.md).
struct WorkerOfflineRow
{
    QString workerId;
    qint64 offlineSinceMs = -1;
    qint64 updatedAtMs = 0;
};

// The store's part for what each worker says of itself for the others to read: where
// its credentials stand and whether it finds no network. It owns the tables
// credential_states and worker_states; every call runs on the store's connection and
// is false or nullopt on failure, with why in the store's lastError().
class WorkerStates final
{
public:
    explicit WorkerStates(Database &database) : m_db(database) {}

    // A worker's credential as it stands now (written when it changes), and every
    // worker's, by credential then worker. forgetCredentials: a worker's rows go when it
    // stops.
    bool saveCredential(const CredentialStateRow &row);
    std::optional<QList<CredentialStateRow>> credentials();
    bool forgetCredentials(const QString &workerId);
    // That a worker finds no network since offlineSinceMs (-1: it has the network
    // again, or stops, and its row goes), and every worker that does, by worker.
    bool saveOffline(const QString &workerId, qint64 offlineSinceMs, qint64 nowMs);
    std::optional<QList<WorkerOfflineRow>> offline();

private:
    Database &m_db;
};

} // namespace cooldown
