// SPDX-License-Identifier: Apache-2.0
#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "support/ScriptedHttpServer.h"
#include "support/SettleScheduler.h"

#include <QDateTime>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {
// A Tuesday, 10:00 in Berlin (UTC+1 in December).
const qint64 kStart = QDateTime(QDate(2026, 12, 1), QTime(9, 0), Qt::UTC).toMSecsSinceEpoch();
const QString kUpload = QStringLiteral("upload");
} // namespace

// Maintenance windows and operators' holds (docs/maintenance.md), on a manual clock
// against a loopback server: during a window the endpoint's work waits and its
// periodic checks are skipped; at its end both go on by themselves.
class tst_Maintenance : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ManualClock> m_clock;
    std::unique_ptr<SeededRandom> m_random;
    std::unique_ptr<ManualWakeTimer> m_timer;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<Scheduler> m_scheduler;
    std::unique_ptr<ScriptedHttpServer> m_server;
    int m_dbCounter = 0;

    // schedule: the endpoint's own keys after its url; maintenance: the array's items.
    bool startWith(const QByteArray &schedule, const QByteArray &maintenance = {})
    {
        QByteArray json = R"({"version": 1, "endpoints": [)" +
                          QStringLiteral(R"({"id": "upload", "url": "%1")")
                              .arg(m_server->url(QStringLiteral("/upload")))
                              .toUtf8() +
                          schedule + "}]";
        if (!maintenance.isEmpty())
            json += R"(, "maintenance": [)" + maintenance + "]";
        json += "}";
        QString error;
        auto config =
            WorkspaceConfig::parse(json, "test.json", &error, {}, QHash<QString, QString>{});
        if (!config) {
            qWarning() << error;
            return false;
        }
        m_store = Store::open(
            m_dir.filePath(QStringLiteral("maintenance-%1.db").arg(++m_dbCounter)), &error);
        if (!m_store) {
            qWarning() << error;
            return false;
        }
        m_transport = std::make_unique<Transport>(*m_clock);
        SchedulerOptions options;
        options.workerId = QStringLiteral("test-worker");
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, options);
        if (!m_scheduler->start(&error)) {
            qWarning() << error;
            return false;
        }
        return settleScheduler(*m_scheduler, 10000);
    }

    // Moves the manual clock to kStart + atMs in steps of a second.
    bool advanceTo(qint64 atMs)
    {
        return advanceScheduler(*m_scheduler, *m_clock, *m_timer, kStart + atMs - m_clock->nowMs(),
                                1000);
    }

    qsizetype sent() const { return m_server->received.size(); }

    QString holds()
    {
        QStringList out;
        const QList<EndpointHold> holds = m_store->endpointHolds().value();
        for (const EndpointHold &h : holds)
            out.append(QStringLiteral("%1 until +%2 s (%3)")
                           .arg(h.endpointId)
                           .arg((h.untilMs - kStart) / 1000)
                           .arg(h.reason));
        return out.join(QLatin1Char(';'));
    }

private slots:
    void init()
    {
        m_clock = std::make_unique<ManualClock>(kStart);
        m_random = std::make_unique<SeededRandom>(7);
        m_timer = std::make_unique<ManualWakeTimer>(*m_clock);
        m_server = std::make_unique<ScriptedHttpServer>();
    }
    void cleanup()
    {
        m_scheduler.reset();
        m_transport.reset();
        m_store.reset();
        m_server.reset();
    }

    void weeklyWindowSkipsPeriodicChecks();
    void oneOffWindowHoldsWaitingWork();
    void holdPlacedElsewhereEndsByItself();
    void operatorPauseOutlastsWindow();
};

