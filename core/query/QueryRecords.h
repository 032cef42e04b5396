// SPDX-License-Identifier: Apache-2.0
#pragma once

// The read side's vocabulary: the records, filters and answers the window's readers pass
// and receive. The store defines them, since it writes them; a reader names them through
// this header and reads through a QueryStore, never a Store of its own.

#include "core/store/OperationSelection.h"
#include "core/store/OperatorAudit.h"
#include "core/store/Records.h"
// AttemptFilter, OperationFilter, EndpointOpenWork, the in-flight peaks and a bulk
// action's progress and outcome are declared beside the Store class itself.
#include "core/store/Store.h"

namespace cooldown {

using InFlightPeak = Store::InFlightPeak;

} // namespace cooldown
