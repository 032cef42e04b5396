// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"

#include "core/check/ExpectationReader.h"
#include "core/config/JobRequest.h"
#include "core/config/JsonReader.h"
#include "core/config/TlsFiles.h"
#include "core/http/ClientAssertion.h"
#include "core/http/HttpToken.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSet>
#include <QSslSocket>

#include <algorithm>

namespace cooldown {

namespace {

// The words of this file, for translators.
class Text final
{
    Q_DECLARE_TR_FUNCTIONS(cooldown::config)
};

constexpr qint64 kMaxConfigBytes = 16 * 1024 * 1024;

const QStringList kTopKeys = {QStringLiteral("version"),
                              QStringLiteral("concurrency"),
                              QStringLiteral("policies"),
                              QStringLiteral("retry_profiles"),
                              QStringLiteral("endpoints"),
                              QStringLiteral("alerts"),
                              QStringLiteral("retention"),
                              QStringLiteral("api"),
                              QStringLiteral("pause_after_failures"),
                              QStringLiteral("credentials"),
                              QStringLiteral("tls"),
                              QStringLiteral("proxy"),
                              QStringLiteral("maintenance"),
                              QStringLiteral("incidents")};
const QStringList kAlertKeys = {QStringLiteral("id"),
                                QStringLiteral("url"),
                                QStringLiteral("headers"),
                                QStringLiteral("events"),
                                QStringLiteral("held_longer_than_seconds"),
                                QStringLiteral("min_interval_seconds"),
                                QStringLiteral("timeout_seconds"),
                                QStringLiteral("retry"),
                                QStringLiteral("credentials"),
                                QStringLiteral("tls"),
                                QStringLiteral("proxy")};
const QStringList kEndpointKeys = {QStringLiteral("id"),
                                   QStringLiteral("sla_target"),
                                   QStringLiteral("name"),
                                   QStringLiteral("method"),
                                   QStringLiteral("url"),
                                   QStringLiteral("headers"),
                                   QStringLiteral("body"),
                                   QStringLiteral("every_seconds"),
                                   QStringLiteral("catch_up"),
                                   QStringLiteral("timeout_seconds"),
                                   QStringLiteral("policy"),
                                   QStringLiteral("partition_key"),
                                   QStringLiteral("retry"),
                                   QStringLiteral("idempotency"),
                                   QStringLiteral("enqueue_only"),
                                   QStringLiteral("imported_from"),
                                   QStringLiteral("pause_after_failures"),
                                   QStringLiteral("credentials"),
                                   QStringLiteral("tls"),
                                   QStringLiteral("proxy"),
                                   QStringLiteral("expect"),
                                   QStringLiteral("latency_budget_ms"),
                                   QStringLiteral("latency_window_seconds")};

// An endpoint's or an alert's id. Anchored as a whole: '$' would also match before a
// final newline, and let "upload\n" through.
QString idPattern()
{
    return QRegularExpression::anchoredPattern(
        QStringLiteral(R"([A-Za-z0-9][A-Za-z0-9_.\-]{0,63})"));
}

// pause_after_failures: how many operations in a row may end failed before the
// endpoint is paused. A million is far beyond any use and keeps the count's query small.
constexpr double kMaxPauseAfterFailures = 1000000;

// Replaces ${env:NAME} and ${scope:KEY} references. Secrets are resolved here, in
// memory, and nowhere else. ${job:NAME} placeholders are kept as written, to be filled
// per job when its request is sent.
class Substitution
{
public:
    Substitution(const QHash<QString, QString> &variables,
                 const QHash<QString, QString> &environment)
        : m_variables(variables), m_environment(environment)
    {}

