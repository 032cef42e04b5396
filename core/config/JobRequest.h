// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/http/HttpHeaders.h"

#include "core/config/JobValues.h"
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

namespace cooldown {

struct EndpointConfig;
struct WorkspaceConfig;

// Jobs handed in from outside (docs/intake.md): an endpoint's url, headers, body and
// partition key may hold ${job:NAME} placeholders, which each job fills with its own
// values when its request is sent.
namespace jobtemplate {

// How a value is written where its placeholder stands.
enum class Escape
{
    None,        // as given (a partition key, a body that is not JSON)
    Url,         // percent-encoded: every byte but A-Z a-z 0-9 - . _ ~
    Json,        // as the inside of a JSON string (a body whose Content-Type is JSON)
    HeaderValue, // as given; control characters are refused
};

// The names of the ${job:NAME} placeholders in text, each once, in order.
QStringList placeholders(QStringView text);
// text with every ${job:NAME} replaced by its value. nullopt when a value is missing
// or cannot stand there, with *problem saying which.
std::optional<QString> fill(QStringView text, const JobValues &values, Escape escape,
                            QString *problem);

} // namespace jobtemplate

// One job as handed in (a command line, a line of JSON Lines, a local API request).
struct JobRequest
{
    QString endpointId;
    JobValues values;               // for the endpoint's ${job:NAME} placeholders
    std::optional<QByteArray> body; // sent instead of the endpoint's body
    QString partitionKey;           // empty: the endpoint's (filled)
    QString idempotencyKey;         // empty: one is generated
    qint64 notBeforeMs = -1;        // -1: due now

    // Reads {"endpoint", "vars", "body", "partition_key", "idempotency_key",
    // "not_before"}; refuses anything else, naming the JSON path under `path`.
    static std::optional<JobRequest> fromJson(const QJsonObject &object, const QString &path,
                                              QString *error);
};

// The request an operation of `endpoint` sends, its placeholders filled.
struct FilledRequest
{
    QUrl url;
    HttpHeaders headers;
    QByteArray body;
    QString partitionKey;
};
std::optional<FilledRequest> fillRequest(const EndpointConfig &endpoint, const JobValues &values,
                                         const QByteArray &bodyOverride, QString *problem);

// Checks a job against its workspace: the endpoint exists, every placeholder has a
// value and every value a placeholder, the values can stand where they go, and the
// partition key is neither an e-mail address nor a secret. The error names the JSON
// path under `path` ("$" for a job given by options). A job that passes has its
// request filled, and *filled (when given) receives it.
std::optional<QString> checkJob(const WorkspaceConfig &config, const JobRequest &job,
                                const QString &path, FilledRequest *filled = nullptr);

// What an idempotency key stands for: SHA-256 (hex) of the method, the filled URL, the
// header fields as written in the workspace (${env:...} references unresolved, so no
// secret goes into it; the idempotency header left out) and the body. The same key
// handed in again with another request is a conflict.
QString requestHash(const EndpointConfig &endpoint, const JobRequest &job);

// The refusal of a key handed in again with another request.
QString idempotencyConflict(const QString &key, qint64 operationId);

// Why a partition key must not be used, or empty: keys are stored, shown and
// exported, so an e-mail address or a secret has no place in one.
QString partitionKeyProblem(const WorkspaceConfig &config, const QString &key);

} // namespace cooldown
