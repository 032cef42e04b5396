// SPDX-License-Identifier: Apache-2.0
#include "support/CooldownRun.h"

#include <QCoreApplication>
#include <QFile>
#include <QHostAddress>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

// `cooldown import openapi` and `cooldown import postman` run as a user would
// (docs/import.md): the workspace they write, --dry-run, a document fetched from a
// server on this machine, and the sources they refuse, naming where, writing nothing.
class tst_CliImportDocuments : public QObject
{
    Q_OBJECT

private:
    static QString data(const QString &name)
    {
        return QStringLiteral(COOLDOWN_TEST_DATA "/") + name;
    }
    static CooldownResult cooldown(const QStringList &args,
                                   const std::function<void()> &whileRunning = {})
    {
        return runCooldown(args, QProcessEnvironment::systemEnvironment(), 30000, whileRunning);
    }
    // check-config of the written file, with the variables the import asked for set.
    static QByteArray checkConfig(const QString &ws, const QByteArray &importOutput)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const QByteArray &line : importOutput.split('\n')) {
            if (line.startsWith("export "))
                env.insert(QString::fromUtf8(line.mid(7, line.indexOf('=') - 7)),
                           QStringLiteral("x"));
        }
        QProcess check;
        check.setProcessEnvironment(env);
        check.start(QStringLiteral(COOLDOWN_BINARY), {QStringLiteral("check-config"), ws});
        check.waitForFinished(30000);
        return check.exitCode() == 0 ? QByteArray("ok") : check.readAllStandardError();
    }

    QTemporaryDir m_dir;

private slots:
    void openapiFromFile();
    void openapiFromLoopbackUrl();
    void refusals_data();
    void refusals();
    void postmanWithEnvironment();
    void publicDocuments_data();
    void publicDocuments();
    void postmanFromPostmansConverter();
};

