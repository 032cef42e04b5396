// SPDX-License-Identifier: Apache-2.0
#include "core/config/JobRequest.h"

#include "core/config/JsonReader.h"
#include "core/config/WorkspaceConfig.h"
#include "core/time/IsoTime.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QRegularExpression>

#include <algorithm>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

const QRegularExpression &placeholderPattern()
{
    static const QRegularExpression kPattern(QStringLiteral(R"(\$\{job:([A-Za-z0-9_.]+)\})"));
    return kPattern;
}

QString jsonStringInside(const QString &value)
{
    QString out;
    out.reserve(value.size());
    for (const QChar c : value) {
        switch (c.unicode()) {
        case '"':
            out += QLatin1String("\\\"");
            break;
        case '\\':
            out += QLatin1String("\\\\");
            break;
        case '\n':
            out += QLatin1String("\\n");
            break;
        case '\r':
            out += QLatin1String("\\r");
            break;
        case '\t':
            out += QLatin1String("\\t");
            break;
        default:
            if (c.unicode() < 0x20)
                out += QStringLiteral("\\u%1").arg(c.unicode(), 4, 16, QLatin1Char('0'));
            else
                out += c;
        }
    }
    return out;
}

bool bodyIsJson(const EndpointConfig &endpoint)
{
    const auto type = endpoint.headerTemplates.value("Content-Type");
    return type && type->toLower().contains("json");
}

} // namespace

namespace jobtemplate {

QStringList placeholders(QStringView text)
{
    QStringList names;
    auto it = placeholderPattern().globalMatch(text);
    while (it.hasNext()) {
        const QString name = it.next().captured(1);
        if (!names.contains(name))
            names.append(name);
    }
    return names;
}

std::optional<QString> fill(QStringView text, const JobValues &values, Escape escape,
                            QString *problem)
{
    // Most fields of a template hold no placeholder; they need no pattern run.
    if (!text.contains(QLatin1String("${job:")))
        return text.toString();
    QString out;
    qsizetype last = 0;
    auto it = placeholderPattern().globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        const QString name = m.captured(1);
        const auto value = values.constFind(name);
        if (value == values.constEnd()) {
            *problem = Text::tr("no value for ${job:%1}").arg(name);
            return std::nullopt;
        }
        switch (escape) {
        case Escape::None:
            out += *value;
            break;
        case Escape::Url:
            out += QString::fromLatin1(QUrl::toPercentEncoding(*value));
            break;
        case Escape::Json:
            out += jsonStringInside(*value);
            break;
        case Escape::HeaderValue:
            if (std::any_of(value->cbegin(), value->cend(), [](QChar c) {
                    return (c.unicode() < 0x20 && c != QLatin1Char('\t')) || c.unicode() == 0x7f;
                })) {
                *problem = Text::tr("the value of ${job:%1} goes into a header field and cannot "
                                    "hold control characters or line breaks")
                               .arg(name);
                return std::nullopt;
            }
            out += *value;
            break;
        }
        last = m.capturedEnd();
    }
    out += text.mid(last);
    return out;
}

} // namespace jobtemplate

std::optional<JobRequest> JobRequest::fromJson(const QJsonObject &object, const QString &path,
                                               QString *error)
{
    QString problem;
    JsonReader r(&problem);
    r.checkKnownKeys(object, path,
                     {QStringLiteral("endpoint"), QStringLiteral("vars"), QStringLiteral("body"),
                      QStringLiteral("partition_key"), QStringLiteral("idempotency_key"),
                      QStringLiteral("not_before")});
    JobRequest job;
    job.endpointId = r.string(object, QStringLiteral("endpoint"), path, true);
    const QString varsPath = JsonReader::join(path, QStringLiteral("vars"));
    if (r.ok() && object.contains(QStringLiteral("vars"))) {
        if (const auto vars = r.object(object.value(QStringLiteral("vars")), varsPath)) {
            for (auto it = vars->begin(); it != vars->end() && r.ok(); ++it) {
                if (it.value().isString())
                    job.values.insert(it.key(), it.value().toString());
                else if (it.value().isDouble())
                    job.values.insert(it.key(), QString::number(it.value().toDouble(), 'g', 17));
                else
                    r.fail(JsonReader::join(varsPath, it.key()),
                           Text::tr("expected a string or a number"));
            }
        }
    }
    if (r.ok() && object.contains(QStringLiteral("body")))
        job.body = r.string(object, QStringLiteral("body"), path, false).toUtf8();
    job.partitionKey = r.string(object, QStringLiteral("partition_key"), path, false);
    job.idempotencyKey = r.string(object, QStringLiteral("idempotency_key"), path, false);
    const QString notBefore = r.string(object, QStringLiteral("not_before"), path, false);
    if (r.ok() && !notBefore.isEmpty()) {
        const std::optional<qint64> at = parseIsoTimeMs(notBefore);
        if (!at)
            r.fail(JsonReader::join(path, QStringLiteral("not_before")),
                   Text::tr("expected an ISO 8601 time, got '%1'").arg(notBefore));
        else
            job.notBeforeMs = *at;
    }
    if (!r.ok()) {
        *error = problem;
        return std::nullopt;
    }
    return job;
}

