// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QHash>
#include <QString>

#include <optional>

namespace cooldown::demo {

// The Idempotency-Key field value, an RFC 9651 sf-string ("abc"). Servers in the wild
// also get the bare form (abc), so a token-like bare value is accepted as well.
// Returns nullopt and sets error when the value is neither.
std::optional<QString> parseIdempotencyKey(QByteArrayView fieldValue, QString *error);

// What the server remembers per Idempotency-Key: a request that is still being
// executed, or the response the first execution produced. Only executed requests
// are stored; a request the server refused or failed before executing releases its
// key, so that a retry may execute it.
class IdempotencyLedger
{
public:
    struct StoredResponse
    {
        int status = 0;
        QByteArray contentType;
        QByteArray body;
    };

    enum class Verdict
    {
        Execute,  // the key is new: it is now in flight
        InFlight, // the first request with this key has not finished: 409
        Mismatch, // the key was used with another payload: 422
        Replay,   // the first request finished: answer with its response
    };

    struct Check
    {
        Verdict verdict = Verdict::Execute;
        StoredResponse stored; // for Replay
    };

    // fingerprint identifies the payload (method, path and body).
    Check begin(const QString &key, const QByteArray &fingerprint);
    void complete(const QString &key, const StoredResponse &response);
    void release(const QString &key);
    void clear() { m_entries.clear(); }
    // Forgets finished requests; keys still in flight stay so until they finish.
    void clearCompleted();

    int inFlightCount() const;

    static QByteArray fingerprint(QByteArrayView method, QByteArrayView path, QByteArrayView body);

private:
    struct Entry
    {
        QByteArray fingerprint;
        bool inFlight = true;
        StoredResponse response;
    };
    QHash<QString, Entry> m_entries;
};

} // namespace cooldown::demo
