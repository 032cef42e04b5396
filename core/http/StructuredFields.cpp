// SPDX-License-Identifier: Apache-2.0
#include "core/http/StructuredFields.h"

#include "core/http/HttpToken.h"

#include <cmath>
#include <limits>

namespace cooldown::StructuredFields {

namespace {

constexpr qint64 kMaxInteger = 999'999'999'999'999LL;            // 15 digits (§3.3.1)
constexpr qint64 kMaxDecimalThousandths = 999'999'999'999'999LL; // 12.3 digits (§3.3.2)

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}
bool isLcAlpha(char c)
{
    return c >= 'a' && c <= 'z';
}
bool isAlpha(char c)
{
    return isLcAlpha(c) || (c >= 'A' && c <= 'Z');
}

// What may follow the first character of an sf-token (§3.3.4): tchar, ':' or '/'.
bool isTokenChar(char c)
{
    return isTchar(uchar(c)) || c == ':' || c == '/';
}

bool isKeyChar(char c)
{
    return isLcAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*';
}

bool isBase64Char(char c)
{
    return isAlpha(c) || isDigit(c) || c == '+' || c == '/' || c == '=';
}

bool isVisibleAscii(uchar c)
{
    return c >= 0x20 && c <= 0x7e;
}

int base64Value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (isDigit(c))
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

// RFC 4648 §4 with the leniency §4.2.7 asks for: missing '=' padding and non-zero pad
// bits are accepted; '=' anywhere but at the end, or a lone sextet, is not.
std::optional<QByteArray> decodeBase64(QByteArrayView text)
{
    qsizetype end = text.size();
    int padding = 0;
    while (end > 0 && text[end - 1] == '=' && padding < 2) {
        --end;
        ++padding;
    }
    const QByteArrayView data = text.first(end);
    if (data.contains('='))
        return std::nullopt;
    if (padding > 0 && (data.size() + padding) % 4 != 0)
        return std::nullopt;
    if (data.size() % 4 == 1)
        return std::nullopt;
    QByteArray out;
    out.reserve(data.size() * 3 / 4);
    quint32 buffer = 0;
    int bits = 0;
    for (const char c : data) {
        buffer = (buffer << 6) | quint32(base64Value(c));
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.append(char((buffer >> bits) & 0xff));
        }
    }
    return out;
}

class Parser
{
public:
    explicit Parser(QByteArrayView input) : m_input(input) {}

    std::optional<List> list();
    std::optional<Dictionary> dictionary();
    std::optional<Item> item();

    // The top-level steps of §4.2: the field must be ASCII, leading and trailing
    // spaces are dropped, and nothing may follow the parsed value.
    bool begin();
    bool finish();

    QString error() const { return m_error; }

private:
    bool atEnd() const { return m_pos >= m_input.size(); }
    char peek() const { return atEnd() ? '\0' : m_input[m_pos]; }
    void skipSp()
    {
        while (!atEnd() && peek() == ' ')
            ++m_pos;
    }
    void skipOws()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t'))
            ++m_pos;
    }
    bool fail(const QString &what)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("at byte %1: %2").arg(m_pos).arg(what);
        return false;
    }

    bool itemOrInnerList(Member *member);
    bool innerList(Member *member);
    bool parameters(Parameters *parameters);
    bool key(QByteArray *key);
    bool bareItem(BareItem *item);
    bool number(BareItem *item);
    bool string(BareItem *item);
    bool token(BareItem *item);
    bool byteSequence(BareItem *item);
    bool boolean(BareItem *item);
    bool date(BareItem *item);
    bool displayString(BareItem *item);

    QByteArrayView m_input;
    qsizetype m_pos = 0;
    QString m_error;
};

bool Parser::begin()
{
    for (qsizetype i = 0; i < m_input.size(); ++i) {
        if (uchar(m_input[i]) > 0x7f) {
            m_pos = i;
            return fail(QStringLiteral("a byte outside ASCII"));
        }
    }
    skipSp();
    return true;
}

