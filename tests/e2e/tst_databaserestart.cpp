// SPDX-License-Identifier: Apache-2.0
// Two `cooldown run` workers on one PostgreSQL database whose server is stopped
// (`pg_ctl stop -m fast`) for six seconds mid-run and started again on the same port
// (docs/database-outages.md): both say once that it is gone and once that it is back,
// resume within two seconds of the server answering, and every POST is answered once:
// no idempotency key reaches the server twice.
//
// The server is the test's own (scripts/pg start, stopped and deleted at the end), so
// stopping it disturbs no other test. Skipped, with the reason, where PostgreSQL is
// not installed.

#include "support/CountingHttpServer.h"
#include "support/WorkerProcess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

namespace {

constexpr int kJobs = 120;
constexpr int kDownMs = 6000;

QString pgBin()
{
    QByteArray out;
    if (runCommand(QStringLiteral("pg_config"), {QStringLiteral("--bindir")}, &out)) {
        const QString dir = QString::fromLocal8Bit(out).trimmed();
        if (QFileInfo::exists(dir + QStringLiteral("/pg_ctl")))
            return dir;
    }
    QStringList found = QDir(QStringLiteral("/usr/lib/postgresql"))
                            .entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    while (!found.isEmpty()) {
        const QString dir = QStringLiteral("/usr/lib/postgresql/%1/bin").arg(found.takeLast());
        if (QFileInfo::exists(dir + QStringLiteral("/pg_ctl")))
            return dir;
    }
    return {};
}

} // namespace

class tst_DatabaseRestart : public QObject
{
    Q_OBJECT

private:
    QString m_pgDir; // the server's folder, from scripts/pg start
    QString m_url;
    QString m_pgCtl;

    // pg_ctl as the server's owner (PostgreSQL refuses to run as root).
    bool pgCtl(const QStringList &arguments, QByteArray *output = nullptr)
    {
        QStringList command = {m_pgCtl, QStringLiteral("-D"), m_pgDir + QStringLiteral("/data")};
        command += arguments;
        if (::geteuid() == 0)
            return runCommand(QStringLiteral("runuser"),
                              QStringList{QStringLiteral("-u"), QStringLiteral("postgres"),
                                          QStringLiteral("--")} +
                                  command,
                              output);
        const QString program = command.takeFirst();
        return runCommand(program, command, output);
    }

private slots:
    void initTestCase()
    {
        const QString bin = pgBin();
        if (bin.isEmpty())
            QSKIP("PostgreSQL is not installed (no pg_ctl; scripts/setup installs it)");
        m_pgCtl = bin + QStringLiteral("/pg_ctl");
        QByteArray out;
        if (!runCommand(QStringLiteral(COOLDOWN_SOURCE_DIR "/scripts/pg"),
                        {QStringLiteral("start")}, &out))
            QSKIP(qPrintable(QStringLiteral("scripts/pg start failed: %1")
                                 .arg(QString::fromLocal8Bit(out.right(500)))));
        for (const QByteArray &line : out.split('\n')) {
            if (line.startsWith("COOLDOWN_PG_DIR="))
                m_pgDir = QString::fromLocal8Bit(line.mid(16));
            if (line.startsWith("COOLDOWN_TEST_PG_URL="))
                m_url = QString::fromLocal8Bit(line.mid(21));
        }
        QVERIFY2(!m_pgDir.isEmpty() && !m_url.isEmpty(), out.constData());
    }

    void cleanupTestCase()
    {
        if (!m_pgDir.isEmpty())
            runCommand(QStringLiteral(COOLDOWN_SOURCE_DIR "/scripts/pg"),
                       {QStringLiteral("stop"), m_pgDir});
    }

    void twoWorkersOutliveARestart();
};

