// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QtGlobal>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

struct sqlite3;

namespace cooldown {

// Moves SQLite's WAL checkpoints off the thread that writes.
//
// With SQLite's automatic checkpoint, the commit that takes the write-ahead log past
// its threshold copies the log back into the database and waits for the disk twice
// (fdatasync), on the committing thread: for the engine, a stall every few dozen
// attempts, and a long one on a slow disk. Installed on a connection, this replaces
// the automatic checkpoint: a commit past the threshold only wakes a thread of ours,
// which runs a passive checkpoint on a connection of its own. Passive checkpoints never
// wait for readers or writers; the log is reused from its start once one completes.
//
// SQLite's guide to WAL recommends this arrangement ("disable the automatic
// checkpoints and run checkpoints in a separate thread").
class WalCheckpointer final
{
public:
    // Frames in the log past which a checkpoint is requested: SQLite's own default.
    static constexpr int kDefaultThreshold = 1000;

    // Installs on `connection` (an open SQLite connection in WAL mode on `path`). The
    // thread and its connection are created by the first checkpoint asked for: a
    // connection that only reads never starts one.
    WalCheckpointer(sqlite3 *connection, const QString &path, int thresholdFrames);
    // Removes the hook and waits for a running checkpoint to end. The writer
    // connection checkpoints on close as it always does.
    ~WalCheckpointer();
    Q_DISABLE_COPY_MOVE(WalCheckpointer)

    // Checkpoints completed so far (the whole log copied), for tests and diagnostics.
    int completedCheckpoints() const { return m_completed.load(); }
    // Asks for a checkpoint now, whatever the log's length: after bulk work.
    void request();

private:
    static int onCommit(void *self, sqlite3 *connection, const char *database, int frames);
    void run();

    sqlite3 *m_connection;
    const QByteArray m_path;
    const int m_threshold;

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_requested = false;
    bool m_stopping = false;
    QString m_error; // the last one logged, so that a lasting failure is logged once
    std::thread m_thread;
    std::atomic<int> m_completed{0};
    std::atomic<bool> m_failed{false}; // no connection of our own: checkpoint inline
};

} // namespace cooldown
