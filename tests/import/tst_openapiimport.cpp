// SPDX-License-Identifier: Apache-2.0
#include "DocumentFile.h"

#include "core/import/ApiDocument.h"
#include "core/import/ImportPreview.h"
#include "core/import/OpenApiImport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace cooldown;

// OpenAPI documents of tests/data/openapi/ as endpoints, field by field: servers,
// parameters as job placeholders, security schemes as credentials, idempotency headers,
// documented limits; the documents refused, naming where; re-imports that change
// nothing.
class tst_OpenApiImport : public QObject
{
    Q_OBJECT

private:
    static QString dataPath(const QString &name)
    {
        return QStringLiteral(COOLDOWN_OPENAPI_DATA "/") + name;
    }
    static QJsonValue document(const QString &name) { return documentFile(dataPath(name)); }
    static ImportedSource import(const QString &name, const OpenApiImportOptions &options = {})
    {
        QString error;
        std::optional<ImportedSource> source = importOpenApi(document(name), options, &error);
        if (!source)
            qFatal("%s", qPrintable(error));
        return *source;
    }
    static const ImportedEndpoint *byId(const ImportedSource &s, const QString &id)
    {
        for (const ImportedEndpoint &e : s.endpoints) {
            if (e.endpoint.value(QStringLiteral("id")).toString() == id)
                return &e;
        }
        return nullptr;
    }
    static QString json(const QJsonValue &v)
    {
        return QString::fromUtf8(
            QJsonDocument(v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject()))
                .toJson(QJsonDocument::Compact));
    }
    static QStringList names(const ImportedEndpoint &e)
    {
        QStringList out;
        for (const ImportVariable &v : e.variables)
            out.append(v.name);
        return out;
    }
    static QStringList ids(const ImportedSource &s)
    {
        QStringList out;
        for (const ImportedEndpoint &e : s.endpoints)
            out.append(e.endpoint.value(QStringLiteral("id")).toString());
        return out;
    }

private slots:
    void apiKeyServersAndPathParameters();
    void serverChoice();
    void oauthAndIdempotencyKey();
    void refsAreFollowed();
    void documentedLimits();
    void schemesItCannotMap();
    void duplicateOperationIds();
    void refusals_data();
    void refusals();
    void everyImportLoadsAndReimportChangesNothing();
    void noSecretIsWritten();
};

