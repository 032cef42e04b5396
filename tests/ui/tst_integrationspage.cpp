// SPDX-License-Identifier: Apache-2.0
#include "app/demo/DemoServer.h"
#include "core/config/WorkspaceConfig.h"
#include "core/engine/EngineSession.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryPage.h"
#include "ui/IntegrationsModel.h"
#include "ui/IntegrationsPage.h"
#include "ui/JobsModel.h"
#include "ui/JobsPage.h"
#include "ui/MainWindow.h"

#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace cooldown;

namespace {

// One endpoint that answers 200 and one that does not exist (404: fails for good).
QByteArray twoEndpoints()
{
    return R"({
      "version": 1,
      "endpoints": [
        { "id": "report", "method": "GET", "url": "${demo:base_url}/ok?key=integrations-test",
          "timeout_seconds": 10 },
        { "id": "missing", "method": "GET", "url": "${demo:base_url}/nothing-here",
          "timeout_seconds": 10 }
      ]
    })";
}

// The endpoints of the rows a table shows.
QSet<QString> endpointsShown(const QTableView *table, int role)
{
    QSet<QString> out;
    const QAbstractItemModel *model = table->model();
    for (int r = 0; r < model->rowCount(); ++r)
        out.insert(model->index(r, 0).data(role).toString());
    return out;
}

} // namespace

class tst_IntegrationsPage : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void selectingARowFiltersJobsAndHistory();

private:
    std::unique_ptr<QTemporaryDir> m_settings;
};

void tst_IntegrationsPage::initTestCase()
{
    m_settings = std::make_unique<QTemporaryDir>();
    QVERIFY(m_settings->isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settings->path());
    QCoreApplication::setOrganizationName(QStringLiteral("CooldownTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_integrationspage"));
}

void tst_IntegrationsPage::selectingARowFiltersJobsAndHistory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    DemoServer server;
    QVERIFY2(server.listen(0), qPrintable(server.errorString()));
    QString error;
    auto config = WorkspaceConfig::parse(twoEndpoints(), QStringLiteral("test.json"), &error,
                                         WorkspaceConfig::demoVariables(server.baseUrl()));
    QVERIFY2(config, qPrintable(error));
    auto session =
        EngineSession::open(std::move(*config), dir.filePath(QStringLiteral("d.db")), &error);
    QVERIFY2(session && session->start(&error), qPrintable(error));
    MainWindow window(*session, {QStringLiteral("Test"), QString(), {}});
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // The tab right after the Overview.
    IntegrationsPage *page = window.integrationsPage();
    QVERIFY(page);
    QCOMPARE(window.tabs()->indexOf(page), 1);
    window.tabs()->setCurrentWidget(page);
    IntegrationsModel *model = page->model();
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(), 2, 10000);
    // Both ran once: one succeeded, one failed for good.
    const int missing = model->rowOf(QStringLiteral("missing"));
    const int report = model->rowOf(QStringLiteral("report"));
    QTRY_COMPARE_WITH_TIMEOUT(model->stateAt(missing), IntegrationState::Failing, 15000);
    QTRY_VERIFY_WITH_TIMEOUT(model->statusAt(report).lastSuccessAtMs > 0, 15000);
    QCOMPARE(model->stateAt(report), IntegrationState::Ok);

    // Jobs lists every operation, of both endpoints.
    JobsPage *jobs = window.jobsPage();
    auto *scope = jobs->findChild<QComboBox *>(QStringLiteral("jobsScope"));
    QVERIFY(scope);
    scope->setCurrentIndex(scope->findData(int(JobsScope::Recent)));
    QTRY_COMPARE_WITH_TIMEOUT(endpointsShown(jobs->table(), JobsModel::EndpointIdRole),
                              (QSet<QString>{QStringLiteral("missing"), QStringLiteral("report")}),
                              10000);
    HistoryPage *history = window.historyPage();
    QCOMPARE(history->currentQuery().endpointId, QString());

    // Selecting a row: Jobs and History show that endpoint only.
    page->table()->selectRow(missing);
    QCOMPARE(page->selectedEndpoint(), QStringLiteral("missing"));
    QCOMPARE(jobs->endpointFilter(), QStringLiteral("missing"));
    // The store answers the filtered list: it comes a moment later.
    QTRY_COMPARE_WITH_TIMEOUT(endpointsShown(jobs->table(), JobsModel::EndpointIdRole),
                              QSet<QString>{QStringLiteral("missing")}, 10000);
    QVERIFY(jobs->findChild<QLabel *>(QStringLiteral("jobsEndpointFilter"))->isVisibleTo(jobs));
    QCOMPARE(history->currentQuery().endpointId, QStringLiteral("missing"));
    QCOMPARE(history->findChild<QComboBox *>(QStringLiteral("historyEndpoint"))->currentData(),
             QVariant(QStringLiteral("missing")));
    // Jobs' actions work on what is shown.
    jobs->table()->selectAll();
    QVERIFY(!jobs->selectedOperationIds().isEmpty());

    // Another row, another endpoint.
    page->table()->selectRow(report);
    QCOMPARE(jobs->endpointFilter(), QStringLiteral("report"));
    QCOMPARE(history->currentQuery().endpointId, QStringLiteral("report"));
    QTRY_COMPARE_WITH_TIMEOUT(endpointsShown(jobs->table(), JobsModel::EndpointIdRole),
                              QSet<QString>{QStringLiteral("report")}, 10000);

    // No selection: every endpoint again.
    page->table()->clearSelection();
    QCOMPARE(jobs->endpointFilter(), QString());
    QCOMPARE(history->currentQuery().endpointId, QString());
    QTRY_COMPARE_WITH_TIMEOUT(endpointsShown(jobs->table(), JobsModel::EndpointIdRole).size(), 2,
                              10000);

    // Jobs' own "Show all endpoints" clears its filter.
    page->table()->selectRow(missing);
    auto *showAll = jobs->findChild<QToolButton *>(QStringLiteral("jobsShowAllEndpoints"));
    QVERIFY(showAll);
    showAll->click();
    QCOMPARE(jobs->endpointFilter(), QString());
    QTRY_COMPARE_WITH_TIMEOUT(endpointsShown(jobs->table(), JobsModel::EndpointIdRole).size(), 2,
                              10000);
}

QTEST_MAIN(tst_IntegrationsPage)
#include "tst_integrationspage.moc"
