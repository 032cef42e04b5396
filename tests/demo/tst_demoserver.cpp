// SPDX-License-Identifier: Apache-2.0
#include "app/demo/DemoBehaviour.h"
#include "app/demo/DemoServer.h"
#include "app/demo/IdempotencyLedger.h"
#include "core/http/HttpDate.h"
#include "core/http/RetryAfter.h"
#include "core/time/Clock.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>
#include <QUrlQuery>

#include <memory>

#include <csignal>

using namespace cooldown;

namespace {

qint64 utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0, int ms = 0)
{
    return QDateTime(QDate(y, mo, d), QTime(h, mi, s, ms), Qt::UTC).toMSecsSinceEpoch();
}

// 6.7 s before the 10-second window that starts at 12:00:10 (a Sunday).
const qint64 kStart = utc(2026, 11, 29, 12, 0, 3, 300);
constexpr int kWaitMs = 5000;

struct Response
{
    int status = 0;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;

    std::optional<QByteArray> header(const QByteArray &name) const
    {
        for (const auto &[fieldName, value] : headers) {
            if (fieldName.compare(name, Qt::CaseInsensitive) == 0)
                return value;
        }
        return std::nullopt;
    }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

} // namespace

class tst_DemoServer : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();

    void listensOnLoopbackOnly();
    void refusesABusyPort();
    void fixedWindowRetryAfter_data();
    void fixedWindowRetryAfter();
    void fixedWindowOpensAgain();
    void tokenBucket();
    void rateLimitHeaders();
    void xRateLimitReset_data();
    void xRateLimitReset();
    void problemDetails_data();
    void problemDetails();
    void limitsArePerKey();
    void maintenanceWindow();
    void globalMaintenance();
    void flakyFailsFirstRequestsPerKey();
    void flakyPatternIsSeeded();
    void slowResponse();
    void hungConnectionNeverAnswers();
    void ledgerReplaysSameRequest();
    void ledgerAcceptsQuotedAndBareKeys();
    void ledgerRefusesOtherPayload();
    void ledgerRefusesKeyInFlight();
    void ledgerRequiresKey();
    void ledgerRefusesMalformedKey();
    void failedRequestLeavesKeyFree();
    void payloadRunsAfterClientLeft();
    void droppedAnswerIsExecutedOnce();
    void statsOverHttp();
    void resetOverHttp();
    void badInputIsNamed_data();
    void badInputIsNamed();
    void parseIdempotencyKey_data();
    void parseIdempotencyKey();
    void behaviourOverlaysRouteDefaults();
    void maintenanceEnd_data();
    void maintenanceEnd();

    void demoWorkspaceMatchesRoutes_data();
    void demoWorkspaceMatchesRoutes();

    void cliStartsAndStopsOnSignal_data();
    void cliStartsAndStopsOnSignal();
    void cliRefusesBadPort();

private:
    Response send(const QString &pathAndQuery, const QByteArray &method = "GET",
                  const QByteArray &body = {},
                  const QList<QPair<QByteArray, QByteArray>> &headers = {},
                  int transferTimeoutMs = kWaitMs);
    QNetworkReply *start(const QString &pathAndQuery, const QByteArray &method,
                         const QByteArray &body,
                         const QList<QPair<QByteArray, QByteArray>> &headers,
                         int transferTimeoutMs = kWaitMs);
    static Response collect(QNetworkReply *reply);
    QUrl url(const QString &pathAndQuery) const;

    std::unique_ptr<ManualClock> m_clock;
    std::unique_ptr<DemoServer> m_server;
    std::unique_ptr<QNetworkAccessManager> m_network;
};

void tst_DemoServer::init()
{
    m_clock = std::make_unique<ManualClock>(kStart);
    m_server = std::make_unique<DemoServer>(*m_clock);
    QVERIFY2(m_server->listen(), qPrintable(m_server->errorString()));
    m_network = std::make_unique<QNetworkAccessManager>();
}

void tst_DemoServer::cleanup()
{
    m_network.reset();
    m_server.reset();
    m_clock.reset();
}

QUrl tst_DemoServer::url(const QString &pathAndQuery) const
{
    return QUrl(m_server->baseUrl().toString() + pathAndQuery);
}

QNetworkReply *tst_DemoServer::start(const QString &pathAndQuery, const QByteArray &method,
                                     const QByteArray &body,
                                     const QList<QPair<QByteArray, QByteArray>> &headers,
                                     int transferTimeoutMs)
{
    QNetworkRequest request(url(pathAndQuery));
    request.setTransferTimeout(transferTimeoutMs);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader,
                          QByteArrayLiteral("application/json"));
    return m_network->sendCustomRequest(request, method, body);
}

Response tst_DemoServer::collect(QNetworkReply *reply)
{
    std::unique_ptr<QNetworkReply> owner(reply);
    if (!reply->isFinished()) {
        QSignalSpy finished(reply, &QNetworkReply::finished);
        if (!finished.wait(kWaitMs * 2))
            return {};
    }
    Response response;
    response.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    response.error = reply->error();
    if (reply->isOpen())
        response.body = reply->readAll();
    response.headers = reply->rawHeaderPairs();
    return response;
}

Response tst_DemoServer::send(const QString &pathAndQuery, const QByteArray &method,
                              const QByteArray &body,
                              const QList<QPair<QByteArray, QByteArray>> &headers,
                              int transferTimeoutMs)
{
    return collect(start(pathAndQuery, method, body, headers, transferTimeoutMs));
}

