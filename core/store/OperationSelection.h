// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/store/Records.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// The last answer an operation got, as a bulk action selects by it: an exact status
// (429), a class (4xx: 400 to 499, 429 included), or "error": an attempt was made and
// no response came (a transport error; last status 0).
struct StatusMatch
{
    int min = 0; // inclusive; 0 with max 0 means "error"
    int max = 0;

    bool isError() const { return min == 0 && max == 0; }
    friend bool operator==(const StatusMatch &a, const StatusMatch &b)
    {
        return a.min == b.min && a.max == b.max;
    }
};

// Which operations an operator's bulk action applies to (docs/bulk-actions.md).
// Every field that is set must match (AND); a list matches any of its values (OR).
// An empty selection matches every operation: callers that change operations should
// refuse it (isEmpty()).
//
// Its text form is what `cooldown retry|cancel --filter` takes and what the audit
// table records:
//   endpoint=upload state=waiting,parked status=429 since=2026-12-01T10:00:00Z
// Terms are separated by spaces or commas; a word without '=' adds a value to the
// term before it; values with a space, a comma or a quote are written in double
// quotes ("a b", with \" and \\ inside).
struct OperationSelection
{
    QStringList endpointIds;
    QList<OperationState> states;
    QStringList partitionKeys;
    QList<StatusMatch> statuses;
    // The operation's final reason (a parked or failed one's), or its last attempt's
    // reason: idempotency_key_expired, not_idempotent, ...
    QStringList reasons;
    // The operation's creation time in [sinceMs, untilMs); -1: unbounded. The store
    // keeps no time of an operation's last change; its creation is what it indexes.
    qint64 sinceMs = -1;
    qint64 untilMs = -1;

    bool isEmpty() const;

    // Parses the text form. A time is ISO 8601 (UTC unless an offset is given) or a
    // duration before nowMs (30m, 2h, 7d). On a bad term returns nullopt with an
    // error naming the term and its column (from 1) in *error.
    static std::optional<OperationSelection> parse(QStringView text, qint64 nowMs, QString *error);
    // The text form, normalised (fixed key order, times in UTC): parse(toText())
    // gives an equal selection.
    QString toText() const;

    friend bool operator==(const OperationSelection &a, const OperationSelection &b);
};

// "2xx", "429", "error": how toText() writes a status match.
QString toString(const StatusMatch &match);

} // namespace cooldown
