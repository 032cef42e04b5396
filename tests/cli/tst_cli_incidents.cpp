// SPDX-License-Identifier: Apache-2.0
// `cooldown incidents` (docs/incidents.md) and `cooldown show-attempt` (docs/checks.md) as
// a user runs them, against a database laid out through the store: text and JSON, the
// open ones only, a bad --since named (exit 2), an attempt with its kept exchange, and
// an attempt that is not there.

#include "core/store/Store.h"
#include "support/AttemptFixture.h"
#include "support/CooldownRun.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

class tst_CliIncidents : public QObject
{
    Q_OBJECT

private:
    // The binary's run, in English, with this test's environment.
    static CooldownResult cooldown(const QStringList &args)
    {
        return runCooldown(args + QStringList{QStringLiteral("--lang"), QStringLiteral("en")},
                           QProcessEnvironment::systemEnvironment(), 30000);
    }

    QTemporaryDir m_dir;
    QString m_db;
    qint64 m_attemptId = 0;

private slots:
    void initTestCase();
    void listsIncidents();
    void onlyOpen();
    void badSinceIsNamed();
    void showsAnAttempt();
    void missingAttemptIsNamed();
};

void tst_CliIncidents::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("incidents.db"));
    QString error;
    const auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    // The command reads the real clock: the incidents are of the last hours.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const IncidentRule rule{3, 600000};
    const auto signal = [](const char *cause, const char *endpoint, qint64 at) {
        return IncidentSignal{QLatin1String(cause), QLatin1String(endpoint), at};
    };
    // One over (a proxy, two hours ago), one open (a host, an hour ago).
    const qint64 old = now - 2 * 3600000;
    QVERIFY(store->incidents().note({signal("proxy:proxy.corp:3128", "a", old),
                                     signal("proxy:proxy.corp:3128", "b", old),
                                     signal("proxy:proxy.corp:3128", "c", old)},
                                    {}, rule, old, QStringLiteral("w1")));
    QVERIFY(store->incidents().note({}, {QStringLiteral("proxy:proxy.corp:3128")}, rule,
                                    old + 60000, QStringLiteral("w1")));
    const qint64 recent = now - 3600000;
    QVERIFY(store->incidents().note({signal("host:api.partner.example", "plm-1", recent),
                                     signal("host:api.partner.example", "plm-2", recent),
                                     signal("host:api.partner.example", "plm-3", recent)},
                                    {}, rule, recent, QStringLiteral("w2")));

    // An attempt that failed its check, with its exchange kept.
    std::optional<OperationRecord> op = test::claimNew(
        *store, QStringLiteral("search"), QStringLiteral("k"), now, QStringLiteral("w"));
    QVERIFY(op);
    AttemptRecord a = test::nextAttempt(*op, now, now + 120);
    a.status = 200;
    a.durationMs = 120;
    a.decision = Decision::Fail;
    a.reason = QStringLiteral("assertion_failed");
    a.checkFailure = QStringLiteral("json[0] /items min_items 1; found: []");
    a.requestHeaders = QStringLiteral("Accept: application/json\n");
    a.responseHeaders = QStringLiteral("Content-Type: application/json\n");
    auto kept = std::make_shared<KeptExchange>();
    kept->responseBody = QStringLiteral("{\"items\": []}");
    kept->responseBytes = kept->responseBody.size();
    kept->keepLast = 20;
    a.kept = kept;
    QCOMPARE(test::finishAttempt(*store, a, test::leftIn(*op, a, OperationState::Failed, now + 200),
                                 QStringLiteral("w")),
             Store::FinishResult::Committed);
    const QList<AttemptRecord> attempts = store->attempts({});
    QCOMPARE(attempts.size(), 1);
    m_attemptId = attempts.first().id;
}

