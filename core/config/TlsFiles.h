// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QSslCertificate>
#include <QSslKey>
#include <QString>

#include <optional>

namespace cooldown::tlsfiles {

// Key material named by a workspace's "tls" entries, read when the workspace is
// loaded. Each reader returns what was wrong (naming the file, not the JSON path,
// which the caller adds), or nothing when *out holds what the file held.

// A file to read and the name its messages give it. The name is the path as the
// workspace wrote it when that took a value from the environment, which may be a
// secret and must not reach a message; otherwise the path itself.
struct File
{
    QString path;
    QString shown;
};

// A file may hold one CA certificate or a whole bundle.
std::optional<QString> readCertificates(const File &file, QList<QSslCertificate> *out);

// RSA, EC or DSA, PKCS#1, SEC 1 or PKCS#8, encrypted or not. passphrase is used only
// when the file is encrypted; an encrypted file without one is refused as such.
std::optional<QString> readPrivateKey(const File &file, const std::optional<QByteArray> &passphrase,
                                      QSslKey *out);

struct Pkcs12
{
    QSslKey key;
    QSslCertificate certificate;
    QList<QSslCertificate> chain;
};
std::optional<QString> readPkcs12(const File &file, const QByteArray &passphrase, Pkcs12 *out);

// Whether privateKey is the private half of the certificate's public key, compared
// on the DER Qt gives for both (the RSA modulus and exponent, or the EC point): Qt has
// no call for it, and a wrong pair would otherwise show only as a handshake the
// server refuses. nullopt when the encodings do not say (another algorithm, or an EC
// key written without its public point).
std::optional<bool> keyMatches(const QSslKey &privateKey, const QSslCertificate &certificate);

} // namespace cooldown::tlsfiles
