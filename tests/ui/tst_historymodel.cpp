// SPDX-License-Identifier: Apache-2.0
#include "UiTestSupport.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryPage.h"
#include "ui/HistoryReader.h"
#include "ui/WorkerThread.h"

#include <QAbstractItemModelTester>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kStart = 1795953600000; // 2026-11-29T12:00:00Z

// Whether an attempt has the status and decision the query asks for: the rules of the
// History filters, written out here to check what the store answered.
bool statusAndDecisionMatch(const HistoryQuery &query, const AttemptRecord &a)
{
    if (query.decision && a.decision != *query.decision)
        return false;
    switch (query.status) {
    case HistoryQuery::StatusClass::Any:
        return true;
    case HistoryQuery::StatusClass::Success:
        return a.status >= 200 && a.status < 300;
    case HistoryQuery::StatusClass::TooManyRequests:
        return a.status == 429;
    case HistoryQuery::StatusClass::Unavailable:
        return a.status == 503;
    case HistoryQuery::StatusClass::ClientError:
        return a.status >= 400 && a.status < 500 && a.status != 429;
    case HistoryQuery::StatusClass::ServerError:
        return a.status >= 500 && a.status < 600 && a.status != 503;
    case HistoryQuery::StatusClass::NoResponse:
        return a.status == 0;
    }
    return true;
}

} // namespace

// A HistoryModel's two readers of the test's database, each on a thread of its own, as
// the History page starts them.
struct HistoryReaders
{
    explicit HistoryReaders(const QString &url)
        : index(QStringLiteral("history index"), url), rows(QStringLiteral("history rows"), url)
    {}
    WorkerThread<HistoryReader> index;
    WorkerThread<HistoryReader> rows;
};

class tst_HistoryModel : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void pagesRowsNewestFirst();
    void storeAndRowFilters_data();
    void storeAndRowFilters();
    void newAttemptsAppearOnTop();
    void newAttemptsAppearAfterAnEmptyStart();
    void answersToAnOldQueryAreDropped();
    void unreadableDatabaseIsReported();
    void scrollIntoUnreadRowsPaintsThemOnce();

private:
    void fill(int count);
    QString url() const { return m_dir->filePath(QStringLiteral("history.db")); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Store> m_store;
};

void tst_HistoryModel::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QString error;
    m_store = Store::open(url(), &error);
    QVERIFY2(m_store, qPrintable(error));
}

void tst_HistoryModel::cleanup()
{
    m_store.reset();
    m_dir.reset();
}

// count attempts, one second apart: every third a 429 retry of "search", the others
// 200 successes of "measurements".
void tst_HistoryModel::fill(int count)
{
    for (int i = 0; i < count; ++i) {
        const bool throttled = i % 3 == 0;
        const qint64 id = test::recordAttempt(
            *m_store, throttled ? QStringLiteral("search") : QStringLiteral("measurements"),
            kStart + i * 1000, throttled ? 429 : 200,
            throttled ? Decision::Retry : Decision::Success,
            throttled ? OperationState::Waiting : OperationState::Succeeded);
        QVERIFY(id > 0);
    }
}

void tst_HistoryModel::pagesRowsNewestFirst()
{
    const int count = HistoryModel::kPageRows * 2 + 50;
    fill(count);
    const HistoryReaders readers(url());
    HistoryModel model(readers.index.worker(), readers.rows.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setQuery(HistoryQuery());
    QVERIFY(model.isLoading());
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), count, 10000);
    QVERIFY(!model.isLoading());

    // Rows not read yet are placeholders until their page arrives.
    const QModelIndex last = model.index(count - 1, HistoryModel::StartedColumn);
    QSignalSpy loaded(&model, &HistoryModel::rowsLoaded);
    if (!last.data(HistoryModel::LoadedRole).toBool()) {
        QCOMPARE(last.data().toString(), QStringLiteral("…"));
        QTRY_VERIFY_WITH_TIMEOUT(last.data(HistoryModel::LoadedRole).toBool(), 10000);
    }
    // Newest first: the last row is the first attempt recorded, row 0 the latest.
    QCOMPARE(model.attemptAt(count - 1)->startedAtMs, kStart);
    model.ensureLoaded(0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(model.attemptAt(0).has_value(), 10000);
    QCOMPARE(model.attemptAt(0)->startedAtMs, kStart + (count - 1) * 1000);
    QVERIFY(model.attemptIdAt(0) > model.attemptIdAt(1));
    QCOMPARE(model.index(0, HistoryModel::EndpointColumn).data().toString(),
             QStringLiteral("measurements"));
    QCOMPARE(model.index(count - 1, HistoryModel::StatusColumn).data().toString(),
             QStringLiteral("429"));
    QCOMPARE(model.index(count - 1, HistoryModel::RetryAfterColumn).data().toString(),
             QStringLiteral("30"));
    QVERIFY(loaded.size() >= 1);
}

