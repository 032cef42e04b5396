// SPDX-License-Identifier: Apache-2.0
#include "core/import/EndpointImport.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>

namespace cooldown {

namespace {

class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::import)
};

const QString kImportedFrom = QStringLiteral("imported_from");

// "post-orders" from POST /v1/orders/{id}: the method and the last word of the path.
QString idFor(const CurlRequest &request)
{
    QStringList segments = request.url.path().split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QString last;
    while (!segments.isEmpty() && last.isEmpty()) {
        last = segments.takeLast().toLower();
        last.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
        last.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
        if (QRegularExpression(QStringLiteral("^[0-9-]+$")).match(last).hasMatch())
            last.clear(); // an id in the path says nothing of what the endpoint does
    }
    QString host = request.url.host().section(QLatin1Char('.'), 0, 0).toLower();
    const QString what = last.isEmpty() ? host : last;
    return QString::fromLatin1(request.method).toLower() + QLatin1Char('-') +
           (what.isEmpty() ? QStringLiteral("api") : what.left(48));
}

// References the command made itself ($TOKEN became ${env:TOKEN}).
void noteCommandVariables(const QString &text, QList<ImportVariable> &variables)
{
    static const QRegularExpression ref(QStringLiteral("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}"));
    for (auto it = ref.globalMatch(text); it.hasNext();) {
        const QString name = it.next().captured(1);
        bool known = false;
        for (const ImportVariable &v : variables)
            known = known || v.name == name;
        if (!known)
            variables.append({name, Text::tr("named in the command"), true});
    }
}

struct Building
{
    const CurlRequest &request;
    QString id;
    QString prefix;
    ImportedEndpoint out;
    QJsonObject headers;
};

// user:password as a basic credential: the user as written, the password from the
// environment. A basic credential needs both; with one of them empty (-u KEY: as Stripe
// documents it, -u :TOKEN) the header's whole value is the secret instead.
void basic(Building &b, const QString &user, const QString &password, bool fromOption)
{
    if (user.isEmpty() || password.isEmpty()) {
        const QString name = importEnvName(b.prefix, QStringLiteral("basic"));
        b.headers.insert(QStringLiteral("Authorization"),
                         QStringLiteral("Basic ${env:%1}").arg(name));
        b.out.variables.append(
            {name, Text::tr("the base64 of user:password (as printf 'user:password' | base64 "
                            "prints it) for Authorization: Basic")});
        return;
    }
    const QString name = importEnvName(b.prefix, QStringLiteral("password"));
    b.out.credentials.append({{QStringLiteral("id"), b.id + QStringLiteral("-basic")},
                              {QStringLiteral("type"), QStringLiteral("basic")},
                              {QStringLiteral("username"), user},
                              {QStringLiteral("password"), QStringLiteral("${env:%1}").arg(name)}});
    b.out.endpoint.insert(QStringLiteral("credentials"), b.id + QStringLiteral("-basic"));
    b.out.variables.append(
        {name, fromOption ? Text::tr("the password of %1 (-u)").arg(user)
                          : Text::tr("the password of %1 (Authorization: Basic)").arg(user)});
}

void authorization(Building &b, const QByteArray &value)
{
    const QString text = QString::fromUtf8(value);
    if (text.contains(QStringLiteral("${env:"))) {
        b.headers.insert(QStringLiteral("Authorization"), text);
        return;
    }
    const QString scheme = text.section(QLatin1Char(' '), 0, 0);
    const QString rest = text.section(QLatin1Char(' '), 1).trimmed();
    if (scheme.compare(QStringLiteral("Basic"), Qt::CaseInsensitive) == 0) {
        const QString pair = QString::fromUtf8(QByteArray::fromBase64(rest.toLatin1()));
        basic(b, pair.section(QLatin1Char(':'), 0, 0), pair.section(QLatin1Char(':'), 1), false);
        return;
    }
    const bool bearer = scheme.compare(QStringLiteral("Bearer"), Qt::CaseInsensitive) == 0;
    const QString name =
        importEnvName(b.prefix, bearer ? QStringLiteral("token") : QStringLiteral("authorization"));
    b.headers.insert(QStringLiteral("Authorization"),
                     bearer ? QStringLiteral("Bearer ${env:%1}").arg(name)
                            : QStringLiteral("${env:%1}").arg(name));
    b.out.variables.append({name, bearer ? Text::tr("the bearer token of Authorization")
                                         : Text::tr("the value of Authorization")});
}

