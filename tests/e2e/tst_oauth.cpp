// SPDX-License-Identifier: Apache-2.0
// `cooldown run` against a real OAuth 2.0 token endpoint and an API that verifies its
// tokens: oauth2-mock-server from npm issues JWTs that live a few seconds, and a
// resource server checks each against the token server's JWKS with jose
// (tests/e2e/oauth-server, installed by scripts/setup). What arrived is counted by the
// servers and read back with the store: the engine fetches a token once per lifetime,
// renews it ahead of expiry, renews once when a token is refused, waits while the
// token endpoint is down and parks its work, with one alert, when the client is refused.

#include "core/store/Store.h"
#include "support/CooldownRun.h"
#include "support/OAuthServer.h"
#include "support/ReadableEnums.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace cooldown;

namespace {

const QString kClientId = QStringLiteral("cooldown");
const QString kClientSecret = QStringLiteral("plmSecretXv8Qz3Lw");
constexpr int kRunTimeoutMs = 180000;

// Counts of the token and resource servers' /stats.
int count(const QJsonObject &stats, const char *name)
{
    return stats.value(QLatin1String(name)).toInt();
}

QList<qint64> times(const QJsonObject &stats, const char *name)
{
    QList<qint64> list;
    const QJsonArray array = stats.value(QLatin1String(name)).toArray();
    for (const QJsonValue &v : array)
        list.append(qint64(v.toDouble()));
    return list;
}

// The figures a failure message shows.
QString describe(const QJsonObject &stats)
{
    QJsonObject shown = stats;
    shown.remove(QStringLiteral("tokens"));
    shown.remove(QStringLiteral("idempotency_keys"));
    shown.remove(QStringLiteral("by_path"));
    shown.remove(QStringLiteral("token_forms"));
    return QString::fromUtf8(QJsonDocument(shown).toJson(QJsonDocument::Compact));
}

// POST /control/exp?mode=ceil|floor: how the server reckons the exp of the tokens it
// issues from now on (see server.js).
bool setExpMode(const OAuthServer &server, const QString &mode)
{
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(QUrl(server.resourceUrl(QStringLiteral("/control/exp?mode=") + mode)));
    request.setTransferTimeout(10000);
    const std::unique_ptr<QNetworkReply> reply(manager.post(request, QByteArray()));
    QEventLoop loop;
    QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
    if (!reply->isFinished())
        loop.exec();
    return reply->error() == QNetworkReply::NoError &&
           reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200;
}

} // namespace