void tst_HistoryModel::storeAndRowFilters_data()
{
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("decision");
    QTest::addColumn<qint64>("fromMs");
    QTest::addColumn<int>("expected");
    // 30 attempts: 10 of search (429, retry) at 0, 3, 6, ... s; 20 of measurements.
    QTest::newRow("all") << QString() << int(HistoryQuery::StatusClass::Any) << QString()
                         << qint64(-1) << 30;
    QTest::newRow("endpoint") << QStringLiteral("search") << int(HistoryQuery::StatusClass::Any)
                              << QString() << qint64(-1) << 10;
    QTest::newRow("429") << QString() << int(HistoryQuery::StatusClass::TooManyRequests)
                         << QString() << qint64(-1) << 10;
    QTest::newRow("2xx") << QString() << int(HistoryQuery::StatusClass::Success) << QString()
                         << qint64(-1) << 20;
    QTest::newRow("decision") << QString() << int(HistoryQuery::StatusClass::Any)
                              << QStringLiteral("retry") << qint64(-1) << 10;
    QTest::newRow("no such decision") << QString() << int(HistoryQuery::StatusClass::Any)
                                      << QStringLiteral("fail") << qint64(-1) << 0;
    QTest::newRow("time") << QString() << int(HistoryQuery::StatusClass::Any) << QString()
                          << kStart + 15000 << 15;
    QTest::newRow("time and status")
        << QStringLiteral("measurements") << int(HistoryQuery::StatusClass::Success) << QString()
        << kStart + 15000 << 10;
}

void tst_HistoryModel::storeAndRowFilters()
{
    QFETCH(QString, endpoint);
    QFETCH(int, status);
    QFETCH(QString, decision);
    QFETCH(qint64, fromMs);
    QFETCH(int, expected);
    fill(30);
    const HistoryReaders readers(url());
    HistoryModel model(readers.index.worker(), readers.rows.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery query;
    query.endpointId = endpoint;
    query.status = HistoryQuery::StatusClass(status);
    if (!decision.isEmpty())
        query.decision = decisionFromString(decision);
    query.fromMs = fromMs;
    model.setQuery(query);
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(model.rowCount(), expected);
    if (expected == 0)
        return;
    model.ensureLoaded(0, expected - 1);
    QTRY_VERIFY_WITH_TIMEOUT(model.attemptAt(expected - 1).has_value(), 10000);
    for (int r = 0; r < expected; ++r) {
        const auto a = model.attemptAt(r);
        QVERIFY(a);
        QVERIFY(statusAndDecisionMatch(query, *a));
        QVERIFY(endpoint.isEmpty() || a->endpointId == endpoint);
        QVERIFY(a->startedAtMs >= fromMs);
    }
}

void tst_HistoryModel::newAttemptsAppearOnTop()
{
    fill(5);
    const HistoryReaders readers(url());
    HistoryModel model(readers.index.worker(), readers.rows.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery query;
    query.status = HistoryQuery::StatusClass::TooManyRequests;
    model.setQuery(query);
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(model.rowCount(), 2);
    const qint64 newest = model.attemptIdAt(0);

    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kStart + 60000, 429,
                                Decision::Retry, OperationState::Waiting) > 0);
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kStart + 61000, 200,
                                Decision::Success) > 0);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 3, 10000);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted.first().at(1).toInt(), 0);
    QVERIFY(model.attemptIdAt(0) > newest);
    QCOMPARE(model.attemptIdAt(1), newest);
}

