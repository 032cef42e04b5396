// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/Store.h"

#include <QString>

#include <functional>
#include <memory>

namespace cooldown {

// A reader's own connection to the store, opened on first use, on the thread the
// reader runs on (a QSqlDatabase belongs to the thread that opened it: see
// WorkerThread). An open that fails is not tried again: the reader reports the reason
// once, instead of on every tick, and answers nothing from then on.
class ReaderStore final
{
    Q_DISABLE_COPY_MOVE(ReaderStore)

public:
    // Refuse: a reader that only looks at what another part wrote must not leave an
    // empty database behind where none was.
    enum class IfMissing
    {
        Create,
        Refuse
    };
    ReaderStore(QString databaseUrl, IfMissing ifMissing);
    ~ReaderStore();

    // True once the store is open. The first failing call gives its reason to
    // reportFailure; the calls after it return false without trying or reporting.
    bool ensureOpen(const std::function<void(const QString &)> &reportFailure);

    Store *operator->() const { return m_store.get(); }

private:
    QString m_databaseUrl;
    IfMissing m_ifMissing;
    std::unique_ptr<Store> m_store;
    bool m_openFailed = false;
};

} // namespace cooldown
