// SPDX-License-Identifier: Apache-2.0
// Checks on what an answer says (docs/checks.md): the input's first line is read as an
// endpoint's `expect`, the rest as the answer's body. Beyond not crashing: what is
// refused says why, a loaded expectation judges any body without throwing, and what a
// failure reports is bounded and never shows a secret header's value. The pointers of the
// expectation are also evaluated against the body parsed as JSON.

#include "FuzzCheck.h"

#include "core/check/ExpectationReader.h"
#include "core/config/JsonReader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = fuzz::bytes(data, size);
    const qsizetype newline = input.indexOf('\n');
    const QByteArray expectText = newline < 0 ? input : input.left(newline);
    const QByteArray body = newline < 0 ? QByteArray() : input.mid(newline + 1);

    const QJsonDocument document = QJsonDocument::fromJson(expectText);
    QString error;
    JsonReader reader(&error);
    const Expectation expect = readExpectation(document.isArray() ? QJsonValue(document.array())
                                                                  : QJsonValue(document.object()),
                                               QStringLiteral("expect"), reader);
    if (!error.isEmpty()) {
        FUZZ_CHECK(error.startsWith(QLatin1String("expect")));
        return 0;
    }
    const HttpHeaders headers{{"Content-Type", "application/json"}, {"X-Api-Key", "k-fuzz-1"}};
    for (const bool truncated : {false, true}) {
        const auto failure = expect.check(headers, body, truncated);
        if (!failure)
            continue;
        FUZZ_CHECK(!failure->assertion.isEmpty());
        FUZZ_CHECK(failure->found.size() <= 121);
        if (failure->assertion.startsWith(QLatin1String("header X-Api-Key"), Qt::CaseInsensitive))
            FUZZ_CHECK(failure->found == QLatin1String("[redacted]"));
    }
    const QJsonDocument answer = QJsonDocument::fromJson(body);
    const QJsonValue root =
        answer.isArray() ? QJsonValue(answer.array()) : QJsonValue(answer.object());
    for (const JsonCheck &c : expect.json) {
        const auto found = c.pointer.find(root);
        FUZZ_CHECK(c.pointer.text().isEmpty() ? found.has_value() : true);
        // Parsing the pointer's own text again gives the same tokens.
        QString again;
        const auto reparsed = JsonPointer::parse(c.pointer.text(), &again);
        FUZZ_CHECK(reparsed && reparsed->tokens() == c.pointer.tokens());
    }
    for (const int status : {200, 204, 404, 429, 503})
        (void)expect.allowsStatus(status);
    FUZZ_CHECK(!expect.statusText().isEmpty());
    return 0;
}
