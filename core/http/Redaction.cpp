// SPDX-License-Identifier: Apache-2.0
#include "core/http/Redaction.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QStringList>
#include <QUrl>
#include <QUrlQuery>
#include <QVarLengthArray>

#include <algorithm>
#include <string_view>

namespace cooldown::redaction {

namespace {

// Names that are credentials as a whole word of a header or parameter name.
const char *const kSecretWords[] = {
    "key",       "apikey", "token",         "secret",     "password",
    "passwd",    "pwd",    "pass",          "passphrase", "sig",
    "signature", "auth",   "authorization", "credential", "credentials",
    "cookie",    "jwt",    "bearer",        "session",    "sessionid",
    "sid",       "otp",    "privatekey",    "accesskey",  "secretkey",
};

// Fragments that mark a secret even when glued to other words (clientsecret, xapikey).
const char *const kSecretFragments[] = {
    "secret",      "password",    "passwd",     "apikey",       "signature",
    "credential",  "accesstoken", "authtoken",  "refreshtoken", "idtoken",
    "bearertoken", "accesskey",   "privatekey", "sessionid",    "authorization",
};

bool isAsciiLetterOrDigit(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9');
}

// Calls visit(word) with each lower-case word of a name: "X-API-Key", "client_secret"
// and "accessToken" split alike. Stops at, and returns true for, the first word visit
// accepts. Allocates nothing: this runs for every header of every attempt stored.
template <typename Visit> bool anyNameWord(QStringView name, Visit visit)
{
    QVarLengthArray<char, 64> word;
    const auto done = [&] {
        const bool found =
            !word.isEmpty() && visit(std::string_view(word.data(), size_t(word.size())));
        word.clear();
        return found;
    };
    char previous = 0;
    for (const QChar c : name) {
        if (!isAsciiLetterOrDigit(c)) {
            if (done())
                return true;
            previous = 0;
            continue;
        }
        const char ascii = char(c.unicode());
        const bool upper = ascii >= 'A' && ascii <= 'Z';
        if (upper && previous >= 'a' && previous <= 'z' && done())
            return true;
        word.append(upper ? char(ascii - 'A' + 'a') : ascii);
        previous = ascii;
    }
    return done();
}

QString redactParameters(QStringView part)
{
    QString out;
    out.reserve(part.size());
    qsizetype start = 0;
    while (start <= part.size()) {
        qsizetype end = start;
        while (end < part.size() && part[end] != u'&' && part[end] != u';')
            ++end;
        const QStringView pair = part.mid(start, end - start);
        const qsizetype equals = pair.indexOf(u'=');
        const QStringView rawName = equals < 0 ? pair : pair.left(equals);
        const QString name = QUrl::fromPercentEncoding(rawName.toString().toUtf8());
        if (equals >= 0 && isSecretName(name)) {
            out += rawName;
            out += u'=';
            out += marker();
        } else {
            out += pair;
        }
        if (end < part.size())
            out += part[end];
        start = end + 1;
    }
    return out;
}

bool isSchemeChar(QChar c)
{
    return isAsciiLetterOrDigit(c) || c == u'+' || c == u'-' || c == u'.';
}

bool endsUrl(QChar c)
{
    return c.isSpace() || c == u'"' || c == u'\'' || c == u'<' || c == u'>' || c == u'`';
}

QString redactUrlsOnly(const QString &text)
{
    if (!text.contains(QLatin1String("://")))
        return text;
    QString out;
    qsizetype copied = 0;
    qsizetype searchFrom = 0;
    while (true) {
        const qsizetype separator = text.indexOf(QLatin1String("://"), searchFrom);
        if (separator < 0)
            break;
        qsizetype start = separator;
        while (start > copied && isSchemeChar(text[start - 1]))
            --start;
        searchFrom = separator + 3;
        if (start == separator) // "://" without a scheme is not a URL
            continue;
        qsizetype end = separator + 3;
        while (end < text.size() && !endsUrl(text[end]))
            ++end;
        out += QStringView(text).mid(copied, start - copied);
        out += redactUrl(text.mid(start, end - start));
        copied = end;
        searchFrom = end;
    }
    out += QStringView(text).mid(copied);
    return out;
}

QString redactValue(const QString &name, const QString &value)
{
    return isSecretName(name) ? marker() : redactUrlsOnly(value);
}

} // namespace

QString marker()
{
    return QStringLiteral("[redacted]");
}

bool isSecretName(QStringView name)
{
    const QStringView trimmed = name.trimmed();
    for (const char *exempt : {"idempotency-key", "x-idempotency-key", "idempotency_key"}) {
        if (trimmed.compare(QLatin1String(exempt), Qt::CaseInsensitive) == 0)
            return false;
    }
    return anyNameWord(name, [](std::string_view word) {
        for (const char *secret : kSecretWords) {
            if (word == secret)
                return true;
        }
        for (const char *fragment : kSecretFragments) {
            if (word.find(fragment) != std::string_view::npos)
                return true;
        }
        return false;
    });
}

QString redactUrl(const QString &url)
{
    const qsizetype schemeEnd = url.indexOf(QLatin1String("://"));
    qsizetype pathStart = 0;
    QString out;
    if (schemeEnd > 0) {
        const qsizetype authorityStart = schemeEnd + 3;
        qsizetype authorityEnd = authorityStart;
        while (authorityEnd < url.size() && url[authorityEnd] != u'/' &&
               url[authorityEnd] != u'?' && url[authorityEnd] != u'#')
            ++authorityEnd;
        const QStringView authority =
            QStringView(url).mid(authorityStart, authorityEnd - authorityStart);
        const qsizetype at = authority.lastIndexOf(u'@');
        out += QStringView(url).left(authorityStart);
        if (at >= 0) {
            const QStringView userInfo = authority.left(at);
            const qsizetype colon = userInfo.indexOf(u':');
            const QString scheme = url.left(schemeEnd).toLower();
            if (colon >= 0) {
                out += userInfo.left(colon);
                out += u':';
                out += marker();
            } else if (scheme == QLatin1String("http") || scheme == QLatin1String("https")) {
                // A lone user name in a web URL is how tokens are usually passed.
                out += marker();
            } else {
                out += userInfo;
            }
            out += authority.mid(at);
        } else {
            out += authority;
        }
        pathStart = authorityEnd;
    }
    const qsizetype query = url.indexOf(u'?', pathStart);
    const qsizetype fragment = url.indexOf(u'#', pathStart);
    const qsizetype pathEnd = query >= 0 ? query : (fragment >= 0 ? fragment : url.size());
    out += QStringView(url).mid(pathStart, pathEnd - pathStart);
    if (query >= 0) {
        const qsizetype queryEnd = fragment > query ? fragment : url.size();
        out += u'?';
        out += redactParameters(QStringView(url).mid(query + 1, queryEnd - query - 1));
    }
    if (fragment >= 0 && (query < 0 || fragment > query)) {
        // OAuth's implicit flow returns access_token in the fragment.
        out += u'#';
        out += redactParameters(QStringView(url).mid(fragment + 1));
    }
    return out;
}

QString redactUrls(const QString &text)
{
    return redactUrlsOnly(text);
}

QString redactText(const QString &text)
{
    // Free text sometimes quotes a request, header lines included.
    return redactHeaderLines(text);
}

namespace {

// The name of a "Name: value" line, or an empty view when the line is not one.
QStringView headerName(QStringView line)
{
    const qsizetype colon = line.indexOf(u':');
    if (colon <= 0)
        return {};
    const QStringView name = line.left(colon);
    const QStringView trimmed = name.trimmed();
    if (trimmed.isEmpty() || trimmed.contains(u' ') ||
        line.mid(colon).startsWith(QLatin1String("://")))
        return {};
    return name;
}

// Most header blocks hold no secret and no URL: they are kept as they are, shared.
bool needsRedaction(const QString &lines)
{
    if (lines.contains(QLatin1String("://")))
        return true;
    for (const QStringView line : QStringView(lines).split(u'\n')) {
        const QStringView name = headerName(line);
        if (!name.isEmpty() && isSecretName(name))
            return true;
    }
    return false;
}

} // namespace

QString redactHeaderLines(const QString &lines)
{
    if (!needsRedaction(lines))
        return lines;
    const QStringList parts = lines.split(u'\n');
    QStringList out;
    out.reserve(parts.size());
    for (const QString &line : parts) {
        const QStringView name = headerName(line);
        if (name.isEmpty()) {
            out.append(redactUrlsOnly(line));
            continue;
        }
        const QString rest = line.mid(name.size() + 1);
        if (!isSecretName(name)) {
            out.append(name.toString() + u':' + redactUrlsOnly(rest));
            continue;
        }
        out.append(name.toString() + u':' +
                   (rest.startsWith(u' ') ? QStringLiteral(" ") : QString()) + marker() +
                   (rest.endsWith(u'\r') ? QStringLiteral("\r") : QString()));
    }
    return out.join(u'\n');
}

HttpHeaders redactHeaders(const HttpHeaders &headers)
{
    HttpHeaders out;
    for (const HttpHeaders::Field &field : headers.fields()) {
        const QString name = QString::fromLatin1(field.first);
        out.append(field.first, redactValue(name, QString::fromUtf8(field.second)).toUtf8());
    }
    return out;
}

QString headerLines(const HttpHeaders &headers)
{
    QString out;
    for (const HttpHeaders::Field &field : headers.fields()) {
        const QString name = QString::fromLatin1(field.first);
        out += name + QStringLiteral(": ") + redactValue(name, QString::fromUtf8(field.second)) +
               u'\n';
    }
    return out;
}

namespace {

// The JSON value with the values of secret-named members replaced; *changed when any was.
QJsonValue withoutSecretMembers(const QJsonValue &value, bool *changed)
{
    if (value.isArray()) {
        QJsonArray array = value.toArray();
        for (qsizetype i = 0; i < array.size(); ++i)
            array[i] = withoutSecretMembers(array.at(i), changed);
        return array;
    }
    if (!value.isObject())
        return value;
    QJsonObject object = value.toObject();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (isSecretName(it.key()) && !it.value().isObject() && !it.value().isArray()) {
            *changed = true;
            it.value() = marker();
        } else {
            it.value() = withoutSecretMembers(it.value(), changed);
        }
    }
    return object;
}

QString redactJsonBody(const QByteArray &body, bool *parsed)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    *parsed = error.error == QJsonParseError::NoError;
    if (!*parsed)
        return {};
    bool changed = false;
    const QJsonValue root = withoutSecretMembers(document.isArray() ? QJsonValue(document.array())
                                                                    : QJsonValue(document.object()),
                                                 &changed);
    if (!changed)
        return QString::fromUtf8(body);
    const QJsonDocument out =
        root.isArray() ? QJsonDocument(root.toArray()) : QJsonDocument(root.toObject());
    return QString::fromUtf8(out.toJson(QJsonDocument::Compact));
}

