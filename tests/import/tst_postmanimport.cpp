// SPDX-License-Identifier: Apache-2.0
#include "DocumentFile.h"

#include "core/import/ApiDocument.h"
#include "core/import/ImportPreview.h"
#include "core/import/PostmanImport.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace cooldown;

// The Postman collection and environment of tests/data/postman/ as endpoints: folders in
// names and ids, variables as references, placeholders or values, auth blocks as
// credentials, and no secret of either file in what is written.
class tst_PostmanImport : public QObject
{
    Q_OBJECT

private:
    static QJsonValue document(const QString &name)
    {
        return documentFile(QStringLiteral(COOLDOWN_POSTMAN_DATA "/") + name);
    }
    static ImportedSource import(bool withEnvironment)
    {
        PostmanImportOptions options;
        if (withEnvironment) {
            options.environment = document(QStringLiteral("shop.postman_environment.json"));
            options.environmentName = QStringLiteral("shop.postman_environment.json");
        }
        QString error;
        std::optional<ImportedSource> s = importPostman(
            document(QStringLiteral("shop.postman_collection.json")), options, &error);
        if (!s)
            qFatal("%s", qPrintable(error));
        return *s;
    }
    static const ImportedEndpoint &byId(const ImportedSource &s, const QString &id)
    {
        for (const ImportedEndpoint &e : s.endpoints) {
            if (e.endpoint.value(QStringLiteral("id")).toString() == id)
                return e;
        }
        qFatal("no endpoint %s", qPrintable(id));
    }
    static QString json(const QJsonValue &v)
    {
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    }

private slots:
    void foldersAndVariables();
    void authBlocksBecomeCredentials();
    void leftOutWithReasons();
    void withoutEnvironment();
    void reimportChangesNothing();
    void noSecretOfEitherFileIsWritten();
    void urlWithoutRaw();
    void secretsAroundVariables();
    void refusals();
};

void tst_PostmanImport::foldersAndVariables()
{
    const ImportedSource s = import(true);
    QStringList ids;
    for (const ImportedEndpoint &e : s.endpoints)
        ids.append(e.endpoint.value(QStringLiteral("id")).toString());
    QCOMPARE(ids, QStringList({"orders-list-orders", "orders-create-order", "orders-get-order",
                               "orders-refunds-refund-order", "catalogue-search-products",
                               "reports-daily-sales", "ping", "webhook-test"}));

    const ImportedEndpoint &list = byId(s, QStringLiteral("orders-list-orders"));
    // The environment's baseUrl over the collection's, as the host's value; a collection
    // variable written as its value; a variable the environment has disabled, a job's.
    QCOMPARE(json(list.endpoint),
             QStringLiteral("{\"credentials\":\"shop-partner-api-bearer\",\"headers\":{\"Accept\":"
                            "\"application/json\"},\"id\":\"orders-list-orders\",\"imported_"
                            "from\":\"postman:Shop Partner API#Orders/List orders\",\"method\":"
                            "\"GET\",\"name\":\"Orders / List orders\",\"url\":\"https://staging."
                            "shop.example.com/v3/orders?limit=50&status=${job:status}\"}"));

    const ImportedEndpoint &create = byId(s, QStringLiteral("orders-create-order"));
    // {{$guid}} in Idempotency-Key: the engine's key, sent in that header.
    QCOMPARE(json(create.endpoint.value("idempotency")),
             QStringLiteral("{\"header\":\"Idempotency-Key\"}"));
    QCOMPARE(json(create.endpoint.value("headers")),
             QStringLiteral("{\"Content-Type\":\"application/json\"}"));
    // A variable of the environment: read from the environment when the workspace runs.
    QCOMPARE(create.endpoint.value("body").toString(),
             QStringLiteral("{\n  \"customer\": \"${env:SHOP_PARTNER_API_CUSTOMER_ID}\",\n  "
                            "\"items\": [{\"sku\": \"A-1\", \"qty\": 2}]\n}"));

    // :orderId in the path; urlencoded fields encoded, a disabled one left out.
    QCOMPARE(byId(s, QStringLiteral("orders-get-order")).endpoint.value("url").toString(),
             QStringLiteral("https://staging.shop.example.com/v3/orders/${job:orderId}"));
    const ImportedEndpoint &refund = byId(s, QStringLiteral("orders-refunds-refund-order"));
    QCOMPARE(refund.endpoint.value("body").toString(),
             QStringLiteral("order=${job:orderId}&reason=damaged+in+transit"));
    QCOMPARE(refund.endpoint.value("name").toString(),
             QStringLiteral("Orders / Refunds / Refund order"));
    QVERIFY(refund.notes.join('\n').contains(QStringLiteral("no idempotency header")));
}

