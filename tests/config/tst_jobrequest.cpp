// SPDX-License-Identifier: Apache-2.0
// Jobs handed in from outside: ${job:NAME} placeholders in a workspace, filling them,
// checking a job against its workspace, and what an idempotency key stands for.

#include "core/config/JobRequest.h"
#include "core/config/WorkspaceConfig.h"

#include <QJsonDocument>
#include <QTest>

using namespace cooldown;

namespace {

const QHash<QString, QString> kEnvironment = {
    {QStringLiteral("BOM_TOKEN"), QStringLiteral("tok-9f8e7d6c5b4a")}};

std::optional<WorkspaceConfig> parse(const QByteArray &endpoints, QString *error,
                                     const QHash<QString, QString> &env = kEnvironment)
{
    const QByteArray json = R"({"version": 1,
        "policies": [{"policy_id": "bom", "limit": 10, "window_seconds": 60}],
        "endpoints": [)" + endpoints +
                            "]}";
    return WorkspaceConfig::parse(json, QStringLiteral("w.json"), error, {}, env);
}

const QByteArray kUpload = R"({"id": "bom-upload", "method": "POST",
    "url": "https://plm.example.com/api/boms/${job:part}/revisions?rev=${job:rev}",
    "headers": {"Authorization": "Bearer ${env:BOM_TOKEN}", "Content-Type": "application/json",
                "X-Revision": "${job:rev}"},
    "body": "{\"part\": \"${job:part}\", \"note\": \"${job:note}\"}",
    "policy": "bom", "partition_key": "${job:tenant}",
    "idempotency": {"header": "Idempotency-Key"}})";

JobRequest job(JobValues values)
{
    JobRequest j;
    j.endpointId = QStringLiteral("bom-upload");
    j.values = std::move(values);
    return j;
}

JobValues goodValues()
{
    return {{QStringLiteral("part"), QStringLiteral("A-100/7")},
            {QStringLiteral("rev"), QStringLiteral("C")},
            {QStringLiteral("note"), QStringLiteral("says \"hi\"\n")},
            {QStringLiteral("tenant"), QStringLiteral("tenant-42")}};
}

} // namespace

class tst_JobRequest : public QObject
{
    Q_OBJECT

private slots:
    void fillsEachPlaceholderAsItsPlaceNeeds();
    void aWorkspaceKeepsPlaceholdersAndRunsSuchEndpointsOnlyForJobs();
    void placeholdersWhereAJobCannotFillThemAreRefused_data();
    void placeholdersWhereAJobCannotFillThemAreRefused();
    void aJobIsCheckedAgainstItsEndpoint_data();
    void aJobIsCheckedAgainstItsEndpoint();
    void partitionKeysThatNamePeopleOrGrantAccessAreRefused_data();
    void partitionKeysThatNamePeopleOrGrantAccessAreRefused();
    void aKeyStandsForOneRequestAndNoSecret();
    void jobsReadFromJson();
};

void tst_JobRequest::fillsEachPlaceholderAsItsPlaceNeeds()
{
    QString error;
    const auto config = parse(kUpload, &error);
    QVERIFY2(config, qPrintable(error));
    const EndpointConfig &e = config->endpoints.first();
    QString problem;
    const auto filled = fillRequest(e, goodValues(), {}, &problem);
    QVERIFY2(filled, qPrintable(problem));
    // In the URL every byte but the unreserved ones is percent-encoded: a value
    // cannot add a path segment or a query parameter.
    QCOMPARE(filled->url.toString(QUrl::FullyEncoded),
             QStringLiteral("https://plm.example.com/api/boms/A-100%2F7/revisions?rev=C"));
    // A JSON body gets the inside of a JSON string: it stays JSON.
    const QJsonDocument body = QJsonDocument::fromJson(filled->body);
    QVERIFY2(body.isObject(), filled->body.constData());
    QCOMPARE(body.object().value(QLatin1String("note")).toString(),
             QStringLiteral("says \"hi\"\n"));
    QCOMPARE(filled->headers.value("X-Revision").value_or(QByteArray()), QByteArray("C"));
    QCOMPARE(filled->headers.value("Authorization").value_or(QByteArray()),
             QByteArray("Bearer tok-9f8e7d6c5b4a"));
    QCOMPARE(filled->partitionKey, QStringLiteral("tenant-42"));

    // A value that would split a header field is refused, naming the placeholder.
    JobValues values = goodValues();
    values.insert(QStringLiteral("rev"), QStringLiteral("C\r\nX-Evil: 1"));
    QVERIFY(!fillRequest(e, values, {}, &problem));
    QVERIFY2(problem.contains(QLatin1String("${job:rev}")), qPrintable(problem));

    // A job's own body is sent as given.
    const auto own = fillRequest(e, goodValues(), "raw ${job:part}", &problem);
    QVERIFY(own);
    QCOMPARE(own->body, QByteArray("raw ${job:part}"));

    // Text without placeholders is left alone; a missing value is named.
    QCOMPARE(jobtemplate::fill(u"plain", {}, jobtemplate::Escape::Url, &problem),
             QStringLiteral("plain"));
    QVERIFY(!jobtemplate::fill(u"a${job:b}", {}, jobtemplate::Escape::None, &problem));
    QVERIFY2(problem.contains(QLatin1String("${job:b}")), qPrintable(problem));
}

