// SPDX-License-Identifier: Apache-2.0
#include "ui/BulkActionDialog.h"

#include "core/engine/EngineSession.h"
#include "core/time/Clock.h"
#include "ui/Format.h"
#include "ui/JobsPage.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

namespace cooldown {

namespace {

constexpr qint64 kMinute = 60000;
// Long enough to count once per pause in typing, short enough to feel immediate.
constexpr int kDebounceMs = 250;

struct TimeChoice
{
    const char *label;
    qint64 rangeMs; // 0: any time
};

const TimeChoice kTimes[] = {
    {QT_TRANSLATE_NOOP("cooldown::BulkActionDialog", "Any time"), 0},
    {QT_TRANSLATE_NOOP("cooldown::BulkActionDialog", "In the last 15 minutes"), 15 * kMinute},
    {QT_TRANSLATE_NOOP("cooldown::BulkActionDialog", "In the last hour"), 60 * kMinute},
    {QT_TRANSLATE_NOOP("cooldown::BulkActionDialog", "In the last 24 hours"), 24 * 60 * kMinute},
    {QT_TRANSLATE_NOOP("cooldown::BulkActionDialog", "In the last 7 days"), 7 * 24 * 60 * kMinute},
};

// Shows a combo's item for a term of one value or none ("any", the first item); a term
// with several values, or one the combo does not offer, shows as a blank: the filter's
// text says what it is.
void showTerm(QComboBox *combo, const QStringList &values)
{
    if (values.isEmpty())
        combo->setCurrentIndex(0);
    else
        combo->setCurrentIndex(values.size() == 1 ? combo->findData(values.constFirst()) : -1);
}

QString count(qint64 n)
{
    return QLocale().toString(n);
}

} // namespace

BulkActionDialog::BulkActionDialog(EngineSession &engine, const Clock &clock, QWidget *parent)
    : QDialog(parent), m_engine(engine), m_clock(clock),
      m_reader(QStringLiteral("bulk-estimate"), engine.databaseUrl())
{
    setWindowTitle(tr("Bulk action"));
    setObjectName(QStringLiteral("bulkActionDialog"));
    m_confirm = [this](const QString &question) {
        return JobsPage::askToForce(this, question);
    };

    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Act on every operation a filter selects. The fields fill in "
                                "the filter; edit it for partitions, reasons or several values "
                                "of a key (see docs/bulk-actions.md)."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    const auto addCombo = [this, form](const QString &label, const QString &name) {
        auto *combo = new QComboBox(this);
        combo->setObjectName(name);
        form->addRow(label, combo);
        return combo;
    };
    m_endpoint = addCombo(tr("&Endpoint:"), QStringLiteral("bulkEndpoint"));
    m_endpoint->addItem(tr("Any"), QString());
    for (const EndpointConfig &e : engine.config().endpoints)
        m_endpoint->addItem(e.id, e.id);
    m_state = addCombo(tr("&State:"), QStringLiteral("bulkState"));
    m_state->addItem(tr("Any"), QString());
    for (const OperationState s :
         {OperationState::Parked, OperationState::Waiting, OperationState::Scheduled,
          OperationState::Failed, OperationState::Running})
        m_state->addItem(format::stateName(s), toString(s));
    m_status = addCombo(tr("&Last answer:"), QStringLiteral("bulkStatus"));
    m_status->addItem(tr("Any"), QString());
    m_status->addItem(tr("429 Too Many Requests"), QStringLiteral("429"));
    m_status->addItem(tr("503 Unavailable"), QStringLiteral("503"));
    m_status->addItem(tr("Any 4xx"), QStringLiteral("4xx"));
    m_status->addItem(tr("Any 5xx"), QStringLiteral("5xx"));
    m_status->addItem(tr("No response"), QStringLiteral("error"));
    m_time = addCombo(tr("&Created:"), QStringLiteral("bulkTime"));
    for (const TimeChoice &t : kTimes)
        m_time->addItem(tr(t.label));

    m_filter = new QLineEdit(this);
    m_filter->setObjectName(QStringLiteral("bulkFilter"));
    m_filter->setPlaceholderText(tr("endpoint=upload state=parked status=429 since=2h"));
    form->addRow(tr("&Filter:"), m_filter);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("bulkFilterError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->hide();
    form->addRow(QString(), m_error);
    m_action = addCombo(tr("&Action:"), QStringLiteral("bulkAction"));
    m_action->addItem(tr("Retry now (through the partition's bucket)"), int(OperatorAction::Retry));
    m_action->addItem(tr("Force now (bypass the bucket; recorded as forced)"),
                      int(OperatorAction::Force));
    m_action->addItem(tr("Cancel"), int(OperatorAction::Cancel));
    layout->addLayout(form);

    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("bulkSummary"));
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);
    m_warning = new QLabel(this);
    m_warning->setObjectName(QStringLiteral("bulkWarning"));
    m_warning->setWordWrap(true);
    m_warning->hide();
    layout->addWidget(m_warning);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("bulkProgress"));
    m_progress->hide();
    layout->addWidget(m_progress);
    m_result = new QLabel(this);
    m_result->setObjectName(QStringLiteral("bulkResult"));
    m_result->setWordWrap(true);
    m_result->hide();
    layout->addWidget(m_result);
    auto *actor = new QLabel(
        tr("The audit table records the action as done by %1.").arg(engine.operatorName()), this);
    actor->setTextFormat(Qt::PlainText);
    actor->setObjectName(QStringLiteral("bulkActor"));
    layout->addWidget(actor);
    layout->addStretch(1);

    auto *buttons = new QDialogButtonBox(this);
    m_apply = buttons->addButton(tr("&Apply"), QDialogButtonBox::AcceptRole);
    m_apply->setObjectName(QStringLiteral("bulkApply"));
    m_stop = buttons->addButton(tr("&Stop"), QDialogButtonBox::ActionRole);
    m_stop->setObjectName(QStringLiteral("bulkStop"));
    m_stop->setToolTip(tr("Stop after the chunk being applied; what was applied stays"));
    m_close = buttons->addButton(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    // Apply must never be the default button: Enter in the filter would apply it.
    m_apply->setAutoDefault(false);
    m_stop->setAutoDefault(false);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &BulkActionDialog::requestEstimate);

    connect(m_endpoint, &QComboBox::activated, this, [this] { onFieldEdited(EndpointField); });
    connect(m_state, &QComboBox::activated, this, [this] { onFieldEdited(StateField); });
    connect(m_status, &QComboBox::activated, this, [this] { onFieldEdited(StatusField); });
    connect(m_time, &QComboBox::activated, this, [this] { onFieldEdited(TimeField); });
    connect(m_filter, &QLineEdit::textChanged, this, &BulkActionDialog::onFilterEdited);
    connect(m_action, &QComboBox::currentIndexChanged, this, &BulkActionDialog::onFilterEdited);
    connect(m_apply, &QPushButton::clicked, this, &BulkActionDialog::apply);
    connect(m_stop, &QPushButton::clicked, this, [this] { m_engine.cancelBulk(); });
    connect(m_close, &QPushButton::clicked, this, &BulkActionDialog::reject);

    BulkEstimateReader *reader = m_reader.worker();
    connect(reader, &BulkEstimateReader::estimated, this, &BulkActionDialog::onEstimated);
    connect(reader, &BulkEstimateReader::failed, this, &BulkActionDialog::onEstimateFailed);
    connect(&m_engine, &EngineSession::bulkProgress, this, &BulkActionDialog::onProgress);
    connect(&m_engine, &EngineSession::bulkFinished, this, &BulkActionDialog::onFinished);

    resize(560, sizeHint().height());
    onFilterEdited();
}

