// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QString>
#include <QStringList>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace cooldown {

// Asks how long to hold endpoints, and why (docs/maintenance.md): a span as the
// command line takes it (90m, 2h, 1d12h), chosen or typed, and a reason kept with the
// hold and in the audit table. OK stays off while the span cannot be read, and says why.
class PauseForDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PauseForDialog)

public:
    PauseForDialog(const QStringList &endpointIds, qint64 nowMs, QWidget *parent = nullptr);

    std::optional<qint64> forMs() const;
    QString reason() const;

private:
    void validate();

    qint64 m_nowMs = 0;
    QComboBox *m_span = nullptr;
    QLineEdit *m_reason = nullptr;
    QLabel *m_until = nullptr;
    QPushButton *m_ok = nullptr;
};

} // namespace cooldown
