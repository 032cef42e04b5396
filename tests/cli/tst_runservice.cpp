// SPDX-License-Identifier: Apache-2.0
// What `cooldown run` serves, in this process (app/RunService): one listener with the
// jobs API and /metrics, a job handed in and sent, the exchange counted in the
// exposition, and a workspace applied while running reaching the listener's limit.

#include "app/RunService.h"
#include "core/config/WorkspaceConfig.h"
#include "support/ScriptedHttpServer.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace cooldown;

namespace {

const QByteArray kToken = "a-token-of-sixteen-or-more";

struct Answer
{
    int status = 0;
    QByteArray body;
    QByteArray allow;
};

} // namespace

class tst_RunService : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void servesTheJobsApiAndMetricsOnOneListener();
    void aWorkspaceAppliedReachesTheListener();

private:
    std::optional<WorkspaceConfig> workspace(qint64 maxBodyBytes) const;
    Answer ask(const QByteArray &method, const QString &path, const QByteArray &body = {});

    QTemporaryDir m_dir;
    std::unique_ptr<ScriptedHttpServer> m_server;
    std::unique_ptr<RunService> m_service;
    QNetworkAccessManager m_client;
};

std::optional<WorkspaceConfig> tst_RunService::workspace(qint64 maxBodyBytes) const
{
    QByteArray json = R"({"version": 1,
        "api": {"token": "${env:COOLDOWN_API_TOKEN}", "max_body_bytes": LIMIT},
        "endpoints": [
          {"id": "convert", "method": "POST", "url": "BASE/convert/${job:part}",
           "body": "{\"part\": \"${job:part}\"}", "timeout_seconds": 5,
           "idempotency": {"header": "Idempotency-Key"}}
        ]})";
    json.replace("BASE", m_server->url(QString()).toUtf8());
    json.replace("LIMIT", QByteArray::number(maxBodyBytes));
    QString error;
    auto config = WorkspaceConfig::parse(
        json, QStringLiteral("workspace.json"), &error, {},
        QHash<QString, QString>{{QStringLiteral("COOLDOWN_API_TOKEN"), QString::fromUtf8(kToken)}});
    if (!config)
        qWarning().noquote() << error;
    return config;
}

void tst_RunService::init()
{
    m_server = std::make_unique<ScriptedHttpServer>();
    QVERIFY(m_server->isListening());
    auto config = workspace(64 * 1024);
    QVERIFY(config);
    EngineOptions options;
    options.systemReachability = false;
    options.logindSleep = false;
    QString error;
    m_service = RunService::open(
        std::move(*config),
        m_dir.filePath(QStringLiteral("%1.db").arg(QTest::currentTestFunction())), options, &error);
    QVERIFY2(m_service, qPrintable(error));
    QVERIFY2(m_service->listen(QHostAddress::LocalHost, 0, &error), qPrintable(error));
    QVERIFY(m_service->port() > 0);
    QVERIFY2(m_service->start(&error), qPrintable(error));
}

void tst_RunService::cleanup()
{
    if (m_service) {
        QSignalSpy stopped(&m_service->engine(), &EngineSession::stopped);
        m_service->engine().stop();
        QVERIFY(stopped.count() > 0 || stopped.wait(5000));
    }
    m_service.reset();
    m_server.reset();
}

Answer tst_RunService::ask(const QByteArray &method, const QString &path, const QByteArray &body)
{
    QNetworkRequest request(
        QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_service->port()).arg(path)));
    request.setRawHeader("Authorization", "Bearer " + kToken);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
    QNetworkReply *reply = m_client.sendCustomRequest(request, method, body);
    Answer answer;
    if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 10000)) {
        reply->abort();
        reply->deleteLater();
        return answer;
    }
    answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    answer.body = reply->readAll();
    answer.allow = reply->rawHeader("Allow");
    reply->deleteLater();
    return answer;
}

void tst_RunService::servesTheJobsApiAndMetricsOnOneListener()
{
    const Answer before = ask("GET", QStringLiteral("/metrics"));
    QCOMPARE(before.status, 200);
    QVERIFY2(before.body.contains("cooldown_max_in_flight "), before.body.constData());
    QVERIFY(!before.body.contains("cooldown_attempts_total{"));

    const Answer posted = ask("POST", QStringLiteral("/v1/jobs"),
                              R"({"endpoint": "convert", "vars": {"part": "A"}})");
    QCOMPARE(posted.status, 201);
    QVERIFY2(posted.body.contains("\"existed\":false"), posted.body.constData());

    // The job goes out, and its attempt is counted in what the next scrape says.
    QVERIFY(QTest::qWaitFor([&] { return !m_server->received.isEmpty(); }, 10000));
    QCOMPARE(m_server->received.first().path, QByteArray("/convert/A"));
    QVERIFY(QTest::qWaitFor(
        [&] {
            return ask("GET", QStringLiteral("/metrics"))
                .body.contains(R"(cooldown_attempts_total{endpoint="convert",status_class="2xx")");
        },
        10000));

    const Answer wrongMethod = ask("POST", QStringLiteral("/metrics"), "{}");
    QCOMPARE(wrongMethod.status, 405);
    QCOMPARE(wrongMethod.allow, QByteArray("GET, HEAD"));
    QCOMPARE(ask("GET", QStringLiteral("/elsewhere")).status, 404);
}

void tst_RunService::aWorkspaceAppliedReachesTheListener()
{
    // A job whose body is over 1,024 bytes: within the first workspace's limit.
    const QByteArray job =
        R"({"endpoint": "convert", "vars": {"part": ")" + QByteArray(1100, 'p') + R"("}})";
    QVERIFY(job.size() > 1024);
    QCOMPARE(ask("POST", QStringLiteral("/v1/jobs"), job).status, 201);

    auto smaller = workspace(1024);
    QVERIFY(smaller);
    QSignalSpy applied(&m_service->engine(), &EngineSession::configApplied);
    m_service->engine().apply(std::move(*smaller));
    QVERIFY(applied.wait(10000));
    QCOMPARE(applied.first().first().toBool(), true);
    const Answer refused = ask("POST", QStringLiteral("/v1/jobs"), job);
    QCOMPARE(refused.status, 413);
    QVERIFY2(refused.body.contains("larger than 1024 bytes"), refused.body.constData());
}

QTEST_GUILESS_MAIN(tst_RunService)
#include "tst_runservice.moc"
