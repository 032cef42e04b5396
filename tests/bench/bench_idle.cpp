// SPDX-License-Identifier: Apache-2.0
// An idle dashboard stays idle: the window (`cooldown --config F --db D`, offscreen)
// over 1,000,000 attempts of the last day and 20,000 parked operations, nothing due,
// measured from /proc once it has read its history: CPU over a minute and resident
// memory. Beside it, in the same run, the same window over an empty database.
//
//   bench_idle [--smoke] [--attempts N] [--parked N] [--seconds S] [--cooldown PATH]

#include "bench/AttemptSeed.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>

using namespace cooldown;
using namespace cooldown::bench;

namespace {

// user + system time of a process so far, from /proc/PID/stat, in seconds.
double cpuSecondsOf(pid_t pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = stat.readAll();
    // Fields after the command name, which is in parentheses and may hold spaces.
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    const double ticks = double(fields.value(11).toLongLong() + fields.value(12).toLongLong());
    return ticks / double(sysconf(_SC_CLK_TCK));
}

qint64 rssBytesOf(pid_t pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    return -1;
}

struct Idle
{
    double cpuShare = 0; // of one core
    qint64 rssBytes = 0;
    double settleSeconds = 0;
};

// Starts the window on the database, waits until it has settled (a 5 s stretch using
// less than 5 % of a core, or two minutes), then measures `seconds`.
Idle measure(const QString &cooldown, const QString &workspace, const QString &db,
             const QString &home, double seconds)
{
    qputenv("XDG_CONFIG_HOME", home.toLocal8Bit()); // not the user's settings
    qputenv("QT_QPA_PLATFORM", "offscreen");
    const Child child =
        startChild({cooldown, QStringLiteral("--config"), workspace, QStringLiteral("--db"), db},
                   home + QStringLiteral("/out.log"));
    Idle idle;
    QElapsedTimer settling;
    settling.start();
    for (;;) {
        const double before = cpuSecondsOf(child.pid);
        QThread::msleep(5000);
        const double used = cpuSecondsOf(child.pid) - before;
        if (before < 0 || used < 0)
            die(QStringLiteral("the window ended early; see %1/out.log").arg(home));
        if (used / 5.0 < 0.05 || settling.elapsed() > 120'000)
            break;
    }
    idle.settleSeconds = double(settling.elapsed()) / 1000.0;
    const double before = cpuSecondsOf(child.pid);
    QElapsedTimer timer;
    timer.start();
    QThread::msleep(static_cast<unsigned long>(seconds * 1000));
    idle.cpuShare = (cpuSecondsOf(child.pid) - before) / (double(timer.elapsed()) / 1000.0);
    idle.rssBytes = rssBytesOf(child.pid);
    kill(child.pid, SIGTERM);
    waitChild(child);
    return idle;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    g_smoke = args.contains(QStringLiteral("--smoke"));
    const qint64 attempts = option(args, QStringLiteral("--attempts"),
                                   g_smoke ? QStringLiteral("2000") : QStringLiteral("1000000"))
                                .toLongLong();
    const qint64 parked = option(args, QStringLiteral("--parked"),
                                 g_smoke ? QStringLiteral("200") : QStringLiteral("20000"))
                              .toLongLong();
    const double seconds = option(args, QStringLiteral("--seconds"),
                                  g_smoke ? QStringLiteral("1") : QStringLiteral("60"))
                               .toDouble();
    const QString cooldown =
        option(args, QStringLiteral("--cooldown"), QStringLiteral(COOLDOWN_BINARY));
    QTemporaryDir dir;
    if (!dir.isValid() || attempts < 0 || parked < 0 || seconds <= 0)
        die(QStringLiteral("no temporary folder, or a bad option"));
    note(QStringLiteral("load average: %1").arg(loadAverage()));

    // Only jobs handed in run here, and none is: the engine has nothing to do.
    const QString workspace = dir.filePath(QStringLiteral("workspace.json"));
    {
        QFile w(workspace);
        if (!w.open(QIODevice::WriteOnly))
            die(QStringLiteral("cannot write the workspace"));
        w.write("{\"version\": 1, \"endpoints\": [{\"id\": \"uploads\", \"enqueue_only\": true,"
                " \"url\": \"http:/"
                "/127.0.0.1:9/uploads\"}]}\n");
    }
    const QString big = dir.filePath(QStringLiteral("big.db"));
    seedAttempts(big, attempts);
    {
        CApiDatabase db(big);
        // The seed's waiting operations would be due: they have ended, here.
        db.exec("UPDATE operations SET state = 'succeeded' WHERE state IN "
                "('waiting', 'scheduled', 'running')");
        OperationSeed seed;
        seed.endpointId = QStringLiteral("uploads");
        seed.state = QStringLiteral("parked");
        seed.createdAtMs = QDateTime::currentMSecsSinceEpoch() - 3600'000;
        seedOperations(db, parked, seed);
    }
    const QString empty = dir.filePath(QStringLiteral("empty.db"));
    openStore(empty);
    QDir().mkpath(dir.filePath(QStringLiteral("home-empty")));
    QDir().mkpath(dir.filePath(QStringLiteral("home-big")));
    const Idle reference =
        measure(cooldown, workspace, empty, dir.filePath(QStringLiteral("home-empty")), seconds);
    const Idle measured =
        measure(cooldown, workspace, big, dir.filePath(QStringLiteral("home-big")), seconds);
    note(QStringLiteral("settled after %1 s (empty: %2 s)")
             .arg(measured.settleSeconds, 0, 'f', 0)
             .arg(reference.settleSeconds, 0, 'f', 0));

    const QString what = QStringLiteral("idle window, %1 attempts, %2 parked, %3 s")
                             .arg(attempts)
                             .arg(parked)
                             .arg(seconds, 0, 'f', 0);
    const auto percent = [](double share) {
        return QStringLiteral("%1 % of a core").arg(share * 100, 0, 'f', 2);
    };
    report(what + QStringLiteral(": CPU"),
           QStringLiteral("empty database: ") + percent(reference.cpuShare),
           percent(measured.cpuShare),
           reference.cpuShare > 0 ? ratioText(measured.cpuShare / reference.cpuShare)
                                  : QStringLiteral("-"),
           QStringLiteral("< 2 % of a core"), measured.cpuShare < 0.02);
    report(what + QStringLiteral(": resident memory"),
           QStringLiteral("empty database: ") + megabytes(reference.rssBytes),
           megabytes(measured.rssBytes),
           ratioText(double(measured.rssBytes) / double(std::max<qint64>(1, reference.rssBytes))),
           QStringLiteral("< 150 MB"), measured.rssBytes < 150 * 1024 * 1024);
    return g_failures > 0 ? 1 : 0;
}