void tst_OpenApiImport::apiKeyServersAndPathParameters()
{
    const ImportedSource s = import(QStringLiteral("parcel-tracking.yaml"));
    QCOMPARE(s.title, QStringLiteral("Parcel Tracking"));
    QCOMPARE(ids(s), QStringList({"list-carriers", "get-health", "create-shipment", "get-shipment",
                                  "cancel-shipment", "list-shipment-events"}));
    QVERIFY(s.notes.contains(QStringLiteral(
        "server: https://eu.parcels.example.com/v2 (1 of 2; --server N picks another)")));

    const ImportedEndpoint *carriers = byId(s, QStringLiteral("list-carriers"));
    QVERIFY(carriers);
    QCOMPARE(json(carriers->endpoint),
             QStringLiteral("{\"credentials\":\"parcel-tracking-api-key-auth\",\"id\":\"list-"
                            "carriers\",\"imported_from\":\"openapi:Parcel Tracking#listCarriers\","
                            "\"method\":\"GET\",\"name\":\"List the carriers\",\"url\":\"https://"
                            "eu.parcels.example.com/v2/carriers\"}"));
    QCOMPARE(carriers->credentials.size(), 1);
    QCOMPARE(json(carriers->credentials.at(0)),
             QStringLiteral("{\"id\":\"parcel-tracking-api-key-auth\",\"name\":\"X-API-Key\","
                            "\"type\":\"header\",\"value\":\"${env:PARCEL_TRACKING_API_KEY_AUTH}"
                            "\"}"));
    QCOMPARE(names(*carriers), QStringList{"PARCEL_TRACKING_API_KEY_AUTH"});

    // security: [] on the operation: no credential.
    const ImportedEndpoint *health = byId(s, QStringLiteral("get-health"));
    QVERIFY(health && !health->endpoint.contains(QStringLiteral("credentials")));
    QCOMPARE(health->endpoint.value("imported_from").toString(),
             QStringLiteral("openapi:Parcel Tracking#GET /health"));
    QCOMPARE(health->endpoint.value("name").toString(), QStringLiteral("Health check"));

    // A POST: its body's required members as placeholders (a number bare), no idempotency
    // header in the document, so a note and no idempotency member.
    const ImportedEndpoint *create = byId(s, QStringLiteral("create-shipment"));
    QVERIFY(create);
    QCOMPARE(create->endpoint.value("body").toString(),
             QStringLiteral("{\"carrier\": \"${job:carrier}\", \"tracking_number\": "
                            "\"${job:tracking_number}\", \"weight_grams\": ${job:weight_grams}}"));
    QCOMPARE(json(create->endpoint.value("headers")),
             QStringLiteral("{\"Content-Type\":\"application/json\"}"));
    QVERIFY(create->endpoint.value("enqueue_only").toBool());
    QVERIFY(!create->endpoint.contains(QStringLiteral("idempotency")));
    QVERIFY(create->notes.join('\n').contains(QStringLiteral("no idempotency header")));

    // Path parameters of the path item, required header and query parameters; the
    // optional ones left out.
    QCOMPARE(byId(s, QStringLiteral("get-shipment"))->endpoint.value("url").toString(),
             QStringLiteral("https://eu.parcels.example.com/v2/shipments/${job:shipmentId}"));
    const ImportedEndpoint *cancel = byId(s, QStringLiteral("cancel-shipment"));
    QCOMPARE(json(cancel->endpoint.value("headers")),
             QStringLiteral("{\"X-Reason\":\"${job:X_Reason}\"}"));
    QCOMPARE(byId(s, QStringLiteral("list-shipment-events"))->endpoint.value("url").toString(),
             QStringLiteral("https://eu.parcels.example.com/v2/shipments/${job:shipmentId}/"
                            "events?since=${job:since}"));
    QCOMPARE(byId(s, QStringLiteral("list-shipment-events"))->notes.value(0),
             QStringLiteral("a template: each job brings shipmentId, since (docs/intake.md)"));
}

void tst_OpenApiImport::serverChoice()
{
    OpenApiImportOptions options;
    options.server = QStringLiteral("2");
    ImportedSource s = import(QStringLiteral("parcel-tracking.yaml"), options);
    QCOMPARE(s.endpoints.at(0).endpoint.value("url").toString(),
             QStringLiteral("https://sandbox.parcels.example.com/v2/carriers"));
    options.server = QStringLiteral("http://127.0.0.1:8080/mock/");
    s = import(QStringLiteral("parcel-tracking.yaml"), options);
    QCOMPARE(s.endpoints.at(0).endpoint.value("url").toString(),
             QStringLiteral("http://127.0.0.1:8080/mock/carriers"));
    options.server = QStringLiteral("3");
    QString error;
    QVERIFY(!importOpenApi(document(QStringLiteral("parcel-tracking.yaml")), options, &error));
    QCOMPARE(error, QStringLiteral("--server 3: expected a URL or a number from 1 to 2, the "
                                   "servers the document lists"));
    // A relative server is taken from where the document was fetched.
    options = {};
    options.documentUrl = QUrl(QStringLiteral("http://127.0.0.1:9000/specs/erp.yaml"));
    s = import(QStringLiteral("basic-and-unsupported.yaml"), options);
    QCOMPARE(s.endpoints.at(0).endpoint.value("url").toString(),
             QStringLiteral("http://127.0.0.1:9000/erp/api/orders"));
}

