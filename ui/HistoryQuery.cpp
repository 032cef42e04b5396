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

bool HistoryQuery::matches(const AttemptRecord &a) const
{
    if (!decision.isEmpty() && a.decision != decision)
        return false;
    switch (status) {
    case StatusClass::Any:
        return true;
    case StatusClass::Success:
        return a.status >= 200 && a.status < 300;
    case StatusClass::TooManyRequests:
        return a.status == 429;
    case StatusClass::Unavailable:
        return a.status == 503;
    case StatusClass::ClientError:
        return a.status >= 400 && a.status < 500 && a.status != 429;
    case StatusClass::ServerError:
        return a.status >= 500 && a.status < 600 && a.status != 503;
    case StatusClass::NoResponse:
        return a.status == 0;
    }
    return true;
}

} // namespace cooldown
