// SPDX-License-Identifier: Apache-2.0
#include "core/import/OpenApiImport.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

namespace cooldown {

namespace {

using Header = QPair<QByteArray, QByteArray>;

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

const QStringList kMethods = {
    QStringLiteral("get"),    QStringLiteral("put"),     QStringLiteral("post"),
    QStringLiteral("delete"), QStringLiteral("options"), QStringLiteral("head"),
    QStringLiteral("patch"),  QStringLiteral("trace"),
};

// What the whole import shares: the document, the error that ends it, and what the
// operations' credentials gather (the scopes each OAuth credential is asked for).
struct Context
{
    const QJsonObject &root;
    const OpenApiImportOptions &options;
    QString title;
    QString prefix;                     // of the variables' names
    QString idPrefix;                   // of the credentials' ids
    QString server;                     // the base URL the operations are called at
    QString error;                      // set: the import ends
    QHash<QString, QStringList> scopes; // by credential id
    QSet<QString> ids;
    QSet<QString> sources;
};

// A JSON path as the messages write it: paths["/pets/{id}"].get.parameters[0].
QString member(const QString &path, const QString &key)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z_$][A-Za-z0-9_$-]*$"));
    if (plain.match(key).hasMatch())
        return path.isEmpty() ? key : path + QLatin1Char('.') + key;
    return path + QStringLiteral("[\"%1\"]").arg(key);
}

QString element(const QString &path, qsizetype i)
{
    return path + QStringLiteral("[%1]").arg(i);
}

// The value a JSON pointer (#/components/schemas/Pet) names, or nullopt.
std::optional<QJsonValue> pointee(const QJsonObject &root, const QString &pointer)
{
    QJsonValue at = root;
    const QStringList tokens = pointer.mid(2).split(QLatin1Char('/'));
    for (QString token : tokens) {
        token = QUrl::fromPercentEncoding(token.toUtf8());
        token.replace(QStringLiteral("~1"), QStringLiteral("/"))
            .replace(QStringLiteral("~0"), QStringLiteral("~"));
        if (at.isObject() && at.toObject().contains(token)) {
            at = at.toObject().value(token);
        } else if (at.isArray()) {
            bool ok = false;
            const int i = token.toInt(&ok);
            if (!ok || i < 0 || i >= at.toArray().size())
                return std::nullopt;
            at = at.toArray().at(i);
        } else {
            return std::nullopt;
        }
    }
    return at;
}

// The value itself, or what its $ref (and theirs) names. A $ref outside the document,
// one that names nothing and one that leads back to itself end the import.
QJsonValue deref(Context &c, QJsonValue value, const QString &path)
{
    QStringList seen;
    QString at = path;
    while (c.error.isEmpty() && value.isObject() &&
           value.toObject().contains(QStringLiteral("$ref"))) {
        const QString ref = value.toObject().value(QStringLiteral("$ref")).toString();
        const QString refPath = member(at, QStringLiteral("$ref"));
        if (!ref.startsWith(QLatin1String("#/")))
            c.error = Text::tr("%1: '%2' is outside the document; only references inside it "
                               "(#/...) are followed")
                          .arg(refPath, ref);
        else if (seen.contains(ref) || seen.size() > 64)
            c.error = Text::tr("%1: '%2' leads back to itself (%3)")
                          .arg(refPath, ref, seen.join(QStringLiteral(" → ")));
        if (!c.error.isEmpty())
            return {};
        seen.append(ref);
        const std::optional<QJsonValue> target = pointee(c.root, ref);
        if (!target) {
            c.error = Text::tr("%1: '%2' names nothing in the document").arg(refPath, ref);
            return {};
        }
        value = *target;
        at = ref;
    }
    return c.error.isEmpty() ? value : QJsonValue();
}

QJsonObject derefObject(Context &c, const QJsonValue &value, const QString &path)
{
    return deref(c, value, path).toObject();
}

