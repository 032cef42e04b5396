// `cooldown export` end to end: the file it writes opens in a strict CSV reader with
// hostile cells intact and neutralised, and bad input exits 2 without writing.

#include "CsvReader.h"

#include "core/store/CsvExporter.h"
#include "core/store/Store.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

const qint64 kNow = 1'795'000'000'000;

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Result runCooldown(const QStringList &arguments)
{
    QProcess process;
    process.start(QStringLiteral(COOLDOWN_BINARY),
                  QStringList{QStringLiteral("export")} + arguments);
    Result result;
    if (!process.waitForFinished(60'000) || process.exitStatus() != QProcess::NormalExit)
        return result;
    result.exitCode = process.exitCode();
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

} // namespace

class tst_ExportCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void hostileCellsRoundTrip();
    void filters();
    void rollups();
    void badInput_data();
    void badInput();
    void unwritableOutput();
    void newerDatabaseRefused();

private:
    QTemporaryDir m_dir;
    QString m_db;
    QStringList m_hostile;
};

void tst_ExportCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("history.db"));
    m_hostile = {QStringLiteral("=HYPERLINK(\"http://evil.example\",\"click\")"),
                 QStringLiteral("+1-555-0100"),
                 QStringLiteral("-cmd"),
                 QStringLiteral("@import"),
                 QStringLiteral("\t=tab"),
                 QStringLiteral("\r\n=crlf"),
                 QStringLiteral("multi\nline, with \"quotes\""),
                 QString::fromUtf8("日本語 ✓")};
    QString error;
    auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    for (int i = 0; i < m_hostile.size(); ++i) {
        const QString endpoint = i % 2 ? QStringLiteral("odd") : QStringLiteral("even");
        QVERIFY(store->createOperation(endpoint, QStringLiteral("k%1").arg(i), kNow + i * 1000));
        OperationRecord op =
            store->claimDue(QStringLiteral("w"), kNow + i * 1000, 60'000, 1).value(0);
        QVERIFY(op.id > 0);
        AttemptRecord a;
        a.operationId = op.id;
        a.endpointId = endpoint;
        a.attempt = 1;
        a.startedAtMs = kNow + i * 1000;
        a.finishedAtMs = a.startedAtMs + 5;
        a.method = QStringLiteral("GET");
        a.url = QStringLiteral("https://h/x?access_token=T0P&i=%1").arg(i);
        a.error = m_hostile.at(i);
        a.decision = QStringLiteral("fail");
        a.reason = QStringLiteral("not_retryable");
        a.idempotencyKey = op.idempotencyKey;
        a.requestHeaders = QStringLiteral("Authorization: Bearer T0P\n");
        op.state = i < 4 ? OperationState::Failed : OperationState::Parked;
        op.attempt = 1;
        op.nextAttemptAtMs = -1;
        QCOMPARE(store->finishAttempt(a, op, op.version, QStringLiteral("w")),
                 Store::FinishResult::Committed);
    }
}

void tst_ExportCommand::hostileCellsRoundTrip()
{
    const QString out = m_dir.filePath(QStringLiteral("all.csv"));
    const Result result = runCooldown({QStringLiteral("--db"), m_db, QStringLiteral("--out"), out});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY(result.out.contains("exported 8 attempts"));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray bytes = file.readAll();
    QVERIFY(!bytes.contains("T0P"));
    QList<QStringList> rows;
    QString error;
    QVERIFY2(test::parseCsv(bytes, &rows, &error), qPrintable(error));
    QCOMPARE(rows.size(), 1 + m_hostile.size());
    const int errorColumn = rows.first().indexOf(QStringLiteral("error"));
    const int startedColumn = rows.first().indexOf(QStringLiteral("started_at"));
    QVERIFY(errorColumn >= 0 && startedColumn >= 0);
    for (int i = 0; i < m_hostile.size(); ++i) {
        const QString &original = m_hostile.at(i);
        const QChar first = original.front();
        const bool risky = QStringLiteral("=+-@\t\r\n").contains(first);
        QCOMPARE(rows.at(i + 1).at(errorColumn), risky ? QLatin1Char('\'') + original : original);
        QCOMPARE(
            rows.at(i + 1).at(startedColumn),
            QDateTime::fromMSecsSinceEpoch(kNow + i * 1000, Qt::UTC).toString(Qt::ISODateWithMs));
    }
}

void tst_ExportCommand::filters()
{
    const QString out = m_dir.filePath(QStringLiteral("filtered.csv"));
    const QString from =
        QDateTime::fromMSecsSinceEpoch(kNow + 2000, Qt::UTC).toString(Qt::ISODateWithMs);
    const QString to =
        QDateTime::fromMSecsSinceEpoch(kNow + 7000, Qt::UTC).toString(Qt::ISODateWithMs);
    const Result result = runCooldown({QStringLiteral("--db"), m_db, QStringLiteral("--out"), out,
                                       QStringLiteral("--from"), from, QStringLiteral("--to"), to,
                                       QStringLiteral("--endpoint"), QStringLiteral("odd"),
                                       QStringLiteral("--state"), QStringLiteral("parked")});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QList<QStringList> rows;
    QString error;
    QVERIFY2(test::parseCsv(file.readAll(), &rows, &error), qPrintable(error));
    // Attempts 2..6 are in range; of those, odd ones are 3 and 5; parked: 5.
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows.at(1).at(rows.first().indexOf(QStringLiteral("idempotency_key"))),
             QStringLiteral("k5"));
}