void tst_CliImportDocuments::openapiFromFile()
{
    const QString ws = m_dir.filePath(QStringLiteral("billing.json"));
    const QString source = data(QStringLiteral("openapi/billing.json"));
    CooldownResult r = cooldown({"import", "openapi", source, "--config", ws, "--dry-run"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("add create-invoice: POST https://api.billing.example.com/v1/invoices"),
             r.out.constData());
    QVERIFY2(r.out.contains("check-config: the workspace loads"), r.out.constData());
    QVERIFY2(r.out.contains("export BILLING_OAUTH_CLIENT_SECRET="), r.out.constData());
    QVERIFY(!QFile::exists(ws));

    r = cooldown({"import", "openapi", source, "--config", ws, "--env-prefix", "ACME"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("export ACME_OAUTH_CLIENT_SECRET="), r.out.constData());
    QCOMPARE(checkConfig(ws, r.out), QByteArray("ok"));
    const QByteArray written = readTextFile(ws);
    QVERIFY(written.contains("\"imported_from\": \"openapi:Billing#createInvoice\""));

    // Again: every endpoint unchanged, the file the same byte for byte.
    r = cooldown({"import", "openapi", source, "--config", ws, "--env-prefix", "ACME"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out.count("unchanged "), 4);
    QCOMPARE(readTextFile(ws), written);
}

// A document on a server of this machine: fetched, and its relative server taken from
// where it came from. Only loopback traffic: the server is the test's own.
void tst_CliImportDocuments::openapiFromLoopbackUrl()
{
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost, 0));
    QByteArray requestLine;
    QFile spec(data(QStringLiteral("openapi/basic-and-unsupported.yaml")));
    QVERIFY(spec.open(QIODevice::ReadOnly));
    const QByteArray body = spec.readAll();
    connect(&server, &QTcpServer::newConnection, this, [&] {
        QTcpSocket *socket = server.nextPendingConnection();
        connect(socket, &QTcpSocket::readyRead, socket, [&, socket] {
            const QByteArray request = socket->readAll();
            requestLine = request.left(request.indexOf('\r'));
            socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/yaml\r\nContent-Length: " +
                          QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
            socket->disconnectFromHost();
        });
    });
    const QString url =
        QStringLiteral("http://127.0.0.1:%1/specs/erp.yaml").arg(server.serverPort());
    const QString ws = m_dir.filePath(QStringLiteral("erp.json"));
    const CooldownResult r = cooldown({"import", "openapi", url, "--config", ws},
                                      [] { QCoreApplication::processEvents(); });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(requestLine, QByteArray("GET /specs/erp.yaml HTTP/1.1"));
    QVERIFY2(
        r.out.contains(QStringLiteral("add list-orders: GET http://127.0.0.1:%1/erp/api/orders")
                           .arg(server.serverPort())
                           .toUtf8()),
        r.out.constData());
    QCOMPARE(checkConfig(ws, r.out), QByteArray("ok"));
}

void tst_CliImportDocuments::refusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString errors = data(QStringLiteral("openapi/errors/"));
    QTest::newRow("bad YAML") << QStringList{"openapi", errors + "bad-indent.yaml"}
                              << errors + "bad-indent.yaml: line 10: end of map flow not found";
    QTest::newRow("unresolved $ref")
        << QStringList{"openapi", errors + "unresolved-ref.yaml"}
        << errors + "unresolved-ref.yaml: paths[\"/things/{id}\"].get.parameters[0].$ref: "
                    "'#/components/parameters/ThingId' names nothing in the document";
    QTest::newRow("Swagger 2.0") << QStringList{"openapi", errors + "swagger2.json"}
                                 << errors + "swagger2.json: swagger: Swagger 2.0 is not read";
    QTest::newRow("missing file") << QStringList{"openapi", errors + "none.yaml"}
                                  << "cannot read " + errors + "none.yaml";
    QTest::newRow("not on this machine")
        << QStringList{"openapi", "http://192.0.2.10/openapi.yaml"}
        << "http://192.0.2.10/openapi.yaml: only a URL on this machine (http or https to "
           "127.0.0.1, ::1 or localhost) is fetched";
    QTest::newRow("--server out of range")
        << QStringList{"openapi", data("openapi/billing.json"), "--server", "2"}
        << "--server 2: expected a URL or a number from 1 to 1";
    QTest::newRow("postman v2.0")
        << QStringList{"postman", data("postman/errors-v2.0.postman_collection.json")}
        << "info.schema: expected a collection of format v2.1";
    QTest::newRow("--environment for openapi")
        << QStringList{"openapi", data("openapi/billing.json"), "--environment", "e.json"}
        << "--environment is for Postman collections";
}

// Exit 2 with where and what; the workspace as it was.
void tst_CliImportDocuments::refusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const QString ws = m_dir.filePath(QStringLiteral("kept.json"));
    const QByteArray before = "{\n  \"version\": 1\n}\n";
    QVERIFY(writeTextFile(ws, before));
    const CooldownResult r = cooldown(QStringList{"import"} + args + QStringList{"--config", ws});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QCOMPARE(readTextFile(ws), before);
}

void tst_CliImportDocuments::postmanWithEnvironment()
{
    const QString ws = m_dir.filePath(QStringLiteral("shop.json"));
    const QString environment = data(QStringLiteral("postman/shop.postman_environment.json"));
    const CooldownResult r =
        cooldown({"import", "postman", data(QStringLiteral("postman/shop.postman_collection.json")),
                  "--environment", environment, "--config", ws});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("add orders-refunds-refund-order: POST "
                            "https://staging.shop.example.com/v3/refunds"),
             r.out.constData());
    QVERIFY2(r.out.contains("left out: Catalogue / Upload image"), r.out.constData());
    QVERIFY2(r.out.contains("export SHOP_PARTNER_API_ACCESS_TOKEN="), r.out.constData());
    QCOMPARE(checkConfig(ws, r.out), QByteArray("ok"));
    const QByteArray written = readTextFile(ws);
    for (const char *secret : {"staging-token-7f3a", "rcs_0d9c8b7a", "cat_key_5b2e91",
                               "R3fund!pass", "whsec_collection_9f8e7d", "ak_live_literal123"}) {
        QVERIFY2(!written.contains(secret), secret);
        QVERIFY2(!r.out.contains(secret), secret);
    }
}

