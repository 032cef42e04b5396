// SPDX-License-Identifier: Apache-2.0
#include "core/check/Expectation.h"

#include "core/http/Redaction.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>

namespace cooldown {

namespace {

constexpr qsizetype kMaxFoundChars = 120;

QString shortened(const QString &text)
{
    if (text.size() <= kMaxFoundChars)
        return text;
    return text.left(kMaxFoundChars) + QStringLiteral("…");
}

// A JSON value as JSON text: "ok" with its quotes, 3, [1,2], null.
QString jsonText(const QJsonValue &value)
{
    if (value.isObject())
        return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
    if (value.isArray())
        return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    // A scalar: wrapped in an array, whose text is then "[...]".
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

// What `matches` reads of a value: a string as it is, anything else as JSON text.
QString matchText(const QJsonValue &value)
{
    return value.isString() ? value.toString() : jsonText(value);
}

QString opWords(const JsonCheck &c)
{
    switch (c.op) {
    case JsonCheck::Op::Exists:
        return QStringLiteral("exists");
    case JsonCheck::Op::Absent:
        return QStringLiteral("is absent");
    case JsonCheck::Op::Equals:
        return QStringLiteral("equals ") + jsonText(c.value);
    case JsonCheck::Op::Matches:
        return QStringLiteral("matches ") + jsonText(c.pattern.pattern());
    case JsonCheck::Op::OneOf:
        return QStringLiteral("is one of ") + jsonText(c.value);
    case JsonCheck::Op::Min:
        return QStringLiteral("is at least ") + jsonText(c.number);
    case JsonCheck::Op::Max:
        return QStringLiteral("is at most ") + jsonText(c.number);
    case JsonCheck::Op::MinItems:
        return QStringLiteral("has at least %1 items").arg(qint64(c.number));
    case JsonCheck::Op::MaxItems:
        return QStringLiteral("has at most %1 items").arg(qint64(c.number));
    }
    return {};
}

// Whether the value found passes; `found` describes it when it does not.
bool passes(const JsonCheck &c, const std::optional<QJsonValue> &value)
{
    if (c.op == JsonCheck::Op::Absent)
        return !value;
    if (!value)
        return false;
    switch (c.op) {
    case JsonCheck::Op::Exists:
    case JsonCheck::Op::Absent:
        return true;
    case JsonCheck::Op::Equals:
        return *value == c.value;
    case JsonCheck::Op::Matches:
        return c.pattern.match(matchText(*value)).hasMatch();
    case JsonCheck::Op::OneOf:
        return c.value.toArray().contains(*value);
    case JsonCheck::Op::Min:
        return value->isDouble() && value->toDouble() >= c.number;
    case JsonCheck::Op::Max:
        return value->isDouble() && value->toDouble() <= c.number;
    case JsonCheck::Op::MinItems:
    case JsonCheck::Op::MaxItems: {
        qsizetype n = -1;
        if (value->isArray())
            n = value->toArray().size();
        else if (value->isObject())
            n = value->toObject().size();
        if (n < 0)
            return false;
        return c.op == JsonCheck::Op::MinItems ? double(n) >= c.number : double(n) <= c.number;
    }
    }
    return false;
}

// What a failure reports of the value found: nothing of a member whose name says it
// holds a secret, and no URL's secret parts.
QString foundText(const JsonCheck &c, const std::optional<QJsonValue> &value)
{
    if (!value)
        return QStringLiteral("nothing there");
    const bool secret = std::any_of(c.pointer.tokens().cbegin(), c.pointer.tokens().cend(),
                                    [](const QString &t) { return redaction::isSecretName(t); });
    if (secret)
        return redaction::marker();
    if ((c.op == JsonCheck::Op::MinItems || c.op == JsonCheck::Op::MaxItems) &&
        (value->isArray() || value->isObject()))
        return QStringLiteral("%1 items")
            .arg(value->isArray() ? value->toArray().size() : value->toObject().size());
    return shortened(redaction::redactText(jsonText(*value)));
}

std::optional<CheckFailure> checkHeader(const HeaderCheck &c, const HttpHeaders &headers)
{
    const std::optional<QByteArray> raw = headers.value(c.name);
    const QString name = QString::fromLatin1(c.name);
    const QString value = raw ? QString::fromUtf8(*raw).trimmed() : QString();
    bool ok = false;
    QString words;
    switch (c.op) {
    case HeaderCheck::Op::Present:
        ok = raw.has_value();
        words = QStringLiteral("is present");
        break;
    case HeaderCheck::Op::Absent:
        ok = !raw.has_value();
        words = QStringLiteral("is absent");
        break;
    case HeaderCheck::Op::Equals:
        ok = raw && value == c.text;
        words = QStringLiteral("equals ") + jsonText(c.text);
        break;
    case HeaderCheck::Op::Matches:
        ok = raw && c.pattern.match(value).hasMatch();
        words = QStringLiteral("matches ") + jsonText(c.text);
        break;
    }
    if (ok)
        return std::nullopt;
    QString found = QStringLiteral("no such field");
    if (raw)
        found = redaction::isSecretName(name) ? redaction::marker()
                                              : shortened(redaction::redactText(value));
    return CheckFailure{QStringLiteral("header %1 %2").arg(name, words), found};
}

std::optional<CheckFailure> checkBodySize(const Expectation &e, const QByteArray &body,
                                          bool bodyTruncated)
{
    const QString found = bodyTruncated ? QStringLiteral("more than %1 bytes").arg(body.size())
                                        : QStringLiteral("%1 bytes").arg(body.size());
    if (e.maxBodyBytes >= 0 && (bodyTruncated || body.size() > e.maxBodyBytes))
        return CheckFailure{QStringLiteral("body is at most %1 bytes").arg(e.maxBodyBytes), found};
    if (e.minBodyBytes >= 0 && !bodyTruncated && body.size() < e.minBodyBytes)
        return CheckFailure{QStringLiteral("body is at least %1 bytes").arg(e.minBodyBytes), found};
    return std::nullopt;
}

std::optional<CheckFailure> checkJson(const Expectation &e, const QByteArray &body,
                                      bool bodyTruncated)
{
    if (e.json.isEmpty())
        return std::nullopt;
    const QString first = e.json.constFirst().path;
    if (bodyTruncated)
        return CheckFailure{
            first + QStringLiteral(": the body is JSON"),
            QStringLiteral("a body larger than the %1 bytes read").arg(body.size())};
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError)
        return CheckFailure{
            first + QStringLiteral(": the body is JSON"),
            QStringLiteral("%1 at byte %2").arg(error.errorString()).arg(error.offset)};
    const QJsonValue root =
        document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
    for (const JsonCheck &c : e.json) {
        const std::optional<QJsonValue> value = c.pointer.find(root);
        if (!passes(c, value))
            return CheckFailure{QStringLiteral("%1 %2 %3")
                                    .arg(c.path,
                                         c.pointer.text().isEmpty() ? QStringLiteral("(the body)")
                                                                    : c.pointer.text(),
                                         opWords(c)),
                                foundText(c, value)};
    }
    return std::nullopt;
}

} // namespace

QString CheckFailure::text() const
{
    return found.isEmpty() ? assertion : QStringLiteral("%1; found: %2").arg(assertion, found);
}

bool Expectation::isEmpty() const
{
    return statuses.isEmpty() && headers.isEmpty() && json.isEmpty() && bodyPatternText.isEmpty() &&
           minBodyBytes < 0 && maxBodyBytes < 0;
}

bool Expectation::allowsStatus(int status) const
{
    if (statuses.isEmpty())
        return status >= 200 && status < 300;
    return std::any_of(statuses.cbegin(), statuses.cend(), [status](const StatusRange &r) {
        return status >= r.low && status <= r.high;
    });
}

QString Expectation::statusText() const
{
    if (statuses.isEmpty())
        return QStringLiteral("2xx");
    QStringList parts;
    for (const StatusRange &r : statuses)
        parts << (r.low == r.high ? QString::number(r.low)
                                  : QStringLiteral("%1-%2").arg(r.low).arg(r.high));
    return parts.join(QStringLiteral(", "));
}

std::optional<CheckFailure> Expectation::check(const HttpHeaders &headers, const QByteArray &body,
                                               bool bodyTruncated) const
{
    for (const HeaderCheck &c : this->headers) {
        if (auto failure = checkHeader(c, headers))
            return failure;
    }
    if (auto failure = checkBodySize(*this, body, bodyTruncated))
        return failure;
    if (!bodyPatternText.isEmpty()) {
        if (bodyTruncated)
            return CheckFailure{
                QStringLiteral("body matches %1").arg(jsonText(bodyPatternText)),
                QStringLiteral("a body larger than the %1 bytes read").arg(body.size())};
        if (!bodyPattern.match(QString::fromUtf8(body)).hasMatch())
            return CheckFailure{QStringLiteral("body matches %1").arg(jsonText(bodyPatternText)),
                                QStringLiteral("%1 bytes that do not").arg(body.size())};
    }
    return checkJson(*this, body, bodyTruncated);
}

} // namespace cooldown
