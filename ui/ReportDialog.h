// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/config/WorkspaceConfig.h"
#include "core/query/SlaReport.h"

#include <QDialog>
#include <QImage>

#include <memory>
#include <optional>

class QComboBox;
class QDateEdit;
class QLabel;
class QTextBrowser;

namespace cooldown {

class Clock;
class ReportReader;
template <typename Worker> class WorkerThread;

// The SLA report as a printable page (docs/report.md): a range of days, the two rules,
// and per endpoint its figures, downtime and a chart of its daily availability, as HTML
// in a text browser; "Export PDF…" prints the same page to a PDF through QPdfWriter.
// Reads on a thread of its own (ReportReader), on open and when an option changes; the
// page shows the latest answer.
class ReportDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ReportDialog)

public:
    ReportDialog(const QString &databaseUrl, const WorkspaceConfig &config, const Clock &clock,
                 QWidget *parent = nullptr);
    ~ReportDialog() override;

    // Opens the dialog over parent, deleted when closed.
    static void open(const QString &databaseUrl, const WorkspaceConfig &config, const Clock &clock,
                     QWidget *parent);

    // Reads the report for the chosen days and rules; reportShown() follows.
    void refresh();
    // Writes the page as it is shown to a PDF file; false with *error on failure.
    bool exportPdf(const QString &fileName, QString *error) const;
    // The page's HTML, for tests.
    QString html() const;
    void setRange(const QDate &from, const QDate &to);

    // Daily availability as bars (percent, with the target as a line), for the page.
    static QImage dailyChart(const SlaEndpointReport &endpoint, const QDate &from, const QDate &to);

Q_SIGNALS:
    // The page shows the report read after the latest refresh(), or why it could not
    // be read (ok false).
    void reportShown(bool ok);

private:
    void showReport(const std::optional<SlaReport> &report, const QString &error,
                    quint64 generation);
    void buildLayout();
    void chooseExportFile();
    QString pageHtml(const SlaReport &report);
    QString endpointHtml(const SlaEndpointReport &e, int index);

    QString m_databaseUrl;
    WorkspaceConfig m_config;
    const Clock &m_clock;
    std::unique_ptr<WorkerThread<ReportReader>> m_reader;
    quint64 m_generation = 0;
    QDateEdit *m_from = nullptr;
    QDateEdit *m_to = nullptr;
    QComboBox *m_throttled = nullptr;
    QComboBox *m_maintenance = nullptr;
    QTextBrowser *m_page = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace cooldown
