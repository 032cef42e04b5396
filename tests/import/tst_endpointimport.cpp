// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"
#include "core/import/EndpointImport.h"
#include "core/import/ShellWords.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace cooldown;

// A curl request as a workspace endpoint: secrets out of what is written, the names to
// set in, and re-imports that update what they made and nothing else.
class tst_EndpointImport : public QObject
{
    Q_OBJECT

private:
    static ImportedEndpoint import(const QString &command, const CurlImportOptions &options = {})
    {
        QString error;
        const auto words = splitShellWords(command, &error);
        const auto request = words ? parseCurl(words->words, QString(), &error) : std::nullopt;
        if (!request)
            qFatal("%s", qPrintable(error));
        ImportedEndpoint e = endpointFromCurl(*request, options, &error);
        if (!error.isEmpty())
            qFatal("%s", qPrintable(error));
        return e;
    }
    static QString json(const QJsonObject &o)
    {
        return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
    }
    static QString names(const ImportedEndpoint &e)
    {
        QStringList out;
        for (const ImportVariable &v : e.variables)
            out.append(v.name);
        return out.join(QLatin1Char(','));
    }

private slots:
    void secretsBecomeReferences();
    void basicCredentials();
    void commandVariablesAreKept();
    void idsAndRunModes();
    void reimportUpdatesOnlyWhatItMade();
    void oneSourceTwiceInOneImportIsTwoEndpoints();
    void aCredentialWrittenByHandIsNeverReplaced();
};

void tst_EndpointImport::secretsBecomeReferences()
{
    const ImportedEndpoint e = import(QStringLiteral(
        "curl -X POST 'https://api.example.com/v1/orders?api_key=k-123&page=2' -H "
        "'Authorization: Bearer sk_live_1' -H 'X-Api-Key: abc' -H 'Idempotency-Key: ord-1' -H "
        "'Content-Type: application/json' -b 'sid=s3cr3t' -d '{\"item\":\"A\"}'"));
    const QString written = json(e.endpoint);
    for (const char *secret : {"k-123", "sk_live_1", "abc\"", "s3cr3t"})
        QVERIFY2(!written.contains(QLatin1String(secret)), qPrintable(written));
    QCOMPARE(e.endpoint.value("url").toString(),
             QStringLiteral("https://api.example.com/v1/orders?api_key=${env:POST_ORDERS_API_KEY}"
                            "&page=2"));
    const QJsonObject headers = e.endpoint.value("headers").toObject();
    QCOMPARE(headers.value("Authorization").toString(), "Bearer ${env:POST_ORDERS_TOKEN}");
    QCOMPARE(headers.value("X-Api-Key").toString(), "${env:POST_ORDERS_X_API_KEY}");
    QCOMPARE(headers.value("Cookie").toString(), "${env:POST_ORDERS_COOKIE}");
    // Not a secret: the key that makes a retry safe.
    QCOMPARE(headers.value("Idempotency-Key").toString(), "ord-1");
    QCOMPARE(e.endpoint.value("body").toString(), "{\"item\":\"A\"}");
    QCOMPARE(names(e), QStringLiteral("POST_ORDERS_API_KEY,POST_ORDERS_TOKEN,"
                                      "POST_ORDERS_X_API_KEY,POST_ORDERS_COOKIE"));
}

void tst_EndpointImport::basicCredentials()
{
    const QString basic = QString::fromLatin1(QByteArray("ops:pa55").toBase64());
    for (const QString &command :
         {QStringLiteral("curl -u ops:pa55 https://a.example/status"),
          QStringLiteral("curl -H 'Authorization: Basic %1' https://a.example/status")
              .arg(basic)}) {
        const ImportedEndpoint e =
            import(command, {QStringLiteral("status"), QStringLiteral("PLM"), 0});
        QVERIFY2(!json(e.endpoint).contains(QStringLiteral("pa55")), qPrintable(command));
        QCOMPARE(e.endpoint.value("credentials").toString(), "status-basic");
        QCOMPARE(e.credentials.size(), 1);
        QCOMPARE(json(e.credentials.first()),
                 QStringLiteral("{\"id\":\"status-basic\",\"password\":\"${env:PLM_PASSWORD}\","
                                "\"type\":\"basic\",\"username\":\"ops\"}"));
        QCOMPARE(names(e), QStringLiteral("PLM_PASSWORD"));
        QVERIFY(!e.endpoint.value("headers").toObject().contains("Authorization"));
    }
}

