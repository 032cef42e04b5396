// SPDX-License-Identifier: Apache-2.0
// The local API of `cooldown run --listen` against real requests: a real worker, real
// HTTP over loopback, the store read back to check what was written. Jobs are handed in
// with not_before an hour ahead, so that they stay queued while the test looks at them.

#include "core/store/Store.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace cooldown;

namespace {

const QByteArray kToken = "t0k3n-for-the-local-api-test";

struct Answer
{
    int status = 0;
    QJsonObject body;
    QByteArray raw;
    QByteArray contentType;
    QNetworkReply *reply = nullptr; // for headers; deleted with the manager

    QByteArray header(const char *name) const { return reply->rawHeader(name); }
};

bool writeFile(const QString &path, const QByteArray &text)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

QByteArray job(const QString &item, const QString &key = {})
{
    QJsonObject o{{QStringLiteral("endpoint"), QStringLiteral("upload")},
                  {QStringLiteral("vars"), QJsonObject{{QStringLiteral("item"), item}}},
                  {QStringLiteral("not_before"),
                   QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate)}};
    if (!key.isEmpty())
        o.insert(QStringLiteral("idempotency_key"), key);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace

class tst_LocalApi : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void tokenIsRequired();
    void apiIsOffWithoutAToken();
    void nonLoopbackNeedsTokenAndListenAny();
    void badRequestsGetProblemDetailsWithPointers();
    void oversizedBodyIsRefusedBeforeItIsRead();
    void jobsAreDurableAndKeysAreKept();
    void retryAndCancelOneJob();
    void pauseAndResumeAnEndpoint();
    void fullQueueAnswers429WithRetryAfter();
    void cooldownPacesItselfOnItsOwnApi();

private:
    // Starts `cooldown run --listen 127.0.0.1:0` on a workspace with this api section;
    // the base URL it printed.
    QUrl start(QProcess &run, const QString &api, const QString &name = QStringLiteral("a"));
    Answer send(const QByteArray &method, const QUrl &url, const QByteArray &body = {},
                const QByteArray &token = kToken,
                const QByteArray &contentType = "application/json",
                const QList<QPair<QByteArray, QByteArray>> &headers = {});
    qint64 operationCount(const QString &name = QStringLiteral("a"));

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QNetworkAccessManager> m_manager;
    QList<QProcess *> m_runs;
};

void tst_LocalApi::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_manager = std::make_unique<QNetworkAccessManager>();
}

void tst_LocalApi::cleanup()
{
    for (QProcess *run : std::as_const(m_runs)) {
        run->terminate();
        if (!run->waitForFinished(15000))
            run->kill();
        run->waitForFinished();
        delete run;
    }
    m_runs.clear();
    m_manager.reset();
}

