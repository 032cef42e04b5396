#include "ui/DashboardSession.h"

#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"

namespace cooldown {

std::unique_ptr<DashboardSession> DashboardSession::open(WorkspaceConfig config,
                                                         const QString &databaseUrl,
                                                         const QString &workspaceName,
                                                         QString *error, const Clock *clock,
                                                         RandomSource *random)
{
    std::unique_ptr<Store> store = Store::open(databaseUrl, error);
    if (!store)
        return nullptr;
    return std::unique_ptr<DashboardSession>(new DashboardSession(
        std::move(config), databaseUrl, workspaceName, clock ? *clock : SystemClock::instance(),
        random ? *random : static_cast<RandomSource &>(SystemRandom::instance()),
        std::move(store)));
}

DashboardSession::DashboardSession(WorkspaceConfig config, QString databaseUrl,
                                   QString workspaceName, const Clock &clock, RandomSource &random,
                                   std::unique_ptr<Store> store)
    : m_config(config), m_databaseUrl(std::move(databaseUrl)),
      m_workspaceName(std::move(workspaceName)), m_clock(clock), m_store(std::move(store)),
      m_transport(std::make_unique<Transport>(clock)), m_timer(std::make_unique<QtWakeTimer>())
{
    m_scheduler = std::make_unique<Scheduler>(std::move(config), *m_store, *m_transport, m_clock,
                                              random, *m_timer);
}

DashboardSession::~DashboardSession()
{
    // The scheduler refers to everything else.
    m_scheduler.reset();
}

bool DashboardSession::start(QString *error)
{
    return m_scheduler->start(error);
}

} // namespace cooldown
