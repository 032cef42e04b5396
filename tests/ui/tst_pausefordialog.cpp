// SPDX-License-Identifier: Apache-2.0
#include "ui/PauseForDialog.h"

#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>

using namespace cooldown;

// The dialog behind Jobs > Pause for… (docs/maintenance.md): the span as the command
// line reads it, OK only for one it can read.
class tst_PauseForDialog : public QObject
{
    Q_OBJECT

private slots:
    void readsSpansAndReason();
};

void tst_PauseForDialog::readsSpansAndReason()
{
    const qint64 now = QDateTime(QDate(2026, 12, 5), QTime(9, 0)).toMSecsSinceEpoch();
    PauseForDialog dialog({QStringLiteral("upload"), QStringLiteral("convert")}, now);
    auto *span = dialog.findChild<QComboBox *>(QStringLiteral("pauseForSpan"));
    auto *reason = dialog.findChild<QLineEdit *>(QStringLiteral("pauseForReason"));
    auto *until = dialog.findChild<QLabel *>(QStringLiteral("pauseForUntil"));
    QPushButton *ok = dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QVERIFY(span && reason && until && ok);

    // One hour unless told otherwise.
    QCOMPARE(dialog.forMs().value_or(-1), 3600000);
    QVERIFY(ok->isEnabled());
    QVERIFY2(until->text().contains(QStringLiteral("10:00")), qPrintable(until->text()));

    span->setEditText(QStringLiteral("1h30m"));
    QCOMPARE(dialog.forMs().value_or(-1), 5400000);
    QVERIFY(ok->isEnabled());
    span->setEditText(QStringLiteral("2 hours"));
    QVERIFY(!dialog.forMs());
    QVERIFY(!ok->isEnabled());
    QVERIFY2(until->text().contains(QStringLiteral("90m")), qPrintable(until->text()));
    span->setEditText(QStringLiteral(" 2h "));
    QCOMPARE(dialog.forMs().value_or(-1), 7200000);

    reason->setText(QStringLiteral("  partner upgrade "));
    QCOMPARE(dialog.reason(), QStringLiteral("partner upgrade"));
}

QTEST_MAIN(tst_PauseForDialog)
#include "tst_pausefordialog.moc"
