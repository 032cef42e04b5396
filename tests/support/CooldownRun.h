// SPDX-License-Identifier: Apache-2.0
#pragma once

// The `cooldown` binary from an end-to-end test whose servers are other processes
// (node, nginx, tinyproxy): nothing in the test's own event loop needs to turn while
// it runs, so waiting for it blocks. Needs COOLDOWN_BINARY (RUNS_BINARY in CMake).

#include <QByteArray>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <functional>

struct CooldownResult
{
    bool finished = false; // false: killed at the timeout, or it did not start
    int exitCode = -1;     // -1 unless it exited normally
    QByteArray out;
    QByteArray err;

    bool ok() const { return finished && exitCode == 0; }
    // The ends of both streams, for a failure message.
    QByteArray tail() const
    {
        return "exit " + QByteArray::number(exitCode) + (finished ? "" : " (did not finish)") +
               "\n--- stdout\n" + out.right(3000) + "\n--- stderr\n" + err.right(3000);
    }
};

inline bool writeTextFile(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

inline QByteArray readTextFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Runs `cooldown arguments…` to its end, killed after timeoutMs. While it runs,
// whileRunning (when given) is called about every 100 ms: a test uses it to act on a
// server at the right moment of the run.
inline CooldownResult runCooldown(const QStringList &arguments,
                                  const QProcessEnvironment &environment, int timeoutMs,
                                  const std::function<void()> &whileRunning = {},
                                  const QByteArray &input = {})
{
    CooldownResult result;
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(COOLDOWN_BINARY), arguments);
    if (!process.waitForStarted(10000)) {
        result.err = process.errorString().toUtf8();
        return result;
    }
    if (!input.isEmpty())
        process.write(input);
    process.closeWriteChannel();
    QElapsedTimer elapsed;
    elapsed.start();
    // Both pipes are drained as it goes, so that a chatty run never blocks on a full one.
    // whileRunning may turn an event loop of its own (waiting for a reply from a test
    // server): the process's end is then seen there, and waitForFinished() answers false
    // for a process no longer running. Not running is finished, however it was noticed.
    while (process.state() != QProcess::NotRunning && !process.waitForFinished(100)) {
        result.out += process.readAllStandardOutput();
        result.err += process.readAllStandardError();
        if (process.state() == QProcess::NotRunning)
            break;
        if (elapsed.elapsed() >= timeoutMs) {
            process.kill();
            process.waitForFinished(5000);
            result.out += process.readAllStandardOutput();
            result.err += process.readAllStandardError();
            return result;
        }
        if (whileRunning)
            whileRunning();
    }
    result.out += process.readAllStandardOutput();
    result.err += process.readAllStandardError();
    result.finished = true;
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return result;
}