std::optional<FilledRequest> fillRequest(const EndpointConfig &endpoint, const JobValues &values,
                                         const QByteArray &bodyOverride, QString *problem)
{
    using jobtemplate::Escape;
    FilledRequest out;
    if (endpoint.jobFields.isEmpty()) {
        out.url = endpoint.url;
        out.headers = endpoint.headers;
        out.body = bodyOverride.isEmpty() ? endpoint.body : bodyOverride;
        out.partitionKey = endpoint.partitionKey;
        return out;
    }
    const auto url = jobtemplate::fill(endpoint.urlTemplate, values, Escape::Url, problem);
    if (!url)
        return std::nullopt;
    out.url = QUrl(*url, QUrl::StrictMode);
    if (!out.url.isValid()) {
        *problem = Text::tr("the filled URL is not valid: %1").arg(out.url.errorString());
        return std::nullopt;
    }
    for (const HttpHeaders::Field &field : endpoint.headers.fields()) {
        const auto value = jobtemplate::fill(QString::fromUtf8(field.second), values,
                                             Escape::HeaderValue, problem);
        if (!value)
            return std::nullopt;
        out.headers.append(field.first, value->toUtf8());
    }
    if (!bodyOverride.isEmpty()) {
        out.body = bodyOverride;
    } else {
        const auto body =
            jobtemplate::fill(QString::fromUtf8(endpoint.body), values,
                              bodyIsJson(endpoint) ? Escape::Json : Escape::None, problem);
        if (!body)
            return std::nullopt;
        out.body = body->toUtf8();
    }
    const auto partition = jobtemplate::fill(endpoint.partitionKey, values, Escape::None, problem);
    if (!partition)
        return std::nullopt;
    out.partitionKey = *partition;
    return out;
}

std::optional<QString> checkJob(const WorkspaceConfig &config, const JobRequest &job,
                                const QString &path, FilledRequest *filledOut)
{
    const EndpointConfig *endpoint = config.endpoint(job.endpointId);
    if (!endpoint)
        return QStringLiteral("%1: %2").arg(
            JsonReader::join(path, QStringLiteral("endpoint")),
            Text::tr("no endpoint '%1' in %2").arg(job.endpointId, config.sourceName));
    if (endpoint->isPeriodic())
        return QStringLiteral("%1: %2").arg(
            JsonReader::join(path, QStringLiteral("endpoint")),
            Text::tr("endpoint %1 runs every %2 s; jobs go to endpoints that run once or only "
                     "enqueued jobs")
                .arg(endpoint->id)
                .arg(endpoint->everySeconds));
    const QString varsPath = JsonReader::join(path, QStringLiteral("vars"));
    for (const QString &name : endpoint->jobFields) {
        if (!job.values.contains(name))
            return QStringLiteral("%1: %2").arg(
                varsPath, Text::tr("missing '%1', which endpoint %2 needs for ${job:%1}")
                              .arg(name, endpoint->id));
    }
    for (const QString &name : job.values.keys()) {
        if (!endpoint->jobFields.contains(name))
            return QStringLiteral("%1: %2").arg(
                JsonReader::join(varsPath, name),
                Text::tr("endpoint %1 has no ${job:%2} placeholder").arg(endpoint->id, name));
    }
    QString problem;
    const auto filled =
        fillRequest(*endpoint, job.values, job.body.value_or(QByteArray()), &problem);
    if (!filled)
        return QStringLiteral("%1: %2").arg(varsPath, problem);
    if (filledOut)
        *filledOut = *filled;
    const QString key = job.partitionKey.isEmpty() ? filled->partitionKey : job.partitionKey;
    const QString keyProblem = partitionKeyProblem(config, key);
    if (!keyProblem.isEmpty())
        return QStringLiteral("%1: %2").arg(JsonReader::join(path, QStringLiteral("partition_key")),
                                            keyProblem);
    if (job.idempotencyKey.size() > 255 ||
        std::any_of(job.idempotencyKey.cbegin(), job.idempotencyKey.cend(),
                    [](QChar c) { return c.unicode() < 0x20 || c.unicode() > 0x7e; }))
        return QStringLiteral("%1: %2").arg(
            JsonReader::join(path, QStringLiteral("idempotency_key")),
            Text::tr("expected at most 255 visible ASCII characters"));
    return std::nullopt;
}

