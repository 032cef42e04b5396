// SPDX-License-Identifier: Apache-2.0
// `cooldown enqueue`: jobs handed in by option and from JSON Lines, then sent by
// `cooldown run` with their placeholders filled and their own keys.

#include "core/store/Store.h"
#include "support/ScriptedHttpServer.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

bool writeFile(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

} // namespace

class tst_CliEnqueue : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void oneJobThenTheSameKeyAgain();
    void aBatchWithABadLineWritesNothing();
    void skipInvalidWritesTheGoodLines();
    void checkConfigChecksJobsWithoutWriting();
    void refusals_data();
    void refusals();
    void jobsAreSentFilledWithTheirKeys();
    void aTemplatesChecksJudgeEachJob();

private:
    Result cooldown(const QStringList &args, const QByteArray &input = {});
    QStringList common() const;
    qint64 operationCount();

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ScriptedHttpServer> m_server;
    QString m_config;
    QString m_db;
};

Result tst_CliEnqueue::cooldown(const QStringList &args, const QByteArray &input)
{
    QProcess p;
    p.start(QStringLiteral(COOLDOWN_BINARY), args);
    if (!p.waitForStarted())
        qFatal("cooldown did not start");
    p.write(input);
    p.closeWriteChannel();
    // The run in jobsAreSentFilledWithTheirKeys sends requests to this process's server.
    QElapsedTimer waited;
    waited.start();
    while (p.state() != QProcess::NotRunning && waited.elapsed() < 60000)
        QTest::qWait(20);
    if (p.state() != QProcess::NotRunning)
        qFatal("cooldown did not finish");
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QStringList tst_CliEnqueue::common() const
{
    return {QStringLiteral("--config"), m_config, QStringLiteral("--db"), m_db};
}

qint64 tst_CliEnqueue::operationCount()
{
    QString error;
    auto store = Store::open(m_db, &error);
    if (!store)
        return -1;
    return store->operations(OperationFilter()).size();
}

void tst_CliEnqueue::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_server = std::make_unique<ScriptedHttpServer>();
    QVERIFY(m_server->isListening());
    m_config = m_dir->filePath(QStringLiteral("workspace.json"));
    m_db = m_dir->filePath(QStringLiteral("jobs.db"));
    QByteArray workspace = R"({"version": 1,
        "policies": [{"policy_id": "bom", "limit": 20, "window_seconds": 1, "burst": 1}],
        "endpoints": [
          {"id": "upload", "method": "POST", "url": "BASE/boms/${job:part}?rev=${job:rev}",
           "headers": {"Content-Type": "application/json"},
           "body": "{\"part\": \"${job:part}\", \"note\": \"${job:note}\"}",
           "policy": "bom", "partition_key": "plm", "timeout_seconds": 5,
           "idempotency": {"header": "Idempotency-Key"}},
          {"id": "tick", "url": "BASE/tick", "every_seconds": 3600}
        ]})";
    QVERIFY(writeFile(m_config, workspace.replace("BASE", m_server->url(QString()).toUtf8())));
}

void tst_CliEnqueue::oneJobThenTheSameKeyAgain()
{
    const QStringList job = common() + QStringList{QStringLiteral("--endpoint"),
                                                   QStringLiteral("upload"),
                                                   QStringLiteral("--var"),
                                                   QStringLiteral("part=A-1"),
                                                   QStringLiteral("--var"),
                                                   QStringLiteral("rev=B"),
                                                   QStringLiteral("--var"),
                                                   QStringLiteral("note=n"),
                                                   QStringLiteral("--idempotency-key"),
                                                   QStringLiteral("upload-A-1-B")};
    const Result first = cooldown(QStringList{QStringLiteral("enqueue")} + job);
    QVERIFY2(first.exitCode == 0, first.err.constData());
    const QByteArray id = first.out.trimmed();
    QVERIFY2(id.toLongLong() > 0, first.out.constData());
    QVERIFY2(first.err.isEmpty(), first.err.constData());

    const Result again = cooldown(QStringList{QStringLiteral("enqueue")} + job);
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(again.out.trimmed(), id);
    QVERIFY2(again.err.contains("0 new, 1 already there"), again.err.constData());

    QStringList other = job;
    other.replace(other.indexOf(QStringLiteral("rev=B")), QStringLiteral("rev=C"));
    const Result conflict = cooldown(QStringList{QStringLiteral("enqueue")} + other);
    QCOMPARE(conflict.exitCode, 2);
    QVERIFY2(conflict.err.contains("$.idempotency_key: idempotency key 'upload-A-1-B' was "
                                   "handed in for operation " +
                                   id + " with another request"),
             conflict.err.constData());
    QCOMPARE(operationCount(), 1);
}