bool Parser::finish()
{
    skipSp();
    if (!atEnd())
        return fail(QStringLiteral("unexpected '%1' after the value").arg(QLatin1Char(peek())));
    return true;
}

std::optional<List> Parser::list()
{
    List members;
    while (!atEnd()) {
        Member member;
        if (!itemOrInnerList(&member))
            return std::nullopt;
        members.append(member);
        skipOws();
        if (atEnd())
            return members;
        if (peek() != ',') {
            fail(QStringLiteral("expected ',' between list members"));
            return std::nullopt;
        }
        ++m_pos;
        skipOws();
        if (atEnd()) {
            fail(QStringLiteral("a trailing ','"));
            return std::nullopt;
        }
    }
    return members;
}

std::optional<Dictionary> Parser::dictionary()
{
    Dictionary dict;
    while (!atEnd()) {
        QByteArray name;
        if (!key(&name))
            return std::nullopt;
        Member member;
        if (peek() == '=') {
            ++m_pos;
            if (!itemOrInnerList(&member))
                return std::nullopt;
        } else if (!parameters(&member.parameters)) {
            return std::nullopt;
        }
        dict.insert(name, member);
        skipOws();
        if (atEnd())
            return dict;
        if (peek() != ',') {
            fail(QStringLiteral("expected ',' between dictionary members"));
            return std::nullopt;
        }
        ++m_pos;
        skipOws();
        if (atEnd()) {
            fail(QStringLiteral("a trailing ','"));
            return std::nullopt;
        }
    }
    return dict;
}

std::optional<Item> Parser::item()
{
    Item result;
    if (!bareItem(&result.value) || !parameters(&result.parameters))
        return std::nullopt;
    return result;
}

bool Parser::itemOrInnerList(Member *member)
{
    if (peek() == '(')
        return innerList(member);
    member->isInnerList = false;
    return bareItem(&member->value) && parameters(&member->parameters);
}

bool Parser::innerList(Member *member)
{
    ++m_pos; // '('
    member->isInnerList = true;
    while (!atEnd()) {
        skipSp();
        if (peek() == ')') {
            ++m_pos;
            return parameters(&member->parameters);
        }
        Item entry;
        if (!bareItem(&entry.value) || !parameters(&entry.parameters))
            return false;
        member->innerItems.append(entry);
        if (peek() != ' ' && peek() != ')')
            return fail(QStringLiteral("expected a space or ')' in an inner list"));
    }
    return fail(QStringLiteral("an inner list without ')'"));
}

bool Parser::parameters(Parameters *params)
{
    while (!atEnd() && peek() == ';') {
        ++m_pos;
        skipSp();
        QByteArray name;
        if (!key(&name))
            return false;
        BareItem value; // true unless '=' follows
        if (peek() == '=') {
            ++m_pos;
            if (!bareItem(&value))
                return false;
        }
        params->insert(name, value);
    }
    return true;
}

bool Parser::key(QByteArray *name)
{
    if (atEnd() || !(isLcAlpha(peek()) || peek() == '*'))
        return fail(QStringLiteral("expected a key (lowercase letter or '*' first)"));
    const qsizetype start = m_pos;
    while (!atEnd() && isKeyChar(peek()))
        ++m_pos;
    *name = m_input.sliced(start, m_pos - start).toByteArray();
    return true;
}

bool Parser::bareItem(BareItem *item)
{
    if (atEnd())
        return fail(QStringLiteral("expected an item, found the end"));
    const char c = peek();
    if (c == '-' || isDigit(c))
        return number(item);
    if (c == '"')
        return string(item);
    if (c == '*' || isAlpha(c))
        return token(item);
    if (c == ':')
        return byteSequence(item);
    if (c == '?')
        return boolean(item);
    if (c == '@')
        return date(item);
    if (c == '%')
        return displayString(item);
    return fail(QStringLiteral("'%1' cannot start an item").arg(QLatin1Char(c)));
}

