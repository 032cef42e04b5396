// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace cooldown {

// The request a curl command line makes (docs/import.md): read from its words, never
// run. The options curl users paste from API documentation and browsers' "Copy as
// cURL" are read; an option that would change the request in a way this cannot
// represent is refused by name, and options that change nothing about the request (-s,
// -v, -L, ...) are listed in `ignored`.
struct CurlRequest
{
    QByteArray method; // as given with -X, or GET, HEAD (-I) or POST (with data)
    QUrl url;          // with the data of -G in its query
    // In the order given; a header given twice keeps both. Cookies (-b) come as one
    // Cookie header, the user agent (-A) and referer (-e) as theirs.
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    bool hasBody = false;
    // -u user:password, as given (a password that is not given stays empty).
    QString user;
    QString password;
    bool insecure = false;   // -k: the server's certificate is not checked
    bool compressed = false; // --compressed
    QStringList ignored;     // options with no effect on the request

    QByteArray header(const QByteArray &name) const;
};

// A URL as text that may hold ${env:NAME} and ${job:NAME} references, as the QUrl a
// CurlRequest holds: QUrl takes no braces, so they are percent-encoded, and the endpoint's
// URL is written with the references as they were (EndpointImport).
QUrl urlWithReferences(const QString &text);

// words: the command's words (ShellWords), the first being curl itself. Files named by
// @file (-d, --data-binary, --data-urlencode, -F, -T) are read relative to baseDir.
// nullopt with *error naming the option (or word) at fault.
std::optional<CurlRequest> parseCurl(const QStringList &words, const QString &baseDir,
                                     QString *error);

} // namespace cooldown
