// SPDX-License-Identifier: Apache-2.0
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class tst_CliExplain : public QObject
{
    Q_OBJECT

private:
    struct Result
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
        QJsonObject json;
    };

    static Result explain(const QStringList &args)
    {
        QProcess p;
        p.start(QStringLiteral(COOLDOWN_BINARY), QStringList{QStringLiteral("explain")} + args);
        if (!p.waitForFinished(30000))
            qFatal("cooldown explain did not finish");
        Result r;
        r.exitCode = p.exitCode();
        r.out = p.readAllStandardOutput();
        r.err = p.readAllStandardError();
        r.json = QJsonDocument::fromJson(r.out).object();
        return r;
    }

private slots:
    void retryAfterSeconds();
    void retryAfterDateAgainstNow();
    void setOverridesProfile();
    void postWithoutKeyParks();
    void transportError();
    void unauthorizedWithAChallenge();
    void seedIsReproducible();
    void learnedFromAResponse();
    void badArguments_data();
    void badArguments();
    void help();
};

void tst_CliExplain::retryAfterSeconds()
{
    const Result r = explain({QStringLiteral("--status"), QStringLiteral("429"),
                              QStringLiteral("--header"), QStringLiteral("Retry-After: 120")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("retry"));
    QVERIFY(r.json.value(QStringLiteral("delay_seconds")).toDouble() >= 120);
    QVERIFY(r.json.value(QStringLiteral("delay_seconds")).toDouble() <= 121);
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), QStringLiteral("retry-after"));
    const QJsonObject ra = r.json.value(QStringLiteral("retry_after")).toObject();
    QCOMPARE(ra.value(QStringLiteral("raw")).toString(), QStringLiteral("120"));
    QCOMPARE(ra.value(QStringLiteral("form")).toString(), QStringLiteral("delta"));
    QCOMPARE(ra.value(QStringLiteral("seconds")).toDouble(), 120.0);
}

void tst_CliExplain::retryAfterDateAgainstNow()
{
    for (const QString &now :
         {QStringLiteral("Sun, 29 Nov 2026 12:00:00 GMT"), QStringLiteral("2026-11-29T12:00:00Z"),
          QStringLiteral("2026-11-29T13:00:00+01:00")}) {
        const Result r = explain({QStringLiteral("--status"), QStringLiteral("503"),
                                  QStringLiteral("--now"), now, QStringLiteral("--header"),
                                  QStringLiteral("Retry-After: Sunday, 29-Nov-26 12:10:00 GMT"),
                                  QStringLiteral("--set"), QStringLiteral("spread_seconds=0")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.json.value(QStringLiteral("delay_seconds")).toDouble(), 600.0);
        QCOMPARE(r.json.value(QStringLiteral("not_before")).toString(),
                 QStringLiteral("2026-11-29T12:10:00.000Z"));
        QCOMPARE(r.json.value(QStringLiteral("retry_after"))
                     .toObject()
                     .value(QStringLiteral("form"))
                     .toString(),
                 QStringLiteral("rfc850"));
    }
}

void tst_CliExplain::setOverridesProfile()
{
    const Result r =
        explain({QStringLiteral("--status"), QStringLiteral("429"), QStringLiteral("--header"),
                 QStringLiteral("Retry-After: 3600"), QStringLiteral("--set"),
                 QStringLiteral("max_retry_after_seconds=600")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("fail"));
    QCOMPARE(r.json.value(QStringLiteral("reason")).toString(),
             QStringLiteral("retry_after_too_long"));
    QCOMPARE(r.json.value(QStringLiteral("retry_after"))
                 .toObject()
                 .value(QStringLiteral("seconds"))
                 .toDouble(),
             3600.0);
}

void tst_CliExplain::postWithoutKeyParks()
{
    Result r = explain({QStringLiteral("--method"), QStringLiteral("post"),
                        QStringLiteral("--status"), QStringLiteral("503")});
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("park"));
    r = explain({QStringLiteral("--method"), QStringLiteral("POST"), QStringLiteral("--status"),
                 QStringLiteral("503"), QStringLiteral("--idempotency-key"),
                 QStringLiteral("k-1")});
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("retry"));
    QCOMPARE(r.json.value(QStringLiteral("source")).toString(), QStringLiteral("backoff"));
}

