// SPDX-License-Identifier: Apache-2.0
#include "core/query/ChangePoller.h"

#include <QTimer>

namespace cooldown {

ChangePoller::ChangePoller(QString databaseUrl, QObject *parent)
    : QObject(parent), m_store(std::move(databaseUrl), QueryStore::IfMissing::Create)
{
    // Tokens cross to the readers' threads by a queued signal.
    qRegisterMetaType<cooldown::ChangeToken>();
}

ChangePoller::~ChangePoller() = default;

void ChangePoller::start(int intervalMs)
{
    if (!m_timer) {
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &ChangePoller::poll);
    }
    m_timer->start(intervalMs);
    poll();
}

void ChangePoller::poll()
{
    if (!m_store.ensureOpen([this](const QString &error) { emit failed(error); })) {
        if (m_timer)
            m_timer->stop();
        return;
    }
    ChangeToken token;
    const StoreResult<QByteArray> read = m_store.changeToken();
    if (read)
        token.value = *read;
    else
        token.error = read.error();
    emit polled(token);
}

} // namespace cooldown
