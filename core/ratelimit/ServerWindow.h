// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QString>
#include <QtGlobal>

#include <limits>

namespace cooldown {

struct QuotaStatement;

// The quota a server states (core/http/QuotaStatement.h) as a partition's row keeps it,
// for every worker: how many units its current window still has, as counted here, and
// when that window ends. The claim (Claims::claimDue) takes units from it beside the
// partition's own pace, so that the fleet sends what the server allows and no more:
// the whole quota at once when a window opens ("burst" pacing), never more than the
// remaining count in a window, nothing between the last unit and the reset.
//
// A server's window starts when it counts a first request after the last reset, not
// on a grid: after a reset, the next window's end is guessed (a window and
// kResetMarginMs after the request that opens it) and lowered by what responses
// state. A reset stated in whole seconds is late by up to a second; the earliest end
// known for a window is kept.
//
// Times are the caller's milliseconds, like holds.
struct ServerWindow
{
    qint64 quota = 0;        // units per window; 0: nothing learned
    qint64 windowMs = 0;     // the window's length; 0: not stated (guessed from resets)
    qint64 remaining = 0;    // units left in the current window
    qint64 resetAtMs = 0;    // when the current window ends
    qint64 knownUntilMs = 0; // the statement expires then unless the server repeats it
    qint64 openedAtMs = 0;   // when a request of this fleet opened the window; 0: unknown

    // A statement is forgotten after this many windows without another (and never
    // sooner than kForgetAfterMinMs): a server that stopped stating a limit is no
    // longer paced by it.
    static constexpr qint64 kForgetAfterWindows = 10;
    static constexpr qint64 kForgetAfterMinMs = 60000;
    // How much later than the guessed end of a window the server may close it: the
    // time a request takes to reach it. A window the server opened on this fleet's
    // first request after a reset ends a window and this much after that request, or
    // earlier when the server says so (a window on a fixed grid).
    static constexpr qint64 kResetMarginMs = 250;

    bool isKnown(qint64 nowMs) const { return quota > 0 && knownUntilMs > nowMs; }
    // The units of a window: the server's quota, no more than the configured pace
    // allows in that time (a server looser than the policy never raises it).
    qint64 perWindow(qint64 configuredIntervalUs) const;
    // Units that can be taken at nowMs.
    qint64 available(qint64 configuredIntervalUs, qint64 nowMs) const;
    // When a unit is there: nowMs, or the end of the current window.
    qint64 availableAtMs(qint64 configuredIntervalUs, qint64 nowMs) const;
    void take(qint64 cost, qint64 configuredIntervalUs, qint64 nowMs);
    // What a response said, counted by the server before the othersInFlight requests
    // of this partition that are still out (so not yet in its count, or maybe: the
    // remaining count is lowered by them, which can only make the pace slower).
    void observe(const QuotaStatement &statement, qint64 othersInFlight, qint64 nowMs);
};

// Operations of an endpoint without a policy share a partition per host, paced by
// what that server states: "learned:<host>" (a configured policy_id cannot hold ':').
inline QString learnedPolicyId(const QString &host)
{
    return QStringLiteral("learned:") + host;
}
inline bool isLearnedPolicyId(const QString &policyId)
{
    return policyId.startsWith(QLatin1String("learned:"));
}

} // namespace cooldown
