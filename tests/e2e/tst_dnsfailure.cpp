// SPDX-License-Identifier: Apache-2.0
#include "core/store/Store.h"
#include "support/ReadableEnums.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

// A name that cannot be resolved, looked up for real, on a machine that is online:
// `cooldown run` runs in a network and mount namespace of its own (unshare -n -m)
// whose loopback is up and is its default route, so the system says the network is
// there (docs/offline.md), and whose resolv.conf names a resolver on 127.0.0.1 that is
// not listening, so the lookup fails at once and no packet leaves the machine. (With
// no interface at all the machine is offline, and the work would be held instead.)
class tst_DnsFailure : public QObject
{
    Q_OBJECT

private slots:
    void nothingSentIsRetriedForEveryMethod();
};

void tst_DnsFailure::nothingSentIsRetriedForEveryMethod()
{
    QProcess probe;
    probe.start(QStringLiteral("unshare"),
                {QStringLiteral("-n"), QStringLiteral("-m"), QStringLiteral("true")});
    if (!probe.waitForFinished(10000) || probe.exitStatus() != QProcess::NormalExit ||
        probe.exitCode() != 0)
        QSKIP("unshare -n -m is not available here (needs root)");

    QTemporaryDir dir;
    const QString config = dir.filePath("dns.json");
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"version": 1,
        "retry_profiles": {"default": {"max_attempts": 2, "base_seconds": 0.05, "cap_seconds": 0.1}},
        "endpoints": [
          {"id": "get", "url": "http://dns-failure.invalid/x"},
          {"id": "post", "method": "POST", "body": "x", "url": "http://dns-failure.invalid/y"}]})");
    file.close();
    const QString db = dir.filePath("dns.db");
    const QString resolver = dir.filePath("resolv.conf");
    QFile resolv(resolver);
    QVERIFY(resolv.open(QIODevice::WriteOnly));
    resolv.write("nameserver 127.0.0.1\n");
    resolv.close();

    QProcess run;
    run.start(QStringLiteral("unshare"),
              {QStringLiteral("-n"), QStringLiteral("-m"), QStringLiteral("sh"),
               QStringLiteral("-c"),
               QStringLiteral("mount --bind \"$1\" /etc/resolv.conf && ip link set lo up && "
                              "ip route add default dev lo && shift && exec \"$@\""),
               QStringLiteral("sh"), resolver, QStringLiteral(COOLDOWN_BINARY),
               QStringLiteral("run"), QStringLiteral("--config"), config, QStringLiteral("--db"),
               db, QStringLiteral("--until-idle")});
    QVERIFY(run.waitForFinished(60000));
    QVERIFY2(run.exitCode() == 1, run.readAllStandardError().right(3000).constData());
    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    const QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(attempts.size(), 4);
    for (const AttemptRecord &a : attempts) {
        QCOMPARE(a.error, QStringLiteral("dns"));
        QCOMPARE(a.status, 0);
        // Nothing was sent, so even a POST without a key is sent again.
        QCOMPARE(a.decision, a.attempt == 1 ? Decision::Retry : Decision::Fail);
        QCOMPARE(a.reason,
                 a.attempt == 1 ? QStringLiteral("dns_failure") : QStringLiteral("max_attempts"));
    }
}

QTEST_GUILESS_MAIN(tst_DnsFailure)
#include "tst_dnsfailure.moc"
