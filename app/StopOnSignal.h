// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>

#include <csignal>
#include <functional>
#include <initializer_list>
#include <memory>

class QSocketNotifier;

namespace cooldown::cli {

// Turns SIGINT and SIGTERM (and any other signals asked for, such as SIGHUP) into a
// call on the event loop (the self-pipe pattern: a signal handler may not call into
// Qt). One instance at a time; the previous handlers come back when it is destroyed.
class StopOnSignal final
{
public:
    StopOnSignal();
    ~StopOnSignal();
    StopOnSignal(const StopOnSignal &) = delete;
    StopOnSignal &operator=(const StopOnSignal &) = delete;

    // onSignal runs on the event loop, once per signal received.
    bool install(std::function<void(int signal)> onSignal, QString *error,
                 std::initializer_list<int> which = {SIGINT, SIGTERM});

private:
    std::unique_ptr<QSocketNotifier> m_notifier;
    std::function<void(int)> m_onSignal;
    static constexpr int kMaxSignals = 4;
    int m_signals[kMaxSignals] = {};
    struct sigaction m_previous[kMaxSignals] = {};
    int m_installed = 0; // how many of m_signals have our handler
};

} // namespace cooldown::cli
