// SPDX-License-Identifier: Apache-2.0
// `cooldown run` behind a forward proxy: Debian's tinyproxy on loopback
// (tests/support/ForwardProxy.h), which logs every request it forwards and every
// CONNECT tunnel it opens. Against the OAuth servers of tests/e2e/oauth-server and, for
// HTTPS, the mTLS nginx of tests/support/TlsFixture.h. Every request of an endpoint
// that has a proxy goes through it, the token request of its credential too; a host in
// no_proxy, and an endpoint whose proxy is "none", go direct.

#include "core/store/Store.h"
#include "support/CooldownRun.h"
#include "support/ForwardProxy.h"
#include "support/OAuthServer.h"
#include "support/ReadableEnums.h"
#include "support/TlsFixture.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

const QString kClientSecret = QStringLiteral("proxySecretR4nT8wQe");
constexpr int kRunTimeoutMs = 120000;

int count(const QJsonObject &stats, const char *name)
{
    return stats.value(QLatin1String(name)).toInt();
}

int okAt(const QJsonObject &stats, const QString &path)
{
    return stats.value(QLatin1String("by_path"))
        .toObject()
        .value(path)
        .toObject()
        .value(QLatin1String("ok"))
        .toInt();
}

} // namespace

class tst_Proxy : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ForwardProxy> m_proxy;
    std::unique_ptr<OAuthServer> m_oauth;

    static QProcessEnvironment environment()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PLM_CLIENT_SECRET"), kClientSecret);
        // Only the workspace says which proxy to use.
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                 "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"})
            env.remove(QString::fromLatin1(name));
        return env;
    }

    QJsonObject credential() const
    {
        return QJsonObject{{"id", "plm"},
                           {"type", "oauth2_client_credentials"},
                           {"token_url", m_oauth->tokenUrl()},
                           {"client_id", "cooldown"},
                           {"client_secret", "${env:PLM_CLIENT_SECRET}"},
                           {"scope", "bom.write"}};
    }

    QString write(const QString &name, const QJsonObject &workspace) const
    {
        const QString path = m_dir->filePath(name + QStringLiteral(".json"));
        return writeTextFile(path, QJsonDocument(workspace).toJson()) ? path : QString();
    }

    CooldownResult run(const QString &config, const QString &db,
                       const QProcessEnvironment &env = environment()) const
    {
        return runCooldown({QStringLiteral("run"), QStringLiteral("--config"), config,
                            QStringLiteral("--db"), db, QStringLiteral("--until-idle")},
                           env, kRunTimeoutMs);
    }

    static std::unique_ptr<Store> openStore(const QString &db, QString *error)
    {
        StoreOptions readOnly;
        readOnly.createIfMissing = false;
        return Store::open(db, error, readOnly);
    }

    static QJsonObject endpoint(const QString &id, const QString &url)
    {
        return QJsonObject{{"id", id}, {"url", url}, {"timeout_seconds", 10}};
    }

private slots:
    void initTestCase()
    {
        QString missing = ForwardProxy::missingTools();
        if (missing.isEmpty())
            missing = OAuthServer::missingTools();
        if (!missing.isEmpty())
            QSKIP(qPrintable(missing));
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        QString error;
        m_proxy = std::make_unique<ForwardProxy>();
        QVERIFY2(m_proxy->start(&error), qPrintable(error));
        m_oauth = std::make_unique<OAuthServer>();
        OAuthServer::Options options;
        options.clientSecret = kClientSecret;
        QVERIFY2(m_oauth->start(options, &error), qPrintable(error));
    }

    void cleanup()
    {
        m_oauth.reset();
        m_proxy.reset();
        m_dir.reset();
    }

    void fixtureCountsWhatPasses();
    void workspaceProxyCarriesRequestsAndTheTokenRequest();
    void endpointProxyAlone();
    void systemProxyFollowsTheEnvironment();
    void httpsGoesThroughATunnel();
};

// The proxy itself, through Qt: a plain request through it is counted by host and port,
// one sent direct is not.
void tst_Proxy::fixtureCountsWhatPasses()
{
    QNetworkAccessManager manager;
    auto get = [&manager](const QString &url) {
        QNetworkRequest request{QUrl(url)};
        request.setTransferTimeout(10000);
        QNetworkReply *reply = manager.get(request);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        finished.wait(15000);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        delete reply;
        return status;
    };
    const QUrl proxyUrl(m_proxy->url());
    manager.setProxy(QNetworkProxy(QNetworkProxy::HttpProxy, proxyUrl.host(), proxyUrl.port()));
    QCOMPARE(get(m_oauth->resourceUrl(QStringLiteral("/api/through"))), 401);
    manager.setProxy(QNetworkProxy::NoProxy);
    QCOMPARE(get(m_oauth->resourceUrl(QStringLiteral("/api/direct"))), 401);
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->count(QStringLiteral("127.0.0.1"), m_oauth->resourcePort()),
                              1, 5000);
    QCOMPARE(m_proxy->countContaining(QStringLiteral("/api/through")), 1);
    QCOMPARE(m_proxy->countContaining(QStringLiteral("/api/direct")), 0);
}

