// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"

#include <QString>
#include <QStringView>

namespace cooldown::redaction {

// What replaces a secret value. Fixed so that an operator can search for it.
QString marker();

// True for header or query parameter names that carry credentials:
// Authorization, Proxy-Authorization, Cookie, Set-Cookie, and any name whose words
// say key, token, secret, password, signature or credential (api_key, X-API-Key,
// access_token, client_secret, passwd, sig, X-Amz-Signature, ...). Idempotency-Key
// is not a secret: it is the operation's own identifier and is kept.
bool isSecretName(QStringView name);

// The URL with the values of secret query parameters and any userinfo password
// replaced by the marker. Text that does not parse as a URL is scanned as free text.
QString redactUrl(const QString &url);

// Every http:// or https:// URL inside free text (error messages, header values
// such as Location or Link) redacted as by redactUrl().
QString redactText(const QString &text);

// Every URL inside text redacted as by redactUrl(), and nothing else changed: for
// text with a syntax of its own, such as JSON.
QString redactUrls(const QString &text);

// "Name: value" lines, one field per line; secret fields keep their name and lose
// their value, other values go through redactText().
QString redactHeaderLines(const QString &lines);

// The same for parsed header fields.
HttpHeaders redactHeaders(const HttpHeaders &headers);

// Header fields as stored: "Name: value\n" per field, redacted.
QString headerLines(const HttpHeaders &headers);

// The secret values that header fields carry: the value of each field with a secret
// name, and the credentials after an authentication scheme ("Bearer abc": also abc).
QStringList secretValues(const HttpHeaders &headers);

// text with every occurrence of each of `secrets` (of 4 characters or more: shorter
// ones would take ordinary words with them) replaced by the marker.
QString scrub(QString text, const QStringList &secrets);

// A body as it may be kept (docs/checks.md): scrubbed of `secrets` (over the whole
// body, before any cut); JSON with the values of members whose names say secret
// replaced (also in JSON cut short), a form (application/x-www-form-urlencoded) with
// those parameters' values replaced, URLs redacted as by redactText(); then cut to
// maxBytes of UTF-8, between characters.
QString redactBody(const QByteArray &body, QByteArrayView contentType, qsizetype maxBytes,
                   const QStringList &secrets);

} // namespace cooldown::redaction