class tst_OAuth : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<OAuthServer> m_server;

    bool startServer(int lifetimeSeconds)
    {
        m_server = std::make_unique<OAuthServer>();
        QString error;
        OAuthServer::Options options;
        options.lifetimeSeconds = lifetimeSeconds;
        options.clientId = kClientId;
        options.clientSecret = kClientSecret;
        if (!m_server->start(options, &error)) {
            qWarning().noquote() << error;
            return false;
        }
        return true;
    }

    static QProcessEnvironment environment()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PLM_CLIENT_SECRET"), kClientSecret);
        // The test's servers are on loopback and must be reached directly.
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                 "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"})
            env.remove(QString::fromLatin1(name));
        return env;
    }

    // A workspace with one OAuth credential and an enqueue-only POST endpoint using it,
    // paced by a policy of `perSecond` requests a second; extra goes into the top level.
    QString writeWorkspace(const QString &name, int perSecond, const QJsonObject &extra = {})
    {
        const QJsonObject credential{{"id", "plm"},
                                     {"type", "oauth2_client_credentials"},
                                     {"token_url", m_server->tokenUrl()},
                                     {"client_id", kClientId},
                                     {"client_secret", "${env:PLM_CLIENT_SECRET}"},
                                     {"scope", "bom.write"},
                                     {"client_auth", "client_secret_basic"}};
        const QJsonObject endpoint{
            {"id", "bom"},
            {"method", "POST"},
            {"url", m_server->resourceUrl(QStringLiteral("/api/boms/${job:n}"))},
            {"headers", QJsonObject{{"Content-Type", "application/json"}}},
            {"body", "{\"n\": \"${job:n}\"}"},
            {"timeout_seconds", 10},
            {"policy", "api"},
            {"credentials", "plm"},
            {"idempotency", QJsonObject{{"header", "Idempotency-Key"}}}};
        QJsonObject workspace{
            {"version", 1},
            {"concurrency", QJsonObject{{"max_in_flight", 8}}},
            {"policies",
             QJsonArray{QJsonObject{
                 {"policy_id", "api"}, {"limit", perSecond}, {"window_seconds", 1}, {"burst", 1}}}},
            {"retry_profiles",
             QJsonObject{{"default", QJsonObject{{"max_attempts", 4},
                                                 {"base_seconds", 0.5},
                                                 {"cap_seconds", 2},
                                                 {"deadline_seconds", 300},
                                                 {"throttle_counts_as_attempt", false}}}}},
            {"credentials", QJsonArray{credential}},
            {"endpoints", QJsonArray{endpoint}}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            workspace.insert(it.key(), it.value());
        const QString path = m_dir->filePath(name + QStringLiteral(".json"));
        if (!writeTextFile(path, QJsonDocument(workspace).toJson()))
            return {};
        return path;
    }

    // Hands in jobs n = 0 … count-1 of endpoint bom; false with the output on failure.
    bool enqueue(const QString &config, const QString &db, int jobs, QByteArray *output)
    {
        QByteArray lines;
        for (int n = 0; n < jobs; ++n)
            lines += QJsonDocument(QJsonObject{{"endpoint", "bom"},
                                               {"vars", QJsonObject{{"n", QString::number(n)}}}})
                         .toJson(QJsonDocument::Compact) +
                     '\n';
        const CooldownResult result = runCooldown(
            {QStringLiteral("enqueue"), QStringLiteral("--config"), config, QStringLiteral("--db"),
             db, QStringLiteral("--jsonl"), QStringLiteral("-")},
            environment(), 60000, {}, lines);
        *output = result.tail();
        return result.ok();
    }

    static std::unique_ptr<Store> openStore(const QString &db, QString *error)
    {
        StoreOptions readOnly;
        readOnly.createIfMissing = false;
        return Store::open(db, error, readOnly);
    }

private slots:
    void initTestCase()
    {
        const QString missing = OAuthServer::missingTools();
        if (!missing.isEmpty())
            QSKIP(qPrintable(missing));
    }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void cleanup()
    {
        m_server.reset();
        m_dir.reset();
    }

    void tokensRenewAcrossLifetimes_data();
    void tokensRenewAcrossLifetimes();
    void refusedTokenIsRenewedOnceAndTheRequestSentAgain();
    void jobsWaitWhileTheTokenEndpointIsDown();
    void refusedClientParksTheWorkWithOneAlert();
};

void tst_OAuth::tokensRenewAcrossLifetimes_data()
{
    QTest::addColumn<QString>("expMode");
    QTest::addColumn<int>("lifetime");
    // exp rounded up: a token renewed at 80 % of expires_in is never sent expired.
    QTest::newRow("exp never before expires_in") << QStringLiteral("ceil") << 3;
    // exp = floor(now) + expires_in, as identity providers issue them: a token lives
    // between 1 and 2 s and the engine renews it at 1.6 s, so one issued in the last
    // 0.6 s of a second is sent expired and refused (401 invalid_token). Each renewal
    // comes 0.6 s further into a second, so at least one of three tokens in a row is.
    QTest::newRow("exp floored, as identity providers do") << QStringLiteral("floor") << 2;
}

