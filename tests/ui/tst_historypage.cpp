// SPDX-License-Identifier: Apache-2.0
#include "../store/CsvReader.h"
#include "UiTestSupport.h"
#include "core/store/CsvExporter.h"
#include "core/time/Clock.h"
#include "ui/AttemptInspector.h"
#include "ui/AuditModel.h"
#include "ui/CsvExportJob.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryPage.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kStart = 1795953600000; // 2026-11-29T12:00:00Z
constexpr int kEverything = 4;           // the History page's "Everything" time choice

} // namespace

class tst_HistoryPage : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void exportWritesTheFilteredRows();
    void exportAppliesStatusAndDecision();
    void exportCanBeCancelled();
    void inspectorExplainsTheSelectedAttempt();
    void operatorActionsShowNewestFirstInTheTimeRange();
    void inspectorShowsTheExchangeKept();

private:
    QString url() const { return m_dir->filePath(QStringLiteral("history.db")); }
    QList<QStringList> readCsv(const QString &path);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Store> m_store;
    WorkspaceConfig m_config;
};

void tst_HistoryPage::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    QString error;
    m_store = Store::open(url(), &error);
    QVERIFY2(m_store, qPrintable(error));
    for (int i = 0; i < 30; ++i) {
        const bool search = i % 3 == 0;
        QVERIFY(test::recordAttempt(
                    *m_store, search ? QStringLiteral("search") : QStringLiteral("measurements"),
                    kStart + i * 1000, search ? 429 : 200,
                    search ? Decision::Retry : Decision::Success,
                    search ? OperationState::Waiting : OperationState::Succeeded) > 0);
    }
    const auto config = WorkspaceConfig::parse(R"({"version": 1, "endpoints": [
        {"id": "search", "method": "GET", "url": "http://127.0.0.1:9/search"},
        {"id": "measurements", "method": "GET", "url": "http://127.0.0.1:9/m"}]})",
                                               QStringLiteral("test.json"), &error);
    QVERIFY2(config, qPrintable(error));
    m_config = *config;
}

QList<QStringList> tst_HistoryPage::readCsv(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<QStringList> rows;
    QString error;
    if (!test::parseCsv(file.readAll(), &rows, &error))
        qWarning("%s", qPrintable(error));
    return rows;
}

void tst_HistoryPage::exportWritesTheFilteredRows()
{
    HistoryPage page(url(), m_config, SystemClock::instance());
    page.setFilter(QStringLiteral("search"), kEverything, HistoryQuery::StatusClass::Any,
                   std::nullopt);
    QTRY_VERIFY_WITH_TIMEOUT(!page.model()->isLoading(), 10000);
    QCOMPARE(page.model()->rowCount(), 10);

    const QString path = m_dir->filePath(QStringLiteral("search.csv"));
    QSignalSpy finished(&page, &HistoryPage::exportFinished);
    QVERIFY(page.exportTo(path));
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.first().at(0).toInt(), int(CsvExporter::NoError));
    QCOMPARE(finished.first().at(2).toLongLong(), qint64(10));

    const QList<QStringList> rows = readCsv(path);
    QCOMPARE(rows.size(), 11); // the header and the ten attempts shown
    const int endpoint = rows.first().indexOf(QStringLiteral("endpoint_id"));
    const int status = rows.first().indexOf(QStringLiteral("status"));
    QVERIFY(endpoint >= 0 && status >= 0);
    for (int r = 1; r < rows.size(); ++r) {
        QCOMPARE(rows.at(r).at(endpoint), QStringLiteral("search"));
        QCOMPARE(rows.at(r).at(status), QStringLiteral("429"));
    }
    // Secrets stay out of the file.
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains("secret"));
}

void tst_HistoryPage::exportAppliesStatusAndDecision()
{
    // Every endpoint, but only 2xx answers that ended in success: the file holds
    // exactly the rows the view shows.
    HistoryPage page(url(), m_config, SystemClock::instance());
    page.setFilter(QString(), kEverything, HistoryQuery::StatusClass::Success, Decision::Success);
    QTRY_VERIFY_WITH_TIMEOUT(!page.model()->isLoading(), 10000);
    QCOMPARE(page.model()->rowCount(), 20);

    const QString path = m_dir->filePath(QStringLiteral("ok.csv"));
    QSignalSpy finished(&page, &HistoryPage::exportFinished);
    QVERIFY(page.exportTo(path));
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.first().at(2).toLongLong(), qint64(20));
    const QList<QStringList> rows = readCsv(path);
    QCOMPARE(rows.size(), 21);
    const int status = rows.first().indexOf(QStringLiteral("status"));
    const int decision = rows.first().indexOf(QStringLiteral("decision"));
    for (int r = 1; r < rows.size(); ++r) {
        QCOMPARE(rows.at(r).at(status), QStringLiteral("200"));
        QCOMPARE(rows.at(r).at(decision), QStringLiteral("success"));
    }
}

