// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// A JSON Pointer (RFC 6901): "/items/0/name" names the member "name" of the first
// element of the member "items"; "" names the whole document. "~1" stands for '/' and
// "~0" for '~' inside a token.
class JsonPointer
{
public:
    JsonPointer() = default;

    // The pointer written as `text`; empty, with `error` set, when it is not one (it
    // does not begin with '/', or a '~' is not followed by 0 or 1).
    static std::optional<JsonPointer> parse(const QString &text, QString *error);

    // The value the pointer names in `document`; empty when there is none (a member
    // that is not there, an index past the end or not written as one, "-", or a
    // token applied to a string, number, boolean or null).
    std::optional<QJsonValue> find(const QJsonValue &document) const;

    const QString &text() const { return m_text; }
    const QStringList &tokens() const { return m_tokens; }

private:
    QString m_text;
    QStringList m_tokens; // unescaped
};

} // namespace cooldown