void tst_OpenApiImport::oauthAndIdempotencyKey()
{
    const ImportedSource s = import(QStringLiteral("billing.json"));
    QCOMPARE(ids(s),
             QStringList({"list-invoices", "create-invoice", "get-invoice", "update-invoice"}));
    const ImportedEndpoint *create = byId(s, QStringLiteral("create-invoice"));
    QVERIFY(create);
    // The scopes every operation of the scheme asks for, on its one credential.
    QCOMPARE(json(create->credentials.at(0)),
             QStringLiteral("{\"client_id\":\"${env:BILLING_OAUTH_CLIENT_ID}\",\"client_secret\":"
                            "\"${env:BILLING_OAUTH_CLIENT_SECRET}\",\"id\":\"billing-oauth\","
                            "\"scope\":\"invoices:read invoices:write\",\"token_url\":\"https://"
                            "auth.billing.example.com/oauth/token\",\"type\":\"oauth2_client_"
                            "credentials\"}"));
    QCOMPARE(create->endpoint.value("credentials").toString(), QStringLiteral("billing-oauth"));
    QCOMPARE(json(create->endpoint.value("idempotency")),
             QStringLiteral("{\"header\":\"Idempotency-Key\"}"));
    // The idempotency header is the engine's to send, not a job's.
    QCOMPARE(json(create->endpoint.value("headers")),
             QStringLiteral("{\"Content-Type\":\"application/json\"}"));
    QVERIFY(!create->notes.join('\n').contains(QStringLiteral("no idempotency header")));
    // 3.1's ["string", "null"] is a string: quoted.
    QCOMPARE(create->endpoint.value("body").toString(),
             QStringLiteral("{\"customer_id\": \"${job:customer_id}\", \"amount_cents\": "
                            "${job:amount_cents}, \"currency\": \"${job:currency}\"}"));
    QCOMPARE(names(*create),
             QStringList({"BILLING_OAUTH_CLIENT_ID", "BILLING_OAUTH_CLIENT_SECRET"}));

    const ImportedEndpoint *update = byId(s, QStringLiteral("update-invoice"));
    QCOMPARE(json(update->endpoint.value("idempotency")),
             QStringLiteral("{\"header\":\"Idempotency-Key\"}"));
    QCOMPARE(update->endpoint.value("url").toString(),
             QStringLiteral("https://api.billing.example.com/v1/invoices/${job:invoiceId}"));
    QVERIFY(!update->endpoint.contains(QStringLiteral("body"))); // no required member
    QCOMPARE(json(update->endpoint.value("headers")),
             QStringLiteral("{\"Content-Type\":\"application/merge-patch+json\"}"));
    QVERIFY(update->endpoint.value("enqueue_only").toBool());
    // The document's webhooks are the API's calls to its clients: nothing to import.
    QCOMPARE(s.endpoints.size(), 4);
}

void tst_OpenApiImport::refsAreFollowed()
{
    const ImportedSource s = import(QStringLiteral("inventory-refs.yaml"));
    QCOMPARE(ids(s), QStringList({"adjust-stock", "list-stock"}));
    const ImportedEndpoint *adjust = byId(s, QStringLiteral("adjust-stock"));
    // A path item, its parameter, the body, its schema's allOf parts and a member's type:
    // each a $ref, some to another $ref.
    QCOMPARE(adjust->endpoint.value("url").toString(),
             QStringLiteral("https://inventory.example.net/api/warehouses/${job:warehouseId}/"
                            "adjustments"));
    QCOMPARE(adjust->endpoint.value("body").toString(),
             QStringLiteral("{\"sku\": \"${job:sku}\", \"delta\": ${job:delta}, \"counted\": "
                            "${job:counted}}"));
    QCOMPARE(json(adjust->endpoint.value("idempotency")),
             QStringLiteral("{\"header\":\"X-Idempotency-Key\"}"));
    QCOMPARE(json(adjust->credentials.at(0)),
             QStringLiteral("{\"id\":\"warehouse-inventory-bearer\",\"token\":\"${env:WAREHOUSE_"
                            "INVENTORY_BEARER_TOKEN}\",\"type\":\"bearer\"}"));
    const ImportedEndpoint *stock = byId(s, QStringLiteral("list-stock"));
    QCOMPARE(stock->endpoint.value("url").toString(),
             QStringLiteral("https://inventory.example.net/api/warehouses/${job:warehouseId}/"
                            "stock?page_size=${job:page_size}"));
    QVERIFY(stock->notes.contains(QStringLiteral(
        "429 Too Many Requests documented with Retry-After: the engine waits as the server says")));
}

