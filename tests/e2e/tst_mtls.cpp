// SPDX-License-Identifier: Apache-2.0
// `cooldown run` against an API behind a private CA that demands a client certificate:
// a CA, a server certificate and a client certificate made by openssl in the test, and
// a real nginx with ssl_verify_client on (tests/support/TlsFixture.h). What nginx logged
// (status, client verification) is read back with the store. The workspace's "tls"
// entries are the only way in: trusted for the endpoints that name them and for no
// other, even when both reach the same server in one run and a connection to it is
// already open.

#include "core/store/Store.h"
#include "support/CooldownRun.h"
#include "support/ReadableEnums.h"
#include "support/TlsFixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace cooldown;

namespace {

constexpr int kRunTimeoutMs = 120000;

QString marker()
{
    return QStringLiteral("run-%1").arg(QRandomGenerator::global()->generate64(), 0, 16);
}

} // namespace

class tst_Mtls : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<TlsFixture> m_tls;
    std::unique_ptr<QTemporaryDir> m_dir;

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("P12_PASS"), QString::fromLatin1(TlsFixture::pkcs12Passphrase()));
        for (const char *name : {"http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY",
                                 "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"})
            env.remove(QString::fromLatin1(name));
        return env;
    }

    // The tls entries every workspace here has.
    QJsonArray tlsEntries() const
    {
        return QJsonArray{
            QJsonObject{{"id", "corp"},
                        {"ca_file", m_tls->caFile()},
                        {"client_certificate", m_tls->clientCertificate()},
                        {"client_key", m_tls->clientKey()}},
            QJsonObject{{"id", "corp-p12"},
                        {"ca_file", m_tls->caFile()},
                        {"client_pkcs12", m_tls->clientPkcs12()},
                        {"pkcs12_passphrase", "${env:P12_PASS}"}},
            QJsonObject{{"id", "ca-only"}, {"ca_file", m_tls->caFile()}},
            // Host names not checked: the chain still must be the CA's.
            QJsonObject{
                {"id", "ca-any-name"}, {"ca_file", m_tls->caFile()}, {"verify_hostname", false}},
            // curl -k: any certificate, the client's own still presented. Beside it the
            // same without a CA of its own, which trusts the system's CAs only.
            QJsonObject{{"id", "any-certificate"},
                        {"client_pkcs12", m_tls->clientPkcs12()},
                        {"pkcs12_passphrase", "${env:P12_PASS}"},
                        {"verify_certificate", false}},
            QJsonObject{{"id", "system-cas"},
                        {"client_pkcs12", m_tls->clientPkcs12()},
                        {"pkcs12_passphrase", "${env:P12_PASS}"}},
            QJsonObject{{"id", "other-ca-any-name"},
                        {"ca_file", m_tls->otherCaFile()},
                        {"verify_hostname", false}},
            // The right client certificate, but trusting a CA that signed nothing here.
            QJsonObject{{"id", "other-ca"},
                        {"ca_file", m_tls->otherCaFile()},
                        {"client_certificate", m_tls->clientCertificate()},
                        {"client_key", m_tls->clientKey()}}};
    }

    // One-shot GET endpoints; each given as {id, url, tls id or empty}.
    QString writeWorkspace(const QString &name, const QList<QStringList> &endpoints) const
    {
        QJsonArray list;
        for (const QStringList &e : endpoints) {
            QJsonObject endpoint{{"id", e.at(0)}, {"url", e.at(1)}, {"timeout_seconds", 10}};
            if (!e.at(2).isEmpty())
                endpoint.insert("tls", e.at(2));
            list.append(endpoint);
        }
        const QJsonObject workspace{
            {"version", 1},
            {"concurrency", QJsonObject{{"max_in_flight", 4}, {"per_host", 4}}},
            {"retry_profiles", QJsonObject{{"default", QJsonObject{{"max_attempts", 2},
                                                                   {"base_seconds", 0.2},
                                                                   {"cap_seconds", 1},
                                                                   {"deadline_seconds", 60}}}}},
            {"tls", tlsEntries()},
            {"endpoints", list}};
        const QString path = m_dir->filePath(name + QStringLiteral(".json"));
        return writeTextFile(path, QJsonDocument(workspace).toJson()) ? path : QString();
    }

    CooldownResult run(const QString &config, const QString &db) const
    {
        return runCooldown({QStringLiteral("run"), QStringLiteral("--config"), config,
                            QStringLiteral("--db"), db, QStringLiteral("--until-idle")},
                           environment(), kRunTimeoutMs);
    }

    static std::unique_ptr<Store> openStore(const QString &db, QString *error)
    {
        StoreOptions readOnly;
        readOnly.createIfMissing = false;
        return Store::open(db, error, readOnly);
    }

    static QString describe(const QList<OperationRecord> &operations)
    {
        std::map<QString, int> byOutcome;
        for (const OperationRecord &o : operations)
            ++byOutcome[QStringLiteral("%1/%2/%3")
                            .arg(toString(o.state), o.finalReason)
                            .arg(o.lastStatus)];
        QStringList parts;
        for (const auto &[outcome, n] : byOutcome)
            parts.append(QStringLiteral("%1 x%2").arg(outcome).arg(n));
        return parts.join(QStringLiteral(", "));
    }

    // Runs the endpoints ({id, url, tls}) once each: those whose id begins with
    // `through` and a '-' succeed and are what nginx logs under `marker`; every other
    // one fails with tls_error before a request is sent.
    CooldownResult onlyTheseGetThrough(const QString &name, const QList<QStringList> &endpoints,
                                       const QString &marker, const QString &through) const
    {
        const QString config = writeWorkspace(name, endpoints);
        const QString db = m_dir->filePath(name + QStringLiteral(".db"));
        const CooldownResult result = run(config, db);
        [&] {
            QVERIFY2(result.finished && (result.exitCode == 0 || result.exitCode == 1),
                     result.tail().constData());
            QString error;
            auto store = openStore(db, &error);
            QVERIFY2(store, qPrintable(error));
            const QList<OperationRecord> operations = store->operations({});
            QCOMPARE(operations.size(), endpoints.size());
            const QString outcomes = describe(operations);
            int passed = 0;
            for (const OperationRecord &o : operations) {
                if (o.endpointId.startsWith(through + u'-')) {
                    ++passed;
                    QVERIFY2(o.state == OperationState::Succeeded,
                             qPrintable(o.endpointId + u' ' + outcomes));
                } else {
                    QVERIFY2(o.state == OperationState::Failed,
                             qPrintable(o.endpointId + u' ' + outcomes));
                    QCOMPARE(o.finalReason, QStringLiteral("tls_error"));
                }
            }
            QTRY_VERIFY_WITH_TIMEOUT(m_tls->logLinesWith(marker).size() >= passed, 5000);
            for (const TlsFixture::LogLine &line : m_tls->logLinesWith(marker))
                QVERIFY2(line.uri.startsWith(u'/' + through), qPrintable(line.uri));
        }();
        return result;
    }