QUrl tst_LocalApi::start(QProcess &run, const QString &api, const QString &name)
{
    // The endpoint's server does not exist: nothing is due within the test anyway.
    const QString config = m_dir->filePath(name + QStringLiteral(".json"));
    const QByteArray text =
        QStringLiteral("{\"version\": 1, %1\n"
                       "  \"endpoints\": [{\"id\": \"upload\", \"method\": \"POST\",\n"
                       "    \"url\": \"%2\",\n"
                       "    \"headers\": {\"Content-Type\": \"application/json\"},\n"
                       "    \"body\": \"{\\\"item\\\": \\\"${job:item}\\\"}\",\n"
                       "    \"idempotency\": {\"header\": \"Idempotency-Key\"}}]}")
            .arg(api.isEmpty() ? QString() : QStringLiteral("\"api\": {%1},").arg(api),
                 QStringLiteral("http:") + QStringLiteral("//127.0.0.1:9/uploads/${job:item}"))
            .toUtf8();
    if (!writeFile(config, text)) {
        QTest::qFail("cannot write the workspace", __FILE__, __LINE__);
        return {};
    }
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("COOLDOWN_API_TOKEN"), QString::fromUtf8(kToken));
    run.setProcessEnvironment(env);
    run.start(QStringLiteral(COOLDOWN_BINARY),
              {QStringLiteral("run"), QStringLiteral("--config"), config, QStringLiteral("--db"),
               m_dir->filePath(name + QStringLiteral(".db")), QStringLiteral("--listen"),
               QStringLiteral("127.0.0.1:0")});
    if (!run.waitForStarted()) {
        QTest::qFail("cooldown run did not start", __FILE__, __LINE__);
        return {};
    }
    QByteArray out;
    const QRegularExpression at(QStringLiteral("metrics at (http://127\\.0\\.0\\.1:\\d+)/metrics"));
    QRegularExpressionMatch match;
    QElapsedTimer waited;
    waited.start();
    while (!(match = at.match(QString::fromUtf8(out))).hasMatch() && waited.elapsed() < 15000 &&
           run.state() == QProcess::Running) {
        run.waitForReadyRead(100);
        out += run.readAllStandardOutput();
    }
    if (!match.hasMatch()) {
        QTest::qFail(qPrintable(QStringLiteral("no address in: ") + QString::fromUtf8(out) +
                                QString::fromUtf8(run.readAllStandardError())),
                     __FILE__, __LINE__);
        return {};
    }
    return QUrl(match.captured(1));
}

Answer tst_LocalApi::send(const QByteArray &method, const QUrl &url, const QByteArray &body,
                          const QByteArray &token, const QByteArray &contentType,
                          const QList<QPair<QByteArray, QByteArray>> &headers)
{
    QNetworkRequest request(url);
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token);
    if (!body.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    QNetworkReply *reply = m_manager->sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    Answer a;
    a.reply = reply;
    a.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    a.contentType = reply->header(QNetworkRequest::ContentTypeHeader).toByteArray();
    a.raw = reply->readAll();
    a.body = QJsonDocument::fromJson(a.raw).object();
    return a;
}

qint64 tst_LocalApi::operationCount(const QString &name)
{
    QString error;
    auto store = Store::open(m_dir->filePath(name + QStringLiteral(".db")), &error);
    if (!store)
        qFatal("%s", qPrintable(error));
    qint64 n = 0;
    for (const qint64 count : store->countsByState())
        n += count;
    return n;
}

void tst_LocalApi::tokenIsRequired()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base = start(*run, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\""));
    QVERIFY(!QTest::currentTestFailed());
    const QUrl jobs = base.resolved(QUrl(QStringLiteral("/v1/jobs")));

    const Answer missing = send("POST", jobs, job(QStringLiteral("A-1")), {});
    QCOMPARE(missing.status, 401);
    QCOMPARE(missing.contentType, QByteArray("application/problem+json"));
    QCOMPARE(missing.header("WWW-Authenticate"), QByteArray("Bearer realm=\"cooldown\""));
    const Answer wrong =
        send("POST", jobs, job(QStringLiteral("A-1")), "t0k3n-for-the-local-api-tesT");
    QCOMPARE(wrong.status, 401);
    QVERIFY(wrong.header("WWW-Authenticate").contains("invalid_token"));
    QVERIFY2(wrong.body.value(QStringLiteral("detail"))
                 .toString()
                 .contains(QLatin1String("COOLDOWN_API_TOKEN")),
             wrong.raw.constData());
    QVERIFY(!wrong.raw.contains(kToken));
    const Answer lookup = send("GET", base.resolved(QUrl(QStringLiteral("/v1/jobs/1"))), {}, "x");
    QCOMPARE(lookup.status, 401);
    QCOMPARE(operationCount(), qint64(0));

    const Answer right = send("POST", jobs, job(QStringLiteral("A-1")));
    QCOMPARE(right.status, 201);
    QCOMPARE(operationCount(), qint64(1));
}

