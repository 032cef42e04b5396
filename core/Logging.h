// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QLoggingCategory>

// One category per module, so an operator can turn on exactly the part they need:
// QT_LOGGING_RULES="cooldown.core.retry.debug=true"
Q_DECLARE_LOGGING_CATEGORY(lcHttp)
Q_DECLARE_LOGGING_CATEGORY(lcRetry)
Q_DECLARE_LOGGING_CATEGORY(lcRateLimit)
Q_DECLARE_LOGGING_CATEGORY(lcConfig)
Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcEngine)
