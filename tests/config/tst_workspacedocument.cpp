// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceDocument.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

// Declared before the JSON below, which moc cannot read through.
class tst_WorkspaceDocument : public QObject
{
    Q_OBJECT

private slots:
    void adoptsAServerLimitAsAPolicy();
    void initTestCase();
    void roundTripKeepsReferencesAndOtherMembers();
    void writesMembersInTheFormatsOrder();
    void credentialSectionsRoundTrip();
    void editsByIdAndPosition();
    void editSaveLoad();
    void invalidEditIsRefusedAndFileUntouched();
    void unsetReferenceIsRefused();
    void failedWriteLeavesNothing();
    void refusesWhatIsNotAnObject_data();
    void refusesWhatIsNotAnObject();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
};

namespace {

const QHash<QString, QString> kEnv = {{"DOC_TEST_TOKEN", "s3cr3t-t0ken"}};

// Hand-written, as an operator would: its own layout, members in their own order.
const QByteArray kWorkspace = R"({
  "endpoints": [
    { "url": "https://api.example.com/measurements", "id": "measurements",
      "headers": { "Authorization": "Bearer ${env:DOC_TEST_TOKEN}", "Accept": "application/json" },
      "every_seconds": 30, "policy": "read-v1", "partition_key": "project-184" },
    { "id": "upload", "method": "POST", "url": "https://api.example.com/uploads",
      "body": "{\"parts\":412}", "idempotency": { "header": "Idempotency-Key" } }
  ],
  "retry_profiles": { "patient": { "max_attempts": 9, "cap_seconds": 120 } },
  "policies": [ { "policy_id": "read-v1", "limit": 120, "window_seconds": 60, "burst": 20 } ],
  "concurrency": { "per_host": 4, "max_in_flight": 5 },
  "version": 1
})";

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

void tst_WorkspaceDocument::initTestCase()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    // WorkspaceConfig::load reads the process environment.
    qputenv("DOC_TEST_TOKEN", "s3cr3t-t0ken");
}

