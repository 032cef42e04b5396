// SPDX-License-Identifier: Apache-2.0
// `cooldown run --until-idle` on a SQLite database whose file system fills mid-run
// (docs/database-outages.md): the run stops with exit code 1 and one clear message
// within --db-retry-for, with no "rollback failed" over and over; once the file
// system is grown, a second run finishes every job, and no request reaches the server
// twice: what was answered before the disk filled was recorded (the store's reserve
// gives it room), and nothing was sent that could not be.
//
// Needs root, to mount a small tmpfs for the database (CI runs as root); skipped with
// the reason otherwise.

#include "support/CountingHttpServer.h"
#include "support/WorkerProcess.h"

#include <QDir>
#include <QFile>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

namespace {

constexpr int kJobs = 400;

} // namespace

class tst_DiskFull : public QObject
{
    Q_OBJECT

private slots:
    void fullDiskStopsCleanlyAndLosesNothing();
};

void tst_DiskFull::fullDiskStopsCleanlyAndLosesNothing()
{
    if (::geteuid() != 0)
        QSKIP("needs root to mount a small tmpfs for the database");
    QTemporaryDir dir;
    const QString mount = dir.filePath(QStringLiteral("small"));
    QVERIFY(QDir().mkpath(mount));
    QByteArray said;
    if (!runCommand(QStringLiteral("mount"),
                    {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                     QStringLiteral("size=3m"), QStringLiteral("tmpfs"), mount},
                    &said))
        QSKIP(qPrintable(QStringLiteral("cannot mount a tmpfs here: %1")
                             .arg(QString::fromLocal8Bit(said).trimmed())));
    const auto unmount = qScopeGuard([&] { runCommand(QStringLiteral("umount"), {mount}); });

    CountingHttpServer server;
    // kJobs GETs, each with a header long enough that their records fill 3 MB.
    const QByteArray pad(3000, 'x');
    QByteArray endpoints;
    for (int i = 0; i < kJobs; ++i)
        endpoints += (i ? "," : "") +
                     QStringLiteral(R"({"id": "get%1", "url": "%2", "headers": {"X-Pad": "%3"}})")
                         .arg(i)
                         .arg(server.url(QStringLiteral("/get/%1").arg(i)), QLatin1String(pad))
                         .toUtf8();
    const QByteArray workspace =
        R"({"version": 1, "concurrency": {"max_in_flight": 8, "per_host": 6}, "endpoints": [)" +
        endpoints + "]}";
    const QString config = dir.filePath(QStringLiteral("full.json"));
    {
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(workspace) == workspace.size());
    }
    const QString db = mount + QStringLiteral("/cooldown.db");

    // The first run fills the disk and stops, with one message and exit code 1.
    {
        WorkerProcess run({QStringLiteral("run"), QStringLiteral("--config"), config,
                           QStringLiteral("--db"), db, QStringLiteral("--until-idle"),
                           QStringLiteral("--db-retry-for"), QStringLiteral("3"),
                           QStringLiteral("--lease"), QStringLiteral("5")});
        QVERIFY2(turnUntil([&] { return !run.running(); }, 90000), run.tail().constData());
        QVERIFY2(run.exitCode() == 1, run.tail().constData());
        QVERIFY2(run.err().count("has been unreachable since") == 1, run.tail().constData());
        QVERIFY2(run.linesWith("database unreachable since").size() == 1, run.tail().constData());
        QVERIFY2(!run.err().contains("rollback failed"), run.tail().constData());
        QVERIFY2(run.err().count("database or disk is full") <= 2, run.tail().constData());
        qInfo("first run: %d of %d requests before the disk filled", server.requests, kJobs);
        QVERIFY2(server.requests < kJobs, "the disk did not fill");
        QVERIFY(server.repeatedPaths().isEmpty());
    }

    // Space again: the second run finishes every job, none sent twice.
    QVERIFY2(runCommand(QStringLiteral("mount"),
                        {QStringLiteral("-o"), QStringLiteral("remount,size=64m"), mount}, &said),
             said.constData());
    {
        WorkerProcess run({QStringLiteral("run"), QStringLiteral("--config"), config,
                           QStringLiteral("--db"), db, QStringLiteral("--until-idle")});
        QVERIFY2(turnUntil([&] { return !run.running(); }, 90000), run.tail().constData());
        QVERIFY2(run.exitCode() == 0, run.tail().constData());
        QVERIFY2(run.out().contains("succeeded=" + QByteArray::number(kJobs)),
                 run.tail().constData());
    }
    QCOMPARE(server.byPath.size(), kJobs);
    QVERIFY2(server.repeatedPaths().isEmpty(), server.repeatedPaths().join(' ').constData());
    QCOMPARE(server.requests, kJobs);
}

QTEST_MAIN(tst_DiskFull)
#include "tst_diskfull.moc"