// 200 jobs at 20 a second against tokens that live a few seconds: about 10 s, three
// lifetimes and more. No job fails, each is done once, and the engine asks for a token
// about once per renewal period (80 % of a lifetime), not per job; with floored exps,
// once more per token refused on its expiry, at most one refusal per expiry.
void tst_OAuth::tokensRenewAcrossLifetimes()
{
    QFETCH(QString, expMode);
    QFETCH(int, lifetime);
    const bool floored = expMode == QLatin1String("floor");
    constexpr int kJobs = 200;
    QVERIFY2(startServer(lifetime), "the OAuth server did not start");
    QVERIFY(setExpMode(*m_server, expMode));
    const QString config = writeWorkspace(QStringLiteral("renew"), 20);
    QVERIFY(!config.isEmpty());
    const QString db = m_dir->filePath(QStringLiteral("renew.db"));
    QByteArray output;
    QVERIFY2(enqueue(config, db, kJobs, &output), output.constData());

    const CooldownResult run =
        runCooldown({QStringLiteral("run"), QStringLiteral("--config"), config,
                     QStringLiteral("--db"), db, QStringLiteral("--until-idle")},
                    environment(), kRunTimeoutMs);
    QVERIFY2(run.ok(), run.tail().constData());

    const auto stats = m_server->stats();
    QVERIFY(stats);
    const QString figures = describe(*stats);
    qInfo().noquote() << figures;
    QCOMPARE(stats->value(QLatin1String("exp_mode")).toString(), expMode);

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    const auto counts = store->countsByState();
    QCOMPARE(counts.value(OperationState::Failed), qint64(0));
    QCOMPARE(counts.value(OperationState::Parked), qint64(0));
    QCOMPARE(counts.value(OperationState::Succeeded), qint64(kJobs));

    // Each job done at the server once, each with a token.
    QCOMPARE(count(*stats, "resource_ok"), kJobs);
    QCOMPARE(stats->value(QLatin1String("idempotency_keys")).toObject().size(), kJobs);
    QCOMPARE(count(*stats, "duplicate_posts"), 0);
    QCOMPARE(count(*stats, "resource_401_missing"), 0);
    QCOMPARE(count(*stats, "resource_401_revoked"), 0);

    // The run must span several lifetimes, or it proves nothing about renewal.
    const qint64 lifetimeMs = qint64(lifetime) * 1000;
    const qint64 lastMs = qint64(stats->value(QLatin1String("resource_last_ms")).toDouble());
    const qint64 spanMs =
        lastMs - qint64(stats->value(QLatin1String("resource_first_ms")).toDouble());
    QVERIFY2(spanMs >= 3 * lifetimeMs, qPrintable(figures));

    // Refusals: at most one per token that expired during the run. With floored exps
    // the path is taken: the engine dropped the token, renewed it and sent again.
    const int refusals = count(*stats, "resource_401");
    const QList<qint64> expiresAt = times(*stats, "token_exps_ms");
    const int expiries = int(std::count_if(expiresAt.cbegin(), expiresAt.cend(),
                                           [lastMs](qint64 exp) { return exp <= lastMs; }));
    QVERIFY2(refusals <= expiries, qPrintable(figures));
    QCOMPARE(count(*stats, "resource_401_expired"), refusals);
    if (floored)
        QVERIFY2(refusals >= 1, qPrintable(figures));

    // A token per renewal period (80 % of its lifetime, a tenth of slack for "about"),
    // the first one, and one per token refused on its expiry.
    const int issued = count(*stats, "tokens_issued");
    const int renewalBound =
        1 + int(std::ceil(double(spanMs) / (0.72 * double(lifetimeMs)))) + refusals;
    QVERIFY2(issued >= 1 + int(spanMs / lifetimeMs), qPrintable(figures));
    QVERIFY2(issued <= renewalBound, qPrintable(figures));
    QCOMPARE(count(*stats, "token_requests"), issued);
    QCOMPARE(expiresAt.size(), issued);
    // Single flight: never two token requests at once, nor one soon after another. A
    // token serves at least half its lifetime; floored, it may end a second early.
    const qint64 shortestServiceMs =
        floored ? std::min(lifetimeMs / 2, lifetimeMs - 1000 - 50) : lifetimeMs / 2;
    const QList<qint64> issuedAt = times(*stats, "token_times_ms");
    for (int i = 1; i < issuedAt.size(); ++i)
        QVERIFY2(issuedAt.at(i) - issuedAt.at(i - 1) >= shortestServiceMs, qPrintable(figures));

    // The token requests were the client credentials grant, with the scope, the client
    // authenticated with HTTP Basic.
    const QJsonObject byAuth = stats->value(QLatin1String("token_requests_by_auth")).toObject();
    QCOMPARE(byAuth.value(QLatin1String("client_secret_basic")).toInt(), issued);
    const QJsonArray forms = stats->value(QLatin1String("token_forms")).toArray();
    for (const QJsonValue &form : forms) {
        QCOMPARE(form[QLatin1String("grant_type")].toString(),
                 QStringLiteral("client_credentials"));
        QCOMPARE(form[QLatin1String("scope")].toString(), QStringLiteral("bom.write"));
    }
}

