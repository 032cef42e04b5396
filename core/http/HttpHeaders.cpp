// SPDX-License-Identifier: Apache-2.0
#include "core/http/HttpHeaders.h"

#include "core/http/HttpToken.h"

namespace cooldown {

bool HttpHeaders::appendLine(const QByteArray &line)
{
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0)
        return false;
    // RFC 9112 §5.1: no whitespace between the name and the colon. A line that
    // starts with whitespace is an obsolete continuation line, not a field.
    const QByteArray name = line.left(colon);
    if (!isToken(name))
        return false;
    // Only leading and trailing SP/HTAB are optional whitespace; keep the value's
    // other bytes exactly, so that parsers see what a server would have sent.
    QByteArray value = line.mid(colon + 1);
    while (!value.isEmpty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove(0, 1);
    while (!value.isEmpty() && (value.back() == ' ' || value.back() == '\t'))
        value.chop(1);
    append(name, value);
    return true;
}

std::optional<QByteArray> HttpHeaders::value(QByteArrayView name) const
{
    std::optional<QByteArray> combined;
    for (const Field &field : m_fields) {
        if (field.first.compare(name, Qt::CaseInsensitive) != 0)
            continue;
        if (combined)
            *combined += ", " + field.second;
        else
            combined = field.second;
    }
    return combined;
}

} // namespace cooldown
