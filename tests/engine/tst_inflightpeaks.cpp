// SPDX-License-Identifier: Apache-2.0
// A worker's in-flight peak per minute (core/engine/InFlightPeaks), from the changes
// of its count at given times: both sides of every minute boundary, counts carried
// through minutes without a change, and what one take hands over.

#include "core/engine/InFlightPeaks.h"

#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kMinute = 60000;
constexpr qint64 kT0 = 1'800'000'000'000LL - 1'800'000'000'000LL % kMinute; // a minute's start

QString text(const QList<Store::InFlightPeak> &peaks)
{
    QStringList parts;
    for (const Store::InFlightPeak &p : peaks)
        parts.append(QStringLiteral("%1:%2").arg((p.minuteAtMs - kT0) / kMinute).arg(p.peak));
    return parts.join(u' ');
}

} // namespace

class tst_InFlightPeaks : public QObject
{
    Q_OBJECT

private slots:
    void nothingInFlightGivesNothing();
    void peakOfOneMinute();
    void minuteBoundary();
    void countCarriedThroughQuietMinutes();
    void takeCountsWhatIsStillInFlight();
    void longGapIsBounded();
};

void tst_InFlightPeaks::nothingInFlightGivesNothing()
{
    InFlightPeaks peaks;
    QCOMPARE(text(peaks.take(kT0)), QString());
    peaks.set(kT0 + 10, 0);
    QCOMPARE(text(peaks.take(kT0 + 5 * kMinute)), QString());
}

void tst_InFlightPeaks::peakOfOneMinute()
{
    InFlightPeaks peaks;
    peaks.set(kT0 + 1000, 1);
    peaks.set(kT0 + 2000, 2);
    peaks.set(kT0 + 3000, 3);
    peaks.set(kT0 + 4000, 2);
    peaks.set(kT0 + 5000, 0);
    QCOMPARE(text(peaks.take(kT0 + 6000)), QStringLiteral("0:3"));
    // Taken once: the next take has only what came after.
    peaks.set(kT0 + 7000, 1);
    peaks.set(kT0 + 8000, 0);
    QCOMPARE(text(peaks.take(kT0 + 9000)), QStringLiteral("0:1"));
}

void tst_InFlightPeaks::minuteBoundary()
{
    // Two in flight until the last millisecond of minute 0, then one: minute 1 starts
    // with the one.
    InFlightPeaks peaks;
    peaks.set(kT0 + 100, 1);
    peaks.set(kT0 + 200, 2);
    peaks.set(kT0 + kMinute - 1, 1);
    peaks.set(kT0 + kMinute + 500, 0);
    QCOMPARE(text(peaks.take(kT0 + 2 * kMinute)), QStringLiteral("0:2 1:1"));

    // The drop comes exactly at minute 1's start: minute 1 still had both at its first
    // instant.
    InFlightPeaks exact;
    exact.set(kT0 + 100, 2);
    exact.set(kT0 + kMinute, 1);
    exact.set(kT0 + kMinute + 1, 0);
    QCOMPARE(text(exact.take(kT0 + 2 * kMinute)), QStringLiteral("0:2 1:2"));
}

void tst_InFlightPeaks::countCarriedThroughQuietMinutes()
{
    // One exchange of three and a half minutes, nothing else: every minute it spans
    // had it in flight.
    InFlightPeaks peaks;
    peaks.set(kT0 + 30'000, 1);
    peaks.set(kT0 + 3 * kMinute + 30'000, 0);
    QCOMPARE(text(peaks.take(kT0 + 10 * kMinute)), QStringLiteral("0:1 1:1 2:1 3:1"));
}

void tst_InFlightPeaks::takeCountsWhatIsStillInFlight()
{
    // A take in the middle of a long exchange hands over the minutes so far, the
    // current one included; the next take goes on after it (the store keeps the
    // higher peak, so a minute is handed over again only when its peak grows).
    InFlightPeaks peaks;
    peaks.set(kT0 + 1000, 1);
    peaks.set(kT0 + 2000, 2);
    peaks.set(kT0 + 3000, 1);
    QCOMPARE(text(peaks.take(kT0 + kMinute + 10)), QStringLiteral("0:2 1:1"));
    QCOMPARE(text(peaks.take(kT0 + kMinute + 20)), QString());
    peaks.set(kT0 + kMinute + 30, 2);
    peaks.set(kT0 + kMinute + 40, 1);
    QCOMPARE(text(peaks.take(kT0 + kMinute + 50)), QStringLiteral("1:2"));
    peaks.set(kT0 + 3 * kMinute, 0);
    QCOMPARE(text(peaks.take(kT0 + 4 * kMinute)), QStringLiteral("2:1 3:1"));
}

void tst_InFlightPeaks::longGapIsBounded()
{
    // A count held for two days (a clock that jumped) fills a day of minutes, no more.
    InFlightPeaks peaks;
    peaks.set(kT0, 1);
    const QList<Store::InFlightPeak> taken = peaks.take(kT0 + 2 * InFlightPeaks::kLongestGapMs);
    QCOMPARE(taken.size(), qsizetype(1 + InFlightPeaks::kLongestGapMs / kMinute + 1));
    QCOMPARE(taken.first().minuteAtMs, kT0);
    QCOMPARE(taken.at(1).minuteAtMs, kT0 + InFlightPeaks::kLongestGapMs);
    QCOMPARE(taken.last().minuteAtMs, kT0 + 2 * InFlightPeaks::kLongestGapMs);
}

QTEST_APPLESS_MAIN(tst_InFlightPeaks)
#include "tst_inflightpeaks.moc"