// A token the API stops accepting mid-run (revoked: a 401 with error="invalid_token"):
// the engine drops it, renews once, and sends the refused requests again with the new
// one. No job fails, none is done twice, and there are two tokens in all.
void tst_OAuth::refusedTokenIsRenewedOnceAndTheRequestSentAgain()
{
    constexpr int kJobs = 60;
    QVERIFY2(startServer(3600), "the OAuth server did not start");
    const QString config = writeWorkspace(QStringLiteral("revoke"), 20);
    QVERIFY(!config.isEmpty());
    const QString db = m_dir->filePath(QStringLiteral("revoke.db"));
    QByteArray output;
    QVERIFY2(enqueue(config, db, kJobs, &output), output.constData());

    bool revoked = false;
    int okAtRevoke = -1;
    const CooldownResult run =
        runCooldown({QStringLiteral("run"), QStringLiteral("--config"), config,
                     QStringLiteral("--db"), db, QStringLiteral("--until-idle")},
                    environment(), kRunTimeoutMs, [&] {
                        if (revoked)
                            return;
                        const auto now = m_server->stats();
                        if (now && count(*now, "resource_ok") >= 10) {
                            revoked = m_server->revokeTokens();
                            okAtRevoke = count(*now, "resource_ok");
                        }
                    });
    QVERIFY2(run.ok(), run.tail().constData());
    QVERIFY2(revoked, "the run ended before ten jobs were done: nothing was revoked");

    const auto stats = m_server->stats();
    QVERIFY(stats);
    const QString figures = describe(*stats);
    qInfo().noquote() << figures << "revoked after" << okAtRevoke;
    QVERIFY2(okAtRevoke < kJobs, "every job was done before the revocation");

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    const auto counts = store->countsByState();
    QCOMPARE(counts.value(OperationState::Failed), qint64(0));
    QCOMPARE(counts.value(OperationState::Parked), qint64(0));
    QCOMPARE(counts.value(OperationState::Succeeded), qint64(kJobs));

    QCOMPARE(count(*stats, "resource_ok"), kJobs);
    QCOMPARE(count(*stats, "duplicate_posts"), 0);
    QCOMPARE(count(*stats, "resource_401_missing"), 0);
    // The revoked token was refused at least once (or the test proved nothing), at
    // most once per request in flight; one renewal served them all.
    QVERIFY2(count(*stats, "resource_401_revoked") >= 1, qPrintable(figures));
    QVERIFY2(count(*stats, "resource_401_revoked") <= 8, qPrintable(figures));
    QCOMPARE(count(*stats, "resource_401_expired"), 0);
    QCOMPARE(count(*stats, "tokens_issued"), 2);
    QCOMPARE(count(*stats, "token_requests"), 2);
}