// Real documents (tests/data/openapi/public/README.md): every operation imported,
// check-config clean, and a second import leaves the file the same byte for byte.
void tst_CliImportDocuments::publicDocuments_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("operations");
    // The security schemes: mapped to a credential (lines of the preview, how many), and
    // refused with their reason (how many operations say so).
    QTest::addColumn<QByteArray>("mapped");
    QTest::addColumn<int>("mappedCount");
    QTest::addColumn<QByteArray>("refused");
    QTest::addColumn<int>("refusedCount");
    const QByteArray apiKey = "  credentials swagger-petstore-api-key (header)\n";
    const QByteArray implicit =
        "  no credentials: petstore_auth: OAuth 2.0 without the client credentials flow "
        "(implicit): the engine has no user to sign in";
    QTest::newRow("petstore 3.0 yaml") << "petstore.yaml" << 20 << apiKey << 2 << implicit << 7;
    QTest::newRow("petstore 3.1 json") << "petstore-3.1.json" << 20 << apiKey << 2 << implicit << 7;
    QTest::newRow("uspto 3.0 yaml") << "uspto.yaml" << 3 << QByteArray() << 0 << QByteArray() << 0;
    QTest::newRow("train travel 3.1 json")
        << "train-travel.json" << 7 << QByteArray() << 0
        << QByteArray("  no credentials: OAuth2: OAuth 2.0 without the client credentials flow "
                      "(authorizationCode): the engine has no user to sign in")
        << 7;
}

void tst_CliImportDocuments::publicDocuments()
{
    QFETCH(QString, file);
    QFETCH(int, operations);
    QFETCH(QByteArray, mapped);
    QFETCH(int, mappedCount);
    QFETCH(QByteArray, refused);
    QFETCH(int, refusedCount);
    const QString source = data(QStringLiteral("openapi/public/") + file);
    const QString ws =
        m_dir.filePath(QStringLiteral("public-") + file + QStringLiteral(".ws.json"));
    CooldownResult r = cooldown({"import", "openapi", source, "--config", ws});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(int(r.out.count("\nadd ") + (r.out.startsWith("add ") ? 1 : 0)), operations);
    if (mappedCount > 0)
        QCOMPARE(int(r.out.count(mapped)), mappedCount);
    if (refusedCount > 0)
        QCOMPARE(int(r.out.count(refused)), refusedCount);
    QCOMPARE(int(r.out.count("  credentials ")), mappedCount);
    QCOMPARE(checkConfig(ws, r.out), QByteArray("ok"));
    const QByteArray written = readTextFile(ws);
    r = cooldown({"import", "openapi", source, "--config", ws});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(int(r.out.count("unchanged ")), operations);
    QCOMPARE(readTextFile(ws), written);
}

// tests/data/postman/public/README.md: a collection as Postman's converter writes it.
void tst_CliImportDocuments::postmanFromPostmansConverter()
{
    const QString ws = m_dir.filePath(QStringLiteral("train-travel.ws.json"));
    const QStringList args = {
        "import",
        "postman",
        data(QStringLiteral("postman/public/train-travel.postman_collection.json")),
        "--environment",
        data(QStringLiteral("postman/public/train-travel.postman_environment.json")),
        "--config",
        ws};
    CooldownResult r = cooldown(args);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(int(r.out.count("\nadd ") + (r.out.startsWith("add ") ? 1 : 0)), 7);
    QVERIFY2(r.out.contains("add stations-get-a-list-of-train-stations: GET "
                            "https://staging.api.example.com/stations\n"),
             r.out.constData());
    QVERIFY2(r.out.contains("GET https://staging.api.example.com/trips?origin="),
             r.out.constData());
    QVERIFY2(
        r.out.contains("POST https://staging.api.example.com/bookings/${job:bookingId}/payment"),
        r.out.constData());
    QVERIFY(!r.out.contains("https://https"));
    QCOMPARE(checkConfig(ws, r.out), QByteArray("ok"));
    const QByteArray written = readTextFile(ws);
    r = cooldown(args);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(int(r.out.count("unchanged ")), 7);
    QCOMPARE(readTextFile(ws), written);
}

QTEST_GUILESS_MAIN(tst_CliImportDocuments)
#include "tst_cli_import_documents.moc"
