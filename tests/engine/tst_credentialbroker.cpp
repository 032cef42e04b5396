// SPDX-License-Identifier: Apache-2.0
#include "core/engine/CredentialBroker.h"
#include "core/engine/Transport.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "support/ScriptedHttpServer.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrlQuery>

using namespace cooldown;

namespace {

constexpr qint64 kStart = 1'800'000'000'000;

ScriptedResponse token(const QByteArray &value, int expiresIn)
{
    return {200,
            {{"Content-Type", "application/json"}},
            R"({"access_token":")" + value + R"(","token_type":"Bearer","expires_in":)" +
                QByteArray::number(expiresIn) + "}"};
}

CredentialConfig oauth(const QString &tokenUrl)
{
    CredentialConfig c;
    c.id = QStringLiteral("plm");
    c.type = CredentialConfig::Type::OAuth2ClientCredentials;
    c.tokenUrl = QUrl(tokenUrl);
    c.clientId = QStringLiteral("cool down");
    c.clientSecret = "s3cr&t";
    c.scope = QStringLiteral("bom.write bom.read");
    return c;
}

} // namespace

class tst_CredentialBroker : public QObject
{
    Q_OBJECT

private:
    ScriptedHttpServer m_server;
    ManualClock m_clock{kStart};
    SeededRandom m_random{7};
    std::unique_ptr<Transport> m_transport;

    std::unique_ptr<CredentialBroker> broker(const CredentialConfig &c)
    {
        return std::make_unique<CredentialBroker>(QList<CredentialConfig>{c}, QList<TlsConfig>{},
                                                  *m_transport, m_clock, m_random);
    }

    int tokenRequests() const
    {
        return int(std::count_if(m_server.received.begin(), m_server.received.end(),
                                 [](const ReceivedRequest &r) { return r.path == "/token"; }));
    }

private slots:
    void init()
    {
        m_server.received.clear();
        m_clock.setWallMs(kStart);
        m_transport = std::make_unique<Transport>(m_clock);
    }