void takeHeaders(Building &b)
{
    for (const auto &[rawName, rawValue] : b.request.headers) {
        const QString name = QString::fromUtf8(rawName);
        if (name.compare(QStringLiteral("Authorization"), Qt::CaseInsensitive) == 0) {
            authorization(b, rawValue);
            continue;
        }
        // What Qt's network access sends or decides itself.
        if (name.compare(QStringLiteral("Content-Length"), Qt::CaseInsensitive) == 0 ||
            name.compare(QStringLiteral("Host"), Qt::CaseInsensitive) == 0) {
            b.out.notes.append(
                Text::tr("%1 left out: it is worked out for each request").arg(name));
            continue;
        }
        QString value = QString::fromUtf8(rawValue);
        if (looksSecret(name) && !value.contains(QStringLiteral("${env:"))) {
            const QString var = importEnvName(b.prefix, name);
            value = QStringLiteral("${env:%1}").arg(var);
            b.out.variables.append({var, Text::tr("the value of %1").arg(name)});
        }
        if (b.headers.contains(name)) {
            b.headers.insert(name, b.headers.value(name).toString() + QStringLiteral(", ") + value);
            b.out.notes.append(Text::tr("%1 given twice: written as one header, its values "
                                        "separated by commas")
                                   .arg(name));
        } else {
            b.headers.insert(name, value);
        }
    }
}

QString takeUrl(Building &b)
{
    const QUrl &url = b.request.url;
    QString text = url.toString(QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::FullyEncoded);
    // References are written as they are: QUrl would encode their braces.
    static const QRegularExpression encodedRef(
        QStringLiteral("\\$?%7B(env|job):([A-Za-z0-9_.]+)%7D"));
    text.replace(encodedRef, QStringLiteral("${\\1:\\2}"));
    if (!url.hasQuery())
        return text;
    QStringList items;
    for (const QString &item : url.query(QUrl::FullyEncoded).split(QLatin1Char('&'))) {
        const QString name =
            QUrl::fromPercentEncoding(item.section(QLatin1Char('='), 0, 0).toUtf8());
        QString value = item.section(QLatin1Char('='), 1);
        value.replace(encodedRef, QStringLiteral("${\\1:\\2}"));
        if (looksSecret(name) && !value.isEmpty() && !value.contains(QStringLiteral("${env:"))) {
            const QString var = importEnvName(b.prefix, name);
            value = QStringLiteral("${env:%1}").arg(var);
            b.out.variables.append({var, Text::tr("the query parameter %1").arg(name)});
        }
        items.append(item.contains(QLatin1Char('='))
                         ? item.section(QLatin1Char('='), 0, 0) + QLatin1Char('=') + value
                         : item);
    }
    return text + QLatin1Char('?') + items.join(QLatin1Char('&'));
}

// A stable id of the source: the same request, secrets aside, is the same source.
QString sourceIdOf(const CurlRequest &r)
{
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(r.method);
    hash.addData(r.url.toString(QUrl::RemoveQuery | QUrl::RemoveUserInfo).toUtf8());
    return QStringLiteral("curl:") + QString::fromLatin1(hash.result().toHex().left(16));
}

} // namespace

bool looksSecret(const QString &name)
{
    static const QRegularExpression secret(
        QStringLiteral("api[-_]?key|apikey|token|secret|passw|session|signature|cookie|"
                       "^key$|^sig$|^auth$|^x-auth|credential"),
        QRegularExpression::CaseInsensitiveOption);
    return secret.match(name).hasMatch() &&
           name.compare(QStringLiteral("idempotency-key"), Qt::CaseInsensitive) != 0;
}

QString importEnvName(const QString &prefix, const QString &what)
{
    QString name = (prefix + QLatin1Char('_') + what).toUpper();
    for (QChar &c : name) {
        if (!(c.isLetterOrNumber() && c.unicode() < 128))
            c = QLatin1Char('_');
    }
    name.replace(QRegularExpression(QStringLiteral("_+")), QStringLiteral("_"));
    return name;
}

QString importSlug(const QString &text)
{
    QString words = text;
    words.replace(QRegularExpression(QStringLiteral("([a-z0-9])([A-Z])")),
                  QStringLiteral("\\1-\\2"));
    words = words.toLower();
    words.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    words.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    words = words.left(48);
    words.remove(QRegularExpression(QStringLiteral("-+$")));
    return words;
}

