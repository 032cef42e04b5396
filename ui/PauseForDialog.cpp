// SPDX-License-Identifier: Apache-2.0
#include "ui/PauseForDialog.h"

#include "core/time/DurationText.h"
#include "ui/Format.h"
#include "ui/Palette.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace cooldown {

PauseForDialog::PauseForDialog(const QStringList &endpointIds, qint64 nowMs, QWidget *parent)
    : QDialog(parent), m_nowMs(nowMs)
{
    setObjectName(QStringLiteral("pauseForDialog"));
    setWindowTitle(tr("Pause for a while"));
    auto *layout = new QVBoxLayout(this);
    auto *about = new QLabel(tr("%1: their waiting operations are not sent and their periodic "
                                "checks are skipped until the time is up; then they resume by "
                                "themselves.")
                                 .arg(endpointIds.join(QStringLiteral(", "))),
                             this);
    about->setWordWrap(true);
    layout->addWidget(about);
    auto *form = new QFormLayout;
    m_span = new QComboBox(this);
    m_span->setObjectName(QStringLiteral("pauseForSpan"));
    m_span->setEditable(true);
    m_span->addItems({QStringLiteral("30m"), QStringLiteral("1h"), QStringLiteral("2h"),
                      QStringLiteral("4h"), QStringLiteral("8h"), QStringLiteral("1d")});
    m_span->setCurrentIndex(1);
    m_reason = new QLineEdit(this);
    m_reason->setObjectName(QStringLiteral("pauseForReason"));
    m_reason->setPlaceholderText(tr("for example: the partner's maintenance"));
    form->addRow(tr("&For:"), m_span);
    form->addRow(tr("&Reason:"), m_reason);
    layout->addLayout(form);
    m_until = new QLabel(this);
    m_until->setObjectName(QStringLiteral("pauseForUntil"));
    m_until->setWordWrap(true);
    layout->addWidget(m_until);
    auto *box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = box->button(QDialogButtonBox::Ok);
    layout->addWidget(box);

    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_span, &QComboBox::currentTextChanged, this, &PauseForDialog::validate);
    validate();
}

std::optional<qint64> PauseForDialog::forMs() const
{
    return parseDurationMs(m_span->currentText().trimmed());
}

QString PauseForDialog::reason() const
{
    return m_reason->text().trimmed();
}

void PauseForDialog::validate()
{
    const std::optional<qint64> ms = forMs();
    m_ok->setEnabled(ms.has_value());
    if (ms) {
        m_until->setText(tr("Until %1.").arg(format::localTime(m_nowMs + *ms, m_nowMs)));
        m_until->setPalette(QPalette());
    } else {
        m_until->setText(tr("Write a span such as 90m, 2h or 1d12h."));
        palette::showAsProblem(m_until);
    }
}

} // namespace cooldown