bool Parser::number(BareItem *item)
{
    bool negative = false;
    if (peek() == '-') {
        negative = true;
        ++m_pos;
    }
    if (atEnd() || !isDigit(peek()))
        return fail(QStringLiteral("expected a digit"));
    const qsizetype start = m_pos;
    qsizetype dot = -1;
    while (!atEnd()) {
        const char c = peek();
        if (isDigit(c)) {
            ++m_pos;
        } else if (dot < 0 && c == '.') {
            if (m_pos - start > 12)
                return fail(QStringLiteral("a decimal with more than 12 integer digits"));
            dot = m_pos;
            ++m_pos;
        } else {
            break;
        }
        if (dot < 0 && m_pos - start > 15)
            return fail(QStringLiteral("an integer with more than 15 digits"));
        if (dot >= 0 && m_pos - start > 16)
            return fail(QStringLiteral("a decimal with more than 16 characters"));
    }
    const QByteArrayView text = m_input.sliced(start, m_pos - start);
    if (dot < 0) {
        qint64 value = 0;
        for (const char c : text)
            value = value * 10 + (c - '0');
        *item = BareItem::integer(negative ? -value : value);
        return true;
    }
    const qsizetype fractionDigits = m_pos - dot - 1;
    if (fractionDigits == 0)
        return fail(QStringLiteral("a decimal ending in '.'"));
    if (fractionDigits > 3)
        return fail(QStringLiteral("a decimal with more than 3 fraction digits"));
    qint64 thousandths = 0;
    for (const char c : text) {
        if (c != '.')
            thousandths = thousandths * 10 + (c - '0');
    }
    for (qsizetype i = fractionDigits; i < 3; ++i)
        thousandths *= 10;
    *item = BareItem::decimalThousandths(negative ? -thousandths : thousandths);
    return true;
}

bool Parser::string(BareItem *item)
{
    ++m_pos; // '"'
    QByteArray out;
    while (!atEnd()) {
        const char c = m_input[m_pos++];
        if (c == '\\') {
            if (atEnd())
                return fail(QStringLiteral("a string ending in '\\'"));
            const char escaped = m_input[m_pos++];
            if (escaped != '"' && escaped != '\\')
                return fail(QStringLiteral("'\\' may escape only '\"' or '\\'"));
            out.append(escaped);
        } else if (c == '"') {
            *item = BareItem::string(out);
            return true;
        } else if (!isVisibleAscii(uchar(c))) {
            --m_pos;
            return fail(QStringLiteral("a control character in a string"));
        } else {
            out.append(c);
        }
    }
    return fail(QStringLiteral("a string without its closing '\"'"));
}

bool Parser::token(BareItem *item)
{
    const qsizetype start = m_pos;
    ++m_pos; // ALPHA or '*', checked by the caller
    while (!atEnd() && isTokenChar(peek()))
        ++m_pos;
    *item = BareItem::token(m_input.sliced(start, m_pos - start).toByteArray());
    return true;
}

bool Parser::byteSequence(BareItem *item)
{
    ++m_pos; // ':'
    const qsizetype end = m_input.indexOf(':', m_pos);
    if (end < 0)
        return fail(QStringLiteral("a byte sequence without its closing ':'"));
    const QByteArrayView text = m_input.sliced(m_pos, end - m_pos);
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (!isBase64Char(text[i])) {
            m_pos += i;
            return fail(QStringLiteral("a character outside base64 in a byte sequence"));
        }
    }
    const auto bytes = decodeBase64(text);
    if (!bytes)
        return fail(QStringLiteral("a byte sequence that is not valid base64"));
    m_pos = end + 1;
    *item = BareItem::byteSequence(*bytes);
    return true;
}

bool Parser::boolean(BareItem *item)
{
    ++m_pos; // '?'
    if (peek() == '1' || peek() == '0') {
        *item = BareItem::boolean(peek() == '1');
        ++m_pos;
        return true;
    }
    return fail(QStringLiteral("a boolean must be ?0 or ?1"));
}