// Text that is not whole JSON (a body cut short, or JSON inside other text): each
// "name": "value" whose name says secret loses its value.
QString redactJsonMembers(const QString &text)
{
    static const QRegularExpression kMember(
        QStringLiteral("\"([^\"\\\\]{1,100})\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)(\"|$)"));
    QString out;
    qsizetype last = 0;
    auto it = kMember.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        if (!isSecretName(m.captured(1)))
            continue;
        out += QStringView(text).mid(last, m.capturedStart(2) - last);
        out += marker();
        last = m.capturedEnd(2);
    }
    out += QStringView(text).mid(last);
    return out;
}

QString redactForm(const QString &body)
{
    QStringList pairs = body.split(u'&');
    for (QString &pair : pairs) {
        const qsizetype equals = pair.indexOf(u'=');
        const QString name = QUrl::fromPercentEncoding(pair.left(equals).toUtf8());
        if (equals > 0 && isSecretName(name))
            pair = pair.left(equals + 1) + marker();
    }
    return pairs.join(u'&');
}

} // namespace

QStringList secretValues(const HttpHeaders &headers)
{
    QStringList out;
    for (const auto &field : headers.fields()) {
        if (!isSecretName(QString::fromLatin1(field.first)))
            continue;
        const QString value = QString::fromUtf8(field.second).trimmed();
        out.append(value);
        const qsizetype space = value.indexOf(u' ');
        if (space > 0)
            out.append(value.mid(space + 1).trimmed());
    }
    return out;
}

