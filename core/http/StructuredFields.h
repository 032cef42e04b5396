// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QString>

#include <optional>

namespace cooldown::StructuredFields {

// Structured Field Values for HTTP (RFC 9651): the data model, a strict parser and a
// serializer. Parsing follows §4.2 to the letter: any deviation fails the whole field,
// and the caller must then ignore the field as if it had not been sent.

// A bare item. Strings and tokens hold ASCII; byte sequences hold the decoded bytes.
class BareItem
{
public:
    enum class Type
    {
        Integer,
        Decimal,
        String,
        Token,
        ByteSequence,
        Boolean,
        Date,
        DisplayString
    };

    BareItem() = default; // the Boolean true, as a parameter without a value is

    static BareItem integer(qint64 value);
    // value in thousandths, exactly as the wire carries it (12 integer and 3 fraction digits).
    static BareItem decimalThousandths(qint64 thousandths);
    // Rounds to three fraction digits, half to even, as §4.1.5 serializes.
    static BareItem decimal(double value);
    static BareItem string(const QByteArray &ascii);
    static BareItem token(const QByteArray &token);
    static BareItem byteSequence(const QByteArray &bytes);
    static BareItem boolean(bool value);
    static BareItem date(qint64 secondsSinceEpoch);
    static BareItem displayString(const QString &text);

    Type type() const { return m_type; }
    bool isInteger() const { return m_type == Type::Integer; }
    bool isDecimal() const { return m_type == Type::Decimal; }
    bool isString() const { return m_type == Type::String; }
    bool isToken() const { return m_type == Type::Token; }
    bool isByteSequence() const { return m_type == Type::ByteSequence; }
    bool isBoolean() const { return m_type == Type::Boolean; }
    bool isDate() const { return m_type == Type::Date; }
    bool isDisplayString() const { return m_type == Type::DisplayString; }

    qint64 toInteger() const { return m_number; }         // Integer and Date
    qint64 toThousandths() const { return m_number; }     // Decimal
    double toDouble() const;                              // Integer or Decimal
    const QByteArray &toBytes() const { return m_bytes; } // String, Token, ByteSequence
    bool toBool() const { return m_number != 0; }
    QString toDisplayString() const { return m_text; }

    friend bool operator==(const BareItem &a, const BareItem &b);
    friend bool operator!=(const BareItem &a, const BareItem &b) { return !(a == b); }

private:
    Type m_type = Type::Boolean;
    qint64 m_number = 1;
    QByteArray m_bytes;
    QString m_text;
};

const char *textOf(BareItem::Type type);

// Parameters keep their order; a repeated key keeps its first position and last value.
class Parameters
{
public:
    using Entry = QPair<QByteArray, BareItem>;

    void insert(const QByteArray &key, const BareItem &value);
    const BareItem *find(QByteArrayView key) const;
    bool contains(QByteArrayView key) const { return find(key) != nullptr; }
    const QList<Entry> &entries() const { return m_entries; }
    bool isEmpty() const { return m_entries.isEmpty(); }

    friend bool operator==(const Parameters &a, const Parameters &b)
    {
        return a.m_entries == b.m_entries;
    }

private:
    QList<Entry> m_entries;
};

struct Item
{
    BareItem value;
    Parameters parameters;

    friend bool operator==(const Item &a, const Item &b)
    {
        return a.value == b.value && a.parameters == b.parameters;
    }
};

// A member of a List or Dictionary: an Item, or an Inner List with its own parameters.
struct Member
{
    bool isInnerList = false;
    BareItem value;         // the Item's value when !isInnerList
    QList<Item> innerItems; // the Inner List's items when isInnerList
    Parameters parameters;  // the Item's, or the Inner List's

    static Member fromItem(const Item &item)
    {
        return Member{false, item.value, {}, item.parameters};
    }
    Item toItem() const { return Item{value, parameters}; }

    friend bool operator==(const Member &a, const Member &b)
    {
        return a.isInnerList == b.isInnerList && a.parameters == b.parameters &&
               (a.isInnerList ? a.innerItems == b.innerItems : a.value == b.value);
    }
};

using List = QList<Member>;

class Dictionary
{
public:
    using Entry = QPair<QByteArray, Member>;

    void insert(const QByteArray &key, const Member &member);
    const Member *find(QByteArrayView key) const;
    const QList<Entry> &entries() const { return m_entries; }
    bool isEmpty() const { return m_entries.isEmpty(); }

    friend bool operator==(const Dictionary &a, const Dictionary &b)
    {
        return a.m_entries == b.m_entries;
    }

private:
    QList<Entry> m_entries;
};

// Parsers take the field value with all field lines of that name already combined by
// ", " (HttpHeaders::value does so). On failure they return nullopt and, when error is
// given, say what was wrong and at which byte.
std::optional<List> parseList(QByteArrayView field, QString *error = nullptr);
std::optional<Dictionary> parseDictionary(QByteArrayView field, QString *error = nullptr);
std::optional<Item> parseItem(QByteArrayView field, QString *error = nullptr);

// Serializers return nullopt when the value cannot be represented (§4.1: an integer
// out of range, a string with a control character, an invalid token or key...).
std::optional<QByteArray> serializeList(const List &list);
std::optional<QByteArray> serializeDictionary(const Dictionary &dictionary);
std::optional<QByteArray> serializeItem(const Item &item);
std::optional<QByteArray> serializeBareItem(const BareItem &item);

// A single sf-string, e.g. for `Idempotency-Key`. nullopt when text holds anything
// but printable ASCII (an sf-string cannot carry it).
std::optional<QByteArray> serializeString(QStringView text);

} // namespace cooldown::StructuredFields