void tst_DemoServer::listensOnLoopbackOnly()
{
    QVERIFY(m_server->isListening());
    QVERIFY(m_server->port() != 0);
    QCOMPARE(m_server->baseUrl(),
             QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server->port())));
    QVERIFY(!m_server->listen());
    QVERIFY(m_server->errorString().contains(QLatin1String("already listening")));

    const Response health = send(QStringLiteral("/_health"));
    QCOMPARE(health.status, 200);
    // The Date field comes from the server's clock, which the test drives.
    QCOMPARE(health.header("Date"), HttpDate::format(kStart));

    m_server->close();
    QVERIFY(!m_server->isListening());
    QCOMPARE(m_server->port(), quint16(0));
    QVERIFY(m_server->listen());
    QCOMPARE(send(QStringLiteral("/ok")).status, 200);
}

void tst_DemoServer::refusesABusyPort()
{
    DemoServer other(*m_clock);
    QVERIFY(!other.listen(m_server->port()));
    QVERIFY2(other.errorString().contains(QString::number(m_server->port())),
             qPrintable(other.errorString()));
    QVERIFY(!other.isListening());
}

void tst_DemoServer::fixedWindowRetryAfter_data()
{
    QTest::addColumn<QString>("form");
    QTest::addColumn<QByteArray>("expected"); // empty: no Retry-After at all
    QTest::addColumn<QString>("parsedForm");

    QTest::newRow("seconds") << "seconds" << QByteArray("7") << "delta";
    QTest::newRow("imf-fixdate") << "date" << QByteArray("Sun, 29 Nov 2026 12:00:10 GMT")
                                 << "imf-fixdate";
    QTest::newRow("rfc850") << "rfc850" << QByteArray("Sunday, 29-Nov-26 12:00:10 GMT") << "rfc850";
    QTest::newRow("asctime") << "asctime" << QByteArray("Sun Nov 29 12:00:10 2026") << "asctime";
    QTest::newRow("none") << "none" << QByteArray() << "absent";
    QTest::newRow("malformed") << "malformed" << QByteArray("soon") << "invalid";
}

void tst_DemoServer::fixedWindowRetryAfter()
{
    QFETCH(QString, form);
    QFETCH(QByteArray, expected);
    QFETCH(QString, parsedForm);

    const QString path = QStringLiteral("/limited/fixed?limit=3&window=10&retry_after=") + form;
    for (int i = 0; i < 3; ++i) {
        const Response ok = send(path);
        QCOMPARE(ok.status, 200);
        QVERIFY(!ok.header("Retry-After"));
    }
    const Response refused = send(path);
    QCOMPARE(refused.status, 429);
    QCOMPARE(refused.header("Retry-After").value_or(QByteArray()), expected);
    QCOMPARE(refused.header("Retry-After").has_value(), !expected.isEmpty());

    // What the engine's own parser makes of it: the wait ends at the window's end.
    const RetryAfter parsed =
        RetryAfter::parse(refused.header("Retry-After"), kStart, refused.header("Date"));
    QCOMPARE(QLatin1String(textOf(parsed.form)), parsedForm);
    if (parsed.isValid())
        QVERIFY2(parsed.waitMs >= 6700 && parsed.waitMs <= 7000,
                 qPrintable(QString::number(parsed.waitMs)));
}

void tst_DemoServer::fixedWindowOpensAgain()
{
    const QString path = QStringLiteral("/limited/fixed?limit=2&window=10");
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 429);
    m_clock->advance(6699);
    QCOMPARE(send(path).status, 429);
    m_clock->advance(1); // 12:00:10.000, a new window
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 429);
    QCOMPARE(m_server->stats().responsesByStatus.value(429), 3);
    QCOMPARE(m_server->stats().responsesByStatus.value(200), 4);
    // Refused requests did not run the payload.
    QCOMPARE(m_server->stats().totalExecuted, 4);
}

void tst_DemoServer::tokenBucket()
{
    const QString path = QStringLiteral("/limited/bucket?capacity=2&rate=0.5");
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 200);
    Response refused = send(path);
    QCOMPARE(refused.status, 429);
    QCOMPARE(refused.header("Retry-After"), QByteArray("2")); // one token at 0.5/s
    m_clock->advance(1000);
    refused = send(path);
    QCOMPARE(refused.status, 429);
    QCOMPARE(refused.header("Retry-After"), QByteArray("1"));
    m_clock->advance(1000);
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 429);
    // A full bucket holds no more than its capacity.
    m_clock->advance(60'000);
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 429);
}

void tst_DemoServer::rateLimitHeaders()
{
    const QString path = QStringLiteral("/limited/ratelimit?limit=2&policy=burst");
    const Response first = send(path);
    QCOMPARE(first.status, 200);
    QCOMPARE(first.header("RateLimit-Policy"), QByteArray("\"burst\";q=2;w=10"));
    QCOMPARE(first.header("RateLimit"), QByteArray("\"burst\";r=1;t=7"));
    QVERIFY(!first.header("X-RateLimit-Limit"));

    QCOMPARE(send(path).header("RateLimit"), QByteArray("\"burst\";r=0;t=7"));
    const Response refused = send(path);
    QCOMPARE(refused.status, 429);
    QVERIFY(!refused.header("Retry-After"));
    QCOMPARE(refused.header("RateLimit"), QByteArray("\"burst\";r=0;t=7"));
    QCOMPARE(refused.json().value(QStringLiteral("violated-policies")).toArray(),
             QJsonArray{QStringLiteral("burst")});
}

