// SPDX-License-Identifier: Apache-2.0
#include "core/import/PostmanImport.h"

#include "core/import/CurlCommand.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

struct Variable
{
    QString value;
    bool secret = false;          // the environment says so
    bool fromEnvironment = false; // else the collection's
};

struct Context
{
    const PostmanImportOptions &options;
    QString name;     // the collection's
    QString prefix;   // of the variables' names
    QString idPrefix; // of the credentials' ids
    QHash<QString, Variable> variables;
    QHash<QString, QJsonObject> credentials; // by id: one id, one credential
    QSet<QString> ids;
    QSet<QString> sources;
};

// What one request's variables, auth and idempotency header come to.
struct Filling
{
    QList<ImportVariable> variables;
    QStringList problems; // each leaves the request out
    QStringList notes;
};

QString valueOf(Context &c, const QString &name, bool host, bool secretPlace, Filling &f,
                int depth);

// Text with its {{variables}} replaced. host: the text is a URL's scheme and host, where
// only a value may stand. secretPlace: an auth block's, where every variable is a secret.
QString fill(Context &c, const QString &text, bool host, bool secretPlace, Filling &f,
             int depth = 0)
{
    static const QRegularExpression variable(QStringLiteral("\\{\\{([^{}]+)\\}\\}"));
    QString out;
    qsizetype last = 0;
    for (auto it = variable.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        out += valueOf(c, m.captured(1).trimmed(), host, secretPlace, f, depth);
        last = m.capturedEnd();
    }
    return out + text.mid(last);
}

QString valueOf(Context &c, const QString &name, bool host, bool secretPlace, Filling &f, int depth)
{
    if (name.startsWith(QLatin1Char('$'))) {
        f.problems.append(Text::tr("{{%1}} is one of Postman's dynamic variables, which have "
                                   "no counterpart in a workspace")
                              .arg(name));
        return {};
    }
    if (depth > 8) {
        f.problems.append(Text::tr("{{%1}} refers to itself").arg(name));
        return {};
    }
    const bool known = c.variables.contains(name);
    const Variable v = c.variables.value(name);
    const bool secret = secretPlace || v.secret || looksSecret(name);
    if (host) {
        if (known && !secret && !v.value.isEmpty())
            return fill(c, v.value, true, false, f, depth + 1);
        f.problems.append(Text::tr("{{%1}} gives the scheme or the host, which needs a value "
                                   "that is not a secret (from the collection or --environment)")
                              .arg(name));
        return {};
    }
    if (secret || v.fromEnvironment) {
        const QString env = importEnvName(c.prefix, importSlug(name));
        bool listed = false;
        for (const ImportVariable &i : std::as_const(f.variables))
            listed = listed || i.name == env;
        if (!listed)
            f.variables.append({env, secret ? Text::tr("{{%1}}, a secret").arg(name)
                                            : Text::tr("{{%1}} of %2 (there: %3)")
                                                  .arg(name, c.options.environmentName, v.value)});
        return QStringLiteral("${env:%1}").arg(env);
    }
    if (known && !v.value.isEmpty())
        return fill(c, v.value, false, false, f, depth + 1);
    return jobPlaceholder(name);
}

// The collection's variables, then the environment's over them.
bool readVariables(Context &c, const QJsonObject &collection, QString *error)
{
    for (const QJsonValue &v : collection.value(QStringLiteral("variable")).toArray()) {
        const QJsonObject o = v.toObject();
        if (o.value(QStringLiteral("disabled")).toBool())
            continue;
        c.variables.insert(o.value(QStringLiteral("key")).toString(),
                           {o.value(QStringLiteral("value")).toVariant().toString(),
                            o.value(QStringLiteral("type")).toString() == QLatin1String("secret"),
                            false});
    }
    const QJsonValue environment = c.options.environment;
    if (environment.isUndefined() || environment.isNull())
        return true;
    const QJsonArray values = environment.toObject().value(QStringLiteral("values")).toArray();
    if (!environment.isObject() ||
        !environment.toObject().value(QStringLiteral("values")).isArray()) {
        *error = Text::tr("%1: values: expected the export of a Postman environment, with the "
                          "list of its values")
                     .arg(c.options.environmentName);
        return false;
    }
    for (const QJsonValue &v : values) {
        const QJsonObject o = v.toObject();
        if (!o.value(QStringLiteral("enabled")).toBool(true))
            continue;
        c.variables.insert(o.value(QStringLiteral("key")).toString(),
                           {o.value(QStringLiteral("value")).toVariant().toString(),
                            o.value(QStringLiteral("type")).toString() == QLatin1String("secret"),
                            true});
    }
    return true;
}

