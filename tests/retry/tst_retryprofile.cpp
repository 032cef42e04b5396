// SPDX-License-Identifier: Apache-2.0
#include "core/retry/RetryProfile.h"
#include "support/ReadableEnums.h"

#include <QTest>

using namespace cooldown;

class tst_RetryProfile : public QObject
{
    Q_OBJECT

private slots:
    void defaultsMatchDesign();
    void setFromText_data();
    void setFromText();
    void jsonRoundTrip();
};

void tst_RetryProfile::defaultsMatchDesign()
{
    const RetryProfile p;
    QCOMPARE(p.maxAttempts, 6);
    QCOMPARE(p.baseSeconds, 1.0);
    QCOMPARE(p.capSeconds, 60.0);
    QCOMPARE(p.deadlineSeconds, 900.0);
    QCOMPARE(p.jitter, Jitter::Full);
    QCOMPARE(p.spreadSeconds, 1.0);
    QCOMPARE(p.maxRetryAfterSeconds, 21600.0);
    QCOMPARE(p.onDeadline, OnDeadline::Fail);
    QCOMPARE(p.retryNonIdempotent, RetryNonIdempotent::WithKey);
    QCOMPARE(p.throttleCountsAsAttempt, true);
}

void tst_RetryProfile::setFromText_data()
{
    QTest::addColumn<QString>("assignment");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("errorContains");

    QTest::newRow("max_attempts") << "max_attempts=3" << true << "";
    QTest::newRow("max_attempts zero")
        << "max_attempts=0" << false << "max_attempts: expected a whole number";
    QTest::newRow("max_attempts fraction") << "max_attempts=2.5" << false << "whole number";
    QTest::newRow("base fraction") << "base_seconds=0.25" << true << "";
    QTest::newRow("base zero") << "base_seconds=0" << false << "above 0";
    QTest::newRow("cap negative") << "cap_seconds=-1" << false << "cap_seconds";
    QTest::newRow("deadline zero allowed") << "deadline_seconds=0" << true << "";
    QTest::newRow("spread text") << "spread_seconds=soon" << false << "number of seconds";
    QTest::newRow("max retry after") << "max_retry_after_seconds=600" << true << "";
    QTest::newRow("max retry after huge") << "max_retry_after_seconds=1e30" << false << "at most";
    // Numbers as people write them, not 3.16224e+07.
    QTest::newRow("deadline beyond a year")
        << "deadline_seconds=400000000" << false
        << "deadline_seconds: expected seconds between 0 and 31622400 (366 days)";
    QTest::newRow("cap beyond a year")
        << "cap_seconds=400000000" << false
        << "cap_seconds: expected seconds above 0 and at most 31622400 (366 days)";
    QTest::newRow("jitter") << "jitter=decorrelated" << true << "";
    QTest::newRow("jitter bad") << "jitter=random" << false << "full, equal, decorrelated, none";
    QTest::newRow("on_deadline") << "on_deadline=park" << true << "";
    QTest::newRow("on_deadline bad") << "on_deadline=retry" << false << "fail, park";
    QTest::newRow("non idempotent") << "retry_non_idempotent=always" << true << "";
    QTest::newRow("throttle bool") << "throttle_counts_as_attempt=false" << true << "";
    QTest::newRow("throttle not bool")
        << "throttle_counts_as_attempt=1" << false << "true or false";
    QTest::newRow("unknown") << "max_atempts=3" << false
                             << "unknown retry profile field 'max_atempts'";
    QTest::newRow("no equals") << "max_attempts" << false << "expected name=value";
    QTest::newRow("spaces trimmed") << " cap_seconds = 30 " << true << "";
}

void tst_RetryProfile::setFromText()
{
    QFETCH(QString, assignment);
    QFETCH(bool, ok);
    QFETCH(QString, errorContains);

    RetryProfile p;
    QString error;
    QCOMPARE(p.setFieldFromText(assignment, &error), ok);
    if (ok) {
        QVERIFY(error.isEmpty());
        QVERIFY(!(p == RetryProfile()));
    } else {
        QVERIFY2(error.contains(errorContains), qPrintable(error));
        QVERIFY(p == RetryProfile()); // a refused value changes nothing
    }
}

void tst_RetryProfile::jsonRoundTrip()
{
    RetryProfile p;
    p.maxAttempts = 9;
    p.jitter = Jitter::Equal;
    p.onDeadline = OnDeadline::Park;
    p.throttleCountsAsAttempt = false;
    const QJsonObject json = p.toJson();
    RetryProfile back;
    for (auto it = json.begin(); it != json.end(); ++it) {
        QString error;
        QVERIFY2(back.setField(it.key(), it.value(), &error), qPrintable(error));
    }
    QVERIFY(back == p);
    QCOMPARE(RetryProfile::fieldNames().size(), 10);
}

QTEST_GUILESS_MAIN(tst_RetryProfile)
#include "tst_retryprofile.moc"
