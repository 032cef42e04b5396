// SPDX-License-Identifier: Apache-2.0
// Structured Field Values (RFC 9651): the input is one field value, read as a List,
// a Dictionary and an Item. Whatever parses must serialize, and the serialization
// must parse back to the same value (§4: parsing then serializing is canonical).

#include "FuzzCheck.h"

#include "core/http/StructuredFields.h"

using namespace cooldown;
namespace sf = cooldown::StructuredFields;

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray field = fuzz::bytes(data, size);
    QString error;

    if (const auto list = sf::parseList(field, &error)) {
        FUZZ_CHECK(error.isEmpty());
        const auto text = sf::serializeList(*list);
        FUZZ_CHECK(text.has_value());
        FUZZ_CHECK(sf::parseList(*text) == list);
        FUZZ_CHECK(sf::serializeList(*sf::parseList(*text)) == text);
    } else {
        FUZZ_CHECK(!error.isEmpty());
    }

    error.clear();
    if (const auto dictionary = sf::parseDictionary(field, &error)) {
        FUZZ_CHECK(error.isEmpty());
        const auto text = sf::serializeDictionary(*dictionary);
        FUZZ_CHECK(text.has_value());
        FUZZ_CHECK(sf::parseDictionary(*text) == dictionary);
    } else {
        FUZZ_CHECK(!error.isEmpty());
    }

    error.clear();
    if (const auto item = sf::parseItem(field, &error)) {
        FUZZ_CHECK(error.isEmpty());
        const auto text = sf::serializeItem(*item);
        FUZZ_CHECK(text.has_value());
        FUZZ_CHECK(sf::parseItem(*text) == item);
        for (const auto &parameter : item->parameters.entries())
            FUZZ_CHECK(sf::serializeBareItem(parameter.second).has_value());
        // Reading a number as a double never traps, whatever its size.
        if (item->value.isInteger() || item->value.isDecimal())
            (void)item->value.toDouble();
    } else {
        FUZZ_CHECK(!error.isEmpty());
    }
    return 0;
}
