// SPDX-License-Identifier: Apache-2.0
// The Postman import (docs/import.md): the input is an exported collection, read by
// readApiDocument and made endpoints by importPostman (the requests go through the curl
// reader and the request conversion). Beyond not crashing (folders nested without end,
// variables that refer to each other): what is refused says why, and what is imported
// carries its source id and no secret but ${env:NAME} references in its credentials.

#include "FuzzCheck.h"
#include "ImportedChecks.h"

#include "core/import/ApiDocument.h"
#include "core/import/PostmanImport.h"

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QString error;
    const std::optional<QJsonValue> collection =
        readApiDocument(fuzz::bytes(data, size), QStringLiteral("fuzz.json"), &error);
    if (!collection) {
        FUZZ_CHECK(error.startsWith(QLatin1String("fuzz.json: ")));
        return 0;
    }
    const std::optional<ImportedSource> source = importPostman(*collection, {}, &error);
    if (!source) {
        FUZZ_CHECK(!error.isEmpty());
        return 0;
    }
    fuzz::checkImported(*source, QLatin1String("postman:"));
    return 0;
}