void tst_DemoServer::xRateLimitReset_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<QByteArray>("reset");

    const QByteArray epoch = QByteArray::number(utc(2026, 11, 29, 12, 0, 10) / 1000);
    QTest::newRow("epoch by default") << QString() << epoch;
    QTest::newRow("epoch") << QStringLiteral("&x_reset=epoch") << epoch;
    QTest::newRow("delta") << QStringLiteral("&x_reset=delta") << QByteArray("7");
}

void tst_DemoServer::xRateLimitReset()
{
    QFETCH(QString, query);
    QFETCH(QByteArray, reset);

    const Response response = send(QStringLiteral("/limited/fixed?limit=5&headers=x") + query);
    QCOMPARE(response.status, 200);
    QCOMPARE(response.header("X-RateLimit-Limit"), QByteArray("5"));
    QCOMPARE(response.header("X-RateLimit-Remaining"), QByteArray("4"));
    QCOMPARE(response.header("X-RateLimit-Reset"), reset);
    QVERIFY(!response.header("RateLimit"));
}

void tst_DemoServer::problemDetails_data()
{
    QTest::addColumn<QString>("problem");
    QTest::addColumn<QString>("titleStart");

    QTest::newRow("quota-exceeded") << "quota-exceeded"
                                    << "Request cannot be satisfied as assigned";
    QTest::newRow("temporary-reduced-capacity") << "temporary-reduced-capacity"
                                                << "Request cannot be satisfied due to temporary";
    QTest::newRow("abnormal-usage-detected") << "abnormal-usage-detected"
                                             << "Request not satisfied due to detection";
    QTest::newRow("none") << "none" << QString();
}

void tst_DemoServer::problemDetails()
{
    QFETCH(QString, problem);
    QFETCH(QString, titleStart);

    const QString path = QStringLiteral("/limited/fixed?limit=0&problem=") + problem;
    const Response refused = send(path);
    QCOMPARE(refused.status, 429);
    if (titleStart.isEmpty()) {
        QCOMPARE(refused.header("Content-Type"), QByteArray("text/plain"));
        return;
    }
    QCOMPARE(refused.header("Content-Type"), QByteArray("application/problem+json"));
    const QJsonObject body = refused.json();
    QCOMPARE(body.value(QStringLiteral("type")).toString(),
             QStringLiteral("https://iana.org/assignments/http-problem-types#") + problem);
    QVERIFY(body.value(QStringLiteral("title")).toString().startsWith(titleStart));
    QCOMPARE(body.value(QStringLiteral("status")).toInt(), 429);
    QCOMPARE(body.value(QStringLiteral("instance")).toString(),
             QStringLiteral("/requests/") + QString::fromLatin1(*refused.header("X-Request-Id")));
    QCOMPARE(body.value(QStringLiteral("violated-policies")).toArray(),
             QJsonArray{QStringLiteral("default")});
    QVERIFY(body.value(QStringLiteral("detail")).toString().contains(QLatin1String("anonymous")));
}

void tst_DemoServer::limitsArePerKey()
{
    QCOMPARE(send(QStringLiteral("/limited/fixed?limit=1&key=a")).status, 200);
    QCOMPARE(send(QStringLiteral("/limited/fixed?limit=1&key=a")).status, 429);
    QCOMPARE(send(QStringLiteral("/limited/fixed?limit=1&key=b")).status, 200);
    // ... and per route.
    QCOMPARE(send(QStringLiteral("/api/other?limit=1&key=a")).status, 200);
    const DemoStats stats = m_server->stats();
    QCOMPARE(stats.requestsByKey.value(QStringLiteral("a")), 3);
    QCOMPARE(stats.requestsByKey.value(QStringLiteral("b")), 1);
    QCOMPARE(stats.executedByKey.value(QStringLiteral("a")), 2);
    QCOMPARE(stats.requestsByPath.value(QStringLiteral("/limited/fixed")), 3);
    QCOMPARE(stats.totalRequests, 4);
}

void tst_DemoServer::maintenanceWindow()
{
    const QString path = QStringLiteral("/maintenance?maintenance_for=30");
    const Response down = send(path);
    QCOMPARE(down.status, 503);
    QCOMPARE(down.header("Retry-After"), HttpDate::format(utc(2026, 11, 29, 12, 0, 34)));
    QCOMPARE(down.header("Content-Type"), QByteArray("application/problem+json"));
    QCOMPARE(down.json().value(QStringLiteral("status")).toInt(), 503);

    m_clock->advance(29'999);
    QCOMPARE(send(path).status, 503);
    m_clock->advance(1);
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 200);

    const Response seconds =
        send(QStringLiteral("/maintenance?maintenance_for=30&retry_after=seconds&key=other"));
    QCOMPARE(seconds.status, 503);
    QCOMPARE(seconds.header("Retry-After"), QByteArray("30"));

    const qint64 until = (kStart + 90'000) / 1000;
    const Response absolute =
        send(QStringLiteral("/ok?maintenance_until=%1&retry_after=seconds").arg(until));
    QCOMPARE(absolute.status, 503);
    QCOMPARE(absolute.header("Retry-After"), QByteArray("60")); // 59.7 s, rounded up
}

void tst_DemoServer::globalMaintenance()
{
    const Response set = send(QStringLiteral("/_maintenance?for=10"), "POST");
    QCOMPARE(set.status, 200);
    const Response down = send(QStringLiteral("/ok"));
    QCOMPARE(down.status, 503);
    QCOMPARE(down.header("Retry-After"), QByteArray("10"));
    QCOMPARE(send(QStringLiteral("/_maintenance"), "DELETE").status, 200);
    QCOMPARE(send(QStringLiteral("/ok")).status, 200);

    m_server->setMaintenanceUntil(kStart + 5000);
    QCOMPARE(send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", "\"k\""}}).status,
             503);
    m_clock->advance(5000);
    QCOMPARE(send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", "\"k\""}}).status,
             201);
    QCOMPARE(send(QStringLiteral("/_maintenance?for=x"), "POST").status, 400);
    QCOMPARE(send(QStringLiteral("/_maintenance"), "POST").status, 400);
}

