// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "core/query/QueryRecords.h"
#include "ui/BulkEstimateReader.h"
#include "ui/WorkerThread.h"

#include <QDialog>

#include <functional>
#include <memory>
#include <optional>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace cooldown {

class Clock;
class EngineSession;

// Retry, force or cancel every operation a filter selects (docs/bulk-actions.md). The
// fields fill in the filter's text, which the operator may also edit (for partitions,
// reasons or several values of a key). The dialog first shows how many operations
// match and how long the action's operations take to go out at the current limits,
// read off the GUI thread with the same store calls as `cooldown retry --filter
// --dry-run`; Apply is offered only once that count is shown, and applies that
// filter. The engine applies it in chunks (EngineSession::applyToSelection), with a
// progress bar and Stop; the audit row names the session's operator.
class BulkActionDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BulkActionDialog)

public:
    BulkActionDialog(EngineSession &engine, const Clock &clock, QWidget *parent = nullptr);
    ~BulkActionDialog() override;

    // Replaces the filter's text; the fields and the count follow.
    void setFilterText(const QString &text);
    QString filterText() const;
    void setAction(OperatorAction action);
    OperatorAction action() const;

    // The count shown, of the filter as it was when counted: -1 while there is none.
    qint64 matchedCount() const { return m_preview ? m_preview->matched : -1; }
    bool isApplying() const { return m_applying; }

    QLineEdit *filterEdit() const { return m_filter; }
    QComboBox *actionBox() const { return m_action; }
    QLabel *errorLabel() const { return m_error; }
    QLabel *summaryLabel() const { return m_summary; }
    QLabel *warningLabel() const { return m_warning; }
    QLabel *resultLabel() const { return m_result; }
    QProgressBar *progressBar() const { return m_progress; }
    QPushButton *applyButton() const { return m_apply; }
    QPushButton *stopButton() const { return m_stop; }

    // Applies the action to the filter that was counted; what Apply does. Forcing
    // asks first (JobsPage::forceQuestion).
    void apply();
    // Asked before "Force now" is applied; the default shows a question box. Tests
    // replace it.
    void setConfirmation(std::function<bool(const QString &question)> confirm);

signals:
    // What the action came to, for the status bar.
    void message(const QString &text);
    void finished(const cooldown::BulkOutcome &outcome);

protected:
    // Escape or the window's close button while the action runs stops it instead: the
    // dialog stays to say how far it got.
    void reject() override;

private:
    enum Field
    {
        EndpointField,
        StateField,
        StatusField,
        TimeField,
    };

    void onFieldEdited(Field field);
    void onFilterEdited();
    void showFields(const OperationSelection &selection);
    void requestEstimate();
    void onEstimated(quint64 generation, const BulkPreview &preview);
    void onEstimateFailed(quint64 generation, const QString &message);
    void onProgress(const BulkProgress &progress);
    void onFinished(const BulkOutcome &outcome, const QString &error);
    void updateButtons();
    QString summaryText(const BulkPreview &preview) const;
    QString warningText(const BulkPreview &preview) const;
    QString resultText(const BulkOutcome &outcome, const QString &error) const;

    EngineSession &m_engine;
    const Clock &m_clock;
    WorkerThread<BulkEstimateReader> m_reader;
    quint64 m_generation = 0;
    // The filter and action the count shown is of; Apply applies exactly these.
    std::optional<OperationSelection> m_selection;
    OperatorAction m_countedAction = OperatorAction::Retry;
    std::function<bool(const QString &)> m_confirm;
    std::optional<BulkPreview> m_preview;
    bool m_applying = false;
    bool m_showingText = false; // the fields are writing the filter's text

    QComboBox *m_endpoint = nullptr;
    QComboBox *m_state = nullptr;
    QComboBox *m_status = nullptr;
    QComboBox *m_time = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_error = nullptr;
    QComboBox *m_action = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_warning = nullptr;
    QLabel *m_result = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_apply = nullptr;
    QPushButton *m_stop = nullptr;
    QPushButton *m_close = nullptr;
    QTimer *m_debounce = nullptr;
};

} // namespace cooldown
