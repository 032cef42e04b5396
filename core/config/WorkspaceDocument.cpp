// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceDocument.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

#include <algorithm>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

constexpr qint64 kMaxConfigBytes = 16 * 1024 * 1024;

const QString kEndpoints = QStringLiteral("endpoints");
const QString kPolicies = QStringLiteral("policies");
const QString kRetryProfiles = QStringLiteral("retry_profiles");
const QString kId = QStringLiteral("id");
const QString kPolicyId = QStringLiteral("policy_id");
const QString kCredentials = QStringLiteral("credentials");
const QString kTls = QStringLiteral("tls");

// Where an object sits in the document decides the order of its members.
enum class Place
{
    Top,
    Concurrency,
    Policy,
    RetryProfiles,
    RetryProfile,
    Endpoint,
    Idempotency,
    Credential,
    Tls,
    Other,
};

const QStringList &memberOrder(Place place)
{
    // Credentials, tls and the proxy before the endpoints that name them.
    static const QStringList top{QStringLiteral("version"),
                                 QStringLiteral("concurrency"),
                                 kPolicies,
                                 kRetryProfiles,
                                 kCredentials,
                                 kTls,
                                 QStringLiteral("proxy"),
                                 kEndpoints};
    static const QStringList concurrency{QStringLiteral("max_in_flight"),
                                         QStringLiteral("per_host")};
    static const QStringList policy = RateLimitPolicy::fieldNames();
    static const QStringList profile{QStringLiteral("max_attempts"),
                                     QStringLiteral("base_seconds"),
                                     QStringLiteral("cap_seconds"),
                                     QStringLiteral("deadline_seconds"),
                                     QStringLiteral("jitter"),
                                     QStringLiteral("spread_seconds"),
                                     QStringLiteral("max_retry_after_seconds"),
                                     QStringLiteral("on_deadline"),
                                     QStringLiteral("retry_non_idempotent"),
                                     QStringLiteral("throttle_counts_as_attempt")};
    static const QStringList endpoint{kId,
                                      QStringLiteral("name"),
                                      QStringLiteral("method"),
                                      QStringLiteral("url"),
                                      QStringLiteral("headers"),
                                      kCredentials,
                                      kTls,
                                      QStringLiteral("proxy"),
                                      QStringLiteral("body"),
                                      QStringLiteral("every_seconds"),
                                      QStringLiteral("timeout_seconds"),
                                      QStringLiteral("policy"),
                                      QStringLiteral("partition_key"),
                                      QStringLiteral("retry"),
                                      QStringLiteral("idempotency")};
    static const QStringList idempotency{QStringLiteral("header")};
    static const QStringList credential{kId,
                                        QStringLiteral("type"),
                                        QStringLiteral("token_url"),
                                        QStringLiteral("client_id"),
                                        QStringLiteral("client_secret"),
                                        QStringLiteral("client_auth"),
                                        QStringLiteral("scope"),
                                        QStringLiteral("audience"),
                                        QStringLiteral("extra_parameters"),
                                        QStringLiteral("token"),
                                        QStringLiteral("username"),
                                        QStringLiteral("password"),
                                        QStringLiteral("name"),
                                        QStringLiteral("value")};
    static const QStringList tls{kId,
                                 QStringLiteral("ca_file"),
                                 QStringLiteral("client_certificate"),
                                 QStringLiteral("client_key"),
                                 QStringLiteral("key_passphrase"),
                                 QStringLiteral("client_pkcs12"),
                                 QStringLiteral("pkcs12_passphrase"),
                                 QStringLiteral("verify_hostname"),
                                 QStringLiteral("verify_certificate")};
    static const QStringList none;
    switch (place) {
    case Place::Top:
        return top;
    case Place::Concurrency:
        return concurrency;
    case Place::Policy:
        return policy;
    case Place::RetryProfile:
        return profile;
    case Place::Endpoint:
        return endpoint;
    case Place::Idempotency:
        return idempotency;
    case Place::Credential:
        return credential;
    case Place::Tls:
        return tls;
    case Place::RetryProfiles:
    case Place::Other:
        break;
    }
    return none;
}

Place placeOf(Place parent, const QString &key)
{
    switch (parent) {
    case Place::Top:
        if (key == QLatin1String("concurrency"))
            return Place::Concurrency;
        if (key == kPolicies)
            return Place::Policy; // the array's items
        if (key == kRetryProfiles)
            return Place::RetryProfiles;
        if (key == kEndpoints)
            return Place::Endpoint;
        if (key == kCredentials)
            return Place::Credential; // the array's items
        if (key == kTls)
            return Place::Tls;
        return Place::Other;
    case Place::RetryProfiles:
        return Place::RetryProfile;
    case Place::Endpoint:
        return key == QLatin1String("idempotency") ? Place::Idempotency : Place::Other;
    default:
        return Place::Other;
    }
}