QString requestHash(const EndpointConfig &endpoint, const JobRequest &job)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const auto add = [&hash](QByteArrayView part) {
        hash.addData(QByteArray::number(part.size()));
        hash.addData(QByteArrayView(":"));
        hash.addData(part);
    };
    add(endpoint.method);
    QString problem;
    const QString url = endpoint.jobFields.isEmpty()
                            ? endpoint.url.toString(QUrl::FullyEncoded)
                            : jobtemplate::fill(endpoint.urlTemplate, job.values,
                                                jobtemplate::Escape::Url, &problem)
                                  .value_or(QString());
    add(url.toUtf8());
    QList<HttpHeaders::Field> fields;
    for (const HttpHeaders::Field &field : endpoint.headerTemplates.fields()) {
        if (field.first.compare(endpoint.idempotencyHeader, Qt::CaseInsensitive) == 0)
            continue;
        const QString value = jobtemplate::fill(QString::fromUtf8(field.second), job.values,
                                                jobtemplate::Escape::None, &problem)
                                  .value_or(QString());
        fields.append({field.first.toLower(), value.toUtf8()});
    }
    std::stable_sort(fields.begin(), fields.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const HttpHeaders::Field &field : std::as_const(fields)) {
        add(field.first);
        add(field.second);
    }
    QByteArray body;
    if (job.body) {
        body = *job.body;
    } else {
        body = jobtemplate::fill(QString::fromUtf8(endpoint.body), job.values,
                                 bodyIsJson(endpoint) ? jobtemplate::Escape::Json
                                                      : jobtemplate::Escape::None,
                                 &problem)
                   .value_or(QString())
                   .toUtf8();
    }
    add(body);
    return QString::fromLatin1(hash.result().toHex());
}

QString idempotencyConflict(const QString &key, qint64 operationId)
{
    return Text::tr("idempotency key '%1' was handed in for operation %2 with another request; "
                    "a key stands for one request")
        .arg(key)
        .arg(operationId);
}

QString partitionKeyProblem(const WorkspaceConfig &config, const QString &key)
{
    if (key.isEmpty())
        return {};
    static const QRegularExpression kEmail(
        QStringLiteral(R"([A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(\.[A-Za-z0-9\-]+)+)"));
    if (kEmail.match(key).hasMatch())
        return Text::tr("looks like an e-mail address; partition keys are stored, shown and "
                        "exported, so use an id that names no person");
    // Prefixes of well-known credentials, and a JSON Web Token's.
    static const QRegularExpression kKnownSecret(QStringLiteral(
        R"((^|[^A-Za-z0-9])(sk_live_|sk_test_|rk_live_|sk-|ghp_|gho_|ghs_|)"
        R"(github_pat_|xox[abposr]-|AKIA[0-9A-Z]{12}|AIza|eyJ[A-Za-z0-9_\-]{8,}\.))"));
    // A long run of random-looking characters: upper and lower case letters and digits
    // mixed, without the separators ids usually have.
    static const QRegularExpression kRandomRun(QStringLiteral(R"([A-Za-z0-9+/=_]{32,})"));
    bool random = false;
    auto runs = kRandomRun.globalMatch(key);
    while (runs.hasNext() && !random) {
        const QString run = runs.next().captured(0);
        const bool upper =
            std::any_of(run.cbegin(), run.cend(), [](QChar c) { return c.isUpper(); });
        const bool lower =
            std::any_of(run.cbegin(), run.cend(), [](QChar c) { return c.isLower(); });
        const bool digit =
            std::any_of(run.cbegin(), run.cend(), [](QChar c) { return c.isDigit(); });
        random = upper && lower && digit;
    }
    bool fromEnvironment =
        !config.api.token.isEmpty() && key.contains(QString::fromUtf8(config.api.token));
    for (const EndpointConfig &e : config.endpoints) {
        for (qsizetype i = 0; i < e.headerTemplates.fields().size() && !fromEnvironment; ++i) {
            if (!e.headerTemplates.fields().at(i).second.contains("${env:"))
                continue;
            // The resolved value, and its last word ("Bearer TOKEN").
            const QString value = QString::fromUtf8(e.headers.fields().value(i).second);
            const QString word = value.section(QLatin1Char(' '), -1);
            fromEnvironment = (word.size() >= 8 && key.contains(word)) ||
                              (value.size() >= 8 && key.contains(value));
        }
    }
    if (kKnownSecret.match(key).hasMatch() || random || fromEnvironment)
        return Text::tr("looks like a secret (a token or a key); partition keys are stored, "
                        "shown and exported, so use an id that grants nothing");
    return {};
}

} // namespace cooldown
