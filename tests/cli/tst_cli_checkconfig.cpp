// SPDX-License-Identifier: Apache-2.0
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class tst_CliCheckConfig : public QObject
{
    Q_OBJECT

private:
    static QPair<int, QByteArray> check(const QStringList &args, QByteArray *out = nullptr)
    {
        QProcess p;
        p.start(QStringLiteral(COOLDOWN_BINARY),
                QStringList{QStringLiteral("check-config")} + args);
        if (!p.waitForFinished(30000))
            qFatal("check-config did not finish");
        if (out)
            *out = p.readAllStandardOutput();
        return {p.exitCode(), p.readAllStandardError()};
    }

private slots:
    void goodFile();
    void countsAreSingularOrPlural();
    void exampleWorkspacesAreValid();
    void badFile();
    void credentialsAndWarnings();
    void credentialFilesAndVariablesChecked_data();
    void credentialFilesAndVariablesChecked();
    void usage();
};

// English says "1 policy" and "2 endpoints", not "endpoint(s)": the counts come from
// the English plurals (resources/translations/cooldown_en.ts).
void tst_CliCheckConfig::countsAreSingularOrPlural()
{
    QTemporaryDir dir;
    QFile f(dir.filePath("two.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"version\": 1,"
            " \"policies\": [{\"policy_id\": \"p\", \"limit\": 10, \"window_seconds\": 5}],"
            " \"retry_profiles\": {\"default\": {\"max_attempts\": 3}, \"slow\": {}},"
            " \"endpoints\": [{\"id\": \"a\", \"url\": \"http://127.0.0.1:1/\"},"
            " {\"id\": \"b\", \"url\": \"http://127.0.0.1:1/b\", \"policy\": \"p\"}]}");
    f.close();
    QByteArray out;
    const auto [code, err] = check({f.fileName()}, &out);
    QCOMPARE(code, 0);
    QVERIFY2(err.isEmpty(), err.constData());
    QCOMPARE(out, f.fileName().toUtf8() + ": ok, 2 endpoints, 1 policy, 2 retry profiles\n");
}

// The workspaces the README tells a newcomer to copy are valid as they are.
void tst_CliCheckConfig::exampleWorkspacesAreValid()
{
    const QDir examples(QStringLiteral(COOLDOWN_SOURCE_DIR "/docs/examples"));
    const QStringList files = examples.entryList({QStringLiteral("*.json")}, QDir::Files);
    QVERIFY(!files.isEmpty());
    for (const QString &name : files) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("COOLDOWN_API_TOKEN"),
                   QStringLiteral("an-example-token-0123456789"));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(COOLDOWN_BINARY),
                {QStringLiteral("check-config"), examples.filePath(name)});
        QVERIFY(p.waitForFinished(30000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    }
}

