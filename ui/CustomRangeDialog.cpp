// SPDX-License-Identifier: Apache-2.0
#include "ui/CustomRangeDialog.h"

#include "ui/Palette.h"

#include <QDateTime>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace cooldown {

namespace {

QDateTimeEdit *makeEdit(const QString &objectName, QWidget *parent)
{
    auto *edit = new QDateTimeEdit(parent);
    edit->setObjectName(objectName);
    edit->setCalendarPopup(true);
    edit->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
    return edit;
}

} // namespace

CustomRangeDialog::CustomRangeDialog(qint64 fromMs, qint64 toMs, qint64 nowMs, QWidget *parent)
    : QDialog(parent), m_nowMs(nowMs)
{
    setObjectName(QStringLiteral("customRangeDialog"));
    setWindowTitle(tr("Custom time range"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_from = makeEdit(QStringLiteral("customFrom"), this);
    m_to = makeEdit(QStringLiteral("customTo"), this);
    form->addRow(tr("&From:"), m_from);
    form->addRow(tr("&To:"), m_to);
    layout->addLayout(form);
    auto *about = new QLabel(tr("The Overview shows this window as it is; it does not move "
                                "with the clock."),
                             this);
    about->setWordWrap(true);
    layout->addWidget(about);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("customProblem"));
    m_problem->setWordWrap(true);
    palette::showAsProblem(m_problem);
    layout->addWidget(m_problem);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = box->button(QDialogButtonBox::Ok);
    layout->addWidget(box);

    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (QDateTimeEdit *edit : {m_from, m_to})
        connect(edit, &QDateTimeEdit::dateTimeChanged, this, &CustomRangeDialog::validate);
    setWindow(fromMs, toMs);
}

qint64 CustomRangeDialog::fromMs() const
{
    return m_from->dateTime().toMSecsSinceEpoch();
}

qint64 CustomRangeDialog::toMs() const
{
    return m_to->dateTime().toMSecsSinceEpoch();
}

void CustomRangeDialog::setWindow(qint64 fromMs, qint64 toMs)
{
    // Whole minutes, as the edits show them.
    const auto minute = [](qint64 ms) {
        return QDateTime::fromMSecsSinceEpoch(ms - ms % 60000).toLocalTime();
    };
    m_from->setDateTime(minute(fromMs));
    m_to->setDateTime(minute(toMs));
    validate();
}

QString CustomRangeDialog::problem() const
{
    return problem(fromMs(), toMs(), m_nowMs);
}

QString CustomRangeDialog::problem(qint64 fromMs, qint64 toMs, qint64 nowMs)
{
    if (fromMs >= toMs)
        return tr("The window must start before it ends.");
    if (toMs > nowMs + kFutureSlackMs)
        return tr("The window cannot end in the future.");
    if (toMs - fromMs > kMaxSpanMs)
        return tr("The window can span at most %1 days.")
            .arg(kMaxSpanMs / (24 * 3600 * qint64(1000)));
    return QString();
}

void CustomRangeDialog::validate()
{
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_ok->setEnabled(why.isEmpty());
}

} // namespace cooldown