void tst_CliEnqueue::aBatchWithABadLineWritesNothing()
{
    const QString jobs = m_dir->filePath(QStringLiteral("jobs.jsonl"));
    QVERIFY(writeFile(jobs, R"({"endpoint": "upload", "vars": {"part": "A", "rev": "1", "note": ""}}

{"endpoint": "upload", "vars": {"part": "B", "note": ""}}
{"endpoint": "upload", "vars": {"part": "C", "rev": "1", "note": ""}}
)"));
    const Result r = cooldown(QStringList{QStringLiteral("enqueue")} + common() +
                              QStringList{QStringLiteral("--jsonl"), jobs});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(jobs.toUtf8() + " line 3: $.vars: missing 'rev', which endpoint "
                                            "upload needs for ${job:rev}"),
             r.err.constData());
    QVERIFY2(r.err.contains("nothing written"), r.err.constData());
    QVERIFY(r.out.isEmpty());
    QCOMPARE(operationCount(), 0);

    // Not JSON: the line and the column.
    QVERIFY(writeFile(jobs, "{\"endpoint\": \"upload\", \"vars\": {}\n"));
    const Result broken = cooldown(QStringList{QStringLiteral("enqueue")} + common() +
                                   QStringList{QStringLiteral("--jsonl"), jobs});
    QCOMPARE(broken.exitCode, 2);
    QVERIFY2(broken.err.contains(" line 1: column "), broken.err.constData());
}

void tst_CliEnqueue::skipInvalidWritesTheGoodLines()
{
    QByteArray lines;
    for (int i = 0; i < 10; ++i)
        lines +=
            QByteArray(R"({"endpoint": "upload", "vars": {"part": "P-N", "rev": "1", "note": ""}})")
                .replace("P-N", "P-" + QByteArray::number(i)) +
            "\n";
    lines +=
        R"({"endpoint": "upload", "vars": {"part": "X", "rev": "1", "note": ""}, "partition_key": "ops@example.com"})"
        "\n";
    lines += "not json\n";
    const Result r = cooldown(QStringList{QStringLiteral("enqueue")} + common() +
                                  QStringList{QStringLiteral("--jsonl"), QStringLiteral("-"),
                                              QStringLiteral("--skip-invalid")},
                              lines);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.out.trimmed().split('\n').size(), 10);
    QVERIFY2(r.err.contains("skipped stdin line 12: column "), r.err.constData());
    QVERIFY2(r.err.contains("skipped stdin line 11: $.partition_key: looks like an e-mail"),
             r.err.constData());
    QVERIFY2(r.err.contains("10 new, 0 already there, 2 skipped"), r.err.constData());
    QCOMPARE(operationCount(), 10);
}