// An auth block's values by key: [{"key": "token", "value": "..."}].
QHash<QString, QString> authValues(const QJsonObject &auth)
{
    QHash<QString, QString> out;
    const QString type = auth.value(QStringLiteral("type")).toString();
    for (const QJsonValue &v : auth.value(type).toArray()) {
        const QJsonObject o = v.toObject();
        out.insert(o.value(QStringLiteral("key")).toString(),
                   o.value(QStringLiteral("value")).toVariant().toString());
    }
    return out;
}

bool isOneVariable(const QString &value)
{
    static const QRegularExpression one(QStringLiteral("^\\s*\\{\\{[^{}]+\\}\\}\\s*$"));
    return one.match(value).hasMatch();
}

// A secret of an auth block as ${env:NAME}: its variable's name, or, for a value written
// in the collection, one made from what it is. The value is never written.
QString secretRef(Context &c, const QString &value, const QString &what, Filling &f)
{
    // Only a value that is one variable is that variable: a secret with text around a
    // variable, or with braces that name none, is all secret.
    if (isOneVariable(value))
        return fill(c, value.trimmed(), false, true, f);
    const QString env = importEnvName(c.prefix, what);
    f.variables.append(
        {env, Text::tr("the %1 written in the collection (not copied)").arg(what.toLower())});
    return QStringLiteral("${env:%1}").arg(env);
}

// One id per distinct credential: a folder with its own token gets an id of its own.
QJsonObject credential(Context &c, const QString &type, QJsonObject fields)
{
    const QString base = importSlug(c.idPrefix + QLatin1Char('-') + type);
    QString id = base;
    fields.insert(QStringLiteral("type"), type);
    for (int n = 2;; ++n) {
        fields.insert(QStringLiteral("id"), id);
        if (!c.credentials.contains(id) || c.credentials.value(id) == fields)
            break;
        id = base + QLatin1Char('-') + QString::number(n);
    }
    c.credentials.insert(id, fields);
    return fields;
}

QString oauthCredential(Context &c, const QHash<QString, QString> &values, Filling &f,
                        QJsonObject *out)
{
    const QString grant =
        values.value(QStringLiteral("grant_type"), QStringLiteral("authorization_code"));
    if (grant != QLatin1String("client_credentials"))
        return Text::tr("OAuth 2.0 %1: the engine has no user to sign in; only client "
                        "credentials are imported")
            .arg(grant);
    // A client id is no secret: written as it is, or from the environment.
    const QString id = values.value(QStringLiteral("clientId"));
    const QString clientId = id.contains(QStringLiteral("{{")) ? fill(c, id, false, true, f) : id;
    QJsonObject fields{
        {QStringLiteral("token_url"),
         fill(c, values.value(QStringLiteral("accessTokenUrl")), true, false, f)},
        {QStringLiteral("client_id"), clientId},
        {QStringLiteral("client_secret"), secretRef(c, values.value(QStringLiteral("clientSecret")),
                                                    QStringLiteral("client_secret"), f)}};
    const QString scope = fill(c, values.value(QStringLiteral("scope")), false, false, f);
    if (!scope.isEmpty())
        fields.insert(QStringLiteral("scope"), scope);
    if (values.value(QStringLiteral("client_authentication")) == QLatin1String("body"))
        fields.insert(QStringLiteral("client_auth"), QStringLiteral("client_secret_post"));
    *out = credential(c, QStringLiteral("oauth2_client_credentials"), fields);
    return {};
}

