// SPDX-License-Identifier: Apache-2.0
#include "core/http/StructuredFields.h"
#include "support/ReadableEnums.h"

#include <QTest>

using namespace cooldown;
namespace sf = cooldown::StructuredFields;

namespace {

enum class FieldType
{
    Item,
    List,
    Dictionary
};

// Parses and re-serializes; a null result means the parser refused the field.
QByteArray roundTrip(FieldType type, const QByteArray &raw, QString *error)
{
    std::optional<QByteArray> out;
    switch (type) {
    case FieldType::Item:
        if (const auto item = sf::parseItem(raw, error))
            out = sf::serializeItem(*item);
        break;
    case FieldType::List:
        if (const auto list = sf::parseList(raw, error))
            out = sf::serializeList(*list);
        break;
    case FieldType::Dictionary:
        if (const auto dict = sf::parseDictionary(raw, error))
            out = sf::serializeDictionary(*dict);
        break;
    }
    if (!out)
        return QByteArray();
    return out->isEmpty() ? QByteArray("") : *out; // "" (not null): parsed, empty
}

} // namespace

Q_DECLARE_METATYPE(FieldType)

class tst_StructuredFields : public QObject
{
    Q_OBJECT

private slots:
    void parse_data();
    void parse();
    void dataModel();
    void innerListAndDictionaryModel();
    void serializeRefuses();
    void serializeDecimalRounding_data();
    void serializeDecimalRounding();
    void serializeString_data();
    void serializeString();
};

