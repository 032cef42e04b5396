// SPDX-License-Identifier: Apache-2.0
#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

class tst_CliOperator : public QObject
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
    void retryAndForce();
    void cancel();
    void refusals();
};

void tst_CliOperator::retryAndForce()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("ops.db");
    qint64 id = 0;
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        id = store->createOperation("e1", "key-1", 1000).value();
        const auto claimed = store->claims().claimDue("w", 1000, 60000, 1);
        QCOMPARE(claimed.size(), 1);
        OperationRecord parked = claimed.first();
        parked.state = OperationState::Parked;
        parked.attempt = 1;
        parked.finalReason = "not_idempotent";
        QCOMPARE(claimed.first().id, id);
        AttemptRecord a = test::nextAttempt(claimed.first(), 1000);
        a.status = 503;
        a.decision = Decision::Park;
        QCOMPARE(test::finishAttempt(*store, a, parked, "w"), Store::FinishResult::Committed);
    }
    Result r = cooldown({"retry", QString::number(id), "--db", db, "--force"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("waiting, due now, forced"), r.out.constData());
    QString error;
    auto store = Store::open(db, &error);
    const OperationRecord op = store->operation(id).value();
    QCOMPARE(op.state, OperationState::Waiting);
    QVERIFY(op.forceNext);
}

void tst_CliOperator::cancel()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("ops.db");
    QString error;
    qint64 id = 0;
    {
        auto store = Store::open(db, &error);
        id = store->createOperation("e1", "key-1", 1000).value();
    }
    const Result r = cooldown({"cancel", QString::number(id), "--db", db});
    QCOMPARE(r.exitCode, 0);
    auto store = Store::open(db, &error);
    QCOMPARE(store->operation(id)->state, OperationState::Cancelled);
    // Cancelling again is refused: it has ended.
    const Result again = cooldown({"cancel", QString::number(id), "--db", db});
    QCOMPARE(again.exitCode, 2);
    QVERIFY(again.err.startsWith("cooldown cancel: "));
}

void tst_CliOperator::refusals()
{
    QTemporaryDir dir;
    const QString db = dir.filePath("ops.db");
    {
        QString error;
        QVERIFY(Store::open(db, &error));
    }
    Result r = cooldown({"retry", "999", "--db", db});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no operation 999"), r.err.constData());
    r = cooldown({"retry", "abc", "--db", db});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("OPERATION_ID"));
    r = cooldown({"retry", "--db", db});
    QCOMPARE(r.exitCode, 2);
    r = cooldown({"cancel", "1", "--db", dir.filePath("missing.db")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(!QFile::exists(dir.filePath("missing.db"))); // nothing written
    r = cooldown({"cancel", "1", "--force", "--db", db});
    QCOMPARE(r.exitCode, 2); // --force is retry's alone
    r = cooldown({"retry", "--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("Usage: cooldown retry [options]"), r.out.constData());
}

QTEST_GUILESS_MAIN(tst_CliOperator)
#include "tst_cli_operator.moc"