// The workspace's proxy, with localhost in no_proxy: the endpoints to 127.0.0.1 and
// their credential's token request go through it; those to localhost, and one whose
// own proxy is "none", do not.
void tst_Proxy::workspaceProxyCarriesRequestsAndTheTokenRequest()
{
    constexpr int kEach = 8;
    QJsonArray endpoints;
    for (int i = 0; i < kEach; ++i) {
        QJsonObject via = endpoint(QStringLiteral("via-%1").arg(i),
                                   m_oauth->resourceUrl(QStringLiteral("/api/via/%1").arg(i)));
        via.insert("credentials", "plm");
        endpoints.append(via);
        QJsonObject bypass = endpoint(QStringLiteral("noproxy-%1").arg(i),
                                      m_oauth->resourceUrl(QStringLiteral("/api/noproxy/%1").arg(i),
                                                           QStringLiteral("localhost")));
        bypass.insert("credentials", "plm");
        endpoints.append(bypass);
        QJsonObject none = endpoint(QStringLiteral("none-%1").arg(i),
                                    m_oauth->resourceUrl(QStringLiteral("/api/none/%1").arg(i)));
        none.insert("credentials", "plm");
        none.insert("proxy", "none");
        endpoints.append(none);
    }
    const QJsonObject workspace{
        {"version", 1},
        {"proxy", QJsonObject{{"url", m_proxy->url()}, {"no_proxy", QJsonArray{"localhost"}}}},
        {"credentials", QJsonArray{credential()}},
        {"endpoints", endpoints}};
    const QString config = write(QStringLiteral("workspace-proxy"), workspace);
    const QString db = m_dir->filePath(QStringLiteral("workspace-proxy.db"));
    const CooldownResult result = run(config, db);
    QVERIFY2(result.ok(), result.tail().constData());

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->countsByState().value(OperationState::Succeeded), qint64(3 * kEach));
    const auto stats = m_oauth->stats();
    QVERIFY(stats);
    QCOMPARE(count(*stats, "resource_ok"), 3 * kEach);

    // Each request of the proxied endpoints passed the proxy once, no other did.
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->countContaining(QStringLiteral("/api/via/")), kEach, 5000);
    QCOMPARE(m_proxy->countContaining(QStringLiteral("/api/noproxy/")), 0);
    QCOMPARE(m_proxy->countContaining(QStringLiteral("/api/none/")), 0);
    QCOMPARE(m_proxy->count(QStringLiteral("localhost")), 0);
    // The token request took the road of the API it serves.
    const int tokenRequests = count(*stats, "token_requests");
    QVERIFY(tokenRequests >= 1);
    QCOMPARE(m_proxy->count(QStringLiteral("127.0.0.1"), m_oauth->tokenPort()), tokenRequests);
}

// No proxy in the workspace, one on an endpoint: only that endpoint's requests pass it.
void tst_Proxy::endpointProxyAlone()
{
    constexpr int kEach = 5;
    QJsonArray endpoints;
    for (int i = 0; i < kEach; ++i) {
        QJsonObject own = endpoint(QStringLiteral("own-%1").arg(i),
                                   m_oauth->resourceUrl(QStringLiteral("/api/own/%1").arg(i)));
        own.insert("credentials", "plm");
        own.insert("proxy", m_proxy->url());
        endpoints.append(own);
        QJsonObject direct =
            endpoint(QStringLiteral("direct-%1").arg(i),
                     m_oauth->resourceUrl(QStringLiteral("/api/direct/%1").arg(i)));
        direct.insert("credentials", "plm");
        endpoints.append(direct);
    }
    const QJsonObject workspace{
        {"version", 1}, {"credentials", QJsonArray{credential()}}, {"endpoints", endpoints}};
    const QString config = write(QStringLiteral("endpoint-proxy"), workspace);
    const QString db = m_dir->filePath(QStringLiteral("endpoint-proxy.db"));
    const CooldownResult result = run(config, db);
    QVERIFY2(result.ok(), result.tail().constData());

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->countsByState().value(OperationState::Succeeded), qint64(2 * kEach));
    const auto stats = m_oauth->stats();
    QVERIFY(stats);
    QCOMPARE(okAt(*stats, QStringLiteral("/api/own/0")), 1);
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->countContaining(QStringLiteral("/api/own/")), kEach, 5000);
    QCOMPARE(m_proxy->countContaining(QStringLiteral("/api/direct/")), 0);
}