void tst_LocalApi::apiIsOffWithoutAToken()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base = start(*run, {});
    QVERIFY(!QTest::currentTestFailed());
    const Answer off =
        send("POST", base.resolved(QUrl(QStringLiteral("/v1/jobs"))), job(QStringLiteral("A-1")));
    QCOMPARE(off.status, 404);
    QVERIFY2(
        off.body.value(QStringLiteral("detail")).toString().contains(QLatin1String("api.token")),
        off.raw.constData());
    QCOMPARE(operationCount(), qint64(0));
}

void tst_LocalApi::nonLoopbackNeedsTokenAndListenAny()
{
    const QString config = m_dir->filePath(QStringLiteral("plain.json"));
    QVERIFY(writeFile(config, "{\"version\": 1, \"endpoints\": [{\"id\": \"a\", \"url\": \"http:"
                              "//127.0.0.1:9/\"}]}"));
    const auto attempt = [&](const QStringList &extra) {
        QProcess p;
        p.start(QStringLiteral(COOLDOWN_BINARY),
                QStringList{QStringLiteral("run"), QStringLiteral("--config"), config,
                            QStringLiteral("--db"), m_dir->filePath(QStringLiteral("plain.db")),
                            QStringLiteral("--listen"), QStringLiteral("0.0.0.0:0")} +
                    extra);
        if (!p.waitForFinished(30000))
            qFatal("cooldown run did not refuse");
        return std::make_pair(p.exitCode(), QString::fromUtf8(p.readAllStandardError()));
    };
    const auto [code, err] = attempt({});
    QCOMPARE(code, 2);
    QVERIFY2(err.contains(QLatin1String("not a loopback address")) &&
                 err.contains(QLatin1String("--listen-any")),
             qPrintable(err));
    const auto [codeAny, errAny] = attempt({QStringLiteral("--listen-any")});
    QCOMPARE(codeAny, 2);
    QVERIFY2(errAny.contains(QLatin1String("api.token")), qPrintable(errAny));
}

void tst_LocalApi::badRequestsGetProblemDetailsWithPointers()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base = start(*run, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\""));
    QVERIFY(!QTest::currentTestFailed());
    const QUrl jobs = base.resolved(QUrl(QStringLiteral("/v1/jobs")));

    const Answer notJson = send("POST", jobs, "{\"endpoint\": ");
    QCOMPARE(notJson.status, 400);
    QCOMPARE(notJson.contentType, QByteArray("application/problem+json"));
    QCOMPARE(notJson.body.value(QStringLiteral("status")).toInt(), 400);
    QVERIFY(notJson.body.value(QStringLiteral("detail"))
                .toString()
                .contains(QLatin1String("not JSON")));

    const Answer wrongType = send("POST", jobs, job(QStringLiteral("A-1")), kToken, "text/plain");
    QCOMPARE(wrongType.status, 415);

    // The second job lacks its value, the third names a field nobody reads: both are
    // named by pointer, and the first is not written either.
    const QByteArray batch = "[" + job(QStringLiteral("A-1")) +
                             ", {\"endpoint\": \"upload\", \"vars\": {}}, {\"endpoint\": "
                             "\"upload\", \"vars\": {\"item\": \"x\"}, \"colour\": 1}]";
    const Answer refused = send("POST", jobs, batch);
    QCOMPARE(refused.status, 422);
    const QJsonArray errors = refused.body.value(QStringLiteral("errors")).toArray();
    QCOMPARE(errors.size(), 2);
    QCOMPARE(errors.at(0).toObject().value(QStringLiteral("pointer")).toString(),
             QStringLiteral("/1/vars"));
    QVERIFY(errors.at(0)
                .toObject()
                .value(QStringLiteral("detail"))
                .toString()
                .contains(QLatin1String("missing 'item'")));
    QCOMPARE(errors.at(1).toObject().value(QStringLiteral("pointer")).toString(),
             QStringLiteral("/2/colour"));
    QCOMPARE(operationCount(), qint64(0));

    const Answer noEndpoint =
        send("POST", jobs, "{\"endpoint\": \"nowhere\", \"vars\": {\"item\": \"x\"}}");
    QCOMPARE(noEndpoint.status, 422);
    QCOMPARE(noEndpoint.body.value(QStringLiteral("errors"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("pointer"))
                 .toString(),
             QStringLiteral("/endpoint"));

    QCOMPARE(send("GET", jobs).status, 405);
    QCOMPARE(send("GET", base.resolved(QUrl(QStringLiteral("/v1/jobs/999")))).status, 404);
    QCOMPARE(send("GET", base.resolved(QUrl(QStringLiteral("/v1/jobs/abc")))).status, 404);
    QCOMPARE(send("GET", base.resolved(QUrl(QStringLiteral("/v1/other")))).status, 404);
    QCOMPARE(operationCount(), qint64(0));
}