bool checkVersion(const QJsonObject &root, QString *error)
{
    if (root.contains(QStringLiteral("swagger"))) {
        *error = Text::tr("swagger: Swagger %1 is not read; convert the document to OpenAPI 3 "
                          "first (for example with swagger2openapi)")
                     .arg(root.value(QStringLiteral("swagger")).toVariant().toString());
        return false;
    }
    const QJsonValue version = root.value(QStringLiteral("openapi"));
    static const QRegularExpression supported(QStringLiteral("^3\\.[01]\\.[0-9]+$"));
    if (version.isUndefined()) {
        *error = Text::tr("openapi: missing; not an OpenAPI document");
        return false;
    }
    if (!version.isString() || !supported.match(version.toString()).hasMatch()) {
        *error = Text::tr("openapi: expected a version 3.0.x or 3.1.x, got '%1'")
                     .arg(version.toVariant().toString());
        return false;
    }
    return true;
}

// One server object's URL with its variables filled by their defaults, made absolute.
QString serverUrl(Context &c, const QJsonObject &server, const QString &path)
{
    QString url = server.value(QStringLiteral("url")).toString();
    const QJsonObject variables = server.value(QStringLiteral("variables")).toObject();
    static const QRegularExpression variable(QStringLiteral("\\{([^{}]+)\\}"));
    for (auto it = variable.globalMatch(url); it.hasNext();) {
        const QString name = it.next().captured(1);
        const QJsonValue fallback =
            variables.value(name).toObject().value(QStringLiteral("default"));
        if (!fallback.isString()) {
            c.error = Text::tr("%1: {%2} has no default in its variables")
                          .arg(member(path, QStringLiteral("url")), name);
            return {};
        }
        url.replace(QLatin1Char('{') + name + QLatin1Char('}'), fallback.toString());
    }
    QUrl parsed(url);
    if (parsed.isRelative() && c.options.documentUrl.isValid())
        parsed = c.options.documentUrl.resolved(parsed);
    if (parsed.isRelative() || parsed.host().isEmpty()) {
        c.error = Text::tr("%1: '%2' is not an absolute URL; give the API's address with "
                           "--server URL")
                      .arg(member(path, QStringLiteral("url")), url);
        return {};
    }
    QString text = parsed.toString(QUrl::FullyEncoded);
    while (text.endsWith(QLatin1Char('/')))
        text.chop(1);
    return text;
}

// The base URL: --server's URL, the Nth server, or the first; the choice is noted.
bool chooseServer(Context &c, ImportedSource &out)
{
    const QString choice = c.options.server;
    if (choice.contains(QStringLiteral("://"))) {
        c.server = choice;
        while (c.server.endsWith(QLatin1Char('/')))
            c.server.chop(1);
        out.notes.append(Text::tr("server: %1 (--server)").arg(c.server));
        return true;
    }
    const QJsonArray servers = c.root.value(QStringLiteral("servers")).toArray();
    int index = 0;
    if (!choice.isEmpty()) {
        bool ok = false;
        index = choice.toInt(&ok) - 1;
        if (!ok || index < 0 || index >= servers.size()) {
            c.error = Text::tr("--server %1: expected a URL or a number from 1 to %2, the "
                               "servers the document lists")
                          .arg(choice)
                          .arg(servers.size());
            return false;
        }
    }
    if (servers.isEmpty()) {
        c.server =
            serverUrl(c, {{QStringLiteral("url"), QStringLiteral("/")}}, QStringLiteral("servers"));
        return c.error.isEmpty();
    }
    const QString path = element(QStringLiteral("servers"), index);
    c.server = serverUrl(c, servers.at(index).toObject(), path);
    if (!c.error.isEmpty())
        return false;
    out.notes.append(servers.size() > 1 ? Text::tr("server: %1 (%2 of %3; --server N picks "
                                                   "another)")
                                              .arg(c.server)
                                              .arg(index + 1)
                                              .arg(servers.size())
                                        : Text::tr("server: %1").arg(c.server));
    return true;
}

// What an operation's request is made of before it becomes an endpoint.
struct Request
{
    QString method;
    QString url;
    QStringList query;
    QList<Header> headers;
    QStringList cookies;
    QByteArray body;
    bool hasBody = false;
    QString idempotencyHeader;
    QJsonObject credential;
    QList<ImportVariable> variables;
    QStringList notes;
};

