// SPDX-License-Identifier: Apache-2.0
// Secrets never reach the database, its WAL, an export or the log: real traffic with
// credentials in every place a client puts them (Authorization, Cookie, X-API-Key, an
// api_key query parameter, a redirect target) and in what a server sends back
// (Set-Cookie, a token header), then a byte search of everything that was written.

#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/CsvExporter.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/CooldownRun.h"
#include "support/ForwardProxy.h"
#include "support/OAuthServer.h"
#include "support/ScriptedHttpServer.h"
#include "support/TlsFixture.h"

#include <algorithm>

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QMutex>
#include <QProcess>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {
const qint64 kStart = QDateTime(QDate(2026, 11, 29), QTime(12, 0), Qt::UTC).toMSecsSinceEpoch();

// One distinct value per place, so that a hit says which path leaked. Plain letters
// and digits: a percent-encoded or quoted copy is byte-identical.
const QByteArray kBearer = "bearerZq7xK2pW9mVt";
const QByteArray kCookie = "cookieHn4rB8sLq1Yd";
const QByteArray kApiKey = "apikeyTc6gM3vJx0Ue";
const QByteArray kQueryKey = "queryWb5nP2kRz8Fa";
const QByteArray kRedirectToken = "redirectQp2sV7cNf4Lh";
const QByteArray kSetCookie = "setcookieLm9dQ4hXs7Ck";
const QByteArray kResponseToken = "resptokenGv3yN6tBw1Ej";

const QList<QPair<const char *, QByteArray>> kSecrets = {
    {"Authorization", kBearer},
    {"Cookie", kCookie},
    {"X-API-Key", kApiKey},
    {"api_key", kQueryKey},
    {"redirect token", kRedirectToken},
    {"Set-Cookie", kSetCookie},
    {"X-Refresh-Token", kResponseToken},
};

QMutex g_logMutex;
QByteArray g_log;
QtMessageHandler g_previousHandler = nullptr;

void captureMessage(QtMsgType type, const QMessageLogContext &context, const QString &text)
{
    {
        QMutexLocker lock(&g_logMutex);
        g_log += QByteArray(context.category ? context.category : "") + ' ' + text.toUtf8() + '\n';
    }
    // QtTest's own handler still sees warnings, so a failure stays readable.
    if (type != QtDebugMsg && type != QtInfoMsg && g_previousHandler)
        g_previousHandler(type, context, text);
}

// Names of what holds a secret, as "file: secret place"; empty when nothing leaked.
QStringList leaksIn(const QString &what, const QByteArray &bytes)
{
    QStringList found;
    for (const auto &secret : kSecrets) {
        if (bytes.contains(secret.second))
            found.append(QStringLiteral("%1: %2").arg(what, QLatin1String(secret.first)));
    }
    return found;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QHash<QString, QString> secretEnvironment()
{
    return {{"BEARER", QString::fromLatin1(kBearer)},
            {"COOKIE", QString::fromLatin1(kCookie)},
            {"API_KEY", QString::fromLatin1(kApiKey)},
            {"QUERY_KEY", QString::fromLatin1(kQueryKey)}};
}

// A port where nothing listens: bound once, then released.
quint16 closedPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    const quint16 port = probe.serverPort();
    probe.close();
    return port;
}
} // namespace