void tst_DemoServer::flakyFailsFirstRequestsPerKey()
{
    const QString path = QStringLiteral("/flaky?fail_first=2&fail_status=504");
    QCOMPARE(send(path).status, 504);
    QCOMPARE(send(path).status, 504);
    QCOMPARE(send(path).status, 200);
    QCOMPARE(send(path).status, 200);

    // With an Idempotency-Key, every operation sees its own first failures.
    for (const char *key : {"\"op-1\"", "\"op-2\""}) {
        const QList<QPair<QByteArray, QByteArray>> headers = {{"Idempotency-Key", key}};
        QCOMPARE(send(path, "POST", "{\"n\":1}", headers).status, 504);
        QCOMPARE(send(path, "POST", "{\"n\":1}", headers).status, 504);
        QCOMPARE(send(path, "POST", "{\"n\":1}", headers).status, 201);
    }
    const DemoStats stats = m_server->stats();
    QCOMPARE(stats.executedByIdempotencyKey.value(QStringLiteral("op-1")), 1);
    QCOMPARE(stats.executedByIdempotencyKey.value(QStringLiteral("op-2")), 1);
    QCOMPARE(stats.responsesByStatus.value(504), 6);

    // The route's defaults: two 502s.
    QCOMPARE(send(QStringLiteral("/flaky?key=fresh")).status, 502);
    QCOMPARE(send(QStringLiteral("/flaky?key=fresh")).status, 502);
    QCOMPARE(send(QStringLiteral("/flaky?key=fresh")).status, 200);
}

void tst_DemoServer::flakyPatternIsSeeded()
{
    const auto pattern = [this](quint64 seed) {
        m_server->reset();
        QString outcome;
        for (int i = 0; i < 40; ++i) {
            const int status =
                send(QStringLiteral("/api/x?fail_rate=0.5&fail_status=500&seed=%1").arg(seed))
                    .status;
            outcome += status == 500   ? QLatin1Char('x')
                       : status == 200 ? QLatin1Char('.')
                                       : QLatin1Char('?');
        }
        return outcome;
    };
    const QString first = pattern(7);
    QVERIFY(!first.contains(QLatin1Char('?')));
    QCOMPARE(pattern(7), first);
    QVERIFY(pattern(8) != first);
    const qsizetype failures = first.count(QLatin1Char('x'));
    QVERIFY2(failures > 5 && failures < 35, qPrintable(first));
}

void tst_DemoServer::slowResponse()
{
    QElapsedTimer elapsed;
    elapsed.start();
    const Response slow = send(QStringLiteral("/slow?delay_ms=150"));
    QCOMPARE(slow.status, 200);
    QVERIFY2(elapsed.elapsed() >= 140, qPrintable(QString::number(elapsed.elapsed())));
}

void tst_DemoServer::hungConnectionNeverAnswers()
{
    QSignalSpy received(m_server.get(), &DemoServer::requestReceived);
    QNetworkReply *reply = start(QStringLiteral("/hang"), "GET", {}, {}, 400);
    QVERIFY(received.wait(kWaitMs));
    QTRY_COMPARE_WITH_TIMEOUT(m_server->stats().hungConnections, 1, kWaitMs);
    const Response response = collect(reply);
    // Only the client's own transfer timeout ends it.
    QCOMPARE(response.error, QNetworkReply::OperationCanceledError);
    QCOMPARE(response.status, 0);
    QTRY_COMPARE_WITH_TIMEOUT(m_server->stats().hungConnections, 0, kWaitMs);
    QCOMPARE(m_server->stats().totalExecuted, 0);
    QCOMPARE(m_server->stats().responsesByStatus.size(), 0);
}

void tst_DemoServer::ledgerReplaysSameRequest()
{
    const QList<QPair<QByteArray, QByteArray>> key = {{"Idempotency-Key", "\"upload-1\""}};
    const Response first = send(QStringLiteral("/uploads"), "POST", "{\"part\":1}", key);
    QCOMPARE(first.status, 201);
    QVERIFY(!first.header("Idempotent-Replayed"));
    QCOMPARE(first.json().value(QStringLiteral("execution")).toInt(), 1);

    const Response again = send(QStringLiteral("/uploads"), "POST", "{\"part\":1}", key);
    QCOMPARE(again.status, 201);
    QCOMPARE(again.body, first.body);
    QCOMPARE(again.header("Idempotent-Replayed"), QByteArray("true"));
    QVERIFY(again.header("X-Request-Id") != first.header("X-Request-Id"));

    const DemoStats stats = m_server->stats();
    QCOMPARE(stats.requestsByIdempotencyKey.value(QStringLiteral("upload-1")), 2);
    QCOMPARE(stats.executedByIdempotencyKey.value(QStringLiteral("upload-1")), 1);
    QCOMPARE(stats.replayed, 1);
    QCOMPARE(stats.totalExecuted, 1);
}