struct Operation
{
    QString path;   // as the document writes it: /pets/{petId}
    QString method; // lower case, as the document's key
    QJsonObject item;
    QJsonObject operation;
    QString where; // its JSON path
};

// The path item's parameters and the operation's, the operation's taking the place of
// the path item's with the same name and place.
QList<QJsonObject> parametersOf(Context &c, const Operation &o)
{
    QList<QJsonObject> out;
    const auto take = [&](const QJsonObject &owner, const QString &ownerPath) {
        const QJsonArray list = owner.value(QStringLiteral("parameters")).toArray();
        for (qsizetype i = 0; i < list.size() && c.error.isEmpty(); ++i) {
            const QJsonObject p = derefObject(
                c, list.at(i), element(member(ownerPath, QStringLiteral("parameters")), i));
            for (qsizetype k = 0; k < out.size(); ++k) {
                if (out.at(k).value(QStringLiteral("name")) == p.value(QStringLiteral("name")) &&
                    out.at(k).value(QStringLiteral("in")) == p.value(QStringLiteral("in")))
                    out.removeAt(k--);
            }
            out.append(p);
        }
    };
    take(o.item, member(QStringLiteral("paths"), o.path));
    take(o.operation, o.where);
    return out;
}

void applyParameters(const QList<QJsonObject> &parameters, Request &r)
{
    static const QStringList ignoredHeaders = {
        QStringLiteral("accept"), QStringLiteral("content-type"), QStringLiteral("authorization")};
    for (const QJsonObject &p : parameters) {
        const QString name = p.value(QStringLiteral("name")).toString();
        const QString in = p.value(QStringLiteral("in")).toString();
        const bool required =
            p.value(QStringLiteral("required")).toBool() || in == QLatin1String("path");
        if (in == QLatin1String("header") &&
            name.contains(QStringLiteral("idempotency"), Qt::CaseInsensitive)) {
            r.idempotencyHeader = name;
            continue;
        }
        if (name.isEmpty() || !required)
            continue;
        if (in == QLatin1String("path")) {
            r.url.replace(QLatin1Char('{') + name + QLatin1Char('}'), jobPlaceholder(name));
        } else if (in == QLatin1String("query")) {
            r.query.append(QString::fromLatin1(QUrl::toPercentEncoding(name)) + QLatin1Char('=') +
                           jobPlaceholder(name));
        } else if (in == QLatin1String("header") && !ignoredHeaders.contains(name.toLower())) {
            r.headers.append({name.toUtf8(), jobPlaceholder(name).toUtf8()});
        } else if (in == QLatin1String("cookie")) {
            r.cookies.append(name + QLatin1Char('=') + jobPlaceholder(name));
        }
    }
    // A path parameter the operation does not declare is still one (not the braces of a
    // placeholder made above).
    static const QRegularExpression left(QStringLiteral("(?<!\\$)\\{([^{}/]+)\\}"));
    QRegularExpressionMatch m;
    while ((m = left.match(r.url)).hasMatch())
        r.url.replace(m.capturedStart(), m.capturedLength(), jobPlaceholder(m.captured(1)));
}

// A schema's type as one word: 3.1 writes ["string", "null"].
QString typeOf(const QJsonObject &schema)
{
    const QJsonValue type = schema.value(QStringLiteral("type"));
    if (type.isArray()) {
        for (const QJsonValue &t : type.toArray()) {
            if (t.toString() != QLatin1String("null"))
                return t.toString();
        }
    }
    if (type.isString())
        return type.toString();
    if (schema.contains(QStringLiteral("properties")))
        return QStringLiteral("object");
    return schema.contains(QStringLiteral("items")) ? QStringLiteral("array") : QString();
}

