// SPDX-License-Identifier: Apache-2.0
#pragma once

// `cooldown run` processes from an end-to-end test whose server lives in the test's own
// event loop (CountingHttpServer): the loop turns while they run, and every wait is
// bounded. Needs COOLDOWN_BINARY (RUNS_BINARY in CMake).

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class WorkerProcess
{
public:
    explicit WorkerProcess(const QStringList &arguments)
    {
        m_process.setProgram(QStringLiteral(COOLDOWN_BINARY));
        m_process.setArguments(arguments);
        m_process.start();
    }
    ~WorkerProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(5000);
        }
    }

    bool running() const { return m_process.state() != QProcess::NotRunning; }
    int exitCode() const
    {
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }
    // All it wrote so far.
    QByteArray out()
    {
        m_out += m_process.readAllStandardOutput();
        return m_out;
    }
    QByteArray err()
    {
        m_err += m_process.readAllStandardError();
        return m_err;
    }
    QByteArray tail()
    {
        return "exit " + QByteArray::number(exitCode()) + "\n--- stdout\n" + out().right(3000) +
               "\n--- stderr\n" + err().right(3000);
    }
    // Lines of stdout that contain text.
    QList<QByteArray> linesWith(const QByteArray &text)
    {
        QList<QByteArray> found;
        for (const QByteArray &line : out().split('\n')) {
            if (line.contains(text))
                found.append(line);
        }
        return found;
    }
    // The time a log line starts with (ISO 8601 UTC), or -1.
    static qint64 timeOf(const QByteArray &line)
    {
        const QDateTime at = QDateTime::fromString(
            QString::fromLatin1(line.left(line.indexOf(' '))), Qt::ISODateWithMs);
        return at.isValid() ? at.toMSecsSinceEpoch() : -1;
    }

private:
    QProcess m_process;
    QByteArray m_out;
    QByteArray m_err;
};

// Turns the event loop until done() or timeoutMs; false on the timeout.
inline bool turnUntil(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    }
    return true;
}

// Runs a command to its end (bounded), for the test's own set-up: mount, pg_ctl.
inline bool runCommand(const QString &program, const QStringList &arguments,
                       QByteArray *output = nullptr, int timeoutMs = 60000)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    const bool ended = process.waitForFinished(timeoutMs);
    if (output)
        *output = process.readAll();
    return ended && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
}