void tst_ExportCommand::rollups()
{
    const QString out = m_dir.filePath(QStringLiteral("rollups.csv"));
    Result result = runCooldown(
        {QStringLiteral("--db"), m_db, QStringLiteral("--out"), out, QStringLiteral("--rollups")});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains("exported 2 rollup rows"), result.out.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QList<QStringList> rows;
    QString error;
    QVERIFY2(test::parseCsv(file.readAll(), &rows, &error), qPrintable(error));
    QCOMPARE(rows.first(), CsvExporter::rollupColumnNames());
    // Eight failed attempts without a response in one minute, four per endpoint.
    const QString minute =
        QDateTime::fromMSecsSinceEpoch(kNow / 60'000 * 60'000, Qt::UTC).toString(Qt::ISODateWithMs);
    QCOMPARE(rows.size(), 3);
    const QStringList even{minute,
                           QStringLiteral("even"),
                           QString(),
                           QString(),
                           QStringLiteral("none"),
                           QStringLiteral("fail"),
                           QString(),
                           QStringLiteral("not_retryable"),
                           QStringLiteral("4"),
                           QStringLiteral("0"),
                           QStringLiteral("0"),
                           QStringLiteral("0")};
    QCOMPARE(rows.at(1), even);
    QCOMPARE(rows.at(2).at(1), QStringLiteral("odd"));
    QCOMPARE(rows.at(2).at(8), QStringLiteral("4"));

    // One endpoint, and a range that ends before the minute: nothing.
    result = runCooldown({QStringLiteral("--db"), m_db, QStringLiteral("--out"), out,
                          QStringLiteral("--rollups"), QStringLiteral("--endpoint"),
                          QStringLiteral("odd")});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains("exported 1 rollup rows"), result.out.constData());
    result = runCooldown(
        {QStringLiteral("--db"), m_db, QStringLiteral("--out"), out, QStringLiteral("--rollups"),
         QStringLiteral("--to"),
         QDateTime::fromMSecsSinceEpoch(kNow / 60'000 * 60'000, Qt::UTC).toString(Qt::ISODate)});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains("exported 0 rollup rows"), result.out.constData());
    // --state selects operations, which rollups do not keep.
    result = runCooldown({QStringLiteral("--db"), m_db, QStringLiteral("--out"), out,
                          QStringLiteral("--rollups"), QStringLiteral("--state"),
                          QStringLiteral("failed")});
    QCOMPARE(result.exitCode, 2);
}

void tst_ExportCommand::badInput_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message");
    const QString db = QStringLiteral("@DB@");
    QTest::newRow("no out") << QStringList{QStringLiteral("--db"), db} << "--out is required";
    QTest::newRow("bad from") << QStringList{QStringLiteral("--db"),   db,
                                             QStringLiteral("--out"),  QStringLiteral("@OUT@"),
                                             QStringLiteral("--from"), QStringLiteral("yesterday")}
                              << "--from: not a time: 'yesterday'";
    QTest::newRow("reversed range")
        << QStringList{QStringLiteral("--db"),   db,
                       QStringLiteral("--out"),  QStringLiteral("@OUT@"),
                       QStringLiteral("--from"), QStringLiteral("2026-01-02T00:00:00Z"),
                       QStringLiteral("--to"),   QStringLiteral("2026-01-01T00:00:00Z")}
        << "--to must be later than --from";
    QTest::newRow("bad state") << QStringList{QStringLiteral("--db"),    db,
                                              QStringLiteral("--out"),   QStringLiteral("@OUT@"),
                                              QStringLiteral("--state"), QStringLiteral("done")}
                               << "unknown state 'done'";
    QTest::newRow("missing database")
        << QStringList{QStringLiteral("--db"), QStringLiteral("@MISSING@"), QStringLiteral("--out"),
                       QStringLiteral("@OUT@")}
        << "there is no database there";
    QTest::newRow("unknown option")
        << QStringList{QStringLiteral("--db"), db, QStringLiteral("--bogus")} << "bogus";
}

void tst_ExportCommand::badInput()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const QString out = m_dir.filePath(QStringLiteral("bad.csv"));
    const QString missing = m_dir.filePath(QStringLiteral("missing.db"));
    for (QString &argument : arguments) {
        argument.replace(QStringLiteral("@DB@"), m_db);
        argument.replace(QStringLiteral("@OUT@"), out);
        argument.replace(QStringLiteral("@MISSING@"), missing);
    }
    const Result result = runCooldown(arguments);
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.err.contains(message.toUtf8()), result.err.constData());
    QVERIFY(!QFile::exists(out));
    QVERIFY(!QFile::exists(missing));
}

void tst_ExportCommand::unwritableOutput()
{
    const QString out = m_dir.filePath(QStringLiteral("no/such/folder/x.csv"));
    const Result result = runCooldown({QStringLiteral("--db"), m_db, QStringLiteral("--out"), out});
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(result.err.contains("cannot write"), result.err.constData());
}

void tst_ExportCommand::newerDatabaseRefused()
{
    const QString newer = m_dir.filePath(QStringLiteral("newer.db"));
    {
        QString error;
        QVERIFY(Store::open(newer, &error));
    }
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("raw"));
        db.setDatabaseName(newer);
        QVERIFY(db.open());
        QSqlQuery query(db);
        QVERIFY(query.exec(
            QStringLiteral("UPDATE schema_meta SET value = '99' WHERE name = 'schema_version'")));
        db.close();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("raw"));
    const Result result = runCooldown({QStringLiteral("--db"), newer, QStringLiteral("--out"),
                                       m_dir.filePath(QStringLiteral("n.csv"))});
    QCOMPARE(result.exitCode, 2);
    QVERIFY2(result.err.contains("newer"), result.err.constData());
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("n.csv"))));
}

QTEST_GUILESS_MAIN(tst_ExportCommand)
#include "tst_exportcommand.moc"