// The required members of an object schema with their types, allOf's parts merged.
QList<QPair<QString, QString>> requiredMembers(Context &c, const QJsonObject &schema,
                                               const QString &path, int depth = 0)
{
    QList<QPair<QString, QString>> out;
    if (depth > 16)
        return out;
    const QJsonArray parts = schema.value(QStringLiteral("allOf")).toArray();
    for (qsizetype i = 0; i < parts.size() && c.error.isEmpty(); ++i) {
        const QString partPath = element(member(path, QStringLiteral("allOf")), i);
        out += requiredMembers(c, derefObject(c, parts.at(i), partPath), partPath, depth + 1);
    }
    const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
    for (const QJsonValue &name : schema.value(QStringLiteral("required")).toArray()) {
        const QString key = name.toString();
        const QString memberPath = member(member(path, QStringLiteral("properties")), key);
        const QJsonObject property = derefObject(c, properties.value(key), memberPath);
        out.append({key, typeOf(property)});
    }
    return out;
}

// {"name": "${job:name}", "quantity": ${job:quantity}}: a string member quoted, a number
// or a boolean not; empty when a member is an object or an array, which a job brings.
QByteArray jsonTemplate(const QList<QPair<QString, QString>> &members)
{
    QStringList parts;
    for (const auto &[name, type] : members) {
        if (type == QLatin1String("object") || type == QLatin1String("array"))
            return {};
        const QString key = QString::fromUtf8(
            QJsonDocument(QJsonArray{name}).toJson(QJsonDocument::Compact).chopped(1).mid(1));
        const bool bare = type == QLatin1String("integer") || type == QLatin1String("number") ||
                          type == QLatin1String("boolean");
        parts.append(key + QStringLiteral(": ") +
                     (bare ? jobPlaceholder(name)
                           : QLatin1Char('"') + jobPlaceholder(name) + QLatin1Char('"')));
    }
    return QStringLiteral("{%1}").arg(parts.join(QStringLiteral(", "))).toUtf8();
}

void applyBody(Context &c, const Operation &o, Request &r)
{
    if (!o.operation.contains(QStringLiteral("requestBody")))
        return;
    const QString bodyPath = member(o.where, QStringLiteral("requestBody"));
    const QJsonObject body =
        derefObject(c, o.operation.value(QStringLiteral("requestBody")), bodyPath);
    const QJsonObject content = body.value(QStringLiteral("content")).toObject();
    QString type = content.isEmpty() ? QString() : content.begin().key();
    for (auto it = content.begin(); it != content.end(); ++it) {
        if (it.key().contains(QStringLiteral("json")) ||
            (it.key() == QLatin1String("application/x-www-form-urlencoded") &&
             !type.contains(QStringLiteral("json"))))
            type = it.key();
    }
    if (!type.isEmpty() && !type.contains(QLatin1Char('*')))
        r.headers.append({"Content-Type", type.toUtf8()});
    const QString schemaPath =
        member(member(member(bodyPath, QStringLiteral("content")), type), QStringLiteral("schema"));
    const QJsonObject schema =
        derefObject(c, content.value(type).toObject().value(QStringLiteral("schema")), schemaPath);
    const QList<QPair<QString, QString>> members = requiredMembers(c, schema, schemaPath);
    if (!members.isEmpty() && type.contains(QStringLiteral("json"))) {
        r.body = jsonTemplate(members);
    } else if (!members.isEmpty() && type == QLatin1String("application/x-www-form-urlencoded")) {
        QStringList pairs;
        for (const auto &m : members)
            pairs.append(QString::fromLatin1(QUrl::toPercentEncoding(m.first)) + QLatin1Char('=') +
                         jobPlaceholder(m.first));
        r.body = pairs.join(QLatin1Char('&')).toUtf8();
    }
    r.hasBody = !r.body.isEmpty();
    if (!r.hasBody)
        r.notes.append(Text::tr("each job brings its body (%1): the document asks for no plain "
                                "members to fill in")
                           .arg(type.isEmpty() ? Text::tr("no media type") : type));
}