BulkActionDialog::~BulkActionDialog() = default;

void BulkActionDialog::setFilterText(const QString &text)
{
    m_filter->setText(text);
}

QString BulkActionDialog::filterText() const
{
    return m_filter->text();
}

void BulkActionDialog::setAction(OperatorAction action)
{
    m_action->setCurrentIndex(std::max(0, m_action->findData(int(action))));
}

OperatorAction BulkActionDialog::action() const
{
    return OperatorAction(m_action->currentData().toInt());
}

void BulkActionDialog::onFieldEdited(Field field)
{
    // A field changes its own term and keeps the others, typed ones included. Over a
    // text that does not parse, the field starts a filter of its own.
    const qint64 now = m_clock.nowMs();
    QString ignored;
    OperationSelection s =
        OperationSelection::parse(m_filter->text(), now, &ignored).value_or(OperationSelection{});
    switch (field) {
    case EndpointField: {
        const QString id = m_endpoint->currentData().toString();
        s.endpointIds = id.isEmpty() ? QStringList() : QStringList{id};
        break;
    }
    case StateField: {
        const auto state = operationStateFromString(m_state->currentData().toString());
        s.states.clear();
        if (state)
            s.states.append(*state);
        break;
    }
    case StatusField: {
        QString error;
        const QString value = m_status->currentData().toString();
        const auto parsed =
            OperationSelection::parse(QStringLiteral("status=") + value, now, &error);
        s.statuses = value.isEmpty() || !parsed ? QList<StatusMatch>() : parsed->statuses;
        break;
    }
    case TimeField: {
        const int t = std::clamp(m_time->currentIndex(), 0, int(std::size(kTimes)) - 1);
        s.sinceMs = kTimes[t].rangeMs > 0 ? now - kTimes[t].rangeMs : -1;
        s.untilMs = -1;
        break;
    }
    }
    m_showingText = true;
    m_filter->setText(s.toText());
    m_showingText = false;
}