void tst_PostmanImport::authBlocksBecomeCredentials()
{
    const ImportedSource s = import(true);
    // The collection's bearer, inherited by a request without auth of its own.
    QCOMPARE(json(byId(s, QStringLiteral("orders-get-order")).credentials.value(0)),
             QStringLiteral("{\"id\":\"shop-partner-api-bearer\",\"token\":\"${env:SHOP_PARTNER_"
                            "API_ACCESS_TOKEN}\",\"type\":\"bearer\"}"));
    // A folder's basic auth: the user as written, the password never.
    QCOMPARE(json(byId(s, QStringLiteral("orders-refunds-refund-order")).credentials.value(0)),
             QStringLiteral("{\"id\":\"shop-partner-api-basic\",\"password\":\"${env:SHOP_"
                            "PARTNER_API_PASSWORD}\",\"type\":\"basic\",\"username\":\"refunds-"
                            "bot\"}"));
    QCOMPARE(json(byId(s, QStringLiteral("catalogue-search-products")).credentials.value(0)),
             QStringLiteral("{\"id\":\"shop-partner-api-header\",\"name\":\"X-Catalogue-Key\","
                            "\"type\":\"header\",\"value\":\"${env:SHOP_PARTNER_API_CATALOGUE_"
                            "KEY}\"}"));
    const ImportedEndpoint &sales = byId(s, QStringLiteral("reports-daily-sales"));
    QCOMPARE(json(sales.credentials.value(0)),
             QStringLiteral("{\"client_auth\":\"client_secret_post\",\"client_id\":\"reports-"
                            "client\",\"client_secret\":\"${env:SHOP_PARTNER_API_REPORTS_CLIENT_"
                            "SECRET}\",\"id\":\"shop-partner-api-oauth2-client-credentials\","
                            "\"scope\":\"reports:read\",\"token_url\":\"https://auth.shop.example."
                            "com/oauth2/token\",\"type\":\"oauth2_client_credentials\"}"));
    // A key written into the query is moved out as curl's import does.
    QCOMPARE(sales.endpoint.value("url").toString(),
             QStringLiteral("https://staging.shop.example.com/v3/reports/daily?date=${job:date}&"
                            "api_key=${env:SHOP_PARTNER_API_API_KEY}"));
    // noauth: none.
    QVERIFY(byId(s, QStringLiteral("ping")).credentials.isEmpty());
    // A header named like a secret, from a collection variable: a reference, not its value.
    QCOMPARE(byId(s, QStringLiteral("webhook-test"))
                 .endpoint.value("headers")
                 .toObject()
                 .value("X-Signature"),
             QJsonValue(QStringLiteral("${env:SHOP_PARTNER_API_WEBHOOK_SIGNING_SECRET}")));
}

void tst_PostmanImport::leftOutWithReasons()
{
    const ImportedSource s = import(true);
    QCOMPARE(s.notes, QStringList({"left out: Catalogue / Upload image: the form part image "
                                   "uploads a file from the machine it was made on",
                                   "left out: Clock skew check: {{$timestamp}} is one of "
                                   "Postman's dynamic variables, which have no counterpart in a "
                                   "workspace"}));
}