QString applyOAuth(Context &c, const QString &name, const QJsonObject &scheme,
                   const QStringList &scopes, Request &r)
{
    const QJsonObject flows = scheme.value(QStringLiteral("flows")).toObject();
    const QJsonObject flow = flows.value(QStringLiteral("clientCredentials")).toObject();
    if (flow.isEmpty())
        return Text::tr("OAuth 2.0 without the client credentials flow (%1): the engine has no "
                        "user to sign in")
            .arg(flows.keys().join(QStringLiteral(", ")));
    const QString id = importSlug(c.idPrefix + QLatin1Char('-') + name);
    const QString base = importEnvName(c.prefix, importSlug(name));
    QUrl tokenUrl(flow.value(QStringLiteral("tokenUrl")).toString());
    if (tokenUrl.isRelative())
        tokenUrl = QUrl(c.server + QLatin1Char('/')).resolved(tokenUrl);
    r.credential = {
        {QStringLiteral("id"), id},
        {QStringLiteral("type"), QStringLiteral("oauth2_client_credentials")},
        {QStringLiteral("token_url"), tokenUrl.toString(QUrl::FullyEncoded)},
        {QStringLiteral("client_id"), QStringLiteral("${env:%1_CLIENT_ID}").arg(base)},
        {QStringLiteral("client_secret"), QStringLiteral("${env:%1_CLIENT_SECRET}").arg(base)}};
    r.variables.append(
        {base + QStringLiteral("_CLIENT_ID"), Text::tr("the OAuth client id of %1").arg(name)});
    r.variables.append({base + QStringLiteral("_CLIENT_SECRET"),
                        Text::tr("the OAuth client secret of %1").arg(name)});
    QStringList &asked = c.scopes[id];
    for (const QString &scope : scopes) {
        if (!asked.contains(scope))
            asked.append(scope);
    }
    return {};
}

// One security scheme's credential, header, query or cookie, or why it cannot be sent.
QString applyScheme(Context &c, const QString &name, const QJsonObject &scheme,
                    const QStringList &scopes, Request &r)
{
    const QString type = scheme.value(QStringLiteral("type")).toString();
    const QString id = importSlug(c.idPrefix + QLatin1Char('-') + name);
    const QString base = importEnvName(c.prefix, importSlug(name));
    const auto ref = [](const QString &var) {
        return QStringLiteral("${env:%1}").arg(var);
    };
    if (type == QLatin1String("apiKey")) {
        const QString key = scheme.value(QStringLiteral("name")).toString();
        const QString in = scheme.value(QStringLiteral("in")).toString();
        if (key.isEmpty())
            return Text::tr("an API key without a name");
        if (in == QLatin1String("header") && r.credential.isEmpty())
            r.credential = {{QStringLiteral("id"), id},
                            {QStringLiteral("type"), QStringLiteral("header")},
                            {QStringLiteral("name"), key},
                            {QStringLiteral("value"), ref(base)}};
        else if (in == QLatin1String("header"))
            r.headers.append({key.toUtf8(), ref(base).toUtf8()});
        else if (in == QLatin1String("query"))
            r.query.append(QString::fromLatin1(QUrl::toPercentEncoding(key)) + QLatin1Char('=') +
                           ref(base));
        else if (in == QLatin1String("cookie"))
            r.cookies.append(key + QLatin1Char('=') + ref(base));
        else
            return Text::tr("an API key in '%1'").arg(in);
        r.variables.append({base, Text::tr("the API key of %1 (%2 %3)").arg(name, in, key)});
        return {};
    }
    if (!r.credential.isEmpty() &&
        (type == QLatin1String("http") || type == QLatin1String("oauth2")))
        return Text::tr("a second credential for one request");
    if (type == QLatin1String("http")) {
        const QString how = scheme.value(QStringLiteral("scheme")).toString().toLower();
        if (how == QLatin1String("bearer")) {
            r.credential = {{QStringLiteral("id"), id},
                            {QStringLiteral("type"), QStringLiteral("bearer")},
                            {QStringLiteral("token"), ref(base + QStringLiteral("_TOKEN"))}};
            r.variables.append(
                {base + QStringLiteral("_TOKEN"), Text::tr("the bearer token of %1").arg(name)});
            return {};
        }
        if (how != QLatin1String("basic"))
            return Text::tr("HTTP %1 authentication, which Cooldown does not send").arg(how);
        r.credential = {{QStringLiteral("id"), id},
                        {QStringLiteral("type"), QStringLiteral("basic")},
                        {QStringLiteral("username"), ref(base + QStringLiteral("_USER"))},
                        {QStringLiteral("password"), ref(base + QStringLiteral("_PASSWORD"))}};
        r.variables.append({base + QStringLiteral("_USER"), Text::tr("the user of %1").arg(name)});
        r.variables.append(
            {base + QStringLiteral("_PASSWORD"), Text::tr("the password of %1").arg(name)});
        return {};
    }
    if (type == QLatin1String("oauth2"))
        return applyOAuth(c, name, scheme, scopes, r);
    if (type == QLatin1String("mutualTLS"))
        return Text::tr("mutual TLS: give the endpoint a tls entry (docs/credentials.md)");
    return Text::tr("%1, which the import cannot turn into a credential; give the endpoint one "
                    "by hand")
        .arg(type.isEmpty() ? Text::tr("a scheme without a type") : type);
}

