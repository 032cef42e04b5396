// SPDX-License-Identifier: Apache-2.0
#include "core/http/AuthChallenge.h"

#include "core/http/HttpToken.h"

namespace cooldown {

namespace {

class Reader
{
public:
    explicit Reader(QByteArrayView text) : m_text(text) {}

    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text.at(m_pos); }
    void skipSpace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t'))
            ++m_pos;
    }
    bool take(char c)
    {
        if (peek() != c || atEnd())
            return false;
        ++m_pos;
        return true;
    }
    QByteArray token()
    {
        const qsizetype start = m_pos;
        while (!atEnd() && isTchar(char16_t(uchar(peek()))))
            ++m_pos;
        return m_text.sliced(start, m_pos - start).toByteArray();
    }
    // token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
    QByteArray token68()
    {
        const qsizetype start = m_pos;
        while (!atEnd()) {
            const char c = peek();
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/')
                ++m_pos;
            else
                break;
        }
        while (take('='))
            ;
        return m_text.sliced(start, m_pos - start).toByteArray();
    }
    std::optional<QByteArray> quoted()
    {
        if (!take('"'))
            return std::nullopt;
        QByteArray out;
        while (!atEnd()) {
            const char c = m_text.at(m_pos++);
            if (c == '"')
                return out;
            if (c == '\\') {
                if (atEnd())
                    return std::nullopt;
                out += m_text.at(m_pos++);
            } else {
                out += c;
            }
        }
        return std::nullopt;
    }
    qsizetype pos() const { return m_pos; }
    void seek(qsizetype pos) { m_pos = pos; }
    // Past the next comma that is not inside a quoted string.
    void skipElement()
    {
        bool inQuotes = false;
        while (!atEnd()) {
            const char c = m_text.at(m_pos++);
            if (inQuotes && c == '\\' && !atEnd())
                ++m_pos;
            else if (c == '"')
                inQuotes = !inQuotes;
            else if (c == ',' && !inQuotes)
                return;
        }
    }

private:
    QByteArrayView m_text;
    qsizetype m_pos = 0;
};

// After "name" and optional spaces: whether an "=" follows that starts an auth-param
// (not the padding of a token68).
bool paramFollows(Reader &r)
{
    const qsizetype at = r.pos();
    r.skipSpace();
    const bool param = r.take('=');
    r.seek(at);
    return param;
}

} // namespace

std::optional<QString> AuthChallenge::param(QByteArrayView name) const
{
    for (const auto &p : params) {
        if (p.first.compare(name, Qt::CaseInsensitive) == 0)
            return p.second;
    }
    return std::nullopt;
}

bool AuthChallenge::isBearer() const
{
    return scheme.compare("Bearer", Qt::CaseInsensitive) == 0;
}

QList<AuthChallenge> AuthChallenge::parse(QByteArrayView field)
{
    // challenge = auth-scheme [ 1*SP ( token68 / #auth-param ) ], in a list where the
    // commas separate both challenges and the params of one.
    QList<AuthChallenge> out;
    Reader r(field);
    std::optional<AuthChallenge> current;
    while (true) {
        r.skipSpace();
        if (r.atEnd())
            break;
        if (r.take(','))
            continue;
        const qsizetype start = r.pos();
        const QByteArray name = r.token();
        if (name.isEmpty()) {
            r.skipElement();
            continue;
        }
        if (current && paramFollows(r)) {
            // name = value, a parameter of the current challenge
            r.skipSpace();
            r.take('=');
            r.skipSpace();
            std::optional<QByteArray> value =
                r.peek() == '"' ? r.quoted() : std::optional<QByteArray>(r.token());
            r.skipSpace();
            if (!value || (!r.atEnd() && r.peek() != ',')) {
                r.skipElement();
                continue;
            }
            current->params.append({name.toLower(), QString::fromUtf8(*value)});
            continue;
        }
        Q_UNUSED(start)
        // A new challenge: its scheme, then a token68 or its first parameter.
        if (current)
            out.append(*current);
        current = AuthChallenge{};
        current->scheme = name;
        const qsizetype afterScheme = r.pos();
        r.skipSpace();
        if (r.atEnd() || r.peek() == ',')
            continue;
        if (r.pos() == afterScheme) {
            // Not separated by a space: not a challenge.
            current.reset();
            r.skipElement();
            continue;
        }
        const qsizetype paramStart = r.pos();
        const QByteArray first = r.token();
        if (!first.isEmpty() && paramFollows(r)) {
            r.seek(paramStart);
            continue; // read as a parameter on the next turn
        }
        r.seek(paramStart);
        const QByteArray t68 = r.token68();
        r.skipSpace();
        if (!t68.isEmpty() && (r.atEnd() || r.peek() == ','))
            current->token68 = t68;
        else
            r.skipElement();
    }
    if (current)
        out.append(*current);
    return out;
}

QList<AuthChallenge> AuthChallenge::parse(const HttpHeaders &headers)
{
    QList<AuthChallenge> out;
    for (const auto &field : headers.fields()) {
        if (field.first.compare("WWW-Authenticate", Qt::CaseInsensitive) == 0)
            out += parse(field.second);
    }
    return out;
}

std::optional<AuthChallenge> AuthChallenge::bearer(const HttpHeaders &headers)
{
    for (const AuthChallenge &c : parse(headers)) {
        if (c.isBearer())
            return c;
    }
    return std::nullopt;
}

} // namespace cooldown
