// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"

#include <QByteArray>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace cooldown {

// A workspace file as written, for editing: the JSON object itself, so that
// ${env:NAME} references stay the text they are and members the editor does not
// touch (concurrency, retry profiles, an endpoint's body) are written back as read.
// Endpoints and policies are edited one object at a time, by id or by position.
//
// toJson() writes the whole document, members in the order the README lists them;
// the original layout and whitespace are not kept. validate() reads those bytes
// with WorkspaceConfig::parse, and save() writes only bytes that it accepts, all at
// once or not at all.
class WorkspaceDocument
{
public:
    WorkspaceDocument() = default;
    explicit WorkspaceDocument(QJsonObject root, QString sourceName = QString());

    // Refuses what is not a JSON object, with the line and column of the problem.
    // The content is not validated: an invalid file can be opened to be mended.
    static std::optional<WorkspaceDocument> fromJson(const QByteArray &json,
                                                     const QString &sourceName, QString *error);
    static std::optional<WorkspaceDocument> load(const QString &path, QString *error);

    const QJsonObject &root() const { return m_root; }
    // The name validation messages start with: the file's path, or e.g. "demo.json".
    QString sourceName() const { return m_sourceName; }
    void setSourceName(const QString &sourceName) { m_sourceName = sourceName; }

    QList<QJsonObject> endpoints() const;
    QList<QJsonObject> policies() const;
    QStringList retryProfileNames() const; // "default" always included
    // -1 when there is none.
    int endpointIndex(const QString &id) const;
    int policyIndex(const QString &policyId) const;

    // By id: false when no endpoint (policy) has that id. The first one wins.
    bool replaceEndpoint(const QString &id, const QJsonObject &endpoint);
    bool removeEndpoint(const QString &id);
    bool replacePolicy(const QString &policyId, const QJsonObject &policy);
    bool removePolicy(const QString &policyId);
    // By position, for an editor whose item may have no id, or a duplicate one, yet.
    void setEndpointAt(int index, const QJsonObject &endpoint);
    void removeEndpointAt(int index);
    void setPolicyAt(int index, const QJsonObject &policy);
    void removePolicyAt(int index);
    void addEndpoint(const QJsonObject &endpoint);
    void addPolicy(const QJsonObject &policy);

    // Writes a limit a server stated as a policy of the workspace ("Adopt as policy"):
    // `quota` requests per `windowMs` (rounded up to whole seconds), no burst, named
    // after the host ("server-HOST", made unique), and gives it to the endpoints listed
    // that have no policy yet. Returns the new policy's id.
    QString adoptServerLimit(const QString &host, qint64 quota, qint64 windowMs,
                             const QStringList &endpointIds);

    QByteArray toJson() const;

    // Reads toJson() as WorkspaceConfig::parse does, with the same variables and
    // environment; on refusal *error is its message ("FILE: endpoints[1].url: ...").
    std::optional<WorkspaceConfig>
    validate(QString *error, const QHash<QString, QString> &variables = {},
             const std::optional<QHash<QString, QString>> &environment = std::nullopt) const;
    // The JSON path a message of validate() names ("endpoints[1].url"), or empty.
    QString problemPath(const QString &error) const;

    // Validates against path's name, then replaces the file in one step (QSaveFile):
    // a refused document leaves the file as it was, and so does a failed write.
    bool save(const QString &path, QString *error, const QHash<QString, QString> &variables = {},
              const std::optional<QHash<QString, QString>> &environment = std::nullopt) const;

    friend bool operator==(const WorkspaceDocument &a, const WorkspaceDocument &b)
    {
        return a.m_root == b.m_root;
    }
    friend bool operator!=(const WorkspaceDocument &a, const WorkspaceDocument &b)
    {
        return !(a == b);
    }

private:
    QList<QJsonObject> list(const QString &key) const;
    void setList(const QString &key, const QList<QJsonObject> &items);
    int indexOf(const QString &listKey, const QString &idKey, const QString &id) const;

    QJsonObject m_root;
    QString m_sourceName;
};

} // namespace cooldown