void tst_CliIncidents::listsIncidents()
{
    const CooldownResult r = cooldown({QStringLiteral("incidents"), QStringLiteral("--db"), m_db});
    QCOMPARE(r.exitCode, 0);
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 2);
    // Newest first: the open one, then the one that is over.
    QVERIFY2(lines.at(0).contains("open since") &&
                 lines.at(0).contains("host api.partner.example  blocks 3: plm-1, plm-2, plm-3"),
             r.out.constData());
    QVERIFY2(lines.at(1).contains("(1m)  proxy proxy.corp:3128  blocked 3: a, b, c"),
             r.out.constData());
    QVERIFY(r.out.endsWith('\n'));

    const CooldownResult j = cooldown(
        {QStringLiteral("incidents"), QStringLiteral("--db"), m_db, QStringLiteral("--json")});
    QCOMPARE(j.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(j.out).object();
    QCOMPARE(o.value("open").toInt(), 1);
    const QJsonArray list = o.value("incidents").toArray();
    QCOMPARE(list.size(), 2);
    QCOMPARE(list.at(0).toObject().value("cause").toString(),
             QStringLiteral("host:api.partner.example"));
    QVERIFY(list.at(0).toObject().value("closed_at").isNull());
    QCOMPARE(list.at(1).toObject().value("closed_by").toString(), QStringLiteral("w1"));
    QCOMPARE(list.at(1).toObject().value("endpoints").toArray().size(), 3);

    // Only the last 90 minutes: the proxy's incident opened before.
    const CooldownResult recent =
        cooldown({QStringLiteral("incidents"), QStringLiteral("--db"), m_db,
                  QStringLiteral("--since"), QStringLiteral("90m")});
    QCOMPARE(recent.exitCode, 0);
    QCOMPARE(recent.out.trimmed().split('\n').size(), 1);
}

void tst_CliIncidents::onlyOpen()
{
    const CooldownResult r = cooldown({QStringLiteral("incidents"), QStringLiteral("--db"), m_db,
                                       QStringLiteral("--open"), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray list = QJsonDocument::fromJson(r.out).object().value("incidents").toArray();
    QCOMPARE(list.size(), 1);
    QVERIFY(list.at(0).toObject().value("open").toBool());
}

void tst_CliIncidents::badSinceIsNamed()
{
    const CooldownResult r = cooldown({QStringLiteral("incidents"), QStringLiteral("--db"), m_db,
                                       QStringLiteral("--since"), QStringLiteral("2x")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--since") && r.err.contains("'2x'"), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void tst_CliIncidents::showsAnAttempt()
{
    const QString id = QString::number(m_attemptId);
    const CooldownResult r =
        cooldown({QStringLiteral("show-attempt"), id, QStringLiteral("--db"), m_db});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("answer 200: fail (assertion_failed)"), r.out.constData());
    QVERIFY(r.out.contains("check failed: json[0] /items min_items 1; found: []"));
    QVERIFY(r.out.contains("< response body (13 bytes)"));
    QVERIFY(r.out.contains("{\"items\": []}"));
    QVERIFY(r.out.endsWith('\n'));

    const CooldownResult j = cooldown({QStringLiteral("show-attempt"), id, QStringLiteral("--db"),
                                       m_db, QStringLiteral("--json")});
    QCOMPARE(j.exitCode, 0);
    const QJsonObject o = QJsonDocument::fromJson(j.out).object();
    QCOMPARE(o.value("reason").toString(), QStringLiteral("assertion_failed"));
    QCOMPARE(o.value("kept").toObject().value("response_body").toString(),
             QStringLiteral("{\"items\": []}"));
}

void tst_CliIncidents::missingAttemptIsNamed()
{
    const CooldownResult r =
        cooldown({QStringLiteral("show-attempt"), QString::number(m_attemptId + 100),
                  QStringLiteral("--db"), m_db});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QByteArray::number(m_attemptId + 100)), r.err.constData());
    const CooldownResult word = cooldown(
        {QStringLiteral("show-attempt"), QStringLiteral("x"), QStringLiteral("--db"), m_db});
    QCOMPARE(word.exitCode, 2);
}

QTEST_GUILESS_MAIN(tst_CliIncidents)
#include "tst_cli_incidents.moc"