void tst_CliEnqueue::checkConfigChecksJobsWithoutWriting()
{
    const QString jobs = m_dir->filePath(QStringLiteral("check.jsonl"));
    QVERIFY(writeFile(jobs, R"({"endpoint": "upload", "vars": {"part": "A", "rev": "1", "note": ""}}
{"endpoint": "upload", "vars": {"part": "B", "rev": "1", "note": "", "revison": "2"}}
{"endpoint": "upload", "vars": {"part": "C", "note": ""}}
)"));
    const Result bad =
        cooldown({QStringLiteral("check-config"), m_config, QStringLiteral("--jobs"), jobs});
    QCOMPARE(bad.exitCode, 2);
    // Every bad line is reported, not only the first.
    QVERIFY2(bad.err.contains(jobs.toUtf8() + " line 2: $.vars.revison: endpoint upload has no "
                                              "${job:revison} placeholder"),
             bad.err.constData());
    QVERIFY2(bad.err.contains(jobs.toUtf8() + " line 3: $.vars: missing 'rev'"),
             bad.err.constData());
    QVERIFY(!QFile::exists(m_db));

    QVERIFY(writeFile(jobs,
                      R"({"endpoint": "upload", "vars": {"part": "A", "rev": "1", "note": ""}})"));
    const Result good =
        cooldown({QStringLiteral("check-config"), m_config, QStringLiteral("--jobs"), jobs});
    QVERIFY2(good.exitCode == 0, good.err.constData());
    QVERIFY2(good.out.contains(": ok, 1 job\n"), good.out.constData());
}

void tst_CliEnqueue::refusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no endpoint") << QStringList{} << QStringLiteral("give --endpoint");
    QTest::newRow("both") << QStringList{QStringLiteral("--endpoint"), QStringLiteral("upload"),
                                         QStringLiteral("--jsonl"), QStringLiteral("-")}
                          << QStringLiteral("give --endpoint");
    QTest::newRow("bad var") << QStringList{QStringLiteral("--endpoint"), QStringLiteral("upload"),
                                            QStringLiteral("--var"), QStringLiteral("part")}
                             << QStringLiteral("--var: expected NAME=VALUE, got 'part'");
    QTest::newRow("periodic") << QStringList{QStringLiteral("--endpoint"), QStringLiteral("tick")}
                              << QStringLiteral("$.endpoint: endpoint tick runs every 3600 s");
    QTest::newRow("secret key") << QStringList{QStringLiteral("--endpoint"),
                                               QStringLiteral("upload"),
                                               QStringLiteral("--var"),
                                               QStringLiteral("part=A"),
                                               QStringLiteral("--var"),
                                               QStringLiteral("rev=1"),
                                               QStringLiteral("--var"),
                                               QStringLiteral("note=x"),
                                               QStringLiteral("--partition-key"),
                                               QStringLiteral("sk_live_4eC39HqLyjWDarjtT1zdp7dc")}
                                << QStringLiteral("$.partition_key: looks like a secret");
    QTest::newRow("when") << QStringList{QStringLiteral("--endpoint"), QStringLiteral("upload"),
                                         QStringLiteral("--not-before"), QStringLiteral("soon")}
                          << QStringLiteral("--not-before: expected an ISO 8601 time, got 'soon'");
}

void tst_CliEnqueue::refusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const Result r = cooldown(QStringList{QStringLiteral("enqueue")} + common() + args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

void tst_CliEnqueue::jobsAreSentFilledWithTheirKeys()
{
    QByteArray lines;
    for (int i = 0; i < 30; ++i)
        lines +=
            QStringLiteral(
                R"({"endpoint": "upload", "idempotency_key": "k-%1", "vars": {"part": "P/%1", "rev": "%2", "note": "line \"%1\""}})")
                .arg(i)
                .arg(i % 3)
                .toUtf8() +
            "\n";
    const Result enqueued =
        cooldown(QStringList{QStringLiteral("enqueue")} + common() +
                     QStringList{QStringLiteral("--jsonl"), QStringLiteral("-")},
                 lines);
    QVERIFY2(enqueued.exitCode == 0, enqueued.err.constData());
    QCOMPARE(enqueued.out.trimmed().split('\n').size(), 30);

    const Result run = cooldown(QStringList{QStringLiteral("run")} + common() +
                                QStringList{QStringLiteral("--until-idle")});
    QVERIFY2(run.exitCode == 0, run.err.constData());

    QSet<QByteArray> keys;
    QList<qint64> sentAt;
    int uploads = 0;
    for (const ReceivedRequest &r : std::as_const(m_server->received)) {
        if (!r.path.startsWith("/boms/"))
            continue;
        ++uploads;
        const QByteArray key = r.header("Idempotency-Key");
        keys.insert(key);
        // k-N went to /boms/P%2FN?rev=N%3 with its note inside JSON.
        const int n = key.mid(3, key.size() - 4).toInt();
        QCOMPARE(key, "\"k-" + QByteArray::number(n) + "\"");
        QCOMPARE(r.path,
                 "/boms/P%2F" + QByteArray::number(n) + "?rev=" + QByteArray::number(n % 3));
        const QJsonObject body = QJsonDocument::fromJson(r.body).object();
        QCOMPARE(body.value(QLatin1String("note")).toString(),
                 QStringLiteral("line \"%1\"").arg(n));
    }
    QCOMPARE(uploads, 30);
    QCOMPARE(keys.size(), 30);
    QVERIFY2(run.err.isEmpty() || !run.err.contains("job_values_missing"), run.err.constData());
}