// The first of the operation's (or the document's) security requirements that can be
// sent; a requirement that names a scheme the document lacks ends the import.
void applySecurity(Context &c, const Operation &o, Request &r)
{
    const bool own = o.operation.contains(QStringLiteral("security"));
    const QString path =
        own ? member(o.where, QStringLiteral("security")) : QStringLiteral("security");
    const QJsonArray requirements =
        (own ? o.operation : c.root).value(QStringLiteral("security")).toArray();
    const QJsonObject schemes = derefObject(c,
                                            c.root.value(QStringLiteral("components"))
                                                .toObject()
                                                .value(QStringLiteral("securitySchemes")),
                                            QStringLiteral("components.securitySchemes"));
    QStringList reasons;
    for (qsizetype i = 0; i < requirements.size() && c.error.isEmpty(); ++i) {
        const QJsonObject requirement = requirements.at(i).toObject();
        Request trial = r;
        QString reason;
        for (auto it = requirement.begin(); it != requirement.end() && reason.isEmpty(); ++it) {
            if (!schemes.contains(it.key())) {
                c.error = Text::tr("%1: '%2' is not a scheme of components.securitySchemes")
                              .arg(element(path, i), it.key());
                return;
            }
            const QJsonObject scheme =
                derefObject(c, schemes.value(it.key()),
                            member(QStringLiteral("components.securitySchemes"), it.key()));
            QStringList scopes;
            for (const QJsonValue &s : it.value().toArray())
                scopes.append(s.toString());
            reason = applyScheme(c, it.key(), scheme, scopes, trial);
            if (!reason.isEmpty())
                reasons.append(QStringLiteral("%1: %2").arg(it.key(), reason));
        }
        if (reason.isEmpty()) { // an empty requirement: the operation may go without
            r = trial;
            return;
        }
    }
    if (!reasons.isEmpty())
        r.notes.append(Text::tr("no credentials: %1").arg(reasons.join(QStringLiteral("; "))));
}

bool isRateLimitExtension(const QString &key)
{
    return key.startsWith(QLatin1String("x-ratelimit"), Qt::CaseInsensitive) ||
           key.startsWith(QLatin1String("x-rate-limit"), Qt::CaseInsensitive);
}

// x-ratelimit-* extensions of an object, as notes.
void noteExtensions(const QJsonObject &owner, QStringList &notes)
{
    for (auto it = owner.begin(); it != owner.end(); ++it) {
        if (!isRateLimitExtension(it.key()))
            continue;
        const QJsonValue v = it.value();
        const QString text =
            v.isObject() || v.isArray()
                ? QString::fromUtf8(
                      QJsonDocument::fromVariant(v.toVariant()).toJson(QJsonDocument::Compact))
                : v.toVariant().toString();
        notes.append(Text::tr("%1: %2 (a rate limit the document states; a policy can pace by "
                              "it)")
                         .arg(it.key(), text));
    }
}