void tst_DemoServer::ledgerAcceptsQuotedAndBareKeys()
{
    QCOMPARE(
        send(QStringLiteral("/uploads"), "PATCH", "a", {{"Idempotency-Key", "\"k-7\""}}).status,
        200);
    const Response bare =
        send(QStringLiteral("/uploads"), "PATCH", "a", {{"Idempotency-Key", "k-7"}});
    QCOMPARE(bare.status, 200);
    QCOMPARE(bare.header("Idempotent-Replayed"), QByteArray("true"));
    QCOMPARE(m_server->stats().executedByIdempotencyKey.value(QStringLiteral("k-7")), 1);
}

void tst_DemoServer::ledgerRefusesOtherPayload()
{
    const QList<QPair<QByteArray, QByteArray>> key = {{"Idempotency-Key", "\"upload-2\""}};
    QCOMPARE(send(QStringLiteral("/uploads"), "POST", "{\"part\":1}", key).status, 201);
    const Response other = send(QStringLiteral("/uploads"), "POST", "{\"part\":2}", key);
    QCOMPARE(other.status, 422);
    QCOMPARE(other.header("Content-Type"), QByteArray("application/problem+json"));
    QVERIFY(other.json()
                .value(QStringLiteral("detail"))
                .toString()
                .contains(QLatin1String("upload-2")));
    QCOMPARE(m_server->stats().executedByIdempotencyKey.value(QStringLiteral("upload-2")), 1);
}

void tst_DemoServer::ledgerRefusesKeyInFlight()
{
    const QList<QPair<QByteArray, QByteArray>> key = {{"Idempotency-Key", "\"upload-3\""}};
    QSignalSpy received(m_server.get(), &DemoServer::requestReceived);
    QNetworkReply *slow = start(QStringLiteral("/uploads?delay_ms=400"), "POST", "{}", key);
    QVERIFY(received.wait(kWaitMs));
    QCOMPARE(m_server->stats().inFlight, 1);

    const Response second = send(QStringLiteral("/uploads?delay_ms=400"), "POST", "{}", key);
    QCOMPARE(second.status, 409);
    const Response first = collect(slow);
    QCOMPARE(first.status, 201);
    QCOMPARE(m_server->stats().inFlight, 0);
    QCOMPARE(m_server->stats().executedByIdempotencyKey.value(QStringLiteral("upload-3")), 1);
    // Once finished, the same request is a replay.
    QCOMPARE(send(QStringLiteral("/uploads?delay_ms=400"), "POST", "{}", key)
                 .header("Idempotent-Replayed"),
             QByteArray("true"));
}

void tst_DemoServer::ledgerRequiresKey()
{
    const Response missing = send(QStringLiteral("/uploads"), "POST", "{}");
    QCOMPARE(missing.status, 400);
    QVERIFY(missing.json()
                .value(QStringLiteral("detail"))
                .toString()
                .contains(QLatin1String("Idempotency-Key")));
    QCOMPARE(send(QStringLiteral("/uploads?require_key=0"), "POST", "{}").status, 201);
    // Other routes take POST without a key unless told otherwise.
    QCOMPARE(send(QStringLiteral("/ok"), "POST", "{}").status, 201);
    QCOMPARE(send(QStringLiteral("/ok?require_key=1"), "POST", "{}").status, 400);
    QCOMPARE(m_server->stats().totalExecuted, 2);
}

void tst_DemoServer::ledgerRefusesMalformedKey()
{
    for (const char *bad : {"\"unterminated", "\"a\" b", "two words", "\"bad\\escape\""}) {
        const Response response =
            send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", bad}});
        QVERIFY2(response.status == 400, bad);
    }
    QCOMPARE(m_server->stats().totalExecuted, 0);
}

void tst_DemoServer::failedRequestLeavesKeyFree()
{
    const QList<QPair<QByteArray, QByteArray>> key = {{"Idempotency-Key", "\"upload-4\""}};
    QCOMPARE(send(QStringLiteral("/uploads?fail_first=1"), "POST", "{}", key).status, 502);
    QCOMPARE(m_server->stats().inFlight, 0);
    const Response retry = send(QStringLiteral("/uploads?fail_first=1"), "POST", "{}", key);
    QCOMPARE(retry.status, 201);
    QVERIFY(!retry.header("Idempotent-Replayed"));
    // A refused request (429) did not use the key either.
    QCOMPARE(send(QStringLiteral("/uploads?limit=0"), "POST", "{}",
                  {{"Idempotency-Key", "\"upload-5\""}})
                 .status,
             429);
    QCOMPARE(send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", "\"upload-5\""}})
                 .header("Idempotent-Replayed"),
             std::nullopt);
}

void tst_DemoServer::payloadRunsAfterClientLeft()
{
    const QList<QPair<QByteArray, QByteArray>> key = {{"Idempotency-Key", "\"upload-6\""}};
    const Response gaveUp = send(QStringLiteral("/uploads?delay_ms=300"), "POST", "{}", key, 50);
    QCOMPARE(gaveUp.error, QNetworkReply::OperationCanceledError);
    // The server finishes the work it accepted; the retry gets its result.
    QTRY_COMPARE_WITH_TIMEOUT(m_server->stats().totalExecuted, 1, kWaitMs);
    const Response retry = send(QStringLiteral("/uploads?delay_ms=300"), "POST", "{}", key);
    QCOMPARE(retry.status, 201);
    QCOMPARE(retry.header("Idempotent-Replayed"), QByteArray("true"));
    QCOMPARE(m_server->stats().executedByIdempotencyKey.value(QStringLiteral("upload-6")), 1);
}

