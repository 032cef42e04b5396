// SPDX-License-Identifier: Apache-2.0
// `cooldown export` end to end: the file it writes opens in a strict CSV reader with
// hostile cells intact and neutralised, bad input exits 2 without writing, and
// --prunable writes exactly what a retention pass then deletes.

#include "store/CsvReader.h"
#include "support/AttemptFixture.h"

#include "core/store/CsvExporter.h"
#include "core/store/RetentionPruner.h"
#include "core/store/Store.h"
#include "core/time/Clock.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace cooldown;

namespace {

const qint64 kNow = 1'795'000'000'000;
const qint64 kDay = 24LL * 3600 * 1000;

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

// The claimed operation's next attempt, started at `at`, leaving it in `state` (a
// waiting one is due at dueAtMs).
bool finishClaimed(Store &store, const OperationRecord &op, qint64 at, OperationState state,
                   qint64 dueAtMs = -1)
{
    AttemptRecord a = test::nextAttempt(op, at, at + 10);
    a.method = QStringLiteral("GET");
    a.url = QStringLiteral("https://h/x?access_token=T0P");
    a.status = state == OperationState::Succeeded ? 200 : 503;
    a.decision = test::decisionLeaving(state);
    a.idempotencyKey = op.idempotencyKey;
    return test::finishAttempt(store, a, test::leftIn(op, a, state, dueAtMs),
                               QStringLiteral("w")) == Store::FinishResult::Committed;
}

// One operation with one attempt that started at `at`, left in `state`. Returns its id.
qint64 recordOne(Store &store, qint64 at, OperationState state, qint64 dueAtMs = -1)
{
    static int made = 0;
    const auto claimed = test::claimNew(store, QStringLiteral("e"),
                                        QStringLiteral("p%1").arg(++made), at, QStringLiteral("w"));
    return claimed && finishClaimed(store, *claimed, at, state, dueAtMs) ? claimed->id : 0;
}

bool readCsv(const QString &fileName, QList<QStringList> *rows)
{
    QFile file(fileName);
    QString error;
    if (!file.open(QIODevice::ReadOnly) || !test::parseCsv(file.readAll(), rows, &error)) {
        qWarning("%s: %s", qPrintable(fileName), qPrintable(error));
        return false;
    }
    return !rows->isEmpty();
}

// A column of every row below the header, by the header's name.
QStringList column(const QList<QStringList> &rows, const QString &name)
{
    const int index = rows.first().indexOf(name);
    QStringList cells;
    for (int i = 1; i < rows.size(); ++i)
        cells.append(index >= 0 ? rows.at(i).value(index) : QStringLiteral("?"));
    return cells;
}

bool writeFile(const QString &fileName, const QByteArray &bytes)
{
    QFile file(fileName);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QByteArray workspace(int rawDays, int rollupDays)
{
    // Escaped, not raw: moc cannot read a raw string literal among a macro's arguments.
    return QStringLiteral(
               "{\"version\": 1, \"retention\": {\"raw_days\": %1, \"rollup_days\": %2},"
               " \"endpoints\": [{\"id\": \"e\", \"url\": \"https://api.example.com/e\"}]}")
        .arg(rawDays)
        .arg(rollupDays)
        .toUtf8();
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
    void prunable();
    void prunableKeepsForEver();
    void badInput_data();
    void badInput();
    void unwritableOutput();
    void newerDatabaseRefused();

private:
    QTemporaryDir m_dir;
    QString m_db;
    QString m_config;    // retention: 30 raw days, 45 rollup days
    QString m_badConfig; // retention.raw_days: -1
    QStringList m_hostile;
};

void tst_ExportCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("history.db"));
    m_config = m_dir.filePath(QStringLiteral("workspace.json"));
    QVERIFY(writeFile(m_config, workspace(30, 45)));
    m_badConfig = m_dir.filePath(QStringLiteral("bad-workspace.json"));
    QVERIFY(writeFile(m_badConfig, workspace(-1, 45)));
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
            store->claims().claimDue(QStringLiteral("w"), kNow + i * 1000, 60'000, 1).value(0);
        QVERIFY(op.id > 0);
        AttemptRecord a = test::nextAttempt(op, kNow + i * 1000, kNow + i * 1000 + 5);
        a.method = QStringLiteral("GET");
        a.url = QStringLiteral("https://h/x?access_token=T0P&i=%1").arg(i);
        a.error = m_hostile.at(i);
        a.decision = Decision::Fail;
        a.reason = QStringLiteral("not_retryable");
        a.idempotencyKey = op.idempotencyKey;
        a.requestHeaders = QStringLiteral("Authorization: Bearer T0P\n");
        const OperationRecord next =
            test::leftIn(op, a, i < 4 ? OperationState::Failed : OperationState::Parked);
        QCOMPARE(test::finishAttempt(*store, a, next, QStringLiteral("w")),
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

void tst_ExportCommand::prunable()
{
    // The export reads the system clock, so the history is placed days from now: far
    // from the cuts (30 raw days, 45 rollup days), whenever the test runs.
    const QString db = m_dir.filePath(QStringLiteral("prunable.db"));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 later = now + kDay;    // when the waiting operations are due
    QList<QPair<qint64, int>> expected; // (operation, attempt) that retention prunes
    {
        QString error;
        auto store = Store::open(db, &error);
        QVERIFY2(store, qPrintable(error));
        // An operation with attempts on both sides of the cut: its first goes.
        const qint64 split = recordOne(*store, now - 40 * kDay, OperationState::Waiting, later);
        QVERIFY(split > 0);
        const QList<OperationRecord> again =
            store->claims().claimDue(QStringLiteral("w"), later, 60'000, 1);
        QCOMPARE(again.size(), 1);
        QCOMPARE(again.first().id, split);
        QVERIFY(finishClaimed(*store, again.first(), now - kDay, OperationState::Succeeded));
        expected.append({split, 1});
        // Ended and older than the cut: a day past the raw cut, a day short of the
        // rollups' (its minute stays), and further.
        for (const auto &[daysAgo, state] :
             {std::pair{100, OperationState::Succeeded}, std::pair{44, OperationState::Succeeded},
              std::pair{40, OperationState::Succeeded}, std::pair{35, OperationState::Failed},
              std::pair{31, OperationState::Succeeded}}) {
            const qint64 id = recordOne(*store, now - daysAgo * kDay, state);
            QVERIFY(id > 0);
            expected.append({id, 1});
        }
        const qint64 cancelled = recordOne(*store, now - 38 * kDay, OperationState::Waiting, later);
        QVERIFY(cancelled > 0);
        QCOMPARE(store->cancel(cancelled, now), Store::OperatorResult::Done);
        expected.append({cancelled, 1});
        // Old, but their operations have not ended; and ended, but newer than the cut (a
        // day short of it): all kept.
        QVERIFY(recordOne(*store, now - 40 * kDay, OperationState::Waiting, later));
        QVERIFY(recordOne(*store, now - 50 * kDay, OperationState::Parked));
        QVERIFY(recordOne(*store, now - 29 * kDay, OperationState::Succeeded));
        QVERIFY(recordOne(*store, now - kDay, OperationState::Succeeded));
    }
    std::sort(expected.begin(), expected.end());

    const QString out = m_dir.filePath(QStringLiteral("prunable.csv"));
    Result result = runCooldown({QStringLiteral("--db"), db, QStringLiteral("--config"), m_config,
                                 QStringLiteral("--out"), out, QStringLiteral("--prunable")});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains("exported 7 attempts"), result.out.constData());
    QVERIFY2(result.out.contains("retention.raw_days: 30"), result.out.constData());
    QList<QStringList> rows;
    QVERIFY(readCsv(out, &rows));
    // The attempt export's format, secrets redacted as there.
    QCOMPARE(rows.first(), CsvExporter::columnNames());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains("T0P"));
    QList<QPair<qint64, int>> exported;
    const QStringList operations = column(rows, QStringLiteral("operation_id"));
    const QStringList attempts = column(rows, QStringLiteral("attempt"));
    for (int i = 0; i < operations.size(); ++i)
        exported.append({operations.at(i).toLongLong(), attempts.at(i).toInt()});
    std::sort(exported.begin(), exported.end());
    QCOMPARE(exported, expected);
    for (const QString &state : column(rows, QStringLiteral("operation_state")))
        QVERIFY2(state == QLatin1String("succeeded") || state == QLatin1String("failed") ||
                     state == QLatin1String("cancelled"),
                 qPrintable(state));
    QList<qint64> exportedIds;
    for (const QString &id : column(rows, QStringLiteral("attempt_id")))
        exportedIds.append(id.toLongLong());

    // The rollups older than 45 days: the minutes of the attempts 100 and 50 days ago.
    const QString rollupsOut = m_dir.filePath(QStringLiteral("prunable-rollups.csv"));
    result = runCooldown({QStringLiteral("--db"), db, QStringLiteral("--config"), m_config,
                          QStringLiteral("--out"), rollupsOut, QStringLiteral("--prunable"),
                          QStringLiteral("--rollups")});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains("exported 2 rollup rows"), result.out.constData());
    QVERIFY2(result.out.contains("retention.rollup_days: 45"), result.out.constData());
    QList<QStringList> rollupRows;
    QVERIFY(readCsv(rollupsOut, &rollupRows));
    QCOMPARE(rollupRows.first(), CsvExporter::rollupColumnNames());
    const auto minuteOf = [](qint64 at) {
        return QDateTime::fromMSecsSinceEpoch((at + 10) / 60'000 * 60'000, Qt::UTC)
            .toString(Qt::ISODateWithMs);
    };
    const QStringList exportedMinutes = column(rollupRows, QStringLiteral("minute"));
    QCOMPARE(exportedMinutes, (QStringList{minuteOf(now - 100 * kDay), minuteOf(now - 50 * kDay)}));

    // One pass of retention with the workspace's periods, a moment after the exports:
    // it deletes exactly what they wrote.
    QString error;
    auto store = Store::open(db, &error);
    QVERIFY2(store, qPrintable(error));
    QList<qint64> attemptsBefore;
    for (const AttemptRecord &a : store->attempts({}))
        attemptsBefore.append(a.id);
    QStringList minutesBefore;
    for (const RollupRecord &r : store->rollups(0, now + kDay))
        minutesBefore.append(
            QDateTime::fromMSecsSinceEpoch(r.minuteAtMs, Qt::UTC).toString(Qt::ISODateWithMs));
    ManualClock clock(QDateTime::currentMSecsSinceEpoch());
    RetentionPruner pruner(db, clock, RetentionPeriods::fromDays(30, 45));
    const PruneSummary summary = pruner.pruneNow();
    QVERIFY2(summary.error.isEmpty(), qPrintable(summary.error));
    QCOMPARE(summary.attempts, qint64(exportedIds.size()));
    QCOMPARE(summary.rollups, qint64(exportedMinutes.size()));
    QList<qint64> deleted = attemptsBefore;
    for (const AttemptRecord &a : store->attempts({}))
        deleted.removeOne(a.id);
    std::sort(deleted.begin(), deleted.end());
    std::sort(exportedIds.begin(), exportedIds.end());
    QCOMPARE(deleted, exportedIds);
    QStringList minutesLeft;
    for (const RollupRecord &r : store->rollups(0, now + kDay))
        minutesLeft.append(
            QDateTime::fromMSecsSinceEpoch(r.minuteAtMs, Qt::UTC).toString(Qt::ISODateWithMs));
    for (const QString &minute : exportedMinutes) {
        QVERIFY(minutesBefore.removeOne(minute));
        QVERIFY(!minutesLeft.contains(minute));
    }
    QCOMPARE(minutesLeft, minutesBefore);

    // Exported and pruned: nothing is due any longer.
    result = runCooldown({QStringLiteral("--db"), db, QStringLiteral("--config"), m_config,
                          QStringLiteral("--out"), out, QStringLiteral("--prunable")});
    QVERIFY2(result.exitCode == 0, result.err.constData());
    QVERIFY2(result.out.contains("exported 0 attempts"), result.out.constData());
}

void tst_ExportCommand::prunableKeepsForEver()
{
    // A period of 0 keeps everything: the file holds its header alone, and says why.
    const QString config = m_dir.filePath(QStringLiteral("forever.json"));
    QVERIFY(writeFile(config, workspace(0, 0)));
    for (const bool rollups : {false, true}) {
        const QString out = m_dir.filePath(QStringLiteral("forever.csv"));
        QStringList arguments{QStringLiteral("--db"),  m_db, QStringLiteral("--config"),  config,
                              QStringLiteral("--out"), out,  QStringLiteral("--prunable")};
        if (rollups)
            arguments.append(QStringLiteral("--rollups"));
        const Result result = runCooldown(arguments);
        QVERIFY2(result.exitCode == 0, result.err.constData());
        QVERIFY2(
            result.out.contains(rollups ? "retention.rollup_days is 0" : "retention.raw_days is 0"),
            result.out.constData());
        QList<QStringList> rows;
        QVERIFY(readCsv(out, &rows));
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows.first(),
                 rollups ? CsvExporter::rollupColumnNames() : CsvExporter::columnNames());
    }
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
    const QStringList prunable{QStringLiteral("--db"), db, QStringLiteral("--out"),
                               QStringLiteral("@OUT@"), QStringLiteral("--prunable")};
    QTest::newRow("prunable without config") << prunable << "--prunable needs --config";
    QTest::newRow("config without prunable")
        << QStringList{QStringLiteral("--db"),     db,
                       QStringLiteral("--out"),    QStringLiteral("@OUT@"),
                       QStringLiteral("--config"), QStringLiteral("@CONFIG@")}
        << "--config is used only with --prunable";
    QTest::newRow("prunable from")
        << prunable + QStringList{QStringLiteral("--config"), QStringLiteral("@CONFIG@"),
                                  QStringLiteral("--from"), QStringLiteral("2026-01-01T00:00:00Z")}
        << "--from does not apply to --prunable";
    QTest::newRow("prunable endpoint")
        << prunable + QStringList{QStringLiteral("--config"), QStringLiteral("@CONFIG@"),
                                  QStringLiteral("--endpoint"), QStringLiteral("e")}
        << "--endpoint does not apply to --prunable";
    QTest::newRow("prunable bad config")
        << prunable + QStringList{QStringLiteral("--config"), QStringLiteral("@BADCONFIG@")}
        << "retention.raw_days: expected a whole number from 0 to 36500";
    QTest::newRow("prunable missing config")
        << prunable + QStringList{QStringLiteral("--config"), QStringLiteral("@MISSING@")}
        << "cannot read";
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
        argument.replace(QStringLiteral("@CONFIG@"), m_config);
        argument.replace(QStringLiteral("@BADCONFIG@"), m_badConfig);
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