void tst_CliExplain::transportError()
{
    const Result r = explain({QStringLiteral("--method"), QStringLiteral("POST"),
                              QStringLiteral("--error"), QStringLiteral("timeout")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("park"));
    QCOMPARE(r.json.value(QStringLiteral("reason")).toString(), QStringLiteral("ambiguous_send"));
}

void tst_CliExplain::unauthorizedWithAChallenge()
{
    Result r =
        explain({QStringLiteral("--status"), QStringLiteral("401"), QStringLiteral("--header"),
                 QStringLiteral(R"(WWW-Authenticate: Bearer realm="api", error="invalid_token", )"
                                R"(error_description="The access token expired")")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("fail"));
    QJsonObject auth = r.json.value(QStringLiteral("authentication")).toObject();
    const QJsonObject challenge =
        auth.value(QStringLiteral("challenges")).toArray().first().toObject();
    QCOMPARE(challenge.value(QStringLiteral("scheme")).toString(), QStringLiteral("Bearer"));
    QCOMPARE(challenge.value(QStringLiteral("error_description")).toString(),
             QStringLiteral("The access token expired"));
    QVERIFY(auth.value(QStringLiteral("with_oauth2_credentials"))
                .toString()
                .startsWith(QLatin1String("renew: the token is dropped")));
    // Without invalid_token, the engine renews only a token that was stale.
    r = explain({QStringLiteral("--status"), QStringLiteral("401"), QStringLiteral("--header"),
                 QStringLiteral("WWW-Authenticate: Bearer")});
    auth = r.json.value(QStringLiteral("authentication")).toObject();
    QVERIFY(auth.value(QStringLiteral("with_oauth2_credentials"))
                .toString()
                .startsWith(QLatin1String("renew only when")));
    // Other statuses say nothing of it.
    r = explain({QStringLiteral("--status"), QStringLiteral("403")});
    QVERIFY(!r.json.contains(QStringLiteral("authentication")));
}

void tst_CliExplain::seedIsReproducible()
{
    const QStringList args = {QStringLiteral("--status"),  QStringLiteral("500"),
                              QStringLiteral("--attempt"), QStringLiteral("4"),
                              QStringLiteral("--seed"),    QStringLiteral("12345"),
                              QStringLiteral("--now"),     QStringLiteral("2026-11-29T12:00:00Z")};
    const Result a = explain(args);
    const Result b = explain(args);
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(a.out, b.out);
    const double delay = a.json.value(QStringLiteral("delay_seconds")).toDouble();
    QVERIFY(delay >= 0 && delay <= 8);
}

void tst_CliExplain::learnedFromAResponse()
{
    // What express-rate-limit sends in its draft-7 mode: the quota and the window.
    const Result r =
        explain({QStringLiteral("--status"), QStringLiteral("200"), QStringLiteral("--header"),
                 QStringLiteral("RateLimit-Policy: 5;w=10"), QStringLiteral("--header"),
                 QStringLiteral("RateLimit: limit=5, remaining=4, reset=7"),
                 QStringLiteral("--url"), QStringLiteral("https://api.example.com/v1/x"),
                 QStringLiteral("--now"), QStringLiteral("2026-12-01T00:00:00Z")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json.value(QStringLiteral("action")).toString(), QStringLiteral("success"));
    const QJsonObject learned = r.json.value(QStringLiteral("learned")).toObject();
    QCOMPARE(learned.value(QStringLiteral("format")).toString(), QStringLiteral("draft-7"));
    QCOMPARE(learned.value(QStringLiteral("bucket")).toString(),
             QStringLiteral("learned:api.example.com"));
    QCOMPARE(learned.value(QStringLiteral("quota")).toInt(), 5);
    QCOMPARE(learned.value(QStringLiteral("window_seconds")).toDouble(), 10.0);
    QCOMPARE(learned.value(QStringLiteral("remaining")).toInt(), 4);
    // Ten windows, at least a minute, after the statement.
    QCOMPARE(learned.value(QStringLiteral("forgotten_at")).toString(),
             QStringLiteral("2026-12-01T00:01:40.000Z"));

    // A 429 that states no quota: the host's pace is measured from it.
    const Result none = explain({QStringLiteral("--status"), QStringLiteral("429"),
                                 QStringLiteral("--header"), QStringLiteral("Retry-After: 3"),
                                 QStringLiteral("--url"), QStringLiteral("http://nginx.test/x")});
    QCOMPARE(none.exitCode, 0);
    const QJsonObject measured = none.json.value(QStringLiteral("learned")).toObject();
    QCOMPARE(measured.value(QStringLiteral("bucket")).toString(),
             QStringLiteral("learned:nginx.test"));
    QVERIFY(measured.value(QStringLiteral("note"))
                .toString()
                .contains(QLatin1String("measured from the answers accepted before this 429")));
    QVERIFY(!measured.contains(QStringLiteral("quota")));
    // An answer that states nothing and refuses nothing teaches nothing.
    const Result quiet = explain({QStringLiteral("--status"), QStringLiteral("200")});
    QCOMPARE(quiet.exitCode, 0);
    QVERIFY(!quiet.json.contains(QStringLiteral("learned")));
}

void tst_CliExplain::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");

    QTest::newRow("no status") << QStringList{} << "exactly one of --status or --error";
    QTest::newRow("both") << QStringList{"--status", "200", "--error", "dns"} << "exactly one";
    QTest::newRow("status text") << QStringList{"--status", "abc"}
                                 << "--status: expected a number from 100 to 599";
    QTest::newRow("status range") << QStringList{"--status", "600"} << "--status";
    QTest::newRow("error kind") << QStringList{"--error", "boom"} << "--error: expected refused";
    QTest::newRow("header shape") << QStringList{"--status", "429", "--header", "Retry-After 5"}
                                  << "--header";
    QTest::newRow("now") << QStringList{"--status", "429", "--now", "tomorrow"} << "--now";
    QTest::newRow("set unknown") << QStringList{"--status", "429", "--set", "nope=1"}
                                 << "unknown retry profile field";
    QTest::newRow("set bad value")
        << QStringList{"--status", "429", "--set", "jitter=wild"} << "jitter: expected one of";
    QTest::newRow("attempt") << QStringList{"--status", "429", "--attempt", "0"} << "--attempt";
    QTest::newRow("elapsed") << QStringList{"--status", "429", "--elapsed", "-3"} << "--elapsed";
    QTest::newRow("unknown option") << QStringList{"--status", "429", "--colour"} << "colour";
    QTest::newRow("stray argument")
        << QStringList{"--status", "429", "extra"} << "unexpected argument 'extra'";
    QTest::newRow("method") << QStringList{"--method", "GE T", "--status", "200"} << "--method";
    QTest::newRow("body file") << QStringList{"--status", "429", "--body-file", "/nonexistent/body"}
                               << "--body-file";
    QTest::newRow("url") << QStringList{"--status", "200", "--url", "no host"}
                         << "--url: expected an absolute URL";
}

void tst_CliExplain::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);

    const Result r = explain(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.startsWith(QStringLiteral("cooldown explain: ")), qPrintable(err));
    QVERIFY2(err.contains(message), qPrintable(err));
    QCOMPARE(err.count(QLatin1Char('\n')), 1); // one line
}

void tst_CliExplain::help()
{
    const Result r = explain({QStringLiteral("--help")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("--status"));
    QVERIFY(r.out.contains("--set"));
}

QTEST_GUILESS_MAIN(tst_CliExplain)
#include "tst_cli_explain.moc"
