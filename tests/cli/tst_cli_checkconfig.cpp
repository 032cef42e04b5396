// SPDX-License-Identifier: Apache-2.0
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
    void badFile();
    void usage();
};

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
    QVERIFY(out.contains("ok, 1 endpoint(s)"));
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
