#include "ui/MainWindow.h"

#include <QLabel>
#include <QTest>

class tst_MainWindow : public QObject
{
    Q_OBJECT

private slots:
    void saysWhatItIs();
};

void tst_MainWindow::saysWhatItIs()
{
    cooldown::MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.windowTitle(), QStringLiteral("Cooldown"));
    QString text;
    for (const QLabel *label : window.findChildren<QLabel *>())
        text += label->text();
    QVERIFY(text.contains(QStringLiteral("429")));
    QVERIFY(text.contains(QStringLiteral("cooldown explain")));
}

QTEST_MAIN(tst_MainWindow)
#include "tst_mainwindow.moc"
