// SPDX-License-Identifier: Apache-2.0
#include "core/http/QuotaStatement.h"
#include "core/ratelimit/Gcra.h"
#include "core/ratelimit/ServerWindow.h"

#include <QTest>

#include <algorithm>
#include <deque>

using namespace cooldown;

class tst_ServerWindow : public QObject
{
    Q_OBJECT

private slots:
    void nothingLearnedLimitsNothing();
    void learnsQuotaAndCountsRequestsStillOut();
    void emptyWindowWaitsForTheReset();
    void keepsTheEarliestResetOfAWindow();
    void laterResetStartsANewWindow();
    void configuredPaceCapsALooserServer();
    void forgetsWhatTheServerStopsStating();
    void againstAFixedWindowServer_data();
    void againstAFixedWindowServer();
};

namespace {

constexpr qint64 kNow = 1'800'000'000'000LL;

QuotaStatement said(qint64 quota, qint64 windowS, qint64 remaining, qint64 resetAtMs)
{
    QuotaStatement s;
    s.format = QStringLiteral("draft-8");
    s.quota = quota;
    s.windowMs = windowS * 1000;
    s.remaining = remaining;
    s.resetAtMs = resetAtMs;
    return s;
}

// A fixed-window limiter as express-rate-limit's memory store keeps one: a window opens
// with the first request after the last one ended; requests past the quota are refused
// (and counted); the reset is stated in whole seconds, rounded up.
struct FixedWindowServer
{
    qint64 quota = 5;
    qint64 windowMs = 10000;
    bool statesWindow = true; // false: X-RateLimit-* only, a reset and no window
    qint64 windowEndMs = 0;
    qint64 count = 0;
    int refused = 0;

    struct Answer
    {
        bool refused = false;
        QuotaStatement statement;
        qint64 retryAfterMs = 0;
    };
    Answer request(qint64 nowMs)
    {
        if (nowMs >= windowEndMs) {
            windowEndMs = nowMs + windowMs;
            count = 0;
        }
        ++count;
        Answer a;
        a.refused = count > quota;
        refused += a.refused ? 1 : 0;
        const qint64 resetS = (windowEndMs - nowMs + 999) / 1000;
        a.statement =
            said(quota, windowMs / 1000, std::max<qint64>(0, quota - count), nowMs + resetS * 1000);
        a.retryAfterMs = resetS * 1000;
        return a;
    }
};

} // namespace

void tst_ServerWindow::nothingLearnedLimitsNothing()
{
    ServerWindow w;
    QVERIFY(!w.isKnown(kNow));
    QCOMPARE(w.available(0, kNow), std::numeric_limits<qint64>::max());
    QCOMPARE(w.availableAtMs(0, kNow), kNow);
    // A remaining count without a quota teaches nothing.
    w.observe(said(0, 0, 3, kNow + 5000), 0, kNow);
    QVERIFY(!w.isKnown(kNow));
}

void tst_ServerWindow::learnsQuotaAndCountsRequestsStillOut()
{
    ServerWindow w;
    // Four went out together; the first answer says 4 remain: three of them are still
    // out and will take three of those.
    w.observe(said(5, 10, 4, kNow + 10000), 3, kNow);
    QVERIFY(w.isKnown(kNow));
    QCOMPARE(w.quota, 5);
    QCOMPARE(w.windowMs, 10000);
    QCOMPARE(w.available(0, kNow), 1);
    QCOMPARE(w.resetAtMs, kNow + 10000);
}

void tst_ServerWindow::emptyWindowWaitsForTheReset()
{
    ServerWindow w;
    w.observe(said(5, 10, 1, kNow + 8000), 0, kNow);
    QCOMPARE(w.available(0, kNow), 1);
    w.take(1, 0, kNow);
    QCOMPARE(w.available(0, kNow + 7999), 0);
    QCOMPARE(w.availableAtMs(0, kNow + 100), kNow + 8000);
    // The window ends: the whole quota at once.
    QCOMPARE(w.available(0, kNow + 8000), 5);
    w.take(1, 0, kNow + 8000);
    QCOMPARE(w.available(0, kNow + 8000), 4);
    // Its end is a guess, never earlier than a window from now, until the server says.
    QVERIFY(w.resetAtMs >= kNow + 8000 + 10000);
}

void tst_ServerWindow::keepsTheEarliestResetOfAWindow()
{
    ServerWindow w;
    w.observe(said(5, 10, 4, kNow + 10000), 0, kNow);
    // The same window, stated in whole seconds from a later moment: later by up to a
    // second, and a higher count than already taken here.
    w.take(1, 0, kNow + 300);
    w.take(1, 0, kNow + 300);
    w.observe(said(5, 10, 3, kNow + 11000), 0, kNow + 400);
    QCOMPARE(w.resetAtMs, kNow + 10000);
    QCOMPARE(w.remaining, 2);
}

