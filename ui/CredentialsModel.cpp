// SPDX-License-Identifier: Apache-2.0
#include "ui/CredentialsModel.h"

#include <QApplication>
#include <QFileInfo>
#include <QIcon>
#include <QJsonArray>
#include <QRegularExpression>
#include <QStyle>

namespace cooldown {

namespace {

const QString kCredentials = QStringLiteral("credentials");
const QString kTls = QStringLiteral("tls");
const QString kProxy = QStringLiteral("proxy");

void collectVariables(const QJsonValue &value, QStringList *out)
{
    static const QRegularExpression kEnv(QStringLiteral(R"(\$\{env:([^}]+)\})"));
    if (value.isString()) {
        for (auto it = kEnv.globalMatch(value.toString()); it.hasNext();) {
            const QString name = it.next().captured(1);
            if (!out->contains(name))
                out->append(name);
        }
    } else if (value.isArray()) {
        for (const QJsonValue &v : value.toArray())
            collectVariables(v, out);
    } else if (value.isObject()) {
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            collectVariables(it.value(), out);
    }
}

// A proxy URL without its password, whatever the password is written as: the text of
// a reference is no secret, but a password typed in by mistake would be.
QString withoutPassword(const QString &url)
{
    static const QRegularExpression kUserInfo(QStringLiteral(R"(^([A-Za-z0-9+.-]+://)([^@/]*)@)"));
    const QRegularExpressionMatch m = kUserInfo.match(url);
    if (!m.hasMatch())
        return url;
    QString user = m.captured(2);
    const qsizetype colon = user.indexOf(QLatin1Char(':'));
    if (colon >= 0)
        user.truncate(colon);
    return m.captured(1) + user + QLatin1Char('@') + url.mid(m.capturedEnd(0));
}

} // namespace

QString CredentialsModel::Item::id() const
{
    return kind == Kind::Proxy ? kProxy : object.value(QStringLiteral("id")).toString();
}

QString CredentialsModel::Item::path() const
{
    switch (kind) {
    case Kind::Credential:
        return QStringLiteral("%1[%2]").arg(kCredentials).arg(index);
    case Kind::Tls:
        return QStringLiteral("%1[%2]").arg(kTls).arg(index);
    case Kind::Proxy:
        return kProxy;
    }
    return QString();
}

CredentialsModel::CredentialsModel(QObject *parent) : QAbstractTableModel(parent) {}

int CredentialsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

int CredentialsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QStringList CredentialsModel::variablesIn(const QJsonValue &value)
{
    QStringList names;
    collectVariables(value, &names);
    return names;
}

QString CredentialsModel::proxyText(const QJsonValue &proxy)
{
    if (proxy.isString())
        return withoutPassword(proxy.toString());
    if (!proxy.isObject())
        return QString();
    const QJsonObject o = proxy.toObject();
    QString text = withoutPassword(o.value(QStringLiteral("url")).toString());
    QStringList direct;
    for (const QJsonValue &host : o.value(QStringLiteral("no_proxy")).toArray())
        direct.append(host.toString());
    if (!direct.isEmpty())
        text += tr(" (not for: %1)").arg(direct.join(QStringLiteral(", ")));
    return text;
}

QString CredentialsModel::typeText(const Item &item)
{
    switch (item.kind) {
    case Kind::Credential:
        return item.object.value(QStringLiteral("type")).toString();
    case Kind::Tls:
        return kTls;
    case Kind::Proxy:
        return kProxy;
    }
    return QString();
}

QString CredentialsModel::summary(const Item &item)
{
    const QJsonObject &o = item.object;
    switch (item.kind) {
    case Kind::Credential: {
        const QString type = o.value(QStringLiteral("type")).toString();
        if (type == QLatin1String("oauth2_client_credentials"))
            return o.value(QStringLiteral("token_url")).toString();
        if (type == QLatin1String("header"))
            return o.value(QStringLiteral("name")).toString();
        if (type == QLatin1String("bearer") || type == QLatin1String("basic"))
            return QStringLiteral("Authorization");
        return QString();
    }
    case Kind::Tls: {
        QStringList files;
        for (const char *key : {"ca_file", "client_certificate", "client_key", "client_pkcs12"}) {
            const QString file = o.value(QLatin1String(key)).toString();
            if (!file.isEmpty())
                files.append(QFileInfo(file).fileName());
        }
        QString text = files.join(QStringLiteral(", "));
        if (o.value(QStringLiteral("verify_hostname")).toBool(true) == false)
            text = text.isEmpty() ? tr("host names not checked")
                                  : tr("%1; host names not checked").arg(text);
        if (o.value(QStringLiteral("verify_certificate")).toBool(true) == false)
            text = text.isEmpty() ? tr("certificates not checked")
                                  : tr("%1; certificates not checked").arg(text);
        return text;
    }
    case Kind::Proxy:
        return proxyText(o.value(kProxy));
    }
    return QString();
}

QVariant CredentialsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Item &item = m_items.at(index.row());
    const bool problem = index.row() == m_problemRow;
    switch (role) {
    case Qt::DisplayRole:
        switch (Column(index.column())) {
        case IdColumn: {
            const QString id = item.id();
            return id.isEmpty() ? tr("(no id)") : id;
        }
        case TypeColumn:
            return typeText(item);
        case SummaryColumn:
            return summary(item);
        case ColumnCount:
            break;
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == IdColumn && problem)
            return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
        return {};
    case Qt::ToolTipRole:
        return problem ? m_problem : summary(item);
    case IdRole:
        return item.id();
    case KindRole:
        return int(item.kind);
    case ProblemRole:
        return problem ? m_problem : QString();
    default:
        return {};
    }
}

