// SPDX-License-Identifier: Apache-2.0
// docs/offline.md end to end, in a network namespace of the test's own (`unshare -n`,
// which needs root: elsewhere the test skips, saying why). The demo API listens on the
// namespace's 127.0.0.1; the test takes the loopback routes away, so that every
// exchange finds no route (ENETUNREACH, as on a machine that lost its network), and
// puts them back. 50 keyed POSTs and ten minutes without a route: while offline the
// engine sends one exchange every 5 s to look, and none of those tries counts, pauses
// the endpoint, raises an alert or is kept as a failed exchange; back online, every
// job runs exactly once and none ends failed. The engine runs on a manual clock; the
// exchanges are real.

#include "app/demo/DemoServer.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/ratelimit/ServerWindow.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ReadableEnums.h"
#include "support/SettleScheduler.h"

#include <QDateTime>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace cooldown;

namespace {

const qint64 kStart = QDateTime(QDate(2026, 12, 6), QTime(9, 0), Qt::UTC).toMSecsSinceEpoch();
constexpr char kInNamespace[] = "COOLDOWN_TEST_IN_NETNS";
constexpr int kJobs = 50;
constexpr qint64 kOutageMs = 10 * 60'000;
constexpr qint64 kProbeMs = 5'000;

// `ip ARGS` in this namespace; false, with a warning, when it fails.
bool ip(const QStringList &arguments)
{
    QProcess p;
    p.start(QStringLiteral("ip"), arguments);
    if (!p.waitForFinished(10000) || p.exitCode() != 0) {
        qWarning().noquote() << "ip" << arguments.join(u' ')
                             << "failed:" << p.readAllStandardError();
        return false;
    }
    return true;
}

// The local routes of 127.0.0.0/8: without them a connection to 127.0.0.1 finds no route.
bool loopbackRoutes(bool present)
{
    const QString verb = present ? QStringLiteral("add") : QStringLiteral("del");
    return ip({QStringLiteral("route"), verb, QStringLiteral("local"),
               QStringLiteral("127.0.0.0/8"), QStringLiteral("dev"), QStringLiteral("lo"),
               QStringLiteral("table"), QStringLiteral("local")}) &&
           ip({QStringLiteral("route"), verb, QStringLiteral("local"), QStringLiteral("127.0.0.1"),
               QStringLiteral("dev"), QStringLiteral("lo"), QStringLiteral("table"),
               QStringLiteral("local")});
}

} // namespace

class tst_Offline : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ManualClock> m_clock;
    std::unique_ptr<SeededRandom> m_random;
    std::unique_ptr<ManualWakeTimer> m_timer;
    std::unique_ptr<DemoServer> m_demo;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<Scheduler> m_scheduler;

    bool settle() { return settleScheduler(*m_scheduler, 10000); }

    bool runFor(qint64 ms) { return runSchedulerFor(*m_scheduler, *m_clock, *m_timer, ms); }

    qint64 attemptCount()
    {
        AttemptFilter all;
        return m_store->countAttempts(all);
    }

