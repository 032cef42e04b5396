// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/import/EndpointImport.h"

#include <QJsonValue>
#include <QString>
#include <QUrl>

#include <optional>

namespace cooldown {

struct OpenApiImportOptions
{
    QString envPrefix; // of the variables' names; the document's title when empty
    // Which of the document's servers the endpoints call: empty for the first, "N" for
    // the Nth (counted from 1), or a URL to call instead of any of them.
    QString server;
    // Where the document was fetched from: a relative server URL is taken from it.
    QUrl documentUrl;
    int everySeconds = 0;
};

// The operations of an OpenAPI 3.0 or 3.1 document as endpoints (docs/import.md).
//
// An operation's path parameters, its required query, header and cookie parameters and
// the required members of its request body become ${job:NAME} placeholders: such an
// endpoint is a template that runs the jobs handed to it. The server's variables take
// their defaults. Security schemes become credentials (API key in a header, bearer,
// basic, OAuth 2.0 client credentials with its token URL and the scopes the operations
// ask for) or an API key in the query, their secrets ${env:NAME} references. A header
// parameter named like Idempotency-Key becomes the endpoint's idempotency header;
// without one a POST or PATCH is never sent again once it may have arrived (the retry
// contract), which a note says. Documented 429 answers and x-ratelimit extensions are
// noted. Every endpoint's imported_from is "openapi:TITLE#OPERATION_ID" (or METHOD
// PATH), so that importing the document again updates what it made.
//
// $ref is followed inside the document only. nullopt with *error naming the JSON path
// for a document that is not OpenAPI 3.0 or 3.1, a $ref outside the document, one that
// names nothing or leads back to itself, and a server that cannot be made a URL; an
// operation that cannot be imported is left out with its reason in the notes.
std::optional<ImportedSource> importOpenApi(const QJsonValue &document,
                                            const OpenApiImportOptions &options, QString *error);

} // namespace cooldown