void tst_OpenApiImport::documentedLimits()
{
    const ImportedSource s = import(QStringLiteral("weather-ratelimits.yaml"));
    QVERIFY(s.notes.contains(QStringLiteral(
        "x-ratelimit-limit: 600 (a rate limit the document states; a policy can pace by it)")));
    QVERIFY(s.notes.contains(QStringLiteral(
        "left out: TRACE /stations: TRACE diagnoses the way to a server; it is not an API call")));
    const ImportedEndpoint *current = byId(s, QStringLiteral("current-weather"));
    QVERIFY(current);
    QCOMPARE(current->endpoint.value("url").toString(),
             QStringLiteral("https://api.weather.example.org/data/1.3/current?lat=${job:lat}&lon="
                            "${job:lon}&appid=${env:OPEN_WEATHER_DATA_APPID}"));
    QVERIFY(!current->endpoint.contains(QStringLiteral("credentials"))); // a key in the query
    QCOMPARE(current->notes,
             QStringList({"a template: each job brings lat, lon (docs/intake.md)",
                          "x-ratelimit: {\"limit\":60,\"window\":\"1m\"} (a rate limit the "
                          "document states; a policy can pace by it)",
                          "429 Too Many Requests documented with RateLimit-Limit, "
                          "RateLimit-Remaining, RateLimit-Reset, Retry-After: the engine waits "
                          "as the server says"}));
    QCOMPARE(byId(s, QStringLiteral("list-stations"))->notes,
             QStringList({"429 Too Many Requests documented, with no Retry-After or RateLimit "
                          "header: the engine backs off"}));
}

void tst_OpenApiImport::schemesItCannotMap()
{
    OpenApiImportOptions options;
    options.server = QStringLiteral("https://erp.example.com/erp/api");
    options.envPrefix = QStringLiteral("ERP");
    const ImportedSource s = import(QStringLiteral("basic-and-unsupported.yaml"), options);
    // OpenID Connect first, basic second: the second requirement is the one taken.
    const ImportedEndpoint *orders = byId(s, QStringLiteral("list-orders"));
    QCOMPARE(json(orders->credentials.at(0)),
             QStringLiteral("{\"id\":\"legacy-erp-basic-auth\",\"password\":\"${env:ERP_BASIC_"
                            "AUTH_PASSWORD}\",\"type\":\"basic\",\"username\":\"${env:ERP_BASIC_"
                            "AUTH_USER}\"}"));
    const ImportedEndpoint *reports = byId(s, QStringLiteral("list-reports"));
    QVERIFY(reports->credentials.isEmpty());
    QCOMPARE(reports->notes,
             QStringList({"no credentials: userLogin: OAuth 2.0 without the client credentials "
                          "flow (authorizationCode): the engine has no user to sign in"}));
}

// Two operations with one operationId (a document should not, some do): two endpoints,
// each with a source id of its own, so that a re-import updates each.
void tst_OpenApiImport::duplicateOperationIds()
{
    const QJsonObject get{{"operationId", "fetch"}, {"responses", QJsonObject()}};
    const QJsonObject document{
        {"openapi", "3.0.3"},
        {"info", QJsonObject{{"title", "Twice"}, {"version", "1"}}},
        {"servers", QJsonArray{QJsonObject{{"url", "https://twice.example.com"}}}},
        {"paths",
         QJsonObject{{"/a", QJsonObject{{"get", get}}}, {"/b", QJsonObject{{"get", get}}}}}};
    QString error;
    const std::optional<ImportedSource> s = importOpenApi(document, {}, &error);
    QVERIFY2(s, qPrintable(error));
    QCOMPARE(ids(*s), QStringList({"fetch", "fetch-2"}));
    QCOMPARE(s->endpoints.at(0).endpoint.value("imported_from").toString(),
             QStringLiteral("openapi:Twice#fetch"));
    QCOMPARE(s->endpoints.at(1).endpoint.value("imported_from").toString(),
             QStringLiteral("openapi:Twice#fetch (2)"));
}