void tst_JobRequest::aWorkspaceKeepsPlaceholdersAndRunsSuchEndpointsOnlyForJobs()
{
    QString error;
    const auto config = parse(kUpload + R"(, {"id": "ping", "url": "https://plm.example.com/ping"},
        {"id": "import", "method": "POST", "url": "https://plm.example.com/import",
         "enqueue_only": true})",
                              &error);
    QVERIFY2(config, qPrintable(error));
    const EndpointConfig &upload = config->endpoints.at(0);
    QVERIFY(upload.enqueueOnly);
    QCOMPARE(upload.jobFields, (QStringList{QStringLiteral("part"), QStringLiteral("rev"),
                                            QStringLiteral("note"), QStringLiteral("tenant")}));
    QCOMPARE(upload.url.host(), QStringLiteral("plm.example.com"));
    QVERIFY(!config->endpoints.at(1).enqueueOnly);
    QVERIFY(config->endpoints.at(1).jobFields.isEmpty());
    QVERIFY(config->endpoints.at(2).enqueueOnly);
}

void tst_JobRequest::placeholdersWhereAJobCannotFillThemAreRefused_data()
{
    QTest::addColumn<QByteArray>("endpoints");
    QTest::addColumn<QString>("expected");
    QTest::newRow("host") << QByteArray(R"({"id": "a", "url": "https://${job:host}/x"})")
                          << QStringLiteral("endpoints[0].url: a ${job:NAME} placeholder may "
                                            "stand in the path or the query");
    QTest::newRow("periodic")
        << QByteArray(R"({"id": "a", "url": "https://h.example/${job:x}", "every_seconds": 5})")
        << QStringLiteral("endpoints[0].every_seconds: an endpoint with ${job:NAME} "
                          "placeholders runs only enqueued jobs");
    QTest::newRow("not enqueue-only")
        << QByteArray(R"({"id": "a", "url": "https://h.example/${job:x}", "enqueue_only": false})")
        << QStringLiteral("endpoints[0].enqueue_only:");
    QTest::newRow("misspelt scope")
        << QByteArray(R"({"id": "a", "url": "https://h.example/${jbo:x}"})")
        << QStringLiteral("endpoints[0].url: unknown reference ${jbo:x}");
    QTest::newRow("unclosed")
        << QByteArray(R"({"id": "a", "url": "https://h.example/", "body": "${job:x"})")
        << QStringLiteral("endpoints[0].body: malformed reference");
    QTest::newRow("e-mail partition key")
        << QByteArray(R"({"id": "a", "url": "https://h.example/", "policy": "bom",
                          "partition_key": "jane.doe@example.com"})")
        << QStringLiteral("endpoints[0].partition_key: looks like an e-mail address");
}

void tst_JobRequest::placeholdersWhereAJobCannotFillThemAreRefused()
{
    QFETCH(QByteArray, endpoints);
    QFETCH(QString, expected);
    QString error;
    QVERIFY(!parse(endpoints, &error));
    QVERIFY2(error.contains(expected), qPrintable(error));

    // An alert target has no job to fill anything.
    const QByteArray alert =
        R"({"version": 1, "endpoints": [{"id": "a", "url": "https://h.example/"}],
        "alerts": [{"id": "ops", "url": "https://chat.example/${job:room}", "events": ["policy_drift"]}]})";
    QVERIFY(!WorkspaceConfig::parse(alert, QStringLiteral("w.json"), &error, {}, kEnvironment));
    QVERIFY2(error.contains(QLatin1String("alerts[0]: an alert target cannot hold")),
             qPrintable(error));
}

void tst_JobRequest::aJobIsCheckedAgainstItsEndpoint_data()
{
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QStringList>("drop");  // values left out
    QTest::addColumn<QStringList>("extra"); // NAME=VALUE added
    QTest::addColumn<QString>("expected");  // empty: accepted
    QTest::newRow("good") << QStringLiteral("bom-upload") << QStringList() << QStringList()
                          << QString();
    QTest::newRow("missing") << QStringLiteral("bom-upload") << QStringList{QStringLiteral("rev")}
                             << QStringList()
                             << QStringLiteral("line 3: $.vars: missing 'rev', which endpoint "
                                               "bom-upload needs for ${job:rev}");
    QTest::newRow("misspelt") << QStringLiteral("bom-upload") << QStringList()
                              << QStringList{QStringLiteral("revison=D")}
                              << QStringLiteral("line 3: $.vars.revison: endpoint bom-upload has "
                                                "no ${job:revison} placeholder");
    QTest::newRow("unknown endpoint")
        << QStringLiteral("bom-uplaod") << QStringList() << QStringList()
        << QStringLiteral("line 3: $.endpoint: no endpoint "
                          "'bom-uplaod' in w.json");
    QTest::newRow("periodic") << QStringLiteral("tick") << QStringList{} << QStringList{}
                              << QStringLiteral(
                                     "line 3: $.endpoint: endpoint tick runs every 60 s");
    QTest::newRow("header break") << QStringLiteral("bom-upload") << QStringList()
                                  << QStringList{QStringLiteral("rev=C\nX: y")}
                                  << QStringLiteral("line 3: $.vars: the value of ${job:rev} goes "
                                                    "into a header field");
}

void tst_JobRequest::aJobIsCheckedAgainstItsEndpoint()
{
    QFETCH(QString, endpoint);
    QFETCH(QStringList, drop);
    QFETCH(QStringList, extra);
    QFETCH(QString, expected);
    QString error;
    const auto config = parse(
        kUpload + R"(, {"id": "tick", "url": "https://plm.example.com/t", "every_seconds": 60})",
        &error);
    QVERIFY2(config, qPrintable(error));
    JobRequest j = job(goodValues());
    j.endpointId = endpoint;
    for (const QString &name : drop)
        j.values.remove(name);
    for (const QString &pair : extra)
        j.values.insert(pair.section(QLatin1Char('='), 0, 0), pair.section(QLatin1Char('='), 1));
    if (endpoint == QLatin1String("tick"))
        j.values.clear();
    const auto problem = checkJob(*config, j, QStringLiteral("line 3: $"));
    if (expected.isEmpty())
        QVERIFY2(!problem, qPrintable(problem.value_or(QString())));
    else
        QVERIFY2(problem && problem->startsWith(expected), qPrintable(problem.value_or(QString())));
}

void tst_JobRequest::partitionKeysThatNamePeopleOrGrantAccessAreRefused_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<bool>("refused");
    QTest::newRow("tenant id") << QStringLiteral("tenant-42") << false;
    QTest::newRow("uuid") << QStringLiteral("3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f") << false;
    QTest::newRow("host") << QStringLiteral("plm.example.com") << false;
    QTest::newRow("e-mail") << QStringLiteral("jane.doe@example.com") << true;
    QTest::newRow("e-mail inside") << QStringLiteral("user:jane@corp.example.co.jp") << true;
    QTest::newRow("stripe key") << QStringLiteral("sk_live_4eC39HqLyjWDarjtT1zdp7dc") << true;
    QTest::newRow("github token") << QStringLiteral("ghp_16C7e42F292c6912E7710c838347Ae178B4a")
                                  << true;
    QTest::newRow("jwt") << QStringLiteral("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig") << true;
    QTest::newRow("random run") << QStringLiteral("k/Zr9Qm2XvB7tLp4Yw8NcHs3Df6Gj1Ka0Ue5") << true;
    // The workspace's own secret, read from the environment.
    QTest::newRow("workspace secret") << QStringLiteral("acme-tok-9f8e7d6c5b4a") << true;
}

void tst_JobRequest::partitionKeysThatNamePeopleOrGrantAccessAreRefused()
{
    QFETCH(QString, key);
    QFETCH(bool, refused);
    QString error;
    const auto config = parse(kUpload, &error);
    QVERIFY2(config, qPrintable(error));
    QCOMPARE(!partitionKeyProblem(*config, key).isEmpty(), refused);
    JobRequest j = job(goodValues());
    j.partitionKey = key;
    const auto problem = checkJob(*config, j, QStringLiteral("$"));
    QCOMPARE(problem.has_value(), refused);
    if (refused)
        QVERIFY2(problem->startsWith(QLatin1String("$.partition_key: looks like")),
                 qPrintable(*problem));
}

void tst_JobRequest::aKeyStandsForOneRequestAndNoSecret()
{
    QString error;
    const auto config = parse(kUpload, &error);
    QVERIFY2(config, qPrintable(error));
    const EndpointConfig &e = config->endpoints.first();
    const QString hash = requestHash(e, job(goodValues()));
    QCOMPARE(hash.size(), 64);
    QCOMPARE(requestHash(e, job(goodValues())), hash);

    JobValues other = goodValues();
    other.insert(QStringLiteral("rev"), QStringLiteral("D"));
    QVERIFY(requestHash(e, job(other)) != hash);
    JobRequest ownBody = job(goodValues());
    ownBody.body = QByteArray("{}");
    QVERIFY(requestHash(e, ownBody) != hash);

    // A rotated secret is the same request: the hash reads the headers as written.
    const auto rotated =
        parse(kUpload, &error, {{QStringLiteral("BOM_TOKEN"), QStringLiteral("tok-rotated-1")}});
    QVERIFY2(rotated, qPrintable(error));
    QCOMPARE(requestHash(rotated->endpoints.first(), job(goodValues())), hash);
    // The partition key and the key itself are not the request.
    JobRequest keyed = job(goodValues());
    keyed.idempotencyKey = QStringLiteral("upload-1");
    keyed.partitionKey = QStringLiteral("tenant-7");
    QCOMPARE(requestHash(e, keyed), hash);
}

void tst_JobRequest::jobsReadFromJson()
{
    QString error;
    const auto j = JobRequest::fromJson(
        QJsonDocument::fromJson(R"({"endpoint": "bom-upload", "vars": {"part": "A", "rev": 3},
            "body": "x", "partition_key": "t", "idempotency_key": "k",
            "not_before": "2026-12-01T10:00:00Z"})")
            .object(),
        QStringLiteral("line 1: $"), &error);
    QVERIFY2(j, qPrintable(error));
    QCOMPARE(j->values.value(QStringLiteral("rev")), QStringLiteral("3"));
    QCOMPARE(j->body, std::optional<QByteArray>(QByteArray("x")));
    QCOMPARE(j->notBeforeMs,
             QDateTime(QDate(2026, 12, 1), QTime(10, 0), Qt::UTC).toMSecsSinceEpoch());

    QVERIFY(
        !JobRequest::fromJson(QJsonDocument::fromJson(R"({"endpoint": "e", "varz": {}})").object(),
                              QStringLiteral("line 2: $"), &error));
    QVERIFY2(error.startsWith(QLatin1String("line 2: $.varz")), qPrintable(error));
    QVERIFY(!JobRequest::fromJson(
        QJsonDocument::fromJson(R"({"endpoint": "e", "vars": {"a": [1]}})").object(),
        QStringLiteral("$"), &error));
    QVERIFY2(error.startsWith(QLatin1String("$.vars.a: expected a string or a number")),
             qPrintable(error));
    QVERIFY(!JobRequest::fromJson(
        QJsonDocument::fromJson(R"({"endpoint": "e", "not_before": "tomorrow"})").object(),
        QStringLiteral("$"), &error));
    QVERIFY2(error.startsWith(QLatin1String("$.not_before:")), qPrintable(error));
}

QTEST_GUILESS_MAIN(tst_JobRequest)
#include "tst_jobrequest.moc"