class tst_Secrets : public QObject
{
    Q_OBJECT

private:
    // Every endpoint carries every client-side secret; ${env:...} resolves them.
    static QByteArray config(const ScriptedHttpServer &server, quint16 refusedPort)
    {
        const QJsonObject headers{{"Authorization", "Bearer ${env:BEARER}"},
                                  {"Cookie", "session=${env:COOKIE}; theme=dark"},
                                  {"X-API-Key", "${env:API_KEY}"}};
        auto endpoint = [&headers](const QString &id, const QString &url) {
            return QJsonObject{
                {"id", id}, {"url", url + "api_key=${env:QUERY_KEY}"}, {"headers", headers}};
        };
        QJsonObject write = endpoint("write", server.url("/write?"));
        write.insert("method", "POST");
        write.insert("body", "{\"n\":1}");
        write.insert("idempotency", QJsonObject{{"header", "Idempotency-Key"}});
        const QJsonObject profile{
            {"max_attempts", 3}, {"base_seconds", 1}, {"cap_seconds", 2}, {"spread_seconds", 0}};
        const QJsonObject workspace{
            {"version", 1},
            {"retry_profiles", QJsonObject{{"default", profile}}},
            {"endpoints",
             QJsonArray{
                 endpoint("read", server.url("/read?page=1&")), write,
                 endpoint("hop", server.url("/hop?")),
                 endpoint("refused", QStringLiteral("http://127.0.0.1:%1/r?").arg(refusedPort))}}};
        return QJsonDocument(workspace).toJson();
    }

    static void script(ScriptedHttpServer &server)
    {
        const QByteArray cookie = "session=" + kSetCookie + "; HttpOnly; Path=/";
        const QByteArray landing =
            server.url(QStringLiteral("/landing?token=")).toUtf8() + kRedirectToken;
        server.script("/read", {{429, {{"Retry-After", "1"}, {"Set-Cookie", cookie}}, {}},
                                {500, {{"X-Refresh-Token", kResponseToken}}, "oops"},
                                {200, {{"Set-Cookie", cookie}}, "ok"}});
        server.script("/write", {{503, {{"Retry-After", "1"}, {"Set-Cookie", cookie}}, {}},
                                 {201, {{"Set-Cookie", cookie}}, "created"}});
        server.script("/hop", {{302, {{"Location", landing}}, {}}});
        server.script("/landing", {{404, {{"Set-Cookie", cookie}}, "gone"}});
    }

private slots:
    void initTestCase();
    void cleanupTestCase();
    void engineStoreExportAndLog();
    void commandLine();
    void credentialsCommandLine();
};

void tst_Secrets::initTestCase()
{
    QLoggingCategory::setFilterRules(QStringLiteral("cooldown.*=true"));
    g_previousHandler = qInstallMessageHandler(captureMessage);
}

void tst_Secrets::cleanupTestCase()
{
    qInstallMessageHandler(g_previousHandler);
    QLoggingCategory::setFilterRules(QString());
}

