// SPDX-License-Identifier: Apache-2.0
// A worker whose database goes away while it works (docs/database-outages.md): the
// store tells a fault from a failed statement, the scheduler holds its work, keeps the
// records of the exchanges that end meanwhile, says so once when the database goes and
// once when it is back, and then goes on: every operation ends, none is sent twice.
//
// Two ways to take the database away under a running scheduler, on a manual clock:
// - SQLite: `PRAGMA max_page_count` on the worker's own connection makes every write
//   that needs a new page fail with SQLITE_FULL ("database or disk is full"), as a
//   full disk does; lifting it is space coming back.
// - PostgreSQL (COOLDOWN_TEST_PG_URL; skipped without it): the worker's backend is
//   terminated from a second connection (pg_terminate_backend), as a server restart
//   or a failover does.

#include "core/config/WorkspaceConfig.h"
#include "core/engine/Scheduler.h"
#include "core/engine/Transport.h"
#include "core/store/DatabaseFault.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"
#include "core/time/RandomSource.h"
#include "core/time/WakeTimer.h"
#include "store/StoreTestSupport.h"
#include "support/CountingHttpServer.h"
#include "support/SettleScheduler.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace cooldown {
inline char *toString(DatabaseFault fault)
{
    return qstrdup(textOf(fault));
}
} // namespace cooldown

namespace {

constexpr int kOperations = 12;
constexpr int kMaxInFlight = 4;

// Processes events until done() or timeoutMs of real time.
template <typename Done> bool waitFor(Done done, int timeoutMs = 10000)
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

} // namespace

class tst_DatabaseOutage : public QObject
{
    Q_OBJECT

private:
    enum class Backend
    {
        Sqlite,
        Postgres,
    };

    QTemporaryDir m_dir;
    std::unique_ptr<ManualClock> m_clock;
    std::unique_ptr<SeededRandom> m_random;
    std::unique_ptr<ManualWakeTimer> m_timer;
    std::unique_ptr<CountingHttpServer> m_server;
    std::unique_ptr<Store> m_store;
    std::unique_ptr<Transport> m_transport;
    std::unique_ptr<Scheduler> m_scheduler;
    QString m_storeConnection; // the QtSql connection of m_store (SQLite)

    // kOperations one-shot POSTs with idempotency keys, each to a path of its own, with
    // a header long enough that every attempt's record takes pages of its own.
    QByteArray workspace() const
    {
        const QByteArray pad(3000, 'x');
        QByteArray endpoints;
        for (int i = 0; i < kOperations; ++i)
            endpoints +=
                (i ? "," : "") +
                QStringLiteral(R"({"id": "e%1", "url": "%2", "method": "POST", "body": "b",)"
                               R"( "headers": {"X-Pad": "%3"},)"
                               R"( "idempotency": {"header": "Idempotency-Key"}})")
                    .arg(i)
                    .arg(m_server->url(QStringLiteral("/op/%1").arg(i)), QLatin1String(pad))
                    .toUtf8();
        return R"({"version": 1, "concurrency": {"max_in_flight": )" +
               QByteArray::number(kMaxInFlight) + R"(, "per_host": 6}, "endpoints": [)" +
               endpoints + "]}";
    }

    bool start(const QString &url)
    {
        QString error;
        auto config = WorkspaceConfig::parse(workspace(), "outage.json", &error, {},
                                             QHash<QString, QString>{});
        if (!config) {
            qWarning() << error;
            return false;
        }
        StoreOptions options;
        options.paceByDatabaseClock = false;
        const QStringList before = QSqlDatabase::connectionNames();
        m_store = Store::open(url, &error, options);
        if (!m_store) {
            qWarning() << error;
            return false;
        }
        for (const QString &name : QSqlDatabase::connectionNames()) {
            if (!before.contains(name))
                m_storeConnection = name;
        }
        m_transport = std::make_unique<Transport>(*m_clock);
        SchedulerOptions scheduler;
        scheduler.workerId = QStringLiteral("outage-worker");
        scheduler.leaseMs = 60000;
        m_scheduler = std::make_unique<Scheduler>(std::move(*config), *m_store, *m_transport,
                                                  *m_clock, *m_random, *m_timer, scheduler);
        if (!m_scheduler->start(&error)) {
            qWarning() << error;
            return false;
        }
        return true;
    }

    // Moves the manual clock in steps of 50 ms, firing the timer when due, until
    // done() or limitMs of manual time; returns the manual time it took, or -1.
    template <typename Done> qint64 runUntil(Done done, qint64 limitMs)
    {
        for (qint64 spent = 0; spent <= limitMs; spent += 50) {
            settleScheduler(*m_scheduler, 2000);
            if (done())
                return spent;
            m_clock->advance(50);
            m_timer->fireIfDue();
        }
        return -1;
    }

    qint64 ended()
    {
        const QMap<OperationState, qint64> counts = m_store->countsByState();
        return counts.value(OperationState::Succeeded) + counts.value(OperationState::Failed) +
               counts.value(OperationState::Parked) + counts.value(OperationState::Cancelled);
    }

