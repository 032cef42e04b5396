// SPDX-License-Identifier: Apache-2.0
#include "app/StopOnSignal.h"

#include "app/CommandLine.h"

#include <QSocketNotifier>

#include <sys/socket.h>
#include <unistd.h>

namespace cooldown::cli {

namespace {

int g_signalPipe[2] = {-1, -1};

extern "C" void onStopSignal(int signal)
{
    // Only async-signal-safe work here: the event loop reads the byte.
    const char byte = char(signal);
    [[maybe_unused]] const ssize_t written = ::write(g_signalPipe[1], &byte, 1);
}

} // namespace

StopOnSignal::StopOnSignal() = default;

bool StopOnSignal::install(std::function<void(int)> onSignal, QString *error,
                           std::initializer_list<int> which)
{
    Q_ASSERT(which.size() <= size_t(kMaxSignals));
    m_onSignal = std::move(onSignal);
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_signalPipe) != 0) {
        *error = Text::tr("cannot create the signal pipe");
        return false;
    }
    m_notifier = std::make_unique<QSocketNotifier>(g_signalPipe[0], QSocketNotifier::Read);
    QObject::connect(m_notifier.get(), &QSocketNotifier::activated, m_notifier.get(), [this] {
        char byte = 0;
        if (::read(g_signalPipe[0], &byte, 1) == 1 && m_onSignal)
            m_onSignal(int(byte));
    });
    struct sigaction action = {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int signal : which) {
        if (m_installed == kMaxSignals ||
            ::sigaction(signal, &action, &m_previous[m_installed]) != 0) {
            *error = Text::tr("cannot handle signal %1").arg(signal);
            return false;
        }
        m_signals[m_installed++] = signal;
    }
    return true;
}

StopOnSignal::~StopOnSignal()
{
    for (int i = 0; i < m_installed; ++i)
        ::sigaction(m_signals[i], &m_previous[i], nullptr);
    m_notifier.reset();
    for (int &fd : g_signalPipe) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
}

} // namespace cooldown::cli
