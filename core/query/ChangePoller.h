// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryStore.h"

#include <QByteArray>
#include <QMetaType>
#include <QObject>
#include <QString>

#include <optional>

class QTimer;

namespace cooldown {

// The store's change token as one poll read it (QueryStore::changeToken): the value,
// or none and why.
struct ChangeToken
{
    std::optional<QByteArray> value;
    QString error; // when there is no value

    // Whether this token says the store changed since `last`, the previous token the
    // poller gave the same reader (which becomes this one). A token that could not be
    // read counts as a change: what was read before may be stale.
    bool changedSince(std::optional<QByteArray> &last) const
    {
        const bool changed = !value || value != last;
        last = value;
        return changed;
    }
};

// Asks the store whether anything changed, once per interval, for every reader of the
// window: one small query a second however many views follow the store, instead of one
// per view. Lives on a thread of its own (see WorkerThread), with a QueryStore of its
// own, and hands each token it reads to the readers by polled(); a reader compares it
// with the last the poller gave it and reads only when it differs (or when time alone
// moved what it shows). Tokens of one connection only are compared: on SQLite a token
// counts the commits of other connections as one connection saw them. A poller whose
// store does not open says so once and polls no more.
class ChangePoller final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChangePoller)

public:
    explicit ChangePoller(QString databaseUrl, QObject *parent = nullptr);
    ~ChangePoller() override;

public slots:
    // Polls every intervalMs (the first poll runs at once).
    void start(int intervalMs);
    // Reads the token once and emits polled().
    void poll();

signals:
    void polled(const cooldown::ChangeToken &token);
    void failed(const QString &message);

private:
    QueryStore m_store;
    QTimer *m_timer = nullptr;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::ChangeToken)
