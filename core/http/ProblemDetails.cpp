// SPDX-License-Identifier: Apache-2.0
#include "core/http/ProblemDetails.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <cmath>

namespace cooldown {

namespace {

bool isProblemJson(const std::optional<QByteArray> &contentType)
{
    if (!contentType)
        return false;
    const qsizetype semicolon = contentType->indexOf(';');
    const QByteArray mediaType =
        (semicolon < 0 ? *contentType : contentType->left(semicolon)).trimmed();
    return mediaType.compare("application/problem+json", Qt::CaseInsensitive) == 0;
}

// The registered URIs of the draft; servers that mint their own URIs for the same
// problems usually keep the name as the last fragment or path segment.
QString problemName(const QString &type)
{
    const qsizetype cut =
        std::max(type.lastIndexOf(QLatin1Char('#')), type.lastIndexOf(QLatin1Char('/')));
    return cut < 0 ? type : type.mid(cut + 1);
}

} // namespace

ProblemDetails::Kind ProblemDetails::kind() const
{
    if (!present)
        return Kind::None;
    const QString name = problemName(type);
    if (name == QLatin1String("quota-exceeded"))
        return Kind::QuotaExceeded;
    if (name == QLatin1String("temporary-reduced-capacity"))
        return Kind::TemporaryReducedCapacity;
    if (name == QLatin1String("abnormal-usage-detected"))
        return Kind::AbnormalUsageDetected;
    return Kind::Other;
}

QStringList ProblemDetails::violatedPolicies() const
{
    QStringList names;
    const QJsonValue value = extensions.value(QStringLiteral("violated-policies"));
    if (!value.isArray())
        return names;
    const QJsonArray array = value.toArray();
    for (const QJsonValue &entry : array) {
        if (entry.isString())
            names.append(entry.toString());
    }
    return names;
}

QJsonObject ProblemDetails::toJson() const
{
    auto textOrNull = [](const QString &text) {
        return text.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(text);
    };
    QJsonObject json{
        {QStringLiteral("type"), type},
        {QStringLiteral("title"), textOrNull(title)},
        {QStringLiteral("status"), status ? QJsonValue(*status) : QJsonValue(QJsonValue::Null)},
        {QStringLiteral("detail"), textOrNull(detail)},
        {QStringLiteral("instance"), textOrNull(instance)},
        {QStringLiteral("kind"), QLatin1String(cooldown::textOf(kind()))},
        {QStringLiteral("extensions"), extensions},
    };
    if (!ignoredMembers.isEmpty())
        json.insert(QStringLiteral("ignored_members"), QJsonArray::fromStringList(ignoredMembers));
    if (!error.isEmpty())
        json.insert(QStringLiteral("error"), error);
    return json;
}

ProblemDetails ProblemDetails::parse(const HttpHeaders &headers, const QByteArray &body)
{
    return parse(headers.value("Content-Type"), body);
}

ProblemDetails ProblemDetails::parse(const std::optional<QByteArray> &contentType,
                                     const QByteArray &body)
{
    ProblemDetails problem;
    if (!isProblemJson(contentType))
        return problem;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        problem.error = QStringLiteral("the application/problem+json body is not JSON: %1 at "
                                       "offset %2")
                            .arg(parseError.errorString())
                            .arg(parseError.offset);
        return problem;
    }
    if (!document.isObject()) {
        problem.error = QStringLiteral("the application/problem+json body is not a JSON object");
        return problem;
    }
    problem.present = true;
    const QJsonObject object = document.object();
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QString &name = it.key();
        const QJsonValue value = it.value();
        auto takeString = [&](QString *field) {
            if (value.isString())
                *field = value.toString();
            else
                problem.ignoredMembers.append(name);
        };
        if (name == QLatin1String("type")) {
            takeString(&problem.type);
        } else if (name == QLatin1String("title")) {
            takeString(&problem.title);
        } else if (name == QLatin1String("detail")) {
            takeString(&problem.detail);
        } else if (name == QLatin1String("instance")) {
            takeString(&problem.instance);
        } else if (name == QLatin1String("status")) {
            // A JSON number that is an HTTP status code; anything else is ignored.
            const double number = value.toDouble(-1);
            if (value.isDouble() && number == std::floor(number) && number >= 100 && number <= 599)
                problem.status = int(number);
            else
                problem.ignoredMembers.append(name);
        } else {
            problem.extensions.insert(name, value);
        }
    }
    if (problem.type.isEmpty())
        problem.type = QStringLiteral("about:blank");
    return problem;
}

const char *textOf(ProblemDetails::Kind kind)
{
    switch (kind) {
    case ProblemDetails::Kind::None:
        return "none";
    case ProblemDetails::Kind::QuotaExceeded:
        return "quota-exceeded";
    case ProblemDetails::Kind::TemporaryReducedCapacity:
        return "temporary-reduced-capacity";
    case ProblemDetails::Kind::AbnormalUsageDetected:
        return "abnormal-usage-detected";
    case ProblemDetails::Kind::Other:
        return "other";
    }
    return "none";
}

} // namespace cooldown