    // What the SQLite test does to the worker's connection: no page more than it has.
    bool limitPages(bool limited)
    {
        QSqlDatabase db = QSqlDatabase::database(m_storeConnection, false);
        QSqlQuery query(db);
        if (!limited)
            return query.exec(QStringLiteral("PRAGMA max_page_count = 1073741823"));
        if (!query.exec(QStringLiteral("PRAGMA page_count")) || !query.next())
            return false;
        const qint64 pages = query.value(0).toLongLong();
        query.finish();
        return query.exec(QStringLiteral("PRAGMA max_page_count = %1").arg(pages));
    }

    // Attempts in an SQLite file, read through a connection of the test's own.
    static int recordedAttempts(const QString &path)
    {
        const QString name = QStringLiteral("outage-reader");
        int count = -1;
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            db.setDatabaseName(path);
            db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
            if (db.open()) {
                QSqlQuery query(db);
                if (query.exec(QStringLiteral("SELECT COUNT(*) FROM attempts")) && query.next())
                    count = query.value(0).toInt();
            }
        }
        QSqlDatabase::removeDatabase(name);
        return count;
    }

    void outage(Backend backend);

private slots:
    void init()
    {
        m_clock = std::make_unique<ManualClock>(QDateTime::currentMSecsSinceEpoch());
        m_random = std::make_unique<SeededRandom>(11);
        m_timer = std::make_unique<ManualWakeTimer>(*m_clock);
        m_server = std::make_unique<CountingHttpServer>();
    }

    void cleanup()
    {
        m_scheduler.reset();
        m_transport.reset();
        m_store.reset();
        m_server.reset();
    }

    void faultsAreClassified_data();
    void faultsAreClassified();
    void nativeCodesAreClassified();
    void diskFullHoldsAndResumes() { outage(Backend::Sqlite); }
    void terminatedBackendIsReconnected() { outage(Backend::Postgres); }
};

void tst_DatabaseOutage::faultsAreClassified_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<DatabaseFault>("fault");
    QTest::newRow("sqlite full") << QStringLiteral("database or disk is full")
                                 << DatabaseFault::DiskFull;
    QTest::newRow("sqlite ioerr") << QStringLiteral("disk I/O error") << DatabaseFault::DiskFull;
    QTest::newRow("pg gone") << QStringLiteral("no connection to the server\n")
                             << DatabaseFault::ConnectionLost;
    QTest::newRow("pg closed") << QStringLiteral(
                                      "server closed the connection unexpectedly\n\tThis "
                                      "probably means the server terminated abnormally")
                               << DatabaseFault::ConnectionLost;
    QTest::newRow("pg terminated")
        << QStringLiteral("FATAL:  terminating connection due to administrator command")
        << DatabaseFault::ConnectionLost;
    QTest::newRow("qt not open") << QStringLiteral("Driver not loaded; database not open")
                                 << DatabaseFault::ConnectionLost;
    QTest::newRow("ssl") << QStringLiteral("SSL SYSCALL error: EOF detected")
                         << DatabaseFault::ConnectionLost;
    QTest::newRow("locked") << QStringLiteral("database is locked") << DatabaseFault::None;
    QTest::newRow("constraint") << QStringLiteral("UNIQUE constraint failed: operations.key")
                                << DatabaseFault::None;
    QTest::newRow("empty") << QString() << DatabaseFault::None;
}

void tst_DatabaseOutage::faultsAreClassified()
{
    QFETCH(QString, text);
    QFETCH(DatabaseFault, fault);
    QCOMPARE(faultOfText(text), fault);
    QCOMPARE(faultOf(QSqlError(QString(), text, QSqlError::StatementError)), fault);
}

void tst_DatabaseOutage::nativeCodesAreClassified()
{
    const auto withCode = [](const char *code, QSqlError::ErrorType type) {
        return faultOf(QSqlError(QStringLiteral("driver"), QStringLiteral("something"), type,
                                 QLatin1String(code)));
    };
    QCOMPARE(withCode("57P01", QSqlError::StatementError), DatabaseFault::ConnectionLost);
    QCOMPARE(withCode("57P02", QSqlError::StatementError), DatabaseFault::ConnectionLost);
    QCOMPARE(withCode("57P03", QSqlError::StatementError), DatabaseFault::ConnectionLost);
    QCOMPARE(withCode("08006", QSqlError::StatementError), DatabaseFault::ConnectionLost);
    QCOMPARE(withCode("53100", QSqlError::StatementError), DatabaseFault::DiskFull);
    QCOMPARE(withCode("23505", QSqlError::StatementError), DatabaseFault::None);
    QCOMPARE(withCode("", QSqlError::ConnectionError), DatabaseFault::ConnectionLost);
}