void tst_WorkspaceDocument::roundTripKeepsReferencesAndOtherMembers()
{
    QString error;
    const auto doc = WorkspaceDocument::fromJson(kWorkspace, "ws.json", &error);
    QVERIFY2(doc, qPrintable(error));
    const QByteArray written = doc->toJson();

    // Every member survives, values unchanged; the reference stays text.
    QCOMPARE(QJsonDocument::fromJson(written).object(),
             QJsonDocument::fromJson(kWorkspace).object());
    QVERIFY(written.contains("Bearer ${env:DOC_TEST_TOKEN}"));
    QVERIFY(!written.contains("s3cr3t"));
    QVERIFY(written.contains(R"("body": "{\"parts\":412}")"));

    const auto config = doc->validate(&error, {}, kEnv);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->endpoints.first().headers.value("Authorization"), "Bearer s3cr3t-t0ken");
    QCOMPARE(config->concurrency.maxInFlight, 5);
    QCOMPARE(config->retryProfile("patient").maxAttempts, 9);

    // Reading what was written gives the same document again.
    const auto again = WorkspaceDocument::fromJson(written, "ws.json", &error);
    QVERIFY2(again, qPrintable(error));
    QCOMPARE(*again, *doc);
    QCOMPARE(again->toJson(), written);
}

void tst_WorkspaceDocument::writesMembersInTheFormatsOrder()
{
    QString error;
    const auto doc = WorkspaceDocument::fromJson(kWorkspace, "ws.json", &error);
    QVERIFY2(doc, qPrintable(error));
    const QByteArray written = doc->toJson();
    const auto before = [&written](const char *a, const char *b) {
        const qsizetype i = written.indexOf(a);
        const qsizetype j = written.indexOf(b);
        return i >= 0 && j >= 0 && i < j;
    };
    QVERIFY(written.startsWith("{\n  \"version\": 1,\n  \"concurrency\": {\n"));
    QVERIFY(before("\"max_in_flight\"", "\"per_host\""));
    QVERIFY(before("\"policies\"", "\"retry_profiles\""));
    QVERIFY(before("\"retry_profiles\"", "\"endpoints\""));
    QVERIFY(
        before("\"id\": \"measurements\"", "\"url\": \"https://api.example.com/measurements\""));
    QVERIFY(before("\"policy_id\"", "\"limit\""));
    QVERIFY(before("\"max_attempts\"", "\"cap_seconds\""));
    QVERIFY(written.endsWith("}\n"));
}

// Credentials, tls entries and proxies come back as written, their references as text,
// whatever the editor changes elsewhere.
void tst_WorkspaceDocument::credentialSectionsRoundTrip()
{
    const QByteArray workspace = R"({
  "endpoints": [
    { "id": "bom", "url": "https://plm.example.com/api/boms", "credentials": "plm",
      "tls": "corp", "proxy": "system" },
    { "id": "parts", "url": "https://plm.example.com/api/parts",
      "proxy": { "url": "http://${env:DOC_PROXY_USER}:${env:DOC_TEST_TOKEN}@proxy:3128",
                 "no_proxy": [".corp.example", "10.0.0.1"] } }
  ],
  "proxy": "http://proxy.corp.example:3128",
  "tls": [ { "verify_hostname": false, "id": "corp" } ],
  "credentials": [
    { "scope": "bom.write", "type": "oauth2_client_credentials", "id": "plm",
      "token_url": "https://idp.example.com/oauth2/token", "client_id": "cooldown",
      "client_secret": "${env:DOC_TEST_TOKEN}", "extra_parameters": { "resource": "bom" } },
    { "id": "key", "type": "header", "name": "X-Api-Key", "value": "${env:DOC_TEST_TOKEN}" }
  ],
  "version": 1
})";
    const QHash<QString, QString> env = {{"DOC_TEST_TOKEN", "s3cr3t-t0ken"},
                                         {"DOC_PROXY_USER", "ops"}};
    QString error;
    auto doc = WorkspaceDocument::fromJson(workspace, "ws.json", &error);
    QVERIFY2(doc, qPrintable(error));
    const QJsonObject original = QJsonDocument::fromJson(workspace).object();
    QCOMPARE(doc->toJson(), WorkspaceDocument(original, "ws.json").toJson());
    QCOMPARE(QJsonDocument::fromJson(doc->toJson()).object(), original);
    const QByteArray written = doc->toJson();
    QVERIFY(!written.contains("s3cr3t"));
    QVERIFY(written.contains(R"("client_secret": "${env:DOC_TEST_TOKEN}")"));
    // Sections before the endpoints that name them; an entry's id and type first.
    const auto before = [&written](const char *a, const char *b) {
        return written.indexOf(a) >= 0 && written.indexOf(a) < written.indexOf(b);
    };
    QVERIFY(before("\"credentials\": [", "\"tls\": ["));
    QVERIFY(before("\"tls\": [", "\"proxy\": \"http://proxy.corp.example:3128\""));
    QVERIFY(before("\"proxy\": \"http://proxy.corp.example:3128\"", "\"endpoints\""));
    QVERIFY(before("\"id\": \"plm\"", "\"type\": \"oauth2_client_credentials\""));
    QVERIFY(before("\"type\": \"oauth2_client_credentials\"", "\"token_url\""));
    QVERIFY(before("\"id\": \"corp\"", "\"verify_hostname\""));

    const auto config = doc->validate(&error, {}, env);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->credentials.size(), 2);
    QCOMPARE(config->endpoint("bom")->credentials, QStringLiteral("plm"));

    // An edit of one endpoint leaves the sections as they were.
    QJsonObject parts = doc->endpoints().at(1);
    parts.insert("every_seconds", 60);
    QVERIFY(doc->replaceEndpoint("parts", parts));
    const QJsonObject edited = QJsonDocument::fromJson(doc->toJson()).object();
    for (const char *key : {"credentials", "tls", "proxy"})
        QCOMPARE(edited.value(QLatin1String(key)), original.value(QLatin1String(key)));
    QCOMPARE(edited.value("endpoints").toArray().at(1).toObject().value("proxy"),
             original.value("endpoints").toArray().at(1).toObject().value("proxy"));
    QVERIFY2(doc->validate(&error, {}, env), qPrintable(error));
}

