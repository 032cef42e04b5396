// SPDX-License-Identifier: Apache-2.0
#include "core/check/JsonPointer.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

// An array index as RFC 6901 writes one: "0", or digits without a leading zero.
std::optional<qsizetype> arrayIndex(const QString &token)
{
    if (token.isEmpty() || token.size() > 18 || (token.size() > 1 && token.front() == u'0'))
        return std::nullopt;
    qsizetype index = 0;
    for (const QChar c : token) {
        if (c < u'0' || c > u'9')
            return std::nullopt;
        index = index * 10 + (c.unicode() - u'0');
    }
    return index;
}

} // namespace

std::optional<JsonPointer> JsonPointer::parse(const QString &text, QString *error)
{
    JsonPointer pointer;
    pointer.m_text = text;
    if (text.isEmpty())
        return pointer;
    if (text.front() != u'/') {
        *error = Text::tr("a JSON pointer begins with '/' (or is empty for the whole body)");
        return std::nullopt;
    }
    const QStringList raw = text.mid(1).split(u'/');
    for (const QString &token : raw) {
        QString unescaped;
        unescaped.reserve(token.size());
        for (qsizetype i = 0; i < token.size(); ++i) {
            if (token.at(i) != u'~') {
                unescaped += token.at(i);
                continue;
            }
            const QChar next = i + 1 < token.size() ? token.at(i + 1) : QChar();
            if (next != u'0' && next != u'1') {
                *error = Text::tr("'~' in a JSON pointer must be followed by 0 or 1");
                return std::nullopt;
            }
            unescaped += next == u'0' ? u'~' : u'/';
            ++i;
        }
        pointer.m_tokens.append(unescaped);
    }
    return pointer;
}

std::optional<QJsonValue> JsonPointer::find(const QJsonValue &document) const
{
    QJsonValue current = document;
    for (const QString &token : m_tokens) {
        if (current.isObject()) {
            const QJsonObject object = current.toObject();
            const auto it = object.constFind(token);
            if (it == object.constEnd())
                return std::nullopt;
            current = it.value();
        } else if (current.isArray()) {
            const QJsonArray array = current.toArray();
            const auto index = arrayIndex(token);
            if (!index || *index >= array.size())
                return std::nullopt;
            current = array.at(*index);
        } else {
            return std::nullopt;
        }
    }
    return current;
}

} // namespace cooldown
