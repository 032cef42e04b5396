// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>

#include <optional>

namespace cooldown {

// Response or request header fields in the order received. Names compare
// case-insensitively; repeated fields combine with ", " as RFC 9110 §5.3 allows.
class HttpHeaders
{
public:
    using Field = QPair<QByteArray, QByteArray>;

    HttpHeaders() = default;
    HttpHeaders(std::initializer_list<Field> fields) : m_fields(fields) {}

    void append(const QByteArray &name, const QByteArray &value) { m_fields.append({name, value}); }
    // "Name: value" as typed on a command line; false when there is no colon or the
    // name is not an RFC 9110 token (no whitespace before the colon either).
    bool appendLine(const QByteArray &line);

    std::optional<QByteArray> value(QByteArrayView name) const;
    bool contains(QByteArrayView name) const { return value(name).has_value(); }
    const QList<Field> &fields() const { return m_fields; }
    bool isEmpty() const { return m_fields.isEmpty(); }

private:
    QList<Field> m_fields;
};

} // namespace cooldown