void tst_LocalApi::oversizedBodyIsRefusedBeforeItIsRead()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base = start(
        *run, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\", \"max_body_bytes\": 2048"));
    QVERIFY(!QTest::currentTestFailed());

    // A head that announces 10 MB: the answer comes before any of the body is sent.
    QTcpSocket socket;
    socket.connectToHost(QHostAddress::LocalHost, quint16(base.port()));
    QVERIFY(socket.waitForConnected(10000));
    socket.write("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kToken +
                 "\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n");
    QByteArray answer;
    QElapsedTimer waited;
    waited.start();
    while (!answer.contains("\r\n\r\n") && waited.elapsed() < 10000) {
        socket.waitForReadyRead(100);
        answer += socket.readAll();
    }
    QVERIFY2(answer.startsWith("HTTP/1.1 413 "), answer.constData());
    QVERIFY(answer.contains("Connection: close"));

    // A chunked body, whose length is not known ahead: 411.
    const QUrl jobs = base.resolved(QUrl(QStringLiteral("/v1/jobs")));
    QTcpSocket chunked;
    chunked.connectToHost(QHostAddress::LocalHost, quint16(base.port()));
    QVERIFY(chunked.waitForConnected(10000));
    chunked.write("POST /v1/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    answer.clear();
    waited.restart();
    while (!answer.contains("\r\n\r\n") && waited.elapsed() < 10000) {
        chunked.waitForReadyRead(100);
        answer += chunked.readAll();
    }
    QVERIFY2(answer.startsWith("HTTP/1.1 411 "), answer.constData());

    // The listener goes on serving.
    const QByteArray big = "[" + job(QStringLiteral("A-1")) + "," + QByteArray(2048, ' ') +
                           job(QStringLiteral("A-2")) + "]";
    QCOMPARE(send("POST", jobs, big).status, 413);
    QCOMPARE(send("POST", jobs, job(QStringLiteral("A-1"))).status, 201);
    QCOMPARE(operationCount(), qint64(1));
}