void tst_EndpointImport::commandVariablesAreKept()
{
    const ImportedEndpoint e = import(
        QStringLiteral("curl -H \"Authorization: Bearer $PARTNER_TOKEN\" https://a.example/x"));
    QCOMPARE(e.endpoint.value("headers").toObject().value("Authorization").toString(),
             "Bearer ${env:PARTNER_TOKEN}");
    QCOMPARE(e.variables.size(), 1);
    QCOMPARE(e.variables.first().name, "PARTNER_TOKEN");
    QVERIFY(e.variables.first().fromCommand);
}

void tst_EndpointImport::idsAndRunModes()
{
    ImportedEndpoint e = import(QStringLiteral("curl https://api.example.com/v2/health"));
    QCOMPARE(e.endpoint.value("id").toString(), "get-health");
    QVERIFY(!e.endpoint.contains("enqueue_only")); // a GET runs once
    e = import(QStringLiteral("curl -X DELETE https://api.example.com/v2/orders/12345"));
    QCOMPARE(e.endpoint.value("id").toString(), "delete-orders"); // not the number
    QCOMPARE(e.endpoint.value("enqueue_only").toBool(), true);
    e = import(QStringLiteral("curl https://api.example.com/"), {QString(), QString(), 60});
    QCOMPARE(e.endpoint.value("id").toString(), "get-api");
    QCOMPARE(e.endpoint.value("every_seconds").toInt(), 60);
    e = import(QStringLiteral("curl -k --compressed https://a.example/x"));
    QCOMPARE(e.notes.size(), 2);
    QVERIFY(e.notes.first().startsWith(QStringLiteral("-k: the server's certificate is not "
                                                      "checked (tls 'get-x-insecure'")));
    // -k is written down as what it is: a tls entry that checks no certificate.
    QCOMPARE(e.endpoint.value("tls").toString(), "get-x-insecure");
    QCOMPARE(e.tls.size(), 1);
    QCOMPARE(json(e.tls.first()),
             QStringLiteral("{\"id\":\"get-x-insecure\",\"verify_certificate\":false}"));
    WorkspaceDocument document(QJsonObject{{"version", 1}, {"endpoints", QJsonArray{}}});
    QList<ImportedEndpoint> list{e};
    mergeImport(document, list);
    QString error;
    const auto config = WorkspaceConfig::parse(document.toJson(), "ws.json", &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->warnings.size(), 1);
    QVERIFY2(config->warnings.first().contains("does not verify certificates at all"),
             qPrintable(config->warnings.first()));
    QCOMPARE(config->endpoint("get-x")->tls, "get-x-insecure");
}

void tst_EndpointImport::reimportUpdatesOnlyWhatItMade()
{
    // One endpoint written by hand, with the id an import would choose.
    WorkspaceDocument document(QJsonObject{
        {"version", 1},
        {"endpoints",
         QJsonArray{QJsonObject{{"id", "get-health"}, {"url", "https://own.example/health"}}}}});
    QList<ImportedEndpoint> first = {import(QStringLiteral("curl https://a.example/health")),
                                     import(QStringLiteral("curl -u ops:x https://a.example/me"))};
    QList<ImportChange> changes = mergeImport(document, first);
    QCOMPARE(changes.size(), 2);
    QCOMPARE(changes.at(0).kind, ImportChange::Kind::Added);
    QCOMPARE(changes.at(0).id, "get-health-2"); // the hand-written one keeps its id
    QCOMPARE(document.endpoints().size(), 3);
    QCOMPARE(document.endpoints().at(0).value("url").toString(), "https://own.example/health");
    const QByteArray once = document.toJson();

    // The same commands again: nothing changes, byte for byte.
    QList<ImportedEndpoint> again = {import(QStringLiteral("curl https://a.example/health")),
                                     import(QStringLiteral("curl -u ops:y https://a.example/me"))};
    changes = mergeImport(document, again);
    QCOMPARE(changes.at(0).kind, ImportChange::Kind::Unchanged);
    QCOMPARE(changes.at(1).kind, ImportChange::Kind::Unchanged);
    QCOMPARE(document.toJson(), once);

    // A changed request of the same source updates its endpoint, under the id it has.
    QList<ImportedEndpoint> changed = {
        import(QStringLiteral("curl -H 'Accept: application/json' https://a.example/health"))};
    changes = mergeImport(document, changed);
    QCOMPARE(changes.at(0).kind, ImportChange::Kind::Updated);
    QCOMPARE(changes.at(0).id, "get-health-2");
    QCOMPARE(document.endpoints().size(), 3);
    QCOMPARE(document.root().value("credentials").toArray().size(), 1);
}