void tst_DemoServer::droppedAnswerIsExecutedOnce()
{
    // The server runs the payload and closes the connection unanswered. QNAM sends a
    // buffered POST again by itself, without telling the application; the ledger turns
    // that second request into a replay.
    const QList<QPair<QByteArray, QByteArray>> key = {{"Idempotency-Key", "\"upload-7\""}};
    const Response response = send(QStringLiteral("/uploads?drop_first=1"), "POST", "{}", key);
    QCOMPARE(response.status, 201);
    QCOMPARE(response.header("Idempotent-Replayed"), QByteArray("true"));
    DemoStats stats = m_server->stats();
    QCOMPARE(stats.dropped, 1);
    QCOMPARE(stats.requestsByIdempotencyKey.value(QStringLiteral("upload-7")), 2);
    QCOMPARE(stats.executedByIdempotencyKey.value(QStringLiteral("upload-7")), 1);

    // Without a key the same crash runs the payload twice, and the client cannot tell.
    const Response unkeyed =
        send(QStringLiteral("/api/unkeyed?drop_first=1&key=plain"), "POST", "{}");
    QCOMPARE(unkeyed.status, 201);
    QVERIFY(!unkeyed.header("Idempotent-Replayed"));
    stats = m_server->stats();
    QCOMPARE(stats.requestsByKey.value(QStringLiteral("plain")), 2);
    QCOMPARE(stats.executedByKey.value(QStringLiteral("plain")), 2);
}

void tst_DemoServer::statsOverHttp()
{
    send(QStringLiteral("/ok?key=k1"));
    send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", "\"s-1\""}});
    send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", "\"s-1\""}});
    send(QStringLiteral("/limited/fixed?limit=0"));

    const Response stats = send(QStringLiteral("/_stats"));
    QCOMPARE(stats.status, 200);
    QCOMPARE(stats.header("Content-Type"), QByteArray("application/json"));
    const QJsonObject json = stats.json();
    QCOMPARE(json, m_server->stats().toJson());
    QCOMPARE(json.value(QStringLiteral("total_requests")).toInt(), 4); // /_stats not counted
    QCOMPARE(json.value(QStringLiteral("total_executed")).toInt(), 2);
    QCOMPARE(json.value(QStringLiteral("requests_by_key"))
                 .toObject()
                 .value(QStringLiteral("k1"))
                 .toInt(),
             1);
    QCOMPARE(json.value(QStringLiteral("requests_by_idempotency_key"))
                 .toObject()
                 .value(QStringLiteral("s-1"))
                 .toInt(),
             2);
    QCOMPARE(json.value(QStringLiteral("executed_by_idempotency_key"))
                 .toObject()
                 .value(QStringLiteral("s-1"))
                 .toInt(),
             1);
    QCOMPARE(json.value(QStringLiteral("responses_by_status"))
                 .toObject()
                 .value(QStringLiteral("429"))
                 .toInt(),
             1);
}

void tst_DemoServer::resetOverHttp()
{
    QCOMPARE(send(QStringLiteral("/limited/fixed?limit=1")).status, 200);
    QCOMPARE(send(QStringLiteral("/limited/fixed?limit=1")).status, 429);
    send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", "\"r-1\""}});
    QCOMPARE(send(QStringLiteral("/_reset"), "POST").status, 200);

    QCOMPARE(m_server->stats().totalRequests, 0);
    QCOMPARE(m_server->stats().toJson(), DemoStats().toJson());
    QCOMPARE(send(QStringLiteral("/limited/fixed?limit=1")).status, 200);
    const Response fresh =
        send(QStringLiteral("/uploads"), "POST", "{}", {{"Idempotency-Key", "\"r-1\""}});
    QVERIFY(!fresh.header("Idempotent-Replayed"));
    QCOMPARE(send(QStringLiteral("/_reset")).status, 405);
}

void tst_DemoServer::badInputIsNamed_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("named");

    QTest::newRow("unknown parameter") << "/ok?limt=3" << QByteArray("GET") << 400 << "limt";
    QTest::newRow("bad number") << "/limited/fixed?limit=many" << QByteArray("GET") << 400
                                << "limit";
    QTest::newRow("bad form") << "/ok?retry_after=later" << QByteArray("GET") << 400
                              << "retry_after";
    QTest::newRow("bad status") << "/flaky?fail_status=418" << QByteArray("GET") << 400
                                << "fail_status";
    QTest::newRow("bad rate") << "/flaky?fail_rate=2" << QByteArray("GET") << 400 << "fail_rate";
    QTest::newRow("twice") << "/ok?key=a&key=b" << QByteArray("GET") << 400 << "key";
    QTest::newRow("unknown route") << "/nowhere" << QByteArray("GET") << 404 << "/nowhere";
    QTest::newRow("get on uploads") << "/uploads" << QByteArray("GET") << 405 << "POST";
}

void tst_DemoServer::badInputIsNamed()
{
    QFETCH(QString, path);
    QFETCH(QByteArray, method);
    QFETCH(int, status);
    QFETCH(QString, named);

    const Response response = send(path, method);
    QCOMPARE(response.status, status);
    QCOMPARE(response.header("Content-Type"), QByteArray("application/problem+json"));
    const QString detail = response.json().value(QStringLiteral("detail")).toString();
    QVERIFY2(detail.contains(named), qPrintable(detail));
    QCOMPARE(m_server->stats().totalExecuted, 0);
}

