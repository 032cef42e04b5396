// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/Credentials.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>

namespace cooldown {

class Clock;
class RandomSource;
class Transport;
class TransportCall;
struct ConnectionSettings;
struct TransportResult;

// Where one credential stands, for the window, `cooldown status` and the metrics.
// Never holds a secret or a token.
struct CredentialState
{
    enum class Phase
    {
        Idle,     // no token asked for yet (or a static credential)
        Valid,    // a token is held and not due for renewal
        Renewing, // a token request is in flight
        Failing,  // the token endpoint could not be reached or answered an error that
                  // may pass; operations that need a token wait
        Refused,  // the token endpoint refused the client (invalid_client, ...):
                  // operations that need it are parked
    };

    QString id;
    Phase phase = Phase::Idle;
    qint64 validUntilMs = -1;   // the held token's expiry (wall clock), or -1
    qint64 failingSinceMs = -1; // first failure of the current run of them, or -1
    qint64 nextTryAtMs = -1;    // when the next token request may go, or -1
    QString lastError;          // the token endpoint's error and description, or ours
    QString scope;              // what the token endpoint says the held token grants
    int tokenRequests = 0;      // sent since this process started
};
const char *textOf(CredentialState::Phase phase);

// What a request needing a credential gets now.
struct CredentialGrant
{
    enum class Kind
    {
        Ready,   // send with header
        Pending, // wait: for changed() while a token request is in flight, or
                 // retryInMs for the next one
        Refused, // park: reason says why
    };
    Kind kind = Kind::Pending;
    QByteArray headerName;
    QByteArray headerValue;   // in memory only
    quint64 serial = 0;       // which token: a 401 names the one it refused
    qint64 retryInMs = -1;    // Pending: until the next request may go; -1 while one is in flight
    qint64 inFlightForMs = 0; // Pending, with a request in flight: since when
    QString reason;           // Refused: the token endpoint's error, for the record
};

// The workspace's credentials for one worker (docs/credentials.md). Static ones
// (bearer, basic, header) are a header. OAuth 2.0 client credentials are a token
// fetched from the token endpoint through the engine's transport, with the TLS and
// proxy settings of the API it serves: one request at a time per credential however
// many operations wait (single flight), renewed ahead of expiry (at 80 % of its
// lifetime), dropped when a server refuses it, retried with the server's wait on
// 429/503 and with backoff on other failures. Tokens live in memory only and never
// reach a log.
class CredentialBroker final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CredentialBroker)

public:
    // A token is renewed once this share of its lifetime has passed.
    static constexpr double kRenewAtShare = 0.8;
    // After a refusal, the token endpoint is asked again no sooner than this, doubling
    // with each refusal in a row up to kMaxRefusalPauseMs.
    static constexpr qint64 kRefusalPauseMs = 60'000;
    static constexpr qint64 kMaxRefusalPauseMs = 15 * 60'000;

    CredentialBroker(const QList<CredentialConfig> &credentials, const QList<TlsConfig> &tls,
                     Transport &transport, const Clock &clock, RandomSource &random,
                     QObject *parent = nullptr);
    ~CredentialBroker() override;

    bool contains(const QString &id) const { return m_entries.contains(id); }
    bool isOAuth(const QString &id) const;
    // What a request needing the credential id gets now; starts a token request when
    // one is needed and none is in flight.
    CredentialGrant acquire(const QString &id);
    // A server answered 401 to a request that carried the token serial: that token is
    // dropped (unless a newer one is held already), so that the next acquire() renews it.
    void rejected(const QString &id, quint64 serial);
    // The serial of the token held now, 0 for none.
    quint64 currentSerial(const QString &id) const;
    // Whether the token serial had passed its expiry by this process's clock.
    bool hadExpired(const QString &id, quint64 serial) const;
    // A server refused the token serial although it was fresh: a real authentication
    // failure. Its later 401s are taken as they are, not as a stale token to renew,
    // so that a server refusing every token costs no token request per job.
    void distrust(const QString &id, quint64 serial);
    bool isDistrusted(const QString &id, quint64 serial) const;

    CredentialState state(const QString &id) const;
    QList<CredentialState> states() const;

signals:
    // A token arrived, or a token request failed or was refused: operations waiting
    // for id look again.
    void changed(const QString &id);
    // The token endpoint refused the client; once per run of refusals.
    void refused(const QString &id, const QString &reason);
    // What state(id) says has changed, and no operation need look again (a token
    // request has started).
    void stateChanged(const QString &id);
    // A token request ended (for the run log and the metrics); status 0 without an
    // answer, error empty on success.
    void tokenRequested(const QString &id, int status, const QString &error, qint64 durationMs);

private:
    struct Entry;
    void request(Entry &entry);
    // Marks the client refused until its pause ends; true when this starts a run of
    // refusals (the one the refused() signal tells of).
    bool refuse(Entry &entry, const QString &error);
    void onTokenAnswer(const QString &id, const TransportResult &result);

    Transport &m_transport;
    const Clock &m_clock;
    RandomSource &m_random;
    QHash<QString, std::shared_ptr<Entry>> m_entries;
};

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::CredentialState)