void BulkActionDialog::showFields(const OperationSelection &s)
{
    const QSignalBlocker b1(m_endpoint), b2(m_state), b3(m_status), b4(m_time);
    showTerm(m_endpoint, s.endpointIds);
    QStringList states;
    for (const OperationState state : s.states)
        states.append(toString(state));
    showTerm(m_state, states);
    QStringList statuses;
    for (const StatusMatch &status : s.statuses)
        statuses.append(toString(status));
    showTerm(m_status, statuses);
    // A time typed in the filter is a moment, not one of the ranges offered.
    if (s.sinceMs < 0 && s.untilMs < 0)
        m_time->setCurrentIndex(0);
    else
        m_time->setCurrentIndex(-1);
}

void BulkActionDialog::onFilterEdited()
{
    if (m_applying)
        return;
    // Whatever was counted no longer stands for what the dialog shows.
    ++m_generation;
    m_selection.reset();
    m_preview.reset();
    m_warning->hide();
    QString error;
    const auto selection = OperationSelection::parse(m_filter->text(), m_clock.nowMs(), &error);
    if (!selection) {
        m_error->setText(tr("Filter: %1").arg(error));
    } else if (selection->isEmpty()) {
        m_error->setText(tr("Filter: name at least one term (an empty filter would select every "
                            "operation)"));
    } else {
        m_error->clear();
        if (!m_showingText)
            showFields(*selection);
    }
    m_error->setVisible(!m_error->text().isEmpty());
    m_summary->setText(m_error->text().isEmpty() ? tr("Counting…") : QString());
    if (m_error->text().isEmpty())
        m_debounce->start();
    else
        m_debounce->stop();
    updateButtons();
}

void BulkActionDialog::requestEstimate()
{
    // Parsed again at the moment of counting: "since=2h" counts from now.
    const qint64 now = m_clock.nowMs();
    QString error;
    const auto selection = OperationSelection::parse(m_filter->text(), now, &error);
    if (!selection || selection->isEmpty())
        return;
    const quint64 generation = ++m_generation;
    const OperatorAction what = action();
    const int maxInFlight = m_engine.config().concurrency.maxInFlight;
    m_selection = *selection;
    m_countedAction = what;
    BulkEstimateReader *reader = m_reader.worker();
    QMetaObject::invokeMethod(reader, [reader, generation, s = *selection, what, now, maxInFlight] {
        reader->estimate(generation, s, what, now, maxInFlight);
    });
}