void tst_HistoryPage::exportCanBeCancelled()
{
    HistoryPage page(url(), m_config, SystemClock::instance());
    page.setFilter(QString(), kEverything, HistoryQuery::StatusClass::Any, std::nullopt);
    const QString path = m_dir->filePath(QStringLiteral("cancelled.csv"));
    QSignalSpy finished(&page, &HistoryPage::exportFinished);
    CsvExportJob *job = page.exportTo(path);
    QVERIFY(job);
    job->cancel();
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.size(), 1);
    // Cancelled before the last chunk, or finished first: either way never half a file.
    const int error = finished.first().at(0).toInt();
    QVERIFY(error == CsvExporter::Cancelled || error == CsvExporter::NoError);
    if (error == CsvExporter::Cancelled)
        QVERIFY(!QFile::exists(path));
    else
        QCOMPARE(readCsv(path).size(), 31);
    QVERIFY(page.exportAction()->isEnabled());
}

void tst_HistoryPage::inspectorExplainsTheSelectedAttempt()
{
    HistoryPage page(url(), m_config, SystemClock::instance());
    page.setFilter(QString(), kEverything, HistoryQuery::StatusClass::TooManyRequests,
                   std::nullopt);
    QTRY_VERIFY_WITH_TIMEOUT(!page.model()->isLoading(), 10000);
    QCOMPARE(page.model()->rowCount(), 10);
    page.model()->ensureLoaded(0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(page.model()->attemptAt(0).has_value(), 10000);
    page.table()->setCurrentIndex(page.model()->index(0, 0));
    const QString text = page.inspector()->text();
    QVERIFY(text.contains(QStringLiteral("Raw Retry-After")));
    QVERIFY(text.contains(QStringLiteral("Retry-After: 30")));
    QVERIFY(text.contains(QStringLiteral("Set-Cookie: [redacted]")));
    QVERIFY(!text.contains(QStringLiteral("secret")));
    // The same explanation `cooldown explain` gives: a 429 with Retry-After 30 retries.
    QVERIFY(text.contains(QStringLiteral("\"action\": \"retry\"")));
    QVERIFY(text.contains(QStringLiteral("\"source\": \"retry-after\"")));

    const QJsonObject why = explainAttempt(*page.model()->attemptAt(0), m_config);
    QCOMPARE(why.value(QStringLiteral("action")).toString(), QStringLiteral("retry"));
    QCOMPARE(
        why.value(QStringLiteral("retry_after")).toObject().value(QStringLiteral("raw")).toString(),
        QStringLiteral("30"));
}

// docs/checks.md: a failed check names the assertion, and the bodies kept follow once
// read from the store.
void tst_HistoryPage::inspectorShowsTheExchangeKept()
{
    const qint64 at = kStart + 40 * 1000;
    const auto claimed =
        test::claimNew(*m_store, QStringLiteral("search"), QString(), at, QStringLiteral("w1"));
    QVERIFY(claimed);
    AttemptRecord a = test::nextAttempt(*claimed, at, at + 40);
    a.method = QStringLiteral("GET");
    a.url = QStringLiteral("http://127.0.0.1/search");
    a.status = 200;
    a.decision = Decision::Fail;
    a.reason = QStringLiteral("assertion_failed");
    a.workerId = QStringLiteral("w1");
    a.checkFailure = QStringLiteral("json[0] /items has at least 1 items; found: 0 items");
    auto kept = std::make_shared<KeptExchange>();
    kept->responseBody = QStringLiteral("{\"status\": \"ok\", \"items\": []}");
    kept->responseBytes = kept->responseBody.size();
    a.kept = kept;
    OperationRecord next = test::leftIn(*claimed, a, OperationState::Failed, at);
    QCOMPARE(test::finishAttempt(*m_store, a, next, QStringLiteral("w1")),
             Store::FinishResult::Committed);

    HistoryPage page(url(), m_config, SystemClock::instance());
    page.setFilter(QStringLiteral("search"), kEverything, HistoryQuery::StatusClass::Any,
                   Decision::Fail);
    QTRY_VERIFY_WITH_TIMEOUT(!page.model()->isLoading(), 10000);
    QCOMPARE(page.model()->rowCount(), 1);
    page.model()->ensureLoaded(0, 0);
    QTRY_VERIFY_WITH_TIMEOUT(page.model()->attemptAt(0).has_value(), 10000);
    page.table()->setCurrentIndex(page.model()->index(0, 0));
    QVERIFY(page.inspector()->text().contains(a.checkFailure));
    QTRY_VERIFY_WITH_TIMEOUT(page.inspector()->text().contains(QStringLiteral("Response body")),
                             10000);
    QVERIFY(page.inspector()->text().contains(QStringLiteral("\"items\": []")));
}

void tst_HistoryPage::operatorActionsShowNewestFirstInTheTimeRange()
{
    const auto record = [this](qint64 atMs, const QString &actor, OperatorAction action,
                               const QString &target, qint64 changed) {
        AuditRecord r;
        r.atMs = atMs;
        r.actor = actor;
        r.action = action;
        r.target = target;
        r.asked = changed;
        r.changed = changed;
        return m_store->recordOperatorAction(&r);
    };
    // Two days before "now", then within the last hour.
    QVERIFY(record(kStart - 2 * 86400000, QStringLiteral("erin"), OperatorAction::Cancel,
                   QStringLiteral("ids=4"), 1));
    QVERIFY(record(kStart + 60000, QStringLiteral("dana"), OperatorAction::Force,
                   QStringLiteral("endpoint=search state=parked"), 7));
    QVERIFY(record(kStart + 120000, QStringLiteral("dana"), OperatorAction::Pause,
                   QStringLiteral("endpoints=search"), 1));
    ManualClock clock(kStart + 30 * 60000);
    HistoryPage page(url(), m_config, clock);
    QAbstractItemModelTester tester(page.auditModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!page.auditTable()->isVisibleTo(&page));
    page.setView(HistoryPage::View::OperatorActions);
    QVERIFY(page.auditTable()->isVisibleTo(&page));
    QVERIFY(!page.table()->isVisibleTo(&page));
    QVERIFY(!page.findChild<QComboBox *>(QStringLiteral("historyEndpoint"))->isEnabled());
    QVERIFY(!page.exportAction()->isEnabled());
    // The last hour, the default range: the older action is left out.
    QTRY_COMPARE(page.auditModel()->rowCount(), 2);
    const auto cell = [&](int row, int column) {
        return page.auditModel()->index(row, column).data().toString();
    };
    QCOMPARE(cell(0, AuditModel::ActionColumn), QStringLiteral("Pause"));
    QCOMPARE(cell(1, AuditModel::ActorColumn), QStringLiteral("dana"));
    QCOMPARE(cell(1, AuditModel::ActionColumn), QStringLiteral("Force"));
    QCOMPARE(cell(1, AuditModel::TargetColumn), QStringLiteral("endpoint=search state=parked"));
    QCOMPARE(cell(1, AuditModel::ChangedColumn), QStringLiteral("7"));
    QCOMPARE(cell(1, AuditModel::WorkerColumn), QStringLiteral("command line"));
    QTRY_COMPARE(page.findChild<QLabel *>(QStringLiteral("historyCount"))->text(),
                 QStringLiteral("2 operator action(s)"));

    page.findChild<QComboBox *>(QStringLiteral("historyTime"))->setCurrentIndex(kEverything);
    QTRY_COMPARE(page.auditModel()->rowCount(), 3);
    QCOMPARE(cell(2, AuditModel::ActorColumn), QStringLiteral("erin"));

    page.setView(HistoryPage::View::Attempts);
    QVERIFY(page.table()->isVisibleTo(&page));
    QVERIFY(page.findChild<QComboBox *>(QStringLiteral("historyEndpoint"))->isEnabled());
    QVERIFY(page.exportAction()->isEnabled());
}

QTEST_MAIN(tst_HistoryPage)
#include "tst_historypage.moc"