void tst_StructuredFields::parse_data()
{
    QTest::addColumn<FieldType>("type");
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QByteArray>("canonical"); // null: must be refused

    const QByteArray fail;
    const auto item = FieldType::Item;
    const auto list = FieldType::List;
    const auto dict = FieldType::Dictionary;

    // Integers (§3.3.1, §4.2.4): at most 15 digits, optional minus, nothing else.
    QTest::newRow("integer") << item << QByteArray("42") << QByteArray("42");
    QTest::newRow("negative integer") << item << QByteArray("-42") << QByteArray("-42");
    QTest::newRow("negative zero") << item << QByteArray("-0") << QByteArray("0");
    QTest::newRow("leading zeros") << item << QByteArray("0042") << QByteArray("42");
    QTest::newRow("15 digits") << item << QByteArray("999999999999999")
                               << QByteArray("999999999999999");
    QTest::newRow("-15 digits") << item << QByteArray("-999999999999999")
                                << QByteArray("-999999999999999");
    QTest::newRow("16 digits") << item << QByteArray("1000000000000000") << fail;
    QTest::newRow("-16 digits") << item << QByteArray("-1000000000000000") << fail;
    QTest::newRow("16 digits with zeros") << item << QByteArray("0000000000000001") << fail;
    QTest::newRow("plus sign") << item << QByteArray("+42") << fail;
    QTest::newRow("double minus") << item << QByteArray("--42") << fail;
    QTest::newRow("minus alone") << item << QByteArray("-") << fail;
    QTest::newRow("minus space") << item << QByteArray("- 42") << fail;
    QTest::newRow("inner space") << item << QByteArray("4 2") << fail;
    QTest::newRow("leading and trailing spaces")
        << item << QByteArray("  42  ") << QByteArray("42");
    QTest::newRow("leading tab") << item << QByteArray("\t42") << fail;
    QTest::newRow("hex") << item << QByteArray("0x2a") << fail;

    // Decimals (§3.3.2, §4.2.4): 12 integer digits, 1 to 3 fraction digits.
    QTest::newRow("decimal") << item << QByteArray("1.5") << QByteArray("1.5");
    QTest::newRow("negative decimal") << item << QByteArray("-1.5") << QByteArray("-1.5");
    QTest::newRow("decimal trailing zeros") << item << QByteArray("1.500") << QByteArray("1.5");
    QTest::newRow("decimal zero") << item << QByteArray("0.0") << QByteArray("0.0");
    QTest::newRow("decimal thousandth") << item << QByteArray("-0.001") << QByteArray("-0.001");
    QTest::newRow("decimal 12.3") << item << QByteArray("123456789012.123")
                                  << QByteArray("123456789012.123");
    QTest::newRow("decimal 13 integer digits") << item << QByteArray("1234567890123.1") << fail;
    QTest::newRow("decimal 4 fraction digits") << item << QByteArray("1.1234") << fail;
    QTest::newRow("decimal ending in dot") << item << QByteArray("1.") << fail;
    QTest::newRow("decimal starting with dot") << item << QByteArray(".5") << fail;
    QTest::newRow("two dots") << item << QByteArray("1.5.4") << fail;
    QTest::newRow("decimal exponent") << item << QByteArray("1.5e3") << fail;

    // Strings (§3.3.3, §4.2.5): printable ASCII, only \" and \\ escapes.
    QTest::newRow("string") << item << QByteArray("\"foo bar\"") << QByteArray("\"foo bar\"");
    QTest::newRow("empty string") << item << QByteArray("\"\"") << QByteArray("\"\"");
    QTest::newRow("escaped quote") << item << QByteArray("\"a\\\"b\"") << QByteArray("\"a\\\"b\"");
    QTest::newRow("escaped backslash")
        << item << QByteArray("\"a\\\\b\"") << QByteArray("\"a\\\\b\"");
    QTest::newRow("bad escape") << item << QByteArray("\"a\\nb\"") << fail;
    QTest::newRow("escape at end") << item << QByteArray("\"a\\") << fail;
    QTest::newRow("unterminated string") << item << QByteArray("\"abc") << fail;
    QTest::newRow("escaped closing quote") << item << QByteArray("\"abc\\\"") << fail;
    QTest::newRow("tab in string") << item << QByteArray("\"a\tb\"") << fail;
    QTest::newRow("newline in string") << item << QByteArray("\"a\nb\"") << fail;
    QTest::newRow("DEL in string") << item << QByteArray("\"a\x7f\"") << fail;
    QTest::newRow("UTF-8 in string") << item << QByteArray("\"caf\xc3\xa9\"") << fail;
    QTest::newRow("single quotes") << item << QByteArray("'foo'") << fail;

    // Tokens (§3.3.4, §4.2.6).
    QTest::newRow("token") << item << QByteArray("foo") << QByteArray("foo");
    QTest::newRow("token uppercase") << item << QByteArray("FooBar") << QByteArray("FooBar");
    QTest::newRow("token star") << item << QByteArray("*foo") << QByteArray("*foo");
    QTest::newRow("token with : and /")
        << item << QByteArray("text/html:x") << QByteArray("text/html:x");
    QTest::newRow("token tchars") << item << QByteArray("a!#$%&'*+-.^_`|~9")
                                  << QByteArray("a!#$%&'*+-.^_`|~9");
    QTest::newRow("token starting with digit") << item << QByteArray("1foo") << fail;
    QTest::newRow("token starting with _") << item << QByteArray("_foo") << fail;
    QTest::newRow("token with space") << item << QByteArray("foo bar") << fail;
    QTest::newRow("token with comma") << item << QByteArray("foo,bar") << fail;

    // Byte sequences (§3.3.5, §4.2.7).
    QTest::newRow("bytes") << item << QByteArray(":aGVsbG8=:") << QByteArray(":aGVsbG8=:");
    QTest::newRow("bytes without padding")
        << item << QByteArray(":aGVsbG8:") << QByteArray(":aGVsbG8=:");
    QTest::newRow("empty bytes") << item << QByteArray("::") << QByteArray("::");
    QTest::newRow("bytes unterminated") << item << QByteArray(":aGVsbG8=") << fail;
    QTest::newRow("bytes with space") << item << QByteArray(":aGVs bG8=:") << fail;
    QTest::newRow("bytes bad char") << item << QByteArray(":aGVsbG8!:") << fail;
    QTest::newRow("bytes url-safe alphabet") << item << QByteArray(":_-8=:") << fail;
    QTest::newRow("bytes padding inside") << item << QByteArray(":a=GVsbG8:") << fail;
    QTest::newRow("bytes too much padding") << item << QByteArray(":aGVsbG8===:") << fail;
    QTest::newRow("bytes lone sextet") << item << QByteArray(":a:") << fail;

    // Booleans (§3.3.6, §4.2.8).
    QTest::newRow("true") << item << QByteArray("?1") << QByteArray("?1");
    QTest::newRow("false") << item << QByteArray("?0") << QByteArray("?0");
    QTest::newRow("boolean 2") << item << QByteArray("?2") << fail;
    QTest::newRow("boolean empty") << item << QByteArray("?") << fail;
    QTest::newRow("boolean word") << item << QByteArray("?true") << fail;
    QTest::newRow("boolean trailing digit") << item << QByteArray("?10") << fail;

    // Dates and display strings (RFC 9651 additions).
    QTest::newRow("date") << item << QByteArray("@1659578233") << QByteArray("@1659578233");
    QTest::newRow("negative date")
        << item << QByteArray("@-1659578233") << QByteArray("@-1659578233");
    QTest::newRow("decimal date") << item << QByteArray("@1659578233.5") << fail;
    QTest::newRow("empty date") << item << QByteArray("@") << fail;
    QTest::newRow("display string")
        << item << QByteArray("%\"f%c3%bc%c3%bc\"") << QByteArray("%\"f%c3%bc%c3%bc\"");
    QTest::newRow("display string ascii")
        << item << QByteArray("%\"foo bar\"") << QByteArray("%\"foo bar\"");
    QTest::newRow("display string uppercase hex") << item << QByteArray("%\"%C3%BC\"") << fail;
    QTest::newRow("display string bad utf-8") << item << QByteArray("%\"%c3\"") << fail;
    QTest::newRow("display string short escape") << item << QByteArray("%\"%c\"") << fail;
    QTest::newRow("display string no quote") << item << QByteArray("%foo") << fail;
    QTest::newRow("display string unterminated") << item << QByteArray("%\"foo") << fail;

    // Parameters (§3.1.2, §4.2.3).
    QTest::newRow("parameters") << item << QByteArray("1;a=2;b") << QByteArray("1;a=2;b");
    QTest::newRow("parameter true") << item << QByteArray("1;a=?1") << QByteArray("1;a");
    QTest::newRow("parameter false") << item << QByteArray("1;a=?0") << QByteArray("1;a=?0");
    QTest::newRow("space after semicolon") << item << QByteArray("1; a=2") << QByteArray("1;a=2");
    QTest::newRow("space before semicolon") << item << QByteArray("1 ;a=2") << fail;
    QTest::newRow("space around equals") << item << QByteArray("1;a =2") << fail;
    QTest::newRow("duplicate parameter")
        << item << QByteArray("1;a=2;b=3;a=4") << QByteArray("1;a=4;b=3");
    QTest::newRow("uppercase key") << item << QByteArray("1;A=2") << fail;
    QTest::newRow("key starting with digit") << item << QByteArray("1;1a=2") << fail;
    QTest::newRow("key characters")
        << item << QByteArray("1;*a_b-c.d9=1") << QByteArray("1;*a_b-c.d9=1");
    QTest::newRow("parameter without value") << item << QByteArray("1;a=") << fail;
    QTest::newRow("inner list as parameter") << item << QByteArray("1;a=(1)") << fail;
    QTest::newRow("empty key") << item << QByteArray("1;=2") << fail;

    QTest::newRow("empty item") << item << QByteArray("") << fail;
    QTest::newRow("blank item") << item << QByteArray("   ") << fail;
    QTest::newRow("non-ASCII item") << item << QByteArray("\xc3\xa9") << fail;
    QTest::newRow("item followed by list") << item << QByteArray("1, 2") << fail;

    // Lists (§3.1, §4.2.1) and inner lists (§3.1.1, §4.2.1.2).
    QTest::newRow("empty list") << list << QByteArray("") << QByteArray("");
    QTest::newRow("list") << list << QByteArray("1, 2") << QByteArray("1, 2");
    QTest::newRow("list no space") << list << QByteArray("1,2") << QByteArray("1, 2");
    QTest::newRow("list spaces") << list << QByteArray("1  ,   2") << QByteArray("1, 2");
    QTest::newRow("list tabs") << list << QByteArray("1\t,\t2") << QByteArray("1, 2");
    QTest::newRow("list trailing comma") << list << QByteArray("1,") << fail;
    QTest::newRow("list trailing comma space") << list << QByteArray("1, ") << fail;
    QTest::newRow("list leading comma") << list << QByteArray(",1") << fail;
    QTest::newRow("list empty member") << list << QByteArray("1,,2") << fail;
    QTest::newRow("list without comma") << list << QByteArray("1 2") << fail;
    QTest::newRow("list leading tab") << list << QByteArray("\t1") << fail;
    QTest::newRow("list of strings")
        << list << QByteArray("\"a\", \"b\"") << QByteArray("\"a\", \"b\"");
    QTest::newRow("one bad member fails all") << list << QByteArray("1, 2, \"x") << fail;
    QTest::newRow("inner lists") << list << QByteArray("(1 2), (3)") << QByteArray("(1 2), (3)");
    QTest::newRow("empty inner list") << list << QByteArray("()") << QByteArray("()");
    QTest::newRow("blank inner list") << list << QByteArray("(  )") << QByteArray("()");
    QTest::newRow("inner list spaces") << list << QByteArray("( 1  2 )") << QByteArray("(1 2)");
    QTest::newRow("inner list parameters")
        << list << QByteArray("(1;x 2);a=1;b") << QByteArray("(1;x 2);a=1;b");
    QTest::newRow("inner list unterminated") << list << QByteArray("(1 2") << fail;
    QTest::newRow("inner list comma") << list << QByteArray("(1,2)") << fail;
    QTest::newRow("inner list tab") << list << QByteArray("(1\t2)") << fail;
    QTest::newRow("nested inner list") << list << QByteArray("((1))") << fail;
    QTest::newRow("inner lists without comma") << list << QByteArray("(1)(2)") << fail;
    QTest::newRow("inner list no space before next") << list << QByteArray("(1\"a\")") << fail;

    // Dictionaries (§3.2, §4.2.2).
    QTest::newRow("empty dictionary") << dict << QByteArray("") << QByteArray("");
    QTest::newRow("dictionary") << dict << QByteArray("a=1, b=2") << QByteArray("a=1, b=2");
    QTest::newRow("dictionary no space") << dict << QByteArray("a=1,b=2") << QByteArray("a=1, b=2");
    QTest::newRow("dictionary boolean members")
        << dict << QByteArray("a, b=?0, c;x=1") << QByteArray("a, b=?0, c;x=1");
    QTest::newRow("dictionary explicit true") << dict << QByteArray("a=?1") << QByteArray("a");
    QTest::newRow("dictionary duplicate keeps place")
        << dict << QByteArray("a=1, b=2, a=3") << QByteArray("a=3, b=2");
    QTest::newRow("dictionary inner list")
        << dict << QByteArray("a=(1 2);q") << QByteArray("a=(1 2);q");
    QTest::newRow("dictionary uppercase key") << dict << QByteArray("A=1") << fail;
    QTest::newRow("dictionary numeric key") << dict << QByteArray("1=a") << fail;
    QTest::newRow("dictionary missing value") << dict << QByteArray("a=") << fail;
    QTest::newRow("dictionary trailing comma") << dict << QByteArray("a=1,") << fail;
    QTest::newRow("dictionary no comma") << dict << QByteArray("a=1 b=2") << fail;
    QTest::newRow("dictionary space after equals") << dict << QByteArray("a= 1") << fail;
    QTest::newRow("dictionary space before equals") << dict << QByteArray("a =1") << fail;
}

