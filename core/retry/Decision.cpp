// SPDX-License-Identifier: Apache-2.0
#include "core/retry/Decision.h"

#include <QLatin1String>

namespace cooldown {

namespace {

// Every value of E from first to last, tried against text by its name.
template <typename E> std::optional<E> fromName(QStringView text, E first, E last)
{
    for (int value = int(first); value <= int(last); ++value) {
        if (text == QLatin1String(textOf(E(value))))
            return E(value);
    }
    return std::nullopt;
}

} // namespace

const char *textOf(Decision decision)
{
    switch (decision) {
    case Decision::Success:
        return "success";
    case Decision::Retry:
        return "retry";
    case Decision::Park:
        return "park";
    case Decision::Fail:
        return "fail";
    }
    return "fail";
}

std::optional<Decision> decisionFromString(QStringView text)
{
    return fromName(text, Decision::Success, Decision::Fail);
}

const char *textOf(WaitSource source)
{
    switch (source) {
    case WaitSource::None:
        return "none";
    case WaitSource::RetryAfter:
        return "retry-after";
    case WaitSource::RateLimit:
        return "ratelimit";
    case WaitSource::XRateLimit:
        return "x-ratelimit";
    case WaitSource::Problem:
        return "problem";
    case WaitSource::Backoff:
        return "backoff";
    }
    return "none";
}

std::optional<WaitSource> waitSourceFromString(QStringView text)
{
    return fromName(text, WaitSource::None, WaitSource::Backoff);
}

} // namespace cooldown
