// SPDX-License-Identifier: Apache-2.0
#include "ui/Format.h"

#include "core/engine/CredentialBroker.h"
#include "core/query/QueryRecords.h"
#include "core/retry/Decision.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QLocale>

namespace cooldown::format {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::format::Text)
};

QString localTime(qint64 msSinceEpoch, qint64 nowMs)
{
    if (msSinceEpoch < 0)
        return QString();
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toLocalTime();
    const QDateTime now = QDateTime::fromMSecsSinceEpoch(nowMs).toLocalTime();
    if (at.date() == now.date())
        return at.toString(QStringLiteral("HH:mm:ss"));
    return QLocale().toString(at, Text::tr("yyyy-MM-dd HH:mm:ss", "date format"));
}

QString countdown(qint64 targetMs, qint64 nowMs)
{
    if (targetMs < 0)
        return QStringLiteral("—");
    const qint64 left = targetMs - nowMs;
    if (left <= 0)
        return Text::tr("due");
    const qint64 seconds = (left + 999) / 1000;
    if (seconds < 60)
        return Text::tr("in %1 s").arg(seconds);
    if (seconds < 3600)
        return Text::tr("in %1 min %2 s")
            .arg(seconds / 60)
            .arg(seconds % 60, 2, 10, QLatin1Char('0'));
    return Text::tr("in %1 h %2 min")
        .arg(seconds / 3600)
        .arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString duration(qint64 ms)
{
    if (ms < 0)
        return QStringLiteral("—");
    if (ms < 1000)
        return Text::tr("%1 ms").arg(ms);
    if (ms < 60000)
        return Text::tr("%1 s").arg(double(ms) / 1000.0, 0, 'f', 1);
    const qint64 s = ms / 1000;
    if (s < 3600)
        return Text::tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    return Text::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString stateName(OperationState state)
{
    switch (state) {
    case OperationState::Scheduled:
        return Text::tr("scheduled");
    case OperationState::Running:
        return Text::tr("running");
    case OperationState::Waiting:
        return Text::tr("waiting");
    case OperationState::Succeeded:
        return Text::tr("succeeded");
    case OperationState::Failed:
        return Text::tr("failed");
    case OperationState::Parked:
        return Text::tr("parked");
    case OperationState::Cancelled:
        return Text::tr("cancelled");
    }
    return toString(state);
}

QString decisionName(Decision decision)
{
    switch (decision) {
    case Decision::Success:
        return Text::tr("success");
    case Decision::Retry:
        return Text::tr("retry");
    case Decision::Park:
        return Text::tr("park");
    case Decision::Fail:
        return Text::tr("fail");
    }
    return QLatin1String(textOf(decision));
}

QString waitSourceName(WaitSource source)
{
    return source == WaitSource::None ? QString() : QLatin1String(textOf(source));
}

QString outcome(int status, const QString &error)
{
    if (status > 0)
        return QString::number(status);
    return error.isEmpty() ? QStringLiteral("—") : error;
}

bool credentialRefused(const CredentialState &state)
{
    return state.phase == CredentialState::Phase::Refused;
}

bool credentialWaiting(const CredentialState &state, qint64 nowMs)
{
    if (state.failingSinceMs < 0 || state.validUntilMs > nowMs)
        return false;
    // A request that asks again after a failure is still waiting: the light should not
    // flicker to "ok" for the time the token endpoint takes to answer.
    return state.phase == CredentialState::Phase::Failing ||
           state.phase == CredentialState::Phase::Renewing;
}

QString credentialTrouble(const CredentialState &state, qint64 nowMs)
{
    const QString error = state.lastError.isEmpty() ? Text::tr("no answer") : state.lastError;
    if (credentialRefused(state))
        return Text::tr("Credentials %1 refused: %2 — operations parked").arg(state.id, error);
    if (!credentialWaiting(state, nowMs))
        return QString();
    if (state.phase == CredentialState::Phase::Renewing || state.nextTryAtMs < 0)
        return Text::tr("Waiting for credentials %1 (token endpoint: %2, asking again now)")
            .arg(state.id, error);
    return Text::tr("Waiting for credentials %1 (token endpoint: %2, next try %3)")
        .arg(state.id, error, localTime(state.nextTryAtMs, nowMs));
}

} // namespace cooldown::format
