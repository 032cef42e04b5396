// SPDX-License-Identifier: Apache-2.0
#include "core/store/Store.h"
#include "support/CooldownRun.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

// `cooldown pause` and `cooldown resume` (docs/maintenance.md), run as a user would,
// against a database prepared in the test.
class tst_CliPause : public QObject
{
    Q_OBJECT

private:
    static CooldownResult cooldown(const QStringList &args)
    {
        return runCooldown(args, QProcessEnvironment::systemEnvironment(), 30000);
    }

    QTemporaryDir m_dir;
    QString m_db;
    QString m_config;
    int m_counter = 0;

private slots:
    void init();
    void holdForAWhile();
    void byHost();
    void pauseUntilResumed();
    void refusals();
};

void tst_CliPause::init()
{
    m_db = m_dir.filePath(QStringLiteral("pause-%1.db").arg(++m_counter));
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    for (const char *id : {"convert", "upload", "search"})
        QVERIFY(store->upsertEndpoint(QString::fromLatin1(id), {}, 1000));
    m_config = m_dir.filePath(QStringLiteral("workspace.json"));
    QFile file(m_config);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(R"({"version": 1, "endpoints": [)"
               R"({"id": "convert", "url": "http://127.0.0.1:9/convert"},)"
               R"({"id": "upload", "url": "http://127.0.0.1:9/upload"},)"
               R"({"id": "search", "url": "http://localhost:9/search"}]})");
}

void tst_CliPause::holdForAWhile()
{
    const qint64 before = QDateTime::currentMSecsSinceEpoch();
    const CooldownResult r = cooldown({"pause", "upload", "convert", "--for", "2h", "--reason",
                                       "partner upgrade", "--as", "ana", "--db", m_db});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("held until ") && r.out.contains("upload, convert"), r.out.constData());
    QString error;
    auto store = Store::open(m_db, &error);
    const QList<EndpointHold> holds = store->endpointHolds().value();
    QCOMPARE(holds.size(), 2);
    for (const EndpointHold &h : holds) {
        QCOMPARE(h.reason, QStringLiteral("partner upgrade"));
        QVERIFY(h.untilMs >= before + 7200000);
        QVERIFY(h.untilMs <= QDateTime::currentMSecsSinceEpoch() + 7200000);
    }
    const auto audit = store->operatorActions().value();
    QCOMPARE(audit.size(), 1);
    QCOMPARE(audit.at(0).actor, QStringLiteral("ana"));
    QCOMPARE(audit.at(0).action, OperatorAction::Pause);
    QVERIFY2(audit.at(0).target.startsWith(QStringLiteral("endpoints=upload,convert until=")),
             qPrintable(audit.at(0).target));
    QCOMPARE(audit.at(0).changed, 2);

    // Shown by status, then lifted by resume.
    const CooldownResult status = cooldown({"status", "--db", m_db});
    QVERIFY2(status.out.contains("endpoints held: 2") && status.out.contains("(partner upgrade)"),
             status.out.constData());
    const CooldownResult resumed = cooldown({"resume", "upload", "--db", m_db});
    QCOMPARE(resumed.exitCode, 0);
    QVERIFY2(resumed.out.contains("resumed: upload"), resumed.out.constData());
    QCOMPARE(store->endpointHolds().value().size(), 1);
    QCOMPARE(store->isEndpointPaused(QStringLiteral("upload")).value_or(true), false);
}

void tst_CliPause::byHost()
{
    const CooldownResult r = cooldown(
        {"pause", "--host", "127.0.0.1", "--for", "30m", "--config", m_config, "--db", m_db});
    QCOMPARE(r.exitCode, 0);
    QString error;
    auto store = Store::open(m_db, &error);
    QStringList held;
    const QList<EndpointHold> holds = store->endpointHolds().value();
    for (const EndpointHold &h : holds) {
        held.append(h.endpointId);
        QVERIFY2(h.reason.startsWith(QStringLiteral("paused by ")) &&
                     h.reason.endsWith(QStringLiteral(" for 30m")),
                 qPrintable(h.reason));
    }
    held.sort();
    QCOMPARE(held, (QStringList{QStringLiteral("convert"), QStringLiteral("upload")}));
    QCOMPARE(store->isEndpointPaused(QStringLiteral("search")).value_or(true), false);
}

void tst_CliPause::pauseUntilResumed()
{
    CooldownResult r = cooldown({"pause", "search", "--db", m_db});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("paused until resumed: search"), r.out.constData());
    // A hold does not replace it.
    r = cooldown({"pause", "search", "--for", "1h", "--db", m_db});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("left as they are"), r.out.constData());
    r = cooldown({"pause", "search", "--db", m_db});
    QVERIFY2(r.out.contains("already paused: search"), r.out.constData());
    QString error;
    auto store = Store::open(m_db, &error);
    QCOMPARE(store->endpointHolds().value().size(), 0);
    QCOMPARE(store->isEndpointPaused(QStringLiteral("search")).value_or(false), true);
    r = cooldown({"resume", "search", "--db", m_db});
    QVERIFY2(r.out.contains("resumed: search"), r.out.constData());
    QCOMPARE(store->isEndpointPaused(QStringLiteral("search")).value_or(true), false);
    r = cooldown({"resume", "search", "--db", m_db});
    QVERIFY2(r.out.contains("not paused: search"), r.out.constData());
}

void tst_CliPause::refusals()
{
    struct Case
    {
        QStringList args;
        QByteArray message;
    };
    const QList<Case> cases = {
        {{"pause", "--db", m_db}, "expected ENDPOINT ids or --host H"},
        {{"pause", "uplaod", "--for", "1h", "--db", m_db}, "no endpoint 'uplaod' in the database"},
        {{"pause", "upload", "--for", "2 hours", "--db", m_db}, "--for: expected a span"},
        {{"pause", "upload", "--reason", "x", "--db", m_db}, "--reason applies to --for only"},
        {{"pause", "--host", "127.0.0.1", "--for", "1h", "--db", m_db}, "--host needs --config"},
        {{"pause", "--host", "example.org", "--for", "1h", "--config", m_config, "--db", m_db},
         "no endpoint of"},
        {{"resume", "upload", "--for", "1h", "--db", m_db}, "Unknown option 'for'"},
    };
    for (const Case &c : cases) {
        const CooldownResult r = cooldown(c.args);
        QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(QLatin1Char(' '))));
        QVERIFY2(r.err.contains(c.message), r.err.constData());
    }
    // Nothing was changed or audited by any of them.
    QString error;
    auto store = Store::open(m_db, &error);
    QCOMPARE(store->endpointHolds().value().size(), 0);
    QCOMPARE(store->operatorActions().value().size(), 0);
}

QTEST_GUILESS_MAIN(tst_CliPause)
#include "tst_cli_pause.moc"
