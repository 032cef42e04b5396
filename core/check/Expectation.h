// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/check/JsonPointer.h"
#include "core/http/HttpHeaders.h"

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <QRegularExpression>
#include <QString>

#include <optional>

namespace cooldown {

// What an endpoint's answer must say to count as success beyond its status
// (docs/checks.md): the endpoint's `expect` in the workspace. The retry contract
// (RetryDecision::decide) asks it about every answer that is not a throttle.

// Statuses from low to high, both included: "200-299", "2xx" or 204 as written.
struct StatusRange
{
    int low = 200;
    int high = 299;
};

struct HeaderCheck
{
    enum class Op
    {
        Present,
        Absent,
        Equals,
        Matches
    };
    QByteArray name;
    Op op = Op::Present;
    QString text; // Equals: the value; Matches: the pattern as written
    QRegularExpression pattern;
};

struct JsonCheck
{
    enum class Op
    {
        Exists,
        Absent,
        Equals,
        Matches,
        OneOf,
        Min, // a number at least
        Max, // a number at most
        MinItems,
        MaxItems
    };
    QString path; // where it was written: "expect.json[1]", for what a failure names
    JsonPointer pointer;
    Op op = Op::Exists;
    QJsonValue value; // Equals: the value; OneOf: an array of them
    QRegularExpression pattern;
    double number = 0; // Min, Max, MinItems, MaxItems
};

// The assertion that failed and what the answer had instead, in words an operator
// reads in History: {"json[0] /status equals \"ok\"", "\"error\""}. `found` is
// shortened and has secrets taken out (see Expectation::check).
struct CheckFailure
{
    QString assertion;
    QString found;

    // "assertion; found: found", the one text attempts keep.
    QString text() const;
};

struct Expectation
{
    QList<StatusRange> statuses; // empty: any 2xx
    QList<HeaderCheck> headers;
    QList<JsonCheck> json;
    QString bodyPatternText;
    QRegularExpression bodyPattern; // valid when bodyPatternText is not empty
    qint64 minBodyBytes = -1;       // -1: no bound
    qint64 maxBodyBytes = -1;
    // A failed assertion is retried like a server error (and a non-idempotent request
    // only with an idempotency key); by default it ends the operation failed.
    bool retryOnFailure = false;

    bool isEmpty() const;

    // Whether the expectation takes `status` as an answer it checks further. Without
    // statuses: any 2xx.
    bool allowsStatus(int status) const;
    // "200-299, 304" or "2xx", as a failure names it.
    QString statusText() const;

    // The first assertion on the answer's headers and body that fails, in the order
    // written: headers, body size, body_regex, json. `bodyTruncated` says the body
    // read was cut at the transport's limit: a check that needs all of it fails.
    std::optional<CheckFailure> check(const HttpHeaders &headers, const QByteArray &body,
                                      bool bodyTruncated) const;
};

} // namespace cooldown
