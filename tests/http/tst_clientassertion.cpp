// SPDX-License-Identifier: Apache-2.0
#include "core/http/ClientAssertion.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

using namespace cooldown;

namespace {

// Verifies a JWS signature with the public half of keyPem, independently of the code
// under test: OpenSSL's own verification, ES256 turned back from R||S into DER.
bool verifies(const QByteArray &keyPem, const QByteArray &input, QByteArray signature, bool ecdsa)
{
    BIO *bio = BIO_new_mem_buf(keyPem.constData(), int(keyPem.size()));
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    if (!key)
        return false;
    if (ecdsa) {
        if (signature.size() != 64) {
            EVP_PKEY_free(key);
            return false;
        }
        ECDSA_SIG *sig = ECDSA_SIG_new();
        const auto *raw = reinterpret_cast<const unsigned char *>(signature.constData());
        ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, nullptr), BN_bin2bn(raw + 32, 32, nullptr));
        unsigned char *der = nullptr;
        const int length = i2d_ECDSA_SIG(sig, &der);
        signature = QByteArray(reinterpret_cast<const char *>(der), length);
        OPENSSL_free(der);
        ECDSA_SIG_free(sig);
    }
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    const bool ok =
        EVP_DigestVerifyInit(context, nullptr, EVP_sha256(), nullptr, key) == 1 &&
        EVP_DigestVerify(context, reinterpret_cast<const unsigned char *>(signature.constData()),
                         size_t(signature.size()),
                         reinterpret_cast<const unsigned char *>(input.constData()),
                         size_t(input.size())) == 1;
    EVP_MD_CTX_free(context);
    EVP_PKEY_free(key);
    return ok;
}

QJsonObject part(const QByteArray &text)
{
    return QJsonDocument::fromJson(QByteArray::fromBase64(text, QByteArray::Base64UrlEncoding |
                                                                    QByteArray::OmitTrailingEquals))
        .object();
}

} // namespace

class tst_ClientAssertion : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_openssl;

    QByteArray makeKey(const QStringList &arguments)
    {
        const QString file = m_dir.filePath(QStringLiteral("key-%1.pem").arg(++m_keys));
        QProcess p;
        p.start(m_openssl, QStringList{QStringLiteral("genpkey")} + arguments +
                               QStringList{QStringLiteral("-out"), file});
        if (!p.waitForFinished(60000) || p.exitCode() != 0)
            return {};
        QFile f(file);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    int m_keys = 0;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
        if (m_openssl.isEmpty())
            QSKIP("openssl is missing (scripts/setup installs it): no keys to test with");
    }

    void signs_data()
    {
        QTest::addColumn<QStringList>("keyArguments");
        QTest::addColumn<QString>("algorithm");
        QTest::newRow("RSA 2048") << QStringList{"-algorithm", "RSA", "-pkeyopt",
                                                 "rsa_keygen_bits:2048"}
                                  << "RS256";
        QTest::newRow("EC P-256") << QStringList{"-algorithm", "EC", "-pkeyopt",
                                                 "ec_paramgen_curve:P-256"}
                                  << "ES256";
    }
    void signs()
    {
        QFETCH(QStringList, keyArguments);
        QFETCH(QString, algorithm);
        const QByteArray key = makeKey(keyArguments);
        QVERIFY(!key.isEmpty());
        QString error;
        QCOMPARE(ClientAssertion::algorithmFor(key, &error).value_or(error), algorithm);
        const qint64 now = 1'800'000'000'123;
        const auto jwt = ClientAssertion::sign(
            key, QStringLiteral("k1"), QStringLiteral("cooldown"),
            QStringLiteral("https://idp.example/token"), QStringLiteral("jti-1"), now, &error);
        QVERIFY2(jwt, qPrintable(error));
        const QList<QByteArray> parts = jwt->split('.');
        QCOMPARE(parts.size(), 3);
        const QJsonObject header = part(parts[0]);
        QCOMPARE(header.value(QLatin1String("alg")).toString(), algorithm);
        QCOMPARE(header.value(QLatin1String("kid")).toString(), QStringLiteral("k1"));
        const QJsonObject claims = part(parts[1]);
        QCOMPARE(claims.value(QLatin1String("iss")).toString(), QStringLiteral("cooldown"));
        QCOMPARE(claims.value(QLatin1String("sub")).toString(), QStringLiteral("cooldown"));
        QCOMPARE(claims.value(QLatin1String("aud")).toString(),
                 QStringLiteral("https://idp.example/token"));
        QCOMPARE(claims.value(QLatin1String("jti")).toString(), QStringLiteral("jti-1"));
        QCOMPARE(claims.value(QLatin1String("iat")).toInteger(), now / 1000);
        QCOMPARE(claims.value(QLatin1String("exp")).toInteger(),
                 now / 1000 + ClientAssertion::kLifetimeSeconds);
        for (const QByteArray &p : parts)
            QVERIFY2(!p.contains('=') && !p.contains('+') && !p.contains('/'), p.constData());
        const QByteArray signature = QByteArray::fromBase64(
            parts[2], QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        const bool ecdsa = algorithm == QLatin1String("ES256");
        QVERIFY(verifies(key, parts[0] + '.' + parts[1], signature, ecdsa));
        // Any change to what was signed breaks it.
        QVERIFY(!verifies(key, parts[0] + '.' + parts[1] + 'x', signature, ecdsa));
    }

    void refusesKeysItCannotSignWith_data()
    {
        QTest::addColumn<QStringList>("keyArguments");
        QTest::addColumn<QString>("why");
        QTest::newRow("RSA 1024") << QStringList{"-algorithm", "RSA", "-pkeyopt",
                                                 "rsa_keygen_bits:1024"}
                                  << "at least 2048 bits";
        QTest::newRow("EC P-384") << QStringList{"-algorithm", "EC", "-pkeyopt",
                                                 "ec_paramgen_curve:P-384"}
                                  << "P-256";
        QTest::newRow("Ed25519") << QStringList{"-algorithm", "ED25519"} << "RSA or EC";
    }
    void refusesKeysItCannotSignWith()
    {
        QFETCH(QStringList, keyArguments);
        QFETCH(QString, why);
        const QByteArray key = makeKey(keyArguments);
        QVERIFY(!key.isEmpty());
        QString error;
        QVERIFY(!ClientAssertion::algorithmFor(key, &error));
        QVERIFY2(error.contains(why), qPrintable(error));
        QVERIFY(!ClientAssertion::sign(key, {}, QStringLiteral("c"), QStringLiteral("a"),
                                       QStringLiteral("j"), 0, &error));
        QVERIFY(!ClientAssertion::algorithmFor("not a key", &error));
    }
};

QTEST_GUILESS_MAIN(tst_ClientAssertion)
#include "tst_clientassertion.moc"
