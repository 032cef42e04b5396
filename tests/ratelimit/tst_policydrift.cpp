// SPDX-License-Identifier: Apache-2.0
#include "core/ratelimit/PolicyDrift.h"

#include <QSignalSpy>
#include <QTest>

using namespace cooldown;

namespace {
RateLimitPolicy configured(qint64 limit = 120, qint64 windowMs = 60000,
                           QuotaUnit unit = QuotaUnit::Request)
{
    RateLimitPolicy policy;
    policy.policyId = QStringLiteral("project-read-v1");
    policy.limit = limit;
    policy.windowMs = windowMs;
    policy.quotaUnit = unit;
    return policy;
}

RateLimitHeaders advertised(const QByteArray &policyField)
{
    return RateLimitHeaders::parse(HttpHeaders{{"RateLimit-Policy", policyField}});
}
} // namespace

class tst_PolicyDrift : public QObject
{
    Q_OBJECT

private slots:
    void compare_data();
    void compare();
    void monitorSignalsChangesOnly();
};

void tst_PolicyDrift::compare_data()
{
    QTest::addColumn<QByteArray>("field");
    QTest::addColumn<QString>("matched");
    QTest::addColumn<QStringList>("differences");
    QTest::addColumn<bool>("stricter");

    QTest::newRow("same") << QByteArray("\"default\";q=120;w=60") << "default" << QStringList()
                          << false;
    QTest::newRow("server allows less")
        << QByteArray("\"default\";q=50;w=60") << "default"
        << QStringList{QStringLiteral("quota: server 50, configured 120")} << true;
    QTest::newRow("server allows more")
        << QByteArray("\"default\";q=200;w=60") << "default"
        << QStringList{QStringLiteral("quota: server 200, configured 120")} << false;
    QTest::newRow("other window") << QByteArray("\"default\";q=120;w=120") << "default"
                                  << QStringList{QStringLiteral(
                                         "window: server 120 s, configured 60 s")}
                                  << true;
    QTest::newRow("other unit") << QByteArray("\"default\";q=120;w=60;qu=\"content-bytes\"")
                                << "default"
                                << QStringList{QStringLiteral(
                                       "quota unit: server content-bytes, configured request")}
                                << false;
    QTest::newRow("name wins") << QByteArray("\"burst\";q=10;w=1, \"project-read-v1\";q=120;w=60")
                               << "project-read-v1" << QStringList() << false;
    QTest::newRow("same window wins")
        << QByteArray("\"daily\";q=10000;w=86400, \"minute\";q=100;w=60") << "minute"
        << QStringList{QStringLiteral("quota: server 100, configured 120")} << true;
    QTest::newRow("else the strictest")
        << QByteArray("\"a\";q=10;w=1, \"b\";q=1000;w=3600") << "b"
        << QStringList{QStringLiteral("quota: server 1000, configured 120"),
                       QStringLiteral("window: server 3600 s, configured 60 s")}
        << true;
}

void tst_PolicyDrift::compare()
{
    QFETCH(QByteArray, field);
    QFETCH(QString, matched);
    QFETCH(QStringList, differences);
    QFETCH(bool, stricter);

    const auto drift = PolicyDrift::compare(configured(), advertised(field).policies);
    QVERIFY(drift);
    QCOMPARE(drift->advertised.name, matched);
    QCOMPARE(drift->differences, differences);
    QCOMPARE(drift->isDrift(), !differences.isEmpty());
    QCOMPARE(drift->serverIsStricter(), stricter);
    QCOMPARE(drift->toJson().value(QStringLiteral("policy_id")).toString(),
             QStringLiteral("project-read-v1"));
}

void tst_PolicyDrift::monitorSignalsChangesOnly()
{
    PolicyDriftMonitor monitor;
    QSignalSpy detected(&monitor, &PolicyDriftMonitor::driftDetected);
    QSignalSpy resolved(&monitor, &PolicyDriftMonitor::driftResolved);
    const QString key = QStringLiteral("project-184");

    monitor.observe(configured(), key, advertised("\"d\";q=50;w=60"), 1000);
    QCOMPARE(detected.count(), 1);
    const PolicyDrift first = detected.at(0).at(0).value<PolicyDrift>();
    QCOMPARE(first.partitionKey, key);
    QCOMPARE(first.observedAtMs, 1000);
    QVERIFY(first.serverIsStricter());

    monitor.observe(configured(), key, advertised("\"d\";q=50;w=60"), 2000); // same news
    QCOMPARE(detected.count(), 1);
    QCOMPARE(monitor.drift(first.policyId, key)->observedAtMs, 2000);

    monitor.observe(configured(), key, RateLimitHeaders::parse(HttpHeaders{}), 2500); // silent
    monitor.observe(configured(), key, advertised("\"d\";q=50;;w=60"), 2600);         // malformed
    QCOMPARE(detected.count(), 1);
    QVERIFY(monitor.drift(first.policyId, key));

    monitor.observe(configured(), key, advertised("\"d\";q=40;w=60"), 3000); // changed
    QCOMPARE(detected.count(), 2);
    QCOMPARE(monitor.drifts().size(), 1);

    monitor.observe(configured(), key, advertised("\"d\";q=120;w=60"), 4000); // agrees again
    QCOMPARE(resolved.count(), 1);
    QCOMPARE(resolved.at(0).at(1).toString(), key);
    QVERIFY(!monitor.drift(first.policyId, key));
    QVERIFY(monitor.drifts().isEmpty());
}

QTEST_GUILESS_MAIN(tst_PolicyDrift)
#include "tst_policydrift.moc"
