// SPDX-License-Identifier: Apache-2.0
#include "support/CooldownRun.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

// `cooldown import curl` run as a user would (docs/import.md): the file it writes, the
// variables it asks for, and what it refuses.
class tst_CliImport : public QObject
{
    Q_OBJECT

private:
    static CooldownResult cooldown(const QStringList &args)
    {
        return runCooldown(args, QProcessEnvironment::systemEnvironment(), 30000);
    }

    QTemporaryDir m_dir;

private slots:
    void importsAndReimports();
    void scriptOfCommands();
    void refusals();
    void previewNamesWhatItLeavesAndWarns();
};

void tst_CliImport::importsAndReimports()
{
    const QString ws = m_dir.filePath(QStringLiteral("ws.json"));
    const QString command = QStringLiteral(
        "curl -X POST 'https://api.example.com/v1/orders?api_key=k-123' -H 'Authorization: "
        "Bearer sk_live_1' -H 'Content-Type: application/json' -d '{\"item\": \"A\"}'");
    CooldownResult r = cooldown({"import", "curl", command, "--config", ws, "--dry-run"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("add post-orders: POST"), r.out.constData());
    QVERIFY2(r.out.contains("check-config: the workspace loads"), r.out.constData());
    QVERIFY2(r.out.contains("export POST_ORDERS_TOKEN="), r.out.constData());
    QVERIFY(!QFile::exists(ws)); // --dry-run wrote nothing

    r = cooldown({"import", "curl", command, "--config", ws});
    QCOMPARE(r.exitCode, 0);
    const QByteArray written = readTextFile(ws);
    QVERIFY(written.contains("\"imported_from\""));
    QVERIFY(!written.contains("k-123") && !written.contains("sk_live_1"));
    // Loads, once the variables it names are set.
    QProcess check;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("POST_ORDERS_TOKEN"), QStringLiteral("t"));
    env.insert(QStringLiteral("POST_ORDERS_API_KEY"), QStringLiteral("k"));
    check.setProcessEnvironment(env);
    check.start(QStringLiteral(COOLDOWN_BINARY), {"check-config", ws});
    QVERIFY(check.waitForFinished(30000));
    QVERIFY2(check.exitCode() == 0, check.readAllStandardError().constData());

    // Again: unchanged, byte for byte.
    r = cooldown({"import", "curl", command, "--config", ws});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("unchanged post-orders"), r.out.constData());
    QCOMPARE(readTextFile(ws), written);
}

void tst_CliImport::scriptOfCommands()
{
    const QString script = m_dir.filePath(QStringLiteral("calls.sh"));
    const QString ws = m_dir.filePath(QStringLiteral("script.json"));
    const QByteArray calls =
        "#!/bin/sh\n# two calls from the docs\ncurl https://a.example/v1/health \\\n"
        "  -H 'Accept: application/json'\n\necho between\n"
        "curl ^\"https://a.example/v1/items^\" ^\n  -H ^\"x-api-key: abc^\"\n";
    QVERIFY(writeTextFile(script, calls));
    const CooldownResult r = cooldown({"import", "curl", "--file", script, "--config", ws});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("add get-health") && r.out.contains("add get-items"),
             r.out.constData());
    QVERIFY2(r.out.contains("line 6: not a curl command, left out"), r.out.constData());
    QVERIFY2(r.out.contains("export GET_ITEMS_X_API_KEY="), r.out.constData());
    QVERIFY(!readTextFile(ws).contains("abc"));
}

// The preview names the endpoints it leaves as they are, and says what check-config
// would warn of: curl's -k, a tls entry that checks no certificate.
void tst_CliImport::previewNamesWhatItLeavesAndWarns()
{
    const QString ws = m_dir.filePath(QStringLiteral("insecure.json"));
    const QByteArray own = R"({"version": 1, "endpoints": [
        {"id": "mine", "url": "https://own.example/a"},
        {"id": "also-mine", "url": "https://own.example/b"}]})";
    QVERIFY(writeTextFile(ws, own));
    const CooldownResult r = cooldown(
        {"import", "curl", "curl -k https://lab.example/v1/status", "--config", ws, "--dry-run"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("add get-status: GET https://lab.example/v1/status"),
             r.out.constData());
    QVERIFY2(r.out.contains("  tls get-status-insecure\n"), r.out.constData());
    QVERIFY2(r.out.contains("left as they are: 2 endpoints this source did not make: mine, "
                            "also-mine\n"),
             r.out.constData());
    QVERIFY2(r.out.contains("check-config: warning: tls 'get-status-insecure' does not verify "
                            "certificates at all (verify_certificate: false)"),
             r.out.constData());
}

void tst_CliImport::refusals()
{
    const QString ws = m_dir.filePath(QStringLiteral("refused.json"));
    const QString bad = m_dir.filePath(QStringLiteral("bad.sh"));
    QVERIFY(
        writeTextFile(bad, "curl https://a.example/ok\ncurl -H 'X: y https://a.example/open\n"));
    struct Case
    {
        QStringList args;
        QByteArray message;
    };
    const QList<Case> cases = {
        {{"import", "wget", "x", "--config", ws},
         "expected what to import from: curl, openapi or postman, got 'wget'"},
        {{"import", "curl", "curl https://a.example/"}, "--config F"},
        {{"import", "curl", "--config", ws}, "give the curl command or --file F"},
        {{"import", "curl", "--file", m_dir.filePath("none.sh"), "--config", ws},
         "--file: cannot read"},
        {{"import", "curl", "--file", bad, "--config", ws},
         "bad.sh: line 2: a ' opened at line 2, column 9 is not closed"},
        {{"import", "curl", "curl --proxy http://p https://a.example/", "--config", ws},
         "--proxy is not an option the import knows"},
        {{"import", "curl", "curl https://a.example/", "--config", ws, "--every", "0"},
         "--every: expected whole seconds"},
        {{"import", "curl", "--file", bad, "--config", ws, "--id", "x"}, "--id names one endpoint"},
    };
    for (const Case &c : cases) {
        const CooldownResult r = cooldown(c.args);
        QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(QLatin1Char(' '))));
        QVERIFY2(r.err.contains(c.message), r.err.constData());
    }
    QVERIFY(!QFile::exists(ws));
}

QTEST_GUILESS_MAIN(tst_CliImport)
#include "tst_cli_import.moc"