// A documented 429 and the headers it says it sends.
void noteRateLimits(Context &c, const Operation &o, Request &r)
{
    noteExtensions(o.item, r.notes);
    noteExtensions(o.operation, r.notes);
    const QString responsesPath = member(o.where, QStringLiteral("responses"));
    const QJsonObject responses =
        derefObject(c, o.operation.value(QStringLiteral("responses")), responsesPath);
    if (!responses.contains(QStringLiteral("429")))
        return;
    const QString tooManyPath = member(responsesPath, QStringLiteral("429"));
    const QJsonObject tooMany = derefObject(c, responses.value(QStringLiteral("429")), tooManyPath);
    static const QRegularExpression told(
        QStringLiteral("^(retry-after|ratelimit|x-ratelimit|x-rate-limit)"),
        QRegularExpression::CaseInsensitiveOption);
    QStringList headers;
    const QJsonObject documented = tooMany.value(QStringLiteral("headers")).toObject();
    for (auto it = documented.begin(); it != documented.end(); ++it) {
        if (told.match(it.key()).hasMatch())
            headers.append(it.key());
    }
    noteExtensions(tooMany, headers);
    r.notes.append(headers.isEmpty()
                       ? Text::tr("429 Too Many Requests documented, with no Retry-After or "
                                  "RateLimit header: the engine backs off")
                       : Text::tr("429 Too Many Requests documented with %1: the engine waits as "
                                  "the server says")
                             .arg(headers.join(QStringLiteral(", "))));
}

QString serverFor(Context &c, const Operation &o)
{
    if (c.options.server.contains(QStringLiteral("://")))
        return c.server;
    for (const auto &[owner, path] : {qMakePair(o.operation, o.where),
                                      qMakePair(o.item, member(QStringLiteral("paths"), o.path))}) {
        const QJsonArray servers = owner.value(QStringLiteral("servers")).toArray();
        if (!servers.isEmpty())
            return serverUrl(c, servers.at(0).toObject(),
                             element(member(path, QStringLiteral("servers")), 0));
    }
    return c.server;
}

QString uniqueId(Context &c, const Operation &o)
{
    const QString operationId = o.operation.value(QStringLiteral("operationId")).toString();
    QString id = importSlug(operationId);
    if (id.isEmpty())
        id = importSlug(o.method + QLatin1Char(' ') + o.path);
    if (id.isEmpty())
        id = o.method;
    const QString base = id;
    for (int n = 2; c.ids.contains(id); ++n)
        id = base + QLatin1Char('-') + QString::number(n);
    c.ids.insert(id);
    return id;
}

void finishEndpoint(Context &c, const Operation &o, const Request &r, ImportedEndpoint &out)
{
    const QString operationId = o.operation.value(QStringLiteral("operationId")).toString();
    const QString where = r.method + QLatin1Char(' ') + o.path;
    const QString summary = o.operation.value(QStringLiteral("summary")).toString().simplified();
    EndpointExtras extras;
    extras.name = !summary.isEmpty()       ? summary.left(200)
                  : !operationId.isEmpty() ? operationId
                                           : where;
    // An operationId the document gives twice (it should not) still names two endpoints.
    const QString source =
        QStringLiteral("openapi:%1#%2").arg(c.title, operationId.isEmpty() ? where : operationId);
    extras.source = source;
    for (int n = 2; c.sources.contains(extras.source); ++n)
        extras.source = source + QStringLiteral(" (%1)").arg(n);
    c.sources.insert(extras.source);
    extras.credential = r.credential;
    extras.idempotencyHeader = r.idempotencyHeader;
    extras.variables = r.variables;
    extras.notes = r.notes;
    if (o.operation.value(QStringLiteral("deprecated")).toBool())
        extras.notes.append(Text::tr("deprecated, the document says"));
    addExtras(out, extras);
}