void tst_CliCheckConfig::goodFile()
{
    QTemporaryDir dir;
    QFile f(dir.filePath("ok.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"version": 1, "endpoints": [{"id": "a", "url": "http://127.0.0.1:1/"}]})");
    f.close();
    QByteArray out;
    const auto [code, err] = check({f.fileName()}, &out);
    QCOMPARE(code, 0);
    QVERIFY2(err.isEmpty(), err.constData());
    QVERIFY2(out.contains("ok, 1 endpoint, 0 policies, 1 retry profile\n"), out.constData());
}

void tst_CliCheckConfig::badFile()
{
    QTemporaryDir dir;
    QFile f(dir.filePath("bad.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"version": 1, "endpoints": [{"id": "a", "url": "http://127.0.0.1:1/", "timeout_seconds": "ten"}]})");
    f.close();
    const auto [code, err] = check({f.fileName()});
    QCOMPARE(code, 2);
    QVERIFY2(err.contains("bad.json: endpoints[0].timeout_seconds: expected a number"),
             err.constData());
    QCOMPARE(err.count('\n'), 1);
}

// Each credential with the variables it reads, by name; a tls entry that does not verify
// host names as a warning. The values, secrets, appear nowhere.
void tst_CliCheckConfig::credentialsAndWarnings()
{
    QTemporaryDir dir;
    QFile f(dir.filePath("creds.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"version": 1,
      "tls": [{"id": "lab", "verify_hostname": false}],
      "credentials": [
        {"id": "plm", "type": "oauth2_client_credentials", "token_url": "https://idp.example.com/t",
         "client_id": "cooldown", "client_secret": "${env:CHECK_CLIENT_SECRET}"},
        {"id": "ops", "type": "basic", "username": "${env:CHECK_USER}", "password": "${env:CHECK_PASSWORD}"}],
      "endpoints": [{"id": "a", "url": "https://127.0.0.1:1/", "credentials": "plm", "tls": "lab"}]})");
    f.close();
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("CHECK_CLIENT_SECRET", "client-s3cr3t");
    env.insert("CHECK_USER", "operator-name");
    env.insert("CHECK_PASSWORD", "passw0rd-value");
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(COOLDOWN_BINARY), {QStringLiteral("check-config"), f.fileName()});
    QVERIFY(p.waitForFinished(30000));
    const QByteArray out = p.readAllStandardOutput();
    const QByteArray err = p.readAllStandardError();
    QCOMPARE(p.exitCode(), 0);
    const QByteArray name = f.fileName().toUtf8();
    QCOMPARE(out, name + ": ok, 1 endpoint, 0 policies, 1 retry profile\n" + name +
                      ": credentials 'plm' (oauth2_client_credentials) read CHECK_CLIENT_SECRET "
                      "from the environment\n" +
                      name +
                      ": credentials 'ops' (basic) read CHECK_USER, CHECK_PASSWORD from the "
                      "environment\n");
    QCOMPARE(err, "cooldown check-config: " + name +
                      ": warning: tls 'lab' does not verify host names (verify_hostname: false), "
                      "for: a, the token requests of credentials plm\n");
    for (const QByteArray secret : {"client-s3cr3t", "operator-name", "passw0rd-value"}) {
        QVERIFY(!out.contains(secret));
        QVERIFY(!err.contains(secret));
    }
}

void tst_CliCheckConfig::credentialFilesAndVariablesChecked_data()
{
    QTest::addColumn<QByteArray>("sections");
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("variable unset")
        << QByteArray(
               R"("credentials": [{"id": "c", "type": "bearer", "token": "${env:COOLDOWN_CHECK_UNSET}"}],)")
        << QByteArray(
               ": credentials[0].token: environment variable COOLDOWN_CHECK_UNSET is not set");
    QTest::newRow("ca file missing")
        << QByteArray(R"("tls": [{"id": "t", "ca_file": "corp-ca.pem"}],)")
        << QByteArray(": tls[0].ca_file: @DIR@/corp-ca.pem does not exist");
    QTest::newRow("ca file not a certificate")
        << QByteArray(R"("tls": [{"id": "t", "ca_file": "ws.json"}],)")
        << QByteArray(": tls[0].ca_file: @DIR@/ws.json holds no certificate");
}

// The files a tls entry names and the variables credentials read are checked, not only
// the JSON.
void tst_CliCheckConfig::credentialFilesAndVariablesChecked()
{
    QFETCH(QByteArray, sections);
    QFETCH(QByteArray, message);
    QTemporaryDir dir;
    QFile f(dir.filePath("ws.json"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"version": 1, )" + sections +
            R"( "endpoints": [{"id": "a", "url": "https://127.0.0.1:1/"}]})");
    f.close();
    const auto [code, err] = check({f.fileName()});
    QCOMPARE(code, 2);
    const QByteArray expected =
        f.fileName().toUtf8() + message.replace("@DIR@", dir.path().toUtf8());
    QVERIFY2(err.contains(expected), err.constData());
}

void tst_CliCheckConfig::usage()
{
    QCOMPARE(check({}).first, 2);
    QCOMPARE(check({"a.json", "b.json"}).first, 2);
}

QTEST_GUILESS_MAIN(tst_CliCheckConfig)
#include "tst_cli_checkconfig.moc"
