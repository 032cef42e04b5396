// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/retry/RetryProfile.h"

#include <QtGlobal>

namespace cooldown {

class RandomSource;

// Exponential backoff: min(cap, base·2^n), then jitter.
//  full:          uniform in [0, d]
//  equal:         d/2 + uniform in [0, d/2]
//  decorrelated:  min(cap, uniform in [base, 3·previous])   (previous starts at base)
//  none:          d
namespace Backoff {

// The un-jittered ceiling for retry number n (n = 0 for the first retry).
qint64 ceilingMs(double baseSeconds, double capSeconds, int n);

// previousMs is the delay chosen last time (decorrelated jitter needs it); 0 on the first retry.
qint64 delayMs(const RetryProfile &profile, int n, qint64 previousMs, RandomSource &random);

} // namespace Backoff
} // namespace cooldown