void BulkActionDialog::onEstimated(quint64 generation, const BulkPreview &preview)
{
    if (generation != m_generation || m_applying)
        return;
    m_preview = preview;
    m_summary->setText(summaryText(preview));
    m_warning->setText(warningText(preview));
    m_warning->setVisible(!m_warning->text().isEmpty());
    updateButtons();
}

void BulkActionDialog::onEstimateFailed(quint64 generation, const QString &message)
{
    if (generation != m_generation)
        return;
    m_selection.reset();
    m_summary->setText(tr("Cannot count the operations: %1").arg(message));
    updateButtons();
}

QString BulkActionDialog::summaryText(const BulkPreview &p) const
{
    const DrainEstimate &e = p.estimate;
    QString text = tr("%Ln operation(s) match", nullptr, int(std::min<qint64>(p.matched, INT_MAX)));
    if (p.actionable != p.matched)
        text += (m_countedAction == OperatorAction::Cancel ? tr(", %1 of which can be cancelled")
                                                           : tr(", %1 of which can be retried"))
                    .arg(count(p.actionable));
    if (e.operations > 0) {
        const QString time =
            e.drainMs < 1000 ? tr("at once") : tr("in about %1").arg(format::duration(e.drainMs));
        QString bound;
        switch (e.bound) {
        case DrainEstimate::Bound::Rate:
            bound = tr(" (paced by partition %1)").arg(e.boundPartition);
            break;
        case DrainEstimate::Bound::Hold:
            bound = tr(" (partition %1 is held by its server first)").arg(e.boundPartition);
            break;
        case DrainEstimate::Bound::Concurrency:
            bound = tr(" (limited by the in-flight limit)");
            break;
        case DrainEstimate::Bound::None:
            break;
        }
        text +=
            m_countedAction == OperatorAction::Cancel
                ? tr(". Left alone, at the current limits they would go out %1%2.").arg(time, bound)
                : tr(". At the current limits they go out %1%2.").arg(time, bound);
    } else {
        text += QLatin1Char('.');
    }
    return text;
}

QString BulkActionDialog::warningText(const BulkPreview &p) const
{
    QStringList lines;
    const DrainEstimate &e = p.estimate;
    if (e.pausedOperations > 0)
        lines.append(
            tr("%1 of them belong to paused endpoints (%2) and are not sent until those "
               "are resumed.")
                .arg(count(e.pausedOperations), e.pausedEndpoints.join(QStringLiteral(", "))));
    if (p.keyExpired > 0)
        lines.append(tr("%1 of them are parked because their idempotency key has expired: they "
                        "are sent with the same key, which the server may have forgotten, and "
                        "may run again.")
                         .arg(count(p.keyExpired)));
    // The retry deadline runs from an operation's first attempt, which is behind it:
    // a drain longer than the shortest deadline ends past it for some of them, and an
    // answer that asks for another retry then ends the operation instead.
    if (m_countedAction != OperatorAction::Cancel && e.operations > 0) {
        const WorkspaceConfig &config = m_engine.config();
        QString tightest;
        double deadlineSeconds = 0;
        for (const EndpointConfig &endpoint : config.endpoints) {
            if (!p.endpoints.contains(endpoint.id))
                continue;
            const double d = config.retryProfile(endpoint.retry).deadlineSeconds;
            if (d > 0 && (tightest.isEmpty() || d < deadlineSeconds)) {
                tightest = endpoint.id;
                deadlineSeconds = d;
            }
        }
        const qint64 deadlineMs = qint64(deadlineSeconds * 1000);
        if (!tightest.isEmpty() && e.drainMs > deadlineMs)
            lines.append(tr("Warning: that is longer than the retry deadline of endpoint %1 (%2, "
                            "deadline_seconds of its retry profile): those sent after it that "
                            "the server asks to retry are not retried again.")
                             .arg(tightest, format::duration(deadlineMs)));
    }
    return lines.join(QLatin1Char('\n'));
}

