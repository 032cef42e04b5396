// SPDX-License-Identifier: Apache-2.0
// The curl import (docs/import.md): the input is a pasted command line, split as a shell
// would, read as curl's options and made an endpoint. Files named by @file are read
// from an empty folder of the fuzzer's own, so that a crash reproduces from its input
// alone. Beyond not crashing: what is refused says why, and a header or a URL never
// carries a line break into the endpoint.

#include "FuzzCheck.h"

#include "core/import/CurlCommand.h"
#include "core/import/EndpointImport.h"
#include "core/import/ShellWords.h"

#include <QJsonObject>
#include <QTemporaryDir>

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QTemporaryDir baseDir;
    const QString text = QString::fromUtf8(fuzz::bytes(data, size));

    QString error;
    const std::optional<ShellWords> words = splitShellWords(text, &error);
    if (!words) {
        FUZZ_CHECK(!error.isEmpty());
        return 0;
    }
    FUZZ_CHECK(!words->words.isEmpty());
    const std::optional<CurlRequest> request = parseCurl(words->words, baseDir.path(), &error);
    if (!request) {
        FUZZ_CHECK(!error.isEmpty());
        return 0;
    }
    FUZZ_CHECK(request->url.isValid() && !request->url.host().isEmpty());
    FUZZ_CHECK(!request->method.isEmpty());
    FUZZ_CHECK(request->hasBody || request->body.isEmpty());

    CurlImportOptions options;
    options.everySeconds = 60;
    const ImportedEndpoint imported = endpointFromCurl(*request, options, &error);
    if (!error.isEmpty())
        return 0; // a body that is not UTF-8 text
    const QJsonObject &e = imported.endpoint;
    FUZZ_CHECK(!e.value(QStringLiteral("id")).toString().isEmpty());
    FUZZ_CHECK(
        e.value(QStringLiteral("imported_from")).toString().startsWith(QLatin1String("curl:")));
    for (const ImportVariable &v : imported.variables)
        FUZZ_CHECK(!v.name.isEmpty());
    return 0;
}
