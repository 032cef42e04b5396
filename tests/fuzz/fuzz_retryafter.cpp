// SPDX-License-Identifier: Apache-2.0
// Retry-After and HTTP-date: the first line of the input is the Retry-After value,
// anything after the first LF is the response's Date field.

#include "FuzzCheck.h"

#include "core/http/HttpDate.h"
#include "core/http/RetryAfter.h"

using namespace cooldown;

namespace {
// 2026-11-29T12:00:00Z: a fixed "now", so that a crash reproduces from its input alone.
constexpr qint64 kNowMs = 1795953600000;
constexpr qint64 kDayMs = 86400000;

bool allDigits(QByteArrayView text)
{
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    return !text.isEmpty();
}
} // namespace

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = fuzz::bytes(data, size);
    const qsizetype newline = input.indexOf('\n');
    const QByteArray value = newline < 0 ? input : input.left(newline);
    const std::optional<QByteArray> date =
        newline < 0 ? std::nullopt : std::optional<QByteArray>(input.mid(newline + 1));

    const RetryAfter retryAfter = RetryAfter::parse(value, kNowMs, date);
    FUZZ_CHECK(retryAfter.isPresent());
    FUZZ_CHECK(retryAfter.raw == value);
    FUZZ_CHECK(retryAfter.waitMs >= 0);
    FUZZ_CHECK(retryAfter.waitMs <= RetryAfter::kMaxSeconds * 1000 || !retryAfter.isValid());
    FUZZ_CHECK(retryAfter.isValid() == retryAfter.error.isEmpty());
    if (retryAfter.form == RetryAfter::Form::Delta)
        FUZZ_CHECK(allDigits(value.trimmed()));
    if (retryAfter.saturated) {
        FUZZ_CHECK(retryAfter.form == RetryAfter::Form::Delta);
        FUZZ_CHECK(retryAfter.waitMs == RetryAfter::kMaxSeconds * 1000);
    }
    if (retryAfter.measuredAgainstDate)
        FUZZ_CHECK(date.has_value() && retryAfter.form != RetryAfter::Form::Delta);

    const HttpDate parsed = HttpDate::parse(value, kNowMs);
    FUZZ_CHECK(parsed.isValid() == parsed.error.isEmpty());
    if (parsed.isValid())
        FUZZ_CHECK(parsed.msSinceEpoch % 1000 == 0);
    // Whatever form was read, it must survive being written as the form a sender
    // generates and read back, within the years 0001-9999 that IMF-fixdate can write
    // (0000 parses, and so does a leap second on 9999-12-31, but neither can be written).
    static const qint64 kFirstWritableMs = daysFromCivil(1, 1, 1) * kDayMs;
    static const qint64 kLastWritableMs = daysFromCivil(10000, 1, 1) * kDayMs;
    if (parsed.isValid() && parsed.msSinceEpoch >= kFirstWritableMs &&
        parsed.msSinceEpoch < kLastWritableMs) {
        const QByteArray formatted = HttpDate::format(parsed.msSinceEpoch);
        const HttpDate again = HttpDate::parse(formatted, kNowMs);
        FUZZ_CHECK(again.form == HttpDate::Form::ImfFixdate);
        FUZZ_CHECK(again.msSinceEpoch == parsed.msSinceEpoch);
    }
    return 0;
}