// The auth block as a credential, or an API key's query parameter; what cannot be
// carried over is noted.
void applyAuth(Context &c, const QJsonObject &auth, QJsonObject *cred, QString *query, Filling &f)
{
    const QString type = auth.value(QStringLiteral("type")).toString();
    const QHash<QString, QString> v = authValues(auth);
    if (type.isEmpty() || type == QLatin1String("noauth"))
        return;
    if (type == QLatin1String("bearer")) {
        *cred = credential(c, QStringLiteral("bearer"),
                           {{QStringLiteral("token"), secretRef(c, v.value(QStringLiteral("token")),
                                                                QStringLiteral("token"), f)}});
    } else if (type == QLatin1String("basic")) {
        const QString user = v.value(QStringLiteral("username"));
        *cred = credential(
            c, QStringLiteral("basic"),
            {{QStringLiteral("username"),
              user.contains(QStringLiteral("{{")) ? fill(c, user, false, true, f) : user},
             {QStringLiteral("password"),
              secretRef(c, v.value(QStringLiteral("password")), QStringLiteral("password"), f)}});
    } else if (type == QLatin1String("apikey")) {
        const QString key = v.value(QStringLiteral("key"));
        const QString value = secretRef(c, v.value(QStringLiteral("value")), key, f);
        if (v.value(QStringLiteral("in")) == QLatin1String("query"))
            *query = QString::fromLatin1(QUrl::toPercentEncoding(key)) + QLatin1Char('=') + value;
        else
            *cred = credential(c, QStringLiteral("header"),
                               {{QStringLiteral("name"), key}, {QStringLiteral("value"), value}});
    } else if (type == QLatin1String("oauth2")) {
        const QString reason = oauthCredential(c, v, f, cred);
        if (!reason.isEmpty())
            f.notes.append(Text::tr("no credentials: %1").arg(reason));
    } else {
        f.notes.append(Text::tr("no credentials: Postman's %1 auth cannot be made a credential; "
                                "give the endpoint one by hand")
                           .arg(type));
    }
}

// "?key=value&…" of a URL object's query list (disabled ones left out); empty without.
QString queryOf(const QJsonArray &query)
{
    QStringList pairs;
    for (const QJsonValue &entry : query) {
        const QJsonObject p = entry.toObject();
        if (p.value(QStringLiteral("disabled")).toBool())
            continue;
        const QJsonValue value = p.value(QStringLiteral("value"));
        pairs.append(p.value(QStringLiteral("key")).toString() +
                     (value.isString() ? QLatin1Char('=') + value.toString() : QString()));
    }
    return pairs.isEmpty() ? QString() : QLatin1Char('?') + pairs.join(QLatin1Char('&'));
}

// The URL as text: {{variables}} filled, the host's with their values, :name path
// variables as ${job:name}.
QString urlOf(Context &c, const QJsonValue &url, Filling &f)
{
    QString raw =
        url.isString() ? url.toString() : url.toObject().value(QStringLiteral("raw")).toString();
    if (raw.isEmpty() && url.isObject()) {
        const QJsonObject o = url.toObject();
        QStringList host, path;
        // host and path are lists, or one string each.
        const QJsonValue hostValue = o.value(QStringLiteral("host"));
        const QJsonValue pathValue = o.value(QStringLiteral("path"));
        for (const QJsonValue &h :
             hostValue.isString() ? QJsonArray{hostValue} : hostValue.toArray())
            host.append(h.toString());
        for (const QJsonValue &p :
             pathValue.isString() ? QJsonArray{pathValue} : pathValue.toArray())
            path.append(p.toString());
        // Without a protocol the host may be a variable that holds one ({{baseUrl}}, as
        // Postman's own OpenAPI converter writes it): https:// is added below only when
        // the filled host has none.
        const QString protocol = o.value(QStringLiteral("protocol")).toString();
        raw = (protocol.isEmpty() ? QString() : protocol + QStringLiteral("://")) +
              host.join(QLatin1Char('.')) + QLatin1Char('/') + path.join(QLatin1Char('/')) +
              queryOf(o.value(QStringLiteral("query")).toArray());
    }
    const qsizetype scheme = raw.indexOf(QStringLiteral("://"));
    qsizetype hostEnd =
        raw.indexOf(QRegularExpression(QStringLiteral("[/?#]")), scheme < 0 ? 0 : scheme + 3);
    if (hostEnd < 0)
        hostEnd = raw.size();
    QString head = fill(c, raw.left(hostEnd), true, false, f);
    if (!head.contains(QStringLiteral("://")))
        head.prepend(QStringLiteral("https://"));
    QString tail = fill(c, raw.mid(hostEnd), false, false, f);
    static const QRegularExpression pathVariable(QStringLiteral("/:([A-Za-z_][A-Za-z0-9_.]*)"));
    const qsizetype query = tail.indexOf(QLatin1Char('?'));
    QString path = query < 0 ? tail : tail.left(query);
    path.replace(pathVariable, QStringLiteral("/${job:\\1}"));
    tail = path + (query < 0 ? QString() : tail.mid(query));
    QString text = head + tail;
    return text.replace(QLatin1Char(' '), QStringLiteral("%20"));
}