void tst_LocalApi::jobsAreDurableAndKeysAreKept()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base = start(*run, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\""));
    QVERIFY(!QTest::currentTestFailed());
    const QUrl jobs = base.resolved(QUrl(QStringLiteral("/v1/jobs")));

    // One job, keyed by the request's Idempotency-Key header.
    const Answer first = send("POST", jobs, job(QStringLiteral("A-1")), kToken, "application/json",
                              {{"Idempotency-Key", "bom-A-1-rev-C"}});
    QCOMPARE(first.status, 201);
    const qint64 id = first.body.value(QStringLiteral("id")).toInteger();
    QVERIFY(id > 0);
    QCOMPARE(first.header("Location"), "/v1/jobs/" + QByteArray::number(id));
    QCOMPARE(first.header("RateLimit-Policy"), QByteArray("\"queue\";q=10000"));
    QCOMPARE(first.header("RateLimit"), QByteArray("\"queue\";r=9999"));
    {
        QString error;
        auto store = Store::open(m_dir->filePath(QStringLiteral("a.db")), &error);
        QVERIFY2(store, qPrintable(error));
        const auto op = store->operation(id);
        QVERIFY(op);
        QCOMPARE(op->idempotencyKey, QStringLiteral("bom-A-1-rev-C"));
        QCOMPARE(op->jobValues.value(QStringLiteral("item")), QStringLiteral("A-1"));
        QCOMPARE(op->state, OperationState::Scheduled);
    }

    // The same key and request: the same job, not a second one.
    const Answer again =
        send("POST", jobs, job(QStringLiteral("A-1"), QStringLiteral("bom-A-1-rev-C")));
    QCOMPARE(again.status, 200);
    QCOMPARE(again.body.value(QStringLiteral("id")).toInteger(), id);
    QCOMPARE(again.body.value(QStringLiteral("existed")).toBool(), true);
    // The same key for another request: a conflict, named by pointer.
    const Answer conflict =
        send("POST", jobs, job(QStringLiteral("A-2"), QStringLiteral("bom-A-1-rev-C")));
    QCOMPARE(conflict.status, 409);
    const QJsonObject error =
        conflict.body.value(QStringLiteral("errors")).toArray().at(0).toObject();
    QCOMPARE(error.value(QStringLiteral("pointer")).toString(), QStringLiteral("/idempotency_key"));
    QVERIFY(error.value(QStringLiteral("detail")).toString().contains(QString::number(id)));

    // An array: each gets its id, in order.
    const Answer batch = send(
        "POST", jobs, "[" + job(QStringLiteral("B-1")) + "," + job(QStringLiteral("B-2")) + "]");
    QCOMPARE(batch.status, 201);
    const QJsonArray made = batch.body.value(QStringLiteral("jobs")).toArray();
    QCOMPARE(made.size(), 2);
    QCOMPARE(made.at(0).toObject().value(QStringLiteral("id")).toInteger(), id + 1);
    QCOMPARE(made.at(1).toObject().value(QStringLiteral("id")).toInteger(), id + 2);
    QCOMPARE(operationCount(), qint64(3));

    const Answer state = send("GET", base.resolved(QUrl(QStringLiteral("/v1/jobs/%1").arg(id))));
    QCOMPARE(state.status, 200);
    QCOMPARE(state.body.value(QStringLiteral("state")).toString(), QStringLiteral("scheduled"));
    QCOMPARE(state.body.value(QStringLiteral("attempts")).toInt(), 0);
    QVERIFY(state.body.contains(QStringLiteral("next_attempt_at")));
}

void tst_LocalApi::retryAndCancelOneJob()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base = start(*run, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\""));
    QVERIFY(!QTest::currentTestFailed());
    const Answer made =
        send("POST", base.resolved(QUrl(QStringLiteral("/v1/jobs"))), job(QStringLiteral("A-1")));
    QCOMPARE(made.status, 201);
    const qint64 id = made.body.value(QStringLiteral("id")).toInteger();
    const QUrl one = base.resolved(QUrl(QStringLiteral("/v1/jobs/%1").arg(id)));

    const Answer cancelled = send("POST", one.resolved(QUrl(QStringLiteral("%1/cancel").arg(id))));
    QCOMPARE(cancelled.status, 200);
    QCOMPARE(cancelled.body.value(QStringLiteral("state")).toString(), QStringLiteral("cancelled"));
    // Cancelled is final: a retry is refused with the store's reason.
    const Answer retried = send("POST", one.resolved(QUrl(QStringLiteral("%1/retry").arg(id))));
    QCOMPARE(retried.status, 409);
    QVERIFY(!retried.body.value(QStringLiteral("detail")).toString().isEmpty());
    const Answer badOption =
        send("POST", one.resolved(QUrl(QStringLiteral("%1/retry").arg(id))), "{\"forse\": true}");
    QCOMPARE(badOption.status, 422);
    QCOMPARE(badOption.body.value(QStringLiteral("errors"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("pointer"))
                 .toString(),
             QStringLiteral("/forse"));
    QCOMPARE(send("POST", one.resolved(QUrl(QStringLiteral("%1/cancel").arg(id + 7)))).status, 404);

    QString error;
    auto store = Store::open(m_dir->filePath(QStringLiteral("a.db")), &error);
    QVERIFY2(store, qPrintable(error));
    QCOMPARE(store->operation(id)->state, OperationState::Cancelled);
}