void tst_DemoServer::parseIdempotencyKey_data()
{
    QTest::addColumn<QByteArray>("field");
    QTest::addColumn<QString>("key"); // null: refused

    QTest::newRow("sf-string") << QByteArray("\"abc\"") << "abc";
    QTest::newRow("bare") << QByteArray("abc") << "abc";
    QTest::newRow("uuid bare") << QByteArray("8e03978e-40d5-43e8-bc93-6894a57f9324")
                               << "8e03978e-40d5-43e8-bc93-6894a57f9324";
    QTest::newRow("bare with sf-token characters") << QByteArray("urn:op/42") << "urn:op/42";
    QTest::newRow("spaces around") << QByteArray("  \"a b\"\t") << "a b";
    QTest::newRow("escapes") << QByteArray("\"q\\\"s\\\\\"") << "q\"s\\";
    QTest::newRow("empty") << QByteArray("") << QString();
    QTest::newRow("empty string") << QByteArray("\"\"") << QString();
    QTest::newRow("unterminated") << QByteArray("\"abc") << QString();
    QTest::newRow("trailing") << QByteArray("\"abc\"x") << QString();
    QTest::newRow("parameters") << QByteArray("\"abc\";v=1") << QString();
    QTest::newRow("two strings") << QByteArray("\"abc\", \"def\"") << QString();
    QTest::newRow("bad escape") << QByteArray("\"a\\n\"") << QString();
    QTest::newRow("non-ascii") << QByteArray("\"\xc3\xa9\"") << QString();
    QTest::newRow("bare with space") << QByteArray("a b") << QString();
    QTest::newRow("bare with quote inside") << QByteArray("a\"b") << QString();
    QTest::newRow("bare with comma") << QByteArray("a,b") << QString();
    QTest::newRow("bare non-ascii") << QByteArray("caf\xc3\xa9") << QString();
}

void tst_DemoServer::parseIdempotencyKey()
{
    QFETCH(QByteArray, field);
    QFETCH(QString, key);

    QString error;
    const std::optional<QString> parsed = demo::parseIdempotencyKey(field, &error);
    QCOMPARE(parsed.has_value(), !key.isNull());
    if (parsed)
        QCOMPARE(*parsed, key);
    else
        QVERIFY(!error.isEmpty());
}

void tst_DemoServer::behaviourOverlaysRouteDefaults()
{
    const demo::Route *route = demo::findRoute(QStringLiteral("/limited/ratelimit"));
    QVERIFY(route);
    QVERIFY(!demo::findRoute(QStringLiteral("/limited")));
    QVERIFY(!demo::findRoute(QStringLiteral("/api/x")));
    const auto parse = [](const char *defaults, const char *query, demo::Behaviour &b) {
        return demo::parseBehaviour(defaults, QUrlQuery(QString::fromLatin1(query)), b);
    };

    // The route's defaults stand where the query says nothing, and give way where it does.
    demo::Behaviour b;
    std::optional<QString> error = parse(route->defaults, "window=60&key=k%201&policy=burst", b);
    QVERIFY2(!error, qPrintable(error.value_or(QString())));
    QVERIFY(b.limiter == demo::LimiterKind::FixedWindow);
    QCOMPARE(b.limit, qint64(5));
    QCOMPARE(b.windowMs, qint64(60000));
    QVERIFY(b.retryAfter == demo::RetryAfterForm::None);
    QVERIFY(b.draftHeaders);
    QVERIFY(!b.xHeaders);
    QCOMPARE(b.key, QStringLiteral("k 1"));
    QCOMPARE(b.policy, QStringLiteral("burst"));

    // limit wins over capacity, whatever their order; a bucket needs capacity alone.
    demo::Behaviour both;
    QVERIFY(!parse("", "capacity=3&limit=2", both));
    QVERIFY(both.limiter == demo::LimiterKind::FixedWindow);
    demo::Behaviour bucket;
    QVERIFY(!parse("", "capacity=3&rate=0.5", bucket));
    QVERIFY(bucket.limiter == demo::LimiterKind::TokenBucket);
    QCOMPARE(bucket.rate, 0.5);

    // A query may repeat one of the route's parameters, not one of its own.
    demo::Behaviour twice;
    error = parse(route->defaults, "limit=1&limit=2", twice);
    QVERIFY(error && error->contains(QStringLiteral("'limit' is given twice")));
    demo::Behaviour quoted;
    error = parse("", "policy=a%22b", quoted);
    QVERIFY(error && error->contains(QStringLiteral("'policy'")));
}

void tst_DemoServer::maintenanceEnd_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<qint64>("endMs"); // -1: refused

    QTest::newRow("for") << "for=30" << kStart + 30000;
    QTest::newRow("for zero") << "for=0" << kStart;
    QTest::newRow("until") << "until=1800000000" << qint64(1800000000000);
    QTest::newRow("neither") << "" << qint64(-1);
    QTest::newRow("both") << "for=1&until=2" << qint64(-1);
    QTest::newRow("for a word") << "for=x" << qint64(-1);
    QTest::newRow("negative for") << "for=-1" << qint64(-1);
    QTest::newRow("until past year 9999") << "until=253402300800" << qint64(-1);
}

void tst_DemoServer::maintenanceEnd()
{
    QFETCH(QString, query);
    QFETCH(qint64, endMs);

    QString error;
    const std::optional<qint64> end = demo::parseMaintenanceEnd(QUrlQuery(query), kStart, &error);
    QCOMPARE(end.value_or(-1), endMs);
    QCOMPARE(error.isEmpty(), endMs >= 0);
}