void tst_ServerWindow::laterResetStartsANewWindow()
{
    ServerWindow w;
    w.observe(said(5, 10, 0, kNow + 10000), 0, kNow);
    QCOMPARE(w.remaining, 0);
    // The server's window rolled over earlier than this worker thought.
    w.observe(said(5, 10, 4, kNow + 19000), 0, kNow + 9100);
    QCOMPARE(w.resetAtMs, kNow + 19000);
    QCOMPARE(w.remaining, 4);
}

void tst_ServerWindow::configuredPaceCapsALooserServer()
{
    ServerWindow w;
    w.observe(said(20, 10, 20, kNow + 10000), 0, kNow);
    // A policy of 5 per 10 s (one every 2 s): a window of 10 s holds 5 of it.
    const qint64 interval = Gcra::forLimit(5, 10000, 0).intervalUs;
    QCOMPARE(w.perWindow(interval), 5);
    QCOMPARE(w.available(interval, kNow + 10000), 5);
    // A stricter policy than the server's quota is kept; a looser one gives way.
    QCOMPARE(w.perWindow(Gcra::forLimit(100, 10000, 0).intervalUs), 20);
}

void tst_ServerWindow::forgetsWhatTheServerStopsStating()
{
    ServerWindow w;
    w.observe(said(5, 10, 0, kNow + 10000), 0, kNow);
    QVERIFY(w.isKnown(kNow + 99999));
    QVERIFY(!w.isKnown(kNow + 10 * 10000));
    QCOMPARE(w.available(0, kNow + 10 * 10000), std::numeric_limits<qint64>::max());
}

void tst_ServerWindow::againstAFixedWindowServer_data()
{
    QTest::addColumn<int>("jobs");
    QTest::addColumn<int>("inFlight");
    QTest::addColumn<qint64>("latencyMs");
    QTest::addColumn<bool>("statesWindow");
    QTest::newRow("30 jobs, 4 at once, 20 ms") << 30 << 4 << 20LL << true;
    QTest::newRow("300 jobs, 4 at once, 20 ms") << 300 << 4 << 20LL << true;
    QTest::newRow("60 jobs, 8 at once, 400 ms") << 60 << 8 << 400LL << true;
    QTest::newRow("40 jobs, 1 at once, 5 ms") << 40 << 1 << 5LL << true;
    QTest::newRow("300 jobs, 4 at once, 20 ms, no window stated") << 300 << 4 << 20LL << false;
    QTest::newRow("60 jobs, 8 at once, 400 ms, no window stated") << 60 << 8 << 400LL << false;
}

// A client that sends whenever the window says it may, against the server above, on a
// manual clock: after the first answer no request is refused, and the work finishes
// within 1.1 times what the server's quota needs.
void tst_ServerWindow::againstAFixedWindowServer()
{
    QFETCH(int, jobs);
    QFETCH(int, inFlight);
    QFETCH(qint64, latencyMs);
    QFETCH(bool, statesWindow);
    FixedWindowServer server;
    server.statesWindow = statesWindow;
    ServerWindow window;
    struct Out
    {
        qint64 arrivesAtMs;
        FixedWindowServer::Answer answer;
        bool sentBeforeLearning;
    };
    std::deque<Out> out;
    int left = jobs;
    qint64 heldUntil = 0;
    qint64 now = kNow;
    qint64 firstAnswerAt = -1;
    int refusedBeforeLearning = 0;
    for (int step = 0; left > 0 || !out.empty(); ++step) {
        QVERIFY2(step < 1'000'000, "the simulation does not end");
        while (!out.empty() && out.front().arrivesAtMs <= now) {
            const Out o = out.front();
            out.pop_front();
            if (firstAnswerAt < 0)
                firstAnswerAt = now;
            if (o.answer.refused) {
                ++left;
                heldUntil = std::max(heldUntil, now + o.answer.retryAfterMs);
                if (o.sentBeforeLearning)
                    ++refusedBeforeLearning;
            }
            window.observe(o.answer.statement, qint64(out.size()), now);
        }
        while (left > 0 && int(out.size()) < inFlight && now >= heldUntil &&
               window.available(0, now) > 0) {
            window.take(1, 0, now);
            --left;
            out.push_back(
                {now + latencyMs, server.request(now + latencyMs / 2), !window.isKnown(now)});
        }
        now += 10;
    }
    const int refusedAfter = server.refused - refusedBeforeLearning;
    QVERIFY2(refusedAfter == 0, qPrintable(QString::number(refusedAfter)));
    // The ideal: a window for each quota's worth of jobs after the first, each window
    // opened the moment the last one ends.
    const qint64 ideal = (jobs - 1) / server.quota * server.windowMs + latencyMs;
    const double ratio = double(now - kNow) / double(ideal);
    QVERIFY2(ratio <= 1.1, qPrintable(QStringLiteral("%1 ms for an ideal of %2 ms (%3)")
                                          .arg(now - kNow)
                                          .arg(ideal)
                                          .arg(ratio)));
}

QTEST_APPLESS_MAIN(tst_ServerWindow)
#include "tst_serverwindow.moc"