void tst_EndpointImport::oneSourceTwiceInOneImportIsTwoEndpoints()
{
    // Two GraphQL queries to one URL: neither may stand in for the other, in the first
    // import or the next.
    const auto commands = [] {
        return QList<ImportedEndpoint>{
            import(QStringLiteral("curl https://a.example/graphql -d '{\"query\":\"{a}\"}'")),
            import(QStringLiteral("curl https://a.example/graphql -d '{\"query\":\"{b}\"}'"))};
    };
    WorkspaceDocument document(QJsonObject{{"version", 1}, {"endpoints", QJsonArray{}}});
    QList<ImportedEndpoint> first = commands();
    QList<ImportChange> changes = mergeImport(document, first);
    QCOMPARE(changes.size(), 2);
    QCOMPARE(changes.at(0).kind, ImportChange::Kind::Added);
    QCOMPARE(changes.at(1).kind, ImportChange::Kind::Added);
    const QList<QJsonObject> endpoints = document.endpoints();
    QCOMPARE(endpoints.size(), 2);
    QCOMPARE(endpoints.at(0).value("body").toString(), "{\"query\":\"{a}\"}");
    QCOMPARE(endpoints.at(1).value("body").toString(), "{\"query\":\"{b}\"}");
    QCOMPARE(endpoints.at(1).value("imported_from").toString(),
             endpoints.at(0).value("imported_from").toString() + "#2");
    const QByteArray once = document.toJson();
    QList<ImportedEndpoint> again = commands();
    changes = mergeImport(document, again);
    QCOMPARE(changes.at(0).kind, ImportChange::Kind::Unchanged);
    QCOMPARE(changes.at(1).kind, ImportChange::Kind::Unchanged);
    QCOMPARE(document.toJson(), once);
}

void tst_EndpointImport::aCredentialWrittenByHandIsNeverReplaced()
{
    // The user's own credential has the id the import would give its own.
    const QJsonObject own{{"id", "me-basic"},
                          {"type", "basic"},
                          {"username", "admin"},
                          {"password", "${env:OWN_PASSWORD}"}};
    WorkspaceDocument document(
        QJsonObject{{"version", 1}, {"credentials", QJsonArray{own}}, {"endpoints", QJsonArray{}}});
    const auto command = [] {
        return QList<ImportedEndpoint>{import(QStringLiteral("curl -u ops:x https://a.example/me"),
                                              {QStringLiteral("me"), QStringLiteral("A"), 0})};
    };
    QList<ImportedEndpoint> first = command();
    mergeImport(document, first);
    QJsonArray credentials = document.root().value("credentials").toArray();
    QCOMPARE(credentials.size(), 2);
    QCOMPARE(credentials.at(0).toObject(), own);
    QCOMPARE(credentials.at(1).toObject().value("id").toString(), "me-basic-2");
    QCOMPARE(credentials.at(1).toObject().value("username").toString(), "ops");
    QCOMPARE(document.endpoints().at(0).value("credentials").toString(), "me-basic-2");
    // Imported again: its own credential is updated, the user's stays, nothing is added.
    const QByteArray once = document.toJson();
    QList<ImportedEndpoint> again = command();
    const QList<ImportChange> changes = mergeImport(document, again);
    QCOMPARE(changes.at(0).kind, ImportChange::Kind::Unchanged);
    QCOMPARE(document.toJson(), once);
}

QTEST_APPLESS_MAIN(tst_EndpointImport)
#include "tst_endpointimport.moc"