void tst_DemoServer::demoWorkspaceMatchesRoutes_data()
{
    QTest::addColumn<QJsonObject>("endpoint");
    QTest::addColumn<int>("firstStatus");

    QFile file(QStringLiteral(COOLDOWN_DEMO_CONFIG));
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
    QJsonParseError error;
    const QJsonDocument config = QJsonDocument::fromJson(file.readAll(), &error);
    QVERIFY2(config.isObject(), qPrintable(error.errorString()));

    // What the first request of each demo endpoint meets: the workspace is meant to
    // show every kind of trouble, and none of its URLs may be refused as malformed.
    const QHash<QString, int> expected = {
        {QStringLiteral("measurements"), 200}, {QStringLiteral("upload-bom"), 502},
        {QStringLiteral("cad-export"), 502},   {QStringLiteral("nightly-report"), 503},
        {QStringLiteral("search"), 200},       {QStringLiteral("order-status"), 200},
    };
    const QJsonArray endpoints = config.object().value(QStringLiteral("endpoints")).toArray();
    QCOMPARE(endpoints.size(), expected.size());
    for (const QJsonValue &value : endpoints) {
        const QJsonObject endpoint = value.toObject();
        const QString id = endpoint.value(QStringLiteral("id")).toString();
        QVERIFY2(expected.contains(id), qPrintable(id));
        QTest::newRow(qPrintable(id)) << endpoint << expected.value(id);
    }
}

void tst_DemoServer::demoWorkspaceMatchesRoutes()
{
    QFETCH(QJsonObject, endpoint);
    QFETCH(int, firstStatus);

    const QString placeholder = QStringLiteral("${demo:base_url}");
    const QString urlText = endpoint.value(QStringLiteral("url")).toString();
    QVERIFY2(urlText.startsWith(placeholder), qPrintable(urlText));

    QList<QPair<QByteArray, QByteArray>> headers;
    const QJsonObject configured = endpoint.value(QStringLiteral("headers")).toObject();
    for (auto it = configured.begin(); it != configured.end(); ++it)
        headers.append({it.key().toLatin1(), it.value().toString().toLatin1()});
    const QJsonObject idempotency = endpoint.value(QStringLiteral("idempotency")).toObject();
    if (idempotency.contains(QStringLiteral("header")))
        headers.append({idempotency.value(QStringLiteral("header")).toString().toLatin1(),
                        QByteArrayLiteral("\"demo-operation-1\"")});

    const Response response =
        send(urlText.mid(placeholder.size()),
             endpoint.value(QStringLiteral("method")).toString(QStringLiteral("GET")).toLatin1(),
             endpoint.value(QStringLiteral("body")).toString().toUtf8(), headers);
    QVERIFY2(response.status == firstStatus,
             qPrintable(QString::number(response.status) + QLatin1Char(' ') +
                        QString::fromUtf8(response.body)));
}

void tst_DemoServer::cliStartsAndStopsOnSignal_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGINT") << int(SIGINT);
}

void tst_DemoServer::cliStartsAndStopsOnSignal()
{
    QFETCH(int, signal);

    QProcess process;
    process.start(QStringLiteral(COOLDOWN_BINARY),
                  {QStringLiteral("demo-server"), QStringLiteral("--port"), QStringLiteral("0")});
    QVERIFY(process.waitForStarted(kWaitMs));
    QTRY_VERIFY_WITH_TIMEOUT(process.canReadLine(), kWaitMs);
    const QString line = QString::fromUtf8(process.readLine()).trimmed();
    static const QRegularExpression pattern(
        QStringLiteral("^Cooldown demo API listening on (http://127\\.0\\.0\\.1:(\\d+))$"));
    const QRegularExpressionMatch match = pattern.match(line);
    QVERIFY2(match.hasMatch(), qPrintable(line));
    QVERIFY(match.captured(2).toInt() > 0);

    QNetworkRequest request(QUrl(match.captured(1) + QStringLiteral("/limited/fixed?limit=0")));
    request.setTransferTimeout(kWaitMs);
    const Response limited = collect(m_network->get(request));
    QCOMPARE(limited.status, 429);
    QVERIFY(limited.header("Retry-After"));

    ::kill(pid_t(process.processId()), signal);
    QVERIFY(process.waitForFinished(kWaitMs));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(process.readAllStandardError(), QByteArray());
}

void tst_DemoServer::cliRefusesBadPort()
{
    for (const QString &port :
         {QStringLiteral("70000"), QStringLiteral("http"), QStringLiteral("-1")}) {
        QProcess process;
        process.start(QStringLiteral(COOLDOWN_BINARY),
                      {QStringLiteral("demo-server"), QStringLiteral("--port"), port});
        QVERIFY(process.waitForFinished(kWaitMs));
        QCOMPARE(process.exitCode(), 2);
        const QByteArray error = process.readAllStandardError();
        QCOMPARE(error.count('\n'), 1);
        QVERIFY2(error.contains("--port") && error.contains(port.toUtf8()), error.constData());
        QCOMPARE(process.readAllStandardOutput(), QByteArray());
    }

    // A port that is taken is a runtime failure, not a usage error.
    QProcess busy;
    busy.start(QStringLiteral(COOLDOWN_BINARY),
               {QStringLiteral("demo-server"), QStringLiteral("--port"),
                QString::number(m_server->port())});
    QVERIFY(busy.waitForFinished(kWaitMs));
    QCOMPARE(busy.exitCode(), 1);
    QVERIFY(busy.readAllStandardError().contains(QByteArray::number(m_server->port())));
}

QTEST_GUILESS_MAIN(tst_DemoServer)
#include "tst_demoserver.moc"