private slots:
    void initTestCase()
    {
        const QString missing = TlsFixture::missingTools();
        if (!missing.isEmpty())
            QSKIP(qPrintable(missing));
        m_tls = std::make_unique<TlsFixture>();
        QString error;
        QVERIFY2(m_tls->start(&error), qPrintable(error));
    }

    void cleanupTestCase() { m_tls.reset(); }

    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void cleanup() { m_dir.reset(); }

    void fixtureDemandsTheClientCertificate();
    void withoutAClientCertificateEveryRequestIsRefused();
    void withTheClientCertificateAllSucceed_data();
    void withTheClientCertificateAllSucceed();
    void theCaIsTrustedForItsEndpointsOnly();
    void hostNamesUncheckedOnlyWhereSaid();
    void certificatesUncheckedOnlyWhereSaid();
};

// The fixture itself, through Qt's own TLS: refused without the client certificate,
// answered with it. Without this the engine's results below would prove nothing.
void tst_Mtls::fixtureDemandsTheClientCertificate()
{
    const QList<QSslCertificate> ca = QSslCertificate::fromPath(m_tls->caFile());
    QCOMPARE(ca.size(), 1);
    QFile p12(m_tls->clientPkcs12());
    QVERIFY(p12.open(QIODevice::ReadOnly));
    QSslKey key;
    QSslCertificate certificate;
    QList<QSslCertificate> chain;
    QVERIFY2(QSslCertificate::importPkcs12(&p12, &key, &certificate, &chain,
                                           TlsFixture::pkcs12Passphrase()),
             "Qt cannot read the PKCS#12 file openssl made");
    // The legacy one (RC2/3DES) is what Qt on OpenSSL 3 cannot read.
    QFile legacy(m_tls->clientLegacyPkcs12());
    QVERIFY(legacy.open(QIODevice::ReadOnly));
    QSslKey legacyKey;
    QSslCertificate legacyCertificate;
    const bool legacyRead = QSslCertificate::importPkcs12(&legacy, &legacyKey, &legacyCertificate,
                                                          nullptr, TlsFixture::pkcs12Passphrase());
    qInfo() << "a legacy (RC2/3DES) PKCS#12 file is" << (legacyRead ? "read" : "not read")
            << "by Qt with" << QSslSocket::sslLibraryVersionString();

    const QString id = marker();
    auto get = [&](bool withCertificate) {
        QNetworkAccessManager manager;
        manager.setProxy(QNetworkProxy::NoProxy);
        QNetworkRequest request(QUrl(m_tls->url(QStringLiteral("/check?") + id)));
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        ssl.setCaCertificates(ca);
        if (withCertificate) {
            ssl.setLocalCertificate(certificate);
            ssl.setPrivateKey(key);
        }
        request.setSslConfiguration(ssl);
        request.setTransferTimeout(10000);
        QNetworkReply *reply = manager.get(request);
        QSignalSpy finished(reply, &QNetworkReply::finished);
        finished.wait(15000);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        delete reply;
        return status;
    };
    QCOMPARE(get(false), 400);
    QCOMPARE(get(true), 200);
    QTRY_COMPARE_WITH_TIMEOUT(m_tls->logLinesWith(id).size(), 2, 5000);
    const QList<TlsFixture::LogLine> lines = m_tls->logLinesWith(id);
    QCOMPARE(lines.at(0).status, 400);
    QCOMPARE(lines.at(0).clientVerify, QStringLiteral("NONE"));
    QCOMPARE(lines.at(1).status, 200);
    QCOMPARE(lines.at(1).clientVerify, QStringLiteral("SUCCESS"));
}