private slots:
    void initTestCase()
    {
        if (!qEnvironmentVariableIsSet(kInNamespace))
            QSKIP("needs a network namespace of its own: run as root, where `unshare -n` works");
        QVERIFY(m_dir.isValid());
        QVERIFY(ip({QStringLiteral("link"), QStringLiteral("set"), QStringLiteral("lo"),
                    QStringLiteral("up")}));
    }

    void offlineHoldsTheWorkAndCostsNoAttempt()
    {
        m_clock = std::make_unique<ManualClock>(kStart);
        m_random = std::make_unique<SeededRandom>(20261206);
        m_timer = std::make_unique<ManualWakeTimer>(*m_clock);
        m_demo = std::make_unique<DemoServer>(*m_clock);
        QVERIFY2(m_demo->listen(0), qPrintable(m_demo->errorString()));
        const QString url = m_demo->baseUrl().toString() + QStringLiteral("/uploads?key=off");
        const QByteArray json =
            "{\"version\": 1, \"retry_profiles\": {\"default\": {\"max_attempts\": 1}},"
            " \"pause_after_failures\": 3,"
            " \"alerts\": [{\"id\": \"ops\", \"url\": \"" +
            m_demo->baseUrl().toString().toUtf8() +
            "/hooks/ops\", \"events\": [\"operation_failed\", \"endpoint_paused\", "
            "\"incident\"]}],"
            " \"endpoints\": [{\"id\": \"upload\", \"method\": \"POST\", \"url\": \"" +
            url.toUtf8() +
            "\", \"body\": \"{}\", \"enqueue_only\": true, \"timeout_seconds\": 5,"
            " \"idempotency\": {\"header\": \"Idempotency-Key\"}}]}";
        QString error;
        auto config = WorkspaceConfig::parse(json, QStringLiteral("offline.json"), &error, {},
                                             QHash<QString, QString>{});
        QVERIFY2(config, qPrintable(error));
        m_store = Store::open(m_dir.filePath(QStringLiteral("offline.db")), &error);
        QVERIFY2(m_store, qPrintable(error));
        const QString host = m_demo->baseUrl().host();
        for (int i = 0; i < kJobs; ++i)
            QVERIFY(m_store->createOperation(QStringLiteral("upload"),
                                             QStringLiteral("job-%1").arg(i), kStart,
                                             learnedPolicyId(host), {}, 1, host));

        QVERIFY(loopbackRoutes(false));
        m_transport = std::make_unique<Transport>(*m_clock);
        SchedulerOptions options;
        options.workerId = QStringLiteral("offline-test");
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, options);
        QSignalSpy offline(m_scheduler.get(), &Scheduler::wentOffline);
        QSignalSpy online(m_scheduler.get(), &Scheduler::cameOnline);
        QVERIFY2(m_scheduler->start(&error), qPrintable(error));
        QVERIFY(settle());

        // Ten minutes without a route: the engine says so once and looks every 5 s.
        QVERIFY(runFor(kOutageMs));
        QCOMPARE(offline.size(), 1);
        QCOMPARE(m_scheduler->offlineSinceMs(), kStart);
        const qint64 offlineAttempts = attemptCount();
        // What was claimed before the first answer, then one look per probe period: not
        // one per job per period, let alone the jobs' attempts of a blind retry.
        qInfo() << "tries while offline:" << offlineAttempts;
        QVERIFY2(offlineAttempts <= 8 + kOutageMs / kProbeMs + 1,
                 qPrintable(QString::number(offlineAttempts)));
        QVERIFY(offlineAttempts >= kOutageMs / kProbeMs);
        QCOMPARE(m_demo->stats().totalExecuted, qint64(0));
        const QMap<OperationState, qint64> counts = m_store->countsByState();
        QCOMPARE(counts.value(OperationState::Failed), qint64(0));
        QCOMPARE(counts.value(OperationState::Parked), qint64(0));
        QCOMPARE(counts.value(OperationState::Scheduled) + counts.value(OperationState::Waiting) +
                     counts.value(OperationState::Running),
                 qint64(kJobs));
        // `cooldown status` can say so: the worker's row, since when.
        const auto offlineRows = m_store->workerStates().offline();
        QVERIFY(offlineRows);
        QCOMPARE(offlineRows->size(), 1);
        QCOMPARE(offlineRows->first().workerId, QStringLiteral("offline-test"));
        QCOMPARE(offlineRows->first().offlineSinceMs, kStart);
        // No tries kept as failed exchanges: they say nothing of the endpoint.
        AttemptFilter all;
        for (const AttemptRecord &a : m_store->attempts(all))
            QVERIFY2(!m_store->keptExchange(a.id), qPrintable(QString::number(a.id)));

        // The routes back: the next look gets through, and every job runs once.
        QVERIFY(loopbackRoutes(true));
        QVERIFY(runFor(5 * 60'000));
        QCOMPARE(online.size(), 1);
        QCOMPARE(m_scheduler->offlineSinceMs(), qint64(-1));
        QCOMPARE(m_store->workerStates().offline().value_or(QList<WorkerOfflineRow>{{}}).size(), 0);
        const QMap<OperationState, qint64> after = m_store->countsByState();
        QCOMPARE(after.value(OperationState::Succeeded), qint64(kJobs));
        QCOMPARE(m_demo->stats().totalExecuted, qint64(kJobs));
        // max_attempts is 1: the jobs that were tried while offline succeeded all the
        // same, each on its first attempt, since those tries were no attempts.
        OperationFilter filter;
        filter.endpointId = QStringLiteral("upload");
        for (const OperationRecord &op : m_store->operations(filter))
            QCOMPARE(op.attempt, 1);
        QCOMPARE(attemptCount(), kJobs + offlineAttempts);
        // Nothing paused the endpoint and nothing raised an alert, then or since.
        QCOMPARE(m_store->isEndpointPaused(QStringLiteral("upload")), std::optional<bool>(false));
        for (const OperationRecord &op : m_store->operations({}))
            QVERIFY2(!op.endpointId.startsWith(QLatin1String("alert:")), qPrintable(op.endpointId));
        m_scheduler.reset();
        m_transport.reset();
    }
};

// Runs itself again in a network namespace of its own when it can.
int main(int argc, char **argv)
{
    if (!qEnvironmentVariableIsSet(kInNamespace) && geteuid() == 0 &&
        QProcess::execute(QStringLiteral("unshare"),
                          {QStringLiteral("-n"), QStringLiteral("true")}) == 0) {
        qputenv(kInNamespace, "1");
        std::vector<char *> args{const_cast<char *>("unshare"), const_cast<char *>("-n")};
        for (int i = 0; i < argc; ++i)
            args.push_back(argv[i]);
        args.push_back(nullptr);
        execvp("unshare", args.data());
        qunsetenv(kInNamespace); // exec failed: run here and skip
    }
    QCoreApplication app(argc, argv);
    tst_Offline test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_offline.moc"