void tst_Maintenance::weeklyWindowSkipsPeriodicChecks()
{
    // Tuesdays 10:01 to 10:03 Berlin time: 60 s to 180 s after the start.
    QVERIFY(startWith(R"(, "every_seconds": 10)",
                      R"({"id": "partner", "time_zone": "Europe/Berlin", "endpoints": ["upload"],)"
                      R"( "weekly": {"days": ["tue"], "start": "10:01", "duration": "2m"},)"
                      R"( "reason": "Partner upgrade"})"));
    QSignalSpy held(m_scheduler.get(), &Scheduler::endpointsHeld);
    QSignalSpy released(m_scheduler.get(), &Scheduler::endpointsReleased);
    QVERIFY(advanceTo(59000));
    const qsizetype before = sent();
    QCOMPARE(before, 6); // at 0, 10, ... 50 s
    QVERIFY(held.isEmpty());

    QVERIFY(advanceTo(60000));
    QCOMPARE(held.size(), 1);
    QCOMPARE(held.at(0).at(0).toStringList(), QStringList{kUpload});
    QCOMPARE(held.at(0).at(1).toLongLong(), kStart + 180000);
    QCOMPARE(holds(), QStringLiteral("upload until +180 s (Partner upgrade)"));
    QVERIFY(advanceTo(179000));
    QCOMPARE(sent(), before); // the checks at 60 ... 170 s were skipped, not kept
    QVERIFY(released.isEmpty());

    QVERIFY(advanceTo(180000));
    QCOMPARE(released.size(), 1);
    QCOMPARE(holds(), QString());
    QVERIFY(advanceTo(195000));
    QCOMPARE(sent(), before + 2); // at 180 and 190 s
    // Next Tuesday's window is the next one: nothing more held this week.
    QCOMPARE(held.size(), 1);
}

void tst_Maintenance::oneOffWindowHoldsWaitingWork()
{
    // From 09:00 to 10:05 Berlin time: it stands at the start and ends 5 min later.
    QVERIFY(startWith({}, R"({"id": "upgrade", "time_zone": "Europe/Berlin",)"
                          R"( "from": "2026-12-01T09:00", "to": "2026-12-01T10:05"})"));
    QCOMPARE(holds(), QStringLiteral("upload until +300 s (maintenance upgrade)"));
    QCOMPARE(sent(), 0);
    QVERIFY(advanceTo(299000));
    QCOMPARE(sent(), 0);
    QCOMPARE(m_store->countsByState().value(OperationState::Scheduled), 1);
    // Held work goes on by itself: `cooldown run --until-idle` waits for it.
    QVERIFY(!m_scheduler->isIdle());
    QVERIFY(advanceTo(302000));
    QCOMPARE(sent(), 1);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), 1);
    QVERIFY(m_scheduler->isIdle());
}

void tst_Maintenance::holdPlacedElsewhereEndsByItself()
{
    // As `cooldown pause upload --for 30s` from another process would.
    QVERIFY(startWith(R"(, "every_seconds": 10)"));
    QSignalSpy released(m_scheduler.get(), &Scheduler::endpointsReleased);
    QVERIFY(advanceTo(15000));
    QCOMPARE(sent(), 2);
    QCOMPARE(
        m_store->holdEndpoints({kUpload}, kStart + 45000, QStringLiteral("ops"), kStart + 15000)
            .value_or(QStringList()),
        QStringList{kUpload});
    QVERIFY(advanceTo(44000));
    QCOMPARE(sent(), 2);
    // This worker did not place it, but lifts it at its end and goes on.
    QVERIFY(advanceTo(45000));
    QCOMPARE(released.size(), 1);
    QCOMPARE(holds(), QString());
    QVERIFY(advanceTo(55000));
    QCOMPARE(sent(), 3); // the ticks at 20, 30 and 40 s were skipped; the one at 50 s runs
}

void tst_Maintenance::operatorPauseOutlastsWindow()
{
    QVERIFY(startWith(R"(, "every_seconds": 10)",
                      R"({"id": "partner", "time_zone": "UTC",)"
                      R"( "from": "2026-12-01T09:00:30", "to": "2026-12-01T09:01:00"})"));
    QVERIFY(advanceTo(5000));
    QVERIFY(m_scheduler->setEndpointPaused(kUpload, true));
    const qsizetype before = sent();
    QVERIFY(advanceTo(120000));
    // The window neither replaced the pause with its hold nor lifted it at its end.
    QCOMPARE(sent(), before);
    QCOMPARE(holds(), QString());
    QCOMPARE(m_store->isEndpointPaused(kUpload).value_or(false), true);
}

QTEST_GUILESS_MAIN(tst_Maintenance)
#include "tst_maintenance.moc"
