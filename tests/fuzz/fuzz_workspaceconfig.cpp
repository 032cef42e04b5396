// SPDX-License-Identifier: Apache-2.0
// The workspace config loader: the input is a whole config file, read with a fixed
// environment so that a crash reproduces from its input alone.

#include "FuzzCheck.h"

#include "core/config/WorkspaceConfig.h"

#include <QSet>

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QHash<QString, QString> environment = {
        {QStringLiteral("EXAMPLE_TOKEN"), QStringLiteral("fuzz-token")},
        {QStringLiteral("EMPTY"), QString()},
    };
    static const QHash<QString, QString> variables = WorkspaceConfig::demoVariables();
    const QString source = QStringLiteral("fuzz.json");

    QString error;
    const auto config =
        WorkspaceConfig::parse(fuzz::bytes(data, size), source, &error, variables, environment);
    if (!config) {
        // Refused whole, and the message says which file.
        FUZZ_CHECK(error.startsWith(source + QLatin1String(": ")));
        FUZZ_CHECK(error.size() > source.size() + 2);
        return 0;
    }
    FUZZ_CHECK(error.isEmpty());
    FUZZ_CHECK(!config->endpoints.isEmpty());
    FUZZ_CHECK(config->concurrency.maxInFlight >= 1 && config->concurrency.maxInFlight <= 1024);
    // The fleet's per_host may exceed the 6 connections one process keeps to a host.
    FUZZ_CHECK(config->concurrency.perHost >= 1 && config->concurrency.perHost <= 1024);
    QSet<QString> ids;
    for (const EndpointConfig &e : config->endpoints) {
        FUZZ_CHECK(!ids.contains(e.id));
        ids.insert(e.id);
        FUZZ_CHECK(e.url.isValid() && !e.url.host().isEmpty());
        FUZZ_CHECK(e.url.scheme() == QLatin1String("http") ||
                   e.url.scheme() == QLatin1String("https"));
        FUZZ_CHECK(e.timeoutSeconds > 0);
        FUZZ_CHECK(e.everySeconds >= 0);
        FUZZ_CHECK(config->retryProfiles.contains(e.retry));
        FUZZ_CHECK(e.policy.isEmpty() || config->policy(e.policy) != nullptr);
        for (const auto &field : e.headers.fields())
            FUZZ_CHECK(!field.second.contains('\r') && !field.second.contains('\n'));
    }
    return 0;
}
