// SPDX-License-Identifier: Apache-2.0
#include "ui/JobsQuery.h"

namespace cooldown {

bool JobsQuery::accepts(const OperationRecord &operation) const
{
    if (!endpointId.isEmpty() && operation.endpointId != endpointId)
        return false;
    switch (scope) {
    case JobsScope::Active:
        return !isFinal(operation.state);
    case JobsScope::Failed:
        return operation.state == OperationState::Failed;
    case JobsScope::Recent:
        return true;
    }
    return true;
}

} // namespace cooldown