void tst_DatabaseOutage::outage(Backend backend)
{
    QString url;
    if (backend == Backend::Postgres) {
        QString why;
        url = test::freshPostgresDatabase(QStringLiteral("cooldown_outage"), &why);
        if (url.isEmpty())
            QSKIP(qPrintable(why));
    } else {
        url = m_dir.filePath(QStringLiteral("outage.db"));
    }
    m_server->hold(true);
    QVERIFY(start(url));
    QSignalSpy lost(m_scheduler.get(), &Scheduler::databaseLost);
    QSignalSpy back(m_scheduler.get(), &Scheduler::databaseBack);
    QSignalSpy failed(m_scheduler.get(), &Scheduler::storeFailed);

    // The first exchanges are in flight, held at the server.
    QVERIFY(waitFor([&] { return m_server->heldCount() == kMaxInFlight; }));
    QCOMPARE(m_scheduler->inFlight(), kMaxInFlight);

    // The database goes away under them.
    if (backend == Backend::Postgres) {
        const QUrl server(url);
        const QString name = QStringLiteral("outage-killer");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
            db.setHostName(server.host());
            db.setPort(server.port(5432));
            db.setUserName(server.userName());
            db.setDatabaseName(server.path().mid(1));
            QVERIFY2(db.open(), qPrintable(db.lastError().text()));
            QSqlQuery kill(db);
            QVERIFY2(kill.exec(QStringLiteral(
                         "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <>"
                         " pg_backend_pid() AND datname = current_database()")),
                     qPrintable(kill.lastError().text()));
            int killed = 0;
            while (kill.next())
                killed += kill.value(0).toBool() ? 1 : 0;
            QVERIFY2(killed >= 1, "no backend of the worker was terminated");
        }
        QSqlDatabase::removeDatabase(name);
    } else {
        QVERIFY(limitPages(true));
    }

    // Their answers come: the first write that finds no room (SQLite may still fit an
    // answer or a claim into a page it has, so which write that is depends on the order
    // the answers arrive in) takes the database down; from then on nothing is sent, and
    // every answer that could not be recorded is kept. What was sent by then is what
    // the server had received or was still on its way.
    int receivedAtLoss = -1;
    int inFlightAtLoss = -1;
    connect(m_scheduler.get(), &Scheduler::databaseLost, this, [&] {
        receivedAtLoss = m_server->requests;
        inFlightAtLoss = m_scheduler->inFlight();
    });
    m_server->hold(false);
    QVERIFY(waitFor([&] { return m_scheduler->inFlight() == 0 && lost.size() == 1; }));
    QVERIFY(m_scheduler->isDatabaseDown());
    const int sent = m_server->requests;
    QVERIFY(sent >= kMaxInFlight);
    QVERIFY2(sent <= receivedAtLoss + inFlightAtLoss,
             qPrintable(QStringLiteral("%1 sent, %2 received and %3 in flight at the loss")
                            .arg(sent)
                            .arg(receivedAtLoss)
                            .arg(inFlightAtLoss)));
    QVERIFY(m_scheduler->recordsKept() >= 1);
    QVERIFY(m_scheduler->recordsKept() <= sent);

    if (backend == Backend::Sqlite) {
        // While the disk stays full: nothing more is sent, the records wait, and it is
        // said once, whatever the number of tries.
        QCOMPARE(runUntil([] { return false; }, 5000), -1);
        QCOMPARE(m_server->requests, sent);
        QCOMPARE(lost.size(), 1);
        QCOMPARE(back.size(), 0);
        // Every request sent is either in the database already or kept to be recorded.
        QCOMPARE(recordedAttempts(url) + m_scheduler->recordsKept(), sent);
        QVERIFY(m_scheduler->isDatabaseDown());
        QVERIFY(!m_scheduler->isIdle());
        QVERIFY(limitPages(false)); // space again
    }

    // Back within a couple of seconds of the database answering; then everything ends.
    const qint64 backAfterMs = runUntil([&] { return back.size() == 1; }, 5000);
    QVERIFY2(backAfterMs >= 0 && backAfterMs <= 2000, qPrintable(QString::number(backAfterMs)));
    QVERIFY(runUntil([&] { return ended() == kOperations; }, 30000) >= 0);

    QCOMPARE(lost.size(), 1);
    QCOMPARE(back.size(), 1);
    QCOMPARE(failed.size(), 0);
    QVERIFY(!m_scheduler->isDatabaseDown());
    QCOMPARE(m_store->fault(), DatabaseFault::None);
    QCOMPARE(m_store->countsByState().value(OperationState::Succeeded), kOperations);
    QCOMPARE(m_store->leaseConflictCount(), 0);
    QCOMPARE(m_store->countAttempts({}), kOperations);
    // Every operation was sent once, with its key.
    QCOMPARE(m_server->requests, kOperations);
    QCOMPARE(m_server->byKey.size(), kOperations);
    QVERIFY2(m_server->repeatedKeys().isEmpty(), m_server->repeatedKeys().join(' ').constData());
    QVERIFY(m_server->repeatedPaths().isEmpty());
}

QTEST_MAIN(tst_DatabaseOutage)
#include "tst_databaseoutage.moc"
