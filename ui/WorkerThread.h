// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QObject>
#include <QThread>

#include <utility>

namespace cooldown {

// A worker QObject living on a thread of its own. The worker is created here, moved to
// the thread, and destroyed on that thread when the holder is destroyed, so that what
// it opened there (a database connection) is also closed there.
template <typename Worker> class WorkerThread final
{
public:
    template <typename... Args>
    explicit WorkerThread(const QString &name, Args &&...args)
        : m_worker(new Worker(std::forward<Args>(args)...))
    {
        m_thread.setObjectName(name);
        m_worker->moveToThread(&m_thread);
        QObject::connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
        m_thread.start();
    }

    ~WorkerThread()
    {
        m_thread.quit();
        m_thread.wait();
    }

    Q_DISABLE_COPY_MOVE(WorkerThread)

    // Call its slots through queued connections or QMetaObject::invokeMethod only.
    Worker *worker() const { return m_worker; }

private:
    QThread m_thread;
    Worker *m_worker = nullptr;
};

} // namespace cooldown
