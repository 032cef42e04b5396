// SPDX-License-Identifier: Apache-2.0
#include "core/store/ClaimPlanner.h"

#include <algorithm>
#include <limits>

namespace cooldown {

qint64 ClaimLane::units(qint64 nowMs, qint64 paceNowUs, qint64 room) const
{
    qint64 units = room;
    if (gcraPaced(nowMs))
        units = std::min(units, pace.available(tatUs, paceNowUs));
    if (windowPaced(nowMs))
        units = std::min(units, server.available(pace.intervalUs, nowMs));
    return units;
}

bool ClaimLane::affords(const ClaimCandidate &candidate, qint64 nowMs, qint64 paceNowUs) const
{
    // A cost above the bucket's capacity goes once the bucket is full (Gcra).
    if (gcraPaced(nowMs) &&
        pace.available(tatUs, paceNowUs) < std::min(candidate.cost, pace.capacity))
        return false;
    return !windowPaced(nowMs) || server.available(pace.intervalUs, nowMs) > 0;
}

void ClaimLane::charge(const ClaimCandidate &candidate, qint64 nowMs, qint64 paceNowUs)
{
    const bool window = windowPaced(nowMs);
    if (gcraPaced(nowMs))
        tatUs = pace.take(tatUs, candidate.cost, paceNowUs);
    if (window)
        server.take(candidate.cost, pace.intervalUs, nowMs);
}

qint64 ClaimLane::readyAtMs(qint64 nowMs, qint64 paceNowMs) const
{
    qint64 ready = gcraPaced(nowMs) ? pace.availableAtMs(tatUs, 1, paceNowMs) : paceNowMs;
    if (windowPaced(nowMs))
        ready = std::max(ready, server.availableAtMs(pace.intervalUs, nowMs));
    if (held)
        ready = std::max(ready, heldUntilMs);
    return ready;
}

qint64 ClaimLane::nextAtMs(qint64 readyAtMs, qint64 lookAtMs, qint64 paceNowMs) const
{
    const qint64 next = std::max(readyAtMs, lookAtMs);
    return taken > 0 ? std::max(next, paceNowMs) : next;
}

qint64 FleetPermits::free() const
{
    if (limits.maxInFlight <= 0)
        return std::numeric_limits<qint64>::max();
    return std::max<qint64>(
        0, std::min(limits.maxInFlight - running, shareOf(limits.maxInFlight) - mine));
}

int FleetPermits::permitted(int room) const
{
    if (limits.maxInFlight <= 0)
        return room;
    return int(std::min<qint64>(free(), room));
}

bool FleetPermits::hostFull(const QString &host) const
{
    if (limits.perHost <= 0)
        return false;
    if (runningByHost.value(host) >= limits.perHost)
        return true;
    qint64 cap = shareOf(limits.perHost);
    if (limits.perHostForWorker > 0)
        cap = std::min<qint64>(cap, limits.perHostForWorker);
    return mineByHost.value(host) >= cap;
}

void FleetPermits::take(const QString &host)
{
    ++running;
    ++mine;
    ++runningByHost[host];
    ++mineByHost[host];
}

bool FleetPermits::standbyFree(const QString &host) const
{
    const qint64 standby = standbyByHost.value(host);
    if (standby >= limits.standbyPerHost || standby >= mineByHost.value(host))
        return false;
    // None for a worker above its even share while others hold or want permits: the
    // permits it would hand over would stay with it, and theirs never come.
    if (limits.maxInFlight > 0 && mine > shareOf(limits.maxInFlight))
        return false;
    return limits.perHost <= 0 || mineByHost.value(host) <= shareOf(limits.perHost);
}

bool FleetPermits::anyStandbyFree() const
{
    for (auto it = mineByHost.cbegin(); it != mineByHost.cend(); ++it) {
        if (standbyFree(it.key()))
            return true;
    }
    return false;
}

namespace {

// One round: the next candidate of each lane; false when none was taken.
bool takeRound(std::vector<ClaimLane> &lanes, FleetPermits &permits, qsizetype full, bool ahead,
               qint64 nowMs, qint64 paceNowUs, ClaimPlan &plan)
{
    const bool standby = permits.limits.standbyPerHost > 0;
    const auto placeless = [&](const QString &host) {
        return !permits.permitFree(host) && !(standby && permits.standbyFree(host));
    };
    bool took = false;
    for (ClaimLane &lane : lanes) {
        if (plan.picked.size() >= full)
            break;
        while (lane.taken < lane.candidates.size() &&
               placeless(lane.candidates.at(lane.taken).host)) {
            lane.candidates.removeAt(lane.taken);
            plan.capped = true;
        }
        if (lane.taken >= lane.candidates.size())
            continue;
        const ClaimCandidate &candidate = lane.candidates.at(lane.taken);
        if (!ahead && candidate.dueAtMs > nowMs)
            continue; // not due yet: the rounds for work ahead may take it
        if (!lane.affords(candidate, nowMs, paceNowUs)) {
            lane.candidates.resize(lane.taken); // offers no more
            continue;
        }
        lane.charge(candidate, nowMs, paceNowUs);
        if (permits.permitFree(candidate.host)) {
            permits.take(candidate.host);
        } else {
            ++permits.standbyByHost[candidate.host];
            plan.onStandby.insert(candidate.id);
        }
        plan.picked.append(candidate.id);
        ++lane.taken;
        took = true;
    }
    return took;
}

} // namespace

void takeRounds(std::vector<ClaimLane> &lanes, FleetPermits &permits, int room, qint64 nowMs,
                qint64 paceNowUs, ClaimPlan &plan)
{
    // Beyond its permits a worker may take operations on standby, each for a permit of
    // its own that it hands over when an attempt ends: then the claim's room bounds it.
    const bool standby = permits.limits.standbyPerHost > 0;
    const int permitted = permits.permitted(room);
    const qsizetype full = plan.picked.size() + (standby ? room : permitted);
    for (const bool ahead : {false, true}) {
        bool took = true;
        while (took && plan.picked.size() < full)
            took = takeRound(lanes, permits, full, ahead, nowMs, paceNowUs, plan);
    }
    if (!standby && permitted < room && plan.picked.size() >= full) {
        for (const ClaimLane &lane : lanes)
            plan.capped = plan.capped || lane.taken < lane.candidates.size();
    }
}

} // namespace cooldown
