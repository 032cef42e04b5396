// SPDX-License-Identifier: Apache-2.0
#include "core/engine/SleepWatch.h"

#include <QTest>

using namespace cooldown;

// docs/offline.md: a sleep is the boot clock running ahead of the monotonic one by 30 s
// or more between two looks.
class tst_SleepWatch : public QObject
{
    Q_OBJECT

private slots:
    void bootAheadOfMonotonicIsASleep()
    {
        SleepWatch w;
        QVERIFY(!w.note(1'000'000, 0)); // the first look has nothing to compare
        QVERIFY(!w.note(1'002'000, 2000));
        // Both clocks a minute on: awake.
        QVERIFY(!w.note(1'062'000, 62'000));
        // 29.999 s more on the boot clock than on the monotonic one: a moment suspended.
        QVERIFY(!w.note(1'093'999, 64'000));
        // An hour on the boot clock, a second on the monotonic one: asleep for 3599 s.
        const auto slept = w.note(1'093'999 + 3'600'000, 65'000);
        QVERIFY(slept);
        QCOMPARE(*slept, qint64(3'599'000));
        // Measured from the last look on: said once.
        QVERIFY(!w.note(1'093'999 + 3'601'000, 66'000));
    }

    void bootNeverBehindIsNoSleep()
    {
        SleepWatch w;
        w.note(1'000'000, 0);
        QVERIFY(!w.note(900'000, 1000));
    }
};

QTEST_APPLESS_MAIN(tst_SleepWatch)
#include "tst_sleepwatch.moc"