// "system": the proxy the environment names (http_proxy, no_proxy), as curl and most
// tools on the machine read them.
void tst_Proxy::systemProxyFollowsTheEnvironment()
{
    constexpr int kEach = 4;
    QJsonArray endpoints;
    for (int i = 0; i < kEach; ++i) {
        QJsonObject via = endpoint(QStringLiteral("system-%1").arg(i),
                                   m_oauth->resourceUrl(QStringLiteral("/api/system/%1").arg(i)));
        via.insert("credentials", "plm");
        endpoints.append(via);
        QJsonObject bypass = endpoint(QStringLiteral("skipped-%1").arg(i),
                                      m_oauth->resourceUrl(QStringLiteral("/api/skipped/%1").arg(i),
                                                           QStringLiteral("localhost")));
        bypass.insert("credentials", "plm");
        endpoints.append(bypass);
    }
    const QJsonObject workspace{{"version", 1},
                                {"proxy", "system"},
                                {"credentials", QJsonArray{credential()}},
                                {"endpoints", endpoints}};
    const QString config = write(QStringLiteral("system-proxy"), workspace);
    const QString db = m_dir->filePath(QStringLiteral("system-proxy.db"));
    QProcessEnvironment env = environment();
    env.insert(QStringLiteral("http_proxy"), m_proxy->url());
    env.insert(QStringLiteral("no_proxy"), QStringLiteral("localhost"));
    const CooldownResult result = run(config, db, env);
    QVERIFY2(result.ok(), result.tail().constData());

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->countsByState().value(OperationState::Succeeded), qint64(2 * kEach));
    QTRY_COMPARE_WITH_TIMEOUT(m_proxy->countContaining(QStringLiteral("/api/system/")), kEach,
                              5000);
    QCOMPARE(m_proxy->countContaining(QStringLiteral("/api/skipped/")), 0);
    const auto stats = m_oauth->stats();
    QVERIFY(stats);
    QCOMPARE(m_proxy->count(QStringLiteral("127.0.0.1"), m_oauth->tokenPort()),
             count(*stats, "token_requests"));
}

// HTTPS through the proxy is a CONNECT tunnel, TLS (and the client certificate) end to
// end inside it: nginx sees the requests, the proxy sees the tunnels.
void tst_Proxy::httpsGoesThroughATunnel()
{
    const QString missing = TlsFixture::missingTools();
    if (!missing.isEmpty())
        QSKIP(qPrintable(missing));
    TlsFixture tls;
    QString error;
    QVERIFY2(tls.start(&error), qPrintable(error));

    constexpr int kEach = 6;
    QJsonArray endpoints;
    for (int i = 0; i < kEach; ++i) {
        QJsonObject e = endpoint(QStringLiteral("tunnel-%1").arg(i),
                                 tls.url(QStringLiteral("/tunnel?op=%1").arg(i)));
        e.insert("tls", "corp");
        endpoints.append(e);
    }
    const QJsonObject workspace{
        {"version", 1},
        {"proxy", m_proxy->url()},
        {"tls", QJsonArray{QJsonObject{{"id", "corp"},
                                       {"ca_file", tls.caFile()},
                                       {"client_certificate", tls.clientCertificate()},
                                       {"client_key", tls.clientKey()}}}},
        {"endpoints", endpoints}};
    const QString config = write(QStringLiteral("tunnel"), workspace);
    const QString db = m_dir->filePath(QStringLiteral("tunnel.db"));
    const CooldownResult result = run(config, db);
    QVERIFY2(result.ok(), result.tail().constData());

    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->countsByState().value(OperationState::Succeeded), qint64(kEach));
    QTRY_COMPARE_WITH_TIMEOUT(tls.logLinesWith(QStringLiteral("/tunnel")).size(), kEach, 5000);
    // Tunnels may carry several requests each; at least one, at most one per request.
    const int tunnels = m_proxy->count(QStringLiteral("127.0.0.1"), tls.port());
    QVERIFY2(tunnels >= 1 && tunnels <= kEach, qPrintable(QString::number(tunnels)));
    QCOMPARE(m_proxy->requests().size(), tunnels);
}

QTEST_GUILESS_MAIN(tst_Proxy)
#include "tst_proxy.moc"
