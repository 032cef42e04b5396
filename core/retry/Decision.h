// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QStringView>

#include <optional>

namespace cooldown {

// What the retry contract made of one attempt. Attempt records and rollups keep it;
// only the store and what prints it (exports, logs, metrics labels, the window) see
// its text.
enum class Decision
{
    Success,
    Retry,
    Park,
    Fail
};

// Where a retry's wait came from. Every attempt records it: None when there was no
// retry or the server gave no usable wait.
enum class WaitSource
{
    None,
    RetryAfter,
    RateLimit,
    XRateLimit,
    Problem,
    Backoff
};

// The project's enums name their text textOf(), not toString(): QTest would find a
// toString() by argument-dependent lookup when a QCOMPARE fails, and free the
// literal it returns (scripts/check-source refuses one). Tests include
// tests/support/ReadableEnums.h for failures that name the values.

// "success", "retry", "park", "fail": the text stored and printed.
const char *textOf(Decision decision);
// The inverse of textOf; empty for any other text, the empty one included.
std::optional<Decision> decisionFromString(QStringView text);

// "none", "retry-after", "ratelimit", "x-ratelimit", "problem", "backoff".
const char *textOf(WaitSource source);
// The inverse of textOf; empty for any other text, the empty one included.
std::optional<WaitSource> waitSourceFromString(QStringView text);

} // namespace cooldown
