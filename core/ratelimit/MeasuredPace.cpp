// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/MeasuredPace.h"

#include <algorithm>

namespace cooldown {

void MeasuredPace::answered(bool refused, qint64 holdMs, qint64 sentAtMs, qint64 nowMs)
{
    if (!refused) {
        if (sinceMs <= 0 || nowMs - sinceMs > kSampleSpanMs) {
            sinceMs = nowMs; // what a refusal measures is the last few seconds
            accepted = 0;
        }
        ++accepted;
        if (intervalUs > 0 && nowMs - raisedAtMs >= kRaiseEveryMs) {
            intervalUs -= intervalUs / 8;
            raisedAtMs = nowMs;
            if (intervalUs < kForgetBelowUs)
                intervalUs = 0; // the count goes on, for a refusal to come
        }
        return;
    }
    if (intervalUs <= 0) {
        if (accepted <= 0)
            return; // nothing went through to measure: the hold is all there is
        const qint64 sampleMs = std::max({sinceMs > 0 ? nowMs - sinceMs : 0, holdMs, kMinSampleMs});
        intervalUs = sampleMs * 1000 / accepted;
    } else if (sentAtMs >= sinceMs) {
        intervalUs += intervalUs / 2;
    } else {
        return; // sent before the count restarted: the pace was lowered for it already
    }
    intervalUs = std::clamp(intervalUs, kForgetBelowUs, kSlowestUs);
    sinceMs = nowMs;
    accepted = 0;
    raisedAtMs = nowMs;
}

} // namespace cooldown
