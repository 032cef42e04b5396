// SPDX-License-Identifier: Apache-2.0
#include "core/import/SourceFetch.h"

#include <QHostAddress>
#include <QPointer>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace cooldown;

// A document fetched for an import: from this machine only, one final signal that
// comes once and after start() has returned, no redirect followed.
class tst_SourceFetch : public QObject
{
    Q_OBJECT

private:
    // Answers every request with `answer` and keeps the request lines it saw.
    struct Server
    {
        QTcpServer tcp;
        QByteArray answer;
        QList<QByteArray> requests;

        explicit Server(QByteArray reply) : answer(std::move(reply))
        {
            tcp.listen(QHostAddress::LocalHost, 0);
            QObject::connect(&tcp, &QTcpServer::newConnection, &tcp, [this] {
                QTcpSocket *socket = tcp.nextPendingConnection();
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    const QByteArray request = socket->readAll();
                    requests.append(request.left(request.indexOf('\r')));
                    socket->write(answer);
                    socket->disconnectFromHost();
                });
            });
        }
        QUrl url(const QString &path) const
        {
            return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(tcp.serverPort()).arg(path));
        }
    };

    struct Outcome
    {
        int emitted = 0;
        QByteArray body;
        QString error;
        bool deleted = false;
    };
    static Outcome fetch(const QUrl &url)
    {
        auto *fetch = new SourceFetch;
        QPointer<SourceFetch> alive(fetch);
        QSignalSpy spy(fetch, &SourceFetch::finished);
        fetch->start(url);
        Outcome o;
        // Never before start() has returned.
        if (spy.count() != 0)
            return o;
        spy.wait(10000);
        // Nothing more comes, and the object goes once the event loop has turned.
        QTest::qWait(0);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        o.emitted = int(spy.count());
        if (o.emitted > 0) {
            o.body = spy.at(0).at(0).toByteArray();
            o.error = spy.at(0).at(1).toString();
        }
        o.deleted = alive.isNull();
        return o;
    }

private slots:
    void fetchesFromLoopback();
    void refusesOtherHosts();
    void followsNoRedirect();
    void anErrorStatusIsAnError();
    void stopsPastSixteenMebibytes();
};

void tst_SourceFetch::fetchesFromLoopback()
{
    Server server(
        "HTTP/1.1 200 OK\r\nContent-Length: 14\r\nConnection: close\r\n\r\nopenapi: 3.0.0");
    const Outcome o = fetch(server.url(QStringLiteral("/spec.yaml")));
    QCOMPARE(o.emitted, 1);
    QCOMPARE(o.error, QString());
    QCOMPARE(o.body, QByteArray("openapi: 3.0.0"));
    QVERIFY(o.deleted);
    QCOMPARE(server.requests, QList<QByteArray>{"GET /spec.yaml HTTP/1.1"});
}

void tst_SourceFetch::refusesOtherHosts()
{
    QVERIFY(SourceFetch::isLoopback(QUrl(QStringLiteral("http://[::1]:80/x"))));
    QVERIFY(SourceFetch::isLoopback(QUrl(QStringLiteral("https://localhost/x"))));
    QVERIFY(SourceFetch::isLoopback(QUrl(QStringLiteral("http://127.0.0.2/x"))));
    QVERIFY(!SourceFetch::isLoopback(QUrl(QStringLiteral("ftp://127.0.0.1/x"))));
    QVERIFY(!SourceFetch::isLoopback(QUrl(QStringLiteral("http://localhost.example.com/x"))));
    const Outcome o = fetch(QUrl(QStringLiteral("http://192.0.2.7/spec.yaml")));
    QCOMPARE(o.emitted, 1);
    QVERIFY(o.error.startsWith(
        QLatin1String("http://192.0.2.7/spec.yaml: only a URL on this machine")));
    QVERIFY(o.deleted);
}

void tst_SourceFetch::followsNoRedirect()
{
    Server server("HTTP/1.1 302 Found\r\nLocation: http://203.0.113.9/spec.yaml\r\n"
                  "Content-Length: 0\r\nConnection: close\r\n\r\n");
    const Outcome o = fetch(server.url(QStringLiteral("/spec.yaml")));
    QCOMPARE(o.emitted, 1);
    QCOMPARE(o.error, server.url(QStringLiteral("/spec.yaml")).toDisplayString() +
                          QStringLiteral(": redirected to http://203.0.113.9/spec.yaml, which is "
                                         "not followed; give that URL"));
    QCOMPARE(server.requests.size(), 1);
}

void tst_SourceFetch::anErrorStatusIsAnError()
{
    Server server(
        "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found");
    const Outcome o = fetch(server.url(QStringLiteral("/gone.yaml")));
    QCOMPARE(o.emitted, 1);
    QCOMPARE(o.body, QByteArray());
    QCOMPARE(o.error, server.url(QStringLiteral("/gone.yaml")).toDisplayString() +
                          QStringLiteral(": the server answered 404"));
}

void tst_SourceFetch::stopsPastSixteenMebibytes()
{
    const QByteArray body(17 * 1024 * 1024, 'x');
    Server server("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(body.size()) +
                  "\r\nConnection: close\r\n\r\n" + body);
    const Outcome o = fetch(server.url(QStringLiteral("/huge.yaml")));
    QCOMPARE(o.emitted, 1);
    QCOMPARE(o.body, QByteArray());
    QCOMPARE(o.error, server.url(QStringLiteral("/huge.yaml")).toDisplayString() +
                          QStringLiteral(": larger than 16 MiB"));
}

QTEST_GUILESS_MAIN(tst_SourceFetch)
#include "tst_sourcefetch.moc"