QString scrub(QString text, const QStringList &secrets)
{
    for (const QString &secret : secrets) {
        if (secret.size() < 4)
            continue;
        // As written, and as a form or a URL (percent-encoded) or JSON ("\/", "\"",
        // "\\") would carry it.
        text.replace(secret, marker());
        const QString encoded = QString::fromLatin1(QUrl::toPercentEncoding(secret));
        if (encoded != secret)
            text.replace(encoded, marker(), Qt::CaseInsensitive);
        QString escaped = secret;
        escaped.replace(u'\\', QLatin1String("\\\\"))
            .replace(u'"', QLatin1String("\\\""))
            .replace(u'/', QLatin1String("\\/"));
        if (escaped != secret)
            text.replace(escaped, marker());
    }
    return text;
}

QString redactBody(const QByteArray &body, QByteArrayView contentType, qsizetype maxBytes,
                   const QStringList &secrets)
{
    // Secrets first, over the whole body: a cut must not keep the first half of one.
    const QString whole = scrub(QString::fromUtf8(body), secrets);
    bool parsed = false;
    QString text = redactJsonBody(whole.toUtf8(), &parsed);
    if (parsed)
        text = redactUrls(text);
    else if (contentType.toByteArray().toLower().startsWith("application/x-www-form-urlencoded"))
        text = redactText(redactForm(whole));
    else
        text = redactText(redactJsonMembers(whole));
    QByteArray utf8 = text.toUtf8();
    if (utf8.size() <= maxBytes)
        return text;
    // Cut between characters, never inside one.
    qsizetype end = std::max<qsizetype>(0, maxBytes);
    while (end > 0 && (uchar(utf8.at(end)) & 0xc0) == 0x80)
        --end;
    utf8.truncate(end);
    return QString::fromUtf8(utf8);
}

} // namespace cooldown::redaction