void tst_StructuredFields::parse()
{
    QFETCH(FieldType, type);
    QFETCH(QByteArray, raw);
    QFETCH(QByteArray, canonical);

    QString error;
    const QByteArray result = roundTrip(type, raw, &error);
    if (canonical.isNull()) {
        QVERIFY2(result.isNull(), result.constData());
        QVERIFY2(error.startsWith(QLatin1String("at byte ")), qPrintable(error));
    } else {
        QVERIFY2(!result.isNull(), qPrintable(error));
        QCOMPARE(result, canonical);
        // The canonical form parses back to itself.
        QCOMPARE(roundTrip(type, canonical, &error), canonical);
    }
}

void tst_StructuredFields::dataModel()
{
    const auto list = sf::parseList(
        QByteArrayLiteral("\"default\";q=100;w=60;pk=:cHJvamVjdA==:, tok;d=2.25;f=?0;s=\"x\""));
    QVERIFY(list);
    QCOMPARE(list->size(), 2);

    const sf::Member &first = list->at(0);
    QVERIFY(!first.isInnerList);
    QVERIFY(first.value.isString());
    QCOMPARE(first.value.toBytes(), QByteArray("default"));
    QCOMPARE(first.parameters.entries().size(), 3);
    QVERIFY(first.parameters.find("q")->isInteger());
    QCOMPARE(first.parameters.find("q")->toInteger(), 100);
    QCOMPARE(first.parameters.find("w")->toInteger(), 60);
    QVERIFY(first.parameters.find("pk")->isByteSequence());
    QCOMPARE(first.parameters.find("pk")->toBytes(), QByteArray("project"));
    QVERIFY(!first.parameters.contains("r"));

    const sf::Member &second = list->at(1);
    QVERIFY(second.value.isToken());
    QCOMPARE(second.value.toBytes(), QByteArray("tok"));
    QVERIFY(second.parameters.find("d")->isDecimal());
    QCOMPARE(second.parameters.find("d")->toThousandths(), 2250);
    QCOMPARE(second.parameters.find("d")->toDouble(), 2.25);
    QVERIFY(second.parameters.find("f")->isBoolean());
    QVERIFY(!second.parameters.find("f")->toBool());
    QVERIFY(second.parameters.find("s")->isString());

    const auto date = sf::parseItem("@1700000000");
    QVERIFY(date && date->value.isDate());
    QCOMPARE(date->value.toInteger(), 1700000000);
    const auto display = sf::parseItem("%\"f%c3%bc\"");
    QVERIFY(display && display->value.isDisplayString());
    QCOMPARE(display->value.toDisplayString(), QStringLiteral("f\u00fc"));
}

