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

// "Name: value" lines, one field per line; secret fields keep their name and lose
// their value, other values go through redactText().
QString redactHeaderLines(const QString &lines);

// The same for parsed header fields.
HttpHeaders redactHeaders(const HttpHeaders &headers);

// Header fields as stored: "Name: value\n" per field, redacted.
QString headerLines(const HttpHeaders &headers);

} // namespace cooldown::redaction
