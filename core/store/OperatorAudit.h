// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// What an operator did, as the audit table records it.
enum class OperatorAction
{
    Retry,
    Force, // a retry that bypasses the partition's bucket
    Cancel,
    Pause,
    Resume,
    LiftHold,
};

// toString() takes the action through this implicit wrapper so that QTest's
// QCOMPARE(action, action) still finds its own toString (as OperationStateName).
struct OperatorActionName
{
    OperatorActionName(OperatorAction a) : action(a) {} // NOLINT: implicit on purpose
    OperatorAction action;
};

// "retry", "force", "cancel", "pause", "resume", "lift-hold": as stored and exported.
QString toString(OperatorActionName name);
std::optional<OperatorAction> operatorActionFromString(QStringView text);

// One operator action, single or bulk (docs/bulk-actions.md). The store writes it in
// the transaction that applies the action, so the table never claims a change that
// did not happen, nor misses one that did. A bulk action applied in chunks writes its
// row with the first chunk and adds each later chunk's changes to it: after an
// interruption the row says how far it got.
struct AuditRecord
{
    qint64 id = 0;    // 0 until the store wrote the row
    qint64 atMs = -1; // when the action was asked for
    QString actor;    // the operator: the OS user name, or `--as NAME`
    QString workerId; // the engine that applied it; empty from the command line
    OperatorAction action = OperatorAction::Retry;
    // What it was applied to: the filter's text (OperationSelection::toText()), or the
    // list it was given, as "ids=1,2,3", "endpoints=a,b", "partitions=policy/key".
    QString target;
    qint64 asked = 0;   // operations (endpoints, partitions) it was asked for
    qint64 changed = 0; // of which it changed
};

// The name of the user running this process (USER, USERNAME, LOGNAME, else the
// account's name on Unix), or "unknown".
QString currentUserName();

// "ids=1,2,3": the target of an action on a list of operations.
QString idListTarget(const QList<qint64> &ids);
// "endpoints=a,b".
QString endpointListTarget(const QStringList &endpointIds);

} // namespace cooldown

Q_DECLARE_METATYPE(cooldown::AuditRecord)
