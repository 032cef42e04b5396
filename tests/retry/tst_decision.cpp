// SPDX-License-Identifier: Apache-2.0
// Decisions and wait sources are enums everywhere but in storage and output: their
// text must come back as the same value, and a text no version wrote must not.
#include "core/retry/Decision.h"
#include "support/ReadableEnums.h"

#include <QTest>

using namespace cooldown;

class tst_Decision : public QObject
{
    Q_OBJECT

private slots:
    void decisionRoundTrip_data();
    void decisionRoundTrip();
    void waitSourceRoundTrip_data();
    void waitSourceRoundTrip();
    void unknownTextIsRejected_data();
    void unknownTextIsRejected();
};

void tst_Decision::decisionRoundTrip_data()
{
    QTest::addColumn<int>("decision");
    QTest::addColumn<QString>("text");
    // The words of existing databases and exports: they must never change.
    QTest::newRow("success") << int(Decision::Success) << "success";
    QTest::newRow("retry") << int(Decision::Retry) << "retry";
    QTest::newRow("park") << int(Decision::Park) << "park";
    QTest::newRow("fail") << int(Decision::Fail) << "fail";
}

void tst_Decision::decisionRoundTrip()
{
    QFETCH(int, decision);
    QFETCH(QString, text);
    QCOMPARE(QString::fromLatin1(textOf(Decision(decision))), text);
    const std::optional<Decision> parsed = decisionFromString(text);
    QVERIFY(parsed);
    QCOMPARE(int(*parsed), decision);
}

void tst_Decision::waitSourceRoundTrip_data()
{
    QTest::addColumn<int>("source");
    QTest::addColumn<QString>("text");
    QTest::newRow("none") << int(WaitSource::None) << "none";
    QTest::newRow("retry-after") << int(WaitSource::RetryAfter) << "retry-after";
    QTest::newRow("ratelimit") << int(WaitSource::RateLimit) << "ratelimit";
    QTest::newRow("x-ratelimit") << int(WaitSource::XRateLimit) << "x-ratelimit";
    QTest::newRow("problem") << int(WaitSource::Problem) << "problem";
    QTest::newRow("backoff") << int(WaitSource::Backoff) << "backoff";
}

void tst_Decision::waitSourceRoundTrip()
{
    QFETCH(int, source);
    QFETCH(QString, text);
    QCOMPARE(QString::fromLatin1(textOf(WaitSource(source))), text);
    const std::optional<WaitSource> parsed = waitSourceFromString(text);
    QVERIFY(parsed);
    QCOMPARE(int(*parsed), source);
}

void tst_Decision::unknownTextIsRejected_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("capitalised") << "Retry";
    QTest::newRow("padded") << " retry";
    QTest::newRow("underscore") << "retry_after";
    // Rollup rows say so for attempts that lost their lease; no attempt decides it.
    QTest::newRow("conflict") << "conflict";
    QTest::newRow("prometheus label") << "lease_conflict";
    QTest::newRow("other") << "carrier-pigeon";
}

void tst_Decision::unknownTextIsRejected()
{
    QFETCH(QString, text);
    QVERIFY(!decisionFromString(text));
    QVERIFY(!waitSourceFromString(text));
}

QTEST_GUILESS_MAIN(tst_Decision)
#include "tst_decision.moc"
