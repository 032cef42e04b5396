#pragma once

#include <QString>

#include <csignal>
#include <functional>
#include <memory>

class QSocketNotifier;

namespace cooldown::cli {

// Turns SIGINT and SIGTERM into a call on the event loop (the self-pipe pattern: a
// signal handler may not call into Qt). One instance at a time; the previous
// handlers come back when it is destroyed.
class StopOnSignal final
{
public:
    StopOnSignal();
    ~StopOnSignal();
    StopOnSignal(const StopOnSignal &) = delete;
    StopOnSignal &operator=(const StopOnSignal &) = delete;

    // onSignal runs on the event loop, once per signal received.
    bool install(std::function<void(int signal)> onSignal, QString *error);

private:
    std::unique_ptr<QSocketNotifier> m_notifier;
    std::function<void(int)> m_onSignal;
    struct sigaction m_previous[2] = {};
    bool m_installed = false;
};

} // namespace cooldown::cli
