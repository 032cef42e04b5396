// SPDX-License-Identifier: Apache-2.0
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

// `cooldown explain` shows the rate-limit hints: the resolved wait and its source, the
// parsed RateLimit items, X-RateLimit values with the meaning used, and the problem.
class tst_CliRateLimit : public QObject
{
    Q_OBJECT

private:
    struct Result
    {
        int exitCode = -1;
        QByteArray err;
        QJsonObject json;
    };

    static Result explain(const QStringList &args)
    {
        QProcess p;
        p.start(
            QStringLiteral(COOLDOWN_BINARY),
            QStringList{QStringLiteral("explain"), QStringLiteral("--seed"), QStringLiteral("5")} +
                args);
        if (!p.waitForFinished(30000))
            qFatal("cooldown explain did not finish");
        Result r;
        r.exitCode = p.exitCode();
        r.err = p.readAllStandardError();
        r.json = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
        return r;
    }

    static QStringList headers(const QStringList &lines)
    {
        QStringList args;
        for (const QString &line : lines)
            args << QStringLiteral("--header") << line;
        return args;
    }

    QTemporaryDir m_dir;

    QString writeBody(const QString &name, const QByteArray &body)
    {
        QFile file(m_dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(body) != body.size())
            qFatal("cannot write a body file");
        return file.fileName();
    }

private slots:
    void rateLimitGivesTheWait();
    void contradictoryHints();
    void xRateLimit();
    void xRateLimitMeaning_data();
    void xRateLimitMeaning();
    void badMeaning();
    void quotaExceededBody();
    void abnormalUsageParks();
    void bodyThatIsNotJson();
};

void tst_CliRateLimit::rateLimitGivesTheWait()
{
    const Result r = explain(QStringList{QStringLiteral("--status"), QStringLiteral("429")} +
                             headers({QStringLiteral("RateLimit: \"default\";r=0;t=30")}));
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("retry"));
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), QStringLiteral("ratelimit"));
    const double delay = r.json.value(QStringLiteral("delay_seconds")).toDouble();
    QVERIFY2(delay >= 30 && delay <= 31, qPrintable(QString::number(delay)));
    const QJsonObject item = r.json.value(QStringLiteral("ratelimit"))
                                 .toObject()
                                 .value(QStringLiteral("limits"))
                                 .toArray()
                                 .at(0)
                                 .toObject();
    QCOMPARE(item.value(QStringLiteral("name")).toString(), QStringLiteral("default"));
    QCOMPARE(item.value(QStringLiteral("r")).toInt(-1), 0);
    QCOMPARE(item.value(QStringLiteral("t")).toInt(), 30);
}

void tst_CliRateLimit::contradictoryHints()
{
    const Result r = explain(QStringList{QStringLiteral("--status"), QStringLiteral("429")} +
                             headers({QStringLiteral("Retry-After: 10"),
                                      QStringLiteral("RateLimit: \"default\";r=0;t=60")}));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), QStringLiteral("retry-after"));
    const double delay = r.json.value(QStringLiteral("delay_seconds")).toDouble();
    QVERIFY2(delay >= 10 && delay <= 11, qPrintable(QString::number(delay)));
    const QJsonObject hints = r.json.value(QStringLiteral("hints")).toObject();
    const QJsonArray notes = hints.value(QStringLiteral("notes")).toArray();
    QCOMPARE(notes.size(), 1);
    QVERIFY(notes.at(0).toString().contains(QLatin1String("retry-after wins")));
    QCOMPARE(hints.value(QStringLiteral("candidates")).toArray().size(), 2);
}

void tst_CliRateLimit::xRateLimit()
{
    const Result r = explain(QStringList{QStringLiteral("--status"), QStringLiteral("429")} +
                             headers({QStringLiteral("X-RateLimit-Limit: 100"),
                                      QStringLiteral("X-RateLimit-Remaining: 0"),
                                      QStringLiteral("X-RateLimit-Reset: 20")}));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), QStringLiteral("x-ratelimit"));
    QVERIFY(r.json.value(QStringLiteral("delay_seconds")).toDouble() >= 20);
    const QJsonObject x = r.json.value(QStringLiteral("x_ratelimit")).toObject();
    QCOMPARE(x.value(QStringLiteral("limit")).toInt(), 100);
    QCOMPARE(x.value(QStringLiteral("reset_meaning")).toString(), QStringLiteral("delta"));
    QCOMPARE(x.value(QStringLiteral("configured_meaning")).toString(), QStringLiteral("auto"));
}

void tst_CliRateLimit::xRateLimitMeaning_data()
{
    QTest::addColumn<QString>("meaning");
    QTest::addColumn<QString>("reset");
    QTest::addColumn<QString>("source");
    QTest::addColumn<double>("minDelay");

    // --now pins the client's clock to 2026-11-29T12:00:00Z (1795953600).
    QTest::newRow("delta") << "delta"
                           << "20"
                           << "x-ratelimit" << 20.0;
    QTest::newRow("epoch") << "epoch"
                           << "1795953645"
                           << "x-ratelimit" << 45.0;
    QTest::newRow("epoch-ms") << "epoch-ms"
                              << "1795953607500"
                              << "x-ratelimit" << 7.5;
    QTest::newRow("http-date") << "http-date"
                               << "Sun, 29 Nov 2026 12:01:00 GMT"
                               << "x-ratelimit" << 60.0;
    QTest::newRow("auto epoch") << "auto"
                                << "1795953630"
                                << "x-ratelimit" << 30.0;
    // A delta read as an epoch is long past: a zero wait, and the record says why.
    QTest::newRow("epoch given a delta") << "epoch"
                                         << "20"
                                         << "x-ratelimit" << 0.0;
}

