// SPDX-License-Identifier: Apache-2.0
#include "core/config/TlsFiles.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>

namespace cooldown::tlsfiles {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

// Far above any CA bundle (the whole Mozilla store is about 220 KiB).
constexpr qint64 kMaxFileBytes = 16 * 1024 * 1024;

// Reads a regular file whole: a device or a pipe named by mistake (/dev/zero) would
// never end, or end in something else each time.
std::optional<QString> readFile(const File &source, QByteArray *out)
{
    const QString &name = source.shown;
    const QFileInfo info(source.path);
    if (!info.exists())
        return Text::tr("%1 does not exist").arg(name);
    if (!info.isFile())
        return Text::tr("%1 is not a file").arg(name);
    if (info.size() > kMaxFileBytes)
        return Text::tr("%1 is larger than %2 MiB").arg(name).arg(kMaxFileBytes >> 20);
    // Also keeps away from /proc, whose files say they are empty and may never end.
    if (info.size() == 0)
        return Text::tr("%1 is empty").arg(name);
    QFile file(source.path);
    if (!file.open(QIODevice::ReadOnly))
        return Text::tr("cannot read %1: %2").arg(name, file.errorString());
    *out = file.read(kMaxFileBytes + 1);
    if (out->size() > kMaxFileBytes)
        return Text::tr("%1 is larger than %2 MiB").arg(name).arg(kMaxFileBytes >> 20);
    return std::nullopt;
}

// A minimal DER walker, enough for the key structures keyMatches compares: single-byte
// tags, definite lengths.
class Der
{
public:
    explicit Der(QByteArrayView data) : m_data(data) {}

    bool atEnd() const { return m_pos >= m_data.size(); }

    // The next element: its tag and contents. False when the bytes are not DER.
    bool next(quint8 *tag, QByteArrayView *content)
    {
        if (m_pos + 2 > m_data.size())
            return false;
        *tag = quint8(m_data.at(m_pos));
        quint8 first = quint8(m_data.at(m_pos + 1));
        m_pos += 2;
        qsizetype length = first;
        if (first & 0x80) {
            const int count = first & 0x7f;
            if (count == 0 || count > 4 || m_pos + count > m_data.size())
                return false;
            length = 0;
            for (int i = 0; i < count; ++i)
                length = (length << 8) | quint8(m_data.at(m_pos++));
        }
        if (length > m_data.size() - m_pos)
            return false;
        *content = m_data.sliced(m_pos, length);
        m_pos += length;
        return true;
    }

    // The next element, if it has the expected tag.
    std::optional<QByteArrayView> expect(quint8 wanted)
    {
        quint8 tag = 0;
        QByteArrayView content;
        if (!next(&tag, &content) || tag != wanted)
            return std::nullopt;
        return content;
    }

private:
    QByteArrayView m_data;
    qsizetype m_pos = 0;
};

constexpr quint8 kInteger = 0x02;
constexpr quint8 kBitString = 0x03;
constexpr quint8 kOctetString = 0x04;
constexpr quint8 kSequence = 0x30;
constexpr quint8 kPublicKeyTag = 0xa1; // [1] of SEC 1's ECPrivateKey

QByteArray unsignedInteger(QByteArrayView bytes)
{
    while (bytes.size() > 1 && bytes.front() == '\0')
        bytes = bytes.sliced(1);
    return bytes.toByteArray();
}

// The RSA public key (modulus and exponent) of an RSAPublicKey or RSAPrivateKey body.
std::optional<QByteArray> rsaPublic(Der &body, bool hasVersion)
{
    if (hasVersion && !body.expect(kInteger))
        return std::nullopt;
    const auto modulus = body.expect(kInteger);
    const auto exponent = body.expect(kInteger);
    if (!modulus || !exponent)
        return std::nullopt;
    return QByteArrayLiteral("rsa:") + unsignedInteger(*modulus).toHex() + ':' +
           unsignedInteger(*exponent).toHex();
}

// The public part of a private key's DER: PKCS#1 RSAPrivateKey, SEC 1 ECPrivateKey,
// or either inside a PKCS#8 PrivateKeyInfo.
std::optional<QByteArray> publicOfPrivate(QByteArrayView der, int depth = 0)
{
    Der outer(der);
    const auto sequence = outer.expect(kSequence);
    if (!sequence || depth > 1)
        return std::nullopt;
    Der body(*sequence);
    const auto version = body.expect(kInteger);
    if (!version)
        return std::nullopt;
    quint8 tag = 0;
    QByteArrayView content;
    if (!body.next(&tag, &content))
        return std::nullopt;
    if (tag == kInteger) { // RSAPrivateKey: version, modulus, exponent, …
        const auto exponent = body.expect(kInteger);
        if (!exponent)
            return std::nullopt;
        return QByteArrayLiteral("rsa:") + unsignedInteger(content).toHex() + ':' +
               unsignedInteger(*exponent).toHex();
    }
    if (tag == kSequence) { // PrivateKeyInfo: version, algorithm, the key itself
        const auto inner = body.expect(kOctetString);
        return inner ? publicOfPrivate(*inner, depth + 1) : std::nullopt;
    }
    if (tag == kOctetString) { // ECPrivateKey: version, key, [0] parameters, [1] public key
        while (!body.atEnd()) {
            if (!body.next(&tag, &content))
                return std::nullopt;
            if (tag != kPublicKeyTag)
                continue;
            Der wrapped(content);
            const auto bits = wrapped.expect(kBitString);
            if (!bits || bits->isEmpty())
                return std::nullopt;
            return QByteArrayLiteral("ec:") + bits->sliced(1).toByteArray().toHex();
        }
    }
    return std::nullopt;
}

// The public key of a SubjectPublicKeyInfo, in publicOfPrivate's form.
std::optional<QByteArray> publicOfInfo(QByteArrayView der, bool rsa)
{
    Der outer(der);
    const auto sequence = outer.expect(kSequence);
    if (!sequence)
        return std::nullopt;
    Der body(*sequence);
    if (!body.expect(kSequence))
        return std::nullopt;
    const auto bits = body.expect(kBitString);
    if (!bits || bits->isEmpty())
        return std::nullopt;
    const QByteArrayView key = bits->sliced(1);
    if (!rsa)
        return QByteArrayLiteral("ec:") + key.toByteArray().toHex();
    Der rsaKey(key);
    const auto inner = rsaKey.expect(kSequence);
    if (!inner)
        return std::nullopt;
    Der fields(*inner);
    return rsaPublic(fields, false);
}

} // namespace