bool Parser::date(BareItem *item)
{
    ++m_pos; // '@'
    BareItem seconds;
    if (!number(&seconds))
        return false;
    if (!seconds.isInteger())
        return fail(QStringLiteral("a date must be whole seconds"));
    *item = BareItem::date(seconds.toInteger());
    return true;
}

bool Parser::displayString(BareItem *item)
{
    ++m_pos; // '%'
    if (peek() != '"')
        return fail(QStringLiteral("expected '\"' after '%'"));
    ++m_pos;
    QByteArray utf8;
    auto hexValue = [](char c) {
        if (isDigit(c))
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        return -1;
    };
    while (!atEnd()) {
        const char c = m_input[m_pos];
        if (!isVisibleAscii(uchar(c)))
            return fail(QStringLiteral("a control character in a display string"));
        ++m_pos;
        if (c == '%') {
            if (m_input.size() - m_pos < 2)
                return fail(QStringLiteral("an incomplete %-escape in a display string"));
            const int high = hexValue(m_input[m_pos]);
            const int low = hexValue(m_input[m_pos + 1]);
            if (high < 0 || low < 0)
                return fail(QStringLiteral("a %-escape must be two lowercase hex digits"));
            utf8.append(char(high * 16 + low));
            m_pos += 2;
        } else if (c == '"') {
            const QString text = QString::fromUtf8(utf8);
            if (text.toUtf8() != utf8)
                return fail(QStringLiteral("a display string that is not valid UTF-8"));
            *item = BareItem::displayString(text);
            return true;
        } else {
            utf8.append(c);
        }
    }
    return fail(QStringLiteral("a display string without its closing '\"'"));
}

template <typename T, typename F>
std::optional<T> parseField(QByteArrayView field, QString *error, F parse)
{
    Parser parser(field);
    std::optional<T> result;
    if (parser.begin())
        result = parse(parser);
    if (result && !parser.finish())
        result.reset();
    if (!result && error)
        *error = parser.error();
    return result;
}

bool isValidKey(const QByteArray &key)
{
    if (key.isEmpty() || !(isLcAlpha(key.front()) || key.front() == '*'))
        return false;
    for (const char c : key) {
        if (!isKeyChar(c))
            return false;
    }
    return true;
}

bool isValidToken(const QByteArray &token)
{
    if (token.isEmpty() || !(isAlpha(token.front()) || token.front() == '*'))
        return false;
    for (const char c : token) {
        if (!isTokenChar(c))
            return false;
    }
    return true;
}

bool appendBareItem(QByteArray &out, const BareItem &item);

bool appendParameters(QByteArray &out, const Parameters &params)
{
    for (const auto &[name, value] : params.entries()) {
        if (!isValidKey(name))
            return false;
        out += ';' + name;
        if (value.isBoolean() && value.toBool())
            continue;
        out += '=';
        if (!appendBareItem(out, value))
            return false;
    }
    return true;
}

bool appendMember(QByteArray &out, const Member &member)
{
    if (!member.isInnerList)
        return appendBareItem(out, member.value) && appendParameters(out, member.parameters);
    out += '(';
    for (qsizetype i = 0; i < member.innerItems.size(); ++i) {
        if (i > 0)
            out += ' ';
        const Item &entry = member.innerItems[i];
        if (!appendBareItem(out, entry.value) || !appendParameters(out, entry.parameters))
            return false;
    }
    out += ')';
    return appendParameters(out, member.parameters);
}

bool appendDecimal(QByteArray &out, qint64 thousandths)
{
    if (thousandths > kMaxDecimalThousandths || thousandths < -kMaxDecimalThousandths)
        return false;
    if (thousandths < 0)
        out += '-';
    const qint64 magnitude = thousandths < 0 ? -thousandths : thousandths;
    out += QByteArray::number(magnitude / 1000);
    out += '.';
    QByteArray fraction = QByteArray::number(magnitude % 1000).rightJustified(3, '0');
    // At least one fraction digit, no trailing zeros beyond it (§4.1.5).
    while (fraction.size() > 1 && fraction.endsWith('0'))
        fraction.chop(1);
    out += fraction;
    return true;
}

