// SPDX-License-Identifier: Apache-2.0
#include "ui/CredentialTest.h"

#include "core/engine/CredentialBroker.h"
#include "core/engine/Transport.h"
#include "core/time/Clock.h"

#include <QTimer>

namespace cooldown {

CredentialTest::CredentialTest(const WorkspaceConfig &config, const QString &credentialId,
                               const Clock &clock, RandomSource &random, QObject *parent)
    : QObject(parent), m_id(credentialId), m_clock(clock),
      m_transport(std::make_unique<Transport>(clock))
{
    qRegisterMetaType<cooldown::CredentialTestResult>();
    QList<CredentialConfig> credentials;
    if (const CredentialConfig *c = config.credential(credentialId))
        credentials.append(*c);
    m_broker =
        std::make_unique<CredentialBroker>(credentials, config.tls, *m_transport, clock, random);
    connect(m_broker.get(), &CredentialBroker::tokenRequested, this,
            [this](const QString &, int status, const QString &, qint64 durationMs) {
                m_status = status;
                m_durationMs = durationMs;
            });
    connect(m_broker.get(), &CredentialBroker::changed, this, &CredentialTest::onChanged);
}

CredentialTest::~CredentialTest() = default;

void CredentialTest::start()
{
    if (!m_broker->contains(m_id) || !m_broker->isOAuth(m_id)) {
        CredentialTestResult result;
        result.error = tr("%1 is no OAuth credential of this workspace").arg(m_id);
        // Later, like any answer: whoever started it connects first and hears it.
        QTimer::singleShot(0, this, [this, result] { finish(result); });
        return;
    }
    // The broker starts the token request and answers "pending"; changed() follows.
    m_broker->acquire(m_id);
}

void CredentialTest::onChanged(const QString &id)
{
    if (id != m_id)
        return;
    const CredentialState state = m_broker->state(m_id);
    CredentialTestResult result;
    result.status = m_status;
    result.durationMs = m_durationMs;
    if (state.phase == CredentialState::Phase::Valid) {
        result.ok = true;
        result.validUntilMs = state.validUntilMs;
        result.lifetimeMs = state.validUntilMs - m_clock.nowMs();
        result.scope = state.scope;
    } else {
        result.error = state.lastError;
    }
    finish(result);
}

void CredentialTest::finish(CredentialTestResult result)
{
    if (m_finished)
        return;
    m_finished = true;
    emit finished(result);
    deleteLater();
}

} // namespace cooldown