// The CA trusted, no client certificate: nginx answers each request 400 ("No required
// SSL certificate was sent"). None succeeds; what the engine makes of it is printed.
void tst_Mtls::withoutAClientCertificateEveryRequestIsRefused()
{
    constexpr int kEndpoints = 5;
    const QString id = marker();
    QList<QStringList> endpoints;
    for (int i = 0; i < kEndpoints; ++i)
        endpoints.append({QStringLiteral("nocert-%1").arg(i),
                          m_tls->url(QStringLiteral("/nocert?%1&op=%2").arg(id).arg(i)),
                          QStringLiteral("ca-only")});
    const QString config = writeWorkspace(QStringLiteral("nocert"), endpoints);
    const QString db = m_dir->filePath(QStringLiteral("nocert.db"));
    const CooldownResult result = run(config, db);
    QVERIFY2(result.finished && (result.exitCode == 0 || result.exitCode == 1),
             result.tail().constData());

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    const QList<OperationRecord> operations = store->operations({});
    QCOMPARE(operations.size(), kEndpoints);
    qInfo().noquote() << "without a client certificate:" << describe(operations);
    for (const OperationRecord &o : operations) {
        QVERIFY2(o.state == OperationState::Failed || o.state == OperationState::Parked,
                 qPrintable(describe(operations)));
        QCOMPARE(o.lastStatus, 400);
    }
    const QList<AttemptRecord> attempts = store->attempts({});
    for (const AttemptRecord &a : attempts)
        QCOMPARE(a.status, 400);
    QTRY_COMPARE_WITH_TIMEOUT(m_tls->logLinesWith(id).size(), attempts.size(), 5000);
    const QList<TlsFixture::LogLine> lines = m_tls->logLinesWith(id);
    for (const TlsFixture::LogLine &line : lines) {
        QCOMPARE(line.status, 400);
        QCOMPARE(line.clientVerify, QStringLiteral("NONE"));
    }
}

void tst_Mtls::withTheClientCertificateAllSucceed_data()
{
    QTest::addColumn<QString>("tls");
    QTest::newRow("PEM certificate and key") << QStringLiteral("corp");
    QTest::newRow("PKCS#12 with a passphrase") << QStringLiteral("corp-p12");
}