std::optional<QString> readCertificates(const File &file, QList<QSslCertificate> *out)
{
    QByteArray data;
    if (auto problem = readFile(file, &data))
        return problem;
    QList<QSslCertificate> certificates = QSslCertificate::fromData(data, QSsl::Pem);
    if (certificates.isEmpty())
        certificates = QSslCertificate::fromData(data, QSsl::Der);
    if (certificates.isEmpty())
        return Text::tr("%1 holds no certificate (expected PEM)").arg(file.shown);
    for (const QSslCertificate &certificate : std::as_const(certificates)) {
        if (certificate.isNull())
            return Text::tr("%1 holds a certificate that cannot be read").arg(file.shown);
    }
    *out = certificates;
    return std::nullopt;
}

std::optional<QString> readPrivateKey(const File &file, const std::optional<QByteArray> &passphrase,
                                      QSslKey *out)
{
    QByteArray data;
    if (auto problem = readFile(file, &data))
        return problem;
    // PKCS#8 ("ENCRYPTED PRIVATE KEY") and the older "Proc-Type: 4,ENCRYPTED".
    const bool encrypted = data.contains("ENCRYPTED");
    if (encrypted && !passphrase)
        return Text::tr("%1 is encrypted and no key_passphrase is given").arg(file.shown);
    // The PEM label does not always say the algorithm (PKCS#8 "PRIVATE KEY"), and Qt
    // reads a key only as the algorithm it is told.
    for (const QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec, QSsl::Dsa}) {
        QSslKey key(data, algorithm, QSsl::Pem, QSsl::PrivateKey,
                    encrypted ? passphrase.value_or(QByteArray()) : QByteArray());
        if (!key.isNull()) {
            *out = key;
            return std::nullopt;
        }
    }
    if (encrypted)
        return Text::tr("cannot decrypt %1: wrong passphrase, or not an RSA, EC or DSA key")
            .arg(file.shown);
    return Text::tr("%1 holds no private key (expected an RSA, EC or DSA key in PEM)")
        .arg(file.shown);
}

std::optional<QString> readPkcs12(const File &file, const QByteArray &passphrase, Pkcs12 *out)
{
    QByteArray data;
    if (auto problem = readFile(file, &data))
        return problem;
    QBuffer buffer(&data);
    buffer.open(QIODevice::ReadOnly);
    Pkcs12 read;
    if (!QSslCertificate::importPkcs12(&buffer, &read.key, &read.certificate, &read.chain,
                                       passphrase))
        return Text::tr("cannot open %1: wrong passphrase, not a PKCS#12 file, or one encrypted "
                        "with a legacy algorithm that OpenSSL 3 no longer reads (export it "
                        "again without -legacy)")
            .arg(file.shown);
    if (read.key.isNull() || read.certificate.isNull())
        return Text::tr("%1 holds no certificate and key").arg(file.shown);
    *out = read;
    return std::nullopt;
}

std::optional<bool> keyMatches(const QSslKey &privateKey, const QSslCertificate &certificate)
{
    const QSslKey publicKey = certificate.publicKey();
    if (publicKey.isNull() || publicKey.algorithm() != privateKey.algorithm())
        return publicKey.isNull() ? std::nullopt : std::optional<bool>(false);
    if (privateKey.algorithm() != QSsl::Rsa && privateKey.algorithm() != QSsl::Ec)
        return std::nullopt;
    const auto mine = publicOfPrivate(privateKey.toDer());
    const auto theirs = publicOfInfo(publicKey.toDer(), privateKey.algorithm() == QSsl::Rsa);
    if (!mine || !theirs)
        return std::nullopt;
    return *mine == *theirs;
}

} // namespace cooldown::tlsfiles
