// SPDX-License-Identifier: Apache-2.0
// `cooldown run` applies its workspace file again on SIGHUP, without a restart: a file
// that does not validate is not applied (the error names where it is wrong) and the
// run goes on with what it ran; a valid one is run by the same worker at once.

#include "core/store/Store.h"
#include "support/ScriptedHttpServer.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace cooldown;

namespace {

int requestsTo(const ScriptedHttpServer &server, const QByteArray &path)
{
    int n = 0;
    for (const ReceivedRequest &r : server.received)
        n += r.path.startsWith(path) ? 1 : 0;
    return n;
}

bool writeFile(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

} // namespace

class tst_Reload : public QObject
{
    Q_OBJECT

private slots:
    void sighupAppliesAValidWorkspaceAndKeepsABadOneOut();
};

void tst_Reload::sighupAppliesAValidWorkspaceAndKeepsABadOneOut()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ScriptedHttpServer server;
    QVERIFY(server.isListening());
    const QByteArray base = server.url(QString()).toUtf8();
    const QString configPath = dir.filePath(QStringLiteral("workspace.json"));
    const QString db = dir.filePath(QStringLiteral("reload.db"));
    const QByteArray first = R"({ "version": 1, "endpoints": [
        { "id": "a", "method": "GET", "url": "BASE/a", "every_seconds": 1, "timeout_seconds": 5 } ]})";
    QVERIFY(writeFile(configPath, QByteArray(first).replace("BASE", base)));

    QProcess run;
    run.start(QStringLiteral(COOLDOWN_BINARY),
              {QStringLiteral("run"), QStringLiteral("--config"), configPath,
               QStringLiteral("--db"), db, QStringLiteral("--for"), QStringLiteral("60"),
               QStringLiteral("--worker-id"), QStringLiteral("w1")});
    QVERIFY(run.waitForStarted());
    const auto stopRun = qScopeGuard([&run] {
        if (run.state() != QProcess::NotRunning) {
            run.kill();
            run.waitForFinished();
        }
    });
    QByteArray out;
    QByteArray err;
    const auto readAll = [&] {
        out += run.readAllStandardOutput();
        err += run.readAllStandardError();
    };
    QTRY_VERIFY_WITH_TIMEOUT((readAll(), requestsTo(server, "/a") >= 1), 10000);

    // A file that does not validate: reported with where, not applied.
    QVERIFY(
        writeFile(configPath, QByteArray(first)
                                  .replace("BASE", base)
                                  .replace("\"every_seconds\": 1", "\"every_seconds\": \"soon\"")));
    ::kill(pid_t(run.processId()), SIGHUP);
    QTRY_VERIFY_WITH_TIMEOUT((readAll(), err.contains("not applied")), 10000);
    QVERIFY2(err.contains("every_seconds") && err.contains("endpoints"), err.constData());
    // The run goes on with the workspace it had.
    const int before = requestsTo(server, "/a");
    QTRY_VERIFY_WITH_TIMEOUT((readAll(), requestsTo(server, "/a") >= before + 2), 10000);
    QCOMPARE(run.state(), QProcess::Running);

    // A valid file with one endpoint more: applied, and run at once by the same worker.
    const QByteArray second = R"({ "version": 1, "endpoints": [
        { "id": "a", "method": "GET", "url": "BASE/a", "every_seconds": 1, "timeout_seconds": 5 },
        { "id": "b", "method": "GET", "url": "BASE/b", "timeout_seconds": 5 } ]})";
    QVERIFY(writeFile(configPath, QByteArray(second).replace("BASE", base)));
    ::kill(pid_t(run.processId()), SIGHUP);
    QTRY_VERIFY_WITH_TIMEOUT((readAll(), out.contains("workspace applied: 2 endpoints")), 10000);
    QTRY_COMPARE_WITH_TIMEOUT((readAll(), requestsTo(server, "/b")), 1, 10000);
    const int afterApply = requestsTo(server, "/a");
    QTRY_VERIFY_WITH_TIMEOUT((readAll(), requestsTo(server, "/a") >= afterApply + 1), 10000);

    run.terminate();
    QTRY_VERIFY_WITH_TIMEOUT((readAll(), run.state() == QProcess::NotRunning), 15000);
    readAll();
    QCOMPARE(run.exitStatus(), QProcess::NormalExit);
    QVERIFY2(run.exitCode() == 0, err.constData());

    // Every attempt is the one worker's, and each periodic tick ran once.
    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    const QList<AttemptRecord> attempts = store->attempts(AttemptFilter{});
    QCOMPARE(attempts.size(), requestsTo(server, "/a") + requestsTo(server, "/b"));
    for (const AttemptRecord &a : attempts)
        QCOMPARE(a.workerId, QStringLiteral("w1"));
}

QTEST_GUILESS_MAIN(tst_Reload)
#include "tst_reload.moc"
