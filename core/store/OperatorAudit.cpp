// SPDX-License-Identifier: Apache-2.0
#include "core/store/OperatorAudit.h"

#include <QtGlobal>

#ifdef Q_OS_UNIX
#include <pwd.h>
#include <unistd.h>

#include <array>
#endif

namespace cooldown {

namespace {

struct ActionName
{
    OperatorAction action;
    const char *name;
};

const ActionName kActionNames[] = {
    {OperatorAction::Retry, "retry"},   {OperatorAction::Force, "force"},
    {OperatorAction::Cancel, "cancel"}, {OperatorAction::Pause, "pause"},
    {OperatorAction::Resume, "resume"}, {OperatorAction::LiftHold, "lift-hold"},
};

} // namespace

QString toString(OperatorActionName name)
{
    for (const ActionName &entry : kActionNames) {
        if (entry.action == name.action)
            return QLatin1String(entry.name);
    }
    Q_UNREACHABLE();
    return {};
}

std::optional<OperatorAction> operatorActionFromString(QStringView text)
{
    for (const ActionName &entry : kActionNames) {
        if (text == QLatin1String(entry.name))
            return entry.action;
    }
    return std::nullopt;
}

QString currentUserName()
{
    for (const char *name : {"USER", "USERNAME", "LOGNAME"}) {
        const QString value = qEnvironmentVariable(name);
        if (!value.isEmpty())
            return value;
    }
#ifdef Q_OS_UNIX
    // A service, a cron job or a clean environment sets none of those: the account's.
    std::array<char, 4096> buffer{};
    passwd entry{};
    passwd *found = nullptr;
    if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found &&
        found->pw_name && *found->pw_name)
        return QString::fromLocal8Bit(found->pw_name);
#endif
    return QStringLiteral("unknown");
}

QString idListTarget(const QList<qint64> &ids)
{
    QStringList texts;
    texts.reserve(ids.size());
    for (const qint64 id : ids)
        texts.append(QString::number(id));
    return QStringLiteral("ids=") + texts.join(u',');
}

QString endpointListTarget(const QStringList &endpointIds)
{
    return QStringLiteral("endpoints=") + endpointIds.join(u',');
}

} // namespace cooldown
