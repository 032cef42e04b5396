// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/import/EndpointImport.h"

#include <QJsonValue>
#include <QString>

#include <optional>

namespace cooldown {

struct PostmanImportOptions
{
    QString envPrefix; // of the variables' names; the collection's name when empty
    int everySeconds = 0;
    // The export of a Postman environment (`values`: key, value, type, enabled), or
    // undefined.
    QJsonValue environment;
    QString environmentName; // the file it came from, for messages
};

// The requests of a Postman collection (format v2.1) as endpoints (docs/import.md).
// The workspace has no tags: a request's folders are written before its name ("Orders /
// Create order") and its id ("orders-create-order").
//
// A {{variable}} becomes ${env:NAME} when it holds a secret (its name says key, token,
// secret, password, ...; the environment marks it secret; or an auth block uses it) or
// comes from the environment; a collection variable that is not secret is written as its
// value; any other, and a :name in the path, becomes ${job:NAME}. The scheme and host
// of a URL take the value of their variables: a placeholder may not stand there. Auth
// blocks (the request's, else its folders', else the collection's) become credentials:
// bearer, basic, API key (a header credential, or in the query) and OAuth 2.0 client
// credentials, their secrets ${env:NAME} references, never the values written in the
// collection. Each endpoint's imported_from is "postman:COLLECTION#FOLDER/NAME".
//
// nullopt with *error naming the JSON path for what is not a v2.1 collection (or
// environment); a request that cannot be imported (a file upload, Postman's dynamic
// {{$variables}}) is left out with its reason in the notes.
std::optional<ImportedSource> importPostman(const QJsonValue &collection,
                                            const PostmanImportOptions &options, QString *error);

} // namespace cooldown
