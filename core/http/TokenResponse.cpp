// SPDX-License-Identifier: Apache-2.0
#include "core/http/TokenResponse.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace cooldown {

namespace {

// Longer descriptions are cut: they end up in logs and in the window.
constexpr qsizetype kMaxDescription = 200;

QString oneLine(QString text)
{
    text.replace(QLatin1Char('\r'), QLatin1Char(' '));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    if (text.size() > kMaxDescription)
        text = text.left(kMaxDescription) + QStringLiteral("...");
    return text;
}

} // namespace

TokenResponse TokenResponse::parse(int status, const QByteArray &body)
{
    TokenResponse r;
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    const QJsonObject o = doc.object();
    if (status >= 200 && status < 300) {
        if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
            r.error = QStringLiteral("token_response_unreadable");
            r.errorDescription = QStringLiteral("the token endpoint's answer is not a JSON object");
            return r;
        }
        const QJsonValue token = o.value(QLatin1String("access_token"));
        if (!token.isString() || token.toString().isEmpty()) {
            r.error = QStringLiteral("token_response_unreadable");
            r.errorDescription = QStringLiteral("the token endpoint's answer has no access_token");
            return r;
        }
        const QByteArray value = token.toString().toUtf8();
        // It goes into a header: anything but visible ASCII would break the request.
        for (const char c : value) {
            if (uchar(c) < 0x21 || uchar(c) > 0x7e) {
                r.error = QStringLiteral("token_response_unreadable");
                r.errorDescription =
                    QStringLiteral("the access_token holds characters a header cannot carry");
                return r;
            }
        }
        const QJsonValue type = o.value(QLatin1String("token_type"));
        r.tokenType = type.isString() ? type.toString() : QStringLiteral("Bearer");
        if (r.tokenType.compare(QLatin1String("Bearer"), Qt::CaseInsensitive) != 0) {
            r.error = QStringLiteral("token_type_unsupported");
            r.errorDescription =
                QStringLiteral("token_type '%1' is not Bearer").arg(oneLine(r.tokenType));
            r.tokenType.clear();
            return r;
        }
        r.tokenType = QStringLiteral("Bearer");
        // expires_in is a number of seconds; some servers send it as a string.
        const QJsonValue expires = o.value(QLatin1String("expires_in"));
        double seconds = std::nan("");
        if (expires.isDouble())
            seconds = expires.toDouble();
        else if (expires.isString())
            seconds = expires.toString().toDouble();
        // Under a second is no lifetime a token can be used in: read as not said, so
        // that the credential's default_lifetime_seconds applies and a server's 401
        // drops it if it was meant.
        if (std::isfinite(seconds) && seconds >= 1 && seconds < 1e9)
            r.expiresInSeconds = qint64(seconds);
        const QJsonValue scope = o.value(QLatin1String("scope"));
        if (scope.isString())
            r.scope = oneLine(scope.toString());
        r.accessToken = value;
        r.kind = Kind::Token;
        return r;
    }
    if (doc.isObject() && o.value(QLatin1String("error")).isString() &&
        !o.value(QLatin1String("error")).toString().trimmed().isEmpty()) {
        r.error = oneLine(o.value(QLatin1String("error")).toString());
        const QJsonValue description = o.value(QLatin1String("error_description"));
        if (description.isString())
            r.errorDescription = oneLine(description.toString());
    } else {
        r.error = QStringLiteral("http_%1").arg(status);
    }
    // A refusal is the server's word on the client: an RFC 6749 error code, or any 4xx
    // but a timeout and a throttle (a wrong token URL answers 404 for ever). A 5xx, a
    // 408 or a 429 is a server that may recover, whatever its body says.
    if (status >= 400 && status < 500 && status != 408 && status != 429)
        r.kind = Kind::Refused;
    // Redirects are not followed with a client's secret in the request: token_url must
    // be the endpoint's own address, and no retry changes that.
    if (status >= 300 && status < 400) {
        r.kind = Kind::Refused;
        r.errorDescription =
            QStringLiteral("the token endpoint redirects; give token_url its final address");
    }
    return r;
}

} // namespace cooldown
