// SPDX-License-Identifier: Apache-2.0
// `cooldown run` against a real nginx that limits with limit_req, answers 429 with
// Retry-After: 1 (or, as nginx does by default, a 429 alone) and 200 otherwise
// (tests/e2e/nginx.conf.in, started by scripts/nginx from scripts/test). The store and
// nginx's own access log must tell the same story. nginx states no quota: a 429 with
// Retry-After holds the host for every operation to it, and the host's pace is
// measured from what nginx refused (MeasuredPace), so that the operations refused
// once do not all come back at once to be refused again.

#include "core/store/Store.h"
#include "support/ReadableEnums.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace cooldown;

namespace {

constexpr int kOperations = 40;
constexpr int kRunTimeoutMs = 120000;
// Attempt times are whole milliseconds from a wall clock (start) and a monotonic one
// (duration); their sum can be one millisecond off the instant it stands for.
constexpr qint64 kClockGrainMs = 1;

struct LogLine
{
    int status = 0;
    QString uri;
};

// "200:40 429:17", for comparing and printing counts by status.
QString describe(const std::map<int, qint64> &byStatus)
{
    QStringList parts;
    for (const auto &[status, count] : byStatus)
        parts.append(QStringLiteral("%1:%2").arg(status).arg(count));
    return parts.join(QLatin1Char(' '));
}

} // namespace

class tst_Nginx : public QObject
{
    Q_OBJECT

private:
    QString m_url;
    QString m_logPath;
    QTemporaryDir m_dir;

    // The lines of this run: every request URI carries the run's marker.
    QList<LogLine> logLinesOf(const QString &marker) const
    {
        QList<LogLine> lines;
        QFile file(m_logPath);
        if (!file.open(QIODevice::ReadOnly))
            return lines;
        while (!file.atEnd()) {
            const QString line = QString::fromUtf8(file.readLine()).trimmed();
            if (!line.contains(marker))
                continue;
            // $msec $status $request_method "$request_uri" $request_time
            const QStringList fields = line.split(QLatin1Char(' '));
            if (fields.size() < 4)
                continue;
            lines.append({fields.at(1).toInt(), fields.at(3)});
        }
        return lines;
    }

private slots:
    void initTestCase()
    {
        m_url = qEnvironmentVariable("COOLDOWN_TEST_NGINX_URL");
        m_logPath = qEnvironmentVariable("COOLDOWN_TEST_NGINX_LOG");
        if (m_url.isEmpty() || m_logPath.isEmpty())
            QSKIP("COOLDOWN_TEST_NGINX_URL / COOLDOWN_TEST_NGINX_LOG are not set: scripts/test "
                  "starts nginx with scripts/nginx and sets them");
        QVERIFY(m_dir.isValid());
        // It was started for us: not answering is a failure, not a skip.
        QNetworkAccessManager manager;
        QNetworkReply *reply = manager.get(QNetworkRequest(QUrl(m_url + QStringLiteral("/"))));
        QSignalSpy finished(reply, &QNetworkReply::finished);
        QVERIFY2(finished.wait(10000), "nginx did not answer within 10 s");
        QVERIFY2(reply->error() == QNetworkReply::NoError, qPrintable(reply->errorString()));
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
    }

    void neverEarlyAllSucceedAndLogMatchesStore_data();
    void neverEarlyAllSucceedAndLogMatchesStore();
};

void tst_Nginx::neverEarlyAllSucceedAndLogMatchesStore_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<bool>("retryAfter");
    QTest::newRow("429 with Retry-After: 1") << QStringLiteral("/limited/") << true;
    QTest::newRow("a bare 429") << QStringLiteral("/bare/") << false;
}

