// SPDX-License-Identifier: Apache-2.0
#include "app/demo/IdempotencyLedger.h"

#include "core/http/HttpToken.h"
#include "core/http/StructuredFields.h"

#include <QCryptographicHash>

namespace cooldown::demo {

namespace {

// A character of an sf-token (RFC 9651 §3.3.4) after its first: tchar, ':' or '/'.
bool isTokenChar(char c)
{
    return isTchar(uchar(c)) || c == ':' || c == '/';
}

QByteArrayView trimmed(QByteArrayView text)
{
    while (!text.isEmpty() && (text.front() == ' ' || text.front() == '\t'))
        text = text.sliced(1);
    while (!text.isEmpty() && (text.back() == ' ' || text.back() == '\t'))
        text.chop(1);
    return text;
}

} // namespace

std::optional<QString> parseIdempotencyKey(QByteArrayView fieldValue, QString *error)
{
    const QByteArrayView text = trimmed(fieldValue);
    const auto fail = [error](const QString &why) -> std::optional<QString> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (text.isEmpty())
        return fail(QStringLiteral("the value is empty"));

    if (text.front() != '"') {
        for (const char c : text) {
            if (!isTokenChar(c))
                return fail(QStringLiteral("a bare key may hold only token characters; "
                                           "quote it as a structured-field string"));
        }
        return QString::fromLatin1(text.data(), text.size());
    }

    // A quoted key is an sf-string, read as RFC 9651 reads one.
    QString why;
    const std::optional<StructuredFields::Item> item = StructuredFields::parseItem(text, &why);
    if (!item)
        return fail(why);
    if (!item->parameters.isEmpty())
        return fail(QStringLiteral("text after the closing quote"));
    if (item->value.toBytes().isEmpty())
        return fail(QStringLiteral("the key is empty"));
    return QString::fromLatin1(item->value.toBytes());
}

IdempotencyLedger::Check IdempotencyLedger::begin(const QString &key, const QByteArray &fingerprint)
{
    const auto it = m_entries.constFind(key);
    if (it == m_entries.constEnd()) {
        m_entries.insert(key, Entry{fingerprint, true, {}});
        return {Verdict::Execute, {}};
    }
    // A different payload is an error whatever the first request's state: the
    // client reused a key, and waiting would not make the request acceptable.
    if (it->fingerprint != fingerprint)
        return {Verdict::Mismatch, {}};
    if (it->inFlight)
        return {Verdict::InFlight, {}};
    return {Verdict::Replay, it->response};
}

void IdempotencyLedger::complete(const QString &key, const StoredResponse &response)
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end())
        return;
    it->inFlight = false;
    it->response = response;
}

void IdempotencyLedger::release(const QString &key)
{
    const auto it = m_entries.find(key);
    if (it != m_entries.end() && it->inFlight)
        m_entries.erase(it);
}

void IdempotencyLedger::clearCompleted()
{
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        if (it->inFlight)
            ++it;
        else
            it = m_entries.erase(it);
    }
}

int IdempotencyLedger::inFlightCount() const
{
    int count = 0;
    for (const Entry &entry : m_entries)
        count += entry.inFlight ? 1 : 0;
    return count;
}

QByteArray IdempotencyLedger::fingerprint(QByteArrayView method, QByteArrayView path,
                                          QByteArrayView body)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(method);
    hash.addData(QByteArrayView("\n", 1));
    hash.addData(path);
    hash.addData(QByteArrayView("\n", 1));
    hash.addData(body);
    return hash.result();
}

} // namespace cooldown::demo