void tst_LocalApi::pauseAndResumeAnEndpoint()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base = start(*run, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\""));
    QVERIFY(!QTest::currentTestFailed());
    const QUrl pause = base.resolved(QUrl(QStringLiteral("/v1/endpoints/upload/pause")));
    const QUrl resume = base.resolved(QUrl(QStringLiteral("/v1/endpoints/upload/resume")));

    const Answer held = send("POST", pause, R"({"for": "2h", "reason": "partner upgrade"})");
    QCOMPARE(held.status, 200);
    QCOMPARE(held.body.value(QStringLiteral("paused")).toBool(), true);
    QCOMPARE(held.body.value(QStringLiteral("reason")).toString(),
             QStringLiteral("partner upgrade"));
    const qint64 until =
        QDateTime::fromString(held.body.value(QStringLiteral("held_until")).toString(),
                              Qt::ISODateWithMs)
            .toMSecsSinceEpoch();
    const qint64 inTwoHours = QDateTime::currentMSecsSinceEpoch() + 2 * 3600 * 1000;
    QVERIFY2(until > inTwoHours - 60000 && until <= inTwoHours, qPrintable(held.raw));

    const Answer resumed = send("POST", resume);
    QCOMPARE(resumed.status, 200);
    QCOMPARE(resumed.body.value(QStringLiteral("paused")).toBool(), false);
    QVERIFY(resumed.body.value(QStringLiteral("held_until")).isNull());
    const Answer paused = send("POST", pause);
    QCOMPARE(paused.status, 200);
    QCOMPARE(paused.body.value(QStringLiteral("paused")).toBool(), true);
    QVERIFY(paused.body.value(QStringLiteral("held_until")).isNull());

    // Refusals name what was wrong, and change nothing.
    QCOMPARE(send("POST", base.resolved(QUrl(QStringLiteral("/v1/endpoints/nope/pause")))).status,
             404);
    const Answer badSpan = send("POST", pause, R"({"for": "2 hours"})");
    QCOMPARE(badSpan.status, 422);
    QCOMPARE(badSpan.body.value(QStringLiteral("errors"))
                 .toArray()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("pointer"))
                 .toString(),
             QStringLiteral("/for"));
    QCOMPARE(send("POST", resume, R"({"for": "1h"})").status, 422);
    QCOMPARE(send("GET", pause).status, 405);
    QCOMPARE(send("POST", pause, {}, "wrong-token-wrong-token").status, 401);

    // Each action is one audit row, named as the local API's.
    QString error;
    auto store = Store::open(m_dir->filePath(QStringLiteral("a.db")), &error);
    QVERIFY2(store, qPrintable(error));
    const QList<AuditRecord> audit = store->operatorActions().value();
    QCOMPARE(audit.size(), 3);
    QCOMPARE(audit.at(0).target, QStringLiteral("endpoints=upload for=2h"));
    QCOMPARE(audit.at(0).actor, QStringLiteral("local API"));
    QCOMPARE(audit.at(1).action, OperatorAction::Resume);
    QCOMPARE(store->isEndpointPaused(QStringLiteral("upload")).value_or(false), true);
}

