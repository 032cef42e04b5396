// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

#include <deque>
#include <optional>

namespace cooldown {

// Whether each endpoint with a latency budget is degraded (docs/checks.md): its p95
// over the last window (the endpoint's latency_window_seconds, 5 minutes unless it
// says) is above the budget, which is the same as more than 5 % of its
// answers in the window having taken longer than the budget. At least kMinAnswers
// answers in the window are needed to call it degraded; it recovers when the share
// falls back to 5 % or below (or the window holds too few answers to say).
class LatencyWatch
{
public:
    static constexpr qint64 kWindowMs = 5 * 60 * 1000;
    static constexpr int kMinAnswers = 5;

    enum class Change
    {
        None,
        Degraded,
        Recovered
    };

    struct Reading
    {
        Change change = Change::None;
        int answers = 0; // in the window
        int overBudget = 0;
    };

    // One answer of the endpoint, at nowMs; overBudget: it took longer than the budget.
    // windowMs: the span judged over.
    Reading note(const QString &endpointId, qint64 nowMs, bool overBudget,
                 qint64 windowMs = kWindowMs);

    bool isDegraded(const QString &endpointId) const;
    // The degraded endpoints, sorted.
    QStringList degraded() const;

private:
    struct Window
    {
        std::deque<std::pair<qint64, bool>> answers; // (at, over budget), oldest first
        int overBudget = 0;
        bool degraded = false;
    };
    QHash<QString, Window> m_windows;
};

} // namespace cooldown