void tst_StructuredFields::innerListAndDictionaryModel()
{
    const auto dict = sf::parseDictionary("a=(\"x\" 1);n=2, b, c=?0");
    QVERIFY(dict);
    QCOMPARE(dict->entries().size(), 3);
    const sf::Member *a = dict->find("a");
    QVERIFY(a && a->isInnerList);
    QCOMPARE(a->innerItems.size(), 2);
    QVERIFY(a->innerItems[0].value.isString());
    QCOMPARE(a->innerItems[1].value.toInteger(), 1);
    QCOMPARE(a->parameters.find("n")->toInteger(), 2);
    const sf::Member *b = dict->find("b");
    QVERIFY(b && b->value.isBoolean() && b->value.toBool());
    QVERIFY(!dict->find("c")->value.toBool());
    QVERIFY(!dict->find("d"));
}

void tst_StructuredFields::serializeRefuses()
{
    QVERIFY(!sf::serializeBareItem(sf::BareItem::integer(1'000'000'000'000'000LL)));
    QVERIFY(sf::serializeBareItem(sf::BareItem::integer(-999'999'999'999'999LL)));
    QVERIFY(!sf::serializeBareItem(sf::BareItem::decimal(1e12)));
    QVERIFY(!sf::serializeBareItem(sf::BareItem::token("1abc")));
    QVERIFY(!sf::serializeBareItem(sf::BareItem::token("")));
    QVERIFY(!sf::serializeBareItem(sf::BareItem::string("a\nb")));
    QVERIFY(!sf::serializeBareItem(sf::BareItem::string("caf\xc3\xa9")));

    sf::Item item{sf::BareItem::integer(1), {}};
    item.parameters.insert("Bad", sf::BareItem::integer(2));
    QVERIFY(!sf::serializeItem(item));

    QCOMPARE(*sf::serializeBareItem(sf::BareItem::byteSequence("hello")), QByteArray(":aGVsbG8=:"));
    QCOMPARE(*sf::serializeBareItem(sf::BareItem::displayString(QStringLiteral("f\u00fc\"%"))),
             QByteArray("%\"f%c3%bc%22%25\""));
    QCOMPARE(*sf::serializeBareItem(sf::BareItem::date(0)), QByteArray("@0"));
}

void tst_StructuredFields::serializeDecimalRounding_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QByteArray>("expected");
    QTest::newRow("exact") << 1.5 << QByteArray("1.5");
    QTest::newRow("whole") << 3.0 << QByteArray("3.0");
    QTest::newRow("half to even, down") << 2.0625 << QByteArray("2.062");
    QTest::newRow("half to even, up") << 2.1875 << QByteArray("2.188");
    QTest::newRow("negative") << -0.25 << QByteArray("-0.25");
    QTest::newRow("largest") << 999999999999.999 << QByteArray("999999999999.999");
}

void tst_StructuredFields::serializeDecimalRounding()
{
    QFETCH(double, value);
    QFETCH(QByteArray, expected);
    const auto out = sf::serializeBareItem(sf::BareItem::decimal(value));
    QVERIFY(out);
    QCOMPARE(*out, expected);
}

void tst_StructuredFields::serializeString_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QByteArray>("expected"); // null: refused

    QTest::newRow("uuid") << QStringLiteral("5f0c7a4e-2b1d-4c7e-9a35-0e4f6d1b2c3a")
                          << QByteArray("\"5f0c7a4e-2b1d-4c7e-9a35-0e4f6d1b2c3a\"");
    QTest::newRow("quote and backslash")
        << QStringLiteral("a\"b\\c") << QByteArray("\"a\\\"b\\\\c\"");
    QTest::newRow("empty") << QString() << QByteArray("\"\"");
    QTest::newRow("space") << QStringLiteral("a b") << QByteArray("\"a b\"");
    QTest::newRow("newline") << QStringLiteral("a\nb") << QByteArray();
    QTest::newRow("non-ASCII") << QStringLiteral("caf\u00e9") << QByteArray();
    // The edges of what an sf-string holds: space and '~' in, tab and DEL out.
    QTest::newRow("space and tilde alone") << QStringLiteral(" ~") << QByteArray("\" ~\"");
    QTest::newRow("tab") << QStringLiteral("a\tb") << QByteArray();
    QTest::newRow("DEL") << QStringLiteral("a\x7f") << QByteArray();
    QTest::newRow("policy name") << QStringLiteral("tenant-a_1.5")
                                 << QByteArray("\"tenant-a_1.5\"");
}

void tst_StructuredFields::serializeString()
{
    QFETCH(QString, text);
    QFETCH(QByteArray, expected);
    const auto out = sf::serializeString(text);
    if (expected.isNull()) {
        QVERIFY(!out);
        return;
    }
    QVERIFY(out);
    QCOMPARE(*out, expected);
    // What is sent parses back to the same text.
    const auto parsed = sf::parseItem(*out);
    QVERIFY(parsed && parsed->value.isString());
    QCOMPARE(QString::fromLatin1(parsed->value.toBytes()), text);
}

QTEST_GUILESS_MAIN(tst_StructuredFields)
#include "tst_structuredfields.moc"