    void staticCredentialIsAHeader()
    {
        CredentialConfig c;
        c.id = QStringLiteral("key");
        c.type = CredentialConfig::Type::Header;
        c.headerName = "X-Api-Key";
        c.headerValue = "k";
        const auto b = broker(c);
        const CredentialGrant g = b->acquire(QStringLiteral("key"));
        QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Ready));
        QCOMPARE(g.headerName, QByteArray("X-Api-Key"));
        QCOMPARE(g.headerValue, QByteArray("k"));
        QVERIFY(!b->isOAuth(QStringLiteral("key")));
        QCOMPARE(int(b->acquire(QStringLiteral("other")).kind),
                 int(CredentialGrant::Kind::Refused));
    }

    void oneRequestForManyWaiting_data()
    {
        QTest::addColumn<bool>("post");
        QTest::newRow("client_secret_basic") << false;
        QTest::newRow("client_secret_post") << true;
    }
    void oneRequestForManyWaiting()
    {
        QFETCH(bool, post);
        m_server.script("/token", {token("tok-1", 3600)});
        CredentialConfig c = oauth(m_server.url(QStringLiteral("/token")));
        if (post)
            c.clientAuth = CredentialConfig::ClientAuth::SecretPost;
        const auto b = broker(c);
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        for (int i = 0; i < 20; ++i) {
            const CredentialGrant g = b->acquire(QStringLiteral("plm"));
            QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Pending));
            QCOMPARE(g.retryInMs, qint64(-1)); // in flight: wait for changed()
        }
        QCOMPARE(int(b->state(QStringLiteral("plm")).phase), int(CredentialState::Phase::Renewing));
        QVERIFY(changed.wait(5000));
        QCOMPARE(tokenRequests(), 1);
        const CredentialGrant g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Ready));
        QCOMPARE(g.headerName, QByteArray("Authorization"));
        QCOMPARE(g.headerValue, QByteArray("Bearer tok-1"));
        QVERIFY(g.serial > 0);

        const ReceivedRequest &r = m_server.received.constFirst();
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.header("Content-Type"), QByteArray("application/x-www-form-urlencoded"));
        const QUrlQuery form(QString::fromUtf8(r.body));
        QCOMPARE(form.queryItemValue(QStringLiteral("grant_type")),
                 QStringLiteral("client_credentials"));
        QCOMPARE(form.queryItemValue(QStringLiteral("scope"), QUrl::FullyDecoded),
                 QStringLiteral("bom.write bom.read"));
        if (post) {
            QVERIFY(r.header("Authorization").isEmpty());
            QCOMPARE(form.queryItemValue(QStringLiteral("client_id"), QUrl::FullyDecoded),
                     QStringLiteral("cool down"));
            QCOMPARE(form.queryItemValue(QStringLiteral("client_secret"), QUrl::FullyDecoded),
                     QStringLiteral("s3cr&t"));
        } else {
            // RFC 6749, 2.3.1: form-encoded, then joined, then base64.
            QCOMPARE(r.header("Authorization"),
                     "Basic " + QByteArray("cool%20down:s3cr%26t").toBase64());
            QVERIFY(!form.hasQueryItem(QStringLiteral("client_secret")));
        }
        const CredentialState s = b->state(QStringLiteral("plm"));
        QCOMPARE(int(s.phase), int(CredentialState::Phase::Valid));
        QCOMPARE(s.validUntilMs, kStart + 3600 * 1000);
        QCOMPARE(s.tokenRequests, 1);
    }

    void renewsAheadOfExpiry()
    {
        m_server.script("/token", {token("tok-1", 100), token("tok-2", 100)});
        const auto b = broker(oauth(m_server.url(QStringLiteral("/token"))));
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        m_clock.advance(79'000);
        CredentialGrant g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(g.headerValue, QByteArray("Bearer tok-1"));
        QCOMPARE(tokenRequests(), 1);
        // Past 80 % of its life: still served while the new one is fetched.
        m_clock.advance(2'000);
        g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Ready));
        QCOMPARE(g.headerValue, QByteArray("Bearer tok-1"));
        const quint64 first = g.serial;
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        QCOMPARE(tokenRequests(), 2);
        g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(g.headerValue, QByteArray("Bearer tok-2"));
        QVERIFY(g.serial > first);
        QVERIFY(!b->hadExpired(QStringLiteral("plm"), first));
        m_clock.advance(20'000);
        QVERIFY(b->hadExpired(QStringLiteral("plm"), first));
    }

    void expiredTokenIsNotSent()
    {
        m_server.script("/token", {token("tok-1", 10), token("tok-2", 10)});
        const auto b = broker(oauth(m_server.url(QStringLiteral("/token"))));
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        m_clock.advance(9'500); // within a second of its expiry
        QCOMPARE(int(b->acquire(QStringLiteral("plm")).kind), int(CredentialGrant::Kind::Pending));
        QVERIFY(changed.wait(5000));
        QCOMPARE(b->acquire(QStringLiteral("plm")).headerValue, QByteArray("Bearer tok-2"));
    }

    void refusedTokenIsDroppedOnce()
    {
        m_server.script("/token", {token("tok-1", 3600), token("tok-2", 3600)});
        const auto b = broker(oauth(m_server.url(QStringLiteral("/token"))));
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        const quint64 first = b->currentSerial(QStringLiteral("plm"));
        // Token requests start at least a second apart, whatever happens.
        b->rejected(QStringLiteral("plm"), first);
        const CredentialGrant soon = b->acquire(QStringLiteral("plm"));
        QCOMPARE(int(soon.kind), int(CredentialGrant::Kind::Pending));
        QCOMPARE(soon.retryInMs, qint64(1000));
        QCOMPARE(tokenRequests(), 1);
        m_clock.advance(1000);
        // Ten requests that carried it come back 401: one renewal.
        for (int i = 0; i < 10; ++i) {
            b->rejected(QStringLiteral("plm"), first);
            b->acquire(QStringLiteral("plm"));
        }
        QVERIFY(changed.wait(5000));
        QCOMPARE(tokenRequests(), 2);
        const quint64 second = b->currentSerial(QStringLiteral("plm"));
        QVERIFY(second > first);
        // A late 401 to the old token leaves the new one alone.
        b->rejected(QStringLiteral("plm"), first);
        QCOMPARE(b->currentSerial(QStringLiteral("plm")), second);
        QCOMPARE(int(b->acquire(QStringLiteral("plm")).kind), int(CredentialGrant::Kind::Ready));
        QCOMPARE(tokenRequests(), 2);
    }

    void unavailableWaitsForTheServersTime()
    {
        m_server.script("/token", {{503, {{"Retry-After", "7"}}, "down"}, token("tok-1", 3600)});
        const auto b = broker(oauth(m_server.url(QStringLiteral("/token"))));
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        QSignalSpy asked(b.get(), &CredentialBroker::tokenRequested);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        CredentialGrant g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Pending));
        QCOMPARE(g.retryInMs, qint64(7000));
        CredentialState s = b->state(QStringLiteral("plm"));
        QCOMPARE(int(s.phase), int(CredentialState::Phase::Failing));
        QCOMPARE(s.failingSinceMs, kStart);
        QVERIFY2(s.lastError.contains(QLatin1String("503")), qPrintable(s.lastError));
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.at(0).at(1).toInt(), 503);
        m_clock.advance(6'999);
        QCOMPARE(b->acquire(QStringLiteral("plm")).retryInMs, qint64(1));
        QCOMPARE(tokenRequests(), 1);
        m_clock.advance(1);
        QCOMPARE(b->acquire(QStringLiteral("plm")).retryInMs, qint64(-1));
        QVERIFY(changed.wait(5000));
        QCOMPARE(tokenRequests(), 2);
        QCOMPARE(b->acquire(QStringLiteral("plm")).headerValue, QByteArray("Bearer tok-1"));
        s = b->state(QStringLiteral("plm"));
        QCOMPARE(s.failingSinceMs, qint64(-1));
        QVERIFY(s.lastError.isEmpty());
    }

    void unreachableBacksOff()
    {
        // A port nothing listens on: refused at once.
        QTcpServer closed;
        QVERIFY(closed.listen(QHostAddress::LocalHost, 0));
        const quint16 port = closed.serverPort();
        closed.close();
        const auto b = broker(oauth(QStringLiteral("http://127.0.0.1:%1/token").arg(port)));
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        const CredentialGrant g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Pending));
        // The first backoff is at most a second, and requests start a second apart.
        QCOMPARE(g.retryInMs, qint64(1000));
        QCOMPARE(int(b->state(QStringLiteral("plm")).phase), int(CredentialState::Phase::Failing));
    }

    void privateKeyJwtSignsEachRequest()
    {
        const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
        if (openssl.isEmpty())
            QSKIP("openssl is missing (scripts/setup installs it): no key to sign with");
        QTemporaryDir dir;
        QProcess p;
        p.start(openssl,
                {QStringLiteral("genpkey"), QStringLiteral("-algorithm"), QStringLiteral("EC"),
                 QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:P-256")});
        QVERIFY(p.waitForFinished(30000) && p.exitCode() == 0);
        m_server.script("/token", {token("tok-1", 10), token("tok-2", 10)});
        CredentialConfig c = oauth(m_server.url(QStringLiteral("/token")));
        c.clientAuth = CredentialConfig::ClientAuth::PrivateKeyJwt;
        c.clientSecret.clear();
        c.assertionKeyPem = p.readAllStandardOutput();
        c.assertionAlgorithm = QStringLiteral("ES256");
        const auto b = broker(c);
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        m_clock.advance(9'500);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        QCOMPARE(tokenRequests(), 2);
        QSet<QString> ids;
        for (const ReceivedRequest &r : std::as_const(m_server.received)) {
            QVERIFY(r.header("Authorization").isEmpty());
            const QUrlQuery form(QString::fromUtf8(r.body));
            QCOMPARE(
                form.queryItemValue(QStringLiteral("client_assertion_type"), QUrl::FullyDecoded),
                QStringLiteral("urn:ietf:params:oauth:client-assertion-type:jwt-bearer"));
            QCOMPARE(form.queryItemValue(QStringLiteral("client_id"), QUrl::FullyDecoded),
                     QStringLiteral("cool down"));
            QVERIFY(!form.hasQueryItem(QStringLiteral("client_secret")));
            const QList<QByteArray> jwt =
                form.queryItemValue(QStringLiteral("client_assertion"), QUrl::FullyDecoded)
                    .toLatin1()
                    .split('.');
            QCOMPARE(jwt.size(), 3);
            const QJsonObject claims =
                QJsonDocument::fromJson(
                    QByteArray::fromBase64(jwt[1], QByteArray::Base64UrlEncoding |
                                                       QByteArray::OmitTrailingEquals))
                    .object();
            QCOMPARE(claims.value(QLatin1String("aud")).toString(),
                     m_server.url(QStringLiteral("/token")));
            QCOMPARE(claims.value(QLatin1String("iss")).toString(), QStringLiteral("cool down"));
            ids.insert(claims.value(QLatin1String("jti")).toString());
        }
        QCOMPARE(ids.size(), 2); // never the same assertion twice
    }

    void refusalParksAndSpeaksOnce()
    {
        m_server.script("/token", {{401,
                                    {{"Content-Type", "application/json"}},
                                    R"({"error":"invalid_client","error_description":"no"})"}});
        const auto b = broker(oauth(m_server.url(QStringLiteral("/token"))));
        QSignalSpy changed(b.get(), &CredentialBroker::changed);
        QSignalSpy refused(b.get(), &CredentialBroker::refused);
        b->acquire(QStringLiteral("plm"));
        QVERIFY(changed.wait(5000));
        CredentialGrant g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Refused));
        QCOMPARE(g.reason, QStringLiteral("invalid_client: no"));
        QCOMPARE(refused.size(), 1);
        QCOMPARE(int(b->state(QStringLiteral("plm")).phase), int(CredentialState::Phase::Refused));
        // Asked again only after the pause, and a second refusal is not news.
        m_clock.advance(CredentialBroker::kRefusalPauseMs - 1);
        QCOMPARE(int(b->acquire(QStringLiteral("plm")).kind), int(CredentialGrant::Kind::Refused));
        QCOMPARE(tokenRequests(), 1);
        m_clock.advance(1);
        QCOMPARE(int(b->acquire(QStringLiteral("plm")).kind), int(CredentialGrant::Kind::Pending));
        QVERIFY(changed.wait(5000));
        QCOMPARE(tokenRequests(), 2);
        QCOMPARE(refused.size(), 1);
        g = b->acquire(QStringLiteral("plm"));
        QCOMPARE(int(g.kind), int(CredentialGrant::Kind::Refused));
        QCOMPARE(b->state(QStringLiteral("plm")).nextTryAtMs,
                 m_clock.nowMs() + 2 * CredentialBroker::kRefusalPauseMs);
    }
};

QTEST_GUILESS_MAIN(tst_CredentialBroker)
#include "tst_credentialbroker.moc"
