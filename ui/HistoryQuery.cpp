// SPDX-License-Identifier: Apache-2.0
#include "ui/HistoryQuery.h"

namespace cooldown {

AttemptFilter HistoryQuery::storeFilter() const
{
    AttemptFilter filter;
    filter.endpointId = endpointId;
    filter.fromMs = fromMs;
    filter.toMs = toMs;
    filter.decision = decision;
    switch (status) {
    case StatusClass::Any:
        break;
    case StatusClass::Success:
        filter.statusMin = 200;
        filter.statusMax = 299;
        break;
    case StatusClass::TooManyRequests:
        filter.statusMin = filter.statusMax = 429;
        break;
    case StatusClass::Unavailable:
        filter.statusMin = filter.statusMax = 503;
        break;
    case StatusClass::ClientError:
        filter.statusMin = 400;
        filter.statusMax = 499;
        filter.statusExcluded = 429;
        break;
    case StatusClass::ServerError:
        filter.statusMin = 500;
        filter.statusMax = 599;
        filter.statusExcluded = 503;
        break;
    case StatusClass::NoResponse:
        filter.statusMin = filter.statusMax = 0;
        break;
    }
    return filter;
}

} // namespace cooldown
