// SPDX-License-Identifier: Apache-2.0
#include "core/engine/LatencyWatch.h"

#include <algorithm>

namespace cooldown {

LatencyWatch::Reading LatencyWatch::note(const QString &endpointId, qint64 nowMs, bool overBudget,
                                         qint64 windowMs)
{
    Window &w = m_windows[endpointId];
    w.answers.emplace_back(nowMs, overBudget);
    w.overBudget += overBudget ? 1 : 0;
    while (!w.answers.empty() && w.answers.front().first <= nowMs - windowMs) {
        w.overBudget -= w.answers.front().second ? 1 : 0;
        w.answers.pop_front();
    }
    Reading r;
    r.answers = int(w.answers.size());
    r.overBudget = w.overBudget;
    // More than 5 %: 20 * over > answers, in whole numbers.
    const bool degraded = r.answers >= kMinAnswers && 20 * qint64(r.overBudget) > r.answers;
    if (degraded != w.degraded)
        r.change = degraded ? Change::Degraded : Change::Recovered;
    w.degraded = degraded;
    return r;
}

bool LatencyWatch::isDegraded(const QString &endpointId) const
{
    const auto it = m_windows.constFind(endpointId);
    return it != m_windows.constEnd() && it->degraded;
}

QStringList LatencyWatch::degraded() const
{
    QStringList out;
    for (auto it = m_windows.cbegin(); it != m_windows.cend(); ++it) {
        if (it->degraded)
            out.append(it.key());
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace cooldown