bool appendBareItem(QByteArray &out, const BareItem &item)
{
    switch (item.type()) {
    case BareItem::Type::Integer:
        if (item.toInteger() > kMaxInteger || item.toInteger() < -kMaxInteger)
            return false;
        out += QByteArray::number(item.toInteger());
        return true;
    case BareItem::Type::Decimal:
        return appendDecimal(out, item.toThousandths());
    case BareItem::Type::String:
        out += '"';
        for (const char c : item.toBytes()) {
            if (!isVisibleAscii(uchar(c)))
                return false;
            if (c == '"' || c == '\\')
                out += '\\';
            out += c;
        }
        out += '"';
        return true;
    case BareItem::Type::Token:
        if (!isValidToken(item.toBytes()))
            return false;
        out += item.toBytes();
        return true;
    case BareItem::Type::ByteSequence:
        out += ':' + item.toBytes().toBase64() + ':';
        return true;
    case BareItem::Type::Boolean:
        out += item.toBool() ? "?1" : "?0";
        return true;
    case BareItem::Type::Date:
        if (item.toInteger() > kMaxInteger || item.toInteger() < -kMaxInteger)
            return false;
        out += '@' + QByteArray::number(item.toInteger());
        return true;
    case BareItem::Type::DisplayString: {
        static const char kHex[] = "0123456789abcdef";
        out += "%\"";
        for (const char c : item.toDisplayString().toUtf8()) {
            const uchar u = uchar(c);
            if (u == '%' || u == '"' || !isVisibleAscii(u)) {
                out += '%';
                out += kHex[u >> 4];
                out += kHex[u & 0xf];
            } else {
                out += c;
            }
        }
        out += '"';
        return true;
    }
    }
    return false;
}

} // namespace

BareItem BareItem::integer(qint64 value)
{
    BareItem item;
    item.m_type = Type::Integer;
    item.m_number = value;
    return item;
}

BareItem BareItem::decimalThousandths(qint64 thousandths)
{
    BareItem item;
    item.m_type = Type::Decimal;
    item.m_number = thousandths;
    return item;
}

BareItem BareItem::decimal(double value)
{
    const double scaled = value * 1000.0;
    // Beyond this, the value cannot be serialized anyway; keep it out of range so
    // that the serializer refuses it instead of wrapping around.
    if (!std::isfinite(scaled) || std::fabs(scaled) > 1e18)
        return decimalThousandths(std::numeric_limits<qint64>::max());
    return decimalThousandths(qint64(std::nearbyint(scaled))); // half to even by default
}

BareItem BareItem::string(const QByteArray &ascii)
{
    BareItem item;
    item.m_type = Type::String;
    item.m_bytes = ascii;
    return item;
}

BareItem BareItem::token(const QByteArray &token)
{
    BareItem item;
    item.m_type = Type::Token;
    item.m_bytes = token;
    return item;
}

BareItem BareItem::byteSequence(const QByteArray &bytes)
{
    BareItem item;
    item.m_type = Type::ByteSequence;
    item.m_bytes = bytes;
    return item;
}

BareItem BareItem::boolean(bool value)
{
    BareItem item;
    item.m_type = Type::Boolean;
    item.m_number = value ? 1 : 0;
    return item;
}

BareItem BareItem::date(qint64 secondsSinceEpoch)
{
    BareItem item;
    item.m_type = Type::Date;
    item.m_number = secondsSinceEpoch;
    return item;
}

BareItem BareItem::displayString(const QString &text)
{
    BareItem item;
    item.m_type = Type::DisplayString;
    item.m_text = text;
    return item;
}

