// SPDX-License-Identifier: Apache-2.0
#include "core/Logging.h"

Q_LOGGING_CATEGORY(lcHttp, "cooldown.core.http", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRetry, "cooldown.core.retry", QtInfoMsg)
Q_LOGGING_CATEGORY(lcRateLimit, "cooldown.core.ratelimit", QtInfoMsg)
Q_LOGGING_CATEGORY(lcConfig, "cooldown.core.config", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStore, "cooldown.core.store", QtInfoMsg)
Q_LOGGING_CATEGORY(lcEngine, "cooldown.core.engine", QtInfoMsg)
