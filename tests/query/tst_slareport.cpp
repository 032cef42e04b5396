// SPDX-License-Identifier: Apache-2.0
// The SLA report (docs/report.md) against a recount: a seeded history with outages, a
// maintenance window, throttling, parked operations and sporadic failures is recorded
// through the store as the engine records it (successes over a latency budget among them); the
// report, read from the rollups, must give the figures the test counts itself with plain SQL over
// the raw attempts. On SQLite (the store's own statements and Qt's driver alone) and PostgreSQL.

#include "../store/StoreTestSupport.h"

#include "core/query/QueryStore.h"
#include "core/query/SlaReport.h"
#include "core/store/LatencyBuckets.h"
#include "core/store/Schema.h"
#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <QSqlQuery>
#include <QTest>
#include <QTimeZone>

#include <memory>

using namespace cooldown;

Q_DECLARE_METATYPE(cooldown::ThrottledRule)
Q_DECLARE_METATYPE(cooldown::MaintenanceRule)

namespace {

constexpr qint64 kMinute = 60'000;
constexpr qint64 kHour = 60 * kMinute;
constexpr qint64 kDay = 24 * kHour;
// Midnight UTC: no test here reads the clock.
constexpr qint64 kStart = 1'795'000'000'000 - 1'795'000'000'000 % kDay;
constexpr int kMinutes = 2 * 24 * 60;
// A one-off maintenance window, 21:30 to 23:30 on the first day: it starts and ends
// inside hours, and an outage of "api" falls in it.
constexpr qint64 kWindowStart = kStart + 1290 * kMinute;
constexpr qint64 kWindowEnd = kStart + 1410 * kMinute;

// One attempt of the seeded history.
struct Step
{
    int status = 200;
    Decision decision = Decision::Success;
    QString reason;
    qint64 durationMs = 0;
};

// What endpoint `e` (0 or 1) does in minute m: its operation's attempts.
QList<Step> operationAt(int e, int m)
{
    const qint64 d = 20 + (qint64(m) * 7919 + e * 104729) % 2500;
    const qint64 d2 = 15 + (qint64(m) * 104729 + e * 7919) % 1800;
    const Step fail500{500, Decision::Fail, QStringLiteral("status_500"), d};
    const Step timeout{0, Decision::Fail, QStringLiteral("timeout"), 10'000};
    if (e == 0 && m >= 600 && m < 690) // an outage, behind a 503 first
        return {{503, Decision::Retry, QString(), d}, {500, Decision::Fail, fail500.reason, d2}};
    if (e == 0 && m >= 1300 && m < 1400) // an outage inside the maintenance window
        return {fail500};
    if (e == 1 && m >= 1500 && m < 1530)
        return {timeout};
    // The machine offline (docs/offline.md): a minute of nothing but an exchange that
    // found no network, which says nothing of the endpoint; the retry, in the next
    // minute, succeeds.
    if (e == 1 && m >= 1700 && m < 1710)
        return {{0, Decision::Retry, QStringLiteral("offline"), 1},
                {200, Decision::Success, QString(), 70'000}};
    if (m % 14 == 4) // throttled, then succeeded
        return {{429, Decision::Retry, QString(), d}, {200, Decision::Success, QString(), d2}};
    if (m % 74 == 10)
        return {timeout};
    if (m % 202 == 50)
        return {{500, Decision::Park, QString(), d}};
    if (m % 46 == 30) // over a latency budget: succeeded, degraded
        return {{200, Decision::Success, QStringLiteral("degraded"), d}};
    return {{200, Decision::Success, QString(), d}};
}

} // namespace

class tst_SlaReport : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase_data();
    void init();
    void cleanup();
    void previousMonthIsTheCalendarMonth();
    void reportEqualsRecount_data();
    void reportEqualsRecount();
    void migrationBuildsTheSameFigures();

private:
    bool seed();
    std::optional<SlaReport> report(qint64 from, qint64 to, ThrottledRule throttled,
                                    MaintenanceRule maintenance, QString *error);
    QSqlDatabase raw();
    qint64 count(const QString &where);
    void compareWithRecount(const SlaReport &report, qint64 from, qint64 to,
                            ThrottledRule throttled, MaintenanceRule maintenance);
    void compareDowntime(const SlaEndpointReport &e, qint64 from, qint64 to,
                         ThrottledRule throttled, MaintenanceRule maintenance);
    void compareLatency(const SlaEndpointReport &e, qint64 from, qint64 to);

    QString m_backend;
    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
};

void tst_SlaReport::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("sqlite, driver only") << "sqlite-driver-only";
    QTest::newRow("postgresql") << "postgresql";
}

void tst_SlaReport::init()
{
    QFETCH_GLOBAL(QString, backend);
    m_backend = backend;
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    if (m_backend.startsWith(QLatin1String("sqlite"))) {
        m_url = m_dir->filePath(QStringLiteral("report.db"));
        return;
    }
    QString why;
    m_url = test::freshPostgresDatabase(QStringLiteral("cooldown_tst_slareport"), &why);
    if (m_url.isEmpty())
        QSKIP(qPrintable(QStringLiteral("PostgreSQL backend not tested: %1").arg(why)));
}

void tst_SlaReport::cleanup()
{
    QSqlDatabase::removeDatabase(QStringLiteral("tst-slareport-raw"));
    m_dir.reset();
}

bool tst_SlaReport::seed()
{
    StoreOptions options;
    options.paceByDatabaseClock = false;
    options.useLinkedSqlite = m_backend != QLatin1String("sqlite-driver-only");
    QString error;
    const std::unique_ptr<Store> store = Store::open(m_url, &error, options);
    if (!store) {
        qWarning("open failed: %s", qPrintable(error));
        return false;
    }
    const QString worker = QStringLiteral("w");
    const QStringList endpoints = {QStringLiteral("api"), QStringLiteral("upload")};
    for (int m = 0; m < kMinutes; m += 2) {
        for (int e = 0; e < 2; ++e) {
            qint64 at = kStart + m * kMinute + 5'000 + e * 20'000;
            std::optional<OperationRecord> op = test::claimNew(
                *store, endpoints.at(e), QStringLiteral("k%1-%2").arg(e).arg(m), at, worker);
            const QList<Step> steps = operationAt(e, m);
            for (qsizetype i = 0; op && i < steps.size(); ++i) {
                const Step &s = steps.at(i);
                AttemptRecord a = test::nextAttempt(*op, at, at + s.durationMs);
                a.status = s.status;
                a.decision = s.decision;
                a.reason = s.reason;
                a.durationMs = s.durationMs;
                a.workerId = worker;
                a.waitMs = s.decision == Decision::Retry ? 1'500 : -1;
                const OperationState state =
                    s.decision == Decision::Success ? OperationState::Succeeded
                    : s.decision == Decision::Fail  ? OperationState::Failed
                    : s.decision == Decision::Park  ? OperationState::Parked
                                                    : OperationState::Waiting;
                at = a.finishedAtMs + 1'500;
                const OperationRecord next = test::leftIn(*op, a, state, at);
                const auto outcomes =
                    store->finishAttempts({Store::FinishRequest(a, next, op->version)}, worker);
                if (outcomes.size() != 1 ||
                    outcomes.first().result != Store::FinishResult::Committed)
                    return false;
                if (state == OperationState::Waiting) {
                    const QList<OperationRecord> again =
                        store->claims().claimDue(worker, at, 60'000, 1);
                    if (again.size() != 1)
                        return false;
                    op = again.first();
                }
            }
            if (!op)
                return false;
        }
    }
    return true;
}

std::optional<SlaReport> tst_SlaReport::report(qint64 from, qint64 to, ThrottledRule throttled,
                                               MaintenanceRule maintenance, QString *error)
{
    QueryStore store(m_url, QueryStore::IfMissing::Refuse);
    if (!store.ensureOpen([&](const QString &why) { *error = why; }))
        return std::nullopt;
    SlaRequest request;
    request.fromMs = from;
    request.toMs = to;
    request.endpoints = {{QStringLiteral("api"), QStringLiteral("API"), 99.5},
                         {QStringLiteral("upload"), QStringLiteral("Upload"), 95}};
    MaintenanceConfig window;
    window.id = QStringLiteral("partner");
    window.endpointIds = {QStringLiteral("api"), QStringLiteral("upload")};
    window.window.zone = QTimeZone::utc();
    window.window.fromMs = kWindowStart;
    window.window.toMs = kWindowEnd;
    request.maintenance = {window};
    request.throttled = throttled;
    request.maintenanceRule = maintenance;
    return buildSlaReport(store, request, error);
}

QSqlDatabase tst_SlaReport::raw()
{
    const QString name = QStringLiteral("tst-slareport-raw");
    if (QSqlDatabase::contains(name))
        return QSqlDatabase::database(name);
    QSqlDatabase db = test::addRawConnection(m_url, name);
    if (!db.open())
        qWarning("raw open failed: %s", qPrintable(db.lastError().text()));
    return db;
}

// The attempts `a` (lease conflicts left out) that match `where`, counted.
qint64 tst_SlaReport::count(const QString &where)
{
    QSqlQuery query(raw());
    // An exchange that found no network counts nowhere (docs/report.md, "Offline").
    const QString sql = QStringLiteral("SELECT COUNT(*) FROM attempts a WHERE a.lease_conflict = 0"
                                       " AND a.reason <> 'offline' AND %1")
                            .arg(where);
    if (!query.exec(sql) || !query.next()) {
        qWarning("recount failed: %s: %s", qPrintable(sql), qPrintable(query.lastError().text()));
        return -1;
    }
    return query.value(0).toLongLong();
}

namespace {

// The minute an attempt ended in, as SQL.
const char kMinuteOf[] = "(a.finished_at - a.finished_at % 60000)";

QString inRange(const QString &endpoint, qint64 from, qint64 to, MaintenanceRule maintenance)
{
    QString where = QStringLiteral("a.endpoint_id = '%1' AND %2 >= %3 AND %2 < %4")
                        .arg(endpoint, QLatin1String(kMinuteOf))
                        .arg(from)
                        .arg(to);
    if (maintenance == MaintenanceRule::Exclude)
        where += QStringLiteral(" AND NOT (%1 >= %2 AND %1 < %3)")
                     .arg(QLatin1String(kMinuteOf))
                     .arg(kWindowStart)
                     .arg(kWindowEnd);
    return where;
}

} // namespace

void tst_SlaReport::compareDowntime(const SlaEndpointReport &e, qint64 from, qint64 to,
                                    ThrottledRule throttled, MaintenanceRule maintenance)
{
    // Per minute: successes, and the attempts that say whether the endpoint was up.
    const QString judged =
        throttled == ThrottledRule::AsFailure
            ? QStringLiteral("1")
            : QStringLiteral("CASE WHEN a.status IN (429, 503) THEN 0 ELSE 1 END");
    QSqlQuery query(raw());
    QVERIFY2(query.exec(QStringLiteral("SELECT %1, SUM(CASE WHEN a.decision = 'success' THEN 1"
                                       " ELSE 0 END), SUM(%2) FROM attempts a"
                                       " WHERE a.lease_conflict = 0 AND a.reason <> 'offline'"
                                       " AND %3 GROUP BY %1 ORDER BY %1")
                            .arg(QLatin1String(kMinuteOf), judged,
                                 inRange(e.endpointId, from, to, maintenance))),
             qPrintable(query.lastError().text()));
    QList<SlaInterval> expected;
    std::optional<SlaInterval> run;
    while (query.next()) {
        const qint64 minute = query.value(0).toLongLong();
        if (query.value(2).toLongLong() == 0)
            continue;
        if (run && maintenance == MaintenanceRule::Exclude && kWindowStart < minute &&
            kWindowEnd > run->endMs) {
            expected.append(*run);
            run.reset();
        }
        if (query.value(1).toLongLong() > 0) {
            if (run)
                expected.append(*run);
            run.reset();
        } else if (run) {
            run->endMs = minute + kMinute;
        } else {
            run = SlaInterval{minute, minute + kMinute};
        }
    }
    if (run)
        expected.append(*run);
    QVERIFY(!expected.isEmpty());
    QCOMPARE(e.downtime.size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i) {
        QCOMPARE(e.downtime.at(i).startMs, expected.at(i).startMs);
        QCOMPARE(e.downtime.at(i).endMs, expected.at(i).endMs);
    }
}

void tst_SlaReport::compareLatency(const SlaEndpointReport &e, qint64 from, qint64 to)
{
    // The answered attempts of the hours that start in the range (the first taken down
    // to its hour), maintenance included; nearest rank, mapped to the histogram's bucket.
    const QString where = QStringLiteral("a.endpoint_id = '%1' AND a.status <> 0 AND"
                                         " a.finished_at - a.finished_at % 3600000 >= %2 AND"
                                         " a.finished_at - a.finished_at % 3600000 < %3")
                              .arg(e.endpointId)
                              .arg(from - from % kHour)
                              .arg(to);
    QSqlQuery query(raw());
    QVERIFY(query.exec(QStringLiteral("SELECT COUNT(*) FROM attempts a WHERE %1").arg(where)));
    QVERIFY(query.next());
    const qint64 n = query.value(0).toLongLong();
    QCOMPARE(e.latencySamples, n);
    for (const auto &[percent, actual] : {std::pair{50, e.p50Ms}, std::pair{95, e.p95Ms}}) {
        const qint64 rank = (n * percent + 99) / 100;
        QVERIFY(query.exec(QStringLiteral("SELECT a.duration_ms FROM attempts a WHERE %1"
                                          " ORDER BY a.duration_ms LIMIT 1 OFFSET %2")
                               .arg(where)
                               .arg(rank - 1)));
        QVERIFY(query.next());
        const qint64 value = query.value(0).toLongLong();
        QVERIFY(actual.has_value());
        QCOMPARE(*actual, *latency::upperBoundMs(latency::bucketOf(value)));
    }
}

void tst_SlaReport::compareWithRecount(const SlaReport &report, qint64 from, qint64 to,
                                       ThrottledRule throttled, MaintenanceRule maintenance)
{
    QCOMPARE(report.endpoints.size(), 2);
    for (const SlaEndpointReport &e : report.endpoints) {
        const QString range = inRange(e.endpointId, from, to, maintenance);
        const qint64 succeeded = count(range + QStringLiteral(" AND a.decision = 'success'"));
        const qint64 failed = count(range + QStringLiteral(" AND a.decision IN ('fail', 'park')"));
        const qint64 throttledSucceeded =
            count(range + QStringLiteral(" AND a.decision = 'success' AND EXISTS (SELECT 1 FROM"
                                         " attempts t WHERE t.operation_id = a.operation_id AND"
                                         " t.status IN (429, 503))"));
        QVERIFY(throttledSucceeded > 0);
        QCOMPARE(e.succeeded, succeeded);
        QCOMPARE(e.failed, failed);
        QCOMPARE(e.throttledSucceeded, throttledSucceeded);
        QCOMPARE(e.attempts, count(range));
        QCOMPARE(e.answered429, count(range + QStringLiteral(" AND a.status = 429")));
        const qint64 degraded =
            count(range + QStringLiteral(" AND a.decision = 'success' AND a.reason = 'degraded'"));
        QVERIFY(degraded > 0);
        QCOMPARE(e.degraded, degraded);
        qint64 available = succeeded;
        qint64 counted = succeeded + failed;
        if (throttled != ThrottledRule::AsSuccess)
            available -= throttledSucceeded;
        if (throttled == ThrottledRule::Exclude)
            counted -= throttledSucceeded;
        QCOMPARE(e.available, available);
        QCOMPARE(e.counted, counted);
        QCOMPARE(*e.availabilityPercent(), 100.0 * double(available) / double(counted));
        QCOMPARE(*e.share429Percent(),
                 100.0 * double(count(range + QStringLiteral(" AND a.status = 429"))) /
                     double(count(range)));
        QCOMPARE(e.failuresByReason.value(QStringLiteral("parked")),
                 count(range + QStringLiteral(" AND a.decision = 'park'")));
        for (const QString &reason : {QStringLiteral("timeout"), QStringLiteral("status_500")})
            QCOMPARE(
                e.failuresByReason.value(reason),
                count(range +
                      QStringLiteral(" AND a.decision = 'fail' AND a.reason = '%1'").arg(reason)));
        QCOMPARE(e.targetMet(), std::optional<bool>(*e.availabilityPercent() >= e.slaTarget));
        compareDowntime(e, from, to, throttled, maintenance);
        compareLatency(e, from, to);
    }
}

void tst_SlaReport::previousMonthIsTheCalendarMonth()
{
    const QTimeZone berlin("Europe/Berlin");
    // 2026-03-01 00:30 in Berlin is still February in UTC: the month is Berlin's.
    const qint64 now = QDateTime(QDate(2026, 3, 1), QTime(0, 30), berlin).toMSecsSinceEpoch();
    const SlaInterval month = previousCalendarMonth(now, berlin);
    QCOMPARE(month.startMs, QDateTime(QDate(2026, 2, 1), QTime(0, 0), berlin).toMSecsSinceEpoch());
    QCOMPARE(month.endMs, QDateTime(QDate(2026, 3, 1), QTime(0, 0), berlin).toMSecsSinceEpoch());
}

void tst_SlaReport::reportEqualsRecount_data()
{
    QTest::addColumn<qint64>("from");
    QTest::addColumn<qint64>("to");
    QTest::addColumn<ThrottledRule>("throttled");
    QTest::addColumn<MaintenanceRule>("maintenance");
    QTest::newRow("whole days") << kStart << kStart + 2 * kDay << ThrottledRule::AsSuccess
                                << MaintenanceRule::Exclude;
    QTest::newRow("ragged edges, throttled excluded")
        << kStart + 95 * kMinute << kStart + 2 * kDay - 37 * kMinute << ThrottledRule::Exclude
        << MaintenanceRule::Exclude;
    QTest::newRow("throttled as failure, maintenance included")
        << kStart << kStart + 2 * kDay << ThrottledRule::AsFailure << MaintenanceRule::Include;
    QTest::newRow("inside one hour") << kStart + 605 * kMinute << kStart + 650 * kMinute
                                     << ThrottledRule::AsSuccess << MaintenanceRule::Exclude;
}

void tst_SlaReport::reportEqualsRecount()
{
    QFETCH(qint64, from);
    QFETCH(qint64, to);
    QFETCH(ThrottledRule, throttled);
    QFETCH(MaintenanceRule, maintenance);
    QVERIFY(seed());
    QString error;
    const std::optional<SlaReport> r = report(from, to, throttled, maintenance, &error);
    QVERIFY2(r, qPrintable(error));
    if (QByteArray(QTest::currentDataTag()) == "inside one hour") {
        // Nothing throttled or succeeded in the outage: only the figures that exist.
        const SlaEndpointReport &api = r->endpoints.constFirst();
        QCOMPARE(api.succeeded, 0);
        QCOMPARE(api.downtime.size(), 1);
        QCOMPARE(api.downtime.constFirst().startMs, kStart + 606 * kMinute);
        QCOMPARE(api.downtime.constFirst().endMs, kStart + 649 * kMinute);
        return;
    }
    compareWithRecount(*r, from, to, throttled, maintenance);
    // The maintenance window is listed either way.
    QCOMPARE(r->endpoints.constFirst().maintenance.size(), 1);
}

void tst_SlaReport::migrationBuildsTheSameFigures()
{
    QVERIFY(seed());
    QString error;
    const auto before =
        report(kStart, kStart + 2 * kDay, ThrottledRule::Exclude, MaintenanceRule::Exclude, &error);
    QVERIFY2(before, qPrintable(error));
    {
        // The tables emptied, then filled by the migration's own statements.
        QSqlQuery query(raw());
        for (const char *table : {"attempt_latency_rollups", "throttled_successes",
                                  "throttled_successes_hourly", "attempt_rollups_daily",
                                  "attempt_latency_rollups_daily", "throttled_successes_daily"})
            QVERIFY2(query.exec(QStringLiteral("DELETE FROM %1").arg(QLatin1String(table))),
                     qPrintable(query.lastError().text()));
        // The hours from the attempts (version 15), then the days from the hours (17).
        for (const int version : {schema::latencyRollupsVersion(), schema::dailyReportVersion()}) {
            const QStringList step =
                schema::migrationStep(version, m_backend == QLatin1String("postgresql"));
            for (const QString &statement : step) {
                if (statement.startsWith(QLatin1String("INSERT")))
                    QVERIFY2(query.exec(statement), qPrintable(query.lastError().text()));
            }
        }
    }
    const auto after =
        report(kStart, kStart + 2 * kDay, ThrottledRule::Exclude, MaintenanceRule::Exclude, &error);
    QVERIFY2(after, qPrintable(error));
    for (qsizetype i = 0; i < 2; ++i) {
        const SlaEndpointReport &b = before->endpoints.at(i);
        const SlaEndpointReport &a = after->endpoints.at(i);
        QCOMPARE(a.throttledSucceeded, b.throttledSucceeded);
        QCOMPARE(a.succeeded, b.succeeded);
        QCOMPARE(a.failed, b.failed);
        QCOMPARE(a.attempts, b.attempts);
        QCOMPARE(a.failuresByReason, b.failuresByReason);
        QCOMPARE(a.available, b.available);
        QCOMPARE(a.latencySamples, b.latencySamples);
        QCOMPARE(a.p50Ms, b.p50Ms);
        QCOMPARE(a.p95Ms, b.p95Ms);
    }
}

QTEST_GUILESS_MAIN(tst_SlaReport)
#include "tst_slareport.moc"