void tst_Secrets::engineStoreExportAndLog()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString dbPath = dir.filePath(QStringLiteral("ops.db"));
    ScriptedHttpServer server;
    QVERIFY(server.isListening());
    script(server);

    QString error;
    auto workspace = WorkspaceConfig::parse(config(server, closedPort()), "secrets.json", &error,
                                            {}, secretEnvironment());
    QVERIFY2(workspace, qPrintable(error));
    ManualClock clock(kStart);
    SeededRandom random(11);
    ManualWakeTimer timer(clock);
    std::unique_ptr<Store> store = Store::open(dbPath, &error);
    QVERIFY2(store, qPrintable(error));
    Transport transport(clock);
    Scheduler scheduler(std::move(*workspace), *store, transport, clock, random, timer);
    QVERIFY2(scheduler.start(&error), qPrintable(error));

    // Real loopback I/O in real time, the schedule on the manual clock; bounded both ways.
    QElapsedTimer elapsed;
    elapsed.start();
    while (!(scheduler.inFlight() == 0 && scheduler.isIdle()) && elapsed.elapsed() < 20000) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (scheduler.inFlight() == 0) {
            clock.advance(250);
            timer.fireIfDue();
        }
    }
    QVERIFY2(scheduler.isIdle(), "the operations did not finish");

    // The secrets really went out, so finding none afterwards means something.
    bool sawEverySecret = false;
    for (const ReceivedRequest &r : std::as_const(server.received)) {
        if (r.header("Authorization") == "Bearer " + kBearer &&
            r.header("Cookie").contains(kCookie) && r.header("X-API-Key") == kApiKey &&
            r.path.contains(kQueryKey))
            sawEverySecret = true;
    }
    QVERIFY(sawEverySecret);
    QVERIFY(std::any_of(server.received.cbegin(), server.received.cend(),
                        [](const ReceivedRequest &r) { return r.path.contains(kRedirectToken); }));
    const QList<AttemptRecord> attempts = store->attempts({});
    QVERIFY(attempts.size() >= 8);
    QVERIFY(std::any_of(attempts.cbegin(), attempts.cend(),
                        [](const AttemptRecord &a) { return a.status == 0; })); // refused

    // The export reads through a store of its own, as `cooldown export` does.
    const QString csvPath = dir.filePath(QStringLiteral("attempts.csv"));
    {
        StoreOptions readOnly;
        readOnly.createIfMissing = false;
        std::unique_ptr<Store> exportStore = Store::open(dbPath, &error, readOnly);
        QVERIFY2(exportStore, qPrintable(error));
        CsvExporter exporter;
        QSignalSpy finished(&exporter, &CsvExporter::finished);
        exporter.start(exportStore.get(), {}, csvPath);
        QVERIFY(finished.wait(20000));
        QCOMPARE(finished.first().at(0).toInt(), int(CsvExporter::NoError));
    }
    const QByteArray csv = readAll(csvPath);
    QCOMPARE(csv.count("\r\n"), attempts.size() + 1);

    // Read while the writer is still open: the WAL then holds the latest pages.
    QStringList leaks;
    QByteArray stored;
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        const QByteArray bytes = readAll(dbPath + suffix);
        stored += bytes;
        leaks += leaksIn(QStringLiteral("ops.db") + suffix, bytes);
    }
    // Headers are stored (names kept, values redacted): the search looked at them.
    QVERIFY(stored.contains("X-API-Key"));
    QVERIFY(stored.contains("Set-Cookie"));
    leaks += leaksIn(QStringLiteral("attempts.csv"), csv);
    {
        QMutexLocker lock(&g_logMutex);
        QVERIFY2(g_log.contains("cooldown."), "no log output was captured");
        leaks += leaksIn(QStringLiteral("log"), g_log);
    }

    // After a clean close the WAL is checkpointed into the main file.
    scheduler.stop();
    store.reset();
    leaks += leaksIn(QStringLiteral("ops.db after close"), readAll(dbPath));
    QVERIFY2(leaks.isEmpty(), qPrintable(leaks.join(QStringLiteral(", "))));
}

void tst_Secrets::commandLine()
{
    const QString binary = QStringLiteral(COOLDOWN_BINARY);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ScriptedHttpServer server;
    QVERIFY(server.isListening());
    script(server);
    const QString configPath = dir.filePath(QStringLiteral("workspace.json"));
    {
        QFile file(configPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(config(server, closedPort()));
    }
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    const auto secrets = secretEnvironment();
    for (auto it = secrets.cbegin(); it != secrets.cend(); ++it)
        environment.insert(it.key(), it.value());
    environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("cooldown.*=true"));
    const QString dbPath = dir.filePath(QStringLiteral("ops.db"));

    // The server lives in this process: keep its event loop turning while the child runs.
    auto runToEnd = [&environment, &binary](const QStringList &arguments, QByteArray *output) {
        QProcess process;
        process.setProcessEnvironment(environment);
        process.start(binary, arguments);
        if (!process.waitForStarted(10000))
            return -1;
        QElapsedTimer elapsed;
        elapsed.start();
        while (process.state() != QProcess::NotRunning && elapsed.elapsed() < 60000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
            return -1;
        }
        *output = process.readAllStandardOutput() + process.readAllStandardError();
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    };

    QByteArray runOutput;
    const int runCode = runToEnd({QStringLiteral("run"), QStringLiteral("--config"), configPath,
                                  QStringLiteral("--db"), dbPath, QStringLiteral("--until-idle")},
                                 &runOutput);
    QVERIFY2(runCode == 0 || runCode == 1, runOutput.constData());
    QVERIFY(server.received.size() >= 6);
    QVERIFY2(runOutput.contains("cooldown."),
             "the run logged nothing: is QT_LOGGING_RULES honoured?");

    const QString csvPath = dir.filePath(QStringLiteral("attempts.csv"));
    QByteArray exportOutput;
    QCOMPARE(runToEnd({QStringLiteral("export"), QStringLiteral("--db"), dbPath,
                       QStringLiteral("--out"), csvPath},
                      &exportOutput),
             0);
    const QByteArray csv = readAll(csvPath);
    QVERIFY(csv.count("\r\n") >= 7);

    QStringList leaks = leaksIn(QStringLiteral("cooldown run output"), runOutput);
    leaks += leaksIn(QStringLiteral("cooldown export output"), exportOutput);
    leaks += leaksIn(QStringLiteral("exported CSV"), csv);
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")})
        leaks += leaksIn(QStringLiteral("ops.db") + suffix, readAll(dbPath + suffix));
    QVERIFY2(leaks.isEmpty(), qPrintable(leaks.join(QStringLiteral(", "))));
}