std::optional<ImportedEndpoint> endpointOf(Context &c, const Operation &o, QString *refusal)
{
    if (o.method == QLatin1String("trace")) {
        *refusal = Text::tr("TRACE diagnoses the way to a server; it is not an API call");
        return std::nullopt;
    }
    Request r;
    r.method = o.method.toUpper();
    r.url = serverFor(c, o) + o.path;
    applyParameters(parametersOf(c, o), r);
    applyBody(c, o, r);
    applySecurity(c, o, r);
    noteRateLimits(c, o, r);
    if (!c.error.isEmpty())
        return std::nullopt;
    CurlRequest request;
    request.method = r.method.toLatin1();
    QString url = r.url;
    if (!r.query.isEmpty())
        url += (url.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) +
               r.query.join(QLatin1Char('&'));
    request.url = urlWithReferences(url);
    if (!request.url.isValid() || request.url.host().isEmpty()) {
        *refusal = Text::tr("'%1' is not a URL").arg(url);
        return std::nullopt;
    }
    request.headers = r.headers;
    if (!r.cookies.isEmpty())
        request.headers.append({"Cookie", r.cookies.join(QStringLiteral("; ")).toUtf8()});
    request.body = r.body;
    request.hasBody = r.hasBody;
    CurlImportOptions options;
    options.id = uniqueId(c, o);
    options.envPrefix = c.prefix;
    options.everySeconds = c.options.everySeconds;
    ImportedEndpoint out = endpointFromCurl(request, options, refusal);
    if (!refusal->isEmpty())
        return std::nullopt;
    finishEndpoint(c, o, r, out);
    return out;
}

// The operations of one path item, in the order kMethods lists them.
void importPathItem(Context &c, const QString &path, const QJsonValue &value, ImportedSource &out)
{
    const QString itemPath = member(QStringLiteral("paths"), path);
    const QJsonObject item = derefObject(c, value, itemPath);
    for (const QString &method : kMethods) {
        if (!c.error.isEmpty())
            return;
        if (!item.contains(method))
            continue;
        const QString where = member(itemPath, method);
        const Operation o{path, method, item, derefObject(c, item.value(method), where), where};
        QString refusal;
        const std::optional<ImportedEndpoint> e = endpointOf(c, o, &refusal);
        if (e)
            out.endpoints.append(*e);
        else if (c.error.isEmpty())
            out.notes.append(Text::tr("left out: %1 %2: %3").arg(method.toUpper(), path, refusal));
    }
}

} // namespace

std::optional<ImportedSource> importOpenApi(const QJsonValue &document,
                                            const OpenApiImportOptions &options, QString *error)
{
    if (!document.isObject()) {
        *error = Text::tr("expected an OpenAPI document: an object with openapi, info and paths");
        return std::nullopt;
    }
    const QJsonObject root = document.toObject();
    if (!checkVersion(root, error))
        return std::nullopt;
    Context c{root, options, {}, {}, {}, {}, {}, {}, {}, {}};
    ImportedSource out;
    c.title =
        root.value(QStringLiteral("info")).toObject().value(QStringLiteral("title")).toString();
    if (c.title.trimmed().isEmpty())
        c.title = QStringLiteral("API");
    out.title = c.title;
    c.idPrefix = importSlug(c.title).left(24);
    if (c.idPrefix.isEmpty())
        c.idPrefix = QStringLiteral("api");
    c.prefix = options.envPrefix.isEmpty() ? importEnvName(c.idPrefix, QString()).chopped(1)
                                           : options.envPrefix;
    if (!chooseServer(c, out)) {
        *error = c.error;
        return std::nullopt;
    }
    noteExtensions(root, out.notes);
    const QJsonObject paths = root.value(QStringLiteral("paths")).toObject();
    if (paths.isEmpty()) {
        *error = Text::tr("paths: the document has no operations to import");
        return std::nullopt;
    }
    for (auto it = paths.begin(); it != paths.end() && c.error.isEmpty(); ++it)
        importPathItem(c, it.key(), it.value(), out);
    if (!c.error.isEmpty()) {
        *error = c.error;
        return std::nullopt;
    }
    // An OAuth credential asks for every scope the operations that use it need.
    for (ImportedEndpoint &e : out.endpoints) {
        for (QJsonObject &credential : e.credentials) {
            const QStringList scopes =
                c.scopes.value(credential.value(QStringLiteral("id")).toString());
            if (!scopes.isEmpty())
                credential.insert(QStringLiteral("scope"), scopes.join(QLatin1Char(' ')));
        }
    }
    error->clear();
    return out;
}

} // namespace cooldown
