// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <memory>

namespace cooldown {

class Clock;
class CredentialBroker;
class RandomSource;
class Transport;

// What one token request came to. Holds no token: only what may be shown.
struct CredentialTestResult
{
    bool ok = false;
    qint64 validUntilMs = -1; // wall clock
    qint64 lifetimeMs = -1;   // what the token endpoint granted, from the answer's arrival
    QString scope;            // what it says the token grants (else the scope asked for)
    int status = 0;           // HTTP status; 0 without an answer
    QString error;            // the token endpoint's error and description, or ours
    qint64 durationMs = 0;
};

// Asks a credential's token endpoint for a token once, now, as the engine would: the
// same form, client authentication, TLS settings and proxy (core's CredentialBroker on a
// Transport of its own, so the running engine's token and pacing are left alone). The
// token is dropped with this object. finished() is emitted exactly once, then the
// object deletes itself later; destroying it before aborts the request silently.
class CredentialTest final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CredentialTest)

public:
    // config: a validated workspace (its secrets resolved); credentialId: one of its
    // OAuth credentials.
    CredentialTest(const WorkspaceConfig &config, const QString &credentialId, const Clock &clock,
                   RandomSource &random, QObject *parent = nullptr);
    ~CredentialTest() override;

    QString credentialId() const { return m_id; }
    void start();

signals:
    void finished(const cooldown::CredentialTestResult &result);

private:
    void onChanged(const QString &id);
    void finish(CredentialTestResult result);

    QString m_id;
    const Clock &m_clock;
    // Declared in this order so that the broker, which aborts its request when it goes,
    // goes before the transport that owns that request.
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<CredentialBroker> m_broker;
    int m_status = 0;
    qint64 m_durationMs = 0;
    bool m_finished = false;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::CredentialTestResult)