void tst_Mtls::withTheClientCertificateAllSucceed()
{
    QFETCH(QString, tls);
    constexpr int kEndpoints = 20;
    const QString id = marker();
    QList<QStringList> endpoints;
    for (int i = 0; i < kEndpoints; ++i)
        endpoints.append({QStringLiteral("bom-%1").arg(i),
                          m_tls->url(QStringLiteral("/api/boms?%1&op=%2").arg(id).arg(i)), tls});
    const QString config = writeWorkspace(tls, endpoints);
    const QString db = m_dir->filePath(tls + QStringLiteral(".db"));
    const CooldownResult result = run(config, db);
    QVERIFY2(result.ok(), result.tail().constData());

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    const QList<OperationRecord> operations = store->operations({});
    QCOMPARE(operations.size(), kEndpoints);
    for (const OperationRecord &o : operations)
        QVERIFY2(o.state == OperationState::Succeeded, qPrintable(describe(operations)));
    const QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(attempts.size(), kEndpoints);
    QTRY_COMPARE_WITH_TIMEOUT(m_tls->logLinesWith(id).size(), kEndpoints, 5000);
    const QList<TlsFixture::LogLine> lines = m_tls->logLinesWith(id);
    for (const TlsFixture::LogLine &line : lines) {
        QCOMPARE(line.status, 200);
        QCOMPARE(line.clientVerify, QStringLiteral("SUCCESS"));
    }
}

// One workspace, one server, four kinds of endpoint taking turns: with the CA and the
// client certificate (succeeds); with no tls entry (the system's CAs do not know the
// private one: tls_error); trusting another CA (tls_error); trusting the CA without a
// client certificate (nginx refuses it, 400). Connections the first kind opened are
// alive while the others go out: a connection pool keyed on host and port alone would
// let them through.
void tst_Mtls::theCaIsTrustedForItsEndpointsOnly()
{
    constexpr int kEach = 6;
    const QString id = marker();
    QList<QStringList> endpoints;
    for (int i = 0; i < kEach; ++i) {
        endpoints.append({QStringLiteral("trusted-%1").arg(i),
                          m_tls->url(QStringLiteral("/trusted?%1&op=%2").arg(id).arg(i)),
                          QStringLiteral("corp")});
        endpoints.append({QStringLiteral("untrusted-%1").arg(i),
                          m_tls->url(QStringLiteral("/untrusted?%1&op=%2").arg(id).arg(i)),
                          QString()});
        endpoints.append({QStringLiteral("otherca-%1").arg(i),
                          m_tls->url(QStringLiteral("/otherca?%1&op=%2").arg(id).arg(i)),
                          QStringLiteral("other-ca")});
        endpoints.append({QStringLiteral("nocert-%1").arg(i),
                          m_tls->url(QStringLiteral("/nocert?%1&op=%2").arg(id).arg(i)),
                          QStringLiteral("ca-only")});
    }
    const QString config = writeWorkspace(QStringLiteral("mixed"), endpoints);
    const QString db = m_dir->filePath(QStringLiteral("mixed.db"));
    const CooldownResult result = run(config, db);
    QVERIFY2(result.finished && (result.exitCode == 0 || result.exitCode == 1),
             result.tail().constData());

    QString error;
    auto store = openStore(db, &error);
    QVERIFY2(store, qPrintable(error));
    const QList<OperationRecord> operations = store->operations({});
    QCOMPARE(operations.size(), 4 * kEach);
    const QString outcomes = describe(operations);
    qInfo().noquote() << outcomes;
    for (const OperationRecord &o : operations) {
        if (o.endpointId.startsWith(QLatin1String("trusted-"))) {
            QVERIFY2(o.state == OperationState::Succeeded,
                     qPrintable(o.endpointId + u' ' + outcomes));
        } else if (o.endpointId.startsWith(QLatin1String("nocert-"))) {
            QVERIFY2(o.state != OperationState::Succeeded && o.lastStatus == 400,
                     qPrintable(o.endpointId + u' ' + outcomes));
        } else {
            QVERIFY2(o.state == OperationState::Failed, qPrintable(o.endpointId + u' ' + outcomes));
            QCOMPARE(o.finalReason, QStringLiteral("tls_error"));
            QCOMPARE(o.lastStatus, 0);
        }
    }
    const QList<AttemptRecord> attempts = store->attempts({});
    for (const AttemptRecord &a : attempts) {
        if (a.endpointId.startsWith(QLatin1String("untrusted-")) ||
            a.endpointId.startsWith(QLatin1String("otherca-"))) {
            QCOMPARE(a.status, 0);
            QCOMPARE(a.reason, QStringLiteral("tls_error"));
            QVERIFY2(!a.error.isEmpty(), qPrintable(a.endpointId));
        }
    }
    // Not one request of the untrusted endpoints reached nginx: their handshakes failed
    // on the client's side, before any request was written.
    QTRY_VERIFY_WITH_TIMEOUT(m_tls->logLinesWith(id).size() >= 2 * kEach, 5000);
    const QList<TlsFixture::LogLine> lines = m_tls->logLinesWith(id);
    int trusted = 0;
    int noCertificate = 0;
    for (const TlsFixture::LogLine &line : lines) {
        QVERIFY2(!line.uri.startsWith(QLatin1String("/untrusted")) &&
                     !line.uri.startsWith(QLatin1String("/otherca")),
                 qPrintable(line.uri));
        if (line.uri.startsWith(QLatin1String("/trusted"))) {
            ++trusted;
            QCOMPARE(line.status, 200);
            QCOMPARE(line.clientVerify, QStringLiteral("SUCCESS"));
        } else {
            ++noCertificate;
            QCOMPARE(line.status, 400);
            QCOMPARE(line.clientVerify, QStringLiteral("NONE"));
        }
    }
    QCOMPARE(trusted, kEach);
    QVERIFY(noCertificate >= kEach);
    // How many of the trusted requests went on a connection already open: the pool the
    // others would have been given by mistake.
    int reused = 0;
    for (const TlsFixture::LogLine &line : lines)
        reused += line.uri.startsWith(QLatin1String("/trusted")) && line.connectionRequests > 1;
    qInfo() << "trusted requests on a connection already open:" << reused << "of" << trusted;
}

