// SPDX-License-Identifier: Apache-2.0
#include "core/store/Store.h"
#include "support/ReadableEnums.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

// A name that cannot be resolved, looked up for real: `cooldown run` runs in a
// network namespace of its own (unshare -n) with no interface up, so the lookup fails
// at once and no packet leaves the machine.
class tst_DnsFailure : public QObject
{
    Q_OBJECT

private slots:
    void nothingSentIsRetriedForEveryMethod();
};

void tst_DnsFailure::nothingSentIsRetriedForEveryMethod()
{
    QProcess probe;
    probe.start(QStringLiteral("unshare"), {QStringLiteral("-n"), QStringLiteral("true")});
    if (!probe.waitForFinished(10000) || probe.exitStatus() != QProcess::NormalExit ||
        probe.exitCode() != 0)
        QSKIP("unshare -n is not available here (needs root or user namespaces)");

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

    QProcess run;
    run.start(QStringLiteral("unshare"),
              {QStringLiteral("-n"), QStringLiteral(COOLDOWN_BINARY), QStringLiteral("run"),
               QStringLiteral("--config"), config, QStringLiteral("--db"), db,
               QStringLiteral("--until-idle")});
    QVERIFY(run.waitForFinished(60000));
    QCOMPARE(run.exitCode(), 1); // both failed finally, after retrying
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