    std::optional<QString> apply(const QString &text, const QString &path, JsonReader &reader) const
    {
        static const QRegularExpression kReference(
            QStringLiteral(R"(\$\{([a-z]+):([A-Za-z0-9_.]+)\})"));
        static const QRegularExpression kPlaceholder(QStringLiteral(R"(\$\{job:[A-Za-z0-9_.]+\})"));
        QString out;
        qsizetype last = 0;
        auto it = kReference.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            out += QStringView(text).mid(last, m.capturedStart() - last);
            const QString scope = m.captured(1);
            const QString name = m.captured(2);
            if (scope == QLatin1String("job")) {
                out += m.captured(0);
            } else if (scope == QLatin1String("env")) {
                if (!m_environment.contains(name)) {
                    reader.fail(path, Text::tr("environment variable %1 is not set").arg(name));
                    return std::nullopt;
                }
                out += m_environment.value(name);
            } else {
                const QString key = scope + QLatin1Char(':') + name;
                if (!m_variables.contains(key)) {
                    reader.fail(path, Text::tr("unknown reference ${%1}").arg(key));
                    return std::nullopt;
                }
                out += m_variables.value(key);
            }
            last = m.capturedEnd();
        }
        out += QStringView(text).mid(last);
        QString withoutPlaceholders = out;
        withoutPlaceholders.remove(kPlaceholder);
        if (withoutPlaceholders.contains(QLatin1String("${"))) {
            reader.fail(path, Text::tr("malformed reference: expected ${env:NAME} or ${job:NAME}"));
            return std::nullopt;
        }
        return out;
    }

private:
    const QHash<QString, QString> &m_variables;
    const QHash<QString, QString> &m_environment;
};

QString lineAndColumn(const QByteArray &json, int offset)
{
    const QByteArray before = json.left(offset);
    const int line = int(before.count('\n')) + 1;
    const int column = int(offset - (before.lastIndexOf('\n') + 1)) + 1;
    return Text::tr("line %1, column %2").arg(line).arg(column);
}

QHash<QString, QString> processEnvironment()
{
    QHash<QString, QString> env;
    const QProcessEnvironment system = QProcessEnvironment::systemEnvironment();
    for (const QString &key : system.keys())
        env.insert(key, system.value(key));
    return env;
}

// Adds the placeholders of text to the endpoint's.
void notePlaceholders(const QString &text, EndpointConfig &e)
{
    for (const QString &name : jobtemplate::placeholders(text)) {
        if (!e.jobFields.contains(name))
            e.jobFields.append(name);
    }
}

// The url and headers of an endpoint or an alert target, ${...} references resolved.
void readTarget(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
                EndpointConfig &e)
{
    const QString urlPath = JsonReader::join(path, QStringLiteral("url"));
    const QString urlText = r.string(o, QStringLiteral("url"), path, true);
    if (const auto resolved = r.ok() ? subst.apply(urlText, urlPath, r) : std::nullopt) {
        e.urlTemplate = *resolved;
        notePlaceholders(*resolved, e);
        // Where requests go is the workspace's to say: a job fills a path or a query.
        const qsizetype authorityStart = resolved->indexOf(QLatin1String("://"));
        const qsizetype pathStart =
            authorityStart < 0 ? -1
                               : resolved->indexOf(QRegularExpression(QStringLiteral("[/?#]")),
                                                   authorityStart + 3);
        if (!jobtemplate::placeholders(resolved->left(pathStart < 0 ? resolved->size() : pathStart))
                 .isEmpty())
            r.fail(urlPath, Text::tr("a ${job:NAME} placeholder may stand in the path or the "
                                     "query, not in the scheme, host or port"));
        JobValues samples;
        for (const QString &name : jobtemplate::placeholders(*resolved))
            samples.insert(name, QStringLiteral("x"));
        QString unused;
        e.url = QUrl(jobtemplate::fill(*resolved, samples, jobtemplate::Escape::Url, &unused)
                         .value_or(QString()),
                     QUrl::StrictMode);
        const QString scheme = e.url.scheme();
        if (!e.url.isValid() || e.url.host().isEmpty() ||
            (scheme != QLatin1String("http") && scheme != QLatin1String("https")))
            r.fail(urlPath,
                   Text::tr("expected an absolute http or https URL, got '%1'").arg(urlText));
    }

    const QJsonValue headers = o.value(QStringLiteral("headers"));
    const QString headersPath = JsonReader::join(path, QStringLiteral("headers"));
    if (!headers.isUndefined()) {
        if (const auto h = r.object(headers, headersPath)) {
            for (auto it = h->begin(); it != h->end() && r.ok(); ++it) {
                const QString fieldPath = JsonReader::join(headersPath, it.key());
                if (!isToken(it.key())) {
                    r.fail(fieldPath, Text::tr("not a valid header name"));
                    break;
                }
                if (!it.value().isString()) {
                    r.fail(fieldPath, Text::tr("expected a string"));
                    break;
                }
                const QString text = it.value().toString();
                const auto value = subst.apply(text, fieldPath, r);
                if (!value)
                    break;
                if (value->contains(QLatin1Char('\r')) || value->contains(QLatin1Char('\n'))) {
                    r.fail(fieldPath, Text::tr("header values cannot contain line breaks"));
                    break;
                }
                notePlaceholders(*value, e);
                e.headers.append(it.key().toLatin1(), value->toUtf8());
                e.headerTemplates.append(it.key().toLatin1(), text.toUtf8());
            }
        }
    }
}

// The local API's section. The token must come from the environment: a workspace file
// is shared and kept in version control, a secret is not.
void readApi(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
             ApiConfig &api)
{
    r.checkKnownKeys(o, path,
                     {QStringLiteral("token"), QStringLiteral("max_queued"),
                      QStringLiteral("max_body_bytes"), QStringLiteral("max_jobs_per_request")});
    const QString tokenPath = JsonReader::join(path, QStringLiteral("token"));
    const QString written = r.string(o, QStringLiteral("token"), path, false);
    if (r.ok() && o.contains(QStringLiteral("token"))) {
        static const QRegularExpression kEnvOnly(
            QRegularExpression::anchoredPattern(QStringLiteral(R"(\$\{env:([A-Za-z0-9_]+)\})")));
        const QRegularExpressionMatch m = kEnvOnly.match(written);
        if (!m.hasMatch()) {
            r.fail(tokenPath, Text::tr("expected ${env:NAME}: the token is read from the "
                                       "environment, never written in the file"));
        } else if (const auto token = subst.apply(written, tokenPath, r)) {
            if (token->size() < 16)
                r.fail(tokenPath, Text::tr("the token in %1 is %2 characters long; use at "
                                           "least 16 random ones")
                                      .arg(m.captured(1))
                                      .arg(token->size()));
            api.token = token->toUtf8();
            api.tokenVariable = m.captured(1);
        }
    }
    api.maxQueued =
        int(r.number(o, QStringLiteral("max_queued"), path, 1, 100'000'000, api.maxQueued, true));
    api.maxBodyBytes = qint64(r.number(o, QStringLiteral("max_body_bytes"), path, 1024,
                                       64 * 1024 * 1024, double(api.maxBodyBytes), true));
    api.maxJobsPerRequest = int(r.number(o, QStringLiteral("max_jobs_per_request"), path, 1,
                                         100'000, api.maxJobsPerRequest, true));
}

// ---- credentials, tls and proxies (docs/credentials.md) ----

const QStringList kTlsKeys = {QStringLiteral("id"),
                              QStringLiteral("ca_file"),
                              QStringLiteral("client_certificate"),
                              QStringLiteral("client_key"),
                              QStringLiteral("key_passphrase"),
                              QStringLiteral("client_pkcs12"),
                              QStringLiteral("pkcs12_passphrase"),
                              QStringLiteral("verify_hostname"),
                              QStringLiteral("verify_certificate")};
const QStringList kOAuthKeys = {QStringLiteral("id"),
                                QStringLiteral("type"),
                                QStringLiteral("token_url"),
                                QStringLiteral("client_id"),
                                QStringLiteral("client_secret"),
                                QStringLiteral("client_auth"),
                                QStringLiteral("private_key"),
                                QStringLiteral("key_passphrase"),
                                QStringLiteral("key_id"),
                                QStringLiteral("scope"),
                                QStringLiteral("audience"),
                                QStringLiteral("extra_parameters"),
                                QStringLiteral("default_lifetime_seconds"),
                                QStringLiteral("timeout_seconds"),
                                QStringLiteral("tls"),
                                QStringLiteral("proxy")};
// The token request's own form fields, which extra_parameters must not replace.
const QStringList kReservedFormFields = {QStringLiteral("grant_type"),
                                         QStringLiteral("client_id"),
                                         QStringLiteral("client_secret"),
                                         QStringLiteral("scope"),
                                         QStringLiteral("audience"),
                                         QStringLiteral("client_assertion"),
                                         QStringLiteral("client_assertion_type")};

const QRegularExpression &envOnlyPattern()
{
    static const QRegularExpression kEnvOnly(
        QRegularExpression::anchoredPattern(QStringLiteral(R"(\$\{env:([A-Za-z0-9_]+)\})")));
    return kEnvOnly;
}

void noteVariables(const QString &text, QStringList *variables)
{
    static const QRegularExpression kEnv(QStringLiteral(R"(\$\{env:([A-Za-z0-9_.]+)\})"));
    if (!variables)
        return;
    auto it = kEnv.globalMatch(text);
    while (it.hasNext()) {
        const QString name = it.next().captured(1);
        if (!variables->contains(name))
            variables->append(name);
    }
}

// Text that may hold ${env:NAME} references but no ${job:NAME} placeholder: what a
// credential, a tls entry or a proxy says is the workspace's, the same for every job.
std::optional<QString> fixedText(const QString &text, const QString &path,
                                 const Substitution &subst, JsonReader &r, QStringList *variables)
{
    if (!r.ok())
        return std::nullopt;
    if (!jobtemplate::placeholders(text).isEmpty()) {
        r.fail(path, Text::tr("a ${job:NAME} placeholder cannot stand here: this is the "
                              "workspace's, the same for every job"));
        return std::nullopt;
    }
    const auto resolved = subst.apply(text, path, r);
    if (resolved)
        noteVariables(text, variables);
    return resolved;
}

// A secret: exactly ${env:NAME}, set and not empty. The messages name the variable,
// never its value. *variable gets NAME.
std::optional<QString> secretFrom(const QString &written, const QString &path,
                                  const Substitution &subst, JsonReader &r, QStringList *variables,
                                  QString *variable = nullptr)
{
    if (!r.ok())
        return std::nullopt;
    const QRegularExpressionMatch m = envOnlyPattern().match(written);
    if (!m.hasMatch()) {
        r.fail(path, Text::tr("expected ${env:NAME}: a secret is read from the environment, "
                              "never written in the file"));
        return std::nullopt;
    }
    const auto value = subst.apply(written, path, r);
    if (!value)
        return std::nullopt;
    const QString name = m.captured(1);
    if (value->isEmpty()) {
        r.fail(path, Text::tr("environment variable %1 is empty").arg(name));
        return std::nullopt;
    }
    for (const QChar c : *value) {
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) {
            r.fail(path, Text::tr("environment variable %1 holds a control character (a line "
                                  "break?)")
                             .arg(name));
            return std::nullopt;
        }
    }
    noteVariables(written, variables);
    if (variable)
        *variable = name;
    return value;
}

std::optional<QString> secret(const QJsonObject &o, const QString &key, const QString &path,
                              bool required, const Substitution &subst, JsonReader &r,
                              QStringList *variables, QString *variable = nullptr)
{
    const QString written = r.string(o, key, path, required);
    if (!r.ok() || !o.contains(key))
        return std::nullopt;
    return secretFrom(written, JsonReader::join(path, key), subst, r, variables, variable);
}

QString proxyForms()
{
    return Text::tr("expected \"system\", \"none\", a proxy URL (http:// or socks5://) or an "
                    "object with \"url\" and \"no_proxy\"");
}

// A proxy URL: scheme, host and port, with a user and a password that may come from
// the environment. The text is never repeated in a message: it may hold a password.
ProxyConfig proxyFromUrl(const QString &text, const QString &path, const Substitution &subst,
                         JsonReader &r, QStringList *variables)
{
    ProxyConfig proxy;
    proxy.kind = ProxyConfig::Kind::Explicit;
    const qsizetype schemeEnd = text.indexOf(QLatin1String("://"));
    const QString scheme = schemeEnd < 0 ? QString() : text.left(schemeEnd).toLower();
    if (scheme == QLatin1String("https")) {
        // Qt's network stack cannot speak TLS to the proxy itself. An http:// proxy still
        // carries https:// endpoints end to end encrypted, through a CONNECT tunnel.
        r.fail(path, Text::tr("an https:// proxy (TLS to the proxy itself) is not supported; "
                              "use its http:// address: requests to https:// endpoints stay "
                              "encrypted through it"));
        return proxy;
    }
    if (scheme != QLatin1String("http") && scheme != QLatin1String("socks5")) {
        r.fail(path, proxyForms());
        return proxy;
    }
    QString authority = text.mid(schemeEnd + 3);
    if (authority.endsWith(QLatin1Char('/')))
        authority.chop(1);
    if (authority.contains(QLatin1Char('/')) || authority.contains(QLatin1Char('?')) ||
        authority.contains(QLatin1Char('#'))) {
        r.fail(path, Text::tr("a proxy URL is a scheme, a host and a port, with no path"));
        return proxy;
    }
    const qsizetype at = authority.lastIndexOf(QLatin1Char('@'));
    const QString userInfo = at < 0 ? QString() : authority.left(at);
    const QString hostPort = authority.mid(at + 1);
    QString user;
    QString password;
    if (at >= 0) {
        // The ':' between user and password, not the one of a ${env:NAME} reference.
        qsizetype colon = -1;
        for (qsizetype i = 0, depth = 0; i < userInfo.size() && colon < 0; ++i) {
            if (userInfo.at(i) == QLatin1Char('{'))
                ++depth;
            else if (userInfo.at(i) == QLatin1Char('}'))
                depth = qMax(qsizetype(0), depth - 1);
            else if (userInfo.at(i) == QLatin1Char(':') && depth == 0)
                colon = i;
        }
        const QString userText = colon < 0 ? userInfo : userInfo.left(colon);
        const QString passwordText = colon < 0 ? QString() : userInfo.mid(colon + 1);
        if (userText.contains(QLatin1String("${"))) {
            if (!envOnlyPattern().match(userText).hasMatch()) {
                r.fail(path, Text::tr("the user of a proxy URL is written as it is, or as "
                                      "${env:NAME}"));
                return proxy;
            }
            if (const auto resolved = fixedText(userText, path, subst, r, variables))
                user = *resolved;
        } else {
            user = QUrl::fromPercentEncoding(userText.toUtf8());
        }
        if (!passwordText.isEmpty()) {
            if (!envOnlyPattern().match(passwordText).hasMatch()) {
                r.fail(path, Text::tr("the password of a proxy URL must be ${env:NAME}: a "
                                      "secret is read from the environment, never written in "
                                      "the file"));
                return proxy;
            }
            if (const auto resolved = secretFrom(passwordText, path, subst, r, variables))
                password = *resolved;
        }
        if (!r.ok())
            return proxy;
        if (user.isEmpty()) {
            r.fail(path, Text::tr("a proxy URL with '@' needs a user before it"));
            return proxy;
        }
    }
    if (hostPort.contains(QLatin1String("${"))) {
        r.fail(path, Text::tr("the host and port of a proxy URL are written as they are"));
        return proxy;
    }
    const QUrl url(scheme + QLatin1String("://") + hostPort, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty()) {
        r.fail(path, proxyForms());
        return proxy;
    }
    if (url.port() <= 0) {
        r.fail(path, Text::tr("a proxy URL needs a port (http://proxy.example:3128)"));
        return proxy;
    }
    proxy.url = url;
    if (!user.isEmpty())
        proxy.url.setUserName(user, QUrl::DecodedMode);
    if (!password.isEmpty())
        proxy.url.setPassword(password, QUrl::DecodedMode);
    return proxy;
}

// A no_proxy entry: "*", a host name (with its subdomains), ".domain" (subdomains
// only), or an IP address.
bool isNoProxyEntry(const QString &entry)
{
    static const QRegularExpression kHost(QRegularExpression::anchoredPattern(
        QStringLiteral(R"(\.?[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?)")));
    if (entry == QLatin1String("*") || kHost.match(entry).hasMatch())
        return true;
    QString address = entry;
    if (address.startsWith(QLatin1Char('[')) && address.endsWith(QLatin1Char(']')))
        address = address.mid(1, address.size() - 2);
    return !QHostAddress(address).isNull();
}

// "proxy" of the workspace, an endpoint, an alert target or a credential; Kind::Inherit
// when absent.
ProxyConfig readProxy(const QJsonObject &o, const QString &parentPath, const Substitution &subst,
                      JsonReader &r, QStringList *variables = nullptr)
{
    const QString key = QStringLiteral("proxy");
    const QJsonValue value = o.value(key);
    const QString path = JsonReader::join(parentPath, key);
    ProxyConfig proxy;
    if (value.isUndefined() || !r.ok())
        return proxy;
    if (value.isString()) {
        const QString text = value.toString();
        if (text == QLatin1String("system"))
            proxy.kind = ProxyConfig::Kind::System;
        else if (text == QLatin1String("none"))
            proxy.kind = ProxyConfig::Kind::None;
        else
            proxy = proxyFromUrl(text, path, subst, r, variables);
        return proxy;
    }
    if (!value.isObject()) {
        r.fail(path, proxyForms());
        return proxy;
    }
    const QJsonObject object = value.toObject();
    r.checkKnownKeys(object, path, {QStringLiteral("url"), QStringLiteral("no_proxy")});
    const QString urlText = r.string(object, QStringLiteral("url"), path, true);
    if (!r.ok())
        return proxy;
    proxy =
        proxyFromUrl(urlText, JsonReader::join(path, QStringLiteral("url")), subst, r, variables);
    const QString noProxyPath = JsonReader::join(path, QStringLiteral("no_proxy"));
    if (!r.ok() || !object.contains(QStringLiteral("no_proxy")))
        return proxy;
    if (const auto list = r.array(object.value(QStringLiteral("no_proxy")), noProxyPath)) {
        for (qsizetype i = 0; i < list->size() && r.ok(); ++i) {
            const QString entry = list->at(i).toString().trimmed();
            if (!list->at(i).isString() || !isNoProxyEntry(entry)) {
                r.fail(JsonReader::index(noProxyPath, i),
                       Text::tr("expected a host name, \".domain\", an IP address or \"*\""));
                break;
            }
            proxy.noProxy.append(entry.toLower());
        }
    }
    return proxy;
}

// A file of a tls entry, relative to the workspace's folder. Its messages name it as
// written when an environment variable went into it: that value may be a secret.
tlsfiles::File tlsPath(const QJsonObject &o, const QString &key, const QString &path,
                       const Substitution &subst, JsonReader &r, const QDir &base)
{
    const QString written = r.string(o, key, path, false);
    if (!r.ok() || !o.contains(key))
        return {};
    const QString fieldPath = JsonReader::join(path, key);
    const auto resolved = fixedText(written, fieldPath, subst, r, nullptr);
    if (!resolved)
        return {};
    if (resolved->isEmpty()) {
        r.fail(fieldPath, Text::tr("expected a file name"));
        return {};
    }
    const QString file = QDir::cleanPath(base.absoluteFilePath(*resolved));
    return {file, written.contains(QLatin1String("${env:")) ? written : file};
}

// The files of a tls entry, with the names their messages give them.
struct TlsEntryFiles
{
    tlsfiles::File ca;
    tlsfiles::File certificate;
    tlsfiles::File key;
    tlsfiles::File pkcs12;
};

// The fields of a tls entry as written: its id, its files (relative to the workspace's
// folder), verify_hostname and verify_certificate. No file is opened yet.
void readTlsFields(const QJsonObject &o, const QString &path, const Substitution &subst,
                   JsonReader &r, const QDir &base, TlsConfig &t, TlsEntryFiles &files)
{
    r.checkKnownKeys(o, path, kTlsKeys);
    t.id = r.string(o, QStringLiteral("id"), path, true);
    static const QRegularExpression kId(idPattern());
    if (r.ok() && !kId.match(t.id).hasMatch())
        r.fail(JsonReader::join(path, QStringLiteral("id")),
               Text::tr("expected 1-64 letters, digits, '.', '_' or '-'"));
    files.ca = tlsPath(o, QStringLiteral("ca_file"), path, subst, r, base);
    files.certificate = tlsPath(o, QStringLiteral("client_certificate"), path, subst, r, base);
    files.key = tlsPath(o, QStringLiteral("client_key"), path, subst, r, base);
    files.pkcs12 = tlsPath(o, QStringLiteral("client_pkcs12"), path, subst, r, base);
    t.caFile = files.ca.path;
    t.clientCertificate = files.certificate.path;
    t.clientKey = files.key.path;
    t.clientPkcs12 = files.pkcs12.path;
    t.verifyHostname = r.boolean(o, QStringLiteral("verify_hostname"), path, true);
    t.verifyCertificate = r.boolean(o, QStringLiteral("verify_certificate"), path, true);
    if (r.ok() && !t.verifyCertificate && !t.caFile.isEmpty())
        r.fail(JsonReader::join(path, QStringLiteral("ca_file")),
               Text::tr("a CA is of no use with verify_certificate: false, which trusts any "
                        "certificate"));
}

// A client certificate comes either as two PEM files, certificate and key, or as one
// PKCS#12 bundle; each passphrase goes only with the file it opens. Checked before any
// file is read, so that a mistake in the entry is named before a problem of a file.
bool checkClientFiles(const QJsonObject &o, const QString &path, const TlsConfig &t, JsonReader &r)
{
    if (!t.clientPkcs12.isEmpty() && (!t.clientCertificate.isEmpty() || !t.clientKey.isEmpty())) {
        r.fail(JsonReader::join(path, QStringLiteral("client_pkcs12")),
               Text::tr("give either client_pkcs12 or client_certificate and client_key, not "
                        "both"));
        return false;
    }
    if (!t.clientCertificate.isEmpty() && t.clientKey.isEmpty()) {
        r.fail(JsonReader::join(path, QStringLiteral("client_key")),
               Text::tr("required with client_certificate"));
        return false;
    }
    if (t.clientCertificate.isEmpty() && !t.clientKey.isEmpty()) {
        r.fail(JsonReader::join(path, QStringLiteral("client_certificate")),
               Text::tr("required with client_key"));
        return false;
    }
    if (o.contains(QStringLiteral("key_passphrase")) && t.clientKey.isEmpty()) {
        r.fail(JsonReader::join(path, QStringLiteral("key_passphrase")),
               Text::tr("only with client_key"));
        return false;
    }
    if (o.contains(QStringLiteral("pkcs12_passphrase")) && t.clientPkcs12.isEmpty()) {
        r.fail(JsonReader::join(path, QStringLiteral("pkcs12_passphrase")),
               Text::tr("only with client_pkcs12"));
        return false;
    }
    return true;
}

// In place of the system's, like curl --cacert: the endpoint trusts its CA only.
bool readAuthorities(const QString &path, const TlsEntryFiles &files, JsonReader &r, TlsConfig &t)
{
    if (t.caFile.isEmpty())
        return true;
    QList<QSslCertificate> authorities;
    if (const auto problem = tlsfiles::readCertificates(files.ca, &authorities)) {
        r.fail(JsonReader::join(path, QStringLiteral("ca_file")), *problem);
        return false;
    }
    t.ssl.setCaCertificates(authorities);
    return true;
}

// The client's certificate chain and key as read, and where a key that is not the
// certificate's is reported: the key file, or the bundle that held both.
struct ClientIdentity
{
    QSslKey key;
    QList<QSslCertificate> chain;
    QString matchPath;
    QString keyFile;
    QString certificateFile;
};

bool readPemIdentity(const QString &path, const TlsEntryFiles &files,
                     const std::optional<QString> &passphrase, JsonReader &r,
                     ClientIdentity &identity)
{
    if (const auto problem = tlsfiles::readCertificates(files.certificate, &identity.chain)) {
        r.fail(JsonReader::join(path, QStringLiteral("client_certificate")), *problem);
        return false;
    }
    const std::optional<QByteArray> keyPassphrase =
        passphrase ? std::optional<QByteArray>(passphrase->toUtf8()) : std::nullopt;
    if (const auto problem = tlsfiles::readPrivateKey(files.key, keyPassphrase, &identity.key)) {
        r.fail(JsonReader::join(path, QStringLiteral("client_key")), *problem);
        return false;
    }
    return true;
}

bool readPkcs12Identity(const QString &path, const TlsEntryFiles &files,
                        const std::optional<QString> &passphrase, JsonReader &r,
                        ClientIdentity &identity)
{
    const QString pkcs12Path = JsonReader::join(path, QStringLiteral("client_pkcs12"));
    tlsfiles::Pkcs12 bundle;
    if (const auto problem =
            tlsfiles::readPkcs12(files.pkcs12, passphrase.value_or(QString()).toUtf8(), &bundle)) {
        r.fail(pkcs12Path, *problem);
        return false;
    }
    identity.key = bundle.key;
    identity.chain = QList<QSslCertificate>{bundle.certificate} + bundle.chain;
    identity.matchPath = pkcs12Path;
    identity.keyFile = identity.certificateFile = files.pkcs12.shown;
    return true;
}

// The client certificate, from PEM files or a PKCS#12 bundle, when the entry has one.
void readClientIdentity(const QString &path, const TlsEntryFiles &files,
                        const std::optional<QString> &passphrase, JsonReader &r, TlsConfig &t)
{
    ClientIdentity identity;
    identity.matchPath = JsonReader::join(path, QStringLiteral("client_key"));
    identity.keyFile = files.key.shown;
    identity.certificateFile = files.certificate.shown;
    if (!t.clientCertificate.isEmpty()) {
        if (!readPemIdentity(path, files, passphrase, r, identity))
            return;
    } else if (!t.clientPkcs12.isEmpty()) {
        if (!readPkcs12Identity(path, files, passphrase, r, identity))
            return;
    }
    if (identity.chain.isEmpty())
        return;
    // A key of another certificate would show only as a handshake the server refuses,
    // long after the file was written.
    if (tlsfiles::keyMatches(identity.key, identity.chain.constFirst()) ==
        std::optional<bool>(false)) {
        r.fail(identity.matchPath, Text::tr("the key in %1 is not the key of the certificate in %2")
                                       .arg(identity.keyFile, identity.certificateFile));
        return;
    }
    t.ssl.setLocalCertificateChain(identity.chain);
    t.ssl.setPrivateKey(identity.key);
}

// A tls entry: the fields as written, then their combinations, then the files, each
// read and matched here so that a wrong path, passphrase or key is the workspace's
// error, named with its JSON path.
void readTls(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
             const QDir &base, TlsConfig &t)
{
    TlsEntryFiles files;
    readTlsFields(o, path, subst, r, base, t, files);
    if (!r.ok() || !checkClientFiles(o, path, t, r))
        return;
    const QString passphraseKey = t.clientPkcs12.isEmpty() ? QStringLiteral("key_passphrase")
                                                           : QStringLiteral("pkcs12_passphrase");
    const std::optional<QString> passphrase =
        secret(o, passphraseKey, path, false, subst, r, nullptr, &t.passphraseVariable);
    if (!r.ok())
        return;
    if ((!t.caFile.isEmpty() || !t.clientKey.isEmpty() || !t.clientPkcs12.isEmpty()) &&
        !QSslSocket::supportsSsl()) {
        r.fail(path, Text::tr("this build of Qt has no TLS backend to read key material with"));
        return;
    }
    t.ssl = QSslConfiguration::defaultConfiguration();
    // curl -k: any certificate, from anyone. Loaded with a warning (warnAboutTls).
    if (!t.verifyCertificate)
        t.ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
    if (readAuthorities(path, files, r, t))
        readClientIdentity(path, files, passphrase, r, t);
}

// private_key_jwt (RFC 7523): the client's key instead of a secret. The file is read
// and decrypted here, so that a wrong path, passphrase or key type is the workspace's
// error, named with its JSON path.
void readAssertionKey(const QJsonObject &o, const QString &path, const Substitution &subst,
                      JsonReader &r, const QDir &base, CredentialConfig &c)
{
    if (o.contains(QStringLiteral("client_secret"))) {
        r.fail(JsonReader::join(path, QStringLiteral("client_secret")),
               Text::tr("private_key_jwt signs with private_key; no client_secret is sent"));
        return;
    }
    const QString keyPath = JsonReader::join(path, QStringLiteral("private_key"));
    if (!o.contains(QStringLiteral("private_key"))) {
        r.fail(keyPath, Text::tr("required with private_key_jwt"));
        return;
    }
    const tlsfiles::File file = tlsPath(o, QStringLiteral("private_key"), path, subst, r, base);
    const std::optional<QString> passphrase =
        secret(o, QStringLiteral("key_passphrase"), path, false, subst, r, &c.variables);
    if (!r.ok())
        return;
    QSslKey key;
    if (const auto problem = tlsfiles::readPrivateKey(
            file, passphrase ? std::optional<QByteArray>(passphrase->toUtf8()) : std::nullopt,
            &key)) {
        r.fail(keyPath, *problem);
        return;
    }
    c.assertionKeyPem = key.toPem();
    QString why;
    const std::optional<QString> algorithm = ClientAssertion::algorithmFor(c.assertionKeyPem, &why);
    if (!algorithm) {
        r.fail(keyPath, Text::tr("%1 cannot sign a client assertion: %2").arg(file.shown, why));
        return;
    }
    c.assertionAlgorithm = *algorithm;
    const QString keyId = r.string(o, QStringLiteral("key_id"), path, false);
    if (const auto resolved = fixedText(keyId, JsonReader::join(path, QStringLiteral("key_id")),
                                        subst, r, &c.variables))
        c.assertionKeyId = *resolved;
}

// The type of a credential, which decides the keys it may have. An unknown type ends
// the reading; a missing one is the reader's error, and the rest reads as nothing.
bool readCredentialType(const QJsonObject &o, const QString &path, JsonReader &r,
                        CredentialConfig &c)
{
    const QString typeText = r.string(o, QStringLiteral("type"), path, true);
    bool known = false;
    for (const auto type :
         {CredentialConfig::Type::OAuth2ClientCredentials, CredentialConfig::Type::Bearer,
          CredentialConfig::Type::Basic, CredentialConfig::Type::Header}) {
        if (typeText == QLatin1String(textOf(type))) {
            c.type = type;
            known = true;
        }
    }
    if (r.ok() && !known) {
        r.fail(JsonReader::join(path, QStringLiteral("type")),
               Text::tr("expected one of: %1")
                   .arg(QStringLiteral("oauth2_client_credentials, bearer, basic, header")));
        return false;
    }
    return true;
}

QStringList credentialKeys(CredentialConfig::Type type)
{
    switch (type) {
    case CredentialConfig::Type::OAuth2ClientCredentials:
        return kOAuthKeys;
    case CredentialConfig::Type::Bearer:
        return {QStringLiteral("id"), QStringLiteral("type"), QStringLiteral("token")};
    case CredentialConfig::Type::Basic:
        return {QStringLiteral("id"), QStringLiteral("type"), QStringLiteral("username"),
                QStringLiteral("password")};
    case CredentialConfig::Type::Header:
        return {QStringLiteral("id"), QStringLiteral("type"), QStringLiteral("name"),
                QStringLiteral("value")};
    }
    return {};
}

// Where the token comes from and for whom: token_url and client_id.
void readTokenEndpoint(const QJsonObject &o, const QString &path, const Substitution &subst,
                       JsonReader &r, CredentialConfig &c)
{
    const QString urlPath = JsonReader::join(path, QStringLiteral("token_url"));
    const QString urlText = r.string(o, QStringLiteral("token_url"), path, true);
    if (const auto resolved = fixedText(urlText, urlPath, subst, r, &c.variables)) {
        c.tokenUrl = QUrl(*resolved, QUrl::StrictMode);
        const QString scheme = c.tokenUrl.scheme();
        if (!c.tokenUrl.isValid() || c.tokenUrl.host().isEmpty() ||
            (scheme != QLatin1String("http") && scheme != QLatin1String("https")))
            r.fail(urlPath, Text::tr("expected an absolute http or https URL"));
    }
    const QString clientIdPath = JsonReader::join(path, QStringLiteral("client_id"));
    const QString clientId = r.string(o, QStringLiteral("client_id"), path, true);
    if (const auto resolved = fixedText(clientId, clientIdPath, subst, r, &c.variables)) {
        c.clientId = *resolved;
        if (c.clientId.isEmpty())
            r.fail(clientIdPath, Text::tr("expected a client id"));
    }
}

// How the client proves who it is: a secret (basic or in the form), or a key that
// signs an assertion. False when the reading ends here.
bool readClientAuthentication(const QJsonObject &o, const QString &path, const Substitution &subst,
                              JsonReader &r, const QDir &base, CredentialConfig &c)
{
    const QString auth = r.string(o, QStringLiteral("client_auth"), path, false,
                                  QStringLiteral("client_secret_basic"));
    if (!r.ok())
        return false;
    if (auth == QLatin1String("client_secret_basic")) {
        c.clientAuth = CredentialConfig::ClientAuth::SecretBasic;
    } else if (auth == QLatin1String("client_secret_post")) {
        c.clientAuth = CredentialConfig::ClientAuth::SecretPost;
    } else if (auth == QLatin1String("private_key_jwt")) {
        c.clientAuth = CredentialConfig::ClientAuth::PrivateKeyJwt;
    } else {
        r.fail(JsonReader::join(path, QStringLiteral("client_auth")),
               Text::tr("expected one of: %1")
                   .arg(QStringLiteral("client_secret_basic, client_secret_post, "
                                       "private_key_jwt")));
        return false;
    }
    if (c.clientAuth == CredentialConfig::ClientAuth::PrivateKeyJwt) {
        readAssertionKey(o, path, subst, r, base, c);
        return true;
    }
    for (const QString &key : {QStringLiteral("private_key"), QStringLiteral("key_passphrase"),
                               QStringLiteral("key_id")}) {
        if (o.contains(key)) {
            r.fail(JsonReader::join(path, key), Text::tr("only with private_key_jwt"));
            return false;
        }
    }
    if (const auto value =
            secret(o, QStringLiteral("client_secret"), path, true, subst, r, &c.variables))
        c.clientSecret = value->toUtf8();
    return true;
}

// Form fields the token endpoint asks for beyond the standard ones; none may replace
// a field of the request itself.
void readExtraParameters(const QJsonObject &o, const QString &path, const Substitution &subst,
                         JsonReader &r, CredentialConfig &c)
{
    const QString extraPath = JsonReader::join(path, QStringLiteral("extra_parameters"));
    if (!r.ok() || !o.contains(QStringLiteral("extra_parameters")))
        return;
    const auto extra = r.object(o.value(QStringLiteral("extra_parameters")), extraPath);
    if (!extra)
        return;
    for (auto it = extra->begin(); it != extra->end() && r.ok(); ++it) {
        const QString fieldPath = JsonReader::join(extraPath, it.key());
        if (it.key().isEmpty() || kReservedFormFields.contains(it.key())) {
            r.fail(fieldPath, Text::tr("this form field is the token request's own"));
            break;
        }
        if (!it.value().isString()) {
            r.fail(fieldPath, Text::tr("expected a string"));
            break;
        }
        if (const auto v = fixedText(it.value().toString(), fieldPath, subst, r, &c.variables))
            c.extraParameters.append({it.key(), *v});
    }
}

// oauth2_client_credentials (RFC 6749, 4.4): the token request, and how the token
// endpoint itself is reached.
void readOAuthClient(const QJsonObject &o, const QString &path, const Substitution &subst,
                     JsonReader &r, const QDir &base, CredentialConfig &c)
{
    readTokenEndpoint(o, path, subst, r, c);
    if (!readClientAuthentication(o, path, subst, r, base, c))
        return;
    for (const QString &key : {QStringLiteral("scope"), QStringLiteral("audience")}) {
        const QString written = r.string(o, key, path, false);
        const auto resolved =
            fixedText(written, JsonReader::join(path, key), subst, r, &c.variables);
        (key == QLatin1String("scope") ? c.scope : c.audience) = resolved.value_or(QString());
    }
    readExtraParameters(o, path, subst, r, c);
    c.defaultLifetimeSeconds =
        r.number(o, QStringLiteral("default_lifetime_seconds"), path, 1, 366.0 * 86400, 3600);
    c.tokenTimeoutSeconds = r.number(o, QStringLiteral("timeout_seconds"), path, 0.001, 3600, 30);
    c.tls = r.string(o, QStringLiteral("tls"), path, false);
    c.proxy = readProxy(o, path, subst, r, &c.variables);
}

void readBearer(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
                CredentialConfig &c)
{
    if (const auto token = secret(o, QStringLiteral("token"), path, true, subst, r, &c.variables)) {
        c.headerName = "Authorization";
        c.headerValue = "Bearer " + token->toUtf8();
    }
}

// The user may be written as it is; the password is a secret, from the environment.
void readBasic(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
               CredentialConfig &c)
{
    const QString userPath = JsonReader::join(path, QStringLiteral("username"));
    const QString written = r.string(o, QStringLiteral("username"), path, true);
    if (r.ok() && written.contains(QLatin1String("${")) &&
        !envOnlyPattern().match(written).hasMatch()) {
        r.fail(userPath, Text::tr("expected a user name as it is, or ${env:NAME}"));
        return;
    }
    const auto user = fixedText(written, userPath, subst, r, &c.variables);
    if (!user)
        return;
    if (user->isEmpty() || user->contains(QLatin1Char(':'))) {
        // RFC 7617: the first ':' ends the user.
        r.fail(userPath, Text::tr("expected a user name without ':'"));
        return;
    }
    if (const auto password =
            secret(o, QStringLiteral("password"), path, true, subst, r, &c.variables)) {
        c.headerName = "Authorization";
        c.headerValue = "Basic " + (*user + QLatin1Char(':') + *password).toUtf8().toBase64();
    }
}

// A header of the credential's own name; its value must hold a ${env:NAME} reference,
// so that no secret is written in the file.
void readHeader(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
                CredentialConfig &c)
{
    const QString namePath = JsonReader::join(path, QStringLiteral("name"));
    const QString name = r.string(o, QStringLiteral("name"), path, true);
    if (r.ok() && !isToken(name)) {
        r.fail(namePath, Text::tr("not a valid header name"));
        return;
    }
    const QString valuePath = JsonReader::join(path, QStringLiteral("value"));
    const QString written = r.string(o, QStringLiteral("value"), path, true);
    static const QRegularExpression kEnv(QStringLiteral(R"(\$\{env:[A-Za-z0-9_.]+\})"));
    if (r.ok() && !written.contains(kEnv)) {
        r.fail(valuePath, Text::tr("expected a ${env:NAME} reference in the value: a secret "
                                   "is read from the environment, never written in the "
                                   "file"));
        return;
    }
    const auto value = fixedText(written, valuePath, subst, r, &c.variables);
    if (!value)
        return;
    if (value->contains(QLatin1Char('\r')) || value->contains(QLatin1Char('\n'))) {
        r.fail(valuePath, Text::tr("header values cannot contain line breaks (from %1)")
                              .arg(c.variables.join(QStringLiteral(", "))));
        return;
    }
    c.headerName = name.toLatin1();
    c.headerValue = value->toUtf8();
}

// A credential: its type first, since the type decides which keys are known, then its
// id, then what that type of credential reads.
void readCredential(const QJsonObject &o, const QString &path, const Substitution &subst,
                    JsonReader &r, const QDir &base, CredentialConfig &c)
{
    if (!readCredentialType(o, path, r, c))
        return;
    r.checkKnownKeys(o, path, credentialKeys(c.type));
    c.id = r.string(o, QStringLiteral("id"), path, true);
    static const QRegularExpression kId(idPattern());
    if (r.ok() && !kId.match(c.id).hasMatch())
        r.fail(JsonReader::join(path, QStringLiteral("id")),
               Text::tr("expected 1-64 letters, digits, '.', '_' or '-'"));
    if (!r.ok())
        return;

    switch (c.type) {
    case CredentialConfig::Type::OAuth2ClientCredentials:
        readOAuthClient(o, path, subst, r, base, c);
        break;
    case CredentialConfig::Type::Bearer:
        readBearer(o, path, subst, r, c);
        break;
    case CredentialConfig::Type::Basic:
        readBasic(o, path, subst, r, c);
        break;
    case CredentialConfig::Type::Header:
        readHeader(o, path, subst, r, c);
        break;
    }
}

// An endpoint's or an alert target's "credentials", "tls" and "proxy".
void readConnection(const QJsonObject &o, const QString &path, const Substitution &subst,
                    JsonReader &r, EndpointConfig &e)
{
    e.credentials = r.string(o, QStringLiteral("credentials"), path, false);
    e.tls = r.string(o, QStringLiteral("tls"), path, false);
    e.proxy = readProxy(o, path, subst, r);
}

// Whether the references of an endpoint or alert target name what the workspace has,
// and its own headers leave the credential's header to it.
void checkConnection(const WorkspaceConfig &config, const EndpointConfig &e, const QString &path,
                     JsonReader &r)
{
    if (!r.ok())
        return;
    if (!e.credentials.isEmpty()) {
        const CredentialConfig *c = config.credential(e.credentials);
        const QString credentialsPath = JsonReader::join(path, QStringLiteral("credentials"));
        if (!c) {
            r.fail(credentialsPath, Text::tr("no credentials with id '%1'").arg(e.credentials));
            return;
        }
        const QByteArray header = c->isOAuth() ? QByteArray("Authorization") : c->headerName;
        if (e.headerTemplates.contains(header)) {
            r.fail(credentialsPath,
                   Text::tr("the headers already set %1, which the credentials '%2' send")
                       .arg(QString::fromLatin1(header), c->id));
            return;
        }
    }
    if (!e.tls.isEmpty() && !config.tlsConfig(e.tls))
        r.fail(JsonReader::join(path, QStringLiteral("tls")),
               Text::tr("no tls entry with id '%1'").arg(e.tls));
}

// What an answer must say, and how long it may take (docs/checks.md).
void readChecks(const QJsonObject &o, const QString &path, JsonReader &r, EndpointConfig &e)
{
    if (o.contains(QStringLiteral("expect"))) {
        auto expect = std::make_shared<Expectation>(
            readExpectation(o.value(QStringLiteral("expect")),
                            JsonReader::join(path, QStringLiteral("expect")), r));
        if (r.ok() && !expect->isEmpty())
            e.expect = std::move(expect);
    }
    e.latencyBudgetMs =
        qint64(r.number(o, QStringLiteral("latency_budget_ms"), path, 1, 3'600'000, 0, true));
    const QString window = QStringLiteral("latency_window_seconds");
    e.latencyWindowMs = qint64(r.number(o, window, path, 10, 86'400, 300, true)) * 1000;
    if (r.ok() && o.contains(window) && e.latencyBudgetMs <= 0)
        r.fail(JsonReader::join(path, window),
               Text::tr("only with latency_budget_ms: it is the span the p95 is judged over"));
}

void readEndpoint(const QJsonObject &o, const QString &path, const Substitution &subst,
                  JsonReader &r, int pauseAfterFailures, EndpointConfig &e)
{
    r.checkKnownKeys(o, path, kEndpointKeys);
    e.id = r.string(o, QStringLiteral("id"), path, true);
    static const QRegularExpression kId(idPattern());
    if (r.ok() && !kId.match(e.id).hasMatch())
        r.fail(JsonReader::join(path, QStringLiteral("id")),
               Text::tr("expected 1-64 letters, digits, '.', '_' or '-'"));
    e.name = r.string(o, QStringLiteral("name"), path, false, e.id);
    // Where `cooldown import` took it from (docs/import.md): a re-import of the same
    // source updates it; the engine does not read it.
    e.importedFrom = r.string(o, QStringLiteral("imported_from"), path, false);

    const QString method =
        r.string(o, QStringLiteral("method"), path, false, QStringLiteral("GET"));
    if (r.ok() && !isToken(method))
        r.fail(JsonReader::join(path, QStringLiteral("method")),
               Text::tr("expected an HTTP method"));
    e.method = method.toUpper().toLatin1();

    readTarget(o, path, subst, r, e);
    readConnection(o, path, subst, r, e);

    const QString bodyPath = JsonReader::join(path, QStringLiteral("body"));
    if (o.contains(QStringLiteral("body"))) {
        const QString body = r.string(o, QStringLiteral("body"), path, false);
        if (const auto resolved = r.ok() ? subst.apply(body, bodyPath, r) : std::nullopt) {
            e.body = resolved->toUtf8();
            notePlaceholders(*resolved, e);
        }
    }

    e.everySeconds =
        int(r.number(o, QStringLiteral("every_seconds"), path, 0, 366 * 86400, 0, true));
    if (o.contains(QStringLiteral("catch_up"))) {
        const QString catchUp = r.string(o, QStringLiteral("catch_up"), path, false);
        if (r.ok() && catchUp != QLatin1String("one") && catchUp != QLatin1String("none"))
            r.fail(JsonReader::join(path, QStringLiteral("catch_up")),
                   Text::tr("expected \"one\" (missed ticks run once) or \"none\" (they are "
                            "skipped)"));
        else if (r.ok() && e.everySeconds <= 0)
            r.fail(JsonReader::join(path, QStringLiteral("catch_up")),
                   Text::tr("only a periodic endpoint (every_seconds) has ticks to catch up"));
        e.catchUp = catchUp != QLatin1String("none");
    }
    e.timeoutSeconds = r.number(o, QStringLiteral("timeout_seconds"), path, 0.001, 3600, 30);
    e.slaTarget = r.number(o, QStringLiteral("sla_target"), path, 0, 100, -1);
    e.policy = r.string(o, QStringLiteral("policy"), path, false);
    e.partitionKey = r.string(o, QStringLiteral("partition_key"), path, false);
    notePlaceholders(e.partitionKey, e);
    e.retry = r.string(o, QStringLiteral("retry"), path, false, QStringLiteral("default"));
    e.enqueueOnly = r.boolean(o, QStringLiteral("enqueue_only"), path, false);
    e.pauseAfterFailures = int(r.number(o, QStringLiteral("pause_after_failures"), path, 1,
                                        kMaxPauseAfterFailures, pauseAfterFailures, true));
    if (r.ok() && !e.jobFields.isEmpty()) {
        if (o.contains(QStringLiteral("enqueue_only")) && !e.enqueueOnly)
            r.fail(JsonReader::join(path, QStringLiteral("enqueue_only")),
                   Text::tr("an endpoint with ${job:NAME} placeholders runs only enqueued "
                            "jobs"));
        else if (e.everySeconds > 0)
            r.fail(JsonReader::join(path, QStringLiteral("every_seconds")),
                   Text::tr("an endpoint with ${job:NAME} placeholders runs only enqueued "
                            "jobs, not periodically"));
        e.enqueueOnly = true;
    }
    if (r.ok() && e.enqueueOnly && e.everySeconds > 0)
        r.fail(JsonReader::join(path, QStringLiteral("every_seconds")),
               Text::tr("an endpoint that runs only enqueued jobs cannot run periodically"));

    const QJsonValue idem = o.value(QStringLiteral("idempotency"));
    const QString idemPath = JsonReader::join(path, QStringLiteral("idempotency"));
    if (!idem.isUndefined()) {
        if (const auto io = r.object(idem, idemPath)) {
            r.checkKnownKeys(*io, idemPath,
                             {QStringLiteral("header"), QStringLiteral("key_valid_seconds")});
            const QString header = r.string(*io, QStringLiteral("header"), idemPath, true);
            if (r.ok() && !isToken(header))
                r.fail(JsonReader::join(idemPath, QStringLiteral("header")),
                       Text::tr("not a valid header name"));
            e.idempotencyHeader = header.toLatin1();
            e.keyValidSeconds =
                r.number(*io, QStringLiteral("key_valid_seconds"), idemPath, 1, 366.0 * 86400, 0);
        }
    }
    readChecks(o, path, r, e);
}

// Every event an alert target may hear of.
const AlertEvent kAlertEvents[] = {
    AlertEvent::OperationFailed, AlertEvent::EndpointPaused,     AlertEvent::PartitionHeld,
    AlertEvent::PolicyDrift,     AlertEvent::CredentialsRefused, AlertEvent::LatencyDegraded,
    AlertEvent::Incident};

// Every event an alert target may hear of, as the file names them.
QString alertEventNames()
{
    QStringList names;
    for (const AlertEvent e : kAlertEvents)
        names.append(QLatin1String(textOf(e)));
    return names.join(QStringLiteral(", "));
}

// An alert target: a webhook that hears of events, sent through the engine as a POST
// of JSON with its own idempotency key.
void readAlert(const QJsonObject &o, const QString &path, const Substitution &subst, JsonReader &r,
               AlertConfig &a)
{
    r.checkKnownKeys(o, path, kAlertKeys);
    a.id = r.string(o, QStringLiteral("id"), path, true);
    static const QRegularExpression kId(idPattern());
    if (r.ok() && !kId.match(a.id).hasMatch())
        r.fail(JsonReader::join(path, QStringLiteral("id")),
               Text::tr("expected 1-64 letters, digits, '.', '_' or '-'"));
    EndpointConfig &e = a.target;
    e.id = alertEndpointId(a.id);
    e.name = Text::tr("Alert %1").arg(a.id);
    e.method = "POST";
    readTarget(o, path, subst, r, e);
    readConnection(o, path, subst, r, e);
    if (r.ok() && !e.jobFields.isEmpty())
        r.fail(path, Text::tr("an alert target cannot hold ${job:NAME} placeholders"));
    if (!e.headers.contains("Content-Type")) {
        e.headers.append("Content-Type", "application/json");
        e.headerTemplates.append("Content-Type", "application/json");
    }
    e.idempotencyHeader = "Idempotency-Key";
    e.timeoutSeconds = r.number(o, QStringLiteral("timeout_seconds"), path, 0.001, 3600, 10);
    e.retry = r.string(o, QStringLiteral("retry"), path, false, QStringLiteral("default"));
    a.heldLongerThanSeconds =
        r.number(o, QStringLiteral("held_longer_than_seconds"), path, 0, 366 * 86400, 60);
    a.minIntervalSeconds =
        r.number(o, QStringLiteral("min_interval_seconds"), path, 0, 366 * 86400, 300);
    const QString eventsPath = JsonReader::join(path, QStringLiteral("events"));
    if (!r.ok())
        return;
    if (!o.contains(QStringLiteral("events"))) {
        r.fail(eventsPath, Text::tr("required, expected a list of: %1").arg(alertEventNames()));
        return;
    }
    if (const auto events = r.array(o.value(QStringLiteral("events")), eventsPath)) {
        if (events->isEmpty())
            r.fail(eventsPath, Text::tr("expected at least one event"));
        for (qsizetype i = 0; i < events->size() && r.ok(); ++i) {
            const auto event = alertEventFromString(events->at(i).toString());
            if (!events->at(i).isString() || !event) {
                r.fail(JsonReader::index(eventsPath, i),
                       Text::tr("expected one of: %1").arg(alertEventNames()));
                break;
            }
            if (!a.events.contains(*event))
                a.events.append(*event);
        }
    }
}

// Each object of the list at top[key], in order, with its JSON path; stops at the
// first error.
template <typename ReadEntry>
void forEachEntry(const QJsonObject &top, const QString &key, JsonReader &r, ReadEntry readEntry)
{
    if (!r.ok() || !top.contains(key))
        return;
    if (const auto entries = r.array(top.value(key), key)) {
        for (qsizetype i = 0; i < entries->size() && r.ok(); ++i) {
            const QString entryPath = JsonReader::index(key, i);
            const auto o = r.object(entries->at(i), entryPath);
            if (!o)
                break;
            readEntry(*o, entryPath);
        }
    }
}

// The "tls", "proxy" and "credentials" sections of the workspace.
void readConnectionSections(const QJsonObject &top, const QString &sourceName,
                            const Substitution &subst, JsonReader &r, WorkspaceConfig &config)
{
    // Key material sits beside the workspace file that names it.
    const QDir base = QFileInfo(sourceName).absoluteDir();
    const auto duplicate = [&r](const QString &entryPath, const QString &id) {
        r.fail(JsonReader::join(entryPath, QStringLiteral("id")),
               Text::tr("duplicate id '%1'").arg(id));
    };
    forEachEntry(top, QStringLiteral("tls"), r, [&](const QJsonObject &o, const QString &path) {
        TlsConfig t;
        readTls(o, path, subst, r, base, t);
        if (r.ok() && config.tlsConfig(t.id))
            duplicate(path, t.id);
        if (r.ok())
            config.tls.append(t);
    });

    config.proxy = readProxy(top, QString(), subst, r);
    if (config.proxy.kind == ProxyConfig::Kind::Inherit)
        config.proxy.kind = ProxyConfig::Kind::None;

    forEachEntry(top, QStringLiteral("credentials"), r,
                 [&](const QJsonObject &o, const QString &path) {
                     CredentialConfig c;
                     readCredential(o, path, subst, r, base, c);
                     if (r.ok() && config.credential(c.id))
                         duplicate(path, c.id);
                     if (r.ok() && !c.tls.isEmpty() && !config.tlsConfig(c.tls))
                         r.fail(JsonReader::join(path, QStringLiteral("tls")),
                                Text::tr("no tls entry with id '%1'").arg(c.tls));
                     if (r.ok())
                         config.credentials.append(c);
                 });
}

// Proxies and the token requests' roads, once every reference is known to be good; and
// the warnings of what weakens TLS.
void resolveConnections(WorkspaceConfig &config)
{
    QList<EndpointConfig *> users; // in file order: endpoints, then alert targets
    for (EndpointConfig &e : config.endpoints)
        users.append(&e);
    for (AlertConfig &a : config.alerts)
        users.append(&a.target);
    for (EndpointConfig *e : std::as_const(users)) {
        if (e->proxy.kind == ProxyConfig::Kind::Inherit)
            e->proxy = config.proxy;
    }
    for (CredentialConfig &c : config.credentials) {
        // The token request goes the way of the API it serves: a token endpoint behind
        // the same proxy and CA as that API is the common case, and the one that fails
        // confusingly when it is forgotten.
        const auto first =
            std::find_if(users.cbegin(), users.cend(),
                         [&c](const EndpointConfig *e) { return e->credentials == c.id; });
        const bool ownProxy = c.proxy.kind != ProxyConfig::Kind::Inherit;
        if (c.tls.isEmpty() && first != users.cend())
            c.tls = (*first)->tls;
        if (!ownProxy)
            c.proxy = first != users.cend() ? (*first)->proxy : config.proxy;
    }
    for (const TlsConfig &t : std::as_const(config.tls)) {
        if (t.verifyHostname && t.verifyCertificate)
            continue;
        QStringList names;
        for (const EndpointConfig *e : std::as_const(users)) {
            if (e->tls == t.id)
                names.append(e->id);
        }
        for (const CredentialConfig &c : std::as_const(config.credentials)) {
            if (c.isOAuth() && c.tls == t.id)
                names.append(Text::tr("the token requests of credentials %1").arg(c.id));
        }
        const QString what =
            t.verifyCertificate
                ? Text::tr("tls '%1' does not verify host names (verify_hostname: false)").arg(t.id)
                : Text::tr("tls '%1' does not verify certificates at all (verify_certificate: "
                           "false): anyone on the way can read and change the exchanges")
                      .arg(t.id);
        config.warnings.append(
            names.isEmpty() ? Text::tr("%1; no endpoint uses it").arg(what)
                            : Text::tr("%1, for: %2").arg(what, names.join(QStringLiteral(", "))));
    }
}

} // namespace

const EndpointConfig *WorkspaceConfig::endpoint(const QString &id) const
{
    for (const EndpointConfig &e : endpoints) {
        if (e.id == id)
            return &e;
    }
    return nullptr;
}

const CredentialConfig *WorkspaceConfig::credential(const QString &id) const
{
    for (const CredentialConfig &c : credentials) {
        if (c.id == id)
            return &c;
    }
    return nullptr;
}

const TlsConfig *WorkspaceConfig::tlsConfig(const QString &id) const
{
    for (const TlsConfig &t : tls) {
        if (t.id == id)
            return &t;
    }
    return nullptr;
}

const char *textOf(AlertEvent event)
{
    switch (event) {
    case AlertEvent::OperationFailed:
        return "operation_failed";
    case AlertEvent::EndpointPaused:
        return "endpoint_paused";
    case AlertEvent::PartitionHeld:
        return "partition_held";
    case AlertEvent::PolicyDrift:
        return "policy_drift";
    case AlertEvent::CredentialsRefused:
        return "credentials_refused";
    case AlertEvent::LatencyDegraded:
        return "latency_degraded";
    case AlertEvent::Incident:
        return "incident";
    }
    return "operation_failed";
}

std::optional<AlertEvent> alertEventFromString(QStringView text)
{
    for (const AlertEvent e : kAlertEvents) {
        if (text == QLatin1String(textOf(e)))
            return e;
    }
    return std::nullopt;
}

QString alertEndpointId(const QString &alertId)
{
    return QStringLiteral("alert:") + alertId;
}

const RateLimitPolicy *WorkspaceConfig::policy(const QString &policyId) const
{
    for (const RateLimitPolicy &p : policies) {
        if (p.policyId == policyId)
            return &p;
    }
    return nullptr;
}

QHash<QString, QString> WorkspaceConfig::demoVariables(const QUrl &baseUrl)
{
    QString url = baseUrl.toString();
    while (url.endsWith(QLatin1Char('/')))
        url.chop(1);
    return {{QStringLiteral("demo:base_url"), url}};
}

QStringList WorkspaceConfig::secretValues() const
{
    QStringList out;
    auto add = [&out](const QByteArray &value) {
        if (!value.isEmpty())
            out.append(QString::fromUtf8(value));
    };
    for (const CredentialConfig &c : credentials) {
        add(c.clientSecret);
        add(c.headerValue);
        // "Bearer abc" or "Basic abc": the credentials without their scheme too.
        const qsizetype space = c.headerValue.indexOf(' ');
        if (space > 0)
            add(c.headerValue.mid(space + 1).trimmed());
        if (c.type == CredentialConfig::Type::Basic && space > 0) {
            const QByteArray pair = QByteArray::fromBase64(c.headerValue.mid(space + 1).trimmed());
            add(pair);
            add(pair.mid(pair.indexOf(':') + 1));
        }
    }
    add(api.token);
    return out;
}

RetryProfile WorkspaceConfig::retryProfile(const QString &name) const
{
    return retryProfiles.value(name, RetryProfile());
}

std::optional<WorkspaceConfig> WorkspaceConfig::load(const QString &path, QString *error,
                                                     const QHash<QString, QString> &variables)
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
    return parse(file.readAll(), path, error, variables);
}

namespace {

// The phases of WorkspaceConfig::parse, in the order they run: each later one may name
// what an earlier one read (an endpoint names a policy, a retry profile and its
// connection settings; a maintenance window names endpoints).

void readVersion(const QJsonObject &top, JsonReader &r)
{
    if (r.ok() && !top.contains(QStringLiteral("version")))
        r.fail(QStringLiteral("version"),
               Text::tr("required, expected %1").arg(WorkspaceConfig::kVersion));
    const double version = r.number(top, QStringLiteral("version"), QString(), 1, 1000000, 0, true);
    if (r.ok() && version != WorkspaceConfig::kVersion)
        r.fail(QStringLiteral("version"),
               Text::tr("this build reads version %1, the file is version %2")
                   .arg(WorkspaceConfig::kVersion)
                   .arg(version));
}

void readLimits(const QJsonObject &top, JsonReader &r, WorkspaceConfig &config)
{
    if (top.contains(QStringLiteral("concurrency"))) {
        const QString path = QStringLiteral("concurrency");
        if (const auto c = r.object(top.value(path), path)) {
            r.checkKnownKeys(*c, path,
                             {QStringLiteral("max_in_flight"), QStringLiteral("per_host")});
            config.concurrency.maxInFlight =
                int(r.number(*c, QStringLiteral("max_in_flight"), path, 1, 1024, 8, true));
            // The fleet's: several workers may have more than the 6 connections one
            // process keeps to a host.
            config.concurrency.perHost =
                int(r.number(*c, QStringLiteral("per_host"), path, 1, 1024, 6, true));
        }
    }
    if (top.contains(QStringLiteral("retention"))) {
        const QString path = QStringLiteral("retention");
        if (const auto c = r.object(top.value(path), path)) {
            r.checkKnownKeys(*c, path,
                             {QStringLiteral("raw_days"), QStringLiteral("rollup_days"),
                              QStringLiteral("kept_exchanges"), QStringLiteral("kept_body_bytes")});
            config.retention.keptExchanges =
                int(r.number(*c, QStringLiteral("kept_exchanges"), path, 0, 1000, 20, true));
            config.retention.keptBodyBytes = int(
                r.number(*c, QStringLiteral("kept_body_bytes"), path, 0, 1024 * 1024, 16384, true));
            config.retention.rawDays =
                int(r.number(*c, QStringLiteral("raw_days"), path, 0, 36500, 30, true));
            config.retention.rollupDays =
                int(r.number(*c, QStringLiteral("rollup_days"), path, 0, 36500, 400, true));
        }
    }
    if (top.contains(QStringLiteral("incidents"))) {
        const QString path = QStringLiteral("incidents");
        if (const auto c = r.object(top.value(path), path)) {
            r.checkKnownKeys(
                *c, path, {QStringLiteral("min_integrations"), QStringLiteral("window_seconds")});
            config.incidents.minIntegrations =
                int(r.number(*c, QStringLiteral("min_integrations"), path, 2, 10000, 3, true));
            config.incidents.windowSeconds =
                r.number(*c, QStringLiteral("window_seconds"), path, 10, 86400, 300);
        }
    }
}

void readPolicies(const QJsonObject &top, JsonReader &r, WorkspaceConfig &config)
{
    const QString path = QStringLiteral("policies");
    if (!top.contains(path))
        return;
    if (const auto policies = r.array(top.value(path), path)) {
        QString why;
        if (const auto list = RateLimitPolicy::listFromJson(*policies, path, &why))
            config.policies = *list;
        else
            r.fail(QString(), why);
    }
}

void readRetryProfiles(const QJsonObject &top, JsonReader &r, WorkspaceConfig &config)
{
    config.retryProfiles.insert(QStringLiteral("default"), RetryProfile());
    const QString path = QStringLiteral("retry_profiles");
    if (!top.contains(path))
        return;
    const auto profiles = r.object(top.value(path), path);
    for (auto it = profiles ? profiles->begin() : QJsonObject::const_iterator();
         profiles && it != profiles->end() && r.ok(); ++it) {
        const QString profilePath = JsonReader::join(path, it.key());
        const auto fields = r.object(it.value(), profilePath);
        if (!fields)
            break;
        RetryProfile profile;
        for (auto f = fields->begin(); f != fields->end(); ++f) {
            QString why;
            if (!profile.setField(f.key(), f.value(), &why)) {
                r.fail(JsonReader::join(profilePath, f.key()), why);
                break;
            }
        }
        if (r.ok() && profile.capSeconds < profile.baseSeconds)
            r.fail(JsonReader::join(profilePath, QStringLiteral("cap_seconds")),
                   Text::tr("expected at least base_seconds (%1)").arg(profile.baseSeconds));
        config.retryProfiles.insert(it.key(), profile);
    }
}

// One endpoint's references to the rest of the workspace, once it is read.
void checkEndpointNames(const WorkspaceConfig &config, const EndpointConfig &e,
                        const QString &endpointPath, const QSet<QString> &ids, JsonReader &r)
{
    if (ids.contains(e.id))
        r.fail(JsonReader::join(endpointPath, QStringLiteral("id")),
               Text::tr("duplicate id '%1'").arg(e.id));
    else if (!config.retryProfiles.contains(e.retry))
        r.fail(JsonReader::join(endpointPath, QStringLiteral("retry")),
               Text::tr("no retry profile named '%1'").arg(e.retry));
    else if (!e.policy.isEmpty() && !config.policy(e.policy))
        r.fail(JsonReader::join(endpointPath, QStringLiteral("policy")),
               Text::tr("no policy with policy_id '%1'").arg(e.policy));
    else
        checkConnection(config, e, endpointPath, r);
}

void readEndpoints(const QJsonObject &top, const Substitution &subst, JsonReader &r,
                   WorkspaceConfig &config)
{
    const QString path = QStringLiteral("endpoints");
    if (r.ok() && !top.contains(path))
        r.fail(path, Text::tr("required, expected an array of endpoints"));
    const auto endpoints = r.array(top.value(path), path);
    if (!endpoints)
        return;
    if (endpoints->isEmpty())
        r.fail(path, Text::tr("expected at least one endpoint"));
    QSet<QString> ids;
    for (qsizetype i = 0; i < endpoints->size() && r.ok(); ++i) {
        const QString endpointPath = JsonReader::index(path, i);
        const auto o = r.object(endpoints->at(i), endpointPath);
        if (!o)
            break;
        EndpointConfig e;
        readEndpoint(*o, endpointPath, subst, r, config.pauseAfterFailures, e);
        if (r.ok())
            checkEndpointNames(config, e, endpointPath, ids, r);
        if (!r.ok())
            break;
        ids.insert(e.id);
        config.endpoints.append(e);
    }
    // Keys are stored, shown and exported (docs/intake.md).
    for (qsizetype i = 0; i < config.endpoints.size() && r.ok(); ++i) {
        const QString &key = config.endpoints.at(i).partitionKey;
        const QString problem =
            jobtemplate::placeholders(key).isEmpty() ? partitionKeyProblem(config, key) : QString();
        if (!problem.isEmpty())
            r.fail(JsonReader::join(JsonReader::index(path, i), QStringLiteral("partition_key")),
                   problem);
    }
}

void readAlerts(const QJsonObject &top, const Substitution &subst, JsonReader &r,
                WorkspaceConfig &config)
{
    const QString path = QStringLiteral("alerts");
    if (!r.ok() || !top.contains(path))
        return;
    const auto alerts = r.array(top.value(path), path);
    QSet<QString> ids;
    for (qsizetype i = 0; alerts && i < alerts->size() && r.ok(); ++i) {
        const QString alertPath = JsonReader::index(path, i);
        const auto o = r.object(alerts->at(i), alertPath);
        if (!o)
            break;
        AlertConfig a;
        readAlert(*o, alertPath, subst, r, a);
        if (!r.ok())
            break;
        if (ids.contains(a.id)) {
            r.fail(JsonReader::join(alertPath, QStringLiteral("id")),
                   Text::tr("duplicate id '%1'").arg(a.id));
            break;
        }
        ids.insert(a.id);
        if (!config.retryProfiles.contains(a.target.retry)) {
            r.fail(JsonReader::join(alertPath, QStringLiteral("retry")),
                   Text::tr("no retry profile named '%1'").arg(a.target.retry));
            break;
        }
        checkConnection(config, a.target, alertPath, r);
        config.alerts.append(a);
    }
}

} // namespace

std::optional<WorkspaceConfig>
WorkspaceConfig::parse(const QByteArray &json, const QString &sourceName, QString *error,
                       const QHash<QString, QString> &variables,
                       const std::optional<QHash<QString, QString>> &environment)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        *error =
            QStringLiteral("%1: %2: %3")
                .arg(sourceName, lineAndColumn(json, parseError.offset), parseError.errorString());
        return std::nullopt;
    }