void tst_WorkspaceDocument::editsByIdAndPosition()
{
    QString error;
    auto doc = WorkspaceDocument::fromJson(kWorkspace, "ws.json", &error);
    QVERIFY2(doc, qPrintable(error));
    QCOMPARE(doc->endpoints().size(), 2);
    QCOMPARE(doc->endpointIndex("upload"), 1);
    QCOMPARE(doc->endpointIndex("nothing"), -1);
    QCOMPARE(doc->policyIndex("read-v1"), 0);
    QCOMPARE(doc->retryProfileNames(), QStringList({"default", "patient"}));

    QVERIFY(!doc->replaceEndpoint("nothing", {}));
    QVERIFY(!doc->removePolicy("nothing"));

    QJsonObject upload = doc->endpoints().at(1);
    upload.insert("timeout_seconds", 5);
    QVERIFY(doc->replaceEndpoint("upload", upload));
    QCOMPARE(doc->endpoints().at(1).value("timeout_seconds").toDouble(), 5.0);
    // The body, which the edit did not touch, is still there.
    QCOMPARE(doc->endpoints().at(1).value("body").toString(), R"({"parts":412})");

    doc->addEndpoint({{"id", "third"}, {"url", "https://api.example.com/third"}});
    QCOMPARE(doc->endpointIndex("third"), 2);
    doc->setEndpointAt(2, {{"id", "renamed"}, {"url", "https://api.example.com/third"}});
    QCOMPARE(doc->endpointIndex("third"), -1);
    QCOMPARE(doc->endpointIndex("renamed"), 2);
    doc->setEndpointAt(7, {}); // out of range: nothing happens
    QCOMPARE(doc->endpoints().size(), 3);
    QVERIFY(doc->removeEndpoint("measurements"));
    QCOMPARE(doc->endpointIndex("upload"), 0);

    doc->addPolicy({{"policy_id", "write-v1"}, {"limit", 10}, {"window_seconds", 1}});
    QCOMPARE(doc->policies().size(), 2);
    doc->removePolicyAt(0);
    QCOMPARE(doc->policies().size(), 1);
    QCOMPARE(doc->policies().first().value("policy_id").toString(), "write-v1");
    QVERIFY2(doc->validate(&error, {}, kEnv), qPrintable(error));
}

void tst_WorkspaceDocument::editSaveLoad()
{
    const QString path = m_dir->filePath("edit.json");
    QVERIFY(writeAll(path, kWorkspace));
    QString error;
    auto doc = WorkspaceDocument::load(path, &error);
    QVERIFY2(doc, qPrintable(error));
    QCOMPARE(doc->sourceName(), path);

    QJsonObject measurements = doc->endpoints().first();
    measurements.insert("url", "https://api.example.com/v2/measurements");
    measurements.insert("every_seconds", 45);
    QVERIFY(doc->replaceEndpoint("measurements", measurements));
    QJsonObject policy = doc->policies().first();
    policy.insert("limit", 50);
    QVERIFY(doc->replacePolicy("read-v1", policy));
    doc->addEndpoint(
        {{"id", "report"}, {"url", "https://api.example.com/report"}, {"retry", "patient"}});
    QVERIFY2(doc->save(path, &error), qPrintable(error));

    const QByteArray saved = readAll(path);
    QVERIFY(saved.contains("${env:DOC_TEST_TOKEN}"));
    QVERIFY(!saved.contains("s3cr3t"));
    const auto config = WorkspaceConfig::load(path, &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(config->endpoints.size(), 3);
    QCOMPARE(config->endpoint("measurements")->url.toString(),
             "https://api.example.com/v2/measurements");
    QCOMPARE(config->endpoint("measurements")->everySeconds, 45);
    QCOMPARE(config->endpoint("measurements")->headerTemplates.value("Authorization"),
             "Bearer ${env:DOC_TEST_TOKEN}");
    QCOMPARE(config->endpoint("upload")->body, R"({"parts":412})");
    QCOMPARE(config->endpoint("report")->retry, "patient");
    QCOMPARE(config->policy("read-v1")->limit, 50);
    QCOMPARE(config->concurrency.perHost, 4);
}

void tst_WorkspaceDocument::invalidEditIsRefusedAndFileUntouched()
{
    const QString path = m_dir->filePath("refused.json");
    QVERIFY(writeAll(path, kWorkspace));
    QString error;
    auto doc = WorkspaceDocument::load(path, &error);
    QVERIFY2(doc, qPrintable(error));
    QJsonObject upload = doc->endpoints().at(1);
    upload.insert("url", "ftp://api.example.com/uploads");
    QVERIFY(doc->replaceEndpoint("upload", upload));

    QVERIFY(!doc->validate(&error, {}, kEnv));
    QCOMPARE(doc->problemPath(error), "endpoints[1].url");
    error.clear();
    QVERIFY(!doc->save(path, &error, {}, kEnv));
    QVERIFY2(error.startsWith(path + ": endpoints[1].url: expected an absolute http or https URL"),
             qPrintable(error));
    QCOMPARE(readAll(path), kWorkspace);
    // Nor does a refused document create a file that was not there.
    const QString fresh = m_dir->filePath("never.json");
    QVERIFY(!doc->save(fresh, &error, {}, kEnv));
    QVERIFY(!QFile::exists(fresh));

    // A policy that an endpoint still names cannot go.
    auto other = WorkspaceDocument::load(path, &error);
    QVERIFY2(other, qPrintable(error));
    QVERIFY(other->removePolicy("read-v1"));
    QVERIFY(!other->save(path, &error, {}, kEnv));
    QCOMPARE(other->problemPath(error), "endpoints[0].policy");
    QCOMPARE(readAll(path), kWorkspace);
}

void tst_WorkspaceDocument::unsetReferenceIsRefused()
{
    QString error;
    const auto doc = WorkspaceDocument::fromJson(kWorkspace, "ws.json", &error);
    QVERIFY2(doc, qPrintable(error));
    QVERIFY(!doc->validate(&error, {}, QHash<QString, QString>()));
    QVERIFY2(error.contains("environment variable DOC_TEST_TOKEN is not set"), qPrintable(error));
    QCOMPARE(doc->problemPath(error), "endpoints[0].headers.Authorization");
}

void tst_WorkspaceDocument::failedWriteLeavesNothing()
{
    QString error;
    const auto doc = WorkspaceDocument::fromJson(kWorkspace, "ws.json", &error);
    QVERIFY2(doc, qPrintable(error));
    const QString path = m_dir->filePath("no-such-folder/ws.json");
    QVERIFY(!doc->save(path, &error, {}, kEnv));
    QVERIFY2(error.contains("cannot write"), qPrintable(error));
    QVERIFY(!QFile::exists(path));
}

void tst_WorkspaceDocument::refusesWhatIsNotAnObject_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("array") << QByteArray("[1]") << "x.json: expected an object";
    QTest::newRow("truncated") << QByteArray("{\n  \"version\": ") << "x.json: line 2, column";
    QTest::newRow("empty") << QByteArray() << "x.json: line 1, column 1";
}

