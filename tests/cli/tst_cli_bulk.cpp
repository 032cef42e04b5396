// SPDX-License-Identifier: Apache-2.0
// `cooldown retry|cancel --filter EXPR [--dry-run]` and `cooldown export --audit`, run
// as the binary against a database laid out beforehand (docs/bulk-actions.md).

#include "core/store/Store.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

#include <pwd.h>
#include <unistd.h>

using namespace cooldown;

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Result run(const QStringList &args,
           const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(COOLDOWN_BINARY), args);
    if (!p.waitForFinished(30000))
        qFatal("cooldown did not finish");
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

} // namespace

class tst_CliBulk : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void dryRunCountsAndEstimatesAndChangesNothing();
    void retryAndCancelByFilterAreAuditedAndExported();
    void refusals();
    void actorWithoutUserVariablesIsTheAccount();

private:
    QList<OperationRecord> operations(const QString &endpoint);
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_db;
};

void tst_CliBulk::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_db = m_dir->filePath(QStringLiteral("bulk.db"));
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    // One request per second with a burst of one: ten operations take nine seconds.
    QCOMPARE(store->ensurePartition(QStringLiteral("p"), QStringLiteral("k"), 1,
                                    QStringLiteral("{}"), Gcra::forLimit(1, 1000, 1)),
             Store::PaceResult::Written);
    // The binary reads the system clock: the operations are due a day from now, so
    // that they wait for an operator.
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<Store::NewOperation> jobs;
    for (int i = 0; i < 13; ++i) {
        Store::NewOperation op;
        op.endpointId = i < 10 ? QStringLiteral("upload") : QStringLiteral("other");
        op.idempotencyKey = QStringLiteral("key-%1").arg(i);
        op.requestHash = QStringLiteral("hash-%1").arg(i);
        op.policyId = QStringLiteral("p");
        op.partitionKey = QStringLiteral("k");
        op.dueAtMs = now + 86'400'000;
        jobs.append(op);
    }
    QVERIFY(store->enqueue(jobs, now, Store::IntakeMode::AllOrNothing));
}

QList<OperationRecord> tst_CliBulk::operations(const QString &endpoint)
{
    QString error;
    auto store = Store::open(m_db, &error);
    OperationFilter filter;
    filter.endpointId = endpoint;
    return store ? store->operations(filter) : QList<OperationRecord>();
}

void tst_CliBulk::dryRunCountsAndEstimatesAndChangesNothing()
{
    const Result r =
        run({"retry", "--filter", "endpoint=upload state=scheduled", "--dry-run", "--db", m_db});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.startsWith("10 operations match; at the current limits they drain in about "
                              "9 s (paced by partition p/k)\n"),
             r.out.constData());
    QVERIFY2(r.out.contains("dry run: nothing was changed"), r.out.constData());
    for (const OperationRecord &op : operations(QStringLiteral("upload")))
        QCOMPARE(op.state, OperationState::Scheduled);
    QString error;
    QCOMPARE(Store::open(m_db, &error)->operatorActions()->size(), 0);
}

void tst_CliBulk::retryAndCancelByFilterAreAuditedAndExported()
{
    Result r =
        run({"retry", "--filter", "endpoint=upload", "--force", "--as", "alice", "--db", m_db});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.startsWith("10 operations match; "), r.out.constData());
    QVERIFY2(r.out.contains("10 operations are due now, forced\n"), r.out.constData());
    QVERIFY2(r.err.contains("retry: 10 of 10 looked at, 10 changed"), r.err.constData());
    for (const OperationRecord &op : operations(QStringLiteral("upload"))) {
        QCOMPARE(op.state, OperationState::Waiting);
        QVERIFY(op.forceNext);
    }

    r = run({"cancel", "--filter", "endpoint=other,upload state=scheduled", "--as",
             "=HYPERLINK(\"x\")", "--db", m_db});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("3 operations cancelled\n"), r.out.constData());
    for (const OperationRecord &op : operations(QStringLiteral("other")))
        QCOMPARE(op.state, OperationState::Cancelled);
    for (const OperationRecord &op : operations(QStringLiteral("upload")))
        QCOMPARE(op.state, OperationState::Waiting); // not scheduled: not selected

    // The single form writes its row too.
    const qint64 first = operations(QStringLiteral("upload")).constFirst().id;
    r = run({"cancel", QString::number(first), "--as", "bob", "--db", m_db});
    QVERIFY2(r.exitCode == 0, r.err.constData());

    const QString csv = m_dir->filePath(QStringLiteral("audit.csv"));
    r = run({"export", "--audit", "--out", csv, "--db", m_db});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("exported 3 audit rows"), r.out.constData());
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().split('\n');
    QCOMPARE(lines.size(), 5); // header, three rows, and the empty text after the last CRLF
    QCOMPARE(lines[0], QByteArray("id,at,actor,worker_id,action,target,asked,changed\r"));
    QVERIFY2(lines[1].contains(",alice,,force,endpoint=upload,10,10\r"), lines[1].constData());
    // An actor that a spreadsheet would run as a formula is neutralised and quoted.
    QVERIFY2(lines[2].contains(",\"'=HYPERLINK(\"\"x\"\")\",,cancel,"
                               "\"endpoint=other,upload state=scheduled\",3,3\r"),
             lines[2].constData());
    QVERIFY2(lines[3].contains(QStringLiteral(",bob,,cancel,ids=%1,1,1\r").arg(first).toUtf8()),
             lines[3].constData());

    // Without --out the CSV goes to standard output.
    r = run({"export", "--audit", "--db", m_db});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.startsWith("id,at,actor,worker_id,action,target,asked,changed\r\n"));
    QCOMPARE(r.out.count('\n'), 4);
}

// A service or a cron job has no USER: the audit row names the account all the same.
void tst_CliBulk::actorWithoutUserVariablesIsTheAccount()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : {"USER", "USERNAME", "LOGNAME"})
        env.remove(QString::fromLatin1(name));
    const qint64 first = operations(QStringLiteral("upload")).constFirst().id;
    const Result r = run({"cancel", QString::number(first), "--db", m_db}, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const passwd *account = getpwuid(geteuid());
    QVERIFY(account && account->pw_name);
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    const auto rows = store->operatorActions();
    QVERIFY2(rows && rows->size() == 1, qPrintable(store->lastError()));
    QCOMPARE(rows->constFirst().actor, QString::fromLocal8Bit(account->pw_name));
}

void tst_CliBulk::refusals()
{
    Result r = run({"retry", "--filter", "endpoint=upload stat=waiting", "--db", m_db});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.startsWith("cooldown retry: --filter: column 17: 'stat=waiting': unknown key "
                              "'stat'"),
             r.err.constData());
    r = run({"cancel", "--filter", " , ", "--db", m_db});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("name at least one term"), r.err.constData());
    r = run({"retry", "1", "--filter", "endpoint=upload", "--db", m_db});
    QCOMPARE(r.exitCode, 2);
    r = run({"retry", "1", "--dry-run", "--db", m_db});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--dry-run applies to --filter only"), r.err.constData());
    r = run({"export", "--audit", "--rollups", "--db", m_db});
    QCOMPARE(r.exitCode, 2);
    QString error;
    QCOMPARE(Store::open(m_db, &error)->operatorActions()->size(), 0);
}

QTEST_GUILESS_MAIN(tst_CliBulk)
#include "tst_cli_bulk.moc"
