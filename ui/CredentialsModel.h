// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QAbstractTableModel>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace cooldown {

// The credentials, tls entries and proxy of a workspace document as written
// (docs/credentials.md): one row each, credentials first, then tls entries, then the
// workspace's proxy when it has one. What a row shows is read from the file's text,
// never from resolved values: a secret appears as the name of the environment variable
// it is read from, and a proxy URL without its password.
class CredentialsModel final : public QAbstractTableModel
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CredentialsModel)

public:
    enum class Kind
    {
        Credential,
        Tls,
        Proxy,
    };

    enum Column
    {
        IdColumn,
        TypeColumn,
        SummaryColumn,
        ColumnCount
    };

    enum Role
    {
        IdRole = Qt::UserRole,
        KindRole, // int(Kind)
        ProblemRole,
    };

    struct Item
    {
        Kind kind = Kind::Credential;
        int index = -1;     // in "credentials" or "tls"; -1 for the proxy
        QJsonObject object; // the proxy as {"proxy": value}
        QString id() const;
        // Where the workspace's messages name it: "credentials[0]", "tls[1]", "proxy".
        QString path() const;
    };

    explicit CredentialsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The workspace file's root object. Rows that stay (same kind and position) are
    // updated in place; otherwise the model is reset.
    void setDocument(const QJsonObject &root);
    const Item &itemAt(int row) const { return m_items.at(row); }
    // The row a JSON path of a validation problem falls in ("credentials[1].scope"), or -1.
    int rowOfPath(const QString &path) const;
    // Marks the row the problem's path falls in; an empty path marks none.
    void setProblem(const QString &path, const QString &message);

    // Names of the environment variables that text refers to by ${env:NAME}, in order.
    static QStringList variablesIn(const QJsonValue &value);
    // A proxy as written, its password (if any) left out: "http://user@proxy:3128",
    // "system", "http://proxy:3128 (not for: .internal, localhost)".
    static QString proxyText(const QJsonValue &proxy);
    // A one-line description of a row: a credential's token URL or header, a tls entry's
    // files, the proxy.
    static QString summary(const Item &item);
    // The type as the file writes it, or "tls", "proxy".
    static QString typeText(const Item &item);

private:
    QList<Item> m_items;
    int m_problemRow = -1;
    QString m_problem;
};

} // namespace cooldown