void tst_PostmanImport::withoutEnvironment()
{
    const ImportedSource s = import(false);
    // The collection's own baseUrl, and customerId, known nowhere, a job's.
    QCOMPARE(byId(s, QStringLiteral("ping")).endpoint.value("url").toString(),
             QStringLiteral("https://api.shop.example.com/v3/ping"));
    QVERIFY(byId(s, QStringLiteral("orders-create-order"))
                .endpoint.value("body")
                .toString()
                .contains(QStringLiteral("\"customer\": \"${job:customerId}\"")));
}

void tst_PostmanImport::reimportChangesNothing()
{
    WorkspaceDocument workspace(QJsonObject{{"version", 1}}, QStringLiteral("ws.json"));
    ImportPreview p = previewImport(workspace, import(true).endpoints, {});
    QVERIFY2(p.loads, qPrintable(p.problem));
    const QByteArray first = p.document.toJson();
    p = previewImport(p.document, import(true).endpoints, {});
    for (const ImportChange &c : p.changes)
        QCOMPARE(int(c.kind), int(ImportChange::Kind::Unchanged));
    QCOMPARE(p.document.toJson(), first);
    QCOMPARE(p.document.endpoints().size(), 8);
}

// Property: no value of a variable marked secret or named like one, and no secret written
// in an auth block or a query, appears in the workspace file.
void tst_PostmanImport::noSecretOfEitherFileIsWritten()
{
    // Written in auth blocks and a query, and the variable an API key block uses.
    QStringList secrets = {"R3fund!pass", "ak_live_literal123", "cat_key_5b2e91"};
    const QJsonObject collection =
        document(QStringLiteral("shop.postman_collection.json")).toObject();
    const QJsonObject environment =
        document(QStringLiteral("shop.postman_environment.json")).toObject();
    for (const QJsonValue &list : {collection.value("variable"), environment.value("values")}) {
        for (const QJsonValue &v : list.toArray()) {
            const QString key = v.toObject().value("key").toString();
            if (v.toObject().value("type").toString() == QLatin1String("secret") ||
                looksSecret(key))
                secrets.append(v.toObject().value("value").toString());
        }
    }
    QCOMPARE(secrets.size(), 3 + 1 + 2); // signing secret; token, client secret
    for (const bool withEnvironment : {false, true}) {
        const ImportPreview p = previewImport(WorkspaceDocument(QJsonObject{{"version", 1}}),
                                              import(withEnvironment).endpoints, {});
        const QByteArray written = p.document.toJson();
        for (const QString &secret : secrets) {
            QVERIFY2(!written.contains(secret.toUtf8()), qPrintable(secret));
            QVERIFY2(!p.text.contains(secret), qPrintable(secret));
        }
    }
}

// An export may give a URL only in parts; host and path as lists or as one string each.
void tst_PostmanImport::urlWithoutRaw()
{
    const QJsonObject asLists{{"protocol", "https"},
                              {"host", QJsonArray{"api", "example", "com"}},
                              {"path", QJsonArray{"v1", "items", ":itemId"}}};
    const QJsonObject asStrings{{"protocol", "http"}, {"host", "{{host}}"}, {"path", "v1/health"}};
    const QJsonObject collection{
        {"info", QJsonObject{{"name", "Parts"},
                             {"schema", "https://schema.getpostman.com/json/collection/v2.1.0/"
                                        "collection.json"}}},
        {"variable", QJsonArray{QJsonObject{{"key", "host"}, {"value", "127.0.0.1:8080"}}}},
        {"item",
         QJsonArray{
             QJsonObject{{"name", "Item"}, {"request", QJsonObject{{"url", asLists}}}},
             QJsonObject{{"name", "Health"}, {"request", QJsonObject{{"url", asStrings}}}}}}};
    QString error;
    const std::optional<ImportedSource> s = importPostman(collection, {}, &error);
    QVERIFY2(s, qPrintable(error));
    QCOMPARE(s->endpoints.size(), 2);
    QCOMPARE(s->endpoints.at(0).endpoint.value("url").toString(),
             QStringLiteral("https://api.example.com/v1/items/${job:itemId}"));
    QCOMPARE(s->endpoints.at(1).endpoint.value("url").toString(),
             QStringLiteral("http://127.0.0.1:8080/v1/health"));
}

