#include "ui/HistoryQuery.h"

namespace cooldown {

AttemptFilter HistoryQuery::storeFilter() const
{
    AttemptFilter filter;
    filter.endpointId = endpointId;
    filter.fromMs = fromMs;
    filter.toMs = toMs;
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
