// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"

#include <QString>
#include <QThread>

namespace cooldown {

class Clock;
class RetentionPruner;

// History older than the workspace keeps (docs/rollups.md) goes in small batches, on a
// thread and a connection of its own, startDelayMs after this is made and every
// intervalMs after. `cooldown run` and the window both keep one beside their engine.
class RetentionRun final
{
public:
    static constexpr int kStartDelayMs = 60 * 1000;
    static constexpr int kIntervalMs = 3600 * 1000;

    RetentionRun(const QString &databaseUrl, const Clock &clock, const RetentionConfig &retention,
                 int startDelayMs = kStartDelayMs, int intervalMs = kIntervalMs);
    // Stops the pruner after the batch it is in, and waits for its thread.
    ~RetentionRun();
    RetentionRun(const RetentionRun &) = delete;
    RetentionRun &operator=(const RetentionRun &) = delete;

    // The workspace's retention, from the next pass.
    void follow(const RetentionConfig &retention);

private:
    QThread m_thread;
    RetentionPruner *m_pruner; // lives on m_thread, deleted when it finishes
};

} // namespace cooldown