void tst_DatabaseRestart::twoWorkersOutliveARestart()
{
    QTemporaryDir dir;
    CountingHttpServer server;
    // kJobs POSTs with keys, paced at 10 a second for the fleet: the run lasts about
    // twelve seconds of sending, and the server is away for six of them.
    QByteArray endpoints;
    for (int i = 0; i < kJobs; ++i)
        endpoints += (i ? "," : "") +
                     QStringLiteral(R"({"id": "job%1", "url": "%2", "method": "POST", "body": "b",)"
                                    R"( "policy": "pace", "partition_key": "all",)"
                                    R"( "idempotency": {"header": "Idempotency-Key"}})")
                         .arg(i)
                         .arg(server.url(QStringLiteral("/job/%1").arg(i)))
                         .toUtf8();
    const QByteArray workspace =
        R"({"version": 1, "concurrency": {"max_in_flight": 4, "per_host": 4},)"
        R"( "policies": [{"policy_id": "pace", "partition": "k", "resource": "/job",)"
        R"( "method": "POST", "quota_unit": "request", "limit": 10, "window_seconds": 1,)"
        R"( "burst": 1, "policy_version": 1}], "endpoints": [)" +
        endpoints + "]}";
    const QString config = dir.filePath(QStringLiteral("restart.json"));
    {
        QFile file(config);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(workspace) == workspace.size());
    }

    std::vector<std::unique_ptr<WorkerProcess>> workers;
    for (const char *id : {"w1", "w2"})
        workers.push_back(std::make_unique<WorkerProcess>(QStringList{
            QStringLiteral("run"), QStringLiteral("--config"), config, QStringLiteral("--db"),
            m_url, QStringLiteral("--until-idle"), QStringLiteral("--lease"), QStringLiteral("20"),
            QStringLiteral("--worker-id"), QLatin1String(id)}));

    // Mid-run: the server goes away for six seconds, then answers again on its port.
    QVERIFY2(turnUntil([&] { return server.requests >= 30; }, 30000),
             workers[0]->tail().constData());
    QByteArray said;
    QVERIFY2(pgCtl({QStringLiteral("-m"), QStringLiteral("fast"), QStringLiteral("-w"),
                    QStringLiteral("stop")},
                   &said),
             said.constData());
    const int sentWhenStopped = server.requests;
    turnUntil([] { return false; }, kDownMs); // the outage itself: six seconds, no less
    const int sentWhileDown = server.requests - sentWhenStopped;
    // As scripts/pg started it: the same port and settings.
    QFile portFile(m_pgDir + QStringLiteral("/port"));
    QVERIFY(portFile.open(QIODevice::ReadOnly));
    const QString port = QString::fromLatin1(portFile.readAll()).trimmed();
    const QString settings = QStringLiteral("-c listen_addresses=127.0.0.1 -c port=%1"
                                            " -c unix_socket_directories=%2 -c fsync=off"
                                            " -c full_page_writes=off -c synchronous_commit=off")
                                 .arg(port, m_pgDir);
    QVERIFY2(pgCtl({QStringLiteral("-l"), m_pgDir + QStringLiteral("/server.log"),
                    QStringLiteral("-w"), QStringLiteral("-t"), QStringLiteral("30"),
                    QStringLiteral("-o"), settings, QStringLiteral("start")},
                   &said),
             said.constData());
    const qint64 answeringAtMs = QDateTime::currentMSecsSinceEpoch();

    QVERIFY2(turnUntil(
                 [&] {
                     return std::none_of(workers.begin(), workers.end(),
                                         [](const auto &w) { return w->running(); });
                 },
                 60000),
             workers[0]->tail().constData());

    qint64 slowestResumeMs = 0;
    for (auto &w : workers) {
        // What a failure below needs to be understood: the database lines and the end.
        for (const QByteArray &line : w->linesWith("database"))
            qInfo("%s", line.constData());
        qInfo("exit %d, stderr ends: %s", w->exitCode(), w->err().right(1500).constData());
        QVERIFY2(w->exitCode() == 0, w->tail().constData());
        const QList<QByteArray> lost = w->linesWith("database unreachable since");
        const QList<QByteArray> back = w->linesWith("database back after");
        QVERIFY2(lost.size() == 1 && back.size() == 1, w->tail().constData());
        const qint64 backAtMs = WorkerProcess::timeOf(back.first());
        QVERIFY2(backAtMs > 0, back.first().constData());
        slowestResumeMs = std::max(slowestResumeMs, backAtMs - answeringAtMs);
        // Not one line per failed query, on either stream.
        QVERIFY2(w->err().count("no connection to the server") <= 1, w->tail().constData());
        QVERIFY2(!w->err().contains("rollback failed"), w->tail().constData());
    }
    qInfo("server stopped after %d requests; %d sent while it was away (answers in flight "
          "then); workers back %lld ms after it answered at the latest",
          sentWhenStopped, sentWhileDown, slowestResumeMs);
    QVERIFY2(slowestResumeMs <= 2000, qPrintable(QString::number(slowestResumeMs)));
    // Every job answered, none twice.
    QCOMPARE(server.byKey.size(), kJobs);
    QVERIFY2(server.repeatedKeys().isEmpty(), server.repeatedKeys().join(' ').constData());
    QCOMPARE(server.requests, kJobs);
    for (auto &w : workers)
        QVERIFY2(w->out().contains("succeeded=" + QByteArray::number(kJobs)),
                 w->tail().constData());
}

QTEST_MAIN(tst_DatabaseRestart)
#include "tst_databaserestart.moc"