// A secret that is more than one variable (text around it, braces that name none) is
// all secret: a reference of its own, none of its text written.
void tst_PostmanImport::secretsAroundVariables()
{
    const auto bearer = [](const QString &token) {
        return QJsonObject{{"type", "bearer"},
                           {"bearer", QJsonArray{QJsonObject{{"key", "token"}, {"value", token}}}}};
    };
    const QJsonArray keyHeader{QJsonObject{{"key", "X-Api-Key"}, {"value", "sk_live_{{suffix}}"}}};
    const QJsonObject collection{
        {"info", QJsonObject{{"name", "Around"},
                             {"schema", "https://schema.getpostman.com/json/collection/v2.1.0/"
                                        "collection.json"}}},
        {"item", QJsonArray{QJsonObject{{"name", "Broken braces"},
                                        {"request", QJsonObject{{"url", "https://a.example.com/"},
                                                                {"auth", bearer("{{tok,}")}}}},
                            QJsonObject{{"name", "Text around"},
                                        {"request", QJsonObject{{"url", "https://a.example.com/"},
                                                                {"auth", bearer("sk_{{tok}}")}}}},
                            QJsonObject{{"name", "One variable"},
                                        {"request", QJsonObject{{"url", "https://a.example.com/"},
                                                                {"auth", bearer(" {{tok}} ")}}}},
                            QJsonObject{{"name", "Key header"},
                                        {"request", QJsonObject{{"url", "https://a.example.com/"},
                                                                {"header", keyHeader}}}}}}};
    QString error;
    const std::optional<ImportedSource> s = importPostman(collection, {}, &error);
    QVERIFY2(s, qPrintable(error));
    QCOMPARE(s->endpoints.size(), 4);
    QStringList tokens;
    for (const ImportedEndpoint &e : s->endpoints.mid(0, 3))
        tokens.append(e.credentials.value(0).value("token").toString());
    QCOMPARE(tokens,
             QStringList({"${env:AROUND_TOKEN}", "${env:AROUND_TOKEN}", "${env:AROUND_TOK}"}));
    // The same for a header named as a secret.
    QCOMPARE(s->endpoints.at(3).endpoint.value("headers").toObject().value("X-Api-Key"),
             QJsonValue(QStringLiteral("${env:AROUND_X_API_KEY}")));
}

void tst_PostmanImport::refusals()
{
    QString error;
    QVERIFY(!importPostman(document(QStringLiteral("errors-v2.0.postman_collection.json")), {},
                           &error));
    QCOMPARE(error, QStringLiteral("info.schema: expected a collection of format v2.1, got "
                                   "'https://schema.getpostman.com/json/collection/v2.0.0/"
                                   "collection.json'; export it again from Postman as Collection "
                                   "v2.1"));
    QVERIFY(!importPostman(QJsonObject{{"openapi", "3.0.0"}}, {}, &error));
    QCOMPARE(error, QStringLiteral("info: missing; not a Postman collection"));
    PostmanImportOptions options;
    options.environment = document(QStringLiteral("shop.postman_collection.json"));
    options.environmentName = QStringLiteral("env.json");
    QVERIFY(
        !importPostman(document(QStringLiteral("shop.postman_collection.json")), options, &error));
    QCOMPARE(error, QStringLiteral("env.json: values: expected the export of a Postman "
                                   "environment, with the list of its values"));
}

QTEST_GUILESS_MAIN(tst_PostmanImport)
#include "tst_postmanimport.moc"
