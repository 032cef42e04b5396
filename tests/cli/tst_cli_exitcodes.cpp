// SPDX-License-Identifier: Apache-2.0
// `cooldown --version`, and the README's exit codes for every command that opens a
// database: what the user gave wrong (a malformed URL, no database where one must
// exist, a folder) is 2; what the environment refuses (a PostgreSQL server that cannot
// be reached) is 1.

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class tst_CliExitCodes : public QObject
{
    Q_OBJECT

private slots:
    void version();
    void databaseProblems_data();
    void databaseProblems();
};

// The version the build was made as, for bug reports and scripts.
void tst_CliExitCodes::version()
{
    QProcess p;
    p.start(QStringLiteral(COOLDOWN_BINARY), {QStringLiteral("--version")});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(p.readAllStandardOutput()).trimmed(),
             QStringLiteral("cooldown " COOLDOWN_VERSION));
}

void tst_CliExitCodes::databaseProblems_data()
{
    QTest::addColumn<QStringList>("command"); // before --db
    QTest::addColumn<QString>("db");          // @DIR@ is a temporary folder
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");

    const QStringList commands[] = {
        {QStringLiteral("run"), QStringLiteral("--config"), QStringLiteral("@CONFIG@"),
         QStringLiteral("--for"), QStringLiteral("1")},
        {QStringLiteral("status")},
        {QStringLiteral("export"), QStringLiteral("--out"), QStringLiteral("@DIR@/out.csv")},
        {QStringLiteral("retry"), QStringLiteral("1")},
        {QStringLiteral("cancel"), QStringLiteral("1")},
    };
    for (const QStringList &command : commands) {
        const QByteArray name = command.first().toUtf8();
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        QTest::newRow(name + " unreachable server")
            << command << QStringLiteral("postgresql://cooldown@127.0.0.1:1/cooldown") << 1
            << QStringLiteral("cannot connect to PostgreSQL");
        QTest::newRow(name + " malformed url")
            << command << QStringLiteral("postgresql://cooldown@/cooldown") << 2 << QString();
        QTest::newRow(name + " a folder")
            << command << QStringLiteral("@DIR@") << 2 << QStringLiteral("it is a folder");
        if (command.first() != QLatin1String("run"))
            QTest::newRow(name + " no database there")
                << command << QStringLiteral("@DIR@/none.db") << 2
                << QStringLiteral("there is no database there");
    }
}

void tst_CliExitCodes::databaseProblems()
{
    QFETCH(QStringList, command);
    QFETCH(QString, db);
    QFETCH(int, exitCode);
    QFETCH(QString, message);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString config = dir.filePath(QStringLiteral("workspace.json"));
    {
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"version": 1, "endpoints": [{"id": "a", "url": "http://127.0.0.1:1/"}]})");
    }
    QStringList args;
    for (QString part : command)
        args.append(part.replace(QStringLiteral("@CONFIG@"), config)
                        .replace(QStringLiteral("@DIR@"), dir.path()));
    args << QStringLiteral("--db") << QString(db).replace(QStringLiteral("@DIR@"), dir.path());

    QProcess p;
    p.start(QStringLiteral(COOLDOWN_BINARY), args);
    QVERIFY(p.waitForFinished(30000));
    const QByteArray err = p.readAllStandardError();
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, err.constData());
    QVERIFY2(p.exitCode() == exitCode, qPrintable(QStringLiteral("exit %1, expected %2: %3")
                                                      .arg(p.exitCode())
                                                      .arg(exitCode)
                                                      .arg(QString::fromUtf8(err))));
    // One line that names the command and what was wrong.
    QVERIFY2(err.startsWith("cooldown " + command.first().toUtf8() + ": "), err.constData());
    QVERIFY2(err.contains(message.toUtf8()), err.constData());
    // Nothing was created where there was nothing.
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.db"))));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("out.csv"))));
}

QTEST_GUILESS_MAIN(tst_CliExitCodes)
#include "tst_cli_exitcodes.moc"
