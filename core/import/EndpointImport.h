// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceDocument.h"
#include "core/import/CurlCommand.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace cooldown {

// An environment variable an import left a reference to: the secret it stands for was
// taken out of what is written (docs/import.md), or the command named it already.
struct ImportVariable
{
    QString name;
    QString stands;           // what it stands for, in words: "the bearer token of Authorization"
    bool fromCommand = false; // the command's own $NAME
};

// One endpoint an import makes: the workspace's JSON for it, the credentials it names,
// the variables to set and what could not be carried over.
struct ImportedEndpoint
{
    QJsonObject endpoint; // with "imported_from"
    QList<QJsonObject> credentials;
    QList<QJsonObject> tls; // entries of the workspace's "tls" it names
    QList<ImportVariable> variables;
    QStringList notes;
};

// What an import of a whole document (an OpenAPI document, a Postman collection) makes:
// its endpoints, and what it says of the source as a whole (the server picked, what was
// refused and why).
struct ImportedSource
{
    QString title;
    QList<ImportedEndpoint> endpoints;
    QStringList notes;
};

// Whether a header, query parameter or variable named so holds a secret: key, token,
// secret, password, session, signature, cookie, credential (Idempotency-Key does not).
bool looksSecret(const QString &name);
// PREFIX_WHAT in upper case, with what is not a letter or a digit as '_'.
QString importEnvName(const QString &prefix, const QString &what);
// "list-pets" from "listPets", "List pets" or "list_pets": lower case words joined by '-',
// at most 48 characters.
QString importSlug(const QString &text);

// ${job:NAME} for a parameter or a variable: NAME as placeholders take it (letters,
// digits, '_' and '.'; anything else becomes '_').
QString jobPlaceholder(const QString &name);

// What an import of a document adds to an endpoint the request conversion made.
struct EndpointExtras
{
    QString name;
    QString source; // imported_from
    QJsonObject credential;
    QString idempotencyHeader;
    QList<ImportVariable> variables; // said first, as they stand for the document's secrets
    QStringList notes;
};

// Adds them. A template (${job:NAME} anywhere) loses every_seconds, and a note says what
// each job brings; a POST or PATCH without an idempotency header gets a note that it is
// never sent again once it may have arrived (the retry contract).
void addExtras(ImportedEndpoint &out, const EndpointExtras &extras);

struct CurlImportOptions
{
    QString id;        // the endpoint's id; made from the method and the path when empty
    QString envPrefix; // of the variables' names; made from the id when empty
    int everySeconds = 0;
};

// The curl command's request as an endpoint. Secrets never stay in what is written:
// an Authorization header, a header whose name says key, token, secret, password,
// session, signature or cookie, -u, cookies, and query parameters named so become
// ${env:NAME} references (basic credentials a `basic` credential). GET and HEAD run
// once, or every everySeconds; other methods run for jobs handed in (enqueue_only).
ImportedEndpoint endpointFromCurl(const CurlRequest &request, const CurlImportOptions &options,
                                  QString *error);

// What an import does to a workspace, endpoint by endpoint.
struct ImportChange
{
    enum class Kind
    {
        Added,
        Updated,   // the endpoint an earlier import of the same source made
        Unchanged, // that endpoint, already as it would be written
    };
    Kind kind = Kind::Added;
    QString id;
};

// Adds the endpoints to the document, or updates those with the same imported_from;
// an endpoint written by hand is never touched: an id it already has gets a suffix
// (-2, -3, ...). A source given twice in one import is two sources (the second
// "SOURCE#2"). A credential (or tls entry) replaces only one this import wrote or the
// one the updated endpoint names; one the user wrote keeps its id, and the imported one
// takes a suffix.
QList<ImportChange> mergeImport(WorkspaceDocument &document, QList<ImportedEndpoint> &imported);

} // namespace cooldown