// Form fields as application/x-www-form-urlencoded, references kept as they are.
QString formEncoded(const QString &text)
{
    static const QRegularExpression reference(QStringLiteral("\\$\\{(env|job):[A-Za-z0-9_.]+\\}"));
    QString out;
    qsizetype last = 0;
    const auto encode = [](const QString &part) {
        return QString::fromLatin1(part.toUtf8().toPercentEncoding(" ").replace(' ', '+'));
    };
    for (auto it = reference.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        out += encode(text.mid(last, m.capturedStart() - last)) + m.captured();
        last = m.capturedEnd();
    }
    return out + encode(text.mid(last));
}

// The body as curl's words: --data-raw, or --form-string for each part.
QStringList bodyWords(Context &c, const QJsonObject &body, bool hasContentType, Filling &f)
{
    const QString mode = body.value(QStringLiteral("mode")).toString();
    QStringList words;
    if (mode == QLatin1String("raw")) {
        if (body.value(QStringLiteral("raw")).toString().isEmpty())
            return words; // Postman keeps an empty body on every request
        const QString language = body.value(QStringLiteral("options"))
                                     .toObject()
                                     .value(QStringLiteral("raw"))
                                     .toObject()
                                     .value(QStringLiteral("language"))
                                     .toString();
        if (!hasContentType && language == QLatin1String("json"))
            words << QStringLiteral("-H") << QStringLiteral("Content-Type: application/json");
        else if (!hasContentType && language == QLatin1String("xml"))
            words << QStringLiteral("-H") << QStringLiteral("Content-Type: application/xml");
        else if (!hasContentType)
            words << QStringLiteral("-H") << QStringLiteral("Content-Type: text/plain");
        words << QStringLiteral("--data-raw")
              << fill(c, body.value(QStringLiteral("raw")).toString(), false, false, f);
    } else if (mode == QLatin1String("urlencoded")) {
        QStringList pairs;
        for (const QJsonValue &v : body.value(mode).toArray()) {
            const QJsonObject o = v.toObject();
            if (!o.value(QStringLiteral("disabled")).toBool())
                pairs.append(formEncoded(fill(c, o.value(QStringLiteral("key")).toString(), false,
                                              false, f)) +
                             QLatin1Char('=') +
                             formEncoded(fill(c, o.value(QStringLiteral("value")).toString(), false,
                                              false, f)));
        }
        if (!pairs.isEmpty())
            words << QStringLiteral("--data-raw") << pairs.join(QLatin1Char('&'));
    } else if (mode == QLatin1String("formdata")) {
        for (const QJsonValue &v : body.value(mode).toArray()) {
            const QJsonObject o = v.toObject();
            if (o.value(QStringLiteral("disabled")).toBool())
                continue;
            if (o.value(QStringLiteral("type")).toString() == QLatin1String("file"))
                f.problems.append(Text::tr("the form part %1 uploads a file from the machine it "
                                           "was made on")
                                      .arg(o.value(QStringLiteral("key")).toString()));
            words << QStringLiteral("--form-string")
                  << fill(c, o.value(QStringLiteral("key")).toString(), false, false, f) +
                         QLatin1Char('=') +
                         fill(c, o.value(QStringLiteral("value")).toString(), false, false, f);
        }
    } else if (mode == QLatin1String("graphql")) {
        const QJsonObject g = body.value(mode).toObject();
        QJsonObject payload{{QStringLiteral("query"), g.value(QStringLiteral("query"))}};
        const QJsonDocument variables =
            QJsonDocument::fromJson(g.value(QStringLiteral("variables")).toString().toUtf8());
        if (variables.isObject())
            payload.insert(QStringLiteral("variables"), variables.object());
        if (!hasContentType)
            words << QStringLiteral("-H") << QStringLiteral("Content-Type: application/json");
        words << QStringLiteral("--data-raw")
              << fill(c, QString::fromUtf8(QJsonDocument(payload).toJson(QJsonDocument::Compact)),
                      false, false, f);
    } else if (!mode.isEmpty()) {
        f.problems.append(
            Text::tr("a body of mode %1, which the import cannot carry over").arg(mode));
    }
    return words;
}

