#pragma once

#include "core/config/WorkspaceConfig.h"

#include <QObject>
#include <QString>

#include <memory>

namespace cooldown {

class Clock;
class QtWakeTimer;
class RandomSource;
class Scheduler;
class Store;
class Transport;

// The engine a dashboard window runs: the workspace's config, its store, the one
// transport, the wake timer and the scheduler, wired as `cooldown run` wires them.
// The window reads the store through its own workers; only operator actions and the
// scheduler's signals touch these objects, on the window's thread.
class DashboardSession final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(DashboardSession)

public:
    // Opens (and migrates) the database. nullptr with a message when it cannot.
    static std::unique_ptr<DashboardSession>
    open(WorkspaceConfig config, const QString &databaseUrl, const QString &workspaceName,
         QString *error, const Clock *clock = nullptr, RandomSource *random = nullptr);
    ~DashboardSession() override;

    bool start(QString *error);

    Scheduler &scheduler() const { return *m_scheduler; }
    const WorkspaceConfig &config() const { return m_config; }
    QString databaseUrl() const { return m_databaseUrl; }
    // "Demo workspace", or the config file's path.
    QString workspaceName() const { return m_workspaceName; }
    // The config file the workspace was read from; empty for the demo workspace, which
    // lives in the binary.
    QString configPath() const { return m_configPath; }
    void setConfigPath(const QString &path) { m_configPath = path; }
    const Clock &clock() const { return m_clock; }

private:
    DashboardSession(WorkspaceConfig config, QString databaseUrl, QString workspaceName,
                     const Clock &clock, RandomSource &random, std::unique_ptr<Store> store);

    WorkspaceConfig m_config;
    QString m_databaseUrl;
    QString m_workspaceName;
    QString m_configPath;
    const Clock &m_clock;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<QtWakeTimer> m_timer;
    std::unique_ptr<Scheduler> m_scheduler;
};

} // namespace cooldown
