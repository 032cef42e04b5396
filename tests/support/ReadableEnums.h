// SPDX-License-Identifier: Apache-2.0
#pragma once

// A failing QCOMPARE on one of the project's enums names the values ("timeout",
// "connection-closed") instead of printing numbers. QTest finds these toString()
// overloads by argument-dependent lookup and frees what they return, so each gives a
// copy. The project's own functions are called textOf() for that reason.

#include "core/config/WorkspaceConfig.h"
#include "core/http/HttpDate.h"
#include "core/http/ProblemDetails.h"
#include "core/http/RetryAfter.h"
#include "core/http/StructuredFields.h"
#include "core/http/XRateLimit.h"
#include "core/ratelimit/RateLimitPolicy.h"
#include "core/retry/Decision.h"
#include "core/retry/RetryDecision.h"
#include "core/retry/RetryProfile.h"
#include "core/retry/ServerWait.h"

#include <QByteArray> // qstrdup

namespace cooldown {

#define COOLDOWN_READABLE_ENUM(Type)                                                               \
    inline char *toString(Type value)                                                              \
    {                                                                                              \
        return qstrdup(textOf(value));                                                             \
    }

COOLDOWN_READABLE_ENUM(QuotaUnit)
COOLDOWN_READABLE_ENUM(Pacing)
COOLDOWN_READABLE_ENUM(AlertEvent)
COOLDOWN_READABLE_ENUM(TransportError)
COOLDOWN_READABLE_ENUM(Jitter)
COOLDOWN_READABLE_ENUM(OnDeadline)
COOLDOWN_READABLE_ENUM(RetryNonIdempotent)
COOLDOWN_READABLE_ENUM(ProblemAction)
COOLDOWN_READABLE_ENUM(Decision)
COOLDOWN_READABLE_ENUM(WaitSource)
COOLDOWN_READABLE_ENUM(HttpDate::Form)
COOLDOWN_READABLE_ENUM(ProblemDetails::Kind)
COOLDOWN_READABLE_ENUM(XRateLimitResetMeaning)
COOLDOWN_READABLE_ENUM(RetryAfter::Form)

} // namespace cooldown

namespace cooldown::StructuredFields {
COOLDOWN_READABLE_ENUM(BareItem::Type)
} // namespace cooldown::StructuredFields

#undef COOLDOWN_READABLE_ENUM
