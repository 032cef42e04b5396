// SPDX-License-Identifier: Apache-2.0
#include "core/engine/CredentialBroker.h"

#include "core/Logging.h"
#include "core/engine/Transport.h"
#include "core/http/ClientAssertion.h"
#include "core/http/TokenResponse.h"
#include "core/retry/Backoff.h"
#include "core/retry/ServerWait.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"

#include <QUrl>

#include <algorithm>

namespace cooldown {

namespace {

// A token endpoint that keeps failing is asked again at most this far apart, and a
// server's wait longer than this is cut to it: a token request costs the server
// little, and operations wait for it.
constexpr qint64 kMaxFailureWaitMs = 5 * 60'000;
// Token answers are small; a larger one is not a token endpoint's.
constexpr qint64 kMaxTokenAnswerBytes = 64 * 1024;
// A token is not sent in its last second (or last tenth, if it lives less than ten
// seconds): it would expire on the way.
constexpr qint64 kExpirySkewMs = 1000;
// Token requests of one credential start at least this far apart, whatever happens:
// a server whose tokens are refused at once, or expire at once, is not hammered.
constexpr qint64 kMinRequestSpacingMs = 1000;

QByteArray formEncode(const QString &text)
{
    return QUrl::toPercentEncoding(text);
}

RetryProfile failureBackoff()
{
    RetryProfile profile;
    profile.baseSeconds = 1;
    profile.capSeconds = double(kMaxFailureWaitMs) / 1000.0;
    profile.jitter = Jitter::Full;
    return profile;
}

} // namespace

const char *textOf(CredentialState::Phase phase)
{
    switch (phase) {
    case CredentialState::Phase::Idle:
        return "idle";
    case CredentialState::Phase::Valid:
        return "valid";
    case CredentialState::Phase::Renewing:
        return "renewing";
    case CredentialState::Phase::Failing:
        return "failing";
    case CredentialState::Phase::Refused:
        return "refused";
    }
    return "idle";
}

// Its times are on the monotonic clock: a wall clock stepped back or forward neither
// keeps a dead token nor drops a good one. The state shown converts them.
struct CredentialBroker::Entry
{
    CredentialConfig config;
    std::shared_ptr<const ConnectionSettings> connection;
    QByteArray token;
    quint64 serial = 0; // of token; 0 while none is held
    quint64 lastSerial = 0;
    quint64 distrusted = 0; // a fresh token a server refused: its 401s are not renewed
    qint64 expiresAt = -1;
    qint64 renewAt = -1;
    qint64 skewMs = kExpirySkewMs;
    QHash<quint64, qint64> expiryOfSerial; // the last few tokens' expiries
    TransportCall *call = nullptr;
    qint64 callStartedAt = -1;
    qint64 retryAt = -1; // no token request before then
    int failures = 0;    // in a row
    qint64 previousBackoffMs = 0;
    int refusals = 0; // in a row
    bool refused = false;
    CredentialState state;