QByteArray scalar(const QJsonValue &value)
{
    // QJsonDocument holds only arrays and objects: write one and take its inside.
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

void write(QByteArray &out, const QJsonValue &value, Place place, int depth);

void writeObject(QByteArray &out, const QJsonObject &object, Place place, int depth)
{
    if (object.isEmpty()) {
        out += "{}";
        return;
    }
    // Known members in the order of the format, then any others as QJsonObject keeps them.
    QStringList keys;
    for (const QString &key : memberOrder(place)) {
        if (object.contains(key))
            keys.append(key);
    }
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!keys.contains(it.key()))
            keys.append(it.key());
    }
    const QByteArray indent(2 * (depth + 1), ' ');
    out += "{\n";
    for (qsizetype i = 0; i < keys.size(); ++i) {
        out += indent + scalar(keys.at(i)) + ": ";
        write(out, object.value(keys.at(i)), placeOf(place, keys.at(i)), depth + 1);
        out += i + 1 < keys.size() ? ",\n" : "\n";
    }
    out += QByteArray(2 * depth, ' ') + '}';
}

void write(QByteArray &out, const QJsonValue &value, Place place, int depth)
{
    if (value.isObject()) {
        writeObject(out, value.toObject(), place, depth);
        return;
    }
    if (!value.isArray()) {
        out += scalar(value);
        return;
    }
    const QJsonArray array = value.toArray();
    if (array.isEmpty()) {
        out += "[]";
        return;
    }
    const QByteArray indent(2 * (depth + 1), ' ');
    out += "[\n";
    for (qsizetype i = 0; i < array.size(); ++i) {
        out += indent;
        write(out, array.at(i), place, depth + 1);
        out += i + 1 < array.size() ? ",\n" : "\n";
    }
    out += QByteArray(2 * depth, ' ') + ']';
}

QString lineAndColumn(const QByteArray &json, int offset)
{
    const QByteArray before = json.left(offset);
    const int line = int(before.count('\n')) + 1;
    const int column = int(offset - (before.lastIndexOf('\n') + 1)) + 1;
    return Text::tr("line %1, column %2").arg(line).arg(column);
}

} // namespace

WorkspaceDocument::WorkspaceDocument(QJsonObject root, QString sourceName)
    : m_root(std::move(root)), m_sourceName(std::move(sourceName))
{}

std::optional<WorkspaceDocument>
WorkspaceDocument::fromJson(const QByteArray &json, const QString &sourceName, QString *error)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error =
            QStringLiteral("%1: %2: %3")
                .arg(sourceName, lineAndColumn(json, parseError.offset), parseError.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *error = Text::tr("%1: expected an object").arg(sourceName);
        return std::nullopt;
    }
    return WorkspaceDocument(doc.object(), sourceName);
}

std::optional<WorkspaceDocument> WorkspaceDocument::load(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = Text::tr("%1: cannot read: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    if (file.size() > kMaxConfigBytes) {
        *error = Text::tr("%1: larger than %2 MiB").arg(path).arg(kMaxConfigBytes >> 20);
        return std::nullopt;
    }
    return fromJson(file.readAll(), path, error);
}

QList<QJsonObject> WorkspaceDocument::list(const QString &key) const
{
    QList<QJsonObject> items;
    const QJsonArray array = m_root.value(key).toArray();
    items.reserve(array.size());
    for (const QJsonValue &v : array)
        items.append(v.toObject());
    return items;
}

QList<QJsonObject> WorkspaceDocument::endpoints() const
{
    return list(kEndpoints);
}

QList<QJsonObject> WorkspaceDocument::policies() const
{
    return list(kPolicies);
}

QStringList WorkspaceDocument::retryProfileNames() const
{
    QStringList names = m_root.value(kRetryProfiles).toObject().keys();
    if (!names.contains(QStringLiteral("default")))
        names.prepend(QStringLiteral("default"));
    return names;
}

int WorkspaceDocument::indexOf(const QString &listKey, const QString &idKey,
                               const QString &id) const
{
    const QJsonArray array = m_root.value(listKey).toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QJsonValue value = array.at(i).toObject().value(idKey);
        if (value.isString() && value.toString() == id)
            return int(i);
    }
    return -1;
}

int WorkspaceDocument::endpointIndex(const QString &id) const
{
    return indexOf(kEndpoints, kId, id);
}

int WorkspaceDocument::policyIndex(const QString &policyId) const
{
    return indexOf(kPolicies, kPolicyId, policyId);
}

bool WorkspaceDocument::replaceEndpoint(const QString &id, const QJsonObject &endpoint)
{
    const int i = endpointIndex(id);
    if (i < 0)
        return false;
    setEndpointAt(i, endpoint);
    return true;
}

bool WorkspaceDocument::removeEndpoint(const QString &id)
{
    const int i = endpointIndex(id);
    if (i < 0)
        return false;
    removeEndpointAt(i);
    return true;
}

bool WorkspaceDocument::replacePolicy(const QString &policyId, const QJsonObject &policy)
{
    const int i = policyIndex(policyId);
    if (i < 0)
        return false;
    setPolicyAt(i, policy);
    return true;
}

