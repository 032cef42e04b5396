// SPDX-License-Identifier: Apache-2.0
// The SLA report's printable page (ui/ReportDialog): last month's report of a seeded
// history, shown as HTML with a chart per endpoint, and written to a PDF with pages.
// COOLDOWN_REPORT_SCREENSHOT=FILE.png also saves a picture of the dialog to look at.

#include "UiTestSupport.h"

#include "core/time/Clock.h"
#include "ui/ReportDialog.h"

#include <QDateTime>
#include <QFile>
#include <QProcessEnvironment>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimeZone>

using namespace cooldown;

class tst_ReportDialog : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void showsLastMonth();
    void writesAPdf();
    void dailyChartMarksDaysBelowTarget();
    void saysWhenTheStoreCannotBeRead();

private:
    QTemporaryDir m_dir;
    QString m_db;
    WorkspaceConfig m_config;
    // 2026-12-06 12:00 local: last month is November.
    ManualClock m_clock{QDateTime(QDate(2026, 12, 6), QTime(12, 0)).toMSecsSinceEpoch()};
};

void tst_ReportDialog::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("report.db"));
    QString error;
    const auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    const qint64 start = QDateTime(QDate(2026, 11, 1), QTime(0, 0)).toMSecsSinceEpoch();
    // "api" every two hours, failing for a whole day now and then and on some evenings;
    // "upload" every three hours, down for half a day on the 20th.
    for (qint64 at = start + 60'000; at < start + 30LL * 86'400'000; at += 2 * 3'600'000) {
        const QDateTime local = QDateTime::fromMSecsSinceEpoch(at);
        const bool fails = local.date().day() % 9 == 4 ||
                           (local.time().hour() == 20 && local.date().day() % 3 == 0);
        QVERIFY(test::recordAttempt(*store, QStringLiteral("api"), at, fails ? 500 : 200,
                                    fails ? Decision::Fail : Decision::Success,
                                    fails ? OperationState::Failed : OperationState::Succeeded));
    }
    for (qint64 at = start + 120'000; at < start + 30LL * 86'400'000; at += 3 * 3'600'000) {
        const QDateTime local = QDateTime::fromMSecsSinceEpoch(at);
        const bool down = local.date().day() == 20 && local.time().hour() < 12;
        QVERIFY(test::recordAttempt(*store, QStringLiteral("upload"), at, down ? 0 : 200,
                                    down ? Decision::Fail : Decision::Success,
                                    down ? OperationState::Failed : OperationState::Succeeded));
    }
    EndpointConfig api;
    api.id = QStringLiteral("api");
    api.name = QStringLiteral("Partner API");
    api.slaTarget = 99.5;
    EndpointConfig upload;
    upload.id = QStringLiteral("upload");
    upload.name = QStringLiteral("Uploads");
    upload.slaTarget = 95;
    m_config.endpoints = {api, upload};
    MaintenanceConfig window;
    window.id = QStringLiteral("weekend");
    window.endpointIds = {QStringLiteral("upload")};
    window.window.zone = QTimeZone::systemTimeZone();
    window.window.fromMs = QDateTime(QDate(2026, 11, 14), QTime(22, 0)).toMSecsSinceEpoch();
    window.window.toMs = QDateTime(QDate(2026, 11, 15), QTime(6, 0)).toMSecsSinceEpoch();
    m_config.maintenance = {window};
}

void tst_ReportDialog::showsLastMonth()
{
    ReportDialog dialog(m_db, m_config, m_clock);
    dialog.show();
    QSignalSpy shown(&dialog, &ReportDialog::reportShown);
    dialog.refresh();
    QVERIFY(shown.wait(30000));
    QCOMPARE(shown.first().first().toBool(), true);
    const QString html = dialog.html();
    QVERIFY(html.contains(QStringLiteral("Partner API (api)")));
    QVERIFY(html.contains(QStringLiteral("Uploads (upload)")));
    QVERIFY(html.contains(QStringLiteral("missed")));
    QVERIFY(html.contains(QStringLiteral("found no network")));
    QVERIFY(html.contains(QStringLiteral("chart://0")));
    QVERIFY(html.contains(QStringLiteral("Maintenance")));
    const QString picture = QProcessEnvironment::systemEnvironment().value(
        QStringLiteral("COOLDOWN_REPORT_SCREENSHOT"));
    if (!picture.isEmpty()) {
        QTest::qWait(50); // a frame for the layout (not for time to pass)
        QVERIFY(dialog.grab().save(picture));
    }
}

void tst_ReportDialog::writesAPdf()
{
    ReportDialog dialog(m_db, m_config, m_clock);
    QSignalSpy shown(&dialog, &ReportDialog::reportShown);
    dialog.refresh();
    QVERIFY(shown.wait(30000));
    QCOMPARE(shown.first().first().toBool(), true);
    const QString pdf = m_dir.filePath(QStringLiteral("report.pdf"));
    QString error;
    QVERIFY2(dialog.exportPdf(pdf, &error), qPrintable(error));
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(bytes.startsWith("%PDF-"));
    QVERIFY2(bytes.count("/Type /Page\n") + bytes.count("/Type /Page ") +
                     bytes.count("/Type /Page>") + bytes.count("/Type /Page/") >=
                 1,
             "no page in the PDF");
    QVERIFY(bytes.contains("/Subtype /Image")); // the charts
}

void tst_ReportDialog::dailyChartMarksDaysBelowTarget()
{
    SlaEndpointReport e;
    e.slaTarget = 99;
    e.days = {{QDate(2026, 11, 1), 100, 100}, {QDate(2026, 11, 2), 100, 50}};
    const QImage chart = ReportDialog::dailyChart(e, QDate(2026, 11, 1), QDate(2026, 11, 2));
    QVERIFY(!chart.isNull());
    // The second day's bar is drawn in the colour of a missed target, the first's not.
    const int y = chart.height() - 30;
    bool red = false;
    bool blue = false;
    for (int x = 0; x < chart.width(); ++x) {
        const QColor c = chart.pixelColor(x, y);
        red = red || (c.red() > 180 && c.blue() < 100);
        blue = blue || (c.blue() > 180 && c.red() < 100);
    }
    QVERIFY(red);
    QVERIFY(blue);
}

void tst_ReportDialog::saysWhenTheStoreCannotBeRead()
{
    ReportDialog dialog(m_dir.filePath(QStringLiteral("missing.db")), m_config, m_clock);
    QSignalSpy shown(&dialog, &ReportDialog::reportShown);
    dialog.refresh();
    QVERIFY(shown.wait(30000));
    QCOMPARE(shown.first().first().toBool(), false);
    QVERIFY(dialog.html().contains(QStringLiteral("could not be read")));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("missing.db"))));
}

QTEST_MAIN(tst_ReportDialog)
#include "tst_reportdialog.moc"