void tst_Nginx::neverEarlyAllSucceedAndLogMatchesStore()
{
    QFETCH(QString, path);
    QFETCH(bool, retryAfter);
    const QString marker =
        QStringLiteral("run-%1").arg(QRandomGenerator::global()->generate64(), 0, 16);
    QByteArray endpoints;
    for (int i = 0; i < kOperations; ++i) {
        const QString url =
            QStringLiteral("%1%2items?run=%3&op=%4").arg(m_url, path, marker).arg(i);
        endpoints += (i ? ",\n" : "") +
                     QStringLiteral(R"({"id": "get-%1", "url": "%2", "timeout_seconds": 10})")
                         .arg(i)
                         .arg(url)
                         .toUtf8();
    }
    // Throttles do not use up attempts: every operation must get through in the end.
    const QByteArray config = R"({"version": 1,
        "concurrency": {"max_in_flight": 8, "per_host": 6},
        "retry_profiles": {"default": {"max_attempts": 10, "base_seconds": 0.5, "cap_seconds": 4,
            "deadline_seconds": 300, "spread_seconds": 0.5, "throttle_counts_as_attempt": false}},
        "endpoints": [
)" + endpoints + "]}";
    const QString configPath = m_dir.filePath(marker + QStringLiteral(".json"));
    const QString dbPath = m_dir.filePath(marker + QStringLiteral(".db"));
    {
        QFile file(configPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(config);
    }

    QElapsedTimer wall;
    wall.start();
    QProcess run;
    run.start(QStringLiteral(COOLDOWN_BINARY),
              {QStringLiteral("run"), QStringLiteral("--config"), configPath,
               QStringLiteral("--db"), dbPath, QStringLiteral("--until-idle")});
    QVERIFY2(run.waitForStarted(10000), qPrintable(run.errorString()));
    if (!run.waitForFinished(kRunTimeoutMs)) {
        run.kill();
        run.waitForFinished();
        QFAIL("cooldown run did not go idle within 120 s");
    }
    const QByteArray out = run.readAllStandardOutput();
    const QByteArray err = run.readAllStandardError();
    QVERIFY2(run.exitStatus() == QProcess::NormalExit && run.exitCode() == 0,
             (out.right(2000) + err.right(2000)).constData());
    QVERIFY2(!err.contains("database"), err.constData());
    const qint64 elapsedMs = wall.elapsed();

    QString error;
    StoreOptions readOnly;
    readOnly.createIfMissing = false;
    auto store = Store::open(dbPath, &error, readOnly);
    QVERIFY2(store, qPrintable(error));

    // Every operation ended succeeded.
    const auto counts = store->countsByState();
    QCOMPARE(counts.value(OperationState::Succeeded), qint64(kOperations));
    QCOMPARE(store->operations({}).size(), kOperations);

    // The store's attempts and nginx's access-log lines are the same requests.
    const QList<AttemptRecord> attempts = store->attempts({});
    // nginx writes a line once its answer went out: allow it a moment.
    QTRY_VERIFY_WITH_TIMEOUT(logLinesOf(marker).size() >= attempts.size(), 5000);
    const QList<LogLine> lines = logLinesOf(marker);
    QCOMPARE(qint64(lines.size()), qint64(attempts.size()));
    std::map<int, qint64> storeByStatus;
    std::map<int, qint64> logByStatus;
    for (const AttemptRecord &a : attempts)
        ++storeByStatus[a.status];
    for (const LogLine &line : lines)
        ++logByStatus[line.status];
    QCOMPARE(describe(storeByStatus), describe(logByStatus));
    QCOMPARE(storeByStatus[200], qint64(kOperations));
    // The limiter must have engaged, or this test proves nothing about waiting.
    QVERIFY2(storeByStatus[429] > 0, "nginx never answered 429: the limit was not reached");

    // No request before the server's time: after each 429, the operation's next attempt
    // started no earlier than Retry-After (1 s) after the 429 arrived, when nginx said
    // so, nor before the wait the engine recorded.
    std::map<qint64, QList<AttemptRecord>> byOperation;
    for (const AttemptRecord &a : attempts)
        byOperation[a.operationId].append(a);
    qint64 checked = 0;
    qint64 earliestMarginMs = std::numeric_limits<qint64>::max();
    for (auto &[operationId, list] : byOperation) {
        std::sort(list.begin(), list.end(), [](const AttemptRecord &a, const AttemptRecord &b) {
            return a.attempt < b.attempt;
        });
        for (int i = 0; i + 1 < list.size(); ++i) {
            const AttemptRecord &previous = list.at(i);
            const AttemptRecord &next = list.at(i + 1);
            QCOMPARE(previous.status, 429);
            QCOMPARE(previous.decision, Decision::Retry);
            QCOMPARE(previous.retryAfterRaw, retryAfter ? QStringLiteral("1") : QString());
            QCOMPARE(previous.waitSource,
                     retryAfter ? WaitSource::RetryAfter : WaitSource::Backoff);
            const qint64 serverTime = previous.finishedAtMs + (retryAfter ? 1000 : 0);
            const qint64 promised = previous.finishedAtMs + previous.waitMs;
            QVERIFY2(
                next.startedAtMs + kClockGrainMs >= serverTime,
                qPrintable(
                    QStringLiteral("operation %1 attempt %2 started %3 ms before the server's time")
                        .arg(operationId)
                        .arg(next.attempt)
                        .arg(serverTime - next.startedAtMs)));
            QVERIFY2(next.startedAtMs + kClockGrainMs >= promised,
                     qPrintable(QStringLiteral(
                                    "operation %1 attempt %2 started %3 ms before its not_before")
                                    .arg(operationId)
                                    .arg(next.attempt)
                                    .arg(promised - next.startedAtMs)));
            earliestMarginMs = std::min(earliestMarginMs, next.startedAtMs - serverTime);
            ++checked;
        }
        QCOMPARE(list.last().status, 200);
    }
    QCOMPARE(checked, storeByStatus[429]);

    // nginx states no quota: the host's partition (the endpoints have no policy) learns
    // no quota but a pace, measured from what was refused.
    const QList<PartitionState> partitions =
        store->partitions(QDateTime::currentMSecsSinceEpoch()).value();
    QCOMPARE(partitions.size(), 1);
    const PartitionState &host = partitions.first();
    QVERIFY(host.isLearned());
    QCOMPARE(host.server.quota, 0); // nothing stated
    QVERIFY2(host.pace.intervalUs > 0 && host.learnedFrom.startsWith(QLatin1String("429 after")),
             qPrintable(host.learnedFrom));
    // A 429 with Retry-After holds the host for every operation to it: requests that
    // start inside another operation's hold are those already on their way when the
    // 429 arrived. A bare 429 holds nothing; each operation backs off on its own.
    if (retryAfter) {
        QVERIFY2(host.heldUntilMs > 0 && host.holdReason.startsWith(QLatin1String("429")),
                 qPrintable(host.holdReason));
    }
    int startedInsideAHold = 0;
    for (const AttemptRecord &a : attempts) {
        for (const AttemptRecord &throttled : attempts) {
            if (retryAfter && throttled.status == 429 &&
                a.startedAtMs > throttled.finishedAtMs + 5 &&
                a.startedAtMs + kClockGrainMs < throttled.finishedAtMs + 1000) {
                ++startedInsideAHold;
                break;
            }
        }
    }
    // At most what was already queued for the host's six connections (0 measured).
    QVERIFY2(startedInsideAHold <= 6, qPrintable(QString::number(startedInsideAHold)));
    // No herd: the refusals are those of the first burst, sent before nginx's first
    // 429 came back; after it, the operations go at the measured pace and at most one
    // in five is refused (before the pace was measured: 28 of 40). A measured pace
    // can be nginx's rate exactly, with no margin, and each refusal then slows it by
    // half: 0 or 1 are refused after the first on this machine idle or with four busy
    // loops beside it, 6 were once where everything ran several times slower.
    qint64 firstRefusalAt = std::numeric_limits<qint64>::max();
    for (const AttemptRecord &a : attempts) {
        if (a.status == 429)
            firstRefusalAt = std::min(firstRefusalAt, a.finishedAtMs);
    }
    qint64 refusedAfterTheFirst = 0;
    for (const AttemptRecord &a : attempts)
        refusedAfterTheFirst += a.status == 429 && a.startedAtMs > firstRefusalAt;
    if (refusedAfterTheFirst > kOperations / 5) {
        // What a reader needs to tell a herd from a slow machine: every attempt, in
        // the order sent, on the time of the first 429.
        QList<AttemptRecord> sent = attempts;
        std::sort(sent.begin(), sent.end(), [](const AttemptRecord &a, const AttemptRecord &b) {
            return a.startedAtMs < b.startedAtMs;
        });
        for (const AttemptRecord &a : std::as_const(sent))
            qInfo().noquote() << QStringLiteral("operation %1 attempt %2: sent %3 ms, answered %4 "
                                                "ms, %5, wait %6 ms")
                                     .arg(a.operationId)
                                     .arg(a.attempt)
                                     .arg(a.startedAtMs - firstRefusalAt)
                                     .arg(a.finishedAtMs - firstRefusalAt)
                                     .arg(a.status)
                                     .arg(a.waitMs);
        qInfo().noquote() << "pace learned:" << host.learnedFrom
                          << double(host.pace.intervalUs) / 1000.0 << "ms";
    }
    QVERIFY2(refusedAfterTheFirst <= kOperations / 5,
             qPrintable(QString::number(refusedAfterTheFirst)));
    qInfo().noquote()
        << QStringLiteral("nginx e2e: %1 operations, %2 attempts, %3 answered 429, %4 access-log "
                          "lines, smallest margin after the server's time %5 ms, %6 ms wall, "
                          "%7 requests started inside another's hold, %8 refused after the "
                          "first 429, pace %9 ms")
               .arg(kOperations)
               .arg(attempts.size())
               .arg(storeByStatus[429])
               .arg(lines.size())
               .arg(earliestMarginMs)
               .arg(elapsedMs)
               .arg(startedInsideAHold)
               .arg(refusedAfterTheFirst)
               .arg(double(host.pace.intervalUs) / 1000.0);
}

QTEST_GUILESS_MAIN(tst_Nginx)
#include "tst_nginx.moc"