QVariant CredentialsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case IdColumn:
        return tr("Id");
    case TypeColumn:
        return tr("Type");
    case SummaryColumn:
        return tr("Token URL, header or files");
    case ColumnCount:
        break;
    }
    return {};
}

void CredentialsModel::setDocument(const QJsonObject &root)
{
    QList<Item> items;
    const QJsonArray credentials = root.value(kCredentials).toArray();
    for (int i = 0; i < credentials.size(); ++i)
        items.append({Kind::Credential, i, credentials.at(i).toObject()});
    const QJsonArray tls = root.value(kTls).toArray();
    for (int i = 0; i < tls.size(); ++i)
        items.append({Kind::Tls, i, tls.at(i).toObject()});
    if (root.contains(kProxy))
        items.append({Kind::Proxy, -1, QJsonObject{{kProxy, root.value(kProxy)}}});

    bool same = items.size() == m_items.size();
    for (int r = 0; same && r < items.size(); ++r)
        same = items.at(r).kind == m_items.at(r).kind && items.at(r).index == m_items.at(r).index;
    if (!same) {
        beginResetModel();
        m_items = std::move(items);
        m_problemRow = -1;
        m_problem.clear();
        endResetModel();
        return;
    }
    for (int r = 0; r < items.size(); ++r) {
        if (items.at(r).object == m_items.at(r).object)
            continue;
        m_items[r] = items.at(r);
        emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
    }
}

int CredentialsModel::rowOfPath(const QString &path) const
{
    for (int r = 0; r < m_items.size(); ++r) {
        const QString itemPath = m_items.at(r).path();
        if (path == itemPath || path.startsWith(itemPath + QLatin1Char('.')) ||
            path.startsWith(itemPath + QLatin1Char('[')))
            return r;
    }
    return -1;
}

void CredentialsModel::setProblem(const QString &path, const QString &message)
{
    const int row = path.isEmpty() ? -1 : rowOfPath(path);
    if (row == m_problemRow && (row < 0 || message == m_problem))
        return;
    const int previous = m_problemRow;
    m_problemRow = row;
    m_problem = row >= 0 ? message : QString();
    if (previous >= 0)
        emit dataChanged(index(previous, 0), index(previous, ColumnCount - 1));
    if (row >= 0)
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

} // namespace cooldown
