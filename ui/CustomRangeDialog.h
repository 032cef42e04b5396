// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QDialog>
#include <QString>

class QDateTimeEdit;
class QLabel;
class QPushButton;

namespace cooldown {

// Asks for a fixed time window for the Overview: from and to, in local time, to the
// minute. OK stays off while the window cannot be shown, and says why.
class CustomRangeDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CustomRangeDialog)

public:
    static constexpr qint64 kMaxSpanMs = 90 * 24 * 3600 * qint64(1000);
    // The edits count in whole minutes: an end within this much of now is not "future".
    static constexpr qint64 kFutureSlackMs = 60000;

    CustomRangeDialog(qint64 fromMs, qint64 toMs, qint64 nowMs, QWidget *parent = nullptr);

    qint64 fromMs() const;
    qint64 toMs() const;
    void setWindow(qint64 fromMs, qint64 toMs);
    QString problem() const;

    // Why [fromMs, toMs) cannot be shown, or empty: it must start before it ends, end
    // no later than now and span at most kMaxSpanMs.
    static QString problem(qint64 fromMs, qint64 toMs, qint64 nowMs);

private:
    void validate();

    qint64 m_nowMs = 0;
    QDateTimeEdit *m_from = nullptr;
    QDateTimeEdit *m_to = nullptr;
    QLabel *m_problem = nullptr;
    QPushButton *m_ok = nullptr;
};

} // namespace cooldown