// docs/checks.md: a job template's expect judges each job's answer; a keyed POST whose
// answer fails its check is not sent again.
void tst_CliEnqueue::aTemplatesChecksJudgeEachJob()
{
    QByteArray workspace = R"({"version": 1,
        "endpoints": [
          {"id": "convert", "method": "POST", "url": "BASE/convert/${job:part}",
           "body": "{\"part\": \"${job:part}\"}", "timeout_seconds": 5,
           "idempotency": {"header": "Idempotency-Key"},
           "expect": {"json": [{"pointer": "/status", "equals": "done"}]}}
        ]})";
    QVERIFY(writeFile(m_config, workspace.replace("BASE", m_server->url(QString()).toUtf8())));
    const QList<QPair<QByteArray, QByteArray>> json{{"Content-Type", "application/json"}};
    m_server->script("/convert/A", {{200, json, R"({"status": "done"})"}});
    m_server->script("/convert/B", {{200, json, R"({"status": "failed", "why": "bad sheet"})"}});
    QByteArray lines;
    for (const char *part : {"A", "B"})
        lines += QByteArray(R"({"endpoint": "convert", "idempotency_key": "c-)") + part +
                 R"(", "vars": {"part": ")" + part + "\"}}\n";
    const Result enqueued =
        cooldown(QStringList{QStringLiteral("enqueue")} + common() +
                     QStringList{QStringLiteral("--jsonl"), QStringLiteral("-")},
                 lines);
    QVERIFY2(enqueued.exitCode == 0, enqueued.err.constData());
    const Result run = cooldown(QStringList{QStringLiteral("run")} + common() +
                                QStringList{QStringLiteral("--until-idle")});
    QCOMPARE(run.exitCode, 1); // one job failed
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    QMap<QString, OperationRecord> byKey;
    for (const OperationRecord &op : store->operations(OperationFilter()))
        byKey.insert(op.idempotencyKey, op);
    QCOMPARE(byKey.size(), 2);
    QCOMPARE(byKey.value(QStringLiteral("c-A")).state, OperationState::Succeeded);
    const OperationRecord b = byKey.value(QStringLiteral("c-B"));
    QCOMPARE(b.state, OperationState::Failed);
    QCOMPARE(b.finalReason, QStringLiteral("assertion_failed"));
    AttemptFilter ofB;
    ofB.operationId = b.id;
    const QList<AttemptRecord> attempts = store->attempts(ofB);
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().checkFailure,
             QStringLiteral("json[0] /status equals \"done\"; found: \"failed\""));
    int sentToB = 0;
    for (const ReceivedRequest &r : std::as_const(m_server->received))
        sentToB += r.path == "/convert/B" ? 1 : 0;
    QCOMPARE(sentToB, 1);
}

QTEST_GUILESS_MAIN(tst_CliEnqueue)
#include "tst_cli_enqueue.moc"