void tst_LocalApi::fullQueueAnswers429WithRetryAfter()
{
    auto *run = m_runs.emplace_back(new QProcess);
    const QUrl base =
        start(*run, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\", \"max_queued\": 3"));
    QVERIFY(!QTest::currentTestFailed());
    const QUrl jobs = base.resolved(QUrl(QStringLiteral("/v1/jobs")));
    QCOMPARE(send("POST", jobs,
                  "[" + job(QStringLiteral("A-1")) + "," + job(QStringLiteral("A-2")) + "]")
                 .status,
             201);
    // Two would not fit: neither is taken.
    const Answer tooMany = send(
        "POST", jobs, "[" + job(QStringLiteral("A-3")) + "," + job(QStringLiteral("A-4")) + "]");
    QCOMPARE(tooMany.status, 429);
    QCOMPARE(tooMany.contentType, QByteArray("application/problem+json"));
    QVERIFY(tooMany.body.value(QStringLiteral("type"))
                .toString()
                .endsWith(QLatin1String("#quota-exceeded")));
    // Nothing has left the queue yet: ask again in a minute.
    QCOMPARE(tooMany.header("Retry-After"), QByteArray("60"));
    QCOMPARE(tooMany.header("RateLimit-Policy"), QByteArray("\"queue\";q=3"));
    QCOMPARE(tooMany.header("RateLimit"), QByteArray("\"queue\";r=1;t=60"));
    QCOMPARE(operationCount(), qint64(2));
    QCOMPARE(send("POST", jobs, job(QStringLiteral("A-3"))).status, 201);
    QCOMPARE(send("POST", jobs, job(QStringLiteral("A-4"))).status, 429);
    QCOMPARE(operationCount(), qint64(3));
}

void tst_LocalApi::cooldownPacesItselfOnItsOwnApi()
{
    // Worker A's queue is full; worker B hands it a job through the API, as any client
    // would, and waits as A's 429 tells it to.
    auto *a = m_runs.emplace_back(new QProcess);
    const QUrl base =
        start(*a, QStringLiteral("\"token\": \"${env:COOLDOWN_API_TOKEN}\", \"max_queued\": 1"));
    QVERIFY(!QTest::currentTestFailed());
    const QUrl jobs = base.resolved(QUrl(QStringLiteral("/v1/jobs")));
    QCOMPARE(send("POST", jobs, job(QStringLiteral("A-1"))).status, 201);

    QByteArray body = job(QStringLiteral("B-1"));
    body.replace('"', "\\\"");
    const QString config = m_dir->filePath(QStringLiteral("b.json"));
    QVERIFY(writeFile(
        config,
        QStringLiteral(
            "{\"version\": 1, \"endpoints\": [{\"id\": \"hand-over\",\n"
            "        \"method\": \"POST\", \"url\": \"%1\",\n"
            "        \"headers\": {\"Authorization\": \"Bearer ${env:COOLDOWN_API_TOKEN}\", "
            "\"Content-Type\": \"application/json\"},\n"
            "        \"body\": \"%2\", \"idempotency\": {\"header\": \"Idempotency-Key\"}}]}")
            .arg(jobs.toString(), QString::fromUtf8(body))
            .toUtf8()));
    QProcess b;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("COOLDOWN_API_TOKEN"), QString::fromUtf8(kToken));
    b.setProcessEnvironment(env);
    const QString bDb = m_dir->filePath(QStringLiteral("b.db"));
    b.start(QStringLiteral(COOLDOWN_BINARY),
            {QStringLiteral("run"), QStringLiteral("--config"), config, QStringLiteral("--db"), bDb,
             QStringLiteral("--for"), QStringLiteral("6")});
    QVERIFY(b.waitForFinished(60000));

    QString error;
    auto store = Store::open(bDb, &error);
    QVERIFY2(store, qPrintable(error));
    const QList<AttemptRecord> attempts = store->attempts({});
    // No retry storm: one attempt in 6 s (room for a slow start; the wait is 60 s).
    QCOMPARE(attempts.size(), 1);
    QCOMPARE(attempts.first().status, 429);
    // The 60 s A asked for, plus the retry profile's spread (up to 1 s by default).
    QVERIFY2(attempts.first().waitMs >= 60000 && attempts.first().waitMs <= 61000,
             qPrintable(QString::number(attempts.first().waitMs)));
    const auto op = store->operation(attempts.first().operationId);
    QCOMPARE(op->state, OperationState::Waiting);
    QCOMPARE(operationCount(), qint64(1)); // A took nothing more
}

QTEST_MAIN(tst_LocalApi)
#include "tst_local_api.moc"
