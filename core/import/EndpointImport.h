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
    QList<ImportVariable> variables;
    QStringList notes;
};

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
// (-2, -3, ...). Credentials are added or replaced by id the same way.
QList<ImportChange> mergeImport(WorkspaceDocument &document, QList<ImportedEndpoint> &imported);

} // namespace cooldown
