// SPDX-License-Identifier: Apache-2.0
// X-RateLimit-* (and the draft RateLimit fields beside them): the input is a header
// block, one "Name: value" field per line, read with every configured meaning of
// X-RateLimit-Reset; then as the quota statement the engine learns limits from, and
// what a partition's window makes of it.

#include "FuzzCheck.h"

#include "core/http/QuotaStatement.h"
#include "core/http/RateLimitHeaders.h"
#include "core/http/XRateLimit.h"
#include "core/ratelimit/ServerWindow.h"

using namespace cooldown;

namespace {
constexpr qint64 kNowMs = 1795953600000; // 2026-11-29T12:00:00Z
}

COOLDOWN_FUZZ_SILENCE_QT

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    HttpHeaders headers;
    for (const QByteArray &line : fuzz::bytes(data, size).split('\n'))
        headers.appendLine(line.endsWith('\r') ? line.chopped(1) : line);

    for (const auto meaning : {XRateLimitResetMeaning::Auto, XRateLimitResetMeaning::Delta,
                               XRateLimitResetMeaning::Epoch, XRateLimitResetMeaning::EpochMs,
                               XRateLimitResetMeaning::HttpDate}) {
        const XRateLimit x = XRateLimit::parse(headers, meaning, kNowMs);
        FUZZ_CHECK(x.configured == meaning);
        FUZZ_CHECK(x.waitMs >= 0);
        if (x.isPresent() && x.rawReset && x.resetAtMs)
            FUZZ_CHECK(x.used != XRateLimitResetMeaning::Auto);
        if (x.limit)
            FUZZ_CHECK(*x.limit >= 0);
        if (x.remaining)
            FUZZ_CHECK(*x.remaining >= 0);
        if (x.givesWait())
            FUZZ_CHECK(x.resetAtMs.has_value());
        (void)x.toJson();
    }

    const RateLimitHeaders draft = RateLimitHeaders::parse(headers);
    if (const auto wait = draft.exhaustedWaitSeconds())
        FUZZ_CHECK(*wait >= 0);
    // Items come only from a field that was there ("" is a valid sf-string name).
    if (!draft.limits.isEmpty())
        FUZZ_CHECK(draft.limitRaw.has_value());
    if (!draft.policies.isEmpty())
        FUZZ_CHECK(draft.policyRaw.has_value());
    (void)draft.toJson();

    if (const auto statement = QuotaStatement::fromHeaders(headers, kNowMs)) {
        FUZZ_CHECK(statement->remaining >= 0 && statement->quota >= 0 && statement->windowMs >= 0);
        FUZZ_CHECK(statement->resetAtMs == -1 || statement->resetAtMs >= kNowMs);
        ServerWindow window;
        window.observe(*statement, 2, kNowMs);
        FUZZ_CHECK(window.remaining >= 0);
        if (window.isKnown(kNowMs)) {
            const qint64 available = window.available(0, kNowMs);
            FUZZ_CHECK(available >= 0 && available <= window.quota);
            window.take(1, 0, kNowMs);
            FUZZ_CHECK(window.available(0, kNowMs) == std::max<qint64>(0, available - 1) ||
                       available == 0);
            FUZZ_CHECK(window.availableAtMs(0, kNowMs) >= kNowMs);
        }
        (void)statement->toJson();
    }
    return 0;
}