// The token endpoint answers 503 with Retry-After: 2 from before the run until the test
// brings it back, 5 s after it refused the engine's first token request: the outage
// starts with the engine's asking, however slowly the run starts. The jobs wait (none
// fails), the token requests keep to the server's wait and are not one per job, and
// once it answers, the first request to the API carries a token that verifies.
void tst_OAuth::jobsWaitWhileTheTokenEndpointIsDown()
{
    constexpr int kJobs = 20;
    constexpr int kDownAfterFirstRefusalMs = 5000;
    constexpr int kRetryAfter = 2;
    // Bounds: the first token request must come within this, and the outage ends by
    // itself after the other (should the test not end it), failing the case either way.
    constexpr int kFirstRequestWithinMs = 60000;
    constexpr int kOutageCapSeconds = 150;
    QVERIFY2(startServer(3600), "the OAuth server did not start");
    const QString config = writeWorkspace(QStringLiteral("down"), 20);
    QVERIFY(!config.isEmpty());
    const QString db = m_dir->filePath(QStringLiteral("down.db"));
    QByteArray output;
    QVERIFY2(enqueue(config, db, kJobs, &output), output.constData());

    QVERIFY(m_server->setTokenMode(QStringLiteral("unavailable"), kOutageCapSeconds, kRetryAfter));

    QElapsedTimer sinceStart;
    sinceStart.start();
    QElapsedTimer sinceFirstRefusal;
    bool restored = false;
    bool restoreFailed = false;
    qint64 upAtMs = 0; // wall clock, just before the endpoint was brought back
    auto restore = [&] {
        upAtMs = QDateTime::currentMSecsSinceEpoch();
        restored = m_server->setTokenMode(QStringLiteral("normal"));
        restoreFailed = !restored;
    };
    const CooldownResult run =
        runCooldown({QStringLiteral("run"), QStringLiteral("--config"), config,
                     QStringLiteral("--db"), db, QStringLiteral("--until-idle")},
                    environment(), kRunTimeoutMs, [&] {
                        if (restored || restoreFailed)
                            return;
                        if (!sinceFirstRefusal.isValid()) {
                            const auto now = m_server->stats();
                            if (now && count(*now, "token_refused_unavailable") >= 1)
                                sinceFirstRefusal.start();
                            else if (sinceStart.elapsed() >= kFirstRequestWithinMs)
                                restore(); // so that the run ends; the checks below say why
                            return;
                        }
                        if (sinceFirstRefusal.elapsed() >= kDownAfterFirstRefusalMs)
                            restore();
                    });
    QVERIFY2(!restoreFailed, "the token endpoint could not be brought back");
    QVERIFY2(sinceFirstRefusal.isValid(),
             "no token request was refused: the engine did not ask within a minute");
    QVERIFY2(restored, "the run ended before the token endpoint was brought back");
    QVERIFY2(run.ok(), run.tail().constData());

    const auto stats = m_server->stats();
    QVERIFY(stats);
    const QString figures = describe(*stats);
    qInfo().noquote() << figures;

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    const auto counts = store->countsByState();
    QCOMPARE(counts.value(OperationState::Failed), qint64(0));
    QCOMPARE(counts.value(OperationState::Parked), qint64(0));
    QCOMPARE(counts.value(OperationState::Succeeded), qint64(kJobs));
    QCOMPARE(count(*stats, "resource_ok"), kJobs);
    QCOMPARE(count(*stats, "duplicate_posts"), 0);

    // The token endpoint was asked while it was down, not once per job, and never
    // before the Retry-After it gave had passed.
    const int refused = count(*stats, "token_refused_unavailable");
    const QList<qint64> asked = times(*stats, "token_request_times_ms");
    QVERIFY2(refused >= 1 && asked.size() > refused, qPrintable(figures));
    QVERIFY2(asked.at(refused) >= upAtMs, qPrintable(figures));
    const qint64 downMs = upAtMs - asked.first();
    QVERIFY2(downMs >= kDownAfterFirstRefusalMs, qPrintable(figures));
    QVERIFY2(refused <= downMs / (kRetryAfter * 1000) + 2, qPrintable(figures));
    for (int i = 1; i < asked.size() && i <= refused; ++i)
        QVERIFY2(asked.at(i) - asked.at(i - 1) >= kRetryAfter * 1000 - 50, qPrintable(figures));

    // Nothing reached the API before there was a token, and the first request after the
    // token endpoint came back carried one that verified.
    QCOMPARE(count(*stats, "resource_401_missing"), 0);
    QCOMPARE(count(*stats, "resource_401"), 0);
    const QList<qint64> issuedAt = times(*stats, "token_times_ms");
    QVERIFY2(!issuedAt.isEmpty(), qPrintable(figures));
    QVERIFY2(issuedAt.first() >= upAtMs, qPrintable(figures));
    QVERIFY2(stats->value(QLatin1String("resource_first_ms")).toDouble() >= issuedAt.first(),
             qPrintable(figures));
    QCOMPARE(count(*stats, "tokens_issued"), 1);
}

