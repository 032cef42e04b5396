// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/check/Expectation.h"

#include <QJsonValue>
#include <QString>

namespace cooldown {

class JsonReader;

// Reads an endpoint's `expect` (docs/checks.md). Every mistake fails `reader` with
// the JSON path of what was wrong: "endpoints[0].expect.json[1].pointer: ...".
Expectation readExpectation(const QJsonValue &value, const QString &path, JsonReader &reader);

} // namespace cooldown