QString jobPlaceholder(const QString &name)
{
    QString field = name;
    field.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.]")), QStringLiteral("_"));
    return QStringLiteral("${job:%1}").arg(field.isEmpty() ? QStringLiteral("value") : field);
}

void addExtras(ImportedEndpoint &out, const EndpointExtras &extras)
{
    QJsonObject &e = out.endpoint;
    e.insert(QStringLiteral("name"), extras.name);
    e.insert(kImportedFrom, extras.source);
    const QString method = e.value(QStringLiteral("method")).toString();
    if (!extras.idempotencyHeader.isEmpty())
        e.insert(QStringLiteral("idempotency"),
                 QJsonObject{{QStringLiteral("header"), extras.idempotencyHeader}});
    else if (method == QLatin1String("POST") || method == QLatin1String("PATCH"))
        out.notes.append(Text::tr("no idempotency header in the source: once a %1 may have "
                                  "reached the server it is not sent again, but parked "
                                  "(docs/retry-contract.md)")
                             .arg(method));
    if (!extras.credential.isEmpty()) {
        e.insert(QStringLiteral("credentials"), extras.credential.value(QStringLiteral("id")));
        out.credentials.append(extras.credential);
    }
    static const QRegularExpression placeholder(QStringLiteral("\\$\\{job:([A-Za-z0-9_.]+)\\}"));
    QStringList fields;
    const QString written = QString::fromUtf8(QJsonDocument(e).toJson(QJsonDocument::Compact));
    for (auto it = placeholder.globalMatch(written); it.hasNext();) {
        const QString field = it.next().captured(1);
        if (!fields.contains(field))
            fields.append(field);
    }
    if (!fields.isEmpty()) {
        e.remove(QStringLiteral("every_seconds"));
        out.notes.prepend(Text::tr("a template: each job brings %1 (docs/intake.md)")
                              .arg(fields.join(QStringLiteral(", "))));
    }
    QList<ImportVariable> variables = extras.variables;
    for (const ImportVariable &v : std::as_const(out.variables)) {
        bool known = false;
        for (const ImportVariable &mine : extras.variables)
            known = known || mine.name == v.name;
        if (!known)
            variables.append(v);
    }
    out.variables = variables;
    out.notes += extras.notes;
}

ImportedEndpoint endpointFromCurl(const CurlRequest &request, const CurlImportOptions &options,
                                  QString *error)
{
    Building b{request, options.id.isEmpty() ? idFor(request) : options.id, {}, {}, {}};
    b.prefix = options.envPrefix.isEmpty() ? b.id : options.envPrefix;
    QJsonObject &e = b.out.endpoint;
    e.insert(QStringLiteral("id"), b.id);
    e.insert(QStringLiteral("method"), QString::fromLatin1(request.method));
    if (!request.user.isEmpty() || !request.password.isEmpty())
        basic(b, request.user, request.password, true);
    e.insert(QStringLiteral("url"), takeUrl(b));
    takeHeaders(b);
    if (!b.headers.isEmpty())
        e.insert(QStringLiteral("headers"), b.headers);
    if (request.hasBody) {
        const QString body = QString::fromUtf8(request.body);
        if (body.toUtf8() != request.body) {
            *error = Text::tr("the body is not UTF-8 text (%1 bytes); a workspace holds a body "
                              "as text")
                         .arg(request.body.size());
            return {};
        }
        e.insert(QStringLiteral("body"), body);
    }
    const bool reads = request.method == "GET" || request.method == "HEAD";
    if (options.everySeconds > 0)
        e.insert(QStringLiteral("every_seconds"), options.everySeconds);
    else if (!reads)
        e.insert(QStringLiteral("enqueue_only"), true);
    e.insert(kImportedFrom, sourceIdOf(request));
    if (request.insecure) {
        // Said as plainly in the workspace as on the command line, and warned of there.
        const QString tls = b.id + QStringLiteral("-insecure");
        b.out.tls.append(QJsonObject{{QStringLiteral("id"), tls},
                                     {QStringLiteral("verify_certificate"), false}});
        e.insert(QStringLiteral("tls"), tls);
        b.out.notes.append(Text::tr("-k: the server's certificate is not checked (tls '%1', "
                                    "verify_certificate: false), and check-config warns of it; "
                                    "for a private CA, give its certificate as the entry's "
                                    "ca_file instead (docs/credentials.md)")
                               .arg(tls));
    }
    if (request.compressed)
        b.out.notes.append(Text::tr("--compressed needs nothing: responses are decompressed "
                                    "as they come"));
    noteCommandVariables(e.value(QStringLiteral("url")).toString(), b.out.variables);
    for (auto it = b.headers.begin(); it != b.headers.end(); ++it)
        noteCommandVariables(it.value().toString(), b.out.variables);
    noteCommandVariables(e.value(QStringLiteral("body")).toString(), b.out.variables);
    error->clear();
    return b.out;
}

