// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtGlobal>

namespace cooldown {

// The pace of a server that states no quota (nginx's limit_req says nothing but a 429,
// with Retry-After at best), measured from its answers and kept on the host's learned
// partition for the fleet (Store::observeAnswers). Without it, every operation the
// server refused comes back when the hold ends, all at once, and most are refused
// again.
//
// The first refusal measures what the server let through: the answers it accepted
// in the last few seconds (kSampleSpanMs at most), over that time, and never over less than the
// hold it asked for (the time it takes to let that many through again) or a second;
// a refusal before any accepted answer measures nothing (its hold is all there is).
// From then on the partition is paced evenly at that rate (Gcra, one at a time),
// raised by an eighth for every second of accepted answers and made half as slow
// again by each refusal of a request sent since the pace was last lowered (the
// refusals of requests already out lower it once): it settles just under the server's
// rate, with a refusal now and then where the server's limit is reached, and slows
// down quickly where the server refuses without saying for how long. A pace raised
// past a thousand a second is forgotten: that server no longer limits this fleet,
// until it refuses again.
//
// Times are the caller's milliseconds, like holds.
struct MeasuredPace
{
    qint64 intervalUs = 0; // per request; 0: not measured
    qint64 sinceMs = 0;    // when the current count of accepted answers began (at the
                           // last refusal that changed the pace, or a few seconds ago)
    qint64 accepted = 0;   // answers accepted since sinceMs
    qint64 raisedAtMs = 0; // when the pace was last set, raised or lowered

    static constexpr qint64 kMinSampleMs = 1000;
    static constexpr qint64 kSampleSpanMs = 10000;
    static constexpr qint64 kRaiseEveryMs = 1000;
    static constexpr qint64 kForgetBelowUs = 1000;
    static constexpr qint64 kSlowestUs = qint64(60) * 1000 * 1000;

    bool isMeasured() const { return intervalUs > 0; }
    // An answer at nowMs to a request sent at sentAtMs: refused (a 429) or not; holdMs
    // is how long the refusal asked to wait (0: it did not say).
    void answered(bool refused, qint64 holdMs, qint64 sentAtMs, qint64 nowMs);
};

} // namespace cooldown