// Where a request sits: its folders, and the auth it inherits from them.
struct Place
{
    QStringList folders;
    QJsonObject auth; // the nearest folder's (or the collection's) own auth
};

// The request's words for curl: method, URL, headers and body; its auth and idempotency
// header beside them.
struct Converted
{
    QStringList words;
    QJsonObject credential;
    QString idempotencyHeader;
};

Converted convert(Context &c, const QJsonObject &request, const QJsonObject &auth, Filling &f)
{
    Converted out;
    const QString method =
        request.value(QStringLiteral("method")).toString(QStringLiteral("GET")).toUpper();
    QString query;
    applyAuth(c, auth, &out.credential, &query, f);
    QString url = urlOf(c, request.value(QStringLiteral("url")), f);
    if (!query.isEmpty())
        url += (url.contains(QLatin1Char('?')) ? QLatin1Char('&') : QLatin1Char('?')) + query;
    out.words << QStringLiteral("curl") << QStringLiteral("-X") << method << QStringLiteral("--url")
              << url;
    bool hasContentType = false;
    for (const QJsonValue &v : request.value(QStringLiteral("header")).toArray()) {
        const QJsonObject h = v.toObject();
        const QString name = h.value(QStringLiteral("key")).toString().trimmed();
        if (h.value(QStringLiteral("disabled")).toBool() || name.isEmpty())
            continue;
        if (name.contains(QStringLiteral("idempotency"), Qt::CaseInsensitive)) {
            out.idempotencyHeader = name; // the engine sends the operation's own key
            continue;
        }
        // A header named as a secret is one variable, or all secret: the request
        // conversion then takes its whole value out.
        const QString raw = h.value(QStringLiteral("value")).toString();
        const QString value = looksSecret(name) && !isOneVariable(raw)
                                  ? raw
                                  : fill(c, raw, false, looksSecret(name), f);
        hasContentType = hasContentType ||
                         name.compare(QStringLiteral("Content-Type"), Qt::CaseInsensitive) == 0;
        out.words << QStringLiteral("-H")
                  << (value.isEmpty() ? name + QLatin1Char(';')
                                      : name + QStringLiteral(": ") + value);
    }
    out.words += bodyWords(c, request.value(QStringLiteral("body")).toObject(), hasContentType, f);
    return out;
}

// The request of an item as an endpoint, or nullopt with the reason in *refusal.
std::optional<ImportedEndpoint> endpointOf(Context &c, const QJsonObject &item, const Place &place,
                                           QString *refusal)
{
    const QJsonValue requestValue = item.value(QStringLiteral("request"));
    const QJsonObject request = requestValue.isString()
                                    ? QJsonObject{{QStringLiteral("url"), requestValue}}
                                    : requestValue.toObject();
    const QJsonObject own = request.value(QStringLiteral("auth")).toObject();
    const bool inherits =
        own.isEmpty() || own.value(QStringLiteral("type")) == QLatin1String("inherit");
    Filling f;
    const Converted converted = convert(c, request, inherits ? place.auth : own, f);
    if (!f.problems.isEmpty()) {
        *refusal = f.problems.join(QStringLiteral("; "));
        return std::nullopt;
    }
    const std::optional<CurlRequest> parsed = parseCurl(converted.words, QString(), refusal);
    if (!parsed)
        return std::nullopt;
    const QString name = item.value(QStringLiteral("name")).toString().simplified();
    const QStringList names = QStringList(place.folders) << name;
    CurlImportOptions options;
    QString id = importSlug(names.join(QLatin1Char(' ')));
    if (id.isEmpty())
        id = QString::fromLatin1(parsed->method).toLower();
    options.id = id;
    for (int n = 2; c.ids.contains(options.id); ++n)
        options.id = id + QLatin1Char('-') + QString::number(n);
    c.ids.insert(options.id);
    options.envPrefix = c.prefix;
    options.everySeconds = c.options.everySeconds;
    ImportedEndpoint out = endpointFromCurl(*parsed, options, refusal);
    if (!refusal->isEmpty())
        return std::nullopt;
    EndpointExtras extras;
    extras.name = names.join(QStringLiteral(" / ")).left(200);
    QString source = QStringLiteral("postman:%1#%2").arg(c.name, names.join(QLatin1Char('/')));
    for (int n = 2; c.sources.contains(source); ++n)
        source =
            QStringLiteral("postman:%1#%2 (%3)").arg(c.name, names.join(QLatin1Char('/'))).arg(n);
    c.sources.insert(source);
    extras.source = source;
    extras.credential = converted.credential;
    extras.idempotencyHeader = converted.idempotencyHeader;
    extras.variables = f.variables;
    extras.notes = f.notes;
    addExtras(out, extras);
    return out;
}