// The token endpoint refuses the client (400 invalid_client): the jobs are parked with
// a reason that names the credential, nothing reaches the API, the token endpoint is
// not asked once per job, and one alert goes out for all of them.
void tst_OAuth::refusedClientParksTheWorkWithOneAlert()
{
    constexpr int kJobs = 20;
    QVERIFY2(startServer(3600), "the OAuth server did not start");
    const QJsonObject alerts{
        {"alerts",
         QJsonArray{QJsonObject{{"id", "ops"},
                                {"url", m_server->resourceUrl(QStringLiteral("/hooks/ops"))},
                                {"events", QJsonArray{"operation_failed", "credentials_refused"}},
                                {"min_interval_seconds", 300}}}}};
    const QString config = writeWorkspace(QStringLiteral("refused"), 20, alerts);
    QVERIFY(!config.isEmpty());
    const QString db = m_dir->filePath(QStringLiteral("refused.db"));
    QByteArray output;
    QVERIFY2(enqueue(config, db, kJobs, &output), output.constData());
    QVERIFY(m_server->setTokenMode(QStringLiteral("invalid_client")));

    const CooldownResult run =
        runCooldown({QStringLiteral("run"), QStringLiteral("--config"), config,
                     QStringLiteral("--db"), db, QStringLiteral("--until-idle")},
                    environment(), kRunTimeoutMs);
    // Parked work is work for an operator: the run may end either way, but it ends.
    QVERIFY2(run.finished && (run.exitCode == 0 || run.exitCode == 1), run.tail().constData());

    const auto stats = m_server->stats();
    QVERIFY(stats);
    const QString figures = describe(*stats);
    qInfo().noquote() << figures;

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    OperationFilter jobsFilter;
    jobsFilter.endpointId = QStringLiteral("bom");
    const QList<OperationRecord> jobs = store->operations(jobsFilter);
    QCOMPARE(jobs.size(), kJobs);
    for (const OperationRecord &job : jobs) {
        QCOMPARE(job.state, OperationState::Parked);
        QVERIFY2(job.finalReason.contains(QLatin1String("credential"), Qt::CaseInsensitive) ||
                     job.finalReason.contains(QLatin1String("invalid_client")),
                 qPrintable(job.finalReason));
    }
    QCOMPARE(count(*stats, "resource_requests"), 0);
    QVERIFY2(count(*stats, "token_refused_invalid_client") >= 1, qPrintable(figures));
    QVERIFY2(count(*stats, "token_requests") <= 2, qPrintable(figures));

    // One alert for all the jobs, delivered once.
    OperationFilter alertFilter;
    alertFilter.endpointId = QStringLiteral("alert:ops");
    const QList<OperationRecord> alertOperations = store->operations(alertFilter);
    QCOMPARE(alertOperations.size(), 1);
    QCOMPARE(alertOperations.first().state, OperationState::Succeeded);
    const QJsonArray hooks = stats->value(QLatin1String("hooks")).toArray();
    QCOMPARE(hooks.size(), 1);
    const QJsonObject message =
        QJsonDocument::fromJson(hooks.first()[QLatin1String("body")].toString().toUtf8()).object();
    QCOMPARE(message.value(QLatin1String("event")).toString(),
             QStringLiteral("credentials_refused"));
    QVERIFY(!hooks.first()[QLatin1String("body")].toString().contains(kClientSecret));
}

QTEST_GUILESS_MAIN(tst_OAuth)
#include "tst_oauth.moc"