namespace {

qsizetype indexOfId(const QJsonArray &list, const QString &id)
{
    for (qsizetype i = 0; i < list.size(); ++i) {
        if (list.at(i).toObject().value(QStringLiteral("id")).toString() == id)
            return i;
    }
    return -1;
}

// The entries of one of the workspace's lists ("credentials", "tls") an imported
// endpoint names under the same key, into the document. An entry is replaced only when
// this import wrote it already, or the endpoint it updates named it (an earlier import
// of the same source wrote it); one the user wrote under the same id stays, and the
// imported one takes the next free id (-2, -3, ...).
void mergeEntries(WorkspaceDocument &document, const QString &key,
                  const QList<QJsonObject> &entries, QJsonObject &endpoint,
                  const QString &updatedId, QSet<QString> &written)
{
    if (entries.isEmpty())
        return;
    QJsonObject root = document.root();
    QJsonArray list = root.value(key).toArray();
    for (QJsonObject c : entries) {
        const QString base = c.value(QStringLiteral("id")).toString();
        QString id = base;
        for (int n = 2; indexOfId(list, id) >= 0 && !written.contains(id) && id != updatedId; ++n)
            id = base + QLatin1Char('-') + QString::number(n);
        if (id != base) {
            c.insert(QStringLiteral("id"), id);
            if (endpoint.value(key).toString() == base)
                endpoint.insert(key, id);
        }
        const qsizetype at = indexOfId(list, id);
        if (at >= 0)
            list.replace(at, c);
        else
            list.append(c);
        written.insert(id);
    }
    root.insert(key, list);
    document = WorkspaceDocument(root, document.sourceName());
}

} // namespace

QList<ImportChange> mergeImport(WorkspaceDocument &document, QList<ImportedEndpoint> &imported)
{
    QList<ImportChange> changes;
    // Sources this import has used: a second request of one source in the same import
    // (two curl commands to one URL with different bodies) is a source of its own,
    // "SOURCE#2", as stable as the order of the commands.
    QHash<QString, int> seen;
    QSet<QString> credentialsWritten;
    QSet<QString> tlsWritten;
    for (ImportedEndpoint &item : imported) {
        QJsonObject &e = item.endpoint;
        QString source = e.value(kImportedFrom).toString();
        if (!source.isEmpty() && ++seen[source] > 1) {
            source += QLatin1Char('#') + QString::number(seen.value(source));
            e.insert(kImportedFrom, source);
        }
        int existing = -1;
        const QList<QJsonObject> endpoints = document.endpoints();
        for (qsizetype i = 0; i < endpoints.size() && existing < 0; ++i) {
            if (!source.isEmpty() && endpoints.at(i).value(kImportedFrom).toString() == source)
                existing = int(i);
        }
        const QJsonObject updated = existing >= 0 ? endpoints.at(existing) : QJsonObject();
        const QString credentialsKey = QStringLiteral("credentials");
        const QString tlsKey = QStringLiteral("tls");
        mergeEntries(document, credentialsKey, item.credentials, e,
                     updated.value(credentialsKey).toString(), credentialsWritten);
        mergeEntries(document, tlsKey, item.tls, e, updated.value(tlsKey).toString(), tlsWritten);
        if (existing >= 0) {
            // The id it has now stays (the user may have renamed it).
            const QString id = endpoints.at(existing).value(QStringLiteral("id")).toString();
            e.insert(QStringLiteral("id"), id);
            const bool same = endpoints.at(existing) == e;
            document.setEndpointAt(existing, e);
            changes.append(
                {same ? ImportChange::Kind::Unchanged : ImportChange::Kind::Updated, id});
        } else {
            QString id = e.value(QStringLiteral("id")).toString();
            const QString base = id;
            for (int n = 2; document.endpointIndex(id) >= 0; ++n)
                id = base + QLatin1Char('-') + QString::number(n);
            e.insert(QStringLiteral("id"), id);
            document.addEndpoint(e);
            changes.append({ImportChange::Kind::Added, id});
        }
    }
    return changes;
}

} // namespace cooldown
