// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace cooldown {

// A document an import reads (an OpenAPI document, a Postman collection or environment),
// as JSON whatever it was written in. Text whose first character is '{' or '[' is read
// as JSON; anything else as YAML (yaml-cpp), converted to JSON once: plain scalars
// become null, booleans and numbers as YAML 1.2's core schema reads them, quoted ones
// strings, and keys strings. Aliases are expanded; a document that would expand past
// four values a byte (and 100,000 more; at most 4 million), or nests deeper than 200,
// is refused.
//
// nullopt with *error naming the source, the line (and column) and what is wrong.
std::optional<QJsonValue> readApiDocument(const QByteArray &text, const QString &sourceName,
                                          QString *error);

} // namespace cooldown
