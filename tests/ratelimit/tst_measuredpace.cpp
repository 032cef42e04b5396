// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/Gcra.h"
#include "core/ratelimit/MeasuredPace.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>

using namespace cooldown;

class tst_MeasuredPace : public QObject
{
    Q_OBJECT

private slots:
    void acceptedAnswersAloneMeasureNothing();
    void firstRefusalMeasuresWhatWentThrough();
    void neverMeasuresOverLessThanTheHold();
    void refusalsOfOneBurstLowerThePaceOnce();
    void raisesWhileAcceptedAndForgetsWhenFast();
    void measuresTheLastFewSecondsOnly();
    void againstServersThatStateNothing_data();
    void againstServersThatStateNothing();
};

namespace {

constexpr qint64 kNow = 1'800'000'000'000LL;

} // namespace

void tst_MeasuredPace::acceptedAnswersAloneMeasureNothing()
{
    MeasuredPace pace;
    for (int i = 0; i < 100; ++i)
        pace.answered(false, 0, kNow + i * 10 - 5, kNow + i * 10);
    QVERIFY(!pace.isMeasured());
    QCOMPARE(pace.accepted, 100);
    QCOMPARE(pace.sinceMs, kNow);
}

void tst_MeasuredPace::firstRefusalMeasuresWhatWentThrough()
{
    // 20 accepted over two seconds, then a 429 that asks for nothing: 10 per second.
    MeasuredPace pace;
    for (int i = 0; i < 20; ++i)
        pace.answered(false, 0, kNow + i * 100 - 5, kNow + i * 100);
    pace.answered(true, 0, kNow + 2000 - 5, kNow + 2000);
    QCOMPARE(pace.intervalUs, 100'000);
    QCOMPARE(pace.accepted, 0);
    QCOMPARE(pace.sinceMs, kNow + 2000);
    QCOMPARE(pace.raisedAtMs, kNow + 2000);
}

void tst_MeasuredPace::neverMeasuresOverLessThanTheHold()
{
    // Six answers at once and a refusal asking for 3 s: six per 3 s, not six per 20 ms.
    MeasuredPace pace;
    for (int i = 0; i < 6; ++i)
        pace.answered(false, 0, kNow + i - 5, kNow + i);
    pace.answered(true, 3000, kNow + 20 - 5, kNow + 20);
    QCOMPARE(pace.intervalUs, 500'000);
    // With no hold stated, never over less than a second.
    MeasuredPace bare;
    for (int i = 0; i < 4; ++i)
        bare.answered(false, 0, kNow + i - 5, kNow + i);
    bare.answered(true, 0, kNow + 10 - 5, kNow + 10);
    QCOMPARE(bare.intervalUs, 250'000);
    // A refusal before any accepted answer measures nothing: its hold is all there is.
    MeasuredPace first;
    first.answered(true, 60000, kNow - 5, kNow);
    QVERIFY(!first.isMeasured());
}

void tst_MeasuredPace::refusalsOfOneBurstLowerThePaceOnce()
{
    MeasuredPace pace;
    pace.answered(false, 0, kNow - 5, kNow);
    pace.answered(true, 1000, kNow - 4, kNow + 1);
    QCOMPARE(pace.intervalUs, 1'000'000);
    QCOMPARE(pace.accepted, 0);
    // Refusals of requests sent before the pace was measured: the same burst.
    pace.answered(true, 1000, kNow - 3, kNow + 2);
    pace.answered(true, 1000, kNow - 2, kNow + 3);
    QCOMPARE(pace.intervalUs, 1'000'000);
    pace.answered(false, 0, kNow + 895, kNow + 900); // within a second: not raised
    QCOMPARE(pace.intervalUs, 1'000'000);
    // Sent at the measured pace and refused: half as slow again; so is the next one
    // sent after that, accepted answers or not (a server that refuses without saying
    // for how long); one sent before it is not counted twice.
    pace.answered(true, 0, kNow + 1595, kNow + 1600);
    QCOMPARE(pace.intervalUs, 1'500'000);
    pace.answered(true, 0, kNow + 1599, kNow + 1604);
    QCOMPARE(pace.intervalUs, 1'500'000);
    pace.answered(true, 0, kNow + 3100, kNow + 3105);
    QCOMPARE(pace.intervalUs, 2'250'000);
}

void tst_MeasuredPace::raisesWhileAcceptedAndForgetsWhenFast()
{
    MeasuredPace pace;
    pace.answered(false, 0, kNow - 1 - 5, kNow - 1);
    pace.answered(true, 0, kNow - 5, kNow);
    QCOMPARE(pace.intervalUs, 1'000'000);
    pace.answered(false, 0, kNow + 999 - 5, kNow + 999);
    QCOMPARE(pace.intervalUs, 1'000'000);
    pace.answered(false, 0, kNow + 1000 - 5, kNow + 1000);
    QCOMPARE(pace.intervalUs, 875'000);
    qint64 t = kNow + 1000;
    int raises = 0;
    while (pace.isMeasured() && raises < 100) {
        t += 1000;
        pace.answered(false, 0, t - 5, t);
        ++raises;
    }
    // 1 s per request to under 1 ms, an eighth at a time: 52 seconds of accepted answers.
    QCOMPARE(raises, 51);
    QVERIFY(!pace.isMeasured());
    QVERIFY(pace.accepted > 0); // the count goes on, for the next refusal
}

void tst_MeasuredPace::measuresTheLastFewSecondsOnly()
{
    // A trickle for a minute, then a burst refused: what is measured is the count since
    // its last restart (at most ten seconds back), not the minute's average.
    MeasuredPace pace;
    for (int i = 0; i < 60; ++i)
        pace.answered(false, 0, kNow + i * 1000 - 5, kNow + i * 1000);
    for (int i = 0; i < 30; ++i)
        pace.answered(false, 0, kNow + 60'500 + i * 50 - 5, kNow + 60'500 + i * 50);
    pace.answered(true, 0, kNow + 62'000 - 5, kNow + 62'000);
    // Restarted at 11, 22, 33, 44 and 55 s: 5 + 30 accepted over the 7 s since.
    QCOMPARE(pace.intervalUs, 7'000'000 / 35);
}

namespace {

// A server that states nothing but a 429 (and Retry-After, or not).
struct Server
{
    std::function<bool(qint64)> accept; // decides a request arriving then
    std::function<qint64(qint64)> retryAfterMs;
};

// nginx's limit_req with nodelay: a leaky bucket of `rate` per second that lets
// `burst` more through at once.
Server leakyBucket(double rate, double burst, qint64 retryAfterMs)
{
    // As ngx_http_limit_req_module counts: the excess over the rate, drained as time
    // passes, one more for each request let through; the first request of a client
    // starts it at none.
    auto excess = std::make_shared<double>(0.0);
    auto last = std::make_shared<qint64>(-1);
    Server s;
    s.accept = [=](qint64 t) {
        if (*last < 0) {
            *last = t;
            return true;
        }
        const double next = std::max(0.0, *excess - double(t - *last) * rate / 1000.0 + 1.0);
        if (next > burst)
            return false;
        *excess = next;
        *last = t;
        return true;
    };
    s.retryAfterMs = [=](qint64) {
        return retryAfterMs;
    };
    return s;
}

// express-rate-limit with its headers off: `limit` per window, the window opened by
// the first request after the last one ended; Retry-After to its end, in seconds.
Server fixedWindow(int limit, qint64 windowMs, bool retryAfter)
{
    auto opened = std::make_shared<qint64>(-1);
    auto count = std::make_shared<int>(0);
    Server s;
    s.accept = [=](qint64 t) {
        if (*opened < 0 || t >= *opened + windowMs) {
            *opened = t;
            *count = 0;
        }
        return ++*count <= limit;
    };
    s.retryAfterMs = [=](qint64 t) {
        return retryAfter ? (*opened + windowMs - t + 999) / 1000 * 1000 : qint64(0);
    };
    return s;
}

struct Run
{
    qint64 refused = 0;
    qint64 refusedAfterFirst = 0; // after the first refusal's answer
    qint64 doneAtMs = 0;
};

// `jobs` requests, four in flight, answered after 5 ms; a 429 holds the partition for
// its Retry-After (or the operation backs off 1 s when it states none), and the
// partition is paced by what MeasuredPace measures, as Claims::claimDue does.
Run simulate(Server server, int jobs, bool paced)
{
    struct InFlight
    {
        qint64 sentAt;
        qint64 answerAt;
        bool accepted;
        qint64 holdMs;
    };
    MeasuredPace pace;
    qint64 tatUs = 0;
    qint64 heldUntil = 0;
    std::deque<qint64> waiting(size_t(jobs), 0); // due times
    std::deque<InFlight> inFlight;
    Run run;
    qint64 firstRefusalAt = -1;
    int done = 0;
    for (qint64 t = 0; done < jobs && t < 3'600'000; ++t) {
        while (!inFlight.empty() && inFlight.front().answerAt <= t) {
            const InFlight answer = inFlight.front();
            inFlight.pop_front();
            if (paced)
                pace.answered(!answer.accepted, answer.holdMs, kNow + t - 5, kNow + t);
            if (answer.accepted) {
                ++done;
                run.doneAtMs = t;
                continue;
            }
            ++run.refused;
            if (firstRefusalAt < 0)
                firstRefusalAt = t;
            heldUntil = std::max(heldUntil, t + answer.holdMs);
            waiting.push_back(t + (answer.holdMs > 0 ? answer.holdMs : 1000));
        }
        std::sort(waiting.begin(), waiting.end());
        while (inFlight.size() < 4 && !waiting.empty() && waiting.front() <= t && t >= heldUntil) {
            const Gcra gcra{pace.intervalUs, 1};
            if (pace.isMeasured() && gcra.available(tatUs, t * 1000) < 1)
                break;
            if (pace.isMeasured())
                tatUs = gcra.take(tatUs, 1, t * 1000);
            waiting.pop_front();
            const bool accepted = server.accept(t);
            inFlight.push_back({t, t + 5, accepted, accepted ? 0 : server.retryAfterMs(t)});
            if (!accepted && firstRefusalAt >= 0)
                ++run.refusedAfterFirst;
        }
    }
    return run;
}

} // namespace

void tst_MeasuredPace::againstServersThatStateNothing_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("idealMs");
    QTest::addColumn<double>("maxRefusalsPerJob");
    QTest::addColumn<double>("maxOverIdeal");
    // 300 jobs. nginx: 6 at once, then 10 a second.
    QTest::newRow("nginx 10r/s burst 5, Retry-After 1") << 0 << 29'400.0 << 0.1 << 1.3;
    QTest::newRow("nginx 10r/s burst 5, a bare 429") << 1 << 29'400.0 << 0.1 << 1.3;
    // express-rate-limit, 10 per 10 s: 29 more windows after the first.
    QTest::newRow("fixed window 10/10 s, Retry-After") << 2 << 290'000.0 << 0.15 << 1.15;
    // The hardest: nothing says when the window ends, and every request until then is
    // refused; the pace slows down quickly and comes back an eighth a second.
    QTest::newRow("fixed window 10/10 s, a bare 429") << 3 << 290'000.0 << 0.3 << 1.5;
}

void tst_MeasuredPace::againstServersThatStateNothing()
{
    QFETCH(int, kind);
    QFETCH(double, idealMs);
    QFETCH(double, maxRefusalsPerJob);
    QFETCH(double, maxOverIdeal);
    const int jobs = 300;
    const auto server = [kind] {
        return kind == 0   ? leakyBucket(10, 5, 1000)
               : kind == 1 ? leakyBucket(10, 5, 0)
                           : fixedWindow(10, 10'000, kind == 2);
    };
    const Run run = simulate(server(), jobs, true);
    const Run unpaced = simulate(server(), jobs, false);
    const double perJob = double(run.refusedAfterFirst) / jobs;
    const double overIdeal = double(run.doneAtMs) / idealMs;
    qInfo("%s: %lld refused (%lld after the first), %.3f per job; done at %lld ms, %.2fx ideal;"
          " unpaced: %lld refused, done at %lld ms",
          QTest::currentDataTag(), run.refused, run.refusedAfterFirst, perJob, run.doneAtMs,
          overIdeal, unpaced.refused, unpaced.doneAtMs);
    QVERIFY(run.refused < unpaced.refused);
    QVERIFY2(perJob <= maxRefusalsPerJob, qPrintable(QString::number(perJob)));
    QVERIFY2(overIdeal <= maxOverIdeal, qPrintable(QString::number(overIdeal)));
}

QTEST_GUILESS_MAIN(tst_MeasuredPace)
#include "tst_measuredpace.moc"