    QString problem;
    JsonReader r(&problem);
    const QHash<QString, QString> env = environment ? *environment : processEnvironment();
    const Substitution subst(variables, env);
    WorkspaceConfig config;
    config.sourceName = sourceName;

    const auto top =
        r.object(doc.isObject() ? QJsonValue(doc.object()) : QJsonValue(), QStringLiteral("$"));
    if (top) {
        r.checkKnownKeys(*top, QString(), kTopKeys);
        readVersion(*top, r);
        readLimits(*top, r, config);
        if (top->contains(QStringLiteral("api"))) {
            const QString path = QStringLiteral("api");
            if (const auto c = r.object(top->value(path), path))
                readApi(*c, path, subst, r, config.api);
        }
        readPolicies(*top, r, config);
        readRetryProfiles(*top, r, config);
        // Before the endpoints: it is the default of theirs.
        config.pauseAfterFailures = int(r.number(*top, QStringLiteral("pause_after_failures"),
                                                 QString(), 1, kMaxPauseAfterFailures, 0, true));
        // Before the endpoints and alerts, which name them.
        readConnectionSections(*top, sourceName, subst, r, config);
        readEndpoints(*top, subst, r, config);
        readAlerts(*top, subst, r, config);
        // After the endpoints, which the windows name.
        const QString maintenance = QStringLiteral("maintenance");
        if (r.ok() && top->contains(maintenance))
            config.maintenance =
                readMaintenance(top->value(maintenance), maintenance, config.endpoints, r);
    }

    if (r.ok())
        resolveConnections(config);

    if (!r.ok()) {
        *error = QStringLiteral("%1: %2").arg(sourceName, problem);
        return std::nullopt;
    }
    return config;
}

} // namespace cooldown
