// SPDX-License-Identifier: Apache-2.0
#include "core/store/WalCheckpointer.h"

#include "core/Logging.h"

#include <sqlite3.h>

#include <algorithm>

namespace cooldown {

WalCheckpointer::WalCheckpointer(sqlite3 *connection, const QString &path, int thresholdFrames)
    : m_connection(connection), m_path(path.toUtf8()), m_threshold(std::max(1, thresholdFrames))
{
    // Replaces the automatic checkpoint, which is itself a WAL hook.
    sqlite3_wal_hook(m_connection, &WalCheckpointer::onCommit, this);
}

WalCheckpointer::~WalCheckpointer()
{
    sqlite3_wal_hook(m_connection, nullptr, nullptr);
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_one();
    if (m_thread.joinable())
        m_thread.join();
}

int WalCheckpointer::onCommit(void *self, sqlite3 *connection, const char *database, int frames)
{
    auto *checkpointer = static_cast<WalCheckpointer *>(self);
    if (frames < checkpointer->m_threshold)
        return SQLITE_OK;
    if (checkpointer->m_failed.load()) {
        // Without a thread of our own, as SQLite's automatic checkpoint would.
        sqlite3_wal_checkpoint_v2(connection, database, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                                  nullptr);
        return SQLITE_OK;
    }
    checkpointer->request();
    return SQLITE_OK;
}

void WalCheckpointer::request()
{
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        if (m_requested)
            return;
        m_requested = true;
        if (!m_thread.joinable())
            m_thread = std::thread(&WalCheckpointer::run, this);
    }
    m_wake.notify_one();
}

void WalCheckpointer::run()
{
    sqlite3 *connection = nullptr;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
    // A new connection learns the journal mode only when it first reads the file;
    // until then a checkpoint finds "no log" and does nothing.
    bool inWal = false;
    if (sqlite3_open_v2(m_path.constData(), &connection, flags, nullptr) == SQLITE_OK) {
        sqlite3_stmt *mode = nullptr;
        if (sqlite3_prepare_v2(connection, "PRAGMA journal_mode", -1, &mode, nullptr) ==
                SQLITE_OK &&
            sqlite3_step(mode) == SQLITE_ROW) {
            const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(mode, 0));
            inWal = text && qstrcmp(text, "wal") == 0;
        }
        sqlite3_finalize(mode);
    }
    if (!inWal) {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_error = QString::fromUtf8(sqlite3_errmsg(connection));
        if (m_error.isEmpty() || m_error == QLatin1String("not an error"))
            m_error = QStringLiteral("the database is not in WAL mode");
        qCWarning(lcStore).noquote() << "checkpoints stay on the writing thread:" << m_error;
        sqlite3_close(connection);
        m_failed = true;
        return;
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
        m_wake.wait(lock, [this] { return m_requested || m_stopping; });
        if (m_stopping)
            break;
        // A commit from now on asks for another pass.
        m_requested = false;
        lock.unlock();
        int logFrames = 0;
        int copiedFrames = 0;
        const int rc = sqlite3_wal_checkpoint_v2(connection, nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                                 &logFrames, &copiedFrames);
        lock.lock();
        if (rc == SQLITE_OK && copiedFrames == logFrames) {
            ++m_completed;
        } else if (rc != SQLITE_OK && rc != SQLITE_BUSY) {
            const QString error = QString::fromUtf8(sqlite3_errmsg(connection));
            if (error != m_error)
                qCWarning(lcStore).noquote() << "checkpoint failed:" << error;
            m_error = error;
        }
    }
    lock.unlock();
    sqlite3_close(connection);
}

} // namespace cooldown