    bool hasToken(qint64 mono) const { return !token.isEmpty() && mono < expiresAt - skewMs; }
};

CredentialBroker::CredentialBroker(const QList<CredentialConfig> &credentials,
                                   const QList<TlsConfig> &tls, Transport &transport,
                                   const Clock &clock, RandomSource &random, QObject *parent)
    : QObject(parent), m_transport(transport), m_clock(clock), m_random(random)
{
    for (const CredentialConfig &c : credentials) {
        auto entry = std::make_shared<Entry>();
        entry->config = c;
        entry->state.id = c.id;
        if (c.isOAuth()) {
            const auto t = std::find_if(tls.begin(), tls.end(),
                                        [&](const TlsConfig &s) { return s.id == c.tls; });
            entry->connection = ConnectionSettings::make(t == tls.end() ? nullptr : &*t, c.proxy);
        }
        m_entries.insert(c.id, entry);
    }
}

CredentialBroker::~CredentialBroker()
{
    for (const auto &entry : std::as_const(m_entries)) {
        if (entry->call) {
            entry->call->disconnect(this);
            entry->call->abort();
        }
    }
}

bool CredentialBroker::isOAuth(const QString &id) const
{
    const auto entry = m_entries.value(id);
    return entry && entry->config.isOAuth();
}

CredentialGrant CredentialBroker::acquire(const QString &id)
{
    CredentialGrant grant;
    const auto found = m_entries.constFind(id);
    if (found == m_entries.constEnd()) {
        grant.kind = CredentialGrant::Kind::Refused;
        grant.reason = QStringLiteral("credential '%1' is not configured").arg(id);
        return grant;
    }
    Entry &entry = **found;
    if (!entry.config.isOAuth()) {
        grant.kind = CredentialGrant::Kind::Ready;
        grant.headerName = entry.config.headerName;
        grant.headerValue = entry.config.headerValue;
        return grant;
    }
    const qint64 now = m_clock.monotonicMs();
    // A token request that neither answers nor fails (a server trickling bytes keeps
    // Qt's transfer timeout from firing) is given up after its timeout.
    // Later, not here: its end is told to operations waiting, and acquire()'s caller is
    // one of them, mid-decision.
    if (entry.call && now - entry.callStartedAt > qint64(entry.config.tokenTimeoutSeconds * 1000))
        QMetaObject::invokeMethod(entry.call, &TransportCall::abort, Qt::QueuedConnection);
    const bool mayAsk = !entry.call && now >= entry.retryAt;
    if (entry.hasToken(now)) {
        // Renewed ahead of its expiry, in the background: the token held goes on serving.
        if (now >= entry.renewAt && mayAsk)
            request(entry);
        grant.kind = CredentialGrant::Kind::Ready;
        grant.headerName = "Authorization";
        grant.headerValue = "Bearer " + entry.token;
        grant.serial = entry.serial;
        return grant;
    }
    if (entry.refused && now < entry.retryAt) {
        grant.kind = CredentialGrant::Kind::Refused;
        grant.reason = entry.state.lastError;
        return grant;
    }
    if (mayAsk)
        request(entry);
    if (entry.refused && !entry.call && now < entry.retryAt) {
        grant.kind = CredentialGrant::Kind::Refused; // refused before anything was sent
        grant.reason = entry.state.lastError;
        return grant;
    }
    grant.kind = CredentialGrant::Kind::Pending;
    grant.retryInMs = entry.call ? -1 : std::max<qint64>(1, entry.retryAt - now);
    grant.inFlightForMs = entry.call ? now - entry.callStartedAt : 0;
    return grant;
}

void CredentialBroker::rejected(const QString &id, quint64 serial)
{
    const auto entry = m_entries.value(id);
    if (!entry || serial == 0 || serial != entry->serial)
        return; // a newer token is held already
    qCInfo(lcEngine).noquote() << QStringLiteral("credential %1: a server refused its token; "
                                                 "renewing it")
                                      .arg(id);
    entry->token.clear();
    entry->serial = 0;
    entry->expiresAt = -1;
    entry->renewAt = -1;
    if (entry->state.phase == CredentialState::Phase::Valid)
        entry->state.phase = CredentialState::Phase::Idle;
    entry->state.validUntilMs = -1;
}

quint64 CredentialBroker::currentSerial(const QString &id) const
{
    const auto entry = m_entries.value(id);
    return entry ? entry->serial : 0;
}

bool CredentialBroker::hadExpired(const QString &id, quint64 serial) const
{
    const auto entry = m_entries.value(id);
    if (!entry)
        return false;
    const auto expiry = entry->expiryOfSerial.constFind(serial);
    return expiry != entry->expiryOfSerial.constEnd() && m_clock.monotonicMs() >= *expiry;
}

void CredentialBroker::distrust(const QString &id, quint64 serial)
{
    if (const auto entry = m_entries.value(id); entry && serial != 0)
        entry->distrusted = std::max(entry->distrusted, serial);
}

bool CredentialBroker::isDistrusted(const QString &id, quint64 serial) const
{
    const auto entry = m_entries.value(id);
    return entry && serial != 0 && serial <= entry->distrusted;
}

void CredentialBroker::request(Entry &entry)
{
    const CredentialConfig &c = entry.config;
    TransportRequest r;
    r.method = "POST";
    r.url = c.tokenUrl;
    r.headers.append("Content-Type", "application/x-www-form-urlencoded");
    r.headers.append("Accept", "application/json");
    QByteArray form = "grant_type=client_credentials";
    const auto add = [&form](const QString &name, const QString &value) {
        form += '&' + formEncode(name) + '=' + formEncode(value);
    };
    if (!c.scope.isEmpty())
        add(QStringLiteral("scope"), c.scope);
    if (!c.audience.isEmpty())
        add(QStringLiteral("audience"), c.audience);
    for (const auto &p : c.extraParameters)
        add(p.first, p.second);
    if (c.clientAuth == CredentialConfig::ClientAuth::PrivateKeyJwt) {
        // RFC 7523, 2.2: a fresh assertion for every request, its jti never reused.
        const QString jti = QStringLiteral("%1%2")
                                .arg(m_random.next(), 16, 16, QLatin1Char('0'))
                                .arg(m_random.next(), 16, 16, QLatin1Char('0'));
        QString why;
        const std::optional<QByteArray> assertion =
            ClientAssertion::sign(c.assertionKeyPem, c.assertionKeyId, c.clientId,
                                  c.tokenUrl.toString(QUrl::RemoveUserInfo | QUrl::RemoveFragment),
                                  jti, m_clock.nowMs(), &why);
        if (!assertion) {
            // The key was checked at load; it cannot sign now only if the library
            // changed under us. Nothing is sent: the client is refused by its own key.
            const bool first = refuse(entry, QStringLiteral("client_assertion: ") + why);
            QMetaObject::invokeMethod(
                this,
                [this, id = c.id, error = entry.state.lastError, first] {
                    if (first)
                        emit refused(id, error);
                    emit changed(id);
                },
                Qt::QueuedConnection);
            return;
        }
        add(QStringLiteral("client_id"), c.clientId);
        add(QStringLiteral("client_assertion_type"),
            QLatin1String(ClientAssertion::kAssertionType));
        add(QStringLiteral("client_assertion"), QString::fromLatin1(*assertion));
    } else if (c.clientAuth == CredentialConfig::ClientAuth::SecretPost) {
        add(QStringLiteral("client_id"), c.clientId);
        add(QStringLiteral("client_secret"), QString::fromUtf8(c.clientSecret));
    } else {
        // RFC 6749, 2.3.1: both form-encoded before they are joined.
        r.headers.append("Authorization", "Basic " + (formEncode(c.clientId) + ':' +
                                                      formEncode(QString::fromUtf8(c.clientSecret)))
                                                         .toBase64());
    }
    r.body = form;
    r.timeoutMs = int(c.tokenTimeoutSeconds * 1000);
    r.maxRedirects = 0; // a token endpoint answers where it is; a POST is not re-sent
    r.maxResponseBytes = kMaxTokenAnswerBytes;
    r.connection = entry.connection;
    ++entry.state.tokenRequests;
    entry.state.phase = CredentialState::Phase::Renewing;
    const QString id = c.id;
    entry.callStartedAt = m_clock.monotonicMs();
    entry.retryAt = entry.callStartedAt + kMinRequestSpacingMs;
    // Told later: request() runs inside acquire(), whose caller is mid-decision.
    QMetaObject::invokeMethod(
        this, [this, id] { emit stateChanged(id); }, Qt::QueuedConnection);
    entry.call = m_transport.send(r);
    connect(entry.call, &TransportCall::finished, this,
            [this, id](const TransportResult &result) { onTokenAnswer(id, result); });
}

void CredentialBroker::onTokenAnswer(const QString &id, const TransportResult &result)
{
    const auto found = m_entries.value(id);
    if (!found)
        return;
    Entry &entry = *found;
    entry.call = nullptr;
    const qint64 now = m_clock.monotonicMs();
    const qint64 wallNow = m_clock.nowMs();
    const CredentialConfig &c = entry.config;

    TokenResponse answer;
    if (result.error != TransportError::None) {
        answer.error = QLatin1String(textOf(result.error));
        answer.errorDescription = result.errorText;
    } else {
        answer = TokenResponse::parse(result.status, result.body);
    }
    const QString error = answer.errorDescription.isEmpty()
                              ? answer.error
                              : answer.error + QStringLiteral(": ") + answer.errorDescription;
    emit tokenRequested(id, result.status,
                        answer.kind == TokenResponse::Kind::Token ? QString() : error,
                        result.durationMs);

    if (answer.kind == TokenResponse::Kind::Token) {
        const qint64 lifetimeMs = answer.expiresInSeconds ? *answer.expiresInSeconds * 1000
                                                          : qint64(c.defaultLifetimeSeconds * 1000);
        entry.token = answer.accessToken;
        entry.serial = ++entry.lastSerial;
        entry.expiresAt = now + lifetimeMs;
        entry.renewAt = now + qint64(double(lifetimeMs) * kRenewAtShare);
        entry.skewMs = std::min(kExpirySkewMs, lifetimeMs / 10);
        entry.expiryOfSerial.insert(entry.serial, entry.expiresAt);
        entry.expiryOfSerial.remove(entry.serial - 4);
        entry.retryAt = std::max(entry.retryAt, now); // the spacing still holds
        entry.failures = 0;
        entry.previousBackoffMs = 0;
        entry.refusals = 0;
        entry.refused = false;
        entry.state.phase = CredentialState::Phase::Valid;
        entry.state.validUntilMs = wallNow + lifetimeMs;
        entry.state.failingSinceMs = -1;
        entry.state.nextTryAtMs = -1;
        entry.state.lastError.clear();
        entry.state.scope = answer.scope.isEmpty() ? c.scope : answer.scope;
        qCInfo(lcEngine).noquote()
            << QStringLiteral("credential %1: token obtained, valid for %2 s")
                   .arg(id)
                   .arg(double(lifetimeMs) / 1000.0);
        emit changed(id);
        return;
    }

    if (entry.state.failingSinceMs < 0)
        entry.state.failingSinceMs = wallNow;
    entry.state.lastError = error;
    if (answer.kind == TokenResponse::Kind::Refused) {
        const bool first = refuse(entry, error);
        if (first)
            emit refused(id, error);
        emit changed(id);
        return;
    }
    // May pass: the server's own wait on a throttle or an outage, else backoff.
    qint64 waitMs = -1;
    if (result.status == 429 || result.status == 503) {
        const ServerWait wait = ServerWait::resolve(result.headers, result.body, now);
        if (wait.hasWait())
            waitMs = std::clamp<qint64>(wait.waitMs, 0, kMaxFailureWaitMs);
    }
    if (waitMs < 0) {
        waitMs =
            Backoff::delayMs(failureBackoff(), entry.failures, entry.previousBackoffMs, m_random);
        entry.previousBackoffMs = waitMs;
    }
    ++entry.failures;
    entry.retryAt = std::max(entry.retryAt, now + waitMs);
    entry.state.phase = CredentialState::Phase::Failing;
    entry.state.nextTryAtMs = wallNow + (entry.retryAt - now);
    qCWarning(lcEngine).noquote() << QStringLiteral(
                                         "credential %1: no token (%2); next request in %3 s")
                                         .arg(id, error)
                                         .arg(double(waitMs) / 1000.0);
    emit changed(id);
}

bool CredentialBroker::refuse(Entry &entry, const QString &error)
{
    const qint64 now = m_clock.monotonicMs();
    const qint64 wallNow = m_clock.nowMs();
    const bool first = !entry.refused;
    entry.refused = true;
    const qint64 pause =
        std::min(kMaxRefusalPauseMs, kRefusalPauseMs << std::min(entry.refusals, 8));
    ++entry.refusals;
    entry.retryAt = now + pause;
    if (entry.state.failingSinceMs < 0)
        entry.state.failingSinceMs = wallNow;
    entry.state.lastError = error;
    entry.state.phase = CredentialState::Phase::Refused;
    entry.state.nextTryAtMs = wallNow + pause;
    qCWarning(lcEngine).noquote()
        << QStringLiteral("credential %1: the client was refused (%2); operations that need it "
                          "are parked")
               .arg(entry.config.id, error);
    return first;
}

CredentialState CredentialBroker::state(const QString &id) const
{
    const auto entry = m_entries.value(id);
    if (!entry)
        return {};
    CredentialState s = entry->state;
    if (s.phase == CredentialState::Phase::Valid && !entry->hasToken(m_clock.monotonicMs()))
        s.phase = CredentialState::Phase::Idle;
    return s;
}

QList<CredentialState> CredentialBroker::states() const
{
    QList<CredentialState> out;
    for (auto it = m_entries.constBegin(); it != m_entries.constEnd(); ++it)
        out.append(state(it.key()));
    std::sort(out.begin(), out.end(),
              [](const CredentialState &a, const CredentialState &b) { return a.id < b.id; });
    return out;
}

} // namespace cooldown