void tst_CliRateLimit::xRateLimitMeaning()
{
    QFETCH(QString, meaning);
    QFETCH(QString, reset);
    QFETCH(QString, source);
    QFETCH(double, minDelay);

    const Result r =
        explain(QStringList{QStringLiteral("--status"), QStringLiteral("429"),
                            QStringLiteral("--now"), QStringLiteral("2026-11-29T12:00:00Z"),
                            QStringLiteral("--x-ratelimit-reset"), meaning} +
                headers({QStringLiteral("X-RateLimit-Remaining: 0"),
                         QStringLiteral("X-RateLimit-Reset: ") + reset}));
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), source);
    const double delay = r.json.value(QStringLiteral("delay_seconds")).toDouble();
    QVERIFY2(delay >= minDelay && delay <= minDelay + 1, qPrintable(QString::number(delay)));
    const QJsonObject x = r.json.value(QStringLiteral("x_ratelimit")).toObject();
    QCOMPARE(x.value(QStringLiteral("configured_meaning")).toString(), meaning);
    QCOMPARE(x.value(QStringLiteral("reset_meaning")).toString(),
             meaning == QLatin1String("auto") ? QStringLiteral("epoch") : meaning);
}

void tst_CliRateLimit::badMeaning()
{
    const Result r = explain({QStringLiteral("--status"), QStringLiteral("429"),
                              QStringLiteral("--x-ratelimit-reset"), QStringLiteral("seconds")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.contains("--x-ratelimit-reset: expected auto, delta, epoch, epoch-ms or http-date, "
                       "got 'seconds'"),
        r.err.constData());
}

void tst_CliRateLimit::quotaExceededBody()
{
    QVERIFY(m_dir.isValid());
    const QString body = writeBody(QStringLiteral("quota.json"), R"({
        "type": "https://iana.org/assignments/http-problem-types#quota-exceeded",
        "title": "Quota exceeded", "status": 429, "violated-policies": ["minute"]})");
    const Result r = explain(QStringList{QStringLiteral("--status"), QStringLiteral("429"),
                                         QStringLiteral("--body-file"), body} +
                             headers({QStringLiteral("Content-Type: application/problem+json"),
                                      QStringLiteral("RateLimit-Policy: \"minute\";q=100;w=60")}));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), QStringLiteral("problem"));
    QVERIFY(r.json.value(QStringLiteral("delay_seconds")).toDouble() >= 60);
    const QJsonObject problem = r.json.value(QStringLiteral("problem")).toObject();
    QCOMPARE(problem.value(QStringLiteral("kind")).toString(), QStringLiteral("quota-exceeded"));
    QCOMPARE(problem.value(QStringLiteral("action")).toString(), QStringLiteral("wait_for_window"));
    QCOMPARE(problem.value(QStringLiteral("title")).toString(), QStringLiteral("Quota exceeded"));
}

void tst_CliRateLimit::abnormalUsageParks()
{
    QVERIFY(m_dir.isValid());
    const QString body = writeBody(QStringLiteral("abnormal.json"), R"({
        "type": "https://iana.org/assignments/http-problem-types#abnormal-usage-detected",
        "instance": "/incidents/77"})");
    const Result r = explain(QStringList{QStringLiteral("--status"), QStringLiteral("429"),
                                         QStringLiteral("--body-file"), body} +
                             headers({QStringLiteral("Content-Type: application/problem+json"),
                                      QStringLiteral("Retry-After: 5")}));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("park"));
    QCOMPARE(r.json.value(QStringLiteral("reason")).toString(), QStringLiteral("abnormal_usage"));
    const QJsonObject problem = r.json.value(QStringLiteral("problem")).toObject();
    QCOMPARE(problem.value(QStringLiteral("action")).toString(), QStringLiteral("park"));
    QCOMPARE(problem.value(QStringLiteral("instance")).toString(), QStringLiteral("/incidents/77"));
}

void tst_CliRateLimit::bodyThatIsNotJson()
{
    QVERIFY(m_dir.isValid());
    const QString body = writeBody(QStringLiteral("page.html"), "<html>slow down</html>");
    const Result r = explain(QStringList{QStringLiteral("--status"), QStringLiteral("503"),
                                         QStringLiteral("--body-file"), body} +
                             headers({QStringLiteral("Content-Type: application/problem+json")}));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("retry"));
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), QStringLiteral("backoff"));
    QVERIFY(r.json.value(QStringLiteral("problem")).toObject().contains(QStringLiteral("error")));
}

QTEST_GUILESS_MAIN(tst_CliRateLimit)
#include "tst_cli_ratelimit.moc"