bool WorkspaceDocument::removePolicy(const QString &policyId)
{
    const int i = policyIndex(policyId);
    if (i < 0)
        return false;
    removePolicyAt(i);
    return true;
}

void WorkspaceDocument::setEndpointAt(int index, const QJsonObject &endpoint)
{
    QJsonArray array = m_root.value(kEndpoints).toArray();
    if (index < 0 || index >= array.size())
        return;
    array.replace(index, endpoint);
    m_root.insert(kEndpoints, array);
}

void WorkspaceDocument::removeEndpointAt(int index)
{
    QJsonArray array = m_root.value(kEndpoints).toArray();
    if (index < 0 || index >= array.size())
        return;
    array.removeAt(index);
    m_root.insert(kEndpoints, array);
}

void WorkspaceDocument::setPolicyAt(int index, const QJsonObject &policy)
{
    QJsonArray array = m_root.value(kPolicies).toArray();
    if (index < 0 || index >= array.size())
        return;
    array.replace(index, policy);
    m_root.insert(kPolicies, array);
}

void WorkspaceDocument::removePolicyAt(int index)
{
    QJsonArray array = m_root.value(kPolicies).toArray();
    if (index < 0 || index >= array.size())
        return;
    array.removeAt(index);
    m_root.insert(kPolicies, array);
}

void WorkspaceDocument::addEndpoint(const QJsonObject &endpoint)
{
    QJsonArray array = m_root.value(kEndpoints).toArray();
    array.append(endpoint);
    m_root.insert(kEndpoints, array);
}

void WorkspaceDocument::addPolicy(const QJsonObject &policy)
{
    QJsonArray array = m_root.value(kPolicies).toArray();
    array.append(policy);
    m_root.insert(kPolicies, array);
}

QString WorkspaceDocument::adoptServerLimit(const QString &host, qint64 quota, qint64 windowMs,
                                            const QStringList &endpointIds)
{
    // An id the config accepts: letters, digits, '_', '.', '-', at most 64.
    QString base;
    for (const QChar c : host) {
        const bool ok = (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') ||
                        (c >= u'0' && c <= u'9') || c == u'_' || c == u'.' || c == u'-';
        base += ok ? c : QChar(u'-');
    }
    base = (QStringLiteral("server-") + base).left(58);
    QString id = base;
    for (int n = 2; policyIndex(id) >= 0; ++n)
        id = base + QLatin1Char('-') + QString::number(n);
    QJsonObject policy;
    policy.insert(QStringLiteral("policy_id"), id);
    policy.insert(QStringLiteral("quota_unit"), QStringLiteral("request"));
    policy.insert(QStringLiteral("limit"), double(std::max<qint64>(1, quota)));
    policy.insert(QStringLiteral("window_seconds"),
                  double(std::max<qint64>(1, (windowMs + 999) / 1000)));
    policy.insert(QStringLiteral("burst"), 0);
    policy.insert(QStringLiteral("policy_version"), 1);
    addPolicy(policy);
    for (const QString &endpointId : endpointIds) {
        const int index = endpointIndex(endpointId);
        if (index < 0)
            continue;
        QJsonObject endpoint = endpoints().at(index);
        if (!endpoint.value(QLatin1String("policy")).toString().isEmpty())
            continue;
        endpoint.insert(QStringLiteral("policy"), id);
        setEndpointAt(index, endpoint);
    }
    return id;
}

QByteArray WorkspaceDocument::toJson() const
{
    QByteArray out;
    writeObject(out, m_root, Place::Top, 0);
    out += '\n';
    return out;
}

std::optional<WorkspaceConfig>
WorkspaceDocument::validate(QString *error, const QHash<QString, QString> &variables,
                            const std::optional<QHash<QString, QString>> &environment) const
{
    return WorkspaceConfig::parse(toJson(), m_sourceName, error, variables, environment);
}

QString WorkspaceDocument::problemPath(const QString &error) const
{
    // parse() says "SOURCE: PATH: what was expected"; a problem of the whole document
    // has no path.
    const QString prefix = m_sourceName + QStringLiteral(": ");
    if (!error.startsWith(prefix))
        return QString();
    const QString rest = error.mid(prefix.size());
    const qsizetype colon = rest.indexOf(QStringLiteral(": "));
    return colon > 0 ? rest.left(colon) : QString();
}

bool WorkspaceDocument::save(const QString &path, QString *error,
                             const QHash<QString, QString> &variables,
                             const std::optional<QHash<QString, QString>> &environment) const
{
    const QByteArray bytes = toJson();
    if (!WorkspaceConfig::parse(bytes, path, error, variables, environment))
        return false;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = Text::tr("%1: cannot write: %2").arg(path, file.errorString());
        return false;
    }
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        *error = Text::tr("%1: cannot write: %2").arg(path, file.errorString());
        file.cancelWriting();
        return false;
    }
    return true;
}

} // namespace cooldown