// The secrets of the workspace's credentials and what they bring: an OAuth client
// secret (sent as HTTP Basic and in a form), every access token the token endpoint
// issued (several: they live 2 s), a static bearer token, a header credential under a
// name that says nothing of secrets, a proxy's password, a PKCS#12 passphrase and an
// encrypted PEM key's passphrase. Real servers: the OAuth servers of
// tests/e2e/oauth-server, an mTLS nginx and a tinyproxy that asks for a password. None
// of them may be in the database, its WAL, the run's log, the CSV or the audit export.
void tst_Secrets::credentialsCommandLine()
{
    QString missing = OAuthServer::missingTools();
    if (missing.isEmpty())
        missing = TlsFixture::missingTools();
    if (missing.isEmpty())
        missing = ForwardProxy::missingTools();
    if (!missing.isEmpty())
        QSKIP(qPrintable(missing));
    const QByteArray clientSecret = "clientsecretJw4Rk8Tn2Vq";
    const QByteArray staticToken = "statictokenPz6Hd3Wm9Ls";
    const QByteArray customerCode = "custcodeRb7Nx2Kw5Tq";
    const QByteArray proxyUser = "cooldown";
    const QByteArray proxyPassword = "proxypassHs3Lm8Vc1Zd";
    const QByteArray keyPassphrase = "keypassFq9Tg4Xn6Wb";
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    OAuthServer oauth;
    OAuthServer::Options options;
    options.lifetimeSeconds = 2;
    options.clientId = QStringLiteral("cooldown");
    options.clientSecret = QString::fromLatin1(clientSecret);
    QString error;
    QVERIFY2(oauth.start(options, &error), qPrintable(error));
    TlsFixture tls;
    QVERIFY2(tls.start(&error), qPrintable(error));
    ForwardProxy proxy; // asking for a password
    QVERIFY2(proxy.start(&error, proxyUser, proxyPassword), qPrintable(error));
    // The client key encrypted (PKCS#8, AES-256), its passphrase read by openssl from
    // the environment.
    const QString encryptedKey = dir.filePath(QStringLiteral("client-encrypted.key"));
    {
        QProcess openssl;
        QProcessEnvironment opensslEnvironment = QProcessEnvironment::systemEnvironment();
        opensslEnvironment.insert(QStringLiteral("KEY_PASS"), QString::fromLatin1(keyPassphrase));
        openssl.setProcessEnvironment(opensslEnvironment);
        openssl.setProcessChannelMode(QProcess::MergedChannels);
        openssl.start(TlsFixture::opensslBinary(),
                      {QStringLiteral("pkey"), QStringLiteral("-in"), tls.clientKey(),
                       QStringLiteral("-aes256"), QStringLiteral("-passout"),
                       QStringLiteral("env:KEY_PASS"), QStringLiteral("-out"), encryptedKey});
        QVERIFY(openssl.waitForFinished(60000));
        QVERIFY2(openssl.exitStatus() == QProcess::NormalExit && openssl.exitCode() == 0,
                 openssl.readAll().constData());
        QVERIFY(readTextFile(encryptedKey).contains("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
    }

    auto oauthCredential = [&oauth](const QString &id, const QString &clientAuth) {
        return QJsonObject{{"id", id},
                           {"type", "oauth2_client_credentials"},
                           {"token_url", oauth.tokenUrl()},
                           {"client_id", "cooldown"},
                           {"client_secret", "${env:PLM_CLIENT_SECRET}"},
                           {"scope", "bom.write"},
                           {"client_auth", clientAuth}};
    };
    QJsonArray endpoints;
    // 30 reads paced at 6 a second: five seconds, several tokens.
    for (int i = 0; i < 30; ++i)
        endpoints.append(
            QJsonObject{{"id", QStringLiteral("read-%1").arg(i)},
                        {"url", oauth.resourceUrl(QStringLiteral("/api/read/%1").arg(i))},
                        {"policy", "api"},
                        {"credentials", "plm"}});
    endpoints.append(QJsonObject{{"id", "write"},
                                 {"method", "POST"},
                                 {"url", oauth.resourceUrl(QStringLiteral("/api/write"))},
                                 {"body", "{}"},
                                 {"credentials", "plm-post"},
                                 {"idempotency", QJsonObject{{"header", "Idempotency-Key"}}}});
    endpoints.append(QJsonObject{{"id", "static"},
                                 {"method", "POST"},
                                 {"url", oauth.resourceUrl(QStringLiteral("/hooks/static"))},
                                 {"body", "{}"},
                                 {"credentials", "static"},
                                 {"idempotency", QJsonObject{{"header", "Idempotency-Key"}}}});
    endpoints.append(QJsonObject{
        {"id", "mtls"}, {"url", tls.url(QStringLiteral("/api/mtls"))}, {"tls", "corp-p12"}});
    endpoints.append(QJsonObject{{"id", "mtls-pem"},
                                 {"url", tls.url(QStringLiteral("/api/mtls-pem"))},
                                 {"tls", "corp-pem"}});
    endpoints.append(QJsonObject{{"id", "customer"},
                                 {"method", "POST"},
                                 {"url", oauth.resourceUrl(QStringLiteral("/hooks/customer"))},
                                 {"body", "{}"},
                                 {"credentials", "customer"},
                                 {"idempotency", QJsonObject{{"header", "Idempotency-Key"}}}});
    endpoints.append(
        QJsonObject{{"id", "proxied"},
                    {"method", "POST"},
                    {"url", oauth.resourceUrl(QStringLiteral("/hooks/proxied"))},
                    {"body", "{}"},
                    {"proxy", QStringLiteral("http://%1:${env:PROXY_PASS}@127.0.0.1:%2")
                                  .arg(QString::fromLatin1(proxyUser))
                                  .arg(proxy.port())},
                    {"idempotency", QJsonObject{{"header", "Idempotency-Key"}}}});
    const QJsonObject workspace{
        {"version", 1},
        {"policies", QJsonArray{QJsonObject{
                         {"policy_id", "api"}, {"limit", 6}, {"window_seconds", 1}, {"burst", 1}}}},
        {"credentials",
         QJsonArray{
             oauthCredential("plm", "client_secret_basic"),
             oauthCredential("plm-post", "client_secret_post"),
             QJsonObject{{"id", "static"}, {"type", "bearer"}, {"token", "${env:STATIC_TOKEN}"}},
             QJsonObject{{"id", "customer"},
                         {"type", "header"},
                         {"name", "X-Customer-Code"},
                         {"value", "${env:CUSTOMER_CODE}"}}}},
        {"tls", QJsonArray{QJsonObject{{"id", "corp-p12"},
                                       {"ca_file", tls.caFile()},
                                       {"client_pkcs12", tls.clientPkcs12()},
                                       {"pkcs12_passphrase", "${env:P12_PASS}"}},
                           QJsonObject{{"id", "corp-pem"},
                                       {"ca_file", tls.caFile()},
                                       {"client_certificate", tls.clientCertificate()},
                                       {"client_key", encryptedKey},
                                       {"key_passphrase", "${env:KEY_PASS}"}}}},
        {"endpoints", endpoints}};
    const QString configPath = dir.filePath(QStringLiteral("credentials.json"));
    QVERIFY(writeTextFile(configPath, QJsonDocument(workspace).toJson()));

    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("PLM_CLIENT_SECRET"), QString::fromLatin1(clientSecret));
    environment.insert(QStringLiteral("STATIC_TOKEN"), QString::fromLatin1(staticToken));
    environment.insert(QStringLiteral("P12_PASS"),
                       QString::fromLatin1(TlsFixture::pkcs12Passphrase()));
    environment.insert(QStringLiteral("CUSTOMER_CODE"), QString::fromLatin1(customerCode));
    environment.insert(QStringLiteral("PROXY_PASS"), QString::fromLatin1(proxyPassword));
    environment.insert(QStringLiteral("KEY_PASS"), QString::fromLatin1(keyPassphrase));
    environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("cooldown.*=true"));
    for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy",
                             "ALL_PROXY", "no_proxy", "NO_PROXY"})
        environment.remove(QString::fromLatin1(name));
    const QString dbPath = dir.filePath(QStringLiteral("ops.db"));

    const CooldownResult run =
        runCooldown({QStringLiteral("run"), QStringLiteral("--config"), configPath,
                     QStringLiteral("--db"), dbPath, QStringLiteral("--until-idle")},
                    environment, 120000);
    QVERIFY2(run.ok(), run.tail().constData());
    QVERIFY2(run.out.contains("cooldown.") || run.err.contains("cooldown."),
             "the run logged nothing: is QT_LOGGING_RULES honoured?");
    const QString csvPath = dir.filePath(QStringLiteral("attempts.csv"));
    const CooldownResult exported = runCooldown({QStringLiteral("export"), QStringLiteral("--db"),
                                                 dbPath, QStringLiteral("--out"), csvPath},
                                                environment, 60000);
    QVERIFY2(exported.ok(), exported.tail().constData());
    const QString auditPath = dir.filePath(QStringLiteral("audit.csv"));
    const CooldownResult audit =
        runCooldown({QStringLiteral("export"), QStringLiteral("--db"), dbPath,
                     QStringLiteral("--audit"), QStringLiteral("--out"), auditPath},
                    environment, 60000);
    QVERIFY2(audit.ok(), audit.tail().constData());

    // Every secret really went out, so that finding none afterwards means something.
    const auto stats = oauth.stats();
    QVERIFY(stats);
    const QJsonObject byAuth = stats->value(QLatin1String("token_requests_by_auth")).toObject();
    QVERIFY(byAuth.value(QLatin1String("client_secret_basic")).toInt() >= 1);
    QVERIFY(byAuth.value(QLatin1String("client_secret_post")).toInt() >= 1);
    QCOMPARE(stats->value(QLatin1String("token_refused_invalid_client")).toInt(), 0);
    QCOMPARE(stats->value(QLatin1String("resource_ok")).toInt(), 31);
    QHash<QString, QJsonObject> hookAt;
    const QJsonArray hooks = stats->value(QLatin1String("hooks")).toArray();
    for (const QJsonValue &hook : hooks)
        hookAt.insert(hook[QLatin1String("path")].toString(), hook.toObject());
    QCOMPARE(hooks.size(), 3);
    QCOMPARE(hookAt.value(QStringLiteral("/hooks/static"))
                 .value(QLatin1String("authorization"))
                 .toString()
                 .toLatin1(),
             "Bearer " + staticToken);
    QCOMPARE(hookAt.value(QStringLiteral("/hooks/customer"))
                 .value(QLatin1String("headers"))[QLatin1String("x-customer-code")]
                 .toString()
                 .toLatin1(),
             customerCode);
    // tinyproxy forwards only a request that gave the password: the one that came
    // through it to the server had.
    QVERIFY(hookAt.contains(QStringLiteral("/hooks/proxied")));
    const QByteArray proxyLog = proxy.log();
    QVERIFY2(
        proxyLog.contains("POST " + oauth.resourceUrl(QStringLiteral("/hooks/proxied")).toLatin1()),
        proxyLog.right(3000).constData());
    QVERIFY2(proxyLog.contains("Established connection"), proxyLog.right(3000).constData());
    // The client certificate was presented, with the PKCS#12 file and with the PEM key.
    auto verifiedAt = [&tls](const QString &path) {
        QStringList verify;
        const QList<TlsFixture::LogLine> lines = tls.logLines();
        for (const TlsFixture::LogLine &line : lines) {
            if (line.uri == path)
                verify.append(line.clientVerify);
        }
        return verify;
    };
    QTRY_COMPARE_WITH_TIMEOUT(verifiedAt(QStringLiteral("/api/mtls")),
                              QStringList{QStringLiteral("SUCCESS")}, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(verifiedAt(QStringLiteral("/api/mtls-pem")),
                              QStringList{QStringLiteral("SUCCESS")}, 5000);

    QList<QPair<QString, QByteArray>> secrets{
        {QStringLiteral("client secret"), clientSecret},
        {QStringLiteral("client credentials as HTTP Basic"),
         QByteArray("cooldown:" + clientSecret).toBase64()},
        {QStringLiteral("static bearer token"), staticToken},
        {QStringLiteral("X-Customer-Code header credential"), customerCode},
        {QStringLiteral("proxy password"), proxyPassword},
        {QStringLiteral("proxy credentials as HTTP Basic"),
         QByteArray(proxyUser + ':' + proxyPassword).toBase64()},
        {QStringLiteral("PKCS#12 passphrase"), TlsFixture::pkcs12Passphrase()},
        {QStringLiteral("PEM key passphrase"), keyPassphrase}};
    const QJsonArray tokens = stats->value(QLatin1String("tokens")).toArray();
    QVERIFY2(tokens.size() >= 3, "the tokens were not renewed: fewer than three were issued");
    for (int i = 0; i < tokens.size(); ++i) {
        const QByteArray token = tokens.at(i).toString().toLatin1();
        secrets.append({QStringLiteral("access token %1").arg(i + 1), token});
        // A JWT's signature is its own: a token cut short in a log still shows it.
        secrets.append({QStringLiteral("access token %1's signature").arg(i + 1),
                        token.mid(token.lastIndexOf('.') + 1)});
    }
    auto leaks = [&secrets](const QString &what, const QByteArray &bytes) {
        QStringList found;
        for (const auto &secret : std::as_const(secrets)) {
            if (bytes.contains(secret.second))
                found.append(QStringLiteral("%1: %2").arg(what, secret.first));
        }
        return found;
    };
    const QByteArray csv = readTextFile(csvPath);
    QVERIFY(csv.count("\r\n") >= 36);
    QStringList found = leaks(QStringLiteral("cooldown run output"), run.out + run.err);
    found += leaks(QStringLiteral("cooldown export output"), exported.out + exported.err);
    found += leaks(QStringLiteral("exported CSV"), csv);
    found += leaks(QStringLiteral("audit CSV"), readTextFile(auditPath));
    QByteArray stored;
    for (const QString &suffix : {QString(), QStringLiteral("-wal"), QStringLiteral("-shm")}) {
        const QByteArray bytes = readTextFile(dbPath + suffix);
        stored += bytes;
        found += leaks(QStringLiteral("ops.db") + suffix, bytes);
    }
    // The request headers were stored (names kept, values redacted): the search saw them.
    QVERIFY(stored.contains("Authorization"));
    QVERIFY(stored.contains("X-Customer-Code"));
    QVERIFY2(found.isEmpty(), qPrintable(found.join(QStringLiteral(", "))));
}

QTEST_GUILESS_MAIN(tst_Secrets)
#include "tst_secrets.moc"