double BareItem::toDouble() const
{
    if (m_type == Type::Decimal)
        return double(m_number) / 1000.0;
    return double(m_number);
}

bool operator==(const BareItem &a, const BareItem &b)
{
    return a.m_type == b.m_type && a.m_number == b.m_number && a.m_bytes == b.m_bytes &&
           a.m_text == b.m_text;
}

const char *textOf(BareItem::Type type)
{
    switch (type) {
    case BareItem::Type::Integer:
        return "integer";
    case BareItem::Type::Decimal:
        return "decimal";
    case BareItem::Type::String:
        return "string";
    case BareItem::Type::Token:
        return "token";
    case BareItem::Type::ByteSequence:
        return "binary";
    case BareItem::Type::Boolean:
        return "boolean";
    case BareItem::Type::Date:
        return "date";
    case BareItem::Type::DisplayString:
        return "displaystring";
    }
    return "boolean";
}

void Parameters::insert(const QByteArray &key, const BareItem &value)
{
    for (Entry &entry : m_entries) {
        if (entry.first == key) {
            entry.second = value;
            return;
        }
    }
    m_entries.append({key, value});
}

const BareItem *Parameters::find(QByteArrayView key) const
{
    for (const Entry &entry : m_entries) {
        if (entry.first == key)
            return &entry.second;
    }
    return nullptr;
}

void Dictionary::insert(const QByteArray &key, const Member &member)
{
    for (Entry &entry : m_entries) {
        if (entry.first == key) {
            entry.second = member;
            return;
        }
    }
    m_entries.append({key, member});
}

const Member *Dictionary::find(QByteArrayView key) const
{
    for (const Entry &entry : m_entries) {
        if (entry.first == key)
            return &entry.second;
    }
    return nullptr;
}

std::optional<List> parseList(QByteArrayView field, QString *error)
{
    return parseField<List>(field, error, [](Parser &p) { return p.list(); });
}

std::optional<Dictionary> parseDictionary(QByteArrayView field, QString *error)
{
    return parseField<Dictionary>(field, error, [](Parser &p) { return p.dictionary(); });
}

std::optional<Item> parseItem(QByteArrayView field, QString *error)
{
    return parseField<Item>(field, error, [](Parser &p) { return p.item(); });
}

std::optional<QByteArray> serializeList(const List &list)
{
    QByteArray out;
    for (qsizetype i = 0; i < list.size(); ++i) {
        if (i > 0)
            out += ", ";
        if (!appendMember(out, list[i]))
            return std::nullopt;
    }
    return out;
}

std::optional<QByteArray> serializeDictionary(const Dictionary &dictionary)
{
    QByteArray out;
    bool first = true;
    for (const auto &[name, member] : dictionary.entries()) {
        if (!isValidKey(name))
            return std::nullopt;
        if (!first)
            out += ", ";
        first = false;
        out += name;
        if (!member.isInnerList && member.value.isBoolean() && member.value.toBool()) {
            if (!appendParameters(out, member.parameters))
                return std::nullopt;
            continue;
        }
        out += '=';
        if (!appendMember(out, member))
            return std::nullopt;
    }
    return out;
}

std::optional<QByteArray> serializeItem(const Item &item)
{
    QByteArray out;
    if (!appendBareItem(out, item.value) || !appendParameters(out, item.parameters))
        return std::nullopt;
    return out;
}

std::optional<QByteArray> serializeBareItem(const BareItem &item)
{
    QByteArray out;
    if (!appendBareItem(out, item))
        return std::nullopt;
    return out;
}

std::optional<QByteArray> serializeString(QStringView text)
{
    QByteArray ascii;
    ascii.reserve(text.size());
    for (const QChar c : text) {
        if (c.unicode() > 0x7e || c.unicode() < 0x20)
            return std::nullopt;
        ascii.append(char(c.unicode()));
    }
    return serializeBareItem(BareItem::string(ascii));
}

} // namespace cooldown::StructuredFields