void tst_Mtls::hostNamesUncheckedOnlyWhereSaid()
{
    // 127.0.0.2 is not in the server certificate. verify_hostname: false forgives that
    // and nothing else.
    const QString id = marker();
    QList<QStringList> endpoints;
    for (int i = 0; i < 3; ++i) {
        endpoints.append(
            {QStringLiteral("checked-%1").arg(i),
             m_tls->mismatchedNameUrl(QStringLiteral("/checked?%1&op=%2").arg(id).arg(i)),
             QStringLiteral("ca-only")});
        endpoints.append(
            {QStringLiteral("anyname-%1").arg(i),
             m_tls->mismatchedNameUrl(QStringLiteral("/anyname?%1&op=%2").arg(id).arg(i)),
             QStringLiteral("ca-any-name")});
        endpoints.append(
            {QStringLiteral("otherca-%1").arg(i),
             m_tls->mismatchedNameUrl(QStringLiteral("/otherca?%1&op=%2").arg(id).arg(i)),
             QStringLiteral("other-ca-any-name")});
    }
    onlyTheseGetThrough(QStringLiteral("names"), endpoints, id, QStringLiteral("anyname"));
}

void tst_Mtls::certificatesUncheckedOnlyWhereSaid()
{
    // verify_certificate: false (curl -k) trusts a CA nobody named, for a name the
    // certificate does not have; the same entry without it is refused the same server.
    const QString id = marker();
    QList<QStringList> endpoints;
    for (int i = 0; i < 3; ++i) {
        endpoints.append(
            {QStringLiteral("unchecked-%1").arg(i),
             m_tls->mismatchedNameUrl(QStringLiteral("/unchecked?%1&op=%2").arg(id).arg(i)),
             QStringLiteral("any-certificate")});
        endpoints.append({QStringLiteral("system-%1").arg(i),
                          m_tls->url(QStringLiteral("/system?%1&op=%2").arg(id).arg(i)),
                          QStringLiteral("system-cas")});
    }
    const CooldownResult result = onlyTheseGetThrough(QStringLiteral("unchecked"), endpoints, id,
                                                      QStringLiteral("unchecked"));
    // Said on every run, by name.
    QVERIFY2(result.err.contains(
                 "tls 'any-certificate' does not verify certificates at all (verify_certificate: "
                 "false)"),
             result.tail().constData());
}

QTEST_GUILESS_MAIN(tst_Mtls)
#include "tst_mtls.moc"
