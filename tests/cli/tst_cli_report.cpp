// SPDX-License-Identifier: Apache-2.0
// `cooldown report` (docs/report.md) against a small history laid out through the store:
// text, CSV and JSON; the rules chosen by options; a bad --from named (exit 2); a range
// without attempts.

#include "core/store/Store.h"
#include "support/AttemptFixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

constexpr qint64 kAt = 1'793'613'600'000; // 2026-11-02T10:00:00Z

} // namespace

class tst_CliReport : public QObject
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

    // Records an operation of "api" with these statuses, the last one deciding.
    static bool record(Store &store, const QString &key, qint64 at, const QList<int> &statuses);

    QTemporaryDir m_dir;
    QString m_db;
    QString m_config;
    QStringList m_range;

private slots:
    void initTestCase();
    void text();
    void csv();
    void json();
    void badFromIsNamed();
    void emptyRange();
};

bool tst_CliReport::record(Store &store, const QString &key, qint64 at, const QList<int> &statuses)
{
    std::optional<OperationRecord> op =
        test::claimNew(store, QStringLiteral("api"), key, at, QStringLiteral("w"));
    for (qsizetype i = 0; op && i < statuses.size(); ++i) {
        const bool last = i + 1 == statuses.size();
        AttemptRecord a = test::nextAttempt(*op, at, at + 100 * (i + 1));
        a.status = statuses.at(i);
        a.durationMs = 100 * (i + 1);
        a.decision = !last ? Decision::Retry : a.status == 200 ? Decision::Success : Decision::Fail;
        a.reason = a.decision == Decision::Fail ? QStringLiteral("status_500") : QString();
        a.waitMs = last ? -1 : 1000;
        const OperationState state = !last             ? OperationState::Waiting
                                     : a.status == 200 ? OperationState::Succeeded
                                                       : OperationState::Failed;
        at = a.finishedAtMs + 1000;
        const OperationRecord next = test::leftIn(*op, a, state, at);
        if (test::finishAttempt(store, a, next, QStringLiteral("w")) !=
            Store::FinishResult::Committed)
            return false;
        if (!last) {
            const QList<OperationRecord> again =
                store.claims().claimDue(QStringLiteral("w"), at, 60'000, 1);
            op = again.size() == 1 ? std::optional(again.first()) : std::nullopt;
        }
    }
    return op.has_value();
}

void tst_CliReport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("report.db"));
    m_config = m_dir.filePath(QStringLiteral("workspace.json"));
    QFile config(m_config);
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("{\"version\": 1, \"endpoints\": [{\"id\": \"api\", \"name\": \"Partner API\","
                 " \"method\": \"GET\", \"url\": \"https://api.example.com/x\","
                 " \"sla_target\": 99.5}]}");
    config.close();
    QString error;
    const auto store = Store::open(m_db, &error);
    QVERIFY2(store, qPrintable(error));
    // Three plain successes, one after a 429, one failure: 4 of 5 succeeded, 1 throttled.
    QVERIFY(record(*store, QStringLiteral("a"), kAt, {200}));
    QVERIFY(record(*store, QStringLiteral("b"), kAt + 60'000, {200}));
    QVERIFY(record(*store, QStringLiteral("c"), kAt + 120'000, {200}));
    QVERIFY(record(*store, QStringLiteral("d"), kAt + 180'000, {429, 200}));
    QVERIFY(record(*store, QStringLiteral("e"), kAt + 240'000, {500}));
    m_range = {QStringLiteral("--db"),   m_db,
               QStringLiteral("--from"), QStringLiteral("2026-11-02T00:00:00Z"),
               QStringLiteral("--to"),   QStringLiteral("2026-11-03T00:00:00Z")};
}

void tst_CliReport::text()
{
    const Result r =
        cooldown(QStringList{QStringLiteral("report"), QStringLiteral("--config"), m_config,
                             QStringLiteral("--lang"), QStringLiteral("en")} +
                 m_range);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains(QStringLiteral("Partner API (api)")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("availability: 80.0000 % (4 of 5 operations)")),
             qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("target: 99.5 %, missed")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("found no network (the machine offline) are left out")),
             qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("failed for status_500: 1")), qPrintable(out));
}

void tst_CliReport::csv()
{
    const Result r = cooldown(
        QStringList{QStringLiteral("report"), QStringLiteral("--format"), QStringLiteral("csv"),
                    QStringLiteral("--count-throttled"), QStringLiteral("exclude")} +
        m_range);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QList<QByteArray> lines = r.out.split('\n');
    QCOMPARE(lines.size(), 3); // header, one endpoint, the final line break
    const QList<QByteArray> header = lines.at(0).trimmed().split(',');
    const QList<QByteArray> row = lines.at(1).trimmed().split(',');
    QCOMPARE(header.size(), row.size());
    const auto cell = [&](const char *name) {
        return row.at(header.indexOf(name));
    };
    QCOMPARE(cell("endpoint_id"), QByteArray("api"));
    QCOMPARE(cell("count_throttled"), QByteArray("exclude"));
    QCOMPARE(cell("succeeded"), QByteArray("4"));
    QCOMPARE(cell("throttled_succeeded"), QByteArray("1"));
    QCOMPARE(cell("available"), QByteArray("3"));
    QCOMPARE(cell("counted"), QByteArray("4"));
    QCOMPARE(cell("availability_percent"), QByteArray("75.0000"));
    QCOMPARE(cell("attempts"), QByteArray("6"));
    QCOMPARE(cell("answered_429"), QByteArray("1"));
    QCOMPARE(cell("p50_ms"), QByteArray("100"));
    QCOMPARE(cell("p95_ms"), QByteArray("200"));
    QCOMPARE(cell("failures_by_reason"), QByteArray("status_500=1"));
    // Without --config there is no target.
    QCOMPARE(cell("sla_target"), QByteArray());
}

void tst_CliReport::json()
{
    const Result r =
        cooldown(QStringList{QStringLiteral("report"), QStringLiteral("--format"),
                             QStringLiteral("json"), QStringLiteral("--config"), m_config,
                             QStringLiteral("--endpoint"), QStringLiteral("api")} +
                 m_range);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QJsonObject report = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(report.value(QStringLiteral("count_throttled")).toString(),
             QStringLiteral("as-success"));
    QCOMPARE(report.value(QStringLiteral("maintenance")).toString(), QStringLiteral("exclude"));
    const QJsonArray endpoints = report.value(QStringLiteral("endpoints")).toArray();
    QCOMPARE(endpoints.size(), 1);
    const QJsonObject api = endpoints.first().toObject();
    QCOMPARE(api.value(QStringLiteral("availability_percent")).toDouble(), 80.0);
    QCOMPARE(api.value(QStringLiteral("sla_target")).toDouble(), 99.5);
    QCOMPARE(api.value(QStringLiteral("target_met")).toBool(true), false);
    QCOMPARE(api.value(QStringLiteral("share_429_percent")).toDouble(), 100.0 / 6);
    // The failure's minute had no success: one minute of downtime.
    const QJsonArray downtime = api.value(QStringLiteral("downtime")).toArray();
    QCOMPARE(downtime.size(), 1);
    QCOMPARE(downtime.first().toObject().value(QStringLiteral("duration_ms")).toInt(), 60000);
    QCOMPARE(api.value(QStringLiteral("days")).toArray().size(), 1);
}

void tst_CliReport::badFromIsNamed()
{
    const Result r = cooldown({QStringLiteral("report"), QStringLiteral("--db"), m_db,
                               QStringLiteral("--from"), QStringLiteral("last tuesday")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--from") && r.err.contains("last tuesday"), r.err.constData());
    QVERIFY(r.out.isEmpty());
    const Result rule = cooldown({QStringLiteral("report"), QStringLiteral("--db"), m_db,
                                  QStringLiteral("--count-throttled"), QStringLiteral("maybe")});
    QCOMPARE(rule.exitCode, 2);
    QVERIFY2(rule.err.contains("--count-throttled"), rule.err.constData());
    const Result backwards = cooldown({QStringLiteral("report"), QStringLiteral("--db"), m_db,
                                       QStringLiteral("--from"), QStringLiteral("2026-11-03"),
                                       QStringLiteral("--to"), QStringLiteral("2026-11-02")});
    QCOMPARE(backwards.exitCode, 2);
}

void tst_CliReport::emptyRange()
{
    const QStringList range = {QStringLiteral("--db"),   m_db,
                               QStringLiteral("--from"), QStringLiteral("2026-10-01T00:00:00Z"),
                               QStringLiteral("--to"),   QStringLiteral("2026-10-02T00:00:00Z")};
    const Result text = cooldown(
        QStringList{QStringLiteral("report"), QStringLiteral("--lang"), QStringLiteral("en")} +
        range);
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("No endpoint had attempts in the range."), text.out.constData());
    const Result json = cooldown(
        QStringList{QStringLiteral("report"), QStringLiteral("--format"), QStringLiteral("json")} +
        range);
    QCOMPARE(json.exitCode, 0);
    QVERIFY(QJsonDocument::fromJson(json.out)
                .object()
                .value(QStringLiteral("endpoints"))
                .toArray()
                .isEmpty());
    // With the workspace, its endpoint is listed with nothing counted.
    const Result csv =
        cooldown(QStringList{QStringLiteral("report"), QStringLiteral("--format"),
                             QStringLiteral("csv"), QStringLiteral("--config"), m_config} +
                 range);
    QCOMPARE(csv.exitCode, 0);
    QCOMPARE(csv.out.count('\n'), 2);
    QVERIFY(csv.out.contains("api,Partner API"));
}

QTEST_GUILESS_MAIN(tst_CliReport)
#include "tst_cli_report.moc"