// A query that matched nothing when it was loaded still follows what comes in, and
// polls that only saw other attempts do not make it skip a matching one.
void tst_HistoryModel::newAttemptsAppearAfterAnEmptyStart()
{
    QCOMPARE(m_store->newestAttemptId(), 0);
    fill(4);
    const qint64 loadedNewest = m_store->newestAttemptId();
    QVERIFY(loadedNewest > 0);
    const HistoryReaders readers(url());
    HistoryModel model(readers.index.worker(), readers.rows.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    HistoryQuery query;
    query.status = HistoryQuery::StatusClass::Unavailable;
    model.setQuery(query);
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(model.rowCount(), 0);

    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kStart + 60000, 429,
                                Decision::Retry, OperationState::Waiting) > 0);
    model.refresh();
    QVERIFY(test::recordAttempt(*m_store, QStringLiteral("search"), kStart + 61000, 503,
                                Decision::Retry, OperationState::Waiting) > 0);
    QCOMPARE(m_store->newestAttemptId(), loadedNewest + 2);
    model.refresh();
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 10000);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.attemptIdAt(0), loadedNewest + 2);
}

void tst_HistoryModel::answersToAnOldQueryAreDropped()
{
    fill(30);
    const HistoryReaders readers(url());
    HistoryModel model(readers.index.worker(), readers.rows.worker());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setQuery(HistoryQuery());
    HistoryQuery search;
    search.endpointId = QStringLiteral("search");
    model.setQuery(search); // before the first answer came
    QTRY_VERIFY_WITH_TIMEOUT(!model.isLoading(), 10000);
    QCOMPARE(model.rowCount(), 10);
    // The reader answers in order, so the first query's answer came (and was dropped)
    // before the second's.
    for (int r = 0; r < model.rowCount(); ++r)
        QVERIFY(model.attemptIdAt(r) > 0);
}

void tst_HistoryModel::unreadableDatabaseIsReported()
{
    const HistoryReaders readers(m_dir->filePath(QStringLiteral("missing/none.db")));
    HistoryModel model(readers.index.worker(), readers.rows.worker());
    QSignalSpy failed(&model, &HistoryModel::failed);
    model.setQuery(HistoryQuery());
    QVERIFY(failed.wait(10000));
    QVERIFY(!failed.first().at(0).toString().isEmpty());
    QVERIFY(!model.isLoading());
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(tst_HistoryModel)
#include "tst_historymodel.moc"

void tst_HistoryModel::scrollIntoUnreadRowsPaintsThemOnce()
{
    const int count = HistoryModel::kPageRows * 6;
    fill(count);
    const HistoryReaders readers(url());
    HistoryModel model(readers.index.worker(), readers.rows.worker());
    model.setQuery(HistoryQuery());
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), count, 10000);
    QTableView view;
    view.resize(800, 400);
    view.setModel(&model);
    HistoryPage::configureTable(&view);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY_WITH_TIMEOUT(model.index(0, 0).data(HistoryModel::LoadedRole).toBool(), 10000);

    // To rows not read yet: the viewport waits for them instead of painting "…".
    QScrollBar *bar = view.verticalScrollBar();
    bar->setValue(bar->maximum());
    const int first = view.rowAt(0);
    QVERIFY(first > HistoryModel::kPageRows * 4);
    QVERIFY(!model.index(first, 0).data(HistoryModel::LoadedRole).toBool());
    QVERIFY(!view.viewport()->updatesEnabled());
    // Held until they arrive, or for 30 ms at most (a slow machine may take longer).
    QTRY_VERIFY_WITH_TIMEOUT(view.viewport()->updatesEnabled(), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(model.index(first, 0).data(HistoryModel::LoadedRole).toBool(), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(model.index(count - 1, 0).data(HistoryModel::LoadedRole).toBool(),
                             5000);

    // Back to rows already read: nothing to wait for.
    bar->setValue(0);
    QVERIFY(view.viewport()->updatesEnabled());
}
