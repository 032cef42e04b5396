// SPDX-License-Identifier: Apache-2.0
#pragma once

// What every import of a document promises, whatever the document: each endpoint has an
// id and its source id, and a credential's secrets are ${env:NAME} references only.

#include "FuzzCheck.h"

#include "core/import/EndpointImport.h"

#include <QJsonObject>

namespace cooldown::fuzz {

inline void checkImported(const ImportedSource &source, QLatin1String sourcePrefix)
{
    for (const ImportedEndpoint &e : source.endpoints) {
        FUZZ_CHECK(!e.endpoint.value(QStringLiteral("id")).toString().isEmpty());
        FUZZ_CHECK(
            e.endpoint.value(QStringLiteral("imported_from")).toString().startsWith(sourcePrefix));
        for (const QJsonObject &c : e.credentials) {
            for (const char *key : {"token", "password", "client_secret"}) {
                const QString value = c.value(QLatin1String(key)).toString();
                FUZZ_CHECK(value.isEmpty() || value.startsWith(QLatin1String("${env:")));
            }
        }
    }
}

} // namespace cooldown::fuzz