void tst_OpenApiImport::refusals_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("message");
    QTest::newRow("bad YAML, with its line")
        << "errors/bad-indent.yaml"
        << "errors/bad-indent.yaml: line 10: end of map flow not found";
    QTest::newRow("JSON cut short")
        << "errors/truncated.json"
        << "errors/truncated.json: line 5, column 1: unterminated object";
    QTest::newRow("unresolved $ref")
        << "errors/unresolved-ref.yaml"
        << "paths[\"/things/{id}\"].get.parameters[0].$ref: '#/components/parameters/ThingId' "
           "names nothing in the document";
    QTest::newRow("cycle of $refs")
        << "errors/cycle-ref.yaml"
        << "#/components/requestBodies/B.$ref: '#/components/requestBodies/A' leads back to "
           "itself (#/components/requestBodies/A → #/components/requestBodies/B)";
    QTest::newRow("$ref to another file")
        << "errors/external-ref.yaml"
        << "paths[\"/pets\"].get.parameters[0].$ref: 'common.yaml#/components/parameters/Limit' "
           "is outside the document; only references inside it (#/...) are followed";
    QTest::newRow("Swagger 2.0")
        << "errors/swagger2.json"
        << "swagger: Swagger 2.0 is not read; convert the document to OpenAPI 3 first (for "
           "example with swagger2openapi)";
    QTest::newRow("unsupported version")
        << "errors/version-4.yaml"
        << "openapi: expected a version 3.0.x or 3.1.x, got '4.0.0'";
    QTest::newRow("relative server")
        << "basic-and-unsupported.yaml"
        << "servers[0].url: '/erp/api' is not an absolute URL; give the API's address with "
           "--server URL";
}

void tst_OpenApiImport::refusals()
{
    QFETCH(QString, file);
    QFETCH(QString, message);
    QFile f(dataPath(file));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QString error;
    const std::optional<QJsonValue> value = readApiDocument(f.readAll(), file, &error);
    if (value)
        QVERIFY(!importOpenApi(*value, {}, &error));
    QCOMPARE(error, message);
}

// Each document (the relative server given) into one workspace: it loads, and a second
// import of every document leaves it byte for byte the same.
void tst_OpenApiImport::everyImportLoadsAndReimportChangesNothing()
{
    const QStringList files = {"parcel-tracking.yaml", "billing.json", "inventory-refs.yaml",
                               "weather-ratelimits.yaml", "basic-and-unsupported.yaml"};
    OpenApiImportOptions options;
    options.documentUrl = QUrl(QStringLiteral("https://erp.example.com/specs/openapi.yaml"));
    WorkspaceDocument workspace(
        QJsonObject{{"version", 1},
                    {"endpoints", QJsonArray{QJsonObject{{"id", "list-carriers"},
                                                         {"url", "https://hand.example.com/"}}}}},
        QStringLiteral("ws.json"));
    QByteArray first;
    for (int round = 0; round < 2; ++round) {
        for (const QString &file : files) {
            const ImportPreview p = previewImport(workspace, import(file, options).endpoints, {});
            QVERIFY2(p.loads, qPrintable(file + QStringLiteral(": ") + p.problem));
            for (const ImportChange &c : p.changes)
                QCOMPARE(c.kind == ImportChange::Kind::Added, round == 0);
            workspace = p.document;
        }
        if (round == 0)
            first = workspace.toJson();
    }
    QCOMPARE(workspace.toJson(), first);
    // The endpoint written by hand is as it was; the imported one took another id.
    QCOMPARE(workspace.endpoints().at(0),
             QJsonObject({{"id", "list-carriers"}, {"url", "https://hand.example.com/"}}));
    QCOMPARE(workspace.endpointIndex(QStringLiteral("list-carriers-2")), 1);
    QCOMPARE(workspace.endpoints().size(), 1 + 6 + 4 + 2 + 2 + 2);
}

// Secrets are never values of the document; what is written for a credential or an API
// key is a reference, every one of them.
void tst_OpenApiImport::noSecretIsWritten()
{
    for (const QString &file : QStringList{"parcel-tracking.yaml", "billing.json",
                                           "inventory-refs.yaml", "weather-ratelimits.yaml"}) {
        const ImportedSource s = import(file);
        for (const ImportedEndpoint &e : s.endpoints) {
            for (const QJsonObject &c : e.credentials) {
                for (const QString &key :
                     QStringList{"token", "password", "client_secret", "value"}) {
                    if (c.contains(key))
                        QVERIFY2(c.value(key).toString().startsWith(QLatin1String("${env:")),
                                 qPrintable(json(c)));
                }
            }
        }
    }
}

QTEST_GUILESS_MAIN(tst_OpenApiImport)
#include "tst_openapiimport.moc"