void tst_WorkspaceDocument::refusesWhatIsNotAnObject()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    QString error;
    QVERIFY(!WorkspaceDocument::fromJson(json, "x.json", &error));
    QVERIFY2(error.startsWith(expected), qPrintable(error));
}

void tst_WorkspaceDocument::adoptsAServerLimitAsAPolicy()
{
    QString error;
    auto doc = WorkspaceDocument::fromJson(kWorkspace, QStringLiteral("w.json"), &error);
    QVERIFY2(doc, qPrintable(error));
    // "measurements" has a policy already and keeps it; "upload" gets the new one.
    const QString id = doc->adoptServerLimit(
        QStringLiteral("api.example.com"), 5, 10000,
        {QStringLiteral("measurements"), QStringLiteral("upload"), QStringLiteral("gone")});
    QCOMPARE(id, QStringLiteral("server-api.example.com"));
    const QJsonObject policy = doc->policies().at(doc->policyIndex(id));
    QCOMPARE(policy.value(QLatin1String("limit")).toInt(), 5);
    QCOMPARE(policy.value(QLatin1String("window_seconds")).toInt(), 10);
    QCOMPARE(policy.value(QLatin1String("burst")).toInt(), 0);
    const auto endpoints = doc->endpoints();
    QCOMPARE(endpoints.at(doc->endpointIndex(QStringLiteral("upload")))
                 .value(QLatin1String("policy"))
                 .toString(),
             id);
    QCOMPARE(endpoints.at(doc->endpointIndex(QStringLiteral("measurements")))
                 .value(QLatin1String("policy"))
                 .toString(),
             QStringLiteral("read-v1"));
    // The workspace stays valid; a second adoption gets an id of its own, a window
    // stated in milliseconds is rounded up to whole seconds, a port becomes '-'.
    QVERIFY2(doc->validate(
                 &error, {},
                 QHash<QString, QString>{{QStringLiteral("DOC_TEST_TOKEN"), QStringLiteral("t")}}),
             qPrintable(error));
    QCOMPARE(doc->adoptServerLimit(QStringLiteral("api.example.com"), 3, 1500, {}),
             QStringLiteral("server-api.example.com-2"));
    QCOMPARE(doc->policies().last().value(QLatin1String("window_seconds")).toInt(), 2);
    QCOMPARE(doc->adoptServerLimit(QStringLiteral("[::1]:8080"), 3, 1000, {}),
             QStringLiteral("server----1--8080"));
}

QTEST_GUILESS_MAIN(tst_WorkspaceDocument)
#include "tst_workspacedocument.moc"
