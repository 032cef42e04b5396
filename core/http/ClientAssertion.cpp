// SPDX-License-Identifier: Apache-2.0
#include "core/http/ClientAssertion.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>

#include <memory>

namespace cooldown {

namespace {

struct FreeKey
{
    void operator()(EVP_PKEY *key) const { EVP_PKEY_free(key); }
};
struct FreeContext
{
    void operator()(EVP_MD_CTX *context) const { EVP_MD_CTX_free(context); }
};
struct FreeSignature
{
    void operator()(ECDSA_SIG *signature) const { ECDSA_SIG_free(signature); }
};
using Key = std::unique_ptr<EVP_PKEY, FreeKey>;

Key readKey(const QByteArray &pem)
{
    BIO *bio = BIO_new_mem_buf(pem.constData(), int(pem.size()));
    if (!bio)
        return nullptr;
    // No passphrase callback: the workspace hands over the key decrypted.
    Key key(PEM_read_bio_PrivateKey(
        bio, nullptr, [](char *, int, int, void *) { return 0; }, nullptr));
    BIO_free(bio);
    return key;
}

std::optional<QString> algorithmOf(EVP_PKEY *key, QString *error)
{
    switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA:
        if (EVP_PKEY_get_bits(key) < 2048) {
            *error = QStringLiteral("an RSA key for RS256 must have at least 2048 bits");
            return std::nullopt;
        }
        return QStringLiteral("RS256");
    case EVP_PKEY_EC: {
        char curve[64] = {};
        size_t length = 0;
        if (EVP_PKEY_get_utf8_string_param(key, "group", curve, sizeof curve, &length) == 1 &&
            qstrcmp(curve, "prime256v1") == 0)
            return QStringLiteral("ES256");
        *error = QStringLiteral("an EC key must be on P-256 (prime256v1) for ES256");
        return std::nullopt;
    }
    default:
        *error = QStringLiteral("expected an RSA or EC private key");
        return std::nullopt;
    }
}

QByteArray base64Url(const QByteArray &data)
{
    return data.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

// JOSE wants an ECDSA signature as R and S, 32 bytes each (RFC 7518, 3.4); OpenSSL
// gives it DER-encoded.
std::optional<QByteArray> joseSignature(const QByteArray &der)
{
    const unsigned char *p = reinterpret_cast<const unsigned char *>(der.constData());
    std::unique_ptr<ECDSA_SIG, FreeSignature> signature(d2i_ECDSA_SIG(nullptr, &p, der.size()));
    if (!signature)
        return std::nullopt;
    QByteArray out(64, '\0');
    const BIGNUM *r = ECDSA_SIG_get0_r(signature.get());
    const BIGNUM *s = ECDSA_SIG_get0_s(signature.get());
    if (BN_bn2binpad(r, reinterpret_cast<unsigned char *>(out.data()), 32) != 32 ||
        BN_bn2binpad(s, reinterpret_cast<unsigned char *>(out.data()) + 32, 32) != 32)
        return std::nullopt;
    return out;
}

} // namespace

std::optional<QString> ClientAssertion::algorithmFor(const QByteArray &keyPem, QString *error)
{
    const Key key = readKey(keyPem);
    if (!key) {
        *error = QStringLiteral("not a private key in PEM");
        return std::nullopt;
    }
    return algorithmOf(key.get(), error);
}

std::optional<QByteArray> ClientAssertion::sign(const QByteArray &keyPem, const QString &keyId,
                                                const QString &clientId, const QString &audience,
                                                const QString &jti, qint64 nowMs, QString *error)
{
    const Key key = readKey(keyPem);
    if (!key) {
        *error = QStringLiteral("not a private key in PEM");
        return std::nullopt;
    }
    const std::optional<QString> algorithm = algorithmOf(key.get(), error);
    if (!algorithm)
        return std::nullopt;

    QJsonObject header{{QStringLiteral("alg"), *algorithm},
                       {QStringLiteral("typ"), QStringLiteral("JWT")}};
    if (!keyId.isEmpty())
        header.insert(QStringLiteral("kid"), keyId);
    const qint64 iat = nowMs / 1000;
    const QJsonObject claims{{QStringLiteral("iss"), clientId},
                             {QStringLiteral("sub"), clientId},
                             {QStringLiteral("aud"), audience},
                             {QStringLiteral("jti"), jti},
                             {QStringLiteral("iat"), double(iat)},
                             {QStringLiteral("exp"), double(iat + kLifetimeSeconds)}};
    const QByteArray input = base64Url(QJsonDocument(header).toJson(QJsonDocument::Compact)) + '.' +
                             base64Url(QJsonDocument(claims).toJson(QJsonDocument::Compact));

    std::unique_ptr<EVP_MD_CTX, FreeContext> context(EVP_MD_CTX_new());
    size_t length = 0;
    if (!context ||
        EVP_DigestSignInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
        EVP_DigestSign(context.get(), nullptr, &length,
                       reinterpret_cast<const unsigned char *>(input.constData()),
                       size_t(input.size())) != 1) {
        *error = QStringLiteral("the key cannot sign");
        return std::nullopt;
    }
    QByteArray signature(qsizetype(length), '\0');
    if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char *>(signature.data()), &length,
                       reinterpret_cast<const unsigned char *>(input.constData()),
                       size_t(input.size())) != 1) {
        *error = QStringLiteral("the key cannot sign");
        return std::nullopt;
    }
    signature.truncate(qsizetype(length));
    if (*algorithm == QLatin1String("ES256")) {
        const std::optional<QByteArray> jose = joseSignature(signature);
        if (!jose) {
            *error = QStringLiteral("the key cannot sign");
            return std::nullopt;
        }
        signature = *jose;
    }
    return input + '.' + base64Url(signature);
}

} // namespace cooldown
