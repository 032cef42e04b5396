// SPDX-License-Identifier: Apache-2.0
// The credentials, tls and proxy sections of the workspace loader (docs/credentials.md):
// the input is a whole config file, read with a fixed environment so that a crash
// reproduces from its input alone. Beyond not crashing, no secret of that environment
// may reach a message, a warning or a proxy's key unless the input itself wrote it.

#include "FuzzCheck.h"

#include "core/config/WorkspaceConfig.h"

#include <QSet>

using namespace cooldown;

COOLDOWN_FUZZ_SILENCE_QT

namespace {

const QStringList kSecrets = {QStringLiteral("fuzz-client-secret"),
                              QStringLiteral("fuzz-proxy-password"),
                              QStringLiteral("fuzz-passphrase")};

// Whether text shows a secret the input did not write itself.
bool leaks(const QString &text, const QString &input)
{
    for (const QString &secret : kSecrets) {
        if (text.contains(secret) && !input.contains(secret))
            return true;
    }
    return false;
}

void checkProxy(const ProxyConfig &proxy, const QString &input)
{
    FUZZ_CHECK(proxy.kind != ProxyConfig::Kind::Inherit);
    FUZZ_CHECK(!leaks(proxy.key(), input));
    if (proxy.kind != ProxyConfig::Kind::Explicit) {
        FUZZ_CHECK(proxy.noProxy.isEmpty());
        return;
    }
    // An https:// proxy (TLS to the proxy itself) is refused at load: Qt cannot speak it.
    const QString scheme = proxy.url.scheme();
    FUZZ_CHECK(scheme == QLatin1String("http") || scheme == QLatin1String("socks5"));
    FUZZ_CHECK(proxy.url.isValid() && !proxy.url.host().isEmpty() && proxy.url.port() > 0);
    for (const QString &entry : proxy.noProxy)
        FUZZ_CHECK(!entry.isEmpty());
    // Must not crash on any host, the entries' own included.
    proxy.bypasses(proxy.url.host());
    for (const QString &entry : proxy.noProxy)
        proxy.bypasses(entry);
}

void checkConnection(const WorkspaceConfig &config, const EndpointConfig &e, const QString &input)
{
    FUZZ_CHECK(e.credentials.isEmpty() || config.credential(e.credentials) != nullptr);
    FUZZ_CHECK(e.tls.isEmpty() || config.tlsConfig(e.tls) != nullptr);
    checkProxy(e.proxy, input);
    for (const auto &field : e.headerTemplates.fields())
        FUZZ_CHECK(!leaks(QString::fromUtf8(field.second), input));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const QHash<QString, QString> environment = {
        {QStringLiteral("FUZZ_SECRET"), QStringLiteral("fuzz-client-secret")},
        {QStringLiteral("FUZZ_PROXY_PASS"), QStringLiteral("fuzz-proxy-password")},
        {QStringLiteral("FUZZ_PASS"), QStringLiteral("fuzz-passphrase")},
        {QStringLiteral("FUZZ_USER"), QStringLiteral("fuzz user")},
        {QStringLiteral("NEWLINE"), QStringLiteral("fuzz-client-secret\r\nX-Injected: 1")},
        {QStringLiteral("EMPTY"), QString()},
    };
    const QString source = QStringLiteral("fuzz.json");
    const QByteArray json = fuzz::bytes(data, size);
    const QString input = QString::fromUtf8(json);

    QString error;
    const auto config = WorkspaceConfig::parse(json, source, &error, {}, environment);
    if (!config) {
        FUZZ_CHECK(error.startsWith(source + QLatin1String(": ")));
        FUZZ_CHECK(!leaks(error, input));
        return 0;
    }
    FUZZ_CHECK(error.isEmpty());
    checkProxy(config->proxy, input);
    for (const QString &warning : config->warnings)
        FUZZ_CHECK(!leaks(warning, input));

    QSet<QString> ids;
    for (const CredentialConfig &c : config->credentials) {
        FUZZ_CHECK(!c.id.isEmpty() && !ids.contains(c.id));
        ids.insert(c.id);
        FUZZ_CHECK(c.tls.isEmpty() || config->tlsConfig(c.tls) != nullptr);
        checkProxy(c.proxy, input);
        for (const QString &variable : c.variables)
            FUZZ_CHECK(environment.contains(variable));
        if (c.isOAuth()) {
            FUZZ_CHECK(c.tokenUrl.isValid() && !c.tokenUrl.host().isEmpty());
            FUZZ_CHECK(c.tokenUrl.scheme() == QLatin1String("http") ||
                       c.tokenUrl.scheme() == QLatin1String("https"));
            FUZZ_CHECK(!c.clientId.isEmpty() && !c.clientSecret.isEmpty());
            FUZZ_CHECK(c.defaultLifetimeSeconds >= 1 && c.tokenTimeoutSeconds > 0);
            FUZZ_CHECK(!c.variables.isEmpty());
        } else {
            FUZZ_CHECK(!c.headerName.isEmpty() && !c.headerValue.isEmpty());
            FUZZ_CHECK(!c.headerValue.contains('\r') && !c.headerValue.contains('\n'));
            FUZZ_CHECK(!c.variables.isEmpty());
        }
    }
    ids.clear();
    for (const TlsConfig &t : config->tls) {
        FUZZ_CHECK(!t.id.isEmpty() && !ids.contains(t.id));
        ids.insert(t.id);
        FUZZ_CHECK(t.clientPkcs12.isEmpty() || t.clientKey.isEmpty());
        FUZZ_CHECK(t.clientCertificate.isEmpty() == t.clientKey.isEmpty());
    }
    for (const EndpointConfig &e : config->endpoints)
        checkConnection(*config, e, input);
    for (const AlertConfig &a : config->alerts)
        checkConnection(*config, a.target, input);
    return 0;
}
