// SPDX-License-Identifier: Apache-2.0
#include "core/store/Records.h"

namespace cooldown {

namespace {

struct StateName
{
    OperationState state;
    const char *name;
};

const StateName kStateNames[] = {
    {OperationState::Scheduled, "scheduled"}, {OperationState::Running, "running"},
    {OperationState::Waiting, "waiting"},     {OperationState::Succeeded, "succeeded"},
    {OperationState::Failed, "failed"},       {OperationState::Parked, "parked"},
    {OperationState::Cancelled, "cancelled"},
};

} // namespace

QString toString(OperationStateName name)
{
    for (const StateName &entry : kStateNames) {
        if (entry.state == name.state)
            return QLatin1String(entry.name);
    }
    Q_UNREACHABLE();
    return {};
}

std::optional<OperationState> operationStateFromString(QStringView text)
{
    for (const StateName &entry : kStateNames) {
        if (text == QLatin1String(entry.name))
            return entry.state;
    }
    return std::nullopt;
}

bool isFinal(OperationState state)
{
    return state == OperationState::Succeeded || state == OperationState::Failed ||
           state == OperationState::Cancelled;
}

QList<OperationState> allOperationStates()
{
    QList<OperationState> states;
    for (const StateName &entry : kStateNames)
        states.append(entry.state);
    return states;
}

} // namespace cooldown