void BulkActionDialog::updateButtons()
{
    m_apply->setEnabled(!m_applying && m_selection && m_preview && m_preview->actionable > 0);
    m_stop->setVisible(m_applying);
    m_close->setEnabled(!m_applying);
    for (QWidget *w : std::initializer_list<QWidget *>{m_endpoint, m_state, m_status, m_time,
                                                       m_filter, m_action})
        w->setEnabled(!m_applying);
}

void BulkActionDialog::setConfirmation(std::function<bool(const QString &)> confirm)
{
    m_confirm = std::move(confirm);
}

void BulkActionDialog::apply()
{
    if (m_applying || !m_selection || !m_preview || m_preview->actionable == 0)
        return;
    if (m_countedAction == OperatorAction::Force &&
        !m_confirm(JobsPage::forceQuestion(m_preview->actionable)))
        return;
    m_applying = true;
    m_debounce->stop();
    m_result->hide();
    m_progress->setRange(0, int(std::min<qint64>(m_preview->matched, INT_MAX)));
    m_progress->setValue(0);
    m_progress->show();
    updateButtons();
    m_engine.applyToSelection(*m_selection, m_countedAction);
}

void BulkActionDialog::onProgress(const BulkProgress &progress)
{
    if (!m_applying)
        return;
    m_progress->setRange(0, int(std::min<qint64>(progress.matched, INT_MAX)));
    m_progress->setValue(int(std::min<qint64>(progress.done, INT_MAX)));
    m_progress->setFormat(
        tr("%1 of %2 — %3 changed")
            .arg(count(progress.done), count(progress.matched), count(progress.changed)));
}

void BulkActionDialog::onFinished(const BulkOutcome &outcome, const QString &error)
{
    if (!m_applying)
        return; // another window's action
    m_applying = false;
    m_progress->hide();
    const QString text = resultText(outcome, error);
    m_result->setText(text);
    m_result->show();
    emit message(text);
    emit finished(outcome);
    // Counted again: what is left of the selection after the action.
    onFilterEdited();
}

QString BulkActionDialog::resultText(const BulkOutcome &outcome, const QString &error) const
{
    const BulkProgress &p = outcome.progress;
    switch (outcome.result) {
    case BulkOutcome::Result::Failed:
        return tr("The database failed: %1 (%2 operations were changed before)")
            .arg(error, count(p.changed));
    case BulkOutcome::Result::Stopped:
        return tr("Stopped after %1 of %2 operations; %3 were changed.")
            .arg(count(p.done), count(p.matched), count(p.changed));
    case BulkOutcome::Result::Done:
        break;
    }
    const qint64 unchanged = p.matched - p.changed;
    if (m_countedAction == OperatorAction::Cancel)
        return tr("%1 operations cancelled").arg(count(p.changed - p.pending)) +
               (p.pending > 0 ? tr("; %1 have an attempt running and become cancelled when it "
                                   "ends")
                                    .arg(count(p.pending))
                              : QString()) +
               (unchanged > 0 ? tr("; %1 were left as they are (ended, or no longer matching)")
                                    .arg(count(unchanged))
                              : QString()) +
               QLatin1Char('.');
    return (m_countedAction == OperatorAction::Force ? tr("%1 operations are due now, forced")
                                                     : tr("%1 operations are due now"))
               .arg(count(p.changed)) +
           (unchanged > 0 ? tr("; %1 were left as they are (running, ended, or no longer "
                               "matching)")
                                .arg(count(unchanged))
                          : QString()) +
           QLatin1Char('.');
}

void BulkActionDialog::reject()
{
    if (m_applying) {
        m_engine.cancelBulk();
        return;
    }
    QDialog::reject();
}

} // namespace cooldown