// Folders and requests, depth first in the collection's order.
void importItems(Context &c, const QJsonArray &items, const Place &place, ImportedSource &out,
                 int depth)
{
    for (const QJsonValue &value : items) {
        const QJsonObject item = value.toObject();
        const QString name = item.value(QStringLiteral("name")).toString().simplified();
        if (item.contains(QStringLiteral("item")) && depth < 32) {
            Place inner = place;
            inner.folders.append(name);
            const QJsonObject auth = item.value(QStringLiteral("auth")).toObject();
            if (!auth.isEmpty() && auth.value(QStringLiteral("type")) != QLatin1String("inherit"))
                inner.auth = auth;
            importItems(c, item.value(QStringLiteral("item")).toArray(), inner, out, depth + 1);
            continue;
        }
        if (!item.contains(QStringLiteral("request")))
            continue;
        QString refusal;
        const std::optional<ImportedEndpoint> e = endpointOf(c, item, place, &refusal);
        if (e)
            out.endpoints.append(*e);
        else
            out.notes.append(
                Text::tr("left out: %1: %2")
                    .arg((QStringList(place.folders) << name).join(QStringLiteral(" / ")),
                         refusal));
    }
}

} // namespace

std::optional<ImportedSource> importPostman(const QJsonValue &collection,
                                            const PostmanImportOptions &options, QString *error)
{
    const QJsonObject root = collection.toObject();
    const QJsonObject info = root.value(QStringLiteral("info")).toObject();
    const QString schema = info.value(QStringLiteral("schema")).toString();
    if (!collection.isObject() || info.isEmpty()) {
        *error = Text::tr("info: missing; not a Postman collection");
        return std::nullopt;
    }
    if (!schema.contains(QStringLiteral("/collection/v2.1"))) {
        *error = Text::tr("info.schema: expected a collection of format v2.1, got '%1'; export it "
                          "again from Postman as Collection v2.1")
                     .arg(schema);
        return std::nullopt;
    }
    if (!root.value(QStringLiteral("item")).isArray()) {
        *error = Text::tr("item: expected the list of the collection's requests and folders");
        return std::nullopt;
    }
    Context c{options, {}, {}, {}, {}, {}, {}, {}};
    c.name = info.value(QStringLiteral("name")).toString().simplified();
    if (c.name.isEmpty())
        c.name = QStringLiteral("collection");
    c.idPrefix = importSlug(c.name).left(24);
    if (c.idPrefix.isEmpty())
        c.idPrefix = QStringLiteral("postman");
    c.prefix = options.envPrefix.isEmpty() ? importEnvName(c.idPrefix, QString()).chopped(1)
                                           : options.envPrefix;
    if (!readVariables(c, root, error))
        return std::nullopt;
    ImportedSource out;
    out.title = c.name;
    Place place;
    place.auth = root.value(QStringLiteral("auth")).toObject();
    importItems(c, root.value(QStringLiteral("item")).toArray(), place, out, 0);
    error->clear();
    return out;
}

} // namespace cooldown
