// SPDX-License-Identifier: Apache-2.0
// `cooldown status` against a database laid out through the store: two workers' leases,
// a held partition with a backlog, a partition configured two ways, JSON and text.

#include "core/http/QuotaStatement.h"
#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

class tst_CliStatus : public QObject
{
    Q_OBJECT

private:
    struct Result
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };

    static Result cooldown(const QStringList &args)
    {
        QProcess p;
        p.start(QStringLiteral(COOLDOWN_BINARY), args);
        if (!p.waitForFinished(30000))
            qFatal("cooldown did not finish");
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }

private slots:
    void workersPartitionsAndBacklog();
    void whatTheServerStated();
    void whatTheServersRefusalsMeasured();
    void refusals();
    void aWorkerOffline();
};

// docs/offline.md: a worker that finds no network says so in the database while it
// lasts, and status shows it; back online, its row goes.
void tst_CliStatus::aWorkerOffline()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("offline.db"));
    const qint64 since = QDateTime(QDate(2026, 12, 7), QTime(8, 30), Qt::UTC).toMSecsSinceEpoch();
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(store->workerStates().saveOffline(QStringLiteral("laptop"), since, since + 5000));
        QVERIFY(store->workerStates().saveOffline(QStringLiteral("desk"), since, since));
        QVERIFY(
            store->workerStates().saveOffline(QStringLiteral("desk"), -1, since + 9000)); // back
    }
    const Result json =
        cooldown({QStringLiteral("status"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonArray offline = QJsonDocument::fromJson(json.out)
                                   .object()
                                   .value(QLatin1String("offline_workers"))
                                   .toArray();
    QCOMPARE(offline.size(), 1);
    QCOMPARE(offline.at(0).toObject().value(QLatin1String("worker_id")).toString(),
             QStringLiteral("laptop"));
    QCOMPARE(offline.at(0).toObject().value(QLatin1String("offline_since")).toString(),
             QStringLiteral("2026-12-07T08:30:00.000Z"));
    const Result text = cooldown({QStringLiteral("status"), QStringLiteral("--db"), db});
    QVERIFY2(text.exitCode == 0, text.err.constData());
    QVERIFY2(text.out.contains("worker laptop offline since 2026-12-07T08:30:00.000Z: no network; "
                               "its work is held"),
             text.out.constData());
    QVERIFY(!text.out.contains("worker desk offline"));
}

void tst_CliStatus::workersPartitionsAndBacklog()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("status.db"));
    // The command reads the real clock: lay the database out around it, with a window
    // long enough (one token in six minutes) that no token returns while the test runs.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        const QString definition = QStringLiteral(
            R"({"policy_id":"p","limit":10,"window_seconds":3600,"burst":2,"quota_unit":"request"})");
        QCOMPARE(store->ensurePartition(QStringLiteral("p"), QStringLiteral("k1"), 1, definition,
                                        Gcra::forLimit(10, 3'600'000, 2)),
                 Store::PaceResult::Written);
        QCOMPARE(store->ensurePartition(QStringLiteral("p"), QStringLiteral("k1"), 1,
                                        QStringLiteral(R"({"policy_id":"p","limit":99})"),
                                        Gcra::forLimit(99, 3'600'000, 2)),
                 Store::PaceResult::Conflict);
        for (int i = 0; i < 5; ++i)
            QVERIFY(store->createOperation(QStringLiteral("bulk"), QStringLiteral("b%1").arg(i),
                                           now - 1000, QStringLiteral("p"), QStringLiteral("k1")));
        QVERIFY(store->createOperation(QStringLiteral("free"), QStringLiteral("f1"), now - 1000));
        QVERIFY(store->createOperation(QStringLiteral("free"), QStringLiteral("f2"), now - 1000));
        QVERIFY(
            store->createOperation(QStringLiteral("later"), QStringLiteral("l"), now + 3'600'000));
        // Two workers hold claims: the partition's two tokens, and one without a policy.
        QCOMPARE(store->claims().claimDue(QStringLiteral("worker-a"), now, 600'000, 3).size(), 3);
        QCOMPARE(store->claims().claimDue(QStringLiteral("worker-b"), now, 300'000, 1).size(), 1);
        QVERIFY(store->snoozePartition(QStringLiteral("p"), QStringLiteral("k1"), now + 600'000,
                                       QStringLiteral("429 retry-after 600 s")) >= 0);
    }

    const Result json =
        cooldown({QStringLiteral("status"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonObject o = QJsonDocument::fromJson(json.out).object();
    QVERIFY2(!o.isEmpty(), json.out.constData());
    const QJsonArray workers = o.value(QLatin1String("workers")).toArray();
    QCOMPARE(workers.size(), 2);
    QCOMPARE(workers.at(0).toObject().value(QLatin1String("worker_id")).toString(),
             QStringLiteral("worker-a"));
    QCOMPARE(workers.at(0).toObject().value(QLatin1String("running")).toInt(), 3);
    QVERIFY(workers.at(0).toObject().value(QLatin1String("live")).toBool());
    QCOMPARE(workers.at(1).toObject().value(QLatin1String("running")).toInt(), 1);
    const QJsonObject operations = o.value(QLatin1String("operations")).toObject();
    QCOMPARE(operations.value(QLatin1String("running")).toInt(), 4);
    QCOMPARE(operations.value(QLatin1String("scheduled")).toInt(), 4);
    // The hold moved the partition's three to its end; the one an hour away is not due.
    QCOMPARE(operations.value(QLatin1String("due")).toInt(), 0);
    const QJsonArray partitions = o.value(QLatin1String("partitions")).toArray();
    QCOMPARE(partitions.size(), 1);
    const QJsonObject p = partitions.at(0).toObject();
    QCOMPARE(p.value(QLatin1String("policy_id")).toString(), QStringLiteral("p"));
    QCOMPARE(p.value(QLatin1String("partition_key")).toString(), QStringLiteral("k1"));
    QCOMPARE(p.value(QLatin1String("pending")).toInt(), 3);
    QCOMPARE(p.value(QLatin1String("due")).toInt(), 0);
    QCOMPARE(p.value(QLatin1String("tokens")).toInt(), 0);
    QVERIFY(p.value(QLatin1String("next_token_at")).isString());
    QCOMPARE(p.value(QLatin1String("hold_reason")).toString(),
             QStringLiteral("429 retry-after 600 s"));
    QCOMPARE(p.value(QLatin1String("policy")).toObject().value(QLatin1String("limit")).toInt(), 10);
    QVERIFY(p.value(QLatin1String("conflict")).toString().contains(QLatin1String("\"limit\":99")));

    const Result text = cooldown({QStringLiteral("status"), QStringLiteral("--db"), db});
    QVERIFY2(text.exitCode == 0, text.err.constData());
    const QString out = QString::fromUtf8(text.out);
    QVERIFY2(out.contains(QLatin1String("workers (those holding a lease): 2")), qPrintable(out));
    QVERIFY2(out.contains(QLatin1String(
                 "p/k1 (version 1, 10 per 3600 s (quota unit: request), burst 2): held until")),
             qPrintable(out));
    QVERIFY2(out.contains(QLatin1String("3 waiting, 0 due")), qPrintable(out));
    QVERIFY2(out.contains(QLatin1String("conflict: a worker configures version 1 as")),
             qPrintable(out));
}

// An attempt whose response stated a quota: the partition's row learns it with the
// attempt, and status shows it.
void tst_CliStatus::whatTheServerStated()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("learned.db"));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString partition = QStringLiteral("learned:api.example.com");
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(store->ensureLearnedPartition(partition));
        QVERIFY(store->createOperation(QStringLiteral("job"), QStringLiteral("k"), now - 100,
                                       partition, QString(), 1, QStringLiteral("api.example.com")));
        const QList<OperationRecord> claimed =
            store->claims().claimDue(QStringLiteral("w"), now, 60000, 1);
        QCOMPARE(claimed.size(), 1);
        AttemptRecord a = test::nextAttempt(claimed.first(), now - 50, now);
        a.status = 200;
        a.decision = Decision::Success;
        OperationRecord done = claimed.first();
        done.state = OperationState::Succeeded;
        done.attempt = 1;
        Store::FinishRequest request{a, done, claimed.first().version};
        HttpHeaders headers;
        // A window long enough that the statement still holds when two status runs of
        // a slow (sanitized) build have read it.
        headers.append("RateLimit-Policy", R"("api";q=5;w=100)");
        headers.append("RateLimit", R"("api";r=3;t=90)");
        request.quota = QuotaStatement::fromHeaders(headers, now);
        request.quotaPolicyId = partition;
        request.quotaObservedAtMs = now;
        const auto outcomes = store->finishAttempts({request}, QStringLiteral("w"));
        QCOMPARE(outcomes.first().result, Store::FinishResult::Committed);
    }
    const Result json =
        cooldown({QStringLiteral("status"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonArray partitions =
        QJsonDocument::fromJson(json.out).object().value(QLatin1String("partitions")).toArray();
    QCOMPARE(partitions.size(), 1);
    const QJsonObject p = partitions.at(0).toObject();
    QCOMPARE(p.value(QLatin1String("policy_id")).toString(), partition);
    const QJsonObject server = p.value(QLatin1String("server")).toObject();
    QCOMPARE(server.value(QLatin1String("quota")).toInt(), 5);
    QCOMPARE(server.value(QLatin1String("window_seconds")).toDouble(), 100.0);
    QCOMPARE(server.value(QLatin1String("remaining")).toInt(), 3);
    QVERIFY2(server.value(QLatin1String("learned_from"))
                 .toString()
                 .contains(QLatin1String("RateLimit: \"api\";r=3;t=90")),
             json.out.constData());
    QCOMPARE(p.value(QLatin1String("tokens")).toInt(), 3);

    const Result text = cooldown({QStringLiteral("status"), QStringLiteral("--db"), db});
    QVERIFY2(text.exitCode == 0, text.err.constData());
    QVERIFY2(text.out.contains("the server states 5 per 100 s, 3 left until"),
             text.out.constData());
}

// A server that states nothing: the pace measured from its refusal shows, with what
// taught it.
void tst_CliStatus::whatTheServersRefusalsMeasured()
{
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("measured.db"));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const QString partition = QStringLiteral("learned:nginx.example.com");
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        QVERIFY(store->ensureLearnedPartition(partition));
        for (const char *key : {"a", "b"})
            QVERIFY(store->createOperation(QStringLiteral("job"), QLatin1String(key), now - 100,
                                           partition, QString(), 1,
                                           QStringLiteral("nginx.example.com")));
        const QList<OperationRecord> claimed =
            store->claims().claimDue(QStringLiteral("w"), now, 60000, 2);
        QCOMPARE(claimed.size(), 2);
        QList<Store::FinishRequest> requests;
        for (int i = 0; i < 2; ++i) {
            const bool refused = i == 1;
            AttemptRecord a = test::nextAttempt(claimed.at(i), now - 50, now + i);
            a.status = refused ? 429 : 200;
            a.decision = refused ? Decision::Retry : Decision::Success;
            a.waitMs = refused ? 2000 : 0;
            a.waitSource = refused ? WaitSource::RetryAfter : WaitSource::None;
            a.retryAfterRaw = refused ? QStringLiteral("2") : QString();
            const OperationRecord next = test::leftIn(
                claimed.at(i), a, refused ? OperationState::Waiting : OperationState::Succeeded,
                now + 2001);
            requests.append({a, next, claimed.at(i).version});
        }
        for (const auto &outcome : store->finishAttempts(requests, QStringLiteral("w")))
            QCOMPARE(outcome.result, Store::FinishResult::Committed);
    }
    const Result json =
        cooldown({QStringLiteral("status"), QStringLiteral("--db"), db, QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonObject p = QJsonDocument::fromJson(json.out)
                              .object()
                              .value(QLatin1String("partitions"))
                              .toArray()
                              .at(0)
                              .toObject();
    QCOMPARE(p.value(QLatin1String("policy_id")).toString(), partition);
    QVERIFY(p.value(QLatin1String("server")).isNull());
    // One accepted answer in the two seconds nginx asked to wait.
    QCOMPARE(p.value(QLatin1String("interval_ms")).toDouble(), 2000.0);
    QCOMPARE(p.value(QLatin1String("measured_from")).toString(),
             QStringLiteral("429 after 1 accepted answers in 0.0 s, Retry-After: 2"));

    const Result text = cooldown({QStringLiteral("status"), QStringLiteral("--db"), db});
    QVERIFY2(text.exitCode == 0, text.err.constData());
    QVERIFY2(text.out.contains("(version 0, one unit every 2000 ms, 1 at once): "),
             text.out.constData());
    QVERIFY2(text.out.contains("measured from the server's refusals (429 after 1 accepted"),
             text.out.constData());
}

void tst_CliStatus::refusals()
{
    QTemporaryDir dir;
    const Result missing = cooldown({QStringLiteral("status"), QStringLiteral("--db"),
                                     dir.filePath(QStringLiteral("none.db"))});
    QCOMPARE(missing.exitCode, 2);
    QVERIFY2(missing.err.contains("there is no database there"), missing.err.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.db"))));
    const Result stray = cooldown({QStringLiteral("status"), QStringLiteral("extra")});
    QCOMPARE(stray.exitCode, 2);
}

QTEST_GUILESS_MAIN(tst_CliStatus)
#include "tst_cli_status.moc"
