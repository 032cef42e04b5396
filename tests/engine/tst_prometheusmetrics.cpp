// SPDX-License-Identifier: Apache-2.0
// The Prometheus exposition of `cooldown run --listen`: counters fed by attempts,
// cumulative histogram buckets, escaped label values, gauges from the scrape's state,
// the whole page accepted by Prometheus' own checker (promtool, from Debian's
// prometheus package; skipped with the reason when it is not installed), and the
// Grafana dashboard in resources/ asking only for series that exist.

#include "core/engine/PrometheusMetrics.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

using namespace cooldown;

namespace {

AttemptRecord attempt(const QString &endpoint, int status, Decision decision,
                      WaitSource waitSource = WaitSource::None, qint64 waitMs = -1,
                      const QString &reason = {})
{
    AttemptRecord a;
    a.endpointId = endpoint;
    a.status = status;
    a.decision = decision;
    a.waitSource = waitSource;
    a.waitMs = waitMs;
    a.reason = reason;
    return a;
}

// A page with something in every family.
QByteArray samplePage()
{
    PrometheusMetrics m;
    m.record(
        attempt(QStringLiteral("bom-sync"), 429, Decision::Retry, WaitSource::RetryAfter, 30'000));
    m.record(
        attempt(QStringLiteral("bom-sync"), 429, Decision::Retry, WaitSource::RetryAfter, 400));
    m.record(attempt(QStringLiteral("bom-sync"), 200, Decision::Success));
    m.record(attempt(QStringLiteral("cad"), 0, Decision::Retry, WaitSource::Backoff, 1500));
    m.record(attempt(QStringLiteral("cad"), 503, Decision::Fail, WaitSource::None, -1,
                     QStringLiteral("deadline \"exceeded\"\nagain")));
    AttemptRecord stale = attempt(QStringLiteral("cad"), 200, Decision::Success);
    stale.leaseConflict = true;
    m.record(stale);
    m.recordStoreWrite(0.002);
    ScrapeState state;
    state.operationsByState[OperationState::Waiting] = 3;
    state.operationsByState[OperationState::Succeeded] = 40;
    state.inFlight = 2;
    state.maxInFlight = 8;
    state.perHost = 6;
    state.heldPartitions = 1;
    state.heldEndpoints = 2;
    state.offlineSinceMs = 1'795'000'000'000;
    state.openIncidents = 1;
    state.blockedEndpoints = 10;
    state.latencyDegraded[QStringLiteral("cad")] = true;
    state.latencyDegraded[QStringLiteral("bom-sync")] = false;
    state.partitionsByPolicy[QStringLiteral("bom-v1")] = 2;
    state.availableUnitsByPolicy[QStringLiteral("bom-v1")] = 5;
    return m.render(state);
}

} // namespace

class tst_PrometheusMetrics : public QObject
{
    Q_OBJECT

private slots:
    void countersAndGauges();
    void histogramBucketsAreCumulative();
    void labelValuesAreEscaped();
    void promtoolAcceptsThePage();
    void grafanaDashboardAsksForMetricsThatExist();
};

void tst_PrometheusMetrics::countersAndGauges()
{
    const QByteArray page = samplePage();
    for (const char *line :
         {"# TYPE cooldown_attempts_total counter\n",
          "cooldown_attempts_total{endpoint=\"bom-sync\",status_class=\"4xx\",decision=\"retry\"} "
          "2\n",
          "cooldown_attempts_total{endpoint=\"bom-sync\",status_class=\"2xx\",decision=\"success\"}"
          " 1\n",
          "cooldown_attempts_total{endpoint=\"cad\",status_class=\"none\",decision=\"retry\"} 1\n",
          // An attempt that lost its lease went out, but decided nothing.
          "cooldown_attempts_total{endpoint=\"cad\",status_class=\"2xx\",decision=\"lease_"
          "conflict\"} 1\n",
          "cooldown_throttled_responses_total{endpoint=\"bom-sync\",code=\"429\"} 2\n",
          "cooldown_throttled_responses_total{endpoint=\"cad\",code=\"503\"} 1\n",
          "cooldown_operations{state=\"waiting\"} 3\n", "cooldown_operations{state=\"parked\"} 0\n",
          "cooldown_in_flight 2\n", "cooldown_offline 1\n", "cooldown_max_in_flight 8\n",
          "cooldown_per_host_limit 6\n", "cooldown_held_partitions 1\n",
          "cooldown_held_endpoints 2\n", "cooldown_incidents_open 1\n",
          "cooldown_blocked_endpoints 10\n",
          "cooldown_endpoint_latency_degraded{endpoint=\"cad\"} 1\n",
          "cooldown_endpoint_latency_degraded{endpoint=\"bom-sync\"} 0\n",
          "cooldown_policy_partitions{policy=\"bom-v1\"} 2\n",
          "cooldown_policy_available_units{policy=\"bom-v1\"} 5\n",
          "cooldown_store_write_seconds_count 1\n"})
        QVERIFY2(page.contains(line),
                 qPrintable(QString::fromUtf8(line) + QString::fromUtf8(page)));
    // Ended operations are not a gauge: their number only grows (the counters have them).
    QVERIFY(!page.contains("state=\"succeeded\""));
    // The lease conflict is not counted as a success of the operation.
    QVERIFY(!page.contains("decision=\"success\"} 2"));
}

void tst_PrometheusMetrics::histogramBucketsAreCumulative()
{
    const QByteArray page = samplePage();
    // Waits of 0.4 s and 30 s from Retry-After: one at or under 0.5, both at or under 30.
    for (const char *line : {"cooldown_wait_seconds_bucket{source=\"retry-after\",le=\"0.1\"} 0\n",
                             "cooldown_wait_seconds_bucket{source=\"retry-after\",le=\"0.5\"} 1\n",
                             "cooldown_wait_seconds_bucket{source=\"retry-after\",le=\"10\"} 1\n",
                             "cooldown_wait_seconds_bucket{source=\"retry-after\",le=\"30\"} 2\n",
                             "cooldown_wait_seconds_bucket{source=\"retry-after\",le=\"+Inf\"} 2\n",
                             "cooldown_wait_seconds_sum{source=\"retry-after\"} 30.4\n",
                             "cooldown_wait_seconds_count{source=\"retry-after\"} 2\n",
                             "cooldown_wait_seconds_bucket{source=\"backoff\",le=\"1\"} 0\n",
                             "cooldown_wait_seconds_bucket{source=\"backoff\",le=\"2\"} 1\n"})
        QVERIFY2(page.contains(line),
                 qPrintable(QString::fromUtf8(line) + QString::fromUtf8(page)));
}

void tst_PrometheusMetrics::labelValuesAreEscaped()
{
    const QByteArray page = samplePage();
    QVERIFY2(page.contains(
                 "cooldown_final_failures_total{reason=\"deadline \\\"exceeded\\\"\\nagain\"} 1\n"),
             page.constData());
    QCOMPARE(PrometheusMetrics::statusClass(0), QStringLiteral("none"));
    QCOMPARE(PrometheusMetrics::statusClass(503), QStringLiteral("5xx"));
}

void tst_PrometheusMetrics::promtoolAcceptsThePage()
{
    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    if (promtool.isEmpty())
        QSKIP("promtool is not installed (Debian's prometheus package; scripts/setup installs it)");
    QProcess p;
    p.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
    QVERIFY(p.waitForStarted());
    p.write(samplePage());
    p.closeWriteChannel();
    QVERIFY(p.waitForFinished(30000));
    const QByteArray said = p.readAllStandardOutput() + p.readAllStandardError();
    QVERIFY2(p.exitCode() == 0, said.constData());
    // promtool's lint findings (names, units, help texts) are printed even on success.
    QVERIFY2(said.trimmed().isEmpty(), said.constData());
}

// resources/grafana/cooldown-dashboard.json: every series its queries name is one the
// page has, so that renaming a metric cannot leave the dashboard blank unnoticed.
void tst_PrometheusMetrics::grafanaDashboardAsksForMetricsThatExist()
{
    QFile file(QStringLiteral(COOLDOWN_SOURCE_DIR "/resources/grafana/cooldown-dashboard.json"));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    QVERIFY2(!doc.isNull(), qPrintable(parseError.errorString()));
    QStringList queries;
    for (const QJsonValue panel : doc.object().value(QStringLiteral("panels")).toArray()) {
        for (const QJsonValue target : panel.toObject().value(QStringLiteral("targets")).toArray())
            queries.append(target.toObject().value(QStringLiteral("expr")).toString());
    }
    for (const QJsonValue variable : doc.object()
                                         .value(QStringLiteral("templating"))
                                         .toObject()
                                         .value(QStringLiteral("list"))
                                         .toArray())
        queries.append(variable.toObject().value(QStringLiteral("query")).toString());
    QVERIFY(queries.size() >= 10);

    const QByteArray page = samplePage();
    const QRegularExpression metric(QStringLiteral("cooldown_[a-z_]+"));
    int names = 0;
    for (const QString &query : std::as_const(queries)) {
        for (const QRegularExpressionMatch &m : metric.globalMatch(query)) {
            ++names;
            const QByteArray name = m.captured().toUtf8();
            QVERIFY2(page.contains('\n' + name + '{') || page.contains('\n' + name + ' '),
                     qPrintable(QStringLiteral("%1 in '%2'").arg(m.captured(), query)));
        }
    }
    QVERIFY(names >= queries.size() - 1); // the datasource variable names none
}

QTEST_GUILESS_MAIN(tst_PrometheusMetrics)
#include "tst_prometheusmetrics.moc"
