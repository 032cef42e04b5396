// SPDX-License-Identifier: Apache-2.0
// The OpenAPI import (docs/import.md): the input is a document as a user would point the
// import at, JSON or YAML, read by readApiDocument and made endpoints by importOpenApi.
// Beyond not crashing (deep nesting, aliases that expand without end, $refs in cycles):
// what is refused says why, and what is imported carries its source id and no secret
// but ${env:NAME} references in its credentials.

#include "FuzzCheck.h"
#include "ImportedChecks.h"

#include "core/import/ApiDocument.h"
#include "core/import/OpenApiImport.h"

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QString error;
    const std::optional<QJsonValue> document =
        readApiDocument(fuzz::bytes(data, size), QStringLiteral("fuzz.yaml"), &error);
    if (!document) {
        FUZZ_CHECK(error.startsWith(QLatin1String("fuzz.yaml: ")));
        return 0;
    }
    FUZZ_CHECK(document->isObject() || document->isArray());
    OpenApiImportOptions options;
    options.documentUrl = QUrl(QStringLiteral("http://127.0.0.1:8080/spec.yaml"));
    const std::optional<ImportedSource> source = importOpenApi(*document, options, &error);
    if (!source) {
        FUZZ_CHECK(!error.isEmpty());
        return 0;
    }
    fuzz::checkImported(*source, QLatin1String("openapi:"));
    return 0;
}
