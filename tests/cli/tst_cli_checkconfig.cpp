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

void tst_CliCheckConfig::usage()
{
    QCOMPARE(check({}).first, 2);
    QCOMPARE(check({"a.json", "b.json"}).first, 2);
}

QTEST_GUILESS_MAIN(tst_CliCheckConfig)
#include "tst_cli_checkconfig.moc"
